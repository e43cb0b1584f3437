# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 20-edges.sh - the edges of the decision: the boundary csum_start of every
# IHL, the frames no read can judge (fail closed), and what the guard must
# never judge.

# Every IHL 5..15: the last csum_start that drops and the first that passes.
case_boundaries() {
	local t="boundaries/ihl-5..15 [$BACKEND]" ihl end want=0 ready=$TMPD/ready.b

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst $FAR_IP --timeout $((SNIFF_IDLE * 6)) \
		--max-time $((SNIFF_IDLE * 120)) --count 11 --ready-file "$ready" >"$TMPD/bound" 2>&1 &
	local pid=$!
	wait_ready "$ready"
	for ihl in $(seq 5 15); do
		end=$((14 + ihl * 4))
		expect_ok "ihl $ihl csum_start $((end - 1)): inject" ip netns exec "$VM" "$INJECT" --dev tap0 \
			--ihl $ihl --payload 64 --csum-start $((end - 1)) --csum-offset 6
		want=$((want + 1))
		set -- $(guard_counters)
		expect_eq "ihl $ihl csum_start $((end - 1)): dropped" $want "$1"
		expect_ok "ihl $ihl csum_start $end: inject" ip netns exec "$VM" "$INJECT" --dev tap0 \
			--ihl $ihl --payload 64 --csum-start $end --csum-offset 6
		set -- $(guard_counters)
		expect_eq "ihl $ihl csum_start $end: dropped" $want "$1"
	done
	wait $pid
	expect_pass "the frames at end" "$TMPD/bound" 11 $GUEST_IP
	expect_verdict "$t" "11 dropped at end-1, 11 passed intact at end"
	guard_off
	topo_down
}
cg_case boundaries

# IHL below 5 fails closed, into the second counter.
# The fail-closed paths, each with a real frame: an IHL field below 5; an
# IPv4 header behind four VLAN tags (the kernel strips the outer of five)
# that the frame ends before, so no read of it can succeed (bpf: the helper
# read fails, past the reach of direct access); a fourth tag cut short;
# more tags than the guard walks. Each is counted as unreadable, none as a
# plain drop. A frame the tap refuses at write() never reaches a guard:
# the kernel says so, and that shape is skipped.
UNREADABLE_SHAPES=("ihl-4|--ihl-field 4 --csum-start 34"
	"no-ip-byte|--vlan 1 --vlan 2 --vlan 3 --vlan 4 --vlan 5 --truncate 34 --csum-start 20"
	"tag-cut|--vlan 1 --vlan 2 --vlan 3 --vlan 4 --vlan 5 --truncate 30 --csum-start 20"
	"six-tags|--vlan 1 --vlan 2 --vlan 3 --vlan 4 --vlan 5 --vlan 6 --csum-start 20")

