# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 42-loader-more.sh - what a guard leaves when it goes while others stay,
# and what host-wide commands take from namespaces they only walk.

# devcnt_keys: "NETNS_COOKIE IFINDEX" of each entry of the host's
# dev_counters map, one a line (nothing: no map pinned)
devcnt_keys() {
	bpftool map dump pinned /sys/fs/bpf/csum_guard/shared/dev_counters -j 2>/dev/null |
		jq -r 'if type == "array" then .[] | (.formatted.key // .key) |
			"\(.netns_cookie) \(.ifindex)" else empty end'
}

# The bpf guards of one host count in one shared map (dev_counters), an
# entry per guarded device, keyed by namespace cookie and ifindex. A guard
# that goes while others stay, by detach or because its device was deleted,
# takes its entry with it: else the map fills, one entry per detach, until
# it refuses new guards. (Every other case ends with no guard left, which
# unpins the whole map.)
#
#   netns $CG_PFX-dc: t1 t2 t3 guarded; t1 detached, t3 deleted then detached
case_devcnt_entries() {
	local t="devcnt-entries [$BACKEND]" ns=$CG_PFX-dc d cookie i1 i2 i3 keys

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the module keeps no shared counter map"
		return
	fi
	for d in t1 t2 t3; do
		{ [ -e /run/netns/$ns ] || ip netns add $ns; } &&
			ip -n $ns tuntap add dev $d mode tap vnet_hdr && ip -n $ns link set $d up &&
			"$CG" attach $d --netns $ns --backend bpf --quiet || unexpected "set-up" "$d"
	done
	cookie=$(ip netns exec $ns "$HOOKS" --netns-cookie)
	i1=$(ip netns exec $ns cat /sys/class/net/t1/ifindex)
	i2=$(ip netns exec $ns cat /sys/class/net/t2/ifindex)
	i3=$(ip netns exec $ns cat /sys/class/net/t3/ifindex)
	expect_clean || { expect_verdict "$t" "three guards set up"; "$CG" detach --all --netns $ns --quiet; ip netns del $ns; return; }
	mine() { devcnt_keys | awk -v c="$cookie" '$1 == c { print $2 }' | sort -n | paste -sd' '; }
	keys=$(mine)
	[ "$keys" = "$i1 $i2 $i3" ] || unexpected "three-guards" "[$keys]"
	"$CG" detach t1 --netns $ns --quiet || unexpected "detach-t1"
	keys=$(mine)
	[ "$keys" = "$i2 $i3" ] || unexpected "after-detach" "[$keys]"
	ip -n $ns link del t3
	"$CG" detach t3 --netns $ns --quiet || unexpected "detach-gone-t3"
	keys=$(mine)
	[ "$keys" = "$i2" ] || unexpected "after-gone" "[$keys]"
	# the one left still counts in its entry
	ip netns exec $ns "$INJECT" --dev t2 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	[ "$("$CG" status t2 --netns $ns --json | jq -r .dropped)" = 2 ] || unexpected "t2-counts"
	"$CG" detach t2 --netns $ns --quiet || unexpected "detach-t2"
	keys=$(mine)
	[ -z "$keys" ] || unexpected "after-last" "[$keys]"
	ip netns del $ns
	expect_verdict "$t" "3 guards, 3 entries in dev_counters; a detach while 2 stay took its entry, a deleted tap's detach its own, the last guard still counted its 2 drops"
}
cg_case devcnt_entries

# A guard whose tap was deleted leaves its pins (its program and link held
# by them) in its namespace's state, where nothing else of ours is. A
# host-wide `detach --all`, and `upgrade`, walk every namespace: they take
# that state too, not only their own namespace's.
#
#   netns $CG_PFX-gp: tap0 guarded, then deleted (nothing else guarded there)
case_prune_elsewhere() {
	local t="prune-elsewhere [$BACKEND]" ns=$CG_PFX-gp dir cmd out

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the module drops a device's state itself"
		return
	fi
	ip netns add $ns || { fail "$t: set-up"; return; }
	dir=/sys/fs/bpf/csum_guard/$(stat -L -c %i /run/netns/$ns)
	for cmd in "detach --all" upgrade; do
		if ! { ip -n $ns tuntap add dev tap0 mode tap vnet_hdr && ip -n $ns link set tap0 up &&
		       "$CG" attach tap0 --netns $ns --backend bpf --quiet; }; then
			unexpected "set-up($cmd)"
			break
		fi
		ip -n $ns link del tap0
		[ -n "$(find "$dir" -name meta 2>/dev/null)" ] || unexpected "$cmd" "no-state-left-to-prune"
		out=$("$CG" $cmd 2>&1) || unexpected "$cmd" "rc:[$(tr '\n' '|' <<<"$out")]"
		[ ! -e "$dir" ] || unexpected "$cmd" "left:[$(find "$dir" | tr '\n' ' ')]"
	done
	ip netns del $ns
	expect_verdict "$t" "a deleted tap's guard state in another namespace, with no guard left there, taken by a host-wide detach --all and by upgrade"
}
cg_case prune_elsewhere
