# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 81-sc-options.sh - what the responder's SYN-ACKs negotiate: the MSS,
# timestamps, SACK, window scaling and ECN, as the stack would.
# The namespaces, the helpers and the picture: tests/lib/syncookie.sh.

# The SYN-ACK advertises this host's MSS, as the stack does: with the
# server's MTU at 1400, 1360 for IPv4 and 1340 for IPv6, where the client
# offers 1460; a listener with TCP_MAXSEG 1000 gets no more than 1000. And
# an upload through the responder arrives whole (with the client's MSS
# echoed, the client's full-size segments would not fit the server's MTU).
SC_SEG=5304		# protected, a listener with TCP_MAXSEG 1000
SC_ANY=5305		# protected, a listener without
case_syn_mss() {
	local t="syn-mss" m py addr r mss c0 c1 k=0

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
			unexpected "attach $m" "$(head -1 "$TMPD/err")"
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
					expect_eq "$m $addr port $port: the MSS advertised, as the stack's ($r)" \
						"${base[$addr/$port]}" "$mss"
				elif [ $addr = 10.9.0.2 ]; then
					[ "$mss" -ge 536 ] && [ "$mss" -le 1000 ] ||
						unexpected "$m $addr TCP_MAXSEG 1000" "expected an MSS of 536 to 1000, saw $r"
				fi
			done
			[ $m = base ] || c0=$(sc_counters)
			expect_connect "$m $addr: upload" $addr
			[ $m = base ] && continue
			c1=$(sc_counters)
			set -- $c0 $c1
			expect_counter "$m $addr: the program's SYN-ACKs to the upload" 1 $1 $4
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	kill $py 2>/dev/null
	wait $py 2>/dev/null
	r="${base[10.9.0.2/$SC_ANY]}/${base[fd09::2/$SC_ANY]}/${base[10.9.0.2/$SC_SEG]}/${base[fd09::2/$SC_SEG]}"
	expect_eq "the MSS the stack alone advertised (IPv4/IPv6 any, IPv4/IPv6 TCP_MAXSEG)" \
		1360/1340/1000/1000 "$r"
	expect_verdict "$t" "MTU 1400: the program advertises 1360 (IPv4) and 1340 (IPv6) as the stack does, to a TCP_MAXSEG 1000 listener 1000 as the stack (where the kernel has BTF, else at most 1000 for IPv4); $k uploads of $SC_BYTES bytes through it intact"
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
# program's connection counter +1). Each a named check (expect_*).
sc_opt_round() {
	local label=$1 dec=$2 ws=$3 addr r cli srv c0 c1 a0 a1 recv0 sp0 sent0

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
		expect_counter "$label, $addr: synack" 1 $1 $4
		expect_eq "$label, $addr: the cookie taken" ok "$(sc_cookie_took $sent0 $recv0 $sp0 $dec)"
		[ "$dec" != program ] || expect_counter "$label, $addr: the ACK program's connections" 1 $a0 $a1
		expect_glob "$label, $addr: the client's TCP_INFO" "ts=1 sack=1 ecn=0 ws=$ws,* bytes=$SC_OPT_BYTES*" "$cli"
		expect_glob "$label, $addr: the server's TCP_INFO" "ts=1 sack=1 ecn=0 ws=*,$ws bytes=$SC_OPT_BYTES*" "$srv"
		expect_eq "$label, $addr: the server's window scales (snd,rcv), the client's swapped (client '$cli')" \
			"$(echo "$cli" | sed 's/.*ws=\([0-9]*\),\([0-9]*\).*/\2,\1/')" \
			"$(echo "$srv" | sed 's/.*ws=\([0-9]*,[0-9]*\).*/\1/')"
		expect_gt "$label, $addr: the server's largest window" 65535 "${cli##*wnd=}"
	done
}

# the ACK program's connections (status --json .counters.ack)
sc_acks() {
	"$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r '.counters.ack'
}

# sc_mss_only SIDE: IPv4 and IPv6 uploads (sc_opt_connect) that must get
# the MSS option alone (no timestamps, SACK or window scaling) from one
# SYN-ACK of the program's each; each a named check (expect_*).
sc_mss_only() {
	local side=$1 addr c0 c1 r

	for addr in 10.9.0.2 fd09::2; do
		c0=$(sc_counters)
		r=$(sc_opt_connect $addr)
		c1=$(sc_counters)
		set -- $c0 $c1
		expect_counter "MSS only ($side), $addr: synack" 1 $1 $4
		expect_glob "MSS only ($side), $addr: client|server TCP_INFO" \
			"ts=0 sack=0 ecn=0 ws=none bytes=$SC_OPT_BYTES*|ts=0 sack=0 ecn=0 ws=none bytes=$SC_OPT_BYTES*" "$r"
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
	local mode=$1 t="syn-options [$1]" r ws rmem ack raw st ws1 tables dec a0
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
	expect_gt "status's window scale" 0 "$ws"
	dec=$([ "$raw" = true ] && echo synproxy || echo kernel)
	expect_eq "tcp_timestamps 2: status's decoder" $dec "$(jq -r '.options.decoder' <<<"$st")"
	expect_eq "status's cookies (probe's raw_cookies $raw)" "$([ "$raw" = true ] && echo raw || echo listener)" \
		"$(jq -r .cookies <<<"$st")"
	sc_opt_round "tcp_timestamps 2" $dec "$ws"
	# ECN (RFC 3168) asked by the client (tcp_ecn 1), allowed by the
	# server (its default 2): in the timestamp's bit 5 and ECE on the SYN-ACK
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_ecn=1
	r=$(sc_opt_connect 10.9.0.2)
	expect_glob "ECN client: client|server TCP_INFO" \
		"ts=1 sack=1 ecn=1 ws=* bytes=$SC_OPT_BYTES*|ts=1 sack=1 ecn=1 ws=* bytes=$SC_OPT_BYTES*" "$r"
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_ecn=2
	# a listener with SO_RCVBUF gets a window scale of its own from the
	# kernel, which the program does not work out: timestamps and SACK, no
	# window scaling (where the kernel has BTF; else never any)
	r=$(SC_RCVBUF=65536 sc_opt_connect 10.9.0.2)
	expect_glob "SO_RCVBUF listener: client|server TCP_INFO" \
		"ts=1 sack=1 ecn=0 ws=none bytes=$SC_OPT_BYTES*|ts=1 sack=1 ecn=0 ws=none bytes=$SC_OPT_BYTES*" "$r"
	# tcp_timestamps 1 on the server, attach again: with the hand-off
	# tables and raw cookies, SYNPROXY decodes them; with the listener's
	# cookies the MSS option alone, SYNPROXY's listener half would misread
	# the options (sc_ack_decodes)
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_timestamps=1
	"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT >"$TMPD/out" 2>&1
	tables=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)
	if [ "$tables" = ok ] && [ "$raw" = true ]; then
		expect_grep "attach again under tcp_timestamps 1 with the tables" \
			"timestamps.*(SYNPROXY decodes them" "$TMPD/out"
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
			expect_counter "tables flushed, client without timestamps: the ACK program's connections" \
				2 $a0 $(sc_acks)
		fi
	elif [ "$tables" = ok ]; then
		expect_grep "attach again under tcp_timestamps 1 with the tables" \
			"MSS only (tcp_timestamps is not 2; under 1 the listener's half" "$TMPD/out"
		sc_mss_only "tcp_timestamps 1, hand-off tables"
	fi
	# --no-handoff (the listener's cookies, tcp_syncookies 2): the ACK
	# program's timestamps where the kernel has it, also after nft flush
	# ruleset (nothing of ours to flush); else the MSS option alone
	sc_off
	expect_ok "attach --no-handoff" sc_on --ports $SC_PORT --mode "$mode" --no-handoff --set-sysctl
	# again, as an operator would: the same, and what it carries
	"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT --no-handoff >"$TMPD/out" 2>&1
	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	expect_eq "--no-handoff: status's tables" off "$(jq -r .tables <<<"$st")"
	if [ "$ack" = true ]; then
		expect_grep "--no-handoff under tcp_timestamps 1" "timestamps.*(the ACK program decodes them)" "$TMPD/out"
		ws1=$(jq -r '.options.window_scale' <<<"$st")
		expect_eq "--no-handoff: status's decoder" program "$(jq -r '.options.decoder' <<<"$st")"
		expect_eq "--no-handoff: status's window scale" "$ws" "$ws1"
		sc_opt_round "tcp_timestamps 1, --no-handoff" program "$ws"
		ip netns exec "$SC_S" nft flush ruleset
		sc_opt_round "tcp_timestamps 1, --no-handoff, nft flush ruleset" program "$ws"
	else
		expect_grep "--no-handoff under tcp_timestamps 1" "MSS only" "$TMPD/out"
		sc_mss_only "tcp_timestamps 1, --no-handoff, no ACK program"
	fi
	# the old behaviour: a client without timestamps
	ip netns exec "$SC_C" sysctl -qw net.ipv4.tcp_timestamps=0
	sc_mss_only "client without timestamps"
	sc_detach_mode "$mode"
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
	expect_verdict "$t" "tcp_timestamps 2 (decoder $dec): IPv4 and IPv6 clients get timestamps, SACK and window scale $ws (both ends agree), the server's window above 64 KiB ($delay); $st; ECN where the client asks; an SO_RCVBUF listener without window scaling; a client without timestamps gets the MSS option alone; $SC_OPT_BYTES bytes intact each time"
	sc_down
}
cg_kernel_case syn_options xdp-generic
cg_kernel_case syn_options tc
cg_kernel_case syn_options xdp