case_unreadable() {
	local e name args rc t

	topo_up --mtu 1500 && guard_on || { fail "unreadable [$BACKEND]: set-up"; topo_down; return; }
	for e in "${UNREADABLE_SHAPES[@]}"; do
		name=${e%%|*} args=${e#*|} t="unreadable/${e%%|*} [$BACKEND]"
		set -- $(guard_counters)
		local d0=$1 u0=$2
		ip netns exec "$VM" "$INJECT" --dev tap0 $args --csum-offset 6 --count 2 2>"$TMPD/unr.err"
		rc=$?
		set -- $(guard_counters)
		if [ $rc = 3 ]; then
			skip "$t: this kernel's tap refuses the frame at write(): $(tail -1 "$TMPD/unr.err")"
		elif [ $rc = 0 ] && [ "$(($1 - d0)) $(($2 - u0))" = "0 2" ]; then
			pass "$t: 2 frames, counted as unreadable: [0,2]"
		else
			fail "$t: injector exit $rc; counters moved by [$(($1 - d0)),$(($2 - u0))], want [0,2]"
		fi
	done
	guard_off
	topo_down
}
cg_case unreadable

# A tun (IFF_TUN: no link-layer header) opened with a vnet header faces a
# guest as a tap does (user-space networking, VPN-style VMMs). Its frames
# start at the IP header, and so do skb->data, the MAC header and the
# network header at the hooks: the guard must read the IP header there, not
# 14 bytes in as it does for a tap. The kernel itself refuses a csum_start
# below 20 from a tun (virtio_net_hdr_to_skb() wants the transport offset
# past a minimal IP header), so the IPv4 frames that reach the guard carry
# options (IHL 6) and point into them; IPv6 frames point into the fixed
# header. An nftables counter behind the guard sees what it passed.
case_l3tun() {
	local t="l3tun [$BACKEND]" out

	command -v nft >/dev/null || { skip "$t: nft missing (Debian package nftables)"; return; }
	topo_down
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	if ! { ip netns add "$VM" && ip -n "$VM" link set lo up &&
	       ip -n "$VM" tuntap add dev tun0 mode tun vnet_hdr &&
	       ip -n "$VM" addr add 10.0.0.1/24 dev tun0 &&
	       ip -n "$VM" addr add fd00::1/64 dev tun0 nodad &&
	       ip -n "$VM" link set tun0 up; }; then
		fail "$t: set-up"; topo_down; return
	fi
	if ! out=$(seen_on cgtun tun0); then
		skip "$t: no nftables netdev ingress chain here: ${out//$'\n'/ }"; topo_down; return
	fi
	"$CG" attach tun0 --netns "$VM" --backend "$BACKEND" --quiet || { fail "$t: attach"; topo_down; return; }
	# csum_start is counted from the Ethernet header the tun does not get:
	# 34 is 20 bytes into the IP header
	expect_ok "inject bad IPv4" ip netns exec "$VM" "$INJECT" --dev tun0 --ihl 6 --csum-start 34 \
		--csum-offset 2 --count 3
	# 10.0.5.2: byte 14 of its IP header is 5, an IHL that passes
	# csum_start 34 for a reader that takes the header 14 bytes in
	expect_ok "inject bad IPv4 from 10.0.5.2" ip netns exec "$VM" "$INJECT" --dev tun0 --ihl 6 \
		--src 10.0.5.2 --dst 10.0.0.1 --csum-start 34 --csum-offset 2 --count 2
	expect_ok "inject bad IPv6" ip netns exec "$VM" "$INJECT" --dev tun0 --ipv6 --src fd00::2 \
		--dst fd00::1 --csum-start 34 --csum-offset 2 --count 2
	expect_eq "[dropped, unreadable] after the bad frames" "7 0" "$(guard_counters tun0 | cut -d' ' -f1,2)"
	expect_eq "frames behind the guard after the bad ones" 0 "$(seen_count cgtun)"
	expect_ok "inject good IPv4" ip netns exec "$VM" "$INJECT" --dev tun0 --ihl 6 --count 4
	expect_ok "inject good IPv4, IHL 5" ip netns exec "$VM" "$INJECT" --dev tun0 --count 4
	expect_ok "inject good IPv6" ip netns exec "$VM" "$INJECT" --dev tun0 --ipv6 --src fd00::2 \
		--dst fd00::1 --count 4
	expect_eq "[dropped, unreadable] after the good frames" "7 0" "$(guard_counters tun0 | cut -d' ' -f1,2)"
	expect_eq "frames behind the guard after the good ones" 12 "$(seen_count cgtun)"
	expect_ok "detach" "$CG" detach tun0 --netns "$VM" --quiet
	expect_verdict "$t" "a tun with a vnet header: 5 IPv4 frames into their options and 2 IPv6 into the fixed header dropped, 12 good ones (IHL 5 and 6, IPv6) passed to the chain behind the guard"
	topo_down
}
cg_case l3tun

# What the guard must never judge: not CHECKSUM_PARTIAL, not IPv4.
case_not_judged() {
	local t="not-judged [$BACKEND]" got

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	inject_sniff "$TMPD/nocsum" --no-csum --count 3
	got=$(sniff_datagrams "$TMPD/nocsum")
	ip netns exec "$VM" "$INJECT" --dev tap0 --ethertype 88b5 --csum-start 20 --csum-offset 6 --count 2
	local rc=$?
	set -- $(guard_counters)
	if [ "$got" = 3 ] && [ "$inject_rc" = 0 ] && [ $rc = 0 ] && [ "$1" = 0 ] && [ "$2" = 0 ] &&
	   ! grep -q csum_ok=0 "$TMPD/nocsum"; then
		pass "$t: 3 not-partial frames intact, 2 partial frames of another ethertype taken by the tap and untouched, counters [0,0]"
	else
		fail "$t: arrived=$got counters=[$1,$2]; the tap took the not-partial frames with exit $inject_rc, the other ethertype with $rc"
	fi
	guard_off
	topo_down
}
cg_case not_judged

# What runs before the guard on its device sees guest frames first, and
# can send them past it. status (JSON, text, Prometheus) names it and
# attach warns: an XDP program on the tap (before any backend); a clsact
# filter, which runs before the module's netfilter hook but after a tcx
# guard; for the module, an nftables netdev chain at its own priority,
# INT_MIN, added after it (an `nft -f` reload), which runs first until the
# module moves back in front: then a bad frame meets the guard again
# instead of the chain's fwd, which would send it past.
ahead_of() { "$CG" status tap0 --netns "$VM" --json | jq -r '.ahead | join("|")'; }

case_ahead() {
	local t="ahead [$BACKEND]" got out mode i c0 c1

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	mode=$("$CG" status tap0 --netns "$VM" --json | jq -r .mode)
	expect_eq "ahead of the guard alone" "" "$(ahead_of)"

	if ip -n "$VM" link set dev tap0 xdpgeneric obj "$BLD/tests/xdp-pass.bpf.o" sec xdp \
		2>"$TMPD/ah.err"; then
		expect_match "ahead of the guard: xdp" '^xdp program [0-9]+ xdp_pass \(generic\)$' "$(ahead_of)"
		"$CG" status --netns "$VM" --prometheus | grep -qx \
			"csum_guard_ahead{device=\"tap0\",netns=\"$VM\",backend=\"$BACKEND\",mode=\"$mode\"} 1" ||
			unexpected "status --prometheus" "expected csum_guard_ahead 1 for tap0, saw none"
		expect_grep "status's text" '^  runs before the guard, .*: xdp program' - \
			<<<"$("$CG" status tap0 --netns "$VM")"
		out=$(guard_on 2>&1; "$CG" attach tap0 --netns "$VM" --backend "$BACKEND" 2>&1)
		expect_grep "attach's warning" \
			"^csum-guard: warning: on tap0 in netns $VM, xdp program [0-9]* xdp_pass (generic) runs before the guard" \
			- <<<"$out"
		# and watch, in its log
		"$CG" watch --match tap0 --backend "$BACKEND" --no-completion >"$TMPD/ah.watch" 2>&1 &
		for i in $(seq 100); do
			grep -q '^ready: ' "$TMPD/ah.watch" && break
			sleep 0.2
		done
		kill -TERM $! 2>/dev/null
		wait $!
		expect_grep "watch's warning ($(tr '\n' '|' <"$TMPD/ah.watch"))" \
			"^warning: on tap0 netns $VM, xdp program [0-9]* xdp_pass (generic) runs before the guard" \
			"$TMPD/ah.watch"
		ip -n "$VM" link set dev tap0 xdpgeneric off
	else
		unexpected "set-up: xdp" "$(head -1 "$TMPD/ah.err")"
	fi

	# a clsact filter: ahead of the module, behind a tcx guard
	if ip netns exec "$VM" tc qdisc add dev tap0 clsact 2>/dev/null ||
	   ip netns exec "$VM" tc qdisc show dev tap0 | grep -q clsact; then
		expect_ok "set-up: the tc filter" ip netns exec "$VM" tc filter add dev tap0 ingress prio 7 \
			handle 9 protocol all bpf da obj "$BLD/tests/tc-pass.bpf.o" sec tc
		got=$(ahead_of)
		case $mode in
		tcx) expect_eq "ahead of a tcx guard: a clsact filter" "" "$got" ;;
		clsact) expect_eq "ahead of a clsact guard: a filter at prio 7" "" "$got" ;;
		*) expect_match "ahead of the module: a clsact filter" '^tc filter bpf prio 7 handle 0x9$' "$got" ;;
		esac
		ip netns exec "$VM" tc filter del dev tap0 ingress prio 7 handle 9 bpf
	fi

	if [ "$BACKEND" = kmod ] && command -v nft >/dev/null; then
		c0=$(guard_counters)
		if ip netns exec "$VM" nft -f - 2>"$TMPD/ah.err" <<-EOF
		table netdev cgahead {
			chain early {
				type filter hook ingress device tap0 priority -2147483648;
				fwd to veth0
			}
		}
		EOF
		then
			# the module moves back in front within a second or so
			for i in $(seq 50); do
				[ "$("$CG" status tap0 --netns "$VM" --json | jq -r '.reordered')" -ge 1 ] && break
				sleep 0.2
			done
			got=$("$CG" status tap0 --netns "$VM" --json | jq -r '"\(.reordered) \(.ahead | length)"')
			expect_match "[reordered, ahead] after the chain" '^[1-9][0-9]* 0$' "$got"
			ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6
			c1=$(guard_counters)
			expect_counter "dropped after the reorder" 1 ${c0%% *} ${c1%% *}
			ip netns exec "$VM" nft delete table netdev cgahead
		else
			unexpected "set-up: the nft chain" "$(head -1 "$TMPD/ah.err")"
		fi
	fi
	guard_off
	topo_down
	expect_verdict "$t" "an XDP program named in status (JSON, text, Prometheus), by attach and by watch; a clsact filter ahead only of the module$([ "$BACKEND" = kmod ] && echo "; an nft chain at INT_MIN added after attach: the module back in front (reordered $got), the next bad frame dropped by it")"
}
cg_case ahead
