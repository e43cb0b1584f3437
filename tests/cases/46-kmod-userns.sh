# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 46-kmod-userns.sh - the module and users who are root only in namespaces
# of their own.
#
# ATTACH needs CAP_NET_ADMIN over the device's namespace only, so any user
# can make a user and a network namespace (unshare -U -r -n), guard a tap
# of theirs with LOG_DROPS and write bad frames to it, or send frames into
# skb_checksum_help() through a veth without TX checksum offload. Such a
# user must neither spend the budgets of the host's drop events and kernel
# log lines, nor move the host's count of completion refusals, and may
# guard only so many devices (kmod/netns.c, kmod/device.c).

# KU_FLOOD_SH: what user nobody runs in a user and network namespace of
# its own ($1 cg-inject, $2 cg-kdump): four taps, the first three guarded
# with LOG_DROPS, the fourth refused (the bound is 3 here); bad frames
# through a veth without TX checksum offload (the completion guard refuses
# them); then bad frames on u0 until killed.
# shellcheck disable=SC2016
KU_FLOOD_SH='
set -u
echo "pid $$"
ifx() { ip -o link show "$1" | cut -d: -f1; }
for i in 0 1 2 3; do
	ip tuntap add dev u$i mode tap vnet_hdr && ip link set u$i up || exit 1
done
ip link add ua type veth peer name ub && ip link set ua up && ip link set ub up || exit 1
ethtool -K ua tx off >/dev/null 2>&1 || echo "no-tx-off"
"$2" attach --log-drops "$(ifx u0)" "$(ifx u1)" "$(ifx u2)" && echo "attached 3"
"$2" attach --log-drops "$(ifx u3)" 2>&1; echo "u3 rc=$?"
# one a write: a refused completion fails the write (exit 3 or 4)
r=
for i in 1 2 3 4 5; do
	m=$("$1" --packet --dev ua --csum-start 20 --csum-offset 6 2>&1 >/dev/null)
	r="$r rc=$? $(echo "$m" | tail -1 | cut -c1-50);"
done
echo "completion: $r"
echo flooding
while "$1" --dev u0 --csum-start 20 --csum-offset 6 --count 2000 >/dev/null; do :; done
echo "flood ended"
'

