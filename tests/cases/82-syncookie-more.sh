# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 82-syncookie-more.sh - the SYN responder where the first cases did not
# look: a listener's TCP_MAXSEG above the device's MSS, attach run again
# with --allow, a server with a default route, and status --prometheus
# read from the responder's own namespace. The topology and helpers are
# tests/lib/syncookie.sh's (sc_up, sc_on, sc_counters, ...): a client and a
# server namespace over a veth pair.

# sc_synack_delta SRC [DST]: SYNs from SRC to the server's protected port;
# prints "SYN-ACKs the client got, the program's synack counter's move"
sc_synack_delta() {
	local c0 c1 r

	c0=$(sc_counters)
	r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src "$1" \
		--dst "${2:-10.9.0.2}" --port $SC_PORT --count $SC_N --wait $SC_WAIT)
	c1=$(sc_counters)
	echo "$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r") $((${c1%% *} - ${c0%% *}))"
}

# A listener whose TCP_MAXSEG (1460) is above the device's MSS (MTU 1400:
# 1360 for IPv4, 1340 for IPv6): the stack advertises the device's, the
# smaller, and so does the program. (syn_mss tries TCP_MAXSEG 1000 only,
# below the device's, where clamping and overriding agree.)
case_syn_mss_above() {
	local t="syn-mss-above" py m addr r mss got=
	declare -A base

	sc_quick_guest_skip "$t" && return
	command -v python3 >/dev/null || { skip "$t: no python3 for a listener with TCP_MAXSEG"; return; }
	if [ ! -e /sys/kernel/btf/vmlinux ]; then
		skip "$t: no kernel BTF: the program cannot read a listener's TCP_MAXSEG here"
		return
	fi
	sc_up && ip -n "$SC_S" link set veth1 mtu 1400 &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	ip netns exec "$SC_S" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)
s.bind(("::", int(sys.argv[1])))
s.listen(64)
open(sys.argv[2], "w").close()
time.sleep(120)' $SC_SEG "$TMPD/sc.ready" &
	py=$!
	wait_ready "$TMPD/sc.ready"
	for m in base tc; do
		if [ $m = tc ] && ! sc_attach_mode tc $SC_SEG; then
			unexpected "attach tc" "$(head -1 "$TMPD/err")"
			break
		fi
		for addr in 10.9.0.2 fd09::2; do
			r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" \
				--src $([ $addr = fd09::2 ] && echo fd09::1 || echo 10.9.0.1) --dst $addr \
				--port $SC_SEG --count 1 --wait $SC_WAIT --mss)
			mss=${r##*mss=}
			if [ $m = base ]; then
				base[$addr]=$mss
				got="$got${got:+/}$mss"
			else
				[ "$mss" = "${base[$addr]}" ] ||
					unexpected "$m $addr" "advertised $r, the stack ${base[$addr]}"
			fi
		done
		[ $m = tc ] && { set -- $(sc_counters); [ "$1" = 2 ] || unexpected "the program answered $1 of 2"; }
		sc_detach_mode $m
	done
	kill $py 2>/dev/null
	wait $py 2>/dev/null
	[ "$got" = 1360/1340 ] || unexpected "the stack alone advertised $got, not 1360/1340"
	expect_verdict "$t" "MTU 1400, a listener with TCP_MAXSEG 1460: the program advertises 1360 (IPv4) and 1340 (IPv6), the device's, as the stack does"
	sc_down
}
cg_kernel_case syn_mss_above

# attach run again on a responder with --allow: the same list, then a
# narrower one. The source the list leaves out gets no SYN-ACK from the
# program each time (its synack counter stays), the one it names does.
# (The refresh a second attach does rewrites the responder's
# configuration.)
#
#   client 10.9.0.1, .3, .4 -> server 10.9.0.2 (tc responder, a listener)
case_syn_allow_again() {
	local t="syn-allow-again" l step allow yes no got k=0

	sc_quick_guest_skip "$t" && return
	sc_up && ip -n "$SC_C" addr add 10.9.0.3/24 dev veth0 && ip -n "$SC_C" addr add 10.9.0.4/24 dev veth0 &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	"$STREAM" --netns "$SC_S" --listen 10.9.0.2 --ready-file "$TMPD/sc.ready" --timeout 60 \
		>/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	sc_on --ports $SC_PORT --mode tc --allow 10.9.0.1,10.9.0.3 2>"$TMPD/err" ||
		unexpected "attach" "$(head -1 "$TMPD/err")"
	# step|--allow|a source it names|one it leaves out
	for step in "again|10.9.0.1,10.9.0.3|10.9.0.3|10.9.0.4" "narrower|10.9.0.1|10.9.0.1|10.9.0.3"; do
		IFS='|' read -r step allow yes no <<<"$step"
		sc_on --ports $SC_PORT --mode tc --allow $allow 2>"$TMPD/err" ||
			{ unexpected "attach $step" "$(head -1 "$TMPD/err")"; continue; }
		got=$(sc_synack_delta $no)
		[ "${got#* }" = 0 ] || unexpected "$step --allow $allow" "$no answered by the program (SYN-ACKs, program synack: $got)"
		got=$(sc_synack_delta $yes)
		[ "$got" = "$SC_N $SC_N" ] || unexpected "$step --allow $allow" "$yes not answered by the program (SYN-ACKs, program synack: $got)"
		k=$((k + 2))
	done
	sc_off
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "a tc responder attached with --allow 10.9.0.1,10.9.0.3, again with the same, then with 10.9.0.1: $k source checks, the program answered the source each list names, not the one it leaves out"
	sc_down
}
cg_kernel_case syn_allow_again

