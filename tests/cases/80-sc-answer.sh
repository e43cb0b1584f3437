# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 80-sc-answer.sh - the second guard, `csum-guard syncookie`: which SYNs
# it answers with cookies (from XDP or tc, or SYNPROXY through nft) and which
# it leaves to the stack, as the stack alone would.
# The namespaces, the helpers and the picture: tests/lib/syncookie.sh.

# Real connections over IPv4 and IPv6 through the responder in MODE: they
# complete and carry every byte, the SYN-ACK came from the program (its
# synack counter), and the returning ACK's cookie was taken once, by
# SYNPROXY through the responder's nft tables or by the kernel where it
# has none (sc_cookie_took).
# nft: SYNPROXY answers (its counter, and /proc/net/stat/synproxy's
# cookie_valid), IPv6 too.
case_syn_connect() {
	local mode=$1 t="syn-connect [$1]" addr c0 c1 sent0 recv0 sp0 got

	sc_up || { fail "$t: set-up"; return; }
	if [ "$mode" = xdp ]; then
		# native XDP_TX toward a veth needs NAPI on the peer: an XDP program there
		ip -n "$SC_C" link set dev veth0 xdpdrv obj "$XDP_PASS_OBJ" sec xdp 2>"$TMPD/err" ||
			{ skip "$t: no native XDP on the client veth: $(head -1 "$TMPD/err")"; sc_down; return; }
	fi
	if ! sc_on --ports $SC_PORT --mode "$mode" --set-sysctl 2>"$TMPD/err"; then
		if [ "$mode" = nft ] && ! command -v nft >/dev/null; then
			skip "$t: no nft"
		else
			fail "$t: attach: $(head -1 "$TMPD/err")"
		fi
		sc_down
		return
	fi
	got=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .mode)
	expect_eq "status's mode" "$mode" "$got"
	if [ "$mode" != nft ] && command -v bpftool >/dev/null && [ -e /sys/kernel/btf/vmlinux ]; then
		expect_eq "the program on veth1 (bpf_rdonly_cast where the kernel has it)" \
			"$(sc_want_prog "$mode")" "$(sc_hook_prog)"
	fi
	expect_eq "status --json's program, as the kernel names the hook's" \
		"$(sc_hook_prog)" "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r '.program // empty')"
	for addr in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		sent0=$(tcpext SyncookiesSent)
		recv0=$(tcpext SyncookiesRecv)
		sp0=$(synproxy_valid)
		expect_connect "$addr" $addr || continue
		c1=$(sc_counters)
		set -- $c0 $c1
		if [ "$mode" = nft ]; then
			expect_gt "$addr: SYNPROXY's synack" 0 $(($4 - $1))
			expect_gt "$addr: cookie_valid" 0 $(($(synproxy_valid) - sp0))
			continue
		fi
		expect_counter "$addr: synack" 1 $1 $4
		expect_counter "$addr: passed" 0 $2 $5
		expect_eq "$addr: the cookie taken" ok "$(sc_cookie_took $sent0 $recv0 $sp0)"
	done
	# the host-wide status --prometheus: the responder answering, its synack as --json's
	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	expect_ok "status --prometheus" "$CG" status --prometheus >"$TMPD/sc.prom"
	got=$(grep -c "^csum_guard_syncookie_answering{device=\"veth1\",netns=\"$SC_S\",mode=\"$(jq -r .mode <<<"$st")\",tables=\"ok\",cookies=\"$(jq -r '.cookies // ""' <<<"$st")\",outdated=\"false\"} 1$" "$TMPD/sc.prom")
	[ "$got" = 1 ] && grep -qx "csum_guard_syncookie_packets_total{device=\"veth1\",netns=\"$SC_S\",counter=\"synack\"} $(jq -r .counters.synack <<<"$st")" "$TMPD/sc.prom" ||
		unexpected "status --prometheus" "expected the responder answering and its synack as --json's, saw $(grep "$SC_S" "$TMPD/sc.prom" | tr '\n' ' ')"
	# nft: status reports the table's and SYNPROXY's counters
	if [ "$mode" = nft ]; then
		got=$("$CG" syncookie status veth1 --netns "$SC_S" --json |
			jq -c '[.counters.synack >= 1, .nft.acks >= 1, .nft.cookie_valid >= 1, .nft.dropped, .nft.cookie_invalid]')
		expect_eq "status's nft counters [synack, acks, cookie_valid >= 1; dropped, cookie_invalid]" \
			"[true,true,true,0,0]" "$got"
		expect_match "status's text" "acks [1-9].*cookie_valid [1-9]" \
			"$("$CG" syncookie status veth1 --netns "$SC_S")"
	fi
	sc_off
	if [ "$mode" = nft ]; then
		expect_verdict "$t" "IPv4 and IPv6 answered by SYNPROXY (cookie validated; status: synack, acks, cookie_valid; status --prometheus too), $SC_BYTES bytes each intact"
	else
		expect_verdict "$t" "IPv4 and IPv6, $SC_BYTES bytes each intact; SYN-ACK from the program, its cookie taken by SYNPROXY through the responder's nft tables (or, without them, by the kernel, which then sent no SYN-ACK); status --prometheus has it answering, its synack as --json's"
	fi
	sc_down
}
cg_kernel_case syn_connect xdp
cg_kernel_case syn_connect xdp-generic
cg_kernel_case syn_connect tc
cg_kernel_case syn_connect nft

