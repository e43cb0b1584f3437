# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 70-faults.sh - lifecycle faults: a loader killed at every step of attach and
# detach, many taps under racing loaders.

# FAULT_MODES (tcx clsact netfilter) and FAULT_KINDS (fresh fresh-egress
# update update-egress egress-on egress-off detach detach-egress) narrow
# kill_attach down while working on it.

# Kill points: every call of these. They are how the loader changes state
# (bpf objects, pins and links, netlink to tc and to the module, bpffs
# directories, the lock, the module load) and how it reads it back.
FAULT_SET=bpf,sendto,sendmsg,mkdir,mkdirat,unlink,unlinkat,rmdir,flock,finit_module,init_module

# The loaders of kill_attach run in a mount namespace of their own with a
# fresh bpffs: they see only their own pins, so that nobody else's guards
# (an operator's, a parallel run) change the sequence of syscalls from one
# run to the next, and "nothing left" can mean an empty bpffs.
fault_mnt_up() {
	local ready=$TMPD/mnt.ready

	rm -f "$ready"
	# it lives as long as the suite does, not longer
	unshare -m --propagation slave sh -c \
		'mount -t bpf bpf /sys/fs/bpf && touch "$1" || exit
		 while kill -0 "$2" 2>/dev/null; do sleep 1; done' - "$ready" $$ &
	FAULT_MNT=$!
	wait_ready "$ready"
}

fault_mnt_down() {
	kill "$FAULT_MNT" 2>/dev/null
	wait "$FAULT_MNT" 2>/dev/null
}

fcg() { nsenter -t "$FAULT_MNT" -m -- "$CG" "$@"; }

# What a guard could leave behind: pins, tc objects on the tap, the
# module's (or the pins') idea of what is guarded. Programs are counted
# apart: the count is host-wide.
fault_snapshot() {
	nsenter -t "$FAULT_MNT" -m -- find /sys/fs/bpf -path '/sys/fs/bpf/csum_guard*' | sort
	printf '%s\n' "qdisc show dev tap0" "filter show dev tap0 ingress" \
		"filter show dev tap0 egress" | tc -n "$VM" -batch -
	fcg status --netns "$VM" --json
}

# The host's csum_guard programs, one id a line.
prog_ids() { bpftool prog show | sed -n 's/^\([0-9]*\): .* name csum_guard .*/\1/p' | sort; }

# pinned_progs PID KINDS DIR...: the programs held by pins of KINDS
# ("link prog": links and programs) under DIR..., in the mount namespace of
# process PID (0: ours), each id once. One bpftool per kind, whatever the
# number of pins (a bpffs mounted over another is walked twice).
pinned_progs() {
	local pid=$1 kinds=$2 k ns=()
	shift 2
	[ "$pid" = 0 ] || ns=(nsenter -t "$pid" -m --)
	for k in $kinds; do
		"${ns[@]}" bpftool -f "$k" show
	done | awk -v dirs="$*" '
		/^[0-9]+:/ { id = $1; sub(/:$/, "", id); for (i = 2; i < NF; i++) if ($i == "prog") id = $(i + 1) }
		$1 == "pinned" { n = split(dirs, d, " "); for (i = 1; i <= n; i++) if (index($2, d[i] "/") == 1 && !seen[id]++) print id }'
}

# prog_check WANT OURS...: the programs our guards hold (ids OURS, from
# their pins and filters) are WANT distinct ones, and the host has no other
# csum_guard program than at the start ($PROG_B) and the ones the host's
# guards share, ready for the next guard ($PROG_SHARED, from their pins):
# every program a dead loader leaves is held by a pin, a link or a filter,
# and these are ours to see. Other loaders on the host (a parallel run)
# change their programs too: when the rest does not settle back to
# $PROG_B, the host-wide part is counted in $TMPD/disturbed instead of
# failing.
prog_check() {
	local want=$1 ours rest i
	shift
	ours=$(printf '%s\n' "$@" | grep . | sort -u)
	[ "$(grep -c . <<<"$ours")" = "$want" ] ||
		echo "programs held: $(grep -c . <<<"$ours"), want $want"
	for i in 1 2 3; do
		rest=$(prog_ids | grep -vxF "$(printf '%s\n' "${ours:-none}" ${PROG_SHARED:-})")
		[ "$rest" = "$PROG_B" ] && return
		sleep 0.2
	done
	echo >>"$TMPD/disturbed"
}

