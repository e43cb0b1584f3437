# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 22-ahead-tcx.sh - another's tcx program beside a guard: named by status
# when it runs first, not when it runs after.

# Another's tcx programs on a guarded tap: one put before every program
# there (BPF_F_BEFORE), one after them all. The bpf guard in tcx mode sees
# frames after the first and before the last: status (JSON, text,
# Prometheus) names the first only. The module's hook runs after every tcx
# program: both named. Kernels without tcx (before 6.6) cannot make the
# case: SKIP.
#
#   netns $CG_PFX-tx: tap0 (up)   tcx ingress: [first] [guard?] [last]
case_ahead_tcx() {
	local t="ahead-tcx [$BACKEND]" ns=$CG_PFX-tx got mode first= last= fpid= lpid= id want

	if ! { ip netns add $ns && ip -n $ns tuntap add dev tap0 mode tap vnet_hdr &&
	       ip -n $ns link set tap0 up; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null
		return
	fi
	# (before any guard: under TCG an attach costs seconds)
	ip netns exec $ns "$HOOKS" tap0 >/dev/null 2>&1
	if [ $? = 3 ]; then
		skip "$t: no tcx on this kernel (before 6.6)"
		ip netns del $ns
		return
	fi
	"$CG" attach tap0 --netns $ns --backend "$BACKEND" --quiet || unexpected "attach"
	mode=$("$CG" status tap0 --netns $ns --json | jq -r .mode)
	for id in first last; do
		ip netns exec $ns "$HOOKS" --hold tap0 $id "$BLD/tests/tc-pass.bpf.o" \
			>"$TMPD/tx.$id" 2>&1 &
		[ $id = first ] && fpid=$! || lpid=$!
		for _ in $(seq 100); do
			grep -q '^holding ' "$TMPD/tx.$id" && break
			kill -0 $! 2>/dev/null || break
			sleep 0.05
		done
	done
	first=$(sed -n 's/^holding //p' "$TMPD/tx.first")
	last=$(sed -n 's/^holding //p' "$TMPD/tx.last")
	if [ -z "$first" ] || [ -z "$last" ]; then
		wait $fpid
		if [ $? = 3 ]; then
			skip "$t: no tcx on this kernel: $(head -1 "$TMPD/tx.first")"
		else
			fail "$t: cannot put tcx programs on tap0: $(cat "$TMPD/tx.first" "$TMPD/tx.last" | tr '\n' ' ')"
		fi
		kill $lpid 2>/dev/null
		"$CG" detach tap0 --netns $ns --quiet
		ip netns del $ns
		return
	fi
	# the kernel's order, as the premise: first, the guard (tcx mode), last
	got=$(ip netns exec $ns "$HOOKS" tap0 | awk '$1 == "tcx_ingress" { print $2 }' | paste -sd' ')
	case $BACKEND/$mode in
	bpf/tcx) [[ $got =~ ^$first\ [0-9]+\ $last$ ]] || unexpected "order" "[$got]"
		want="tcx program $first tc_pass" ;;
	*) [[ $got =~ ^$first\ ([0-9]+\ )?$last$ ]] || unexpected "order" "[$got]"
		want="tcx program $first tc_pass|tcx program $last tc_pass" ;;
	esac
	got=$("$CG" status tap0 --netns $ns --json | jq -r '.ahead | join("|")')
	[ "$got" = "$want" ] || unexpected "json" "[$got] want [$want]"
	"$CG" status tap0 --netns $ns | grep -q "^  runs before the guard, .*: tcx program $first tc_pass" ||
		unexpected "text" "[$("$CG" status tap0 --netns $ns | tr '\n' '|')]"
	"$CG" status --netns $ns --prometheus | grep -qx \
		"csum_guard_ahead{device=\"tap0\",netns=\"$ns\",backend=\"$BACKEND\",mode=\"$mode\"} $(($(tr -cd '|' <<<"$want" | wc -c) + 1))" ||
		unexpected "prometheus" "[$("$CG" status --netns $ns --prometheus | grep '^csum_guard_ahead')]"
	# the first one gone: nothing ahead of a tcx guard
	kill $fpid
	wait $fpid
	got=$("$CG" status tap0 --netns $ns --json | jq -r '.ahead | join("|")')
	case $BACKEND/$mode in
	bpf/tcx) [ -z "$got" ] || unexpected "after" "[$got]" ;;
	*) [ "$got" = "tcx program $last tc_pass" ] || unexpected "after" "[$got]" ;;
	esac
	kill $lpid
	wait $lpid
	"$CG" detach tap0 --netns $ns --quiet || unexpected "detach"
	ip netns del $ns
	expect_verdict "$t" "a tcx program put first on the guarded tap is named by status (JSON, text, Prometheus), one put last $([ "$BACKEND/$mode" = bpf/tcx ] && echo "is not (the guard runs before it)" || echo "too (the $mode guard runs after every tcx program)"); the first gone, $([ "$BACKEND/$mode" = bpf/tcx ] && echo "nothing is" || echo "the last is")"
}
cg_case ahead_tcx
