# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 80-syncookie.sh - the second guard, `csum-guard syncookie`: SYNs to protected
# ports answered with cookies from XDP or tc (or SYNPROXY through nft).
# These cases do not depend on the checksum guard's backend: they are
# kernel cases (cg_kernel_case), run once per kernel.
#
#   netns $SC_C (client)                      netns $SC_S (server)
#   veth0 10.9.0.1/24 fd09::1/64  --------  veth1 10.9.0.2/24 fd09::2/64
#   TX checksum offload off                 responder on veth1's receive
#
# The client's TX checksum offload is off so that its SYNs carry complete
# checksums, as frames from a wire do: with offload on, a veth hands its
# peer CHECKSUM_PARTIAL frames whose checksum field is not final, and the
# responder (which checks every SYN) passes them to the stack as malformed.

SC_PORT=5300		# protected, a listener (cg-stream's default port)
SC_CLOSED=5301		# protected, nobody listens
SC_OPEN=5302		# not protected, a listener
XDP_PASS_OBJ=$BLD/tests/xdp-pass.bpf.o
if [ -n "${CG_GUEST:-}" ]; then
	SC_BYTES=${SC_BYTES:-200000}
	SC_WAIT=${SC_WAIT:-3000}
else
	SC_BYTES=${SC_BYTES:-2000000}
	SC_WAIT=${SC_WAIT:-400}
fi
SC_N=5			# SYNs per injection

sc_up() {
	sc_down
	ip netns add "$SC_C" && ip netns add "$SC_S" || return 1
	ip -n "$SC_C" link set lo up
	ip -n "$SC_S" link set lo up
	ip -n "$SC_C" link add veth0 type veth peer name veth1 netns "$SC_S" || return 1
	ip -n "$SC_C" addr add 10.9.0.1/24 dev veth0
	ip -n "$SC_S" addr add 10.9.0.2/24 dev veth1
	ip -n "$SC_C" addr add fd09::1/64 dev veth0 nodad
	ip -n "$SC_S" addr add fd09::2/64 dev veth1 nodad
	ip -n "$SC_C" link set veth0 up
	ip -n "$SC_S" link set veth1 up
	ip netns exec "$SC_C" ethtool -K veth0 tx off >/dev/null 2>&1 || return 1
	SC_MAC=$(link_mac "$SC_S" veth1)
}

sc_on() { "$CG" syncookie attach veth1 --netns "$SC_S" --quiet "$@"; }
sc_off() { "$CG" syncookie detach veth1 --netns "$SC_S" --quiet; }
# "synack passed malformed" of the responder
sc_counters() {
	"$CG" syncookie status veth1 --netns "$SC_S" --json |
		jq -r '"\(.counters.synack) \(.counters.passed) \(.counters.malformed)"'
}

# tcpext NAME: the server's TcpExt counter NAME (absolute, /proc/net/netstat)
tcpext() {
	ip netns exec "$SC_S" awk -v k="$1" '/^TcpExt:/ {
		if (!h) { for (i = 1; i <= NF; i++) if ($i == k) c = i; h = 1 } else print $c + 0 }' \
		/proc/net/netstat
}

# The SYNPROXY's valid cookies in the server's namespace, all CPUs.
synproxy_valid() {
	local v s=0

	for v in $(ip netns exec "$SC_S" awk 'NR > 1 { print $4 }' /proc/net/stat/synproxy 2>/dev/null); do
		s=$((s + 0x$v))
	done
	echo $s
}

# sc_cookie_took SENT0 RECV0 SP0 [program]: "ok" if one connection's cookie
# went as it should: without the responder's nft tables the kernel took it
# (TcpExtSyncookiesRecv +1; +0 with program: the ACK program handed the
# kernel the connection, which its own cookie check then never sees) and
# sent no SYN-ACK of its own (SyncookiesSent +0); with them (status .tables "ok") SYNPROXY took it (cookie_valid)
# and opened the connection to the listener with a SYN of its own, which
# the listener answers under tcp_syncookies=2 with a cookie of its own
# that SYNPROXY's ACK returns (SyncookiesSent and SyncookiesRecv: that
# half stays inside the host); a raw cookie's listener (status .cookies
# "raw") under 1 with a request socket (both +0). Else what moved.
sc_cookie_took() {
	local s=$(($(tcpext SyncookiesSent) - $1)) r=$(($(tcpext SyncookiesRecv) - $2))
	local v=$(($(synproxy_valid) - $3)) st tables

	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	tables=$(jq -r .tables <<<"$st")
	if [ "$tables" = ok ] && [ "$(jq -r .cookies <<<"$st")" = raw ] &&
	   [ "$(jq -r .tcp_syncookies <<<"$st")" != 2 ]; then
		[ "$s $r" = "0 0" ] && [ "$v" -ge 1 ]
	elif [ "$tables" = ok ]; then
		# at least once each: a segment of the client's that reaches
		# SYNPROXY before conntrack has the connection it opened is
		# checked as the ACK again (seen under TCG on 5.10: +2 +1 +2)
		[ "$s" -ge 1 ] && [ "$r" -ge 1 ] && [ "$v" -ge 1 ]
	elif [ "${4:-}" = program ]; then
		[ "$s $r $v" = "0 0 0" ]
	else
		[ "$s $r $v" = "0 1 0" ]
	fi && echo ok && return
	echo "tables $tables: SyncookiesSent +$s SyncookiesRecv +$r cookie_valid +$v"
}

# inject PORT KIND [ADDR]: SC_N SYNs of KIND from the client; prints the reply counts
inject() {
	local dst=${3:-10.9.0.2} src=10.9.0.1

	[ "$dst" = "${dst#*:}" ] || src=fd09::1
	ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src $src --dst "$dst" \
		--port "$1" --kind "$2" --count $SC_N --wait $SC_WAIT
}

# connect ADDR [NS]: SC_BYTES over one connection to SC_PORT of NS (the
# server's by default), every byte checked
connect() {
	local l rc_l rc_c

	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "${2:-$SC_S}" --listen "$1" --ready-file "$TMPD/sc.ready" --timeout 20 \
		>"$TMPD/sc.listen" 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_C" --connect "$1" --bytes $SC_BYTES --timeout 20 >"$TMPD/sc.conn" 2>&1
	rc_c=$?
	wait $l
	rc_l=$?
	[ $rc_c = 0 ] && [ $rc_l = 0 ]
}

