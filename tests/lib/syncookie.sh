# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# syncookie.sh - what the SYN-cookie cases share (tests/cases/80-sc-*.sh to
# 84-sc-*.sh): the two namespaces, the responder on and off, its counters
# and the kernel's, SYNs and connections through it.
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
	netns_new "$SC_C" "$SC_S" &&
		veth_pair "$SC_C" veth0 "$SC_S" veth1 10.9.0.1/24 10.9.0.2/24 fd09::1/64 fd09::2/64 || return 1
	ip netns exec "$SC_C" ethtool -K veth0 tx off >/dev/null 2>&1 || return 1
	SC_MAC=$(link_mac "$SC_S" veth1)
}

# sc_second_dev: a second device in the server's namespace for a second
# responder, vx0 (up; its peer vx1 down, in the same namespace)
sc_second_dev() {
	ip -n "$SC_S" link add vx0 type veth peer name vx1 && ip -n "$SC_S" link set vx0 up
}

sc_on() { "$CG" syncookie attach veth1 --netns "$SC_S" --quiet "$@"; }

# sc_hook_prog: the name of the responder's program on veth1's receive, as
# the kernel has it (XDP from ip link, tcx from cg-hooks, clsact from tc)
sc_hook_prog() {
	{
		ip -n "$SC_S" -j link show veth1 | jq -r '.[0].xdp.prog.name // empty'
		ip netns exec "$SC_S" "$HOOKS" veth1 2>/dev/null | awk '$1 == "tcx_ingress" { print $4 }'
		ip netns exec "$SC_S" tc filter show dev veth1 ingress 2>/dev/null |
			sed -n 's/.* name \([^ ]*\) tag .*/\1/p'
	} | grep '^syncookie_' | grep -v '^syncookie_ack' | head -1
}

# sc_want_prog MODE: the program attach should pick for MODE: syncookie_xdp
# or syncookie_tc (the listener read through bpf_rdonly_cast) where the
# kernel's BTF has that kfunc, else the _h one (bpf_skc_to_tcp_sock); the
# kernel's BTF asked with bpftool, not the loader
sc_want_prog() {
	local p=syncookie_xdp

	[ "$1" = tc ] && p=syncookie_tc
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "FUNC 'bpf_rdonly_cast'" ||
		p=${p}_h
	echo "$p"
}
# sc_pin_dir: the bpffs directory of the responder of veth1 in $SC_S
sc_pin_dir() {
	echo "/sys/fs/bpf/csum_guard_syncookie/$(stat -L -c %i "/run/netns/$SC_S")/$(ip -n "$SC_S" -j link show veth1 | jq -r '.[0].ifindex')"
}
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

# expect_connect TAG ADDR [NS]: connect ADDR [NS] carries every byte, else
# TAG and what both ends said are recorded (tests/lib/expect.sh)
expect_connect() {
	local tag=$1
	shift
	connect "$@" && return 0
	unexpected "$tag" "expected $SC_BYTES bytes through, saw the transfer fail: $(tr '\n' ' ' <"$TMPD/sc.listen") $(tr '\n' ' ' <"$TMPD/sc.conn")"
}

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

# In make test's guests (CG_DEPTH=quick under TCG) the addressing,
# forwarding, MSS and allow-list cases run on the host only: each takes
# minutes there, which the guest's time budget does not have. make
# test-matrix runs them on every kernel.
sc_quick_guest_skip() {
	[ -n "${CG_GUEST:-}" ] && [ "$CG_DEPTH" = quick ] || return 1
	skip "$1: on the host in make test (minutes under TCG); make test-matrix runs it on every kernel"
}