# How often prog_check could not check the host-wide count.
prog_disturbed() {
	[ -s "$TMPD/disturbed" ] &&
		echo "; host-wide program count disturbed by other loaders $(wc -l <"$TMPD/disturbed") times"
	rm -f "$TMPD/disturbed"
}

# The programs our guard on tap0 holds: its pins, filters (not the host's
# shared programs, which wait for the next guard: fault_shared).
fault_progs() {
	pinned_progs "$FAULT_MNT" "link prog" $(nsenter -t "$FAULT_MNT" -m -- \
		find /sys/fs/bpf/csum_guard -mindepth 1 -maxdepth 1 -name '[0-9]*' 2>/dev/null)
	printf '%s\n' "filter show dev tap0 ingress" "filter show dev tap0 egress" |
		tc -n "$VM" -batch - | sed -n 's/.* id \([0-9]*\) .*/\1/p'
}

# The programs pinned for the host's guards to share: one per kind of
# load at most (here: with and without --log-drops).
fault_shared() {
	pinned_progs "$FAULT_MNT" prog /sys/fs/bpf/csum_guard/shared
}

# Our hooks on tap0 (bpf), one a line: our filters (clsact) or link pins (tcx).
fault_hooks() {
	if [ "$1" = clsact ]; then
		printf '%s\n' "filter show dev tap0 ingress" "filter show dev tap0 egress" |
			tc -n "$VM" -batch - | grep 'handle 0xc5 '
	else
		nsenter -t "$FAULT_MNT" -m -- find /sys/fs/bpf/csum_guard -name 'link*'
	fi
}

# The log_drops of the program that really runs on tap0 (bpf), on every
# hook, from its read-only data; "none" when no program of ours, or more
# than one, runs there.
running_log_drops() {
	local id=

	if [ "$1" = clsact ]; then
		id=$(fault_hooks clsact | sed -n 's/.* id \([0-9]*\) .*/\1/p' | sort -u)
	else
		id=$(pinned_progs "$FAULT_MNT" link /sys/fs/bpf/csum_guard)
	fi
	[ -n "$id" ] && [ "$(wc -w <<<"$id")" = 1 ] || { echo "none:$id"; return; }
	prog_log_drops "$id"
}