# Real connections over IPv4 and IPv6 through the responder in MODE: they
# complete and carry every byte, the SYN-ACK came from the program (its
# synack counter), and the returning ACK's cookie was taken once, by
# SYNPROXY through the responder's nft tables or by the kernel where it
# has none (sc_cookie_took).
# nft: SYNPROXY answers (its counter, and /proc/net/stat/synproxy's
# cookie_valid), IPv6 too.
case_syn_connect() {
	local mode=$1 t="syn-connect [$1]" addr c0 c1 sent0 recv0 sp0 why= got

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
	[ "$got" = "$mode" ] || why="$why; status says mode $got"
	for addr in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		sent0=$(tcpext SyncookiesSent)
		recv0=$(tcpext SyncookiesRecv)
		sp0=$(synproxy_valid)
		if ! connect $addr; then
			why="$why; $addr: transfer failed: $(tr '\n' ' ' <"$TMPD/sc.listen") $(tr '\n' ' ' <"$TMPD/sc.conn")"
			continue
		fi
		c1=$(sc_counters)
		set -- $c0 $c1
		if [ "$mode" = nft ]; then
			[ $(($4 - $1)) -ge 1 ] && [ $(($(synproxy_valid) - sp0)) -ge 1 ] ||
				why="$why; $addr: synproxy synack +$(($4 - $1)) cookie_valid +$(($(synproxy_valid) - sp0))"
			continue
		fi
		got=$(sc_cookie_took $sent0 $recv0 $sp0)
		[ $(($4 - $1)) = 1 ] && [ $(($5 - $2)) = 0 ] && [ "$got" = ok ] ||
			why="$why; $addr: synack +$(($4 - $1)) passed +$(($5 - $2)) $got"
	done
	# the host-wide status --prometheus: the responder answering, its synack as --json's
	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	"$CG" status --prometheus >"$TMPD/sc.prom" || why="$why; status --prometheus failed"
	got=$(grep -c "^csum_guard_syncookie_answering{device=\"veth1\",netns=\"$SC_S\",mode=\"$(jq -r .mode <<<"$st")\",tables=\"ok\",cookies=\"$(jq -r '.cookies // ""' <<<"$st")\",outdated=\"false\"} 1$" "$TMPD/sc.prom")
	[ "$got" = 1 ] && grep -qx "csum_guard_syncookie_packets_total{device=\"veth1\",netns=\"$SC_S\",counter=\"synack\"} $(jq -r .counters.synack <<<"$st")" "$TMPD/sc.prom" ||
		why="$why; status --prometheus: $(grep "$SC_S" "$TMPD/sc.prom" | tr '\n' ' ')"
	# nft: status reports the table's and SYNPROXY's counters
	if [ "$mode" = nft ]; then
		got=$("$CG" syncookie status veth1 --netns "$SC_S" --json |
			jq -c '[.counters.synack >= 1, .nft.acks >= 1, .nft.cookie_valid >= 1, .nft.dropped, .nft.cookie_invalid]')
		[ "$got" = "[true,true,true,0,0]" ] || why="$why; status nft counters: $got"
		"$CG" syncookie status veth1 --netns "$SC_S" | grep -q "acks [1-9].*cookie_valid [1-9]" ||
			why="$why; status: $("$CG" syncookie status veth1 --netns "$SC_S")"
	fi
	sc_off
	if [ -z "$why" ]; then
		if [ "$mode" = nft ]; then
			pass "$t: IPv4 and IPv6 answered by SYNPROXY (cookie validated; status: synack, acks, cookie_valid; status --prometheus too), $SC_BYTES bytes each intact"
		else
			pass "$t: IPv4 and IPv6, $SC_BYTES bytes each intact; SYN-ACK from the program, its cookie taken by SYNPROXY through the responder's nft tables (or, without them, by the kernel, which then sent no SYN-ACK); status --prometheus has it answering, its synack as --json's"
		fi
	else
		fail "$t:${why#;}"
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
	local t="syn-stack" l why= c0 c1 sent0 r

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
		[ "$r" = "sent=$SC_N synack=0 rst=$SC_N other=0" ] && [ $(($4 - $1)) = 0 ] &&
			[ $(($5 - $2)) = $SC_N ] ||
			why="$why; closed $a: $r, synack +$(($4 - $1)) passed +$(($5 - $2))"
		sent0=$(tcpext SyncookiesSent)
		r=$(inject $SC_OPEN good $a)
		c0=$(sc_counters)
		[ "$r" = "sent=$SC_N synack=$SC_N rst=0 other=0" ] && [ "$c0" = "$c1" ] &&
			[ $(($(tcpext SyncookiesSent) - sent0)) = $SC_N ] ||
			why="$why; unprotected $a: $r, counters $c1 -> $c0, SyncookiesSent +$(($(tcpext SyncookiesSent) - sent0))"
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	sc_off
	if [ -z "$why" ]; then
		pass "$t: closed protected port: the stack's RST; unprotected port: the stack's SYN-ACK; IPv4 and IPv6"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_stack

# Malformed SYNs to a protected port with a listener pass to the stack,
# counted malformed and passed, and the program answers none of them:
# whatever SYN-ACK comes back is the stack's own (SyncookiesSent moves by
# as many; the stack tolerates a truncated option, and answers it).
case_syn_malformed() {
	local t="syn-malformed" l why= a k c0 c1 sent0 r n=0 stack=0 acks

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
				[ $(($4 - $1)) = $SC_N ] && [ "$acks" = $SC_N ] ||
					why="$why; good $a: $r, synack +$(($4 - $1))"
				continue
			fi
			n=$((n + 1))
			stack=$((stack + acks))
			[ $(($4 - $1)) = 0 ] && [ $(($5 - $2)) = $SC_N ] && [ $(($6 - $3)) = $SC_N ] &&
				[ "$acks" = $(($(tcpext SyncookiesSent) - sent0)) ] ||
				why="$why; $k $a: $r, synack +$(($4 - $1)) passed +$(($5 - $2)) malformed +$(($6 - $3)) SyncookiesSent +$(($(tcpext SyncookiesSent) - sent0))"
		done
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	sc_off
	if [ -z "$why" ]; then
		pass "$t: $n kinds x $SC_N SYNs (bad checksums, data offsets, truncated option) passed, counted malformed, none answered by the program ($stack SYN-ACKs were the stack's own)"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_malformed

# sc_attach_mode MODE PORTS [ARGS]: the responder on veth1 in MODE (base: none, the
# stack alone); native XDP needs an XDP program on the client's veth to
# see its XDP_TX. Fails with a reason in $TMPD/err.
sc_attach_mode() {
	case $1 in
	base) return 0 ;;
	xdp) ip -n "$SC_C" link set dev veth0 xdpdrv obj "$XDP_PASS_OBJ" sec xdp 2>"$TMPD/err" || return 1 ;;
	esac
	sc_on --ports $2 --mode "$1" 2>"$TMPD/err"
}
sc_detach_mode() {
	[ "$1" = base ] && return 0
	sc_off
	[ "$1" = xdp ] && ip -n "$SC_C" link set dev veth0 xdpdrv off
	true
}

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

# In make test's guests (CG_DEPTH=quick under TCG) the addressing,
# forwarding, MSS and allow-list cases run on the host only: each takes
# minutes there, which the guest's time budget does not have. make
# test-matrix runs them on every kernel.
sc_quick_guest_skip() {
	[ -n "${CG_GUEST:-}" ] && [ "$CG_DEPTH" = quick ] || return 1
	skip "$1: on the host in make test (minutes under TCG); make test-matrix runs it on every kernel"
}

case_syn_addressing() {
	local t="syn-addressing" why= m l pids= label mac src dst port extra r acks c0 c1 n k=0

	sc_quick_guest_skip "$t" && return
	declare -A base

	sc_up || { fail "$t: set-up"; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2
	for l in :: 127.0.0.1 ::1; do
		rm -f "$TMPD/sc.ready"
		"$STREAM" --netns "$SC_S" --listen $l --port $([ $l = :: ] && echo $SC_PORT || echo $SC_LO) \
			--ready-file "$TMPD/sc.ready" --timeout 300 >/dev/null 2>&1 &
		pids="$pids $!"
		wait_ready "$TMPD/sc.ready"
	done
	for m in base xdp xdp-generic tc; do
		if ! sc_attach_mode $m $SC_PORT,$SC_LO; then
			if [ $m = xdp ]; then
				note "$t: no native XDP here: $(head -1 "$TMPD/err")"
				continue
			fi
			why="$why; attach $m: $(head -1 "$TMPD/err")"
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
				good*) [ "$acks" = $SC_N ] || why="$why; the stack alone answered $label with $r" ;;
				*) [ "$acks" = 0 ] || why="$why; the stack alone answers $label ($r): not a case" ;;
				esac
				continue
			fi
			c1=$(sc_counters)
			set -- $c0 $c1
			n=$(($4 - $1))
			case $label in
			good*) [ "$acks" = $SC_N ] && [ $n = $SC_N ] ||
				why="$why; $m $label: $r, program synack +$n" ;;
			*) [ "$acks" = "${base[$label]}" ] && [ $n = 0 ] ||
				why="$why; $m $label: $r (the stack alone: ${base[$label]}), program synack +$n" ;;
			esac
			k=$((k + 1))
		done < <(sc_kinds)
		sc_detach_mode $m
	done
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	if [ -z "$why" ]; then
		pass "$t: $k SYNs kinds x modes: other or multicast MAC, subnet broadcast, not local, LAND, from loopback, 0/:: or v4-mapped, no route back, loopback-only listener, VLAN 100 (IPv4, IPv6): none answered, as by the stack alone; the controls answered by the program"
	else
		fail "$t:${why#;}"
	fi
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
	local t="syn-forward" why= m l addr c0 c1 k=0

	sc_quick_guest_skip "$t" && return

	sc_up && ip netns add "$SC_V" && ip -n "$SC_V" link set lo up &&
		ip -n "$SC_S" link add vm0 type veth peer name vm1 netns "$SC_V" &&
		ip -n "$SC_S" addr add 10.90.1.1/24 dev vm0 && ip -n "$SC_S" addr add fd90::1/64 dev vm0 nodad &&
		ip -n "$SC_V" addr add 10.90.1.2/24 dev vm1 && ip -n "$SC_V" addr add fd90::2/64 dev vm1 nodad &&
		ip -n "$SC_S" link set vm0 up && ip -n "$SC_V" link set vm1 up &&
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
			why="$why; attach $m: $(head -1 "$TMPD/err")"
			continue
		fi
		for addr in 10.90.1.2 fd90::2; do
			[ $m = base ] || c0=$(sc_counters)
			connect $addr "$SC_V" ||
				why="$why; $m $addr: $(tr '\n' ' ' <"$TMPD/sc.listen") $(tr '\n' ' ' <"$TMPD/sc.conn")"
			[ $m = base ] && continue
			c1=$(sc_counters)
			set -- $c0 $c1
			[ $(($4 - $1)) = 0 ] || why="$why; $m $addr: the program answered $(($4 - $1)) SYN(s) for the guest"
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	if [ -z "$why" ]; then
		pass "$t: $k connections to a guest behind the host (IPv4, IPv6; xdp, xdp-generic, tc) carry $SC_BYTES bytes intact as without the responder, which answered none of their SYNs though the host listens on the port too"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_forward

