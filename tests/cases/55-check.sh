# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 55-check.sh - `csum-guard check` tells what the suite's own reproduction sees.

# What this kernel does with the bad frame on PATH (frag|tx), measured with
# the suite's tools and topology and no guard: vulnerable, fixed, unknown,
# or set-up when the topology could not be built.
check_baseline() {
	local path=$1 args ff0 ff1 got src

	case $path in
	frag) args="--mtu 576" ;;
	tx) args="--mtu 1500 --tx-csum-off" ;;
	esac
	topo_up $args || { topo_down; echo set-up; return; }
	ff0=$(frag_fails)
	inject_sniff "$TMPD/check-$path" --csum-start 20 --csum-offset 6 --count 3 --payload 1000
	ff1=$(frag_fails)
	got=$(sniff_datagrams "$TMPD/check-$path")
	src=$(sniff_sources "$TMPD/check-$path")
	topo_down
	if [ "$inject_rc" != 0 ]; then
		echo unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != $GUEST_IP ]; then
		echo vulnerable
	elif [ "${got:-0}" = 0 ] && { [ $path = tx ] || [ "$ff1" -gt "$ff0" ]; }; then
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
	local t="check [$BACKEND]" want_frag want_tx overall json rc got_frag got_tx
	local left0 left1 bad= c1 c2 rc_frag frag_only pid

	want_frag=$(check_baseline frag)
	want_tx=$(check_baseline tx)
	if [ "$want_frag" = set-up ] || [ "$want_tx" = set-up ]; then
		[ "$want_tx" = set-up ] && ! command -v ethtool >/dev/null &&
			{ skip "$t: ethtool missing"; return; }
		fail "$t: cannot build the reproduction topology"
		return
	fi
	if [ $want_frag = vulnerable ] || [ $want_tx = vulnerable ]; then
		overall=vulnerable
	elif [ $want_frag = fixed ] && [ $want_tx = fixed ]; then
		overall=fixed
	else
		overall=unknown
	fi

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	c1=$(guard_counters)
	left0=$(check_leftovers)

	json=$("$CG" check --json 2>"$TMPD/check.err")
	rc=$?
	got_frag=$(jq -r '.paths[] | select(.path == "frag") | .verdict' <<<"$json" 2>/dev/null)
	got_tx=$(jq -r '.paths[] | select(.path == "tx") | .verdict' <<<"$json" 2>/dev/null)
	[ "$got_frag" = "$want_frag" ] || bad="$bad frag=$got_frag(want $want_frag)"
	[ "$got_tx" = "$want_tx" ] || bad="$bad tx=$got_tx(want $want_tx)"
	[ "$(jq -r .verdict <<<"$json" 2>/dev/null)" = $overall ] || bad="$bad verdict(want $overall)"
	[ $rc = "$(check_exit_of $overall)" ] && [ "$(jq -r .exit <<<"$json" 2>/dev/null)" = $rc ] ||
		bad="$bad exit=$rc(want $(check_exit_of $overall))"

	# one path alone: a kernel fixed on frag only says fixed here
	frag_only=$("$CG" check --path frag --json 2>>"$TMPD/check.err")
	rc_frag=$?
	[ "$(jq -r '[.paths[].path] | join(",")' <<<"$frag_only" 2>/dev/null)" = frag ] &&
		[ "$(jq -r .verdict <<<"$frag_only" 2>/dev/null)" = "$want_frag" ] &&
		[ $rc_frag = "$(check_exit_of "$want_frag")" ] ||
		bad="$bad --path-frag=$(jq -r .verdict <<<"$frag_only" 2>/dev/null)/exit=$rc_frag"

	# usage errors exit 2 and test nothing
	"$CG" check --path bogus >/dev/null 2>&1; [ $? = 2 ] || bad="$bad --path-bogus-not-2"
	"$CG" check tap0 >/dev/null 2>&1; [ $? = 2 ] || bad="$bad device-arg-not-2"
	"$CG" check --netns "$VM" >/dev/null 2>&1; [ $? = 2 ] || bad="$bad --netns-not-2"

	# killed halfway: the kernel takes its namespaces away with it
	"$CG" check >/dev/null 2>&1 &
	pid=$!
	sleep 0.2
	kill -TERM $pid 2>/dev/null
	wait $pid

	left1=$(check_leftovers)
	[ "$left0" = "$left1" ] || bad="$bad left:$(comm -13 <(echo "$left0") <(echo "$left1") | tr '\n' ' ')"
	c2=$(guard_counters)
	[ "$c1" = "$c2" ] && [ "${c2##* }" = true ] || bad="$bad guard-on-tap0=[$c1]->[$c2]"
	guard_off
	topo_down

	if [ -z "$bad" ]; then
		pass "$t: frag $got_frag, tx $got_tx as the reproduction measured, exit $rc;" \
			"--path frag: $want_frag, exit $rc_frag; usage exits 2; nothing left, guard untouched"
	else
		fail "$t:$bad $(head -c 200 "$TMPD/check.err")"
	fi
}
cg_case check