# A server with default routes (the SYN-cookie cases' server has none, so
# a martian source had no route back and was refused for that alone):
# SYNs from 127.0.0.1, ::1 and ::ffff:10.9.0.1 get no SYN-ACK, as from the
# stack alone, and the program's synack counter stays; the controls
# (10.9.0.1, fd09::1) are answered by it.
case_syn_martian() {
	local t="syn-martian" l src got c0 c1 r

	sc_quick_guest_skip "$t" && return
	sc_up && ip -n "$SC_S" route add default via 10.9.0.1 dev veth1 &&
		ip -n "$SC_S" -6 route add default via fd09::1 dev veth1 &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	"$STREAM" --netns "$SC_S" --listen :: --ready-file "$TMPD/sc.ready" --timeout 60 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for m in base tc; do
		if [ $m = tc ] && ! sc_attach_mode tc $SC_PORT; then
			unexpected "attach tc" "$(head -1 "$TMPD/err")"
			break
		fi
		[ $m = tc ] && c0=$(sc_counters)
		for src in 127.0.0.1 ::1 ::ffff:10.9.0.1; do
			r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src $src \
				--dst $([ "$src" = 127.0.0.1 ] && echo 10.9.0.2 || echo fd09::2) \
				--port $SC_PORT --count $SC_N --wait $SC_WAIT)
			got=$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r")
			[ "$got" = 0 ] || unexpected "$m" "$src answered: $r"
		done
		[ $m = base ] && continue
		c1=$(sc_counters)
		[ "${c1%% *}" = "${c0%% *}" ] || unexpected "the program answered martian sources" "synack ${c0%% *} -> ${c1%% *}"
		for src in 10.9.0.1 fd09::1; do
			got=$(sc_synack_delta $src $([ $src = fd09::1 ] && echo fd09::2 || echo 10.9.0.2))
			[ "$got" = "$SC_N $SC_N" ] || unexpected "control $src" "SYN-ACKs, program synack: $got"
		done
		sc_detach_mode $m
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "a server with default routes: SYNs from 127.0.0.1, ::1 and ::ffff:10.9.0.1 unanswered through a tc responder as by the stack alone, its synack counter unmoved; the controls answered by the program"
	sc_down
}
cg_kernel_case syn_martian