# The SYN-ACK advertises this host's MSS, as the stack does: with the
# server's MTU at 1400, 1360 for IPv4 and 1340 for IPv6, where the client
# offers 1460; a listener with TCP_MAXSEG 1000 gets no more than 1000. And
# an upload through the responder arrives whole (with the client's MSS
# echoed, the client's full-size segments would not fit the server's MTU).
SC_SEG=5304		# protected, a listener with TCP_MAXSEG 1000
SC_ANY=5305		# protected, a listener without
case_syn_mss() {
	local t="syn-mss" why= m py addr r mss c0 c1 k=0

	sc_quick_guest_skip "$t" && return
	declare -A base

	command -v python3 >/dev/null || { skip "$t: no python3 for a listener with TCP_MAXSEG"; return; }
	sc_up && ip -n "$SC_S" link set veth1 mtu 1400 &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 || { fail "$t: set-up"; sc_down; return; }
	rm -f "$TMPD/sc.ready"
	ip netns exec "$SC_S" python3 -c '
import socket, sys, time
ls = []
for port, seg in ((int(sys.argv[1]), 1000), (int(sys.argv[2]), 0)):
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if seg:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, seg)
    s.bind(("::", port))
    s.listen(64)
    ls.append(s)
open(sys.argv[3], "w").close()
time.sleep(300)' $SC_SEG $SC_ANY "$TMPD/sc.ready" &
	py=$!
	wait_ready "$TMPD/sc.ready"
	for m in base xdp xdp-generic tc; do
		if ! sc_attach_mode $m $SC_PORT,$SC_SEG,$SC_ANY; then
			[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
			why="$why; attach $m: $(head -1 "$TMPD/err")"
			continue
		fi
		for addr in 10.9.0.2 fd09::2; do
			for port in $SC_ANY $SC_SEG; do
				r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" \
					--src $([ $addr = fd09::2 ] && echo fd09::1 || echo 10.9.0.1) --dst $addr \
					--port $port --count 1 --wait $SC_WAIT --mss)
				mss=${r##*mss=}
				if [ $m = base ]; then
					base[$addr/$port]=$mss
					continue
				fi
				# without kernel BTF the program sees TCP_MAXSEG only through
				# the cookie: IPv4 at most 1000, IPv6 (whose cookie table
				# starts at 1220) not at all
				if [ $port = $SC_ANY ] || [ -e /sys/kernel/btf/vmlinux ]; then
					[ "$mss" = "${base[$addr/$port]}" ] ||
						why="$why; $m $addr port $port: advertised $r, the stack ${base[$addr/$port]}"
				elif [ $addr = 10.9.0.2 ]; then
					[ "$mss" -ge 536 ] && [ "$mss" -le 1000 ] ||
						why="$why; $m $addr TCP_MAXSEG 1000: advertised $r"
				fi
			done
			[ $m = base ] || c0=$(sc_counters)
			connect $addr ||
				why="$why; $m $addr: upload failed: $(tr '\n' ' ' <"$TMPD/sc.listen") $(tr '\n' ' ' <"$TMPD/sc.conn")"
			[ $m = base ] && continue
			c1=$(sc_counters)
			set -- $c0 $c1
			[ $(($4 - $1)) = 1 ] || why="$why; $m $addr: the program answered $(($4 - $1)) of the upload's SYNs"
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	kill $py 2>/dev/null
	wait $py 2>/dev/null
	r="${base[10.9.0.2/$SC_ANY]}/${base[fd09::2/$SC_ANY]}/${base[10.9.0.2/$SC_SEG]}/${base[fd09::2/$SC_SEG]}"
	[ "$r" = 1360/1340/1000/1000 ] || why="$why; the stack alone advertised $r, not 1360/1340/1000/1000"
	if [ -z "$why" ]; then
		pass "$t: MTU 1400: the program advertises 1360 (IPv4) and 1340 (IPv6) as the stack does, to a TCP_MAXSEG 1000 listener 1000 as the stack (where the kernel has BTF, else at most 1000 for IPv4); $k uploads of $SC_BYTES bytes through it intact"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_mss

# sc_tcpinfo ROLE ADDR NS: one connection to SC_PORT, ROLE listen (prints
# once the client is gone; SO_RCVBUF SC_RCVBUF where set) or connect (sends
# SC_OPT_BYTES), in NS; prints
# what TCP_INFO says was negotiated, as ss -ti shows it (ts, sack, wscale
# snd,rcv) and the largest window the peer advertised during the transfer.
sc_tcpinfo() {
	ip netns exec "$3" python3 -c '
import socket, struct, sys, time
role, addr, port, n, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rcvbuf = int(sys.argv[6])
def info(s, wnd):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    o, w = b[5], b[6]
    if len(b) >= 232:
        wnd = max(wnd, struct.unpack_from("I", b, 228)[0])
    return o, w, wnd
if role == "listen":
    ls = socket.socket(socket.AF_INET6)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind(("::", port)); ls.listen(8); ls.settimeout(20)
    open(ready, "w").close()
    c, _ = ls.accept(); c.settimeout(20); got = 0
    while True:
        d = c.recv(1 << 16)
        if not d: break
        got += len(d)
    o, w, wnd = info(c, 0)
else:
    c = socket.create_connection((addr, port), timeout=20); wnd = 0; got = 0
    buf = b"x" * (1 << 16)
    while got < n:
        k = min(len(buf), n - got)
        c.sendall(buf[:k]); got += k
        o, w, wnd = info(c, wnd)
    o, w, wnd = info(c, wnd)
print("ts=%d sack=%d ecn=%d ws=%s bytes=%d wnd=%d" % (o & 1, o >> 1 & 1, o >> 3 & 1,
      "%d,%d" % (w & 15, w >> 4) if o & 4 else "none", got, wnd))
c.close()' "$1" "$2" $SC_PORT $SC_OPT_BYTES "$TMPD/sc.ready" "${SC_RCVBUF:-0}"
}

# sc_opt_connect ADDR: one upload through the responder; "$cli|$srv", each
# as sc_tcpinfo prints it (empty where it failed)
sc_opt_connect() {
	local l cli srv

	rm -f "$TMPD/sc.ready"
	sc_tcpinfo listen "$1" "$SC_S" >"$TMPD/sc.srv" 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	cli=$(sc_tcpinfo connect "$1" "$SC_C" 2>&1 | tail -1)
	wait $l
	srv=$(tail -1 "$TMPD/sc.srv")
	echo "$cli|$srv"
}

if [ -n "${CG_GUEST:-}" ]; then
	SC_OPT_BYTES=${SC_OPT_BYTES:-1000000}
else
	SC_OPT_BYTES=${SC_OPT_BYTES:-4000000}
fi

# sc_opt_round LABEL DECODER WS: an upload to the server over IPv4 and
# IPv6 (sc_opt_connect); each must get timestamps, SACK and window scale
# WS on both ends (each end's send scale the other's receive scale), the
# server's window above 64 KiB, one SYN-ACK of the program's, and its
# cookie taken once (sc_cookie_took; DECODER program: also the ACK
# program's connection counter +1). Appends what went wrong to $why.
sc_opt_round() {
	local label=$1 dec=$2 ws=$3 addr r cli srv c0 c1 a0 a1 recv0 sp0 sent0 got

	for addr in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		a0=$(sc_acks)
		recv0=$(tcpext SyncookiesRecv)
		sp0=$(synproxy_valid)
		sent0=$(tcpext SyncookiesSent)
		r=$(sc_opt_connect $addr)
		cli=${r%%|*}
		srv=${r#*|}
		c1=$(sc_counters)
		a1=$(sc_acks)
		set -- $c0 $c1
		got=$(sc_cookie_took $sent0 $recv0 $sp0 $dec)
		[ $(($4 - $1)) = 1 ] && [ "$got" = ok ] ||
			why="$why; $label, $addr: synack +$(($4 - $1)) $got"
		[ "$dec" != program ] || [ $((a1 - a0)) = 1 ] ||
			why="$why; $label, $addr: the ACK program's connections +$((a1 - a0))"
		case $cli in
		"ts=1 sack=1 ecn=0 ws=$ws,"*" bytes=$SC_OPT_BYTES"*) ;;
		*) why="$why; $label, $addr client: '$cli'" ;;
		esac
		case $srv in
		"ts=1 sack=1 ecn=0 ws="*",$ws bytes=$SC_OPT_BYTES"*) ;;
		*) why="$why; $label, $addr server: '$srv'" ;;
		esac
		[ "$(echo "$cli" | sed 's/.*ws=\([0-9]*\),\([0-9]*\).*/\2,\1/')" = \
		  "$(echo "$srv" | sed 's/.*ws=\([0-9]*,[0-9]*\).*/\1/')" ] ||
			why="$why; $label, $addr: scales do not match: client '$cli', server '$srv'"
		[ "${cli##*wnd=}" -gt 65535 ] 2>/dev/null ||
			why="$why; $label, $addr: the server's window stayed at ${cli##*wnd=}"
	done
}

