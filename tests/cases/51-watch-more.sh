# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 51-watch-more.sh - watch and an unnamed namespace that outlives the
# process it was found by.

# watch reaches an unnamed namespace through a process in it
# (/proc/PID/ns/net). A launcher that exits once its VM runs leaves the
# namespace to another process: a tap made there after the first process
# exited is guarded all the same, at once and again after a pause.
#
#   unnamed netns: first (unshare -n sleep, exits), second (nsenter sleep)
#                  ${p}0 made while both live, ${p}1 and ${p}2 after the first exits
case_watch_first_exits() {
	local t="watch/first-exits [$BACKEND]" p=wf$(($$ % 100000)) out=$TMPD/wf.out
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 120 || echo 20) wpid pid1 pid2 n d i
	local nn=$CG_PFX-wfn

	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	unshare -n sleep 300 &
	pid1=$!
	while [ "$(readlink /proc/$pid1/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
	# the watcher finds it by the first process; the second comes after
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$TMPD/wf.err" &
	wpid=$!
	watch_line "$out" '^ready: ' $lim || unexpected "not-ready"
	nsenter --net=/proc/$pid1/ns/net sleep 300 &
	pid2=$!
	while [ "$(readlink /proc/$pid2/ns/net)" != "$(readlink /proc/$pid1/ns/net)" ]; do sleep 0.05; done
	n=/proc/$pid2/ns/net
	# a tap there while both live: the namespace named by the first
	nsenter --net=$n ip tuntap add dev ${p}0 mode tap vnet_hdr
	watch_line "$out" "^guarded ${p}0 netns /proc/$pid1/ns/net " $lim ||
		unexpected "${p}0(not guarded by the first's path)"
	# the first goes; the namespace lives on in the second
	kill $pid1
	wait $pid1 2>/dev/null
	nsenter --net=$n ip tuntap add dev ${p}1 mode tap vnet_hdr
	sleep 1
	nsenter --net=$n ip tuntap add dev ${p}2 mode tap vnet_hdr
	nsenter --net=$n ip link set ${p}2 up
	for d in ${p}1 ${p}2; do
		for i in $(seq $((lim * 10))); do
			[ "$("$CG" status $d --netns $n --json 2>/dev/null | jq -r .attached)" = true ] && break
			sleep 0.1
		done
		[ "$("$CG" status $d --netns $n --json 2>/dev/null | jq -r .attached)" = true ] ||
			unexpected "$d(not guarded: $(grep " $d " "$out" | tr '\n' '|'))"
	done
	# and the guards guard
	nsenter --net=$n "$INJECT" --dev ${p}2 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	[ "$("$CG" status ${p}2 --netns $n --json | jq -r .dropped)" = 2 ] || unexpected "${p}2(drops)"
	# found by its process, then named (as `ip netns exec` racing its
	# mount): by the name from then on, so the process may go at once
	unshare -n sleep 300 &
	pid1=$!
	watch_line "$out" "^watching netns /proc/$pid1/ns/net\$" $lim ||
		unexpected "found by its process" "expected a 'watching netns /proc/$pid1/ns/net' line, saw none"
	ip netns attach $nn $pid1 || unexpected "ip netns attach" "failed"
	watch_line "$out" "^netns /proc/$pid1/ns/net: named $nn\$" $lim ||
		unexpected "named" "expected 'netns /proc/$pid1/ns/net: named $nn', saw none"
	kill $pid1
	wait $pid1 2>/dev/null
	ip -n $nn tuntap add dev ${p}3 mode tap vnet_hdr
	watch_line "$out" "^guarded ${p}3 netns $nn " $lim ||
		unexpected "${p}3" "expected guarded under the name, saw '$(grep " ${p}3 " "$out" | tr '\n' '|')'"
	grep -q "^cannot guard" "$out" && unexpected "$(grep -m1 '^cannot guard' "$out")"
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	for d in ${p}0 ${p}1 ${p}2; do
		"$CG" detach $d --netns $n --quiet
	done
	"$CG" detach ${p}3 --netns $nn --quiet
	ip netns del $nn 2>/dev/null
	kill $pid2
	wait $pid2 2>/dev/null
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "the process an unnamed namespace was found by exited, another kept it: taps made there after it, at once and a second later, guarded and dropping; one found by its process and then named: by the name, its tap guarded once the process was gone"
}
cg_case watch_first_exits
