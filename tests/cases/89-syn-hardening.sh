# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 89-syn-hardening.sh - what the responder must not trust (issue 44): the
# options an ACK's echoed timestamp asks for, ACKs the host would forward,
# martian sources, and device names that nft rules cannot carry.
# The namespaces, the helpers and the picture: tests/lib/syncookie.sh.
#
# The ACK cases hold the client's handshake open: an nft rule in the
# client's namespace drops its segments to SC_PORT that carry no SYN, so
# the client has the SYN-ACK while its ACK and data wait for
# retransmission; the server's namespace changes meanwhile (a sysctl, an
# address), attach runs again (the program's view made the namespace's
# now), the rule goes, and the retransmitted ACK meets the program.

# sc_hold / sc_release: the client's non-SYN segments to SC_PORT dropped, or not
sc_hold() {
	ip netns exec "$SC_C" nft -f - <<EOF
table inet cg_hold {
	chain out {
		type filter hook output priority 0;
		tcp dport $SC_PORT tcp flags & syn == 0 drop
	}
}
EOF
}
sc_release() { ip netns exec "$SC_C" nft delete table inet cg_hold; }

# sc_end: the responder off veth1 (its pins outlive the namespaces), the namespaces gone
sc_end() {
	sc_off 2>/dev/null
	sc_down
}

# sc_peer ROLE ADDR NS SECONDS: a wildcard listener on SC_PORT (ROLE listen:
# prints "ts=T sack=S bytes=N" of the one connection it takes, or "none")
# or a client to ADDR (ROLE connect: sends 100000 bytes, prints "sent" or
# why not), each giving up after SECONDS
sc_peer() {
	exec ip netns exec "$3" python3 -c '
import socket, sys
role, addr, port, ready, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
try:
    if role == "listen":
        ls = socket.socket(socket.AF_INET6)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("::", port)); ls.listen(8); ls.settimeout(wait)
        open(ready, "w").close()
        c, _ = ls.accept(); c.settimeout(wait); got = 0
        o = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[5]
        while True:
            d = c.recv(1 << 16)
            if not d: break
            got += len(d)
        print("ts=%d sack=%d bytes=%d" % (o & 1, o >> 1 & 1, got))
    else:
        c = socket.create_connection((addr, port), timeout=wait)
        c.sendall(b"x" * 100000); c.close()
        print("sent")
except Exception as e:
    print("none" if role == "listen" else "failed: %s" % e)' "$1" "$2" $SC_PORT "$TMPD/sc.ready" "$4"
}

# sc_json_counter NAME: the responder's counter NAME on veth1
sc_json_counter() {
	"$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r ".counters.$1"
}