# the ACK program's connections (status --json .counters.ack)
sc_acks() {
	"$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r '.counters.ack'
}

# sc_mss_only SIDE: IPv4 and IPv6 uploads (sc_opt_connect) that must get
# the MSS option alone (no timestamps, SACK or window scaling) from one
# SYN-ACK of the program's each; appends to $why.
sc_mss_only() {
	local side=$1 addr c0 c1 r

	for addr in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		r=$(sc_opt_connect $addr)
		c1=$(sc_counters)
		set -- $c0 $c1
		[ $(($4 - $1)) = 1 ] || why="$why; MSS only ($side), $addr: synack +$(($4 - $1))"
		case $r in
		"ts=0 sack=0 ecn=0 ws=none bytes=$SC_OPT_BYTES"*"|ts=0 sack=0 ecn=0 ws=none bytes=$SC_OPT_BYTES"*) ;;
		*) why="$why; MSS only expected ($side), $addr: '$r'" ;;
		esac
	done
}

# Timestamps carrying the options (issue 20), for real kernel clients (IPv4,
# IPv6) through the responder in MODE (sc_opt_round). With the hand-off
# tables and raw cookies (probe's raw_cookies: 6.0+; the server at the
# default tcp_syncookies 1) SYNPROXY decodes them under tcp_timestamps 2
# and 1, and after nft flush ruleset the ACK program (probe's ack_program:
# 6.9+) takes their ACKs, a client without timestamps's too. With the
# listener's cookies (5.x; tcp_syncookies 2) the kernel decodes them under
# 2, and under 1 (a secret offset the program cannot know) the MSS option
# alone. --no-handoff (the listener's cookies): under 1 the ACK program
# decodes them where the kernel has it, also after nft flush ruleset;
# elsewhere the MSS option alone. An upload over a path with delay (netem on the client's side
# where the kernel has it) sees the server's window above 64 KiB. ECN where
# the client asks; an SO_RCVBUF listener without window scaling; with
# tcp_timestamps 0 on the client, the MSS option alone; every byte intact.
case_syn_options() {
	local mode=$1 t="syn-options [$1]" why= r ws rmem ack raw st ws1 tables dec a0
	local delay="no delay: no netem here" cookies=2

	sc_quick_guest_skip "$t" && return
	command -v python3 >/dev/null || { skip "$t: no python3 for TCP_INFO"; return; }
	st=$("$CG" syncookie probe --json)
	ack=$(jq -r .ack_program <<<"$st")
	raw=$(jq -r .raw_cookies <<<"$st")
	command -v nft >/dev/null || raw=false
	[ "$raw" = true ] && cookies=1
	# The server's receive buffer starts at 1 MB (tcp_rmem[1]; the window
	# scale follows tcp_rmem[2], unchanged), so its window can pass 64 KiB
	# within the upload however slowly a loaded guest reads: autotuning
	# from the default 128 KB grows only as fast as the reader drains.
	sc_up && rmem=$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_rmem) &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_timestamps=2 \
			net.ipv4.tcp_syncookies=$cookies \
			net.ipv4.tcp_rmem="4096 1048576 ${rmem##*[[:space:]]}" ||
		{ fail "$t: set-up"; sc_down; return; }
	ip netns exec "$SC_C" tc qdisc add dev veth0 root netem delay 20ms 2>/dev/null && delay="netem delay 20ms"
	if ! sc_attach_mode "$mode" $SC_PORT; then
		[ "$mode" = xdp ] && { skip "$t: no native XDP here: $(head -1 "$TMPD/err")"; sc_down; return; }
		fail "$t: attach: $(head -1 "$TMPD/err")"
		sc_down
		return
	fi
	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	ws=$(jq -r '.options.window_scale' <<<"$st")
	[ -n "$ws" ] && [ "$ws" -gt 0 ] 2>/dev/null || why="$why; status reports window scale '$ws'"
	dec=$([ "$raw" = true ] && echo synproxy || echo kernel)
	[ "$(jq -r '.options.decoder' <<<"$st")" = $dec ] ||
		why="$why; tcp_timestamps 2: status says decoder '$(jq -r '.options.decoder' <<<"$st")', want $dec"
	[ "$(jq -r .cookies <<<"$st")" = "$([ "$raw" = true ] && echo raw || echo listener)" ] ||
		why="$why; status says cookies '$(jq -r .cookies <<<"$st")', probe raw_cookies $raw"
	sc_opt_round "tcp_timestamps 2" $dec "$ws"
	# ECN (RFC 3168) asked by the client (tcp_ecn 1), allowed by the
	# server (its default 2): in the timestamp's bit 5 and ECE on the SYN-ACK
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_ecn=1
	r=$(sc_opt_connect 10.9.0.2)
	case $r in
	"ts=1 sack=1 ecn=1 ws="*" bytes=$SC_OPT_BYTES"*"|ts=1 sack=1 ecn=1 ws="*" bytes=$SC_OPT_BYTES"*) ;;
	*) why="$why; ECN client: '$r'" ;;
	esac
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_ecn=2
	# a listener with SO_RCVBUF gets a window scale of its own from the
	# kernel, which the program does not work out: timestamps and SACK, no
	# window scaling (where the kernel has BTF; else never any)
	r=$(SC_RCVBUF=65536 sc_opt_connect 10.9.0.2)
	case $r in
	"ts=1 sack=1 ecn=0 ws=none bytes=$SC_OPT_BYTES"*"|ts=1 sack=1 ecn=0 ws=none bytes=$SC_OPT_BYTES"*) ;;
	*) why="$why; SO_RCVBUF listener: '$r'" ;;
	esac
	# tcp_timestamps 1 on the server, attach again: with the hand-off
	# tables and raw cookies, SYNPROXY decodes them; with the listener's
	# cookies the MSS option alone, SYNPROXY's listener half would misread
	# the options (sc_ack_decodes)
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_timestamps=1
	"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT >"$TMPD/out" 2>&1
	tables=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)
	if [ "$tables" = ok ] && [ "$raw" = true ]; then
		grep -q "timestamps.*(SYNPROXY decodes them" "$TMPD/out" ||
			why="$why; attach again under tcp_timestamps 1 with the tables: $(head -1 "$TMPD/out")"
		sc_opt_round "tcp_timestamps 1, hand-off tables" synproxy "$ws"
		if [ "$ack" = true ]; then
			# the tables flushed: the ACK program takes the ACKs,
			# with the options, and a client's without timestamps
			ip netns exec "$SC_S" nft flush ruleset
			sc_opt_round "tcp_timestamps 1, tables flushed" program "$ws"
			a0=$(sc_acks)
			ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_timestamps=0
			sc_mss_only "tables flushed, client without timestamps"
			ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_timestamps=1
			[ $(($(sc_acks) - a0)) = 2 ] ||
				why="$why; tables flushed, client without timestamps: the ACK program's connections +$(($(sc_acks) - a0))"
		fi
	elif [ "$tables" = ok ]; then
		grep -q "MSS only (tcp_timestamps is not 2; under 1 the listener's half" "$TMPD/out" ||
			why="$why; attach again under tcp_timestamps 1 with the tables: $(head -1 "$TMPD/out")"
		sc_mss_only "tcp_timestamps 1, hand-off tables"
	fi
	# --no-handoff (the listener's cookies, tcp_syncookies 2): the ACK
	# program's timestamps where the kernel has it, also after nft flush
	# ruleset (nothing of ours to flush); else the MSS option alone
	sc_off
	sc_on --ports $SC_PORT --mode "$mode" --no-handoff --set-sysctl 2>"$TMPD/err" ||
		why="$why; attach --no-handoff: $(head -1 "$TMPD/err")"
	# again, as an operator would: the same, and what it carries
	"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT --no-handoff >"$TMPD/out" 2>&1
	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	[ "$(jq -r .tables <<<"$st")" = off ] || why="$why; --no-handoff: status says tables '$(jq -r .tables <<<"$st")'"
	if [ "$ack" = true ]; then
		grep -q "timestamps.*(the ACK program decodes them)" "$TMPD/out" ||
			why="$why; --no-handoff under tcp_timestamps 1: $(head -1 "$TMPD/out")"
		ws1=$(jq -r '.options.window_scale' <<<"$st")
		[ "$(jq -r '.options.decoder' <<<"$st")" = program ] && [ "$ws1" = "$ws" ] ||
			why="$why; --no-handoff: status says decoder '$(jq -r '.options.decoder' <<<"$st")', window scale '$ws1'"
		sc_opt_round "tcp_timestamps 1, --no-handoff" program "$ws"
		ip netns exec "$SC_S" nft flush ruleset
		sc_opt_round "tcp_timestamps 1, --no-handoff, nft flush ruleset" program "$ws"
	else
		grep -q "MSS only" "$TMPD/out" ||
			why="$why; --no-handoff under tcp_timestamps 1: $(head -1 "$TMPD/out")"
		sc_mss_only "tcp_timestamps 1, --no-handoff, no ACK program"
	fi
	# the old behaviour: a client without timestamps
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_timestamps=0
	sc_mss_only "client without timestamps"
	sc_detach_mode "$mode"
	if [ -z "$why" ]; then
		if [ "$raw" = true ]; then
			st="raw cookies: under tcp_timestamps 1 too, decoded by SYNPROXY through the hand-off tables"
		else
			st="the listener's cookies: with the hand-off tables under tcp_timestamps 1 the MSS option alone"
		fi
		if [ "$ack" = true ]; then
			st="$st$([ "$raw" = true ] && echo ", and with the tables flushed by the ACK program (a client without timestamps connects too)"); with --no-handoff under 1, decoded by the ACK program (also after nft flush ruleset)"
		else
			st="$st; with --no-handoff under 1 the MSS option alone (no ACK program: kernel before 6.9)"
		fi
		pass "$t: tcp_timestamps 2 (decoder $dec): IPv4 and IPv6 clients get timestamps, SACK and window scale $ws (both ends agree), the server's window above 64 KiB ($delay); $st; ECN where the client asks; an SO_RCVBUF listener without window scaling; a client without timestamps gets the MSS option alone; $SC_OPT_BYTES bytes intact each time"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_options xdp-generic