# fault_converged LOG_DROPS MODE [EGRESS]: one guard of $BACKEND on tap0
# with those options, really in place: a bad frame is dropped and counted;
# bpf: one program held, no other new one on the host, the program that
# runs has those options, on as many hooks as asked for. Its checks are
# named after TAG, the step they follow.
fault_converged() {
	local tag=$1 want=$2 mode=$3 egress=${4:-false} json n d0 d1

	# veth0, the topology's link to $FAR, faces a container (its peer is in
	# another namespace): status lists it, unguarded; the guards are tap0's
	json=$(fcg status --netns "$VM" --json | jq -c 'map(select(.device != "veth0"))')
	n=${json//[^\{]/}
	expect_eq "$tag: status's [guards, device, backend, log_drops, egress] (${json:-nothing})" \
		"1 tap0 $BACKEND $want $egress" \
		"${#n} $(jget "$json" device) $(jget "$json" backend) $(jget "$json" log_drops) $(jget "$json" egress)" ||
		return
	d0=$(jget "$json" dropped)
	expect_ok "$tag: inject" ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --payload 64
	expect_eq "$tag: dropped after a bad frame ($d0 before)" $((d0 + 1)) \
		"$(jget "$(fcg status tap0 --netns "$VM" --json)" dropped)"
	[ "$BACKEND" = bpf ] || return 0
	PROG_SHARED=$(fault_shared)
	[ "$(grep -c . <<<"$PROG_SHARED")" -le 2 ] ||
		unexpected "$tag: shared programs" "expected 2 at most, saw $(echo $PROG_SHARED)"
	expect_eq "$tag: the programs held" "" "$(prog_check 1 $(fault_progs))"
	PROG_SHARED=
	expect_eq "$tag: the running program's log_drops, as status says" "$want" "$(running_log_drops "$mode")"
	n=$(fault_hooks "$mode" | grep -c .)
	expect_eq "$tag: hooks of ours, egress $egress" $([ "$egress" = true ] && echo 2 || echo 1) "$n"
}

# "pid name what killed" per call of the set in an strace output, in
# order: what is the bpf command, "-" for other calls; killed is 1 for the
# call the process was killed on.
fault_calls() {
	awk '$2 ~ /^[a-z_0-9]+\(/ { n = $2; sub(/\(.*/, "", n); w = "-"
	     if (n == "bpf") { w = $2; sub(/^bpf\(/, "", w); sub(/,$/, "", w) }
	     print $1, n, w, ($NF == "?") ? 1 : 0 }' "$1"
}

# The kill points at and right after a call that changes state: where a
# run without time for all of them kills.
fault_changes() {
	fault_calls "$1" | awk '{ c = $2 !~ /^bpf$/ ||
		$3 ~ /^BPF_(OBJ_PIN|LINK_CREATE|LINK_DETACH|LINK_UPDATE|MAP_UPDATE_ELEM|PROG_ATTACH|PROG_DETACH)$/ }
		c || prev { print NR } { prev = c }'
}

