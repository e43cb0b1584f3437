# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 67-fleet-more.sh - the host-wide status of namespaces where nothing was
# ever guarded.

# The worst case an operator alerts on: a guest-facing tap, up, in a
# namespace where no guard was ever made (the watcher down, or attach
# failing there), so that no guard state names the namespace. status with
# no --netns (text, --json, --prometheus) lists it unguarded, a named
# namespace by its name and an unnamed one by its inode, as `--netns`
# does; csum_guard_guarded 0 is the alert's sample.
#
#   netns $CG_PFX-fu: ${p}n (up)      unnamed netns (unshare -n): ${p}u (up)
case_fleet_unguarded() {
	local t="fleet-unguarded [$BACKEND]" ns=$CG_PFX-fu p=fu$(($$ % 100000)) upid u ino d e json

	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	unshare -n sleep 120 &
	upid=$!
	while [ "$(readlink /proc/$upid/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
	u=/proc/$upid/ns/net
	if ! { ip netns add $ns && ip -n $ns tuntap add dev ${p}n mode tap vnet_hdr &&
	       ip -n $ns link set ${p}n up &&
	       nsenter --net=$u ip tuntap add dev ${p}u mode tap vnet_hdr &&
	       nsenter --net=$u ip link set ${p}u up; }; then
		fail "$t: set-up"
		kill $upid
		ip netns del $ns 2>/dev/null
		return
	fi
	ino=$(stat -L -c %i $u)
	# (the premise: nothing of ours knows either namespace)
	for d in $(stat -L -c %i /run/netns/$ns) $ino; do
		[ ! -e /sys/fs/bpf/csum_guard/$d ] || unexpected "premise" "state-for-$d"
	done
	json=$("$CG" status --json) || unexpected "json-rc"
	for d in "${p}n|$ns" "${p}u|$ino"; do
		e=$(jq -c --arg dev "${d%|*}" '[.[] | select(.device == $dev) |
			[.netns, .guarded, .attached, .kind]]' <<<"$json")
		[ "$e" = "[[\"${d#*|}\",false,false,\"tun\"]]" ] || unexpected "json" "${d%|*}:$e"
	done
	"$CG" status >"$TMPD/fu.txt" || unexpected "text-rc"
	for d in "${p}n netns $ns" "${p}u netns $ino"; do
		[ "$(grep -cxF "$d: not guarded (tun)" "$TMPD/fu.txt")" = 1 ] || unexpected "text" "${d%% *}"
	done
	"$CG" status --prometheus >"$TMPD/fu.prom" || unexpected "prom-rc"
	prom_parse "$FLEET_METRICS" <"$TMPD/fu.prom" >"$TMPD/fu.samples" 2>"$TMPD/fu.perr" ||
		unexpected "prom-parse" "$(head -1 "$TMPD/fu.perr")"
	for d in "${p}n	$ns" "${p}u	$ino"; do
		[ "$(grep -c "^csum_guard_guarded	$d	.*	false	0$" "$TMPD/fu.samples")" = 1 ] ||
			unexpected "prometheus" "${d%	*}"
	done
	kill $upid
	wait $upid 2>/dev/null
	ip netns del $ns
	expect_clean || unexpected "text" "$(tr '\n' '|' <"$TMPD/fu.txt")"
	expect_verdict "$t" "an up tap in a named and one in an unnamed namespace where nothing was ever guarded: listed unguarded by the host-wide status, --json and --prometheus (csum_guard_guarded 0)"
}
cg_case fleet_unguarded