cg_kernel_case syn_options tc
cg_kernel_case syn_options xdp

# sc_src_try SRC: SC_N SYNs from SRC (an address of the client) to the
# port, then one connection from it; "SYN-ACKs connect-rc"
sc_src_try() {
	local src=$1 addr l rc r

	addr=$([ "$src" = "${src#fd}" ] && echo 10.9.0.2 || echo fd09::2)
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen $addr --ready-file "$TMPD/sc.ready" --timeout 4 \
		>"$TMPD/sc.listen" 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src $src --dst $addr \
		--port $SC_PORT --count $SC_N --wait $SC_WAIT)
	if [ $addr = 10.9.0.2 ]; then
		ip -n "$SC_C" route replace 10.9.0.0/24 dev veth0 src $src
	else
		ip -n "$SC_C" route replace fd09::/64 dev veth0 src $src metric 1
	fi
	# an allowed source connects in milliseconds; a rejected one's SYNs
	# are dropped and would be sent again for minutes
	timeout 2 "$STREAM" --netns "$SC_C" --connect $addr --bytes 100000 --timeout 2 \
		>"$TMPD/sc.conn" 2>&1
	rc=$?
	[ $rc = 0 ] || kill $l 2>/dev/null	# no connection will come
	wait $l 2>/dev/null
	echo "$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r") $rc"
}

# attach --allow: the responder answers only the sources the operator
# allows, as the server's input filter does (which accepts the port from
# 10.9.0.1 and fd09::1 only, with `ct state invalid drop`). The client's
# second address, 10.9.0.3 / fd09::3, is rejected: with the responder (xdp,
# xdp-generic, tc, nft) as without it, it gets no SYN-ACK and no
# connection; the allowed source is answered by the program and connects.
case_syn_allow() {
	local t="syn-allow" why= m src acks c0 c1 k=0 rc want wrc

	sc_quick_guest_skip "$t" && return
	declare -A base

	sc_up && ip -n "$SC_C" addr add 10.9.0.3/24 dev veth0 && ip -n "$SC_C" addr add fd09::3/64 dev veth0 nodad &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 &&
		ip netns exec "$SC_S" nft -f - <<-EOT || { fail "$t: set-up"; sc_down; return; }
		table inet fw {
			chain in {
				type filter hook input priority filter; policy accept;
				ct state invalid drop
				tcp dport $SC_PORT ip saddr 10.9.0.1 accept
				tcp dport $SC_PORT ip6 saddr fd09::1 accept
				tcp dport $SC_PORT drop
			}
		}
		EOT
	# without --allow, attach refuses: one line, exit 1, nothing made
	sc_on --ports $SC_PORT --set-sysctl 2>"$TMPD/err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$TMPD/err")" = 1 ] && grep -q 'table inet fw filters input' "$TMPD/err" &&
		[ -z "$(find "/sys/fs/bpf/csum_guard_syncookie/$(stat -L -c %i "/run/netns/$SC_S")" 2>/dev/null)" ] ||
		why="$why; attach without --allow: exit $rc: $(head -2 "$TMPD/err" | tr '\n' ' ')"
	for m in base xdp xdp-generic tc nft; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		if ! sc_attach_mode $m "$SC_PORT --allow 10.9.0.1,fd09::1/128 --set-sysctl"; then
			[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
			why="$why; attach $m: $(head -1 "$TMPD/err")"
			continue
		fi
		for src in 10.9.0.1 10.9.0.3 fd09::1 fd09::3; do
			# IPv6 SYNPROXY needs nft_compat and ip6t_SYNPROXY, which attach says
			[ $m = nft ] && [ "$src" != "${src#fd}" ] && [ "$("$CG" syncookie status veth1 \
				--netns "$SC_S" --json | jq -r .nft.ipv6)" != true ] && note "$t: nft: no IPv6 SYNPROXY" && continue
			[ $m = base ] || c0=$(sc_counters)
			set -- $(sc_src_try $src)
			acks=$1 rc=$2
			[ $m = base ] || c1=$(sc_counters)
			case $src in
			*.1|*::1) want=$SC_N; wrc=0 ;;
			*) want=0; wrc=x ;;
			esac
			if [ $m = base ]; then
				base[$src]="$acks $rc"
				if [ "$acks" != $want ] || { [ $wrc = 0 ] && [ $rc != 0 ]; } ||
				   { [ $wrc = x ] && [ $rc = 0 ]; }; then
					why="$why; the stack alone: $src: SYN-ACKs $acks, connect rc $rc: not a case"
				fi
				continue
			fi
			set -- $c0 $c1
			if [ $wrc = 0 ]; then
				[ "$acks" = $SC_N ] && [ $rc = 0 ] && [ $(($4 - $1)) -ge $SC_N ] ||
					why="$why; $m allowed $src: SYN-ACKs $acks, connect rc $rc, synack +$(($4 - $1))"
			else
				[ "$acks" = 0 ] && [ $rc != 0 ] && [ $(($4 - $1)) = 0 ] ||
					why="$why; $m rejected $src: SYN-ACKs $acks, connect rc $rc ($(tr '\n' ' ' <"$TMPD/sc.conn")), synack +$(($4 - $1))"
			fi
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	if [ -z "$why" ]; then
		pass "$t: attach without --allow refused (the input filter named); $k source x mode checks: --allow'ed sources answered by the program and connected; the source the input filter rejects got no SYN-ACK and no connection, as with the filter alone (IPv4, IPv6; xdp, xdp-generic, tc, nft)"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_allow

# sc_fw KIND: the server's firewall, each of the two that drop an ACK
# conntrack saw no SYN for, both accepting the port from 10.9.0.1 and
# fd09::1 only: ctinv, `ct state invalid drop` with
# nf_conntrack_tcp_loose=0 (the hardened host); ipt, iptables (on
# nftables) `! --syn -m conntrack --ctstate NEW -j DROP` with the default
# loose=1.
sc_fw() {
	case $1 in
	ctinv)
		ip netns exec "$SC_S" nft -f - <<-EOT || return 1
		table inet fw {
			chain in {
				type filter hook input priority filter; policy accept;
				ct state invalid counter drop
				tcp dport $SC_PORT ip saddr 10.9.0.1 accept
				tcp dport $SC_PORT ip6 saddr fd09::1 accept
				tcp dport $SC_PORT drop
			}
		}
		EOT
		ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
		;;
	ipt)
		local v s
		for v in "iptables 10.9.0.1" "ip6tables fd09::1"; do
			set -- $v
			ip netns exec "$SC_S" $1 -A INPUT -p tcp ! --syn -m conntrack --ctstate NEW -j DROP &&
				ip netns exec "$SC_S" $1 -A INPUT -p tcp --dport $SC_PORT ! -s $2 -j DROP || return 1
		done
		;;
	esac
}

# sc_sysctls: the server's tcp_syncookies and nf_conntrack_tcp_loose
sc_sysctls() {
	ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies net.netfilter.nf_conntrack_tcp_loose \
		2>/dev/null | paste -sd, -
}