# jget JSON KEY: the first value of KEY (no jq: under TCG every process
# costs a good part of a second).
jget() { [[ $1 =~ \"$2\":\"?([^,\"}]*) ]] && echo "${BASH_REMATCH[1]}"; }

# fault_kill N REF OUT ARGS...: run the loader with ARGS, killed on entering
# the Nth call of the set it made in the reference run REF. strace counts
# calls per process and per syscall: the Nth call is the Kth of its name
# in its process. Fails unless the kill landed there.
fault_kill() {
	local n=$1 ref=$2 out=$3 name k got
	shift 3
	got=$(fault_calls "$ref" |
		awk -v n="$n" '{ c[$1 " " $2]++ } NR == n { print $2, c[$1 " " $2]; exit }')
	name=${got% *} k=${got#* }
	# (--seccomp-bpf would be faster, but strace 6.1 then injects nothing)
	(nsenter -t "$FAULT_MNT" -m -- strace -f -qq -o "$out" -e trace=$FAULT_SET \
		-e inject="$name":signal=KILL:when="$k" "$CG" "$@"; true) >/dev/null 2>&1
	got=$(fault_calls "$out" | awk '$4 { print NR, $2; exit }')
	[ "$got" = "$n $name" ] || { note "kill point $n ($name #$k) landed at: ${got:-none}"; return 1; }
}

# fault_seq KIND MODE: for every kill point of one operation, kill it
# there, re-run, check convergence, undo, compare with the state before.
#   fresh:  attach on an unguarded tap, then a normal attach
#   update: attach --log-drops over a guard without, then an attach back
#           to the old options (--no-log-drops) and one of the new (both must converge)
#   detach: detach, then a normal detach
# and the same with --egress: fresh-egress and detach-egress (a guard of
# both hooks), update-egress (--log-drops over a guard of both hooks: a
# swap on each), egress-on (--egress --log-drops over a guard of ingress:
# a hook more and a swap), egress-off (the way back, --no-egress --no-log-drops).
# With $FAULT_BUDGET (s, guests) only the points at and after a change of
# state, and only as many of them as fit. Sets fault_points, fault_tried,
# fault_bad.
fault_seq() {
	local kind=$1 mode=$2 ref=$TMPD/fault.ref out=$TMPD/fault.out before after
	local m=() args=(--netns "$VM" --backend "$BACKEND" --quiet) i points t1 step record
	local json pre=() op=() back=() oldl=false newl=false olde=false newe=false

	[ "$BACKEND" = bpf ] && m=(--mode "$mode")
	# back: the attach that returns to the old options (a guard keeps
	# what it has unless asked off)
	case $kind in
	fresh-egress|detach-egress) op=(--egress) olde=true newe=true ;;
	update) op=(--log-drops) back=(--no-log-drops) newl=true ;;
	update-egress) pre=(--egress) op=(--egress --log-drops) back=(--egress --no-log-drops)
		olde=true newe=true newl=true ;;
	egress-on) op=(--egress --log-drops) back=(--no-egress --no-log-drops) newe=true newl=true ;;
	egress-off) pre=(--egress --log-drops) op=(--no-egress --no-log-drops) back=("${pre[@]}")
		olde=true oldl=true ;;
	esac
	fault_points=0 fault_tried=0 fault_bad=0
	fault_cold
	before=$(fault_snapshot)
	# the reference run: how many calls, and which
	case $kind in
	fresh*) ;;
	detach*) fcg attach tap0 "${args[@]}" "${m[@]}" "${op[@]}" ;;
	*) fcg attach tap0 "${args[@]}" "${m[@]}" "${pre[@]}" ;;
	esac
	case $kind in
	detach*) set -- detach tap0 --netns "$VM" --quiet ;;
	*) set -- attach tap0 "${args[@]}" "${m[@]}" "${op[@]}" ;;
	esac
	nsenter -t "$FAULT_MNT" -m -- strace -f -qq -o "$ref" \
		-e trace=$FAULT_SET "$CG" "$@" || { fault_bad=1; note "$kind/$mode: reference run failed"; return; }
	fault_points=$(fault_calls "$ref" | wc -l)
	fcg detach tap0 --netns "$VM" --quiet
	if [ -n "${FAULT_BUDGET:-}" ]; then
		points=$(fault_changes "$ref")
	else
		points=$(seq "$fault_points")
	fi

	step=1
	while [ -n "$points" ]; do
		i=${points%%$'\n'*}
		t1=${EPOCHREALTIME/./}
		# each point's checks on a record of their own, for its note
		record=$EXPECT_FAILED
		expect_reset
		case $kind in
		fresh*) fault_cold ;;
		detach*) expect_ok "set-up attach" fcg attach tap0 "${args[@]}" "${m[@]}" "${op[@]}" ;;
		*) expect_ok "set-up attach" fcg attach tap0 "${args[@]}" "${m[@]}" "${pre[@]}" ;;
		esac
		case $kind in
		fresh*|detach*) ;;
		*) ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --payload 64 ;;
		esac
		fault_kill "$i" "$ref" "$out" "$@" || unexpected "kill" "missed"
		case $kind in
		fresh*)
			expect_ok "re-attach" fcg attach tap0 "${args[@]}" "${m[@]}" "${op[@]}"
			fault_converged "re-attach" false "$mode" $newe
			;;
		detach*)
			# half a detach never claims a guard that is not there
			json=$(fcg status tap0 --netns "$VM" --json)
			[ "$(jget "$json" attached)" = true ] && fault_converged "half a detach" false "$mode" $olde
			;;
		*)
			# the counters survive whatever the killed run did
			expect_eq "dropped after the kill" 1 "$(jget "$(fcg status tap0 --netns "$VM" --json)" dropped)"
			expect_ok "old-options attach" fcg attach tap0 "${args[@]}" "${m[@]}" "${back[@]}"
			fault_converged "old-options attach" $oldl "$mode" $olde
			expect_ok "re-attach" fcg attach tap0 "${args[@]}" "${m[@]}" "${op[@]}"
			fault_converged "re-attach" $newl "$mode" $newe
			# and the counters survive the convergence
			expect_eq "dropped after re-attach" 3 "$(jget "$(fcg status tap0 --netns "$VM" --json)" dropped)"
			;;
		esac
		expect_ok "detach" fcg detach tap0 --netns "$VM" --quiet
		after=$(fault_snapshot)
		if [ "$after" != "$before" ]; then
			echo "$before" >"$TMPD/fault.before"
			unexpected "the state after" "it differs: $(echo "$after" | diff "$TMPD/fault.before" - | grep '^[<>]' | tr '\n' ' ')"
		fi
		[ "$BACKEND" = bpf ] && expect_eq "the programs held after" "" "$(prog_check 0 $(fault_progs))"
		if ! expect_clean; then
			fault_scrub
			fault_bad=$((fault_bad + 1))
			note "$kind/$mode killed at $i/$fault_points ($(fault_calls "$ref" | sed -n "${i}p" | cut -d' ' -f2,3)): ${EXPECT_FAILED#; }"
		fi
		# a point's failures are its note and fault_bad; the case's record goes on
		EXPECT_FAILED=$record
		fault_tried=$((fault_tried + 1))
		# the first point says what one costs: keep within the budget
		if [ $fault_tried = 1 ] && [ -n "${FAULT_BUDGET:-}" ]; then
			step=$(((${EPOCHREALTIME/./} - t1) * $(wc -l <<<"$points") / (FAULT_BUDGET * 1000000) + 1))
		fi
		points=$(sed -n "$((step + 1)),\$p" <<<"$points")
	done
}