# What is not the responder's stays the stack's: a closed protected port
# gets the stack's RST, an unprotected port the stack's own SYN-ACK (a
# cookie too, with tcp_syncookies=2: SyncookiesSent counts it).
case_syn_stack() {
	local t="syn-stack" l c0 c1 sent0 r

	# tcp_syncookies 2: every SYN-ACK of the stack's own is a cookie, counted
	sc_up && ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 ||
		{ fail "$t: set-up"; return; }
	sc_on --ports $SC_PORT,$SC_CLOSED --set-sysctl || { fail "$t: attach"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --port $SC_OPEN --ready-file "$TMPD/sc.ready" \
		--timeout 120 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for a in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		r=$(inject $SC_CLOSED good $a)
		c1=$(sc_counters)
		set -- $c0 $c1
		expect_eq "closed $a: replies" "sent=$SC_N synack=0 rst=$SC_N other=0" "$r"
		expect_counter "closed $a: synack" 0 $1 $4
		expect_counter "closed $a: passed" $SC_N $2 $5
		sent0=$(tcpext SyncookiesSent)
		r=$(inject $SC_OPEN good $a)
		c0=$(sc_counters)
		expect_eq "unprotected $a: replies" "sent=$SC_N synack=$SC_N rst=0 other=0" "$r"
		expect_eq "unprotected $a: the responder's counters" "$c1" "$c0"
		expect_counter "unprotected $a: SyncookiesSent" $SC_N $sent0 $(tcpext SyncookiesSent)
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	sc_off
	expect_verdict "$t" "closed protected port: the stack's RST; unprotected port: the stack's SYN-ACK; IPv4 and IPv6"
	sc_down
}
cg_kernel_case syn_stack

# Malformed SYNs to a protected port with a listener pass to the stack,
# counted malformed and passed, and the program answers none of them:
# whatever SYN-ACK comes back is the stack's own (SyncookiesSent moves by
# as many; the stack tolerates a truncated option, and answers it).
case_syn_malformed() {
	local t="syn-malformed" l a k c0 c1 sent0 r n=0 stack=0 acks

	# tcp_syncookies 2: the stack's own SYN-ACKs are cookies, counted
	sc_up && ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 ||
		{ fail "$t: set-up"; return; }
	sc_on --ports $SC_PORT --set-sysctl || { fail "$t: attach"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --ready-file "$TMPD/sc.ready" --timeout 600 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for a in 10.9.0.2 fd09::2; do
		for k in csum doff doff-long opt ipcsum good; do
			[ $k = ipcsum ] && [ $a = fd09::2 ] && continue
			c0=$(sc_counters)
			sent0=$(tcpext SyncookiesSent)
			r=$(inject $SC_PORT $k $a)
			c1=$(sc_counters)
			acks=$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r")
			set -- $c0 $c1
			if [ $k = good ]; then
				# the control: the same injector's good SYNs are answered by the program
				expect_counter "good $a: synack" $SC_N $1 $4
				expect_eq "good $a: SYN-ACKs seen ($r)" $SC_N "$acks"
				continue
			fi
			n=$((n + 1))
			stack=$((stack + acks))
			expect_counter "$k $a: synack" 0 $1 $4
			expect_counter "$k $a: passed" $SC_N $2 $5
			expect_counter "$k $a: malformed" $SC_N $3 $6
			expect_counter "$k $a: SyncookiesSent, the stack's SYN-ACKs seen ($r)" "$acks" \
				$sent0 $(tcpext SyncookiesSent)
		done
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	sc_off
	expect_verdict "$t" "$n kinds x $SC_N SYNs (bad checksums, data offsets, truncated option) passed, counted malformed, none answered by the program ($stack SYN-ACKs were the stack's own)"
	sc_down
}
cg_kernel_case syn_malformed

# What the host's own stack would not answer, the responder does not
# either: each kind of SYN below goes to a protected port with a listener
# (wildcard, and one bound to loopback), first with the stack alone
# (tcp_syncookies=2 either way), then through the responder in each mode.
# The stack answers the two controls and none of the rest (else the case
# would prove nothing); the responder answers exactly what the stack does,
# and its synack counter moves only for the controls.
#   label|dst MAC|src|dst|port|sc-syn extra
SC_LO=5303		# protected, listeners on 127.0.0.1 and ::1 only
sc_kinds() {
	cat <<-EOT
	good|$SC_MAC|10.9.0.1|10.9.0.2|$SC_PORT|
	other-mac|02:00:5e:00:53:99|10.9.0.1|10.9.0.2|$SC_PORT|
	multicast-mac|01:00:5e:00:00:01|10.9.0.1|10.9.0.2|$SC_PORT|
	subnet-broadcast|$SC_MAC|10.9.0.1|10.9.0.255|$SC_PORT|
	not-local|$SC_MAC|10.9.0.1|10.9.0.77|$SC_PORT|
	land|$SC_MAC|10.9.0.2|10.9.0.2|$SC_PORT|
	from-127|$SC_MAC|127.0.0.1|10.9.0.2|$SC_PORT|
	from-0|$SC_MAC|0.0.0.0|10.9.0.2|$SC_PORT|
	no-route-back|$SC_MAC|192.0.2.1|10.9.0.2|$SC_PORT|
	good-via-16|$SC_MAC|10.41.3.3|10.9.0.2|$SC_PORT|
	good-via-16-around-24|$SC_MAC|10.40.5.5|10.9.0.2|$SC_PORT|
	elsewhere-24-inside-16|$SC_MAC|10.40.7.9|10.9.0.2|$SC_PORT|
	elsewhere-8|$SC_MAC|10.42.1.1|10.9.0.2|$SC_PORT|
	loopback-listener|$SC_MAC|10.9.0.1|127.0.0.1|$SC_LO|
	vlan-100|$SC_MAC|10.9.0.1|10.9.0.2|$SC_PORT|--vlan 100
	good6|$SC_MAC|fd09::1|fd09::2|$SC_PORT|
	other-mac6|02:00:5e:00:53:99|fd09::1|fd09::2|$SC_PORT|
	not-local6|$SC_MAC|fd09::1|fd09::77|$SC_PORT|
	land6|$SC_MAC|fd09::2|fd09::2|$SC_PORT|
	from-::1|$SC_MAC|::1|fd09::2|$SC_PORT|
	from-::|$SC_MAC|::|fd09::2|$SC_PORT|
	from-v4-mapped|$SC_MAC|::ffff:10.9.0.1|fd09::2|$SC_PORT|
	no-route-back6|$SC_MAC|2001:db8::1|fd09::2|$SC_PORT|
	loopback-listener6|$SC_MAC|fd09::1|::1|$SC_LO|
	vlan-100v6|$SC_MAC|fd09::1|fd09::2|$SC_PORT|--vlan 100
	EOT
}

case_syn_addressing() {
	local t="syn-addressing" m l pids= label mac src dst port extra r acks c0 c1 n k=0

	sc_quick_guest_skip "$t" && return
	declare -A base

	sc_up || { fail "$t: set-up"; return; }
	# the longest prefix decides the way back: 10.41/16 and 10.40/16 lead
	# back through veth1, but 10.40.7/24 inside the one and 10/8 around
	# both lead elsewhere (another device)
	if ! { ip -n "$SC_S" link add cgd0 type veth peer name cgd1 && ip -n "$SC_S" link set cgd0 up &&
	       ip -n "$SC_S" link set cgd1 up &&
	       ip -n "$SC_S" route add 10.41.0.0/16 via 10.9.0.1 dev veth1 &&
	       ip -n "$SC_S" route add 10.40.0.0/16 via 10.9.0.1 dev veth1 &&
	       ip -n "$SC_S" route add 10.40.7.0/24 dev cgd0 &&
	       ip -n "$SC_S" route add 10.0.0.0/8 dev cgd0; }; then
		fail "$t: set-up: the routes"
		sc_down
		return
	fi
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2
	for l in :: 127.0.0.1 ::1; do
		rm -f "$TMPD/sc.ready"
		"$STREAM" --netns "$SC_S" --listen $l --port $([ $l = :: ] && echo $SC_PORT || echo $SC_LO) \
			--ready-file "$TMPD/sc.ready" --timeout 1800 >/dev/null 2>&1 &
		pids="$pids $!"
		wait_ready "$TMPD/sc.ready"
	done
	for m in base xdp xdp-generic tc; do
		if ! sc_attach_mode $m $SC_PORT,$SC_LO; then
			if [ $m = xdp ]; then
				note "$t: no native XDP here: $(head -1 "$TMPD/err")"
				continue
			fi
			unexpected "attach $m" "$(head -1 "$TMPD/err")"
			continue
		fi
		while IFS='|' read -r label mac src dst port extra; do
			[ -n "$label" ] || continue
			[ $m = base ] || c0=$(sc_counters)
			r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$mac" --src "$src" --dst "$dst" \
				--port "$port" --count $SC_N --wait $SC_WAIT $extra)
			acks=$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r")
			if [ $m = base ]; then
				base[$label]=$acks
				case $label in
				good*) expect_eq "the stack alone, $label: SYN-ACKs ($r)" $SC_N "$acks" ;;
				*) expect_eq "the stack alone, $label: SYN-ACKs ($r; else not a case)" 0 "$acks" ;;
				esac
				continue
			fi
			c1=$(sc_counters)
			set -- $c0 $c1
			n=$(($4 - $1))
			case $label in
			good*)
				expect_eq "$m $label: SYN-ACKs ($r)" $SC_N "$acks"
				expect_counter "$m $label: the program's synack" $SC_N $1 $4 ;;
			*)
				expect_eq "$m $label: SYN-ACKs, as the stack alone ($r)" "${base[$label]}" "$acks"
				expect_counter "$m $label: the program's synack" 0 $1 $4 ;;
			esac
			k=$((k + 1))
		done < <(sc_kinds)
		sc_detach_mode $m
	done
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	expect_gt "kinds x modes judged through the responder" 0 $k
	expect_verdict "$t" "$k SYNs kinds x modes: other or multicast MAC, subnet broadcast, not local, LAND, from loopback, 0/:: or v4-mapped, no route back, a route back elsewhere (inside a /16 that leads back, around one), loopback-only listener, VLAN 100 (IPv4, IPv6): none answered, as by the stack alone; the controls (from 10.9.0.1, from a /16 that leads back, whole or around a longer route) answered by the program"
	sc_down
}
cg_kernel_case syn_addressing