# The responder's contract with the host firewall (issue 26): under each
# firewall of sc_fw, loaded before and after the responder (its tables'
# input chains sit at priority filter - 10, whatever the load order), the
# allowed sources (10.9.0.1, fd09::1) get SYN-ACKs and connect, through
# the program (xdp, xdp-generic, tc: the returning ACK goes to SYNPROXY,
# which opens the connection through conntrack) or SYNPROXY itself (nft);
# the rejected ones (10.9.0.3, fd09::3) get neither, as with the firewall
# alone (base). Every sysctl is back after each detach.
case_syn_firewall() {
	local t="syn-firewall" why= fw order m src r k=0 sys0 sys1 want

	sc_quick_guest_skip "$t" && return
	for fw in ctinv ipt; do
		for order in before after; do
			sc_up && ip -n "$SC_C" addr add 10.9.0.3/24 dev veth0 &&
				ip -n "$SC_C" addr add fd09::3/64 dev veth0 nodad ||
				{ why="$why; set-up"; break 2; }
			# iptables' tables and conntrack first, so the sysctl exists
			[ $order = before ] && { sc_fw $fw || { why="$why; $fw: firewall"; break 2; }; }
			for m in base xdp xdp-generic tc nft; do
				[ $m = nft ] && ! command -v nft >/dev/null && continue
				[ $order = after ] && [ $m = base ] && continue
				sys0=$(sc_sysctls)
				if ! sc_attach_mode $m "$SC_PORT --allow 10.9.0.1,fd09::1/128 --set-sysctl"; then
					[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
					why="$why; $fw/$order: attach $m: $(head -1 "$TMPD/err")"
					continue
				fi
				if [ $order = after ]; then
					sc_fw $fw || why="$why; $fw: firewall after $m"
				fi
				for src in 10.9.0.1 10.9.0.3 fd09::1 fd09::3; do
					r=$(sc_src_try $src)
					case $src in
					*.1|*::1) want="$SC_N 0" ;;
					*) want="0 x" ;;
					esac
					case "$want/$r" in
					"$SC_N 0/$SC_N 0"|"0 x/0 "[1-9]*) ;;
					*) why="$why; $fw/$order $m $src: SYN-ACKs and connect rc '$r', want '$want'" ;;
					esac
					k=$((k + 1))
				done
				sc_detach_mode $m
				if [ $order = after ]; then
					# the firewall goes with the responder, as it came
					ip netns exec "$SC_S" nft flush ruleset
					ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1 2>/dev/null
				fi
				sys1=$(sc_sysctls)
				[ "$sys1" = "$sys0" ] || why="$why; $fw/$order $m: sysctls $sys1 after detach, were $sys0"
			done
			sc_down
		done
	done
	if [ -z "$why" ]; then
		pass "$t: $k source x mode x firewall checks: under ct state invalid drop with nf_conntrack_tcp_loose=0 and under iptables ! --syn NEW DROP, loaded before and after the responder, allowed sources got SYN-ACKs and connected, rejected ones neither, as with the firewall alone (IPv4, IPv6; xdp, xdp-generic, tc, nft); sysctls back after each detach"
	else
		fail "$t:${why#;}"
	fi
}
cg_kernel_case syn_firewall

# A ruleset flushed under a running responder (nft flush ruleset): status
# says its tables are gone, attach run again makes them and connections
# go through SYNPROXY again; detach without that attach puts every sysctl
# back (nf_conntrack_tcp_loose, which nft mode sets, included) and leaves
# no table.
case_syn_flush() {
	local t="syn-flush" why= m sys0 st addr v0

	command -v nft >/dev/null || { skip "$t: no nft"; return; }
	for m in xdp-generic tc nft; do
		sc_up || { why="$why; set-up"; break; }
		ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1 2>/dev/null
		sys0=$(sc_sysctls)
		sc_on --ports $SC_PORT --mode $m --set-sysctl || { why="$why; attach $m"; sc_down; continue; }
		ip netns exec "$SC_S" nft flush ruleset
		st=$("$CG" syncookie status veth1 --netns "$SC_S")
		case $m in
		nft) grep -q 'not answering SYNs: its nft tables are gone' <<<"$st" ;;
		*) grep -q "answering SYNs ($m).*its nft tables are gone" <<<"$st" ;;
		esac || why="$why; $m: status after the flush: $st"
		[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)" = gone ] ||
			why="$why; $m: status --json .tables not gone"
		# attach again, as before (the sysctl it set still holds)
		sc_on --ports $SC_PORT --mode $m 2>"$TMPD/err" || why="$why; $m: attach again: $(head -1 "$TMPD/err")"
		[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)" = ok ] ||
			why="$why; $m: tables not back after attach: $("$CG" syncookie status veth1 --netns "$SC_S")"
		for addr in 10.9.0.2 fd09::2; do
			v0=$(synproxy_valid)
			connect $addr || why="$why; $m $addr: transfer failed after attach again"
			[ $(($(synproxy_valid) - v0)) = 1 ] || why="$why; $m $addr: cookie_valid +$(($(synproxy_valid) - v0)) after attach again"
		done
		# flushed again, then detached: every sysctl back, no table
		ip netns exec "$SC_S" nft flush ruleset
		sc_off || why="$why; $m: detach"
		[ "$(sc_sysctls)" = "$sys0" ] || why="$why; $m: sysctls $(sc_sysctls) after detach, were $sys0"
		[ -z "$(ip netns exec "$SC_S" nft list tables)" ] || why="$why; $m: tables left"
		sc_down
	done
	if [ -z "$why" ]; then
		pass "$t: xdp-generic, tc, nft: after nft flush ruleset status says the tables are gone, attach again makes them and IPv4 and IPv6 connect through SYNPROXY; flushed and detached, every sysctl is back and no table left"
	else
		fail "$t:${why#; }"
	fi
}
cg_kernel_case syn_flush

# Attach converges, ports change in place with the counters kept, another
# mode is refused while attached, auto picks generic XDP on a veth, and
# detach leaves nothing: no pins, programs, XDP, tc or nft state, and the
# sysctl as it was.
sc_snapshot() {
	{
		find /sys/fs/bpf/csum_guard_syncookie 2>/dev/null
		sc_progs
		ip -n "$SC_S" link show veth1 | grep -o 'xdp[a-z]*'
		ip netns exec "$SC_S" tc qdisc show dev veth1
		ip netns exec "$SC_S" nft list tables 2>/dev/null
		ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies
	} | md5sum
}

case_syn_idempotent() {
	local t="syn-idempotent" why= before p0 id0 id1 m r np

	sc_up || { fail "$t: set-up"; return; }
	before=$(sc_snapshot)
	p0=$(sc_progs)
	sc_on --ports $SC_PORT --set-sysctl && sc_on --ports $SC_PORT --set-sysctl ||
		why="$why; attach twice failed"
	m=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .mode)
	[ "$m" = xdp-generic ] || why="$why; auto on a veth picked $m, not xdp-generic"
	# the SYNs' program, and the ACKs' where it is hooked beside
	np=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r 'if .ack_program then 2 else 1 end')
	[ $(($(sc_progs) - p0)) = "$np" ] || why="$why; programs +$(($(sc_progs) - p0)) after two attaches, want $np"
	id0=$(bpftool prog show 2>/dev/null | awk '/name syncookie_/ { print $1 }' | tail -1)
	r=$(inject $SC_PORT good)	# no listener: passed, counted
	sc_on --ports $SC_CLOSED,$SC_PORT --set-sysctl
	id1=$(bpftool prog show 2>/dev/null | awk '/name syncookie_/ { print $1 }' | tail -1)
	[ "$id0" = "$id1" ] || why="$why; the program changed on a ports update"
	[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.ports, .counters.passed]')" = \
	  "[[$SC_PORT,$SC_CLOSED],$SC_N]" ] ||
		why="$why; after the ports update: $("$CG" syncookie status veth1 --netns "$SC_S" --json)"
	sc_on --ports $SC_PORT --mode tc 2>"$TMPD/err" && why="$why; a mode change was taken while attached"
	[ "$(wc -l <"$TMPD/err")" = 1 ] || why="$why; mode change: $(cat "$TMPD/err")"
	sc_off && sc_off || why="$why; detach twice failed"
	[ "$(sc_snapshot)" = "$before" ] || why="$why; state left after detach (auto)"
	for m in tc nft xdp-generic; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		sc_on --ports $SC_PORT --mode $m --set-sysctl && sc_on --ports $SC_PORT --mode $m &&
			sc_off || why="$why; $m: attach/attach/detach failed"
		[ "$(sc_snapshot)" = "$before" ] || why="$why; state left after detach ($m)"
	done
	if [ -z "$why" ]; then
		pass "$t: attach converges (one program, auto = xdp-generic on veth), ports updated in place with counters kept, mode change refused, detach leaves nothing (auto, tc, nft, xdp-generic)"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_idempotent