# After a point that did not converge: nothing it left may change the next.
fault_scrub() {
	fcg detach tap0 --netns "$VM" --quiet
	tc -n "$VM" qdisc del dev tap0 clsact 2>/dev/null
	nsenter -t "$FAULT_MNT" -m -- rm -rf /sys/fs/bpf/csum_guard
}

# kmod: start each fresh attach with the module unloaded, so that loading
# it is among the steps (as far as the module can be unloaded here).
fault_cold() {
	[ "$BACKEND" = kmod ] && [ -d /sys/module/csum_guard ] && rmmod csum_guard 2>/dev/null
	true
}

case_kill_attach() {
	local t="kill-attach [$BACKEND]" modes kind kinds mode total=0 tried=0 bad=0 runs=() t0=$SECONDS
	local FAULT_BUDGET=${FAULT_BUDGET:-} scope=

	command -v strace >/dev/null || { skip "$t: strace missing"; return; }
	case $BACKEND in
	bpf) modes=clsact; [ "$(jq -r .tcx <<<"$PROBE")" = true ] && modes="tcx clsact" ;;
	kmod) modes=netfilter ;;
	esac
	kinds=${FAULT_KINDS:-fresh fresh-egress update update-egress egress-on egress-off detach detach-egress}
	# Under TCG one kill point costs several seconds, and each operation's
	# reference run and set-up half a minute: there, only the points at and
	# right after a change of state, within about 3.5 minutes (full); a
	# quick run takes the first mode and the three plain operations only
	# (the host runs every mode and kind of the bpf backend). The host
	# kills at every point in a full run, within about 2.5 minutes in a
	# quick one.
	if [ -n "${CG_GUEST:-}" ] && [ "$CG_DEPTH" = quick ] && [ -z "${FAULT_MODES:-}${FAULT_KINDS:-}" ]; then
		modes=${modes%% *}
		kinds="fresh update detach"
		scope="$scope; quick run under TCG: $modes, fresh, update and detach only"
	fi
	modes=${FAULT_MODES:-$modes}
	if [ -n "${CG_GUEST:-}" ] && [ -z "$FAULT_BUDGET" ]; then
		FAULT_BUDGET=$(($([ "$CG_DEPTH" = full ] && echo 210 || echo 75) / ($(wc -w <<<"$modes") * $(wc -w <<<"$kinds"))))
		scope="$scope; under TCG only the points at and right after a change of state, about $FAULT_BUDGET s per operation"
	elif [ -z "$FAULT_BUDGET" ] && [ "$CG_DEPTH" = quick ]; then
		FAULT_BUDGET=$((150 / ($(wc -w <<<"$modes") * 8)))
		scope="$scope; quick run: only the points at and right after a change of state, about $FAULT_BUDGET s per operation"
	elif [ -n "$FAULT_BUDGET" ]; then
		scope="$scope; FAULT_BUDGET: only the points at and right after a change of state, about $FAULT_BUDGET s per operation"
	fi
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns add "$VM" && ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr &&
		ip -n "$VM" link set tap0 up || { fail "$t: set-up"; topo_down; return; }
	fault_mnt_up || { fail "$t: no private bpffs"; fault_mnt_down; topo_down; return; }
	PROG_B=$(prog_ids)
	rm -f "$TMPD/disturbed"
	# a backend (kmod on an older kernel) that cannot guard egress here,
	# as the probe says; where it says it can, the egress kinds run
	if fcg attach tap0 --netns "$VM" --backend "$BACKEND" --quiet --egress 2>"$TMPD/err"; then
		fcg detach tap0 --netns "$VM" --quiet
	elif [ -n "$(egress_unavailable)" ]; then
		kinds=$(printf '%s\n' $kinds | grep -v egress)
		scope="$scope; no egress kinds: $(egress_unavailable)"
	fi
	for mode in $modes; do
		for kind in $kinds; do
			fault_seq $kind $mode
			total=$((total + fault_points))
			tried=$((tried + fault_tried))
			bad=$((bad + fault_bad))
			runs+=("$kind/$mode:$fault_tried/$fault_points")
		done
	done
	fcg detach tap0 --netns "$VM" --quiet
	fault_mnt_down
	topo_down
	reliability "kill_attach [$BACKEND]: killed at $tried of $total kill points (${runs[*]}), $((tried - bad)) converged, $bad leaks or divergences, $((SECONDS - t0)) s$scope$(prog_disturbed)"
	expect_gt "kill points tried" 0 $tried
	expect_eq "kill points that did not converge, of $tried (each one's note above)" 0 $bad
	expect_verdict "$t" "killed at $tried of $total steps (${runs[*]}), every re-run converged, nothing left"
}
cg_case kill_attach