# A host that forwards to a guest behind it, and listens itself on the
# same port (wildcard): clients of the guest connect through the responder
# as without it, and the program answers none of their SYNs.
#
#   $SC_C veth0 10.9.0.1 fd09::1 -- veth1 10.9.0.2 fd09::2  $SC_S (forwards)
#                                    vm0 10.90.1.1 fd90::1 -- vm1 10.90.1.2 fd90::2  $SC_V
case_syn_forward() {
	local t="syn-forward" m l addr c0 c1 k=0

	sc_quick_guest_skip "$t" && return

	sc_up && netns_new "$SC_V" &&
		veth_pair "$SC_S" vm0 "$SC_V" vm1 10.90.1.1/24 10.90.1.2/24 fd90::1/64 fd90::2/64 &&
		ip -n "$SC_V" route add default via 10.90.1.1 && ip -n "$SC_V" route add default via fd90::1 &&
		ip -n "$SC_C" route add 10.90.1.0/24 via 10.9.0.2 && ip -n "$SC_C" route add fd90::/64 via fd09::2 &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
			net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --ready-file "$TMPD/sc.ready" --timeout 300 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for m in base xdp xdp-generic tc; do
		if ! sc_attach_mode $m $SC_PORT; then
			[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
			unexpected "attach $m" "$(head -1 "$TMPD/err")"
			continue
		fi
		for addr in 10.90.1.2 fd90::2; do
			[ $m = base ] || c0=$(sc_counters)
			expect_connect "$m $addr" $addr "$SC_V"
			[ $m = base ] && continue
			c1=$(sc_counters)
			set -- $c0 $c1
			expect_counter "$m $addr: the program's synack for the guest" 0 $1 $4
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "$k connections to a guest behind the host (IPv4, IPv6; xdp, xdp-generic, tc) carry $SC_BYTES bytes intact as without the responder, which answered none of their SYNs though the host listens on the port too"
	sc_down
}
cg_kernel_case syn_forward