# detach of what is gone: the device (the responder's nft table and the
# sysctl it set stay in the namespace until detach puts them back), and
# the namespace. Exit 0, and nothing of the responder left.
case_syn_detach_gone() {
	local t="syn-detach-gone" why= ino out rc m before sysctl0 p0

	p0=$(sc_progs)
	for m in xdp-generic tc nft netns; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		sc_up || { why="$why; set-up"; break; }
		ino=$(stat -L -c %i "/run/netns/$SC_S")
		sysctl0=$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies \
			net.netfilter.nf_conntrack_tcp_loose 2>/dev/null | paste -sd, -)
		sc_on --ports $SC_PORT --mode $([ $m = netns ] && echo tc || echo $m) --set-sysctl ||
			why="$why; attach ($m) failed"
		if [ $m = netns ]; then
			sc_down
		else
			ip -n "$SC_S" link del veth1
		fi
		out=$("$CG" syncookie detach veth1 --netns "$SC_S" 2>&1)
		rc=$?
		[ $rc = 0 ] && grep -q 'is gone: removed the state' <<<"$out" ||
			why="$why; detach ($m): exit $rc: $out"
		[ -z "$(find "/sys/fs/bpf/csum_guard_syncookie/$ino" -mindepth 1 2>/dev/null)" ] ||
			why="$why; pins left ($m)"
		if [ $m != netns ]; then
			[ "$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies \
				net.netfilter.nf_conntrack_tcp_loose 2>/dev/null | paste -sd, -)" = "$sysctl0" ] ||
				why="$why; sysctl not put back ($m)"
			[ -z "$(ip netns exec "$SC_S" nft list tables 2>/dev/null)" ] ||
				why="$why; nft table left ($m)"
		fi
		sc_down
	done
	# the device that set the sysctl is deleted, and never detached by
	# name: the detach of the other responder of its namespace puts the
	# sysctl back and takes the gone one's pins too
	if sc_up && ip -n "$SC_S" link add vx0 type veth peer name vx1 && ip -n "$SC_S" link set vx0 up; then
		ino=$(stat -L -c %i "/run/netns/$SC_S")
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
		sc_on --ports $SC_PORT --mode tc --set-sysctl &&
			"$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --quiet ||
			why="$why; attach veth1 and vx0 failed"
		ip -n "$SC_S" link del veth1
		"$CG" syncookie detach vx0 --netns "$SC_S" --quiet || why="$why; detach vx0 failed"
		[ "$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)" = 1 ] ||
			why="$why; tcp_syncookies $(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies) after the last detach, was 1"
		[ -z "$(find "/sys/fs/bpf/csum_guard_syncookie/$ino" -mindepth 1 2>/dev/null)" ] ||
			why="$why; pins left after detaching the other device"
	else
		why="$why; set-up (two devices)"
	fi
	sc_down
	sleep 0.3
	[ "$(sc_progs)" = "$p0" ] || why="$why; programs $(sc_progs), was $p0"
	if [ -z "$why" ]; then
		pass "$t: device deleted (generic XDP, tc, nft) and namespace deleted (tc): detach exits 0, sysctl and nft table put back, no pin or program left; the deleted device that set the sysctl is undone by the detach of another device of its namespace"
	else
		fail "$t: ${why#; }"
	fi
}
cg_kernel_case syn_detach_gone