case_kmod_userns() {
	local t="kmod/userns [$BACKEND]" ns=$CG_PFX-ku u=$TMPD/ku.user upid spid end i
	local par=/sys/module/csum_guard/parameters/userns_devices_max max0="" n=5
	local c0 c1 o0 o1 ev lines st uev ulines udrop comp=

	[ "$BACKEND" = kmod ] || return 0
	command -v setpriv >/dev/null || { skip "$t: no setpriv to run as nobody"; return; }
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U -r -n true 2>/dev/null; then
		skip "$t: an unprivileged user cannot make a user namespace here"
		return
	fi
	# root's guarded tap, with LOG_DROPS (this loads the module)
	ip netns add "$ns" && ip -n "$ns" link set lo up &&
		ip -n "$ns" tuntap add dev tap0 mode tap vnet_hdr && ip -n "$ns" link set tap0 up &&
		"$CG" attach tap0 --netns "$ns" --backend kmod --log-drops --quiet ||
		{ fail "$t: set-up"; ip netns del "$ns" 2>/dev/null; return; }
	# a small bound, to reach it with four taps
	[ -e "$par" ] && max0=$(cat "$par")
	echo 3 >"$par" 2>/dev/null || unexpected "the bound" "$par cannot be set (no such parameter?)"
	if completion_on "$t/completion"; then
		comp=on
		c0=$("$CG" completion --json)
	fi
	dmesg -C
	events_start "$TMPD/ku.ev" || unexpected "events" "did not start: $(cat "$TMPD/ku.ev.err")"

	budget_tun setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U -r -n \
		sh -c "$KU_FLOOD_SH" _ "$INJECT" "$KDUMP" >"$u" 2>&1 &
	upid=$!		# budget_tun's; the user's shell says its own
	end=$((SECONDS + 60))
	until grep -q '^flooding' "$u" || [ $SECONDS -ge $end ] || ! kill -0 $upid 2>/dev/null; do
		sleep 0.2
	done
	if ! grep -q '^flooding' "$u"; then
		fail "$t: the user's set-up: $(tr '\n' ' ' <"$u")"
		spid=$(sed -n 's/^pid //p' "$u")
		kill ${spid:-$upid} 2>/dev/null
		wait $upid 2>/dev/null
		events_stop
		"$CG" detach tap0 --netns "$ns" --quiet
		ip netns del "$ns"
		[ -n "$max0" ] && echo "$max0" >"$par"
		[ -n "$comp" ] && "$CG" completion off --quiet
		return
	fi
	spid=$(sed -n 's/^pid //p' "$u")
	expect_grep "the user's first three taps guarded" '^attached 3$' "$u"
	expect_grep "the user's fourth tap refused: past the bound (EDQUOT)" 'Disk quota exceeded' "$u"
	# the flood has run a while: then root's drops, one by one
	sleep 1
	for i in $(seq $n); do
		ip netns exec "$ns" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 ||
			unexpected "root's frame $i" "cg-inject failed"
		sleep 0.3
	done
	sleep 1
	grep -q '^flood ended' "$u" &&
		unexpected "the flood" "it ended before root's frames were all sent: $(tr '\n' ' ' <"$u")"
	udrop=$("$CG" status u0 --netns /proc/$spid/ns/net --json 2>/dev/null | jq -r .dropped)
	kill $spid 2>/dev/null
	wait $upid 2>/dev/null
	sleep 0.5
	events_stop
	dmesg >"$TMPD/ku.dmesg"

	# root's drops: every one an event and a log line, and its own count
	ev=$(jq -r --arg ns "$ns" 'select(.netns == $ns and .device == "tap0" and .where == "ingress")
		| .csum_start' "$TMPD/ku.ev" | paste -sd,)
	expect_eq "root's drop events on tap0 (csum_start each) amid the user's flood" \
		"$(printf '20%.0s,' $(seq $n) | sed 's/,$//')" "$ev"
	lines=$(grep -c 'csum_guard: tap0: dropped ingress IPv4 packet' "$TMPD/ku.dmesg")
	expect_eq "root's kernel log lines of tap0 amid the user's flood" $n "$lines"
	st=$("$CG" status tap0 --netns "$ns" --json | jq -r .dropped)
	expect_eq "tap0's count" $n "$st"
	# the user's: counted on their own device, and within their budgets
	expect_gt "u0's count (the flood)" 1000 "${udrop:-0}"
	uev=$(jq -r 'select(.device == "u0")' "$TMPD/ku.ev" | jq -s length)
	ulines=$(grep -c 'csum_guard: u0: dropped' "$TMPD/ku.dmesg")
	if [ -n "$comp" ]; then
		c1=$("$CG" completion --json)
		if ! grep -q no-tx-off "$u"; then
			expect_eq "the host's completion refusals (dropped, unreadable) after the user's" \
				"$(jq -r '"\(.dropped) \(.dropped_unreadable)"' <<<"$c0")" \
				"$(jq -r '"\(.dropped) \(.dropped_unreadable)"' <<<"$c1")"
			o0=$(jq -r '.unprivileged_namespaces // 0' <<<"$c0")
			o1=$(jq -r '.unprivileged_namespaces // 0' <<<"$c1")
			expect_eq "refusals in unprivileged namespaces, counted apart ($(grep '^completion:' "$u"))" 5 $((o1 - o0))
		else
			unexpected "the user's veth" "its TX checksum offload could not be turned off"
		fi
		"$CG" completion off --quiet
	fi
	"$CG" detach tap0 --netns "$ns" --quiet
	ip netns del "$ns"
	[ -n "$max0" ] && echo "$max0" >"$par"
	expect_eq "the kernel's first warning" "" "$(grep -m1 'WARNING:\|BUG:' "$TMPD/ku.dmesg")"
	expect_verdict "$t" "user nobody flooded a guarded tap of their own namespace (u0 counted $udrop, $uev events, $ulines log lines) while root's tap0 had its $n drops as $n events, $n log lines and its own count; the user's fourth attach refused past the bound (3)${comp:+; their 5 completion refusals counted apart from the host side}"
}
cg_case kmod_userns
