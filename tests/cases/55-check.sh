# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 55-check.sh - `csum-guard check` tells what the suite's own reproduction sees.

# Every path check tests, in its order
CHECK_PATHS="frag tx tx6 xtcsum nfqueue xtcsum6 nfqueue6"

# What this kernel does with the bad frame on PATH (one of $CHECK_PATHS),
# measured with the suite's tools and topology and no guard, as
# case_repro does: vulnerable, fixed, unknown; set-up when the topology
# could not be built; missing when iptables or the rule's target is not
# here (site_up has said SKIP then, on stderr: stdout is the answer).
check_baseline() {
	local path=$1 n=3 args ff0 ff1 got src site= site_seen ipt=iptables
	local bad="--csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local GUEST_IP=$GUEST_IP SNIFF_DST=$FAR_IP

	case $path in
	frag) args="--mtu 576" ;;
	tx | tx6) args="--mtu 1500 --tx-csum-off" ;;
	*) args="--mtu 1500" ;;
	esac
	if [ "${path%6}" != "$path" ]; then
		args="$args --ipv6"
		bad="--ipv6 --csum-start 22 --csum-offset 6 --count $n --payload 1000"
		GUEST_IP=$GUEST_IP6 SNIFF_DST=$FAR_IP6 ipt=ip6tables
	fi
	case $path in
	xtcsum* | nfqueue*)
		command -v $ipt >/dev/null || { skip "check baseline $path: $ipt missing" >&2; echo missing; return; } ;;
	esac
	topo_up $args || { topo_down; echo set-up; return; }
	case $path in
	xtcsum* | nfqueue*)
		site_up ${path%6} "check baseline $path" >&2 || { topo_down; echo missing; return; }
		site=${path%6}
		;;
	esac
	ff0=$(frag_fails)
	repro_send "$TMPD/check-$path" $bad
	ff1=$(frag_fails)
	got=$(sniff_datagrams "$TMPD/check-$path")
	src=$(sniff_sources "$TMPD/check-$path")
	topo_down
	if [ "$inject_rc" != 0 ]; then
		echo unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != $GUEST_IP ]; then
		echo vulnerable
	elif [ "${got:-0}" = 0 ] && [ $path = frag ] && [ "$ff1" -gt "$ff0" ]; then
		echo fixed
	elif [ "${got:-0}" = 0 ] && [ "${path%6}" = tx ]; then
		echo fixed
	elif [ "${got:-0}" = 0 ] && [ -n "$site" ] && [ "$site_seen" = $n ] &&
	     { [ $site != nfqueue ] || [ "$(queue_packets "$TMPD/check-$path")" = 0 ]; }; then
		echo fixed
	else
		echo unknown
	fi
}

# What check could leave in this namespace: named namespaces, its devices.
check_leftovers() {
	ip netns list | grep -v '^cgt[0-9]*-'
	ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -Ex 'tap0|veth[01]'
}

check_exit_of() {
	case $1 in
	fixed) echo 0 ;;
	vulnerable) echo 10 ;;
	unknown) echo 11 ;;
	*) echo 1 ;;
	esac
}

# Per backend: while a guard of $BACKEND sits on the suite's own tap (which
# check must neither see nor disturb), check reports per path what the
# reproduction measured just before, with the documented exit codes, and
# leaves nothing behind, also when it is killed.
case_check() {
	local t="check [$BACKEND]" overall json rc p got says= one rc1 paths
	local left0 left1 c1 c2 pid
	local -A want

	for p in $CHECK_PATHS; do
		want[$p]=$(check_baseline $p)
		case ${want[$p]} in
		set-up)
			[ "${p%6}" = tx ] && ! command -v ethtool >/dev/null &&
				{ skip "$t: ethtool missing"; return; }
			fail "$t: cannot build the reproduction topology for $p"
			return
			;;
		# no iptables or target: check must say it cannot tell, not fixed
		missing) want[$p]=unknown ;;
		esac
	done
	overall=fixed
	for p in $CHECK_PATHS; do
		case ${want[$p]} in
		vulnerable) overall=vulnerable ;;
		unknown) [ $overall = vulnerable ] || overall=unknown ;;
		esac
	done

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	c1=$(guard_counters)
	left0=$(check_leftovers)

	json=$("$CG" check --json 2>"$TMPD/check.err")
	rc=$?
	for p in $CHECK_PATHS; do
		got=$(jq -r --arg p $p '.paths[] | select(.path == $p) | .verdict' <<<"$json" 2>/dev/null)
		expect_eq "$p: check's verdict, as the reproduction's" "${want[$p]}" "$got"
		says="$says $p $got,"
	done
	expect_eq "the paths tested" "$CHECK_PATHS" "$(jq -r '.tested | join(" ")' <<<"$json" 2>/dev/null)"
	expect_eq "the verdict" $overall "$(jq -r .verdict <<<"$json" 2>/dev/null)"
	expect_eq "the exit status" "$(check_exit_of $overall)" $rc
	expect_eq "the exit status in the JSON" $rc "$(jq -r .exit <<<"$json" 2>/dev/null)"

	# one path alone: a kernel fixed on that path only says fixed there
	for p in $CHECK_PATHS; do
		one=$("$CG" check --path $p --json 2>>"$TMPD/check.err")
		rc1=$?
		expect_eq "--path $p: tested" $p "$(jq -r '.tested | join(",")' <<<"$one" 2>/dev/null)"
		expect_eq "--path $p: paths" $p "$(jq -r '[.paths[].path] | join(",")' <<<"$one" 2>/dev/null)"
		expect_eq "--path $p: verdict" "${want[$p]}" "$(jq -r .verdict <<<"$one" 2>/dev/null)"
		expect_eq "--path $p: exit status" "$(check_exit_of "${want[$p]}")" $rc1
	done
	# a list, in check's order whatever the order given
	paths=$("$CG" check --path xtcsum6,tx6 --json 2>>"$TMPD/check.err" |
		jq -r '[.paths[].path] | join(",")' 2>/dev/null)
	expect_eq "--path xtcsum6,tx6: the paths, in check's order" tx6,xtcsum6 "$paths"

	# usage errors exit 2 and test nothing
	"$CG" check --path bogus >/dev/null 2>&1
	expect_eq "check --path bogus: exit status" 2 $?
	"$CG" check tap0 >/dev/null 2>&1
	expect_eq "check tap0: exit status" 2 $?
	"$CG" check --netns "$VM" >/dev/null 2>&1
	expect_eq "check --netns: exit status" 2 $?

	# killed halfway, also while a rule or the queue is up in its namespace:
	# the kernel takes its namespaces away with it
	for p in "" "--path nfqueue6"; do
		"$CG" check $p >/dev/null 2>&1 &
		pid=$!
		sleep 0.3
		kill -TERM $pid 2>/dev/null
		wait $pid
	done

	left1=$(check_leftovers)
	expect_eq "what check left, as before (new: $(comm -13 <(echo "$left0") <(echo "$left1") | tr '\n' ' '))" \
		"$left0" "$left1"
	c2=$(guard_counters)
	expect_eq "the guard on tap0 (counters, attached), as before" "$c1" "$c2"
	expect_eq "the guard on tap0: attached" true "${c2##* }"
	guard_off
	topo_down

	expect_clean || unexpected "check's stderr" "$(head -c 200 "$TMPD/check.err")"
	says=${says%,}
	expect_verdict "$t" "${says# } as the reproduction measured, exit $rc; each --path alone and a list agree; usage exits 2; nothing left, guard untouched"
}
cg_case check