# A responder left running by an older csum-guard (its state of another
# SC_ABI_VERSION: the meta pin's version rewritten here, as a package
# upgrade leaves it) still answers, and status says so and how to update it
# (text, and --json attached with outdated); the listing shows it; attach
# again starts it over with this version (one program, not outdated), and
# detach of an outdated one says it detached.
case_syn_outdated() {
	local t="syn-outdated" why= meta st p0 out round l

	command -v bpftool >/dev/null || { skip "$t: no bpftool"; return; }
	sc_up || { fail "$t: set-up"; return; }
	p0=$(sc_progs)
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --ready-file "$TMPD/sc.ready" --timeout 300 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for round in again detach; do
		sc_on --ports $SC_PORT --mode tc --set-sysctl || { why="$why; attach"; break; }
		meta=/sys/fs/bpf/csum_guard_syncookie/$(stat -L -c %i "/run/netns/$SC_S")/$(ip -n "$SC_S" -o link show veth1 | cut -d: -f1)/meta
		# the version is the first 4 bytes, little-endian: one less
		set -- $(bpftool map lookup pinned "$meta" key 0 0 0 0 -j | jq -r '.value[]' | sed 's/^0x//')
		[ $# -gt 4 ] && bpftool map update pinned "$meta" key 0 0 0 0 value hex \
			"$(printf %02x $((0x$1 - 1)))" "${@:2}" || { why="$why; cannot rewrite the meta"; break; }
		st=$("$CG" syncookie status veth1 --netns "$SC_S")
		grep -q "^veth1.*: answering SYNs (tc) with an older csum-guard's program (its state is version [0-9]*, this one's [0-9]*): attach again to update it$" <<<"$st" ||
			why="$why; $round: status: $st"
		[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.attached, .outdated, .mode]')" = '[true,true,"tc"]' ] ||
			why="$why; $round: status --json: $("$CG" syncookie status veth1 --netns "$SC_S" --json)"
		[ "$("$CG" syncookie status --netns "$SC_S" --json | jq -c 'map(.dev)')" = '["veth1"]' ] ||
			why="$why; $round: the listing: $("$CG" syncookie status --netns "$SC_S" --json)"
		"$CG" status --prometheus | grep -q "^csum_guard_syncookie_answering{device=\"veth1\",netns=\"$SC_S\",mode=\"tc\",.*outdated=\"true\"} 1$" ||
			why="$why; $round: status --prometheus: $("$CG" status --prometheus | grep "$SC_S" | tr '\n' ' ')"
		[ "$(inject $SC_PORT good)" = "sent=$SC_N synack=$SC_N rst=0 other=0" ] ||
			why="$why; $round: the outdated responder does not answer"
		if [ $round = again ]; then
			sc_on --ports $SC_PORT --mode tc --set-sysctl || why="$why; attach again failed"
			[ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.attached, .outdated]')" = '[true,false]' ] ||
				why="$why; after attach again: $("$CG" syncookie status veth1 --netns "$SC_S" --json)"
			[ "$(inject $SC_PORT good)" = "sent=$SC_N synack=$SC_N rst=0 other=0" ] ||
				why="$why; not answering after attach again"
			sc_off
		else
			out=$("$CG" syncookie detach veth1 --netns "$SC_S" 2>&1)
			grep -q "detached the SYN responder from veth1" <<<"$out" || why="$why; detach said: $out"
		fi
		sleep 0.3
		[ "$(sc_progs)" = "$p0" ] || why="$why; $round: programs $(sc_progs) after, was $p0"
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	if [ -z "$why" ]; then
		pass "$t: an older version's responder answers, status (text, --json outdated, the listing, --prometheus) says so and to attach again; attach again updates it, detach takes it; no program left"
	else
		fail "$t:${why#; }"
	fi
	sc_down
}
cg_kernel_case syn_outdated

# Two responders in one namespace that issue the listener's cookies
# (--no-handoff), the first attached with --set-sysctl: detaching it must
# not take the sysctl from under the second; the last detach puts back
# what the first attach found. Responders with raw cookies (with the
# hand-off tables, kernel 6.0+: status .cookies "raw") need no sysctl:
# attach leaves tcp_syncookies as it is, --set-sysctl too, takes no part in
# the hand-over, and says where 2 costs the options.
case_syn_sysctl() {
	local t="syn-sysctl" why= v raw=
	local sys=(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)

	sc_up || { fail "$t: set-up"; return; }
	ip -n "$SC_S" link add vx0 type veth peer name vx1 && ip -n "$SC_S" link set vx0 up ||
		{ fail "$t: set-up"; sc_down; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
	sc_on --ports $SC_PORT --set-sysctl --no-handoff || why="$why; attach veth1 --set-sysctl failed"
	"$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --no-handoff --quiet ||
		why="$why; attach vx0 failed"
	[ "$("${sys[@]}")" = 2 ] || why="$why; tcp_syncookies=$("${sys[@]}") with both attached"
	sc_off || why="$why; detach veth1 failed"
	v=$("${sys[@]}")
	[ "$v" = 2 ] || why="$why; tcp_syncookies=$v after the first detach, vx0 still answering"
	"$CG" syncookie detach vx0 --netns "$SC_S" --quiet || why="$why; detach vx0 failed"
	v=$("${sys[@]}")
	[ "$v" = 1 ] || why="$why; tcp_syncookies=$v after the last detach, want 1 as found"
	# raw cookies, where the kernel has them and nft makes the tables
	if command -v nft >/dev/null && sc_on --ports $SC_PORT --set-sysctl 2>"$TMPD/err" &&
	   [ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .cookies)" = raw ]; then
		raw=1
		v=$("${sys[@]}")
		[ "$v" = 1 ] || why="$why; raw cookies: tcp_syncookies=$v after attach --set-sysctl, was 1"
		# beside one of the listener's cookies, which sets 2 and alone puts back 1
		"$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --no-handoff --set-sysctl \
			--quiet || why="$why; attach vx0 --no-handoff beside raw"
		[ "$("${sys[@]}")" = 2 ] || why="$why; tcp_syncookies=$("${sys[@]}") with vx0 --no-handoff"
		# under 2 the raw responder's SYN-ACKs carry the MSS option alone, and attach says why
		"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT >"$TMPD/out" 2>&1
		grep -q "MSS only (tcp_syncookies is 2" "$TMPD/out" ||
			why="$why; raw cookies under tcp_syncookies 2: $(head -1 "$TMPD/out")"
		"$CG" syncookie detach vx0 --netns "$SC_S" --quiet || why="$why; detach vx0 (--no-handoff)"
		v=$("${sys[@]}")
		[ "$v" = 1 ] || why="$why; tcp_syncookies=$v after detaching the --no-handoff one beside raw, want 1"
		sc_off || why="$why; detach veth1 (raw)"
		v=$("${sys[@]}")
		[ "$v" = 1 ] || why="$why; tcp_syncookies=$v after the raw one's detach, want 1"
	elif [ -s "$TMPD/err" ]; then
		why="$why; attach with the tables: $(head -1 "$TMPD/err")"
	else
		sc_off
	fi
	if [ -z "$why" ]; then
		pass "$t: two responders of the listener's cookies in one namespace keep tcp_syncookies=2 until the last detach, which puts back 1$([ -n "$raw" ] && echo "; raw cookies (with the tables) leave it at 1, --set-sysctl too, say what 2 costs, and do not hold it for a --no-handoff one")"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_sysctl

# syncookie detach --all: --netns NS takes that namespace's responders (an
# XDP one that set the sysctl, and an nft or tc one) and no other; without
# --netns every responder of the host goes, the client namespace's and the
# pins of a namespace deleted under its responder included; again, nothing
# to detach. Afterwards: no pin, program, nft table, and the sysctl as found.
case_syn_detach_all() {
	local t="syn-detach-all" why= p0 out m2 dead ino sys0
	local sys=(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)

	sc_up || { fail "$t: set-up"; return; }
	ip -n "$SC_S" link add vx0 type veth peer name vx1 && ip -n "$SC_S" link set vx0 up ||
		{ fail "$t: set-up"; sc_down; return; }
	dead=$CG_PFX-scdead
	ip netns add $dead && ip -n $dead link add d0 type veth peer name d1 && ip -n $dead link set d0 up ||
		{ fail "$t: set-up"; sc_down; ip netns del $dead 2>/dev/null; return; }
	ino=$(stat -L -c %i /run/netns/$dead)
	p0=$(sc_progs)
	sys0=$("${sys[@]}")
	m2=$(command -v nft >/dev/null && echo nft || echo tc)
	sc_on --ports $SC_PORT --set-sysctl || why="$why; attach veth1"
	"$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --mode $m2 --set-sysctl --quiet ||
		why="$why; attach vx0 ($m2)"
	# these two without the hand-off: their ACK program too, where it loads
	"$CG" syncookie attach veth0 --netns "$SC_C" --ports $SC_PORT --mode tc --set-sysctl \
		--no-handoff --quiet || why="$why; attach veth0"
	"$CG" syncookie attach d0 --netns $dead --ports $SC_PORT --mode tc --set-sysctl \
		--no-handoff --quiet || why="$why; attach d0"
	ip netns del $dead

	out=$("$CG" syncookie detach --all --netns "$SC_S" 2>&1) || why="$why; --netns rc"
	[ "$(grep -c "^csum-guard: detached the SYN responder from \(veth1\|vx0\) in netns $SC_S$" <<<"$out")" = 2 ] &&
		grep -q '^csum-guard: detached 2 SYN responders$' <<<"$out" || why="$why; --netns said [$(tr '\n' '|' <<<"$out")]"
	[ "$("$CG" syncookie status --netns "$SC_S" --json | jq length)" = 0 ] || why="$why; $SC_S still answering"
	[ "$("${sys[@]}")" = "$sys0" ] || why="$why; tcp_syncookies=$("${sys[@]}") after, was $sys0"
	[ "$("$CG" syncookie status veth0 --netns "$SC_C" --json | jq -r .mode)" = tc ] ||
		why="$why; --netns $SC_S took $SC_C's responder"

	out=$("$CG" syncookie detach --all 2>&1) || why="$why; --all rc"
	grep -q "^csum-guard: detached the SYN responder from veth0 in netns $SC_C$" <<<"$out" ||
		why="$why; --all said [$(tr '\n' '|' <<<"$out")]"
	[ ! -e /sys/fs/bpf/csum_guard_syncookie/$ino ] || why="$why; the deleted namespace's pins stay"
	out=$("$CG" syncookie detach --all 2>&1) && grep -q 'no device answering SYNs$' <<<"$out" ||
		why="$why; again: [$out]"
	sleep 0.3
	[ "$(sc_progs)" = "$p0" ] || why="$why; programs $(sc_progs), was $p0"
	[ -z "$(ip netns exec "$SC_S" nft list tables 2>/dev/null)" ] || why="$why; nft table left"
	[ -z "$(find /sys/fs/bpf/csum_guard_syncookie -mindepth 2 2>/dev/null)" ] ||
		why="$why; pins left: $(find /sys/fs/bpf/csum_guard_syncookie -mindepth 2 | head -2)"
	if [ -z "$why" ]; then
		pass "$t: --netns took its 2 responders (xdp-generic with the sysctl, $m2) and put the sysctl back; --all took the client's and a deleted namespace's pins (both --no-handoff: their ACK programs where they load); again: nothing; no pin, program or table left"
	else
		fail "$t:${why#;}"
	fi
	sc_down
}
cg_kernel_case syn_detach_all

# Bad input: one line on stderr, status 2 (usage) or 1 (refused), and no change.
case_syn_bad_input() {
	local t="syn-bad-input" before want args rc bad=0 n=0

	sc_up || { fail "$t: set-up"; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
	before=$(sc_snapshot)
	while IFS='|' read -r want args; do
		[ -n "$want" ] || continue
		n=$((n + 1))
		eval "set -- $args"
		"$CG" syncookie "$@" >"$TMPD/out" 2>"$TMPD/err"
		rc=$?
		if [ "$rc" != "$want" ] || [ "$(wc -l <"$TMPD/err")" != 1 ] || [ -s "$TMPD/out" ] ||
		   ! grep -q '^csum-guard: ' "$TMPD/err"; then
			bad=$((bad + 1))
			note "csum-guard syncookie $args: rc=$rc (want $want): $(head -2 "$TMPD/err" | tr '\n' ' ')"
		fi
	done <<-EOT
	2|
	2|frobnicate
	2|attach
	2|attach veth1 --netns $SC_S
	2|attach veth1 --netns $SC_S --ports 0
	2|attach veth1 --netns $SC_S --ports 65536
	2|attach veth1 --netns $SC_S --ports 80,
	2|attach veth1 --netns $SC_S --ports http
	2|attach veth1 --netns $SC_S --ports 80 --mode warp
	2|attach veth1 veth0 --netns $SC_S --ports 80
	2|attach a/b --netns $SC_S --ports 80
	2|detach veth1 --ports 80 --netns $SC_S
	2|detach veth1 --set-sysctl --netns $SC_S
	2|status veth1 --mode xdp --netns $SC_S
	2|probe veth1
	2|attach veth1 --netns $SC_S --ports 80 --allow 10.0.0.0/33
	2|attach veth1 --netns $SC_S --ports 80 --allow 10.0.0.1,
	2|attach veth1 --netns $SC_S --ports 80 --allow fd09::zz
	2|detach veth1 --allow 10.0.0.1 --netns $SC_S
	2|attach veth1 --netns $SC_S --ports 80 --mode nft --no-handoff
	2|detach veth1 --no-handoff --netns $SC_S
	2|probe --netns $SC_S
	2|detach
	1|attach veth1 --netns $SC_S --ports 80 --no-handoff
	1|attach nosuch0 --netns $SC_S --ports 80 --set-sysctl
	1|attach veth1 --netns $CG_PFX-nosuchns --ports 80
	EOT
	if [ $bad = 0 ] && [ "$(sc_snapshot)" = "$before" ]; then
		pass "$t: $n bad invocations, one line each, status 2 or 1 (tcp_syncookies=1 without --set-sysctl refused for the listener's cookies), nothing changed"
	else
		fail "$t: $bad of $n misbehaved; state changed: $([ "$(sc_snapshot)" = "$before" ] && echo no || echo yes)"
	fi
	sc_down
}
cg_kernel_case syn_bad_input