# sc_wait_synack N0: wait (up to 5 s) until the synack counter passes N0
sc_wait_synack() {
	local i

	for i in $(seq 50); do
		[ "$(sc_json_counter synack)" -gt "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# sc_ack_setup T: the responder on veth1 (tc, --no-handoff: the listener's
# cookies, the ACK program decoding the timestamps under tcp_timestamps 1);
# SKIP (1) where the kernel has no ACK program, FAIL (1) where set-up fails
sc_ack_setup() {
	local t=$1

	command -v python3 >/dev/null || { skip "$t: no python3 for the peers"; return 1; }
	command -v nft >/dev/null || { skip "$t: no nft to hold the client's ACK"; return 1; }
	[ "$("$CG" syncookie probe --json | jq -r .ack_program)" = true ] ||
		{ skip "$t: no ACK program on this kernel (bpf_sk_assign_tcp_reqsk, 6.9+)"; return 1; }
	sc_up && ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_timestamps=1 net.ipv4.tcp_sack=1 &&
		sc_hold || { fail "$t: set-up"; sc_down; return 1; }
	sc_on --ports $SC_PORT --mode tc --no-handoff --set-sysctl 2>"$TMPD/err" ||
		{ fail "$t: attach: $(head -1 "$TMPD/err")"; sc_down; return 1; }
	[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .options.decoder)" = program ] ||
		{ fail "$t: the ACK program does not decode the timestamps"; sc_end; return 1; }
}

# sc_ack_begin ADDR SECONDS [LISTEN]: the listener (giving up after LISTEN
# seconds, SECONDS by default), and a client to ADDR giving up after
# SECONDS, whose handshake stops at the SYN-ACK (the program's: the synack
# counter); fails if no SYN-ACK came
sc_ack_begin() {
	local s0

	s0=$(sc_json_counter synack)
	rm -f "$TMPD/sc.ready"
	sc_peer listen :: "$SC_S" "${3:-$2}" >"$TMPD/sc.srv" 2>&1 &
	SC_LPID=$!
	wait_ready "$TMPD/sc.ready"
	sc_peer connect "$1" "$SC_C" "$2" >"$TMPD/sc.cli" 2>&1 &
	SC_CPID=$!
	sc_wait_synack "$s0"
}

# sc_ack_end [stop]: the client ended; then the listener ended, or (stop) stopped
sc_ack_end() {
	wait $SC_CPID
	[ "${1:-}" = stop ] && kill $SC_LPID 2>/dev/null
	wait $SC_LPID 2>/dev/null
}

# An echoed timestamp asks for SACK that the namespace turned off after the
# SYN-ACK (tcp_sack 0, attach again): the ACK program's connection has no
# SACK, and still carries every byte. On the code before issue 44 the
# program asked for SACK all the same, which 6.18 refuses: every ACK
# dropped (ack_refused), no connection.
case_syn_ack_masked() {
	local t="syn-ack-masked" a0 r0 srv

	sc_ack_setup "$t" || return
	expect_eq "SACK offered at first" true \
		"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .options.sack)"
	a0=$(sc_json_counter ack)
	r0=$(sc_json_counter ack_refused)
	if sc_ack_begin 10.9.0.2 12; then
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_sack=0
		expect_ok "attach again under tcp_sack 0" sc_on --ports $SC_PORT --mode tc --no-handoff
		expect_eq "SACK offered after" false \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .options.sack)"
	else
		unexpected "the SYN-ACK" "expected one from the program, saw none"
	fi
	sc_release
	sc_ack_end
	srv=$(tail -1 "$TMPD/sc.srv")
	expect_eq "the client" sent "$(tail -1 "$TMPD/sc.cli")"
	expect_eq "the server's TCP_INFO" "ts=1 sack=0 bytes=100000" "$srv"
	expect_counter "the ACK program's connections" 1 $a0 $(sc_json_counter ack)
	expect_counter "the ACK program's refusals" 0 $r0 $(sc_json_counter ack_refused)
	expect_verdict "$t" "an ACK whose echo asks for SACK after tcp_sack 0: a connection without SACK from the ACK program, 100000 bytes intact"
	sc_end
}
cg_kernel_case syn_ack_masked

# An ACK the host forwards: the handshake began to 10.9.0.9, then an
# address of the server's; before the ACK the address is gone and
# 10.9.0.9 routed out of vx0 with forwarding on. The ACK program leaves the
# ACK alone (no request socket of the wildcard listener's, alive all the
# while: the ack and ack_refused counters stay) and the stack forwards it
# (the server's forward chain counts it). On the code before issue 44 the
# program gave each retransmission the listener's request socket (ack +5
# on 6.18) and nothing was forwarded.
case_syn_ack_forwarded() {
	local t="syn-ack-forwarded" a0 r0 fwd

	sc_ack_setup "$t" || return
	ip -n "$SC_S" addr add 10.9.0.9/32 dev veth1 && sc_second_dev &&
		expect_ok "attach again with 10.9.0.9" sc_on --ports $SC_PORT --mode tc --no-handoff ||
		{ fail "$t: set-up"; sc_end; return; }
	if sc_ack_begin 10.9.0.9 4 20; then
		ip -n "$SC_S" addr del 10.9.0.9/32 dev veth1 &&
			ip -n "$SC_S" route add 10.9.0.9/32 dev vx0 &&
			ip netns exec "$SC_S" sysctl -qw net.ipv4.ip_forward=1 &&
			ip netns exec "$SC_S" nft -f - <<EOF || unexpected "set-up" "no forward counter"
table inet cg_fwd {
	chain counted {
		type filter hook forward priority 0;
		ip daddr 10.9.0.9 tcp dport $SC_PORT counter
	}
}
EOF
		expect_ok "attach again without 10.9.0.9" sc_on --ports $SC_PORT --mode tc --no-handoff
	else
		unexpected "the SYN-ACK" "expected one from the program, saw none"
	fi
	a0=$(sc_json_counter ack)
	r0=$(sc_json_counter ack_refused)
	sc_release
	sc_ack_end stop
	fwd=$(ip netns exec "$SC_S" nft list table inet cg_fwd 2>/dev/null |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
	expect_counter "the ACK program's connections" 0 $a0 $(sc_json_counter ack)
	expect_counter "the ACK program's refusals" 0 $r0 $(sc_json_counter ack_refused)
	expect_gt "the client's segments forwarded" 0 "$fwd"
	expect_eq "the wildcard listener's connections" "" "$(grep ts= "$TMPD/sc.srv")"
	expect_verdict "$t" "an ACK to an address no longer the host's, routed on: not the listener's (ack and ack_refused +0), forwarded ($fwd segments)"
	sc_end
}
cg_kernel_case syn_ack_forwarded

# SYNs from the broadcast and the network address of the server's
# 10.9.0.0/24, with a route back through veth1: the program answers none
# (the stack takes the broadcast one for a martian), counts them foreign;
# a SYN from 10.9.0.1 is answered. On the code before issue 44 the
# program answered all of them.
case_syn_broadcast_src() {
	local t="syn-broadcast-src" l src r c0 s0

	command -v python3 >/dev/null || { skip "$t: no python3 for the listener"; return; }
	sc_up || { fail "$t: set-up"; return; }
	sc_on --ports $SC_PORT --mode tc --no-handoff --set-sysctl 2>"$TMPD/err" ||
		{ fail "$t: attach: $(head -1 "$TMPD/err")"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	ip netns exec "$SC_S" python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(8)
open(sys.argv[2], "w").close(); time.sleep(30)' $SC_PORT "$TMPD/sc.ready" &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for src in 10.9.0.255 10.9.0.0 10.9.0.1; do
		c0=$(sc_json_counter foreign)
		s0=$(sc_json_counter synack)
		r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src $src \
			--dst 10.9.0.2 --port $SC_PORT --count $SC_N --wait $SC_WAIT)
		if [ $src = 10.9.0.1 ]; then
			expect_counter "from $src: the program's synack ($r)" $SC_N $s0 $(sc_json_counter synack)
		else
			expect_counter "from $src: the program's synack ($r)" 0 $s0 $(sc_json_counter synack)
			expect_counter "from $src: foreign" $SC_N $c0 $(sc_json_counter foreign)
		fi
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "SYNs from 10.9.0.255 and 10.9.0.0 (the server's /24) not answered, counted foreign; from 10.9.0.1 answered"
	sc_end
}
cg_kernel_case syn_broadcast_src

# A device whose name holds '"' (a veth; Linux allows it, nft's quoted
# strings end there): nft mode refuses it with one line and leaves nothing (no table,
# no pins); tc mode attaches without the hand-off tables, saying why. On
# the code before issue 44 the name went into the rule as it is.
case_syn_nft_name() {
	local t="syn-nft-name" dev='q"x' tables pins

	command -v nft >/dev/null || { skip "$t: no nft"; return; }
	sc_up && ip -n "$SC_S" link add "$dev" type veth peer name qy &&
		ip -n "$SC_S" link set "$dev" up ||
		{ fail "$t: set-up: no device named $dev"; sc_down; return; }
	pins=$(pin_list)
	expect_bad_input "nft mode on $dev" 1 "$CG" syncookie attach "$dev" --netns "$SC_S" \
		--ports $SC_PORT --mode nft --set-sysctl --quiet
	expect_grep "nft mode on $dev: the reason" "its name holds '\"'" "$TMPD/expect.err"
	tables=$(ip netns exec "$SC_S" nft list tables 2>&1 | grep -c csum_guard_syncookie)
	expect_eq "nft mode on $dev: tables left" 0 "$tables"
	expect_eq "nft mode on $dev: pins left" "$pins" "$(pin_list)"
	expect_ok "tc mode on $dev" "$CG" syncookie attach "$dev" --netns "$SC_S" --ports $SC_PORT \
		--mode tc --set-sysctl
	expect_grep "tc mode on $dev: why no hand-off" "its name holds '\"'" "$TMPD/expect.err"
	tables=$(ip netns exec "$SC_S" nft list tables 2>&1 | grep -c csum_guard_syncookie)
	expect_eq "tc mode on $dev: tables" 0 "$tables"
	expect_ok "detach $dev" "$CG" syncookie detach "$dev" --netns "$SC_S" --quiet
	expect_verdict "$t" "a device named $dev: nft mode refused in one line, nothing left; tc mode without hand-off tables, saying why"
	sc_down
}
cg_kernel_case syn_nft_name