# many_loop VERB ORDER NS...: VERB every tap of every namespace, in order
# (fwd) or backwards (rev); prints each run that failed.
many_loop() {
	local verb=$1 order=$2 ns j b=()
	shift 2
	[ "$verb" = attach ] && b=(--backend "$BACKEND")
	[ "$order" = rev ] && set -- $(printf '%s\n' "$@" | tac)
	for ns; do
		for j in $([ "$order" = rev ] && echo 3 2 1 0 || echo 0 1 2 3); do
			"$CG" "$verb" tap$j --netns "$ns" "${b[@]}" --quiet 2>&1 || echo "$verb tap$j $ns failed"
		done
	done
}

# many_listed WANT NS...: how many namespaces do not list exactly WANT
# (a jq array of device names) as guarded by $BACKEND.
many_listed() {
	local want=$1 ns
	shift
	for ns; do
		"$CG" status --netns "$ns" --json
	done | jq -s --argjson want "$want" --arg b "$BACKEND" \
		'map(select((map(select(.attached and .backend == $b) | .device) | sort) != $want
			    or (map(select(.attached)) | length) != ($want | length))) | length'
}

# Four taps in each of many namespaces; two loaders attach them all at once
# in opposite orders, then two detach them all: every tap guarded exactly
# once, then nothing left. The bpf backend's devices all run one program,
# verified once for the host, and it goes with the last of them.
case_many_taps() {
	local t="many-taps [$BACKEND]" nns=64 per=4 budget=140 scale= i c t0 ta td
	local nss=() inos out=$TMPD/many leaks=0 p1

	[ "$CG_DEPTH" = quick ] && budget=60

	PROG_B=$(prog_ids)
	rm -f "$TMPD/disturbed"
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	# Under TCG a loader run costs a good part of a second: measure one
	# and fit the namespaces into the budget; the host always does 64.
	if [ -n "${CG_GUEST:-}" ]; then
		ip netns add "$CG_PFX-n0" && ip -n "$CG_PFX-n0" tuntap add dev tap0 mode tap vnet_hdr ||
			{ fail "$t: set-up"; ip netns del "$CG_PFX-n0" 2>/dev/null; return; }
		# what each tap costs: attach, again, detach, again
		t0=${EPOCHREALTIME/./}
		for i in 1 2; do
			"$CG" attach tap0 --netns "$CG_PFX-n0" --backend "$BACKEND" --quiet
		done
		for i in 1 2; do
			"$CG" detach tap0 --netns "$CG_PFX-n0" --quiet
		done
		c=$(((${EPOCHREALTIME/./} - t0) / 1000))
		ip netns del "$CG_PFX-n0"
		# per namespace: 4 taps, 2 status and 1 set-up of about a run each
		c=$((per * c + 3 * c / 4))
		i=$((budget * 1000 / c))
		if [ $i -lt $nns ]; then
			nns=$((i < 1 ? 1 : i))
			scale="scaled to $nns namespaces: each costs about $c ms here (TCG), 64 would take about $((c * 64 / 1000)) s"
			note "many_taps: $scale"
		fi
	fi
	for i in $(seq 0 $((nns - 1))); do nss+=("$CG_PFX-n$i"); done
	printf 'netns add %s\n' "${nss[@]}" | ip -batch - || { fail "$t: set-up"; many_down "${nss[@]}"; return; }
	for i in "${nss[@]}"; do
		printf 'tuntap add dev tap%d mode tap vnet_hdr\n' 0 1 2 3 | ip -n "$i" -batch - ||
			{ fail "$t: set-up"; many_down "${nss[@]}"; return; }
	done
	inos=$(stat -L -c %i "${nss[@]/#//run/netns/}")

	t0=$SECONDS
	# (named waits: the guests of make test run in the background too)
	many_loop attach fwd "${nss[@]}" >"$out.a1" &
	p1=$!
	many_loop attach rev "${nss[@]}" >"$out.a2" &
	wait $p1 $!
	ta=$((SECONDS - t0))
	expect_eq "attach runs that failed" "" "$(cat "$out.a1" "$out.a2" | head -3 | tr '\n' ' ')"
	expect_eq "namespaces that do not list their 4 taps guarded once by $BACKEND" 0 \
		"$(many_listed '["tap0","tap1","tap2","tap3"]' "${nss[@]}")"
	[ "$BACKEND" = bpf ] && expect_eq "the programs held, guarded" "" "$(prog_check 1 $(many_progs $inos))"

	t0=$SECONDS
	many_loop detach fwd "${nss[@]}" >"$out.d1" &
	p1=$!
	many_loop detach rev "${nss[@]}" >"$out.d2" &
	wait $p1 $!
	td=$((SECONDS - t0))
	expect_eq "detach runs that failed" "" "$(cat "$out.d1" "$out.d2" | head -3 | tr '\n' ' ')"
	c=$(many_listed '[]' "${nss[@]}")
	expect_eq "namespaces that still list guards" 0 "$c" || leaks=$((leaks + c))
	for i in $inos; do
		[ -e "/sys/fs/bpf/csum_guard/$i" ] && leaks=$((leaks + 1)) && unexpected "pins" "left in $i"
	done
	if [ "$BACKEND" = bpf ]; then
		expect_eq "the programs held, detached" "" "$(prog_check 0 $(many_progs $inos))" ||
			leaks=$((leaks + 1))
	fi
	many_down "${nss[@]}"

	reliability "many_taps [$BACKEND]: $((nns * per)) taps in $nns namespaces, 2 racing loaders, $((nns * per * 4)) loader runs (attach ${ta} s, detach ${td} s), $leaks leaks$(prog_disturbed)${scale:+ ($scale)}"
	expect_verdict "$t" "$((nns * per)) taps in $nns namespaces, 2 loaders racing: each guarded once, then nothing left"
}
cg_case many_taps

# The programs the pins of these namespaces (inodes) hold.
many_progs() { pinned_progs 0 "link prog" $(printf '/sys/fs/bpf/csum_guard/%s ' "$@"); }

many_down() {
	printf 'netns del %s\n' "$@" | ip -batch - 2>/dev/null
	true
}