# The program reads IPv4 routes from a table of 8-bit strides (rtab4)
# whose nodes run out where many routes each need their own: 80 /32s,
# each in a /16 of its own, take two nodes apiece, more than a table's 127.
# Sources under the first routes are answered from the table, those under
# the last from the trie the full slots send the program to; a source in
# such a /16 with no route back is not answered; a route deleted and
# attach run again: its source no longer answered. status says the table
# is full (text and --json), and no longer once the routes are gone.
case_syn_rtab_full() {
	local t="syn-rtab-full" i l pin trie got st

	sc_quick_guest_skip "$t" && return
	sc_up && ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	for ((i = 0; i < 80; i++)); do
		echo "route add 100.$i.1.1/32 via 10.9.0.1 dev veth1"
	done | ip -n "$SC_S" -batch - || { fail "$t: routes"; sc_down; return; }
	"$STREAM" --netns "$SC_S" --listen 10.9.0.2 --ready-file "$TMPD/sc.ready" --timeout 60 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	if sc_on --ports $SC_PORT 2>"$TMPD/err"; then
		pin=$(sc_pin_dir)/rtab4
		trie=$(bpftool -j map dump pinned "$pin" 2>/dev/null |
			jq '[.[].formatted.value.slot[] | select(. == 4294967294)] | length')
		[ "${trie:-0}" -gt 0 ] || unexpected "the table" "no slot sends the program to the trie (${trie:-unreadable})"
		expect_eq "status --json's route_table, full" '{"nodes":128,"max":128,"full":true}' \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c .route_table)"
		expect_grep "status says the table is full" "; IPv4 route table full (128 nodes): " - \
			<<<"$("$CG" syncookie status veth1 --netns "$SC_S")"
		for i in 0 79; do
			got=$(sc_synack_delta 100.$i.1.1)
			[ "$got" = "$SC_N $SC_N" ] || unexpected "100.$i.1.1" "SYN-ACKs, program synack: $got"
		done
		got=$(sc_synack_delta 100.79.2.1)
		[ "${got#* }" = 0 ] || unexpected "100.79.2.1 (no route back)" "SYN-ACKs, program synack: $got"
		ip -n "$SC_S" route del 100.0.1.1/32 && ip -n "$SC_S" route del 100.79.1.1/32 &&
			sc_on --ports $SC_PORT 2>"$TMPD/err" || unexpected "attach again" "$(head -1 "$TMPD/err")"
		for i in 0 79; do
			got=$(sc_synack_delta 100.$i.1.1)
			[ "${got#* }" = 0 ] || unexpected "100.$i.1.1 (route deleted)" "SYN-ACKs, program synack: $got"
		done
		got=$(sc_synack_delta 100.78.1.1)
		[ "$got" = "$SC_N $SC_N" ] || unexpected "100.78.1.1" "SYN-ACKs, program synack: $got"
		# the routes gone, attach again: the root and one node per byte of
		# 10.9.0.x's and 10.9.0.2's ways down, nothing left to the trie
		for ((i = 1; i < 79; i++)); do
			echo "route del 100.$i.1.1/32"
		done | ip -n "$SC_S" -batch - && sc_on --ports $SC_PORT 2>"$TMPD/err" ||
			unexpected "the routes deleted, attach again" "$(head -1 "$TMPD/err")"
		st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
		expect_eq "status --json's route_table, the routes gone: full" false "$(jq .route_table.full <<<"$st")"
		expect_match "status --json's route_table, the routes gone: nodes" '^[1-9]$' \
			"$(jq .route_table.nodes <<<"$st")"
		st=$("$CG" syncookie status veth1 --netns "$SC_S")
		[[ $st != *"route table full"* ]] || unexpected "status, the routes gone" "still full: $st"
		sc_off
	else
		unexpected "attach" "$(head -1 "$TMPD/err")"
	fi
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "80 /32 routes in as many /16s: ${trie:-0} slots of the IPv4 table send the program to the trie, status says it is full; sources under the first and the last answered, one with no route back not; after two routes deleted and attach again, their sources not answered, the others still; all deleted, the table no longer full"
	sc_down
}
cg_kernel_case syn_rtab_full

# status --prometheus read in the namespace of the responder (the host's
# own namespace, as the command sees it: nsenter, not --netns): its
# responder is there, netns "", answering, with its synack counter as
# syncookie status --json says; and no other row names it.
case_syn_prom_own() {
	local t="syn-prom-own" st prom l

	sc_quick_guest_skip "$t" && return
	sc_up || { fail "$t: set-up"; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2
	"$STREAM" --netns "$SC_S" --listen 10.9.0.2 --ready-file "$TMPD/sc.ready" --timeout 60 \
		>/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	# (nsenter enters the network namespace only: bpffs stays in view)
	nsenter --net=/run/netns/"$SC_S" "$CG" syncookie attach veth1 --ports $SC_PORT --mode tc --quiet \
		2>"$TMPD/err" || unexpected "attach" "$(head -1 "$TMPD/err")"
	set -- $(sc_synack_delta 10.9.0.1)
	[ "${2:-0}" -ge 1 ] || unexpected "the program did not answer"
	st=$(nsenter --net=/run/netns/"$SC_S" "$CG" syncookie status veth1 --json)
	nsenter --net=/run/netns/"$SC_S" "$CG" status --prometheus >"$TMPD/spo.prom" ||
		unexpected "status --prometheus failed"
	grep -q "^csum_guard_syncookie_answering{device=\"veth1\",netns=\"\",mode=\"tc\",.*} 1$" "$TMPD/spo.prom" &&
		grep -qx "csum_guard_syncookie_packets_total{device=\"veth1\",netns=\"\",counter=\"synack\"} $(jq -r .counters.synack <<<"$st")" \
			"$TMPD/spo.prom" ||
		unexpected "status --prometheus" "$(grep '^csum_guard_syncookie' "$TMPD/spo.prom" | tr '\n' ' ')"
	[ "$(grep -c "^csum_guard_syncookie_answering{device=\"veth1\",netns=\"$SC_S\"" "$TMPD/spo.prom")" = 0 ] ||
		unexpected "its own namespace listed by name as well"
	nsenter --net=/run/netns/"$SC_S" "$CG" syncookie detach veth1 --quiet || unexpected "detach"
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "status --prometheus in the responder's own namespace lists it (netns \"\"), answering, its synack as syncookie status --json's"
	sc_down
}
cg_kernel_case syn_prom_own
