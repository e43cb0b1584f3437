#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# syncookie.sh - SYN-ACKs per second under a SYN flood: the responder
# (`csum-guard syncookie`, native XDP) against the stack alone with
# cookies forced (net.ipv4.tcp_syncookies=2), SYNs with timestamps, so both
# answer with the full set of options, under tcp_timestamps=2 and 1. The
# responder as attach makes it by default: raw cookies through its nft
# tables (6.0+, the namespace at tcp_syncookies=1; SYNPROXY decodes the
# options under 1 and 2); where the kernel has no raw cookies, the
# listener's (tcp_syncookies=2): under 2 only, or under 1 with
# --no-handoff where the ACK program loads (6.9+).
#
#   netns $CLI (the flood)                     netns $SRV (the server)
#   veth0 10.9.0.1/24  ------------------------ veth1 10.9.0.2/24
#   bench/synflood: random sources in           a listener on port 5300,
#   198.18.0.0/15 to 10.9.0.2:5300,              route 198.18.0.0/15 via
#   counts what veth0 receives back             10.9.0.1 (neighbour fixed)
#
# Both ends of the veth run an XDP program in both configurations (xdp-pass
# on veth0: native XDP_TX toward it needs its NAPI; on veth1 the responder,
# or xdp-pass for the stack alone), so the two differ only in who answers.
# Configurations alternate from round to round. SC_SECONDS (3) per run.
set -u
. "$(dirname "$0")/lib.sh"

SC_SECONDS=${SC_SECONDS:-3}
CLI=$PFX-cli
SRV=$PFX-srv
PORT=5300
XDP_PASS_OBJ=$BUILD/tests/xdp-pass.bpf.o
LISTENER=

cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	[ -e "/run/netns/$SRV" ] && "$CG" syncookie detach veth1 --netns "$SRV" --quiet 2>/dev/null
	netns_del "$CLI"
	netns_del "$SRV"
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for f in "$BB/synflood" "$XDP_PASS_OBJ" "$BUILD/tests/cg-stream"; do
	[ -e "$f" ] || die "$f missing: run make all bench-tools"
done

topo_up() {
	ip netns add "$CLI" && ip netns add "$SRV" || return 1
	ip -n "$CLI" link set lo up
	ip -n "$SRV" link set lo up
	ip -n "$CLI" link add veth0 type veth peer name veth1 netns "$SRV" || return 1
	ip -n "$CLI" addr add 10.9.0.1/24 dev veth0
	ip -n "$SRV" addr add 10.9.0.2/24 dev veth1
	ip -n "$CLI" link set veth0 up
	ip -n "$SRV" link set veth1 up
	ip -n "$SRV" route add 198.18.0.0/15 via 10.9.0.1 || return 1
	ip -n "$SRV" neigh replace 10.9.0.1 dev veth1 nud permanent lladdr "$(mac "$CLI" veth0)"
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_timestamps=2 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.veth1.rp_filter=0 net.core.somaxconn=4096
	ip -n "$CLI" link set dev veth0 xdpdrv obj "$XDP_PASS_OBJ" sec xdp || return 1
}

mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p'; }

# one_run ROUND CONFIG: "ROUND CONFIG synack_pps sent_pps" into raw.
# CONFIG: stack, responder (tcp_timestamps 2); stack1, responder1 (1)
one_run() {
	local out dec

	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_timestamps=$([[ $2 == *1 ]] && echo 1 || echo 2) \
		net.ipv4.tcp_syncookies=$([ "$RAW" = true ] && [ "${2#responder}" != "$2" ] && echo 1 || echo 2)
	if [ "${2#responder}" != "$2" ]; then
		# with the tables (raw cookies, or the listener's under 2), else --no-handoff
		"$CG" syncookie attach veth1 --netns "$SRV" --ports $PORT --mode xdp --quiet \
			$([ "$RAW" != true ] && [ "$2" = responder1 ] && echo --no-handoff) ||
			die "cannot attach the responder"
		dec=$([ "$RAW" = true ] && echo synproxy || { [ "$2" = responder1 ] && echo program; } || echo kernel)
		[ "$("$CG" syncookie status veth1 --netns "$SRV" --json | jq -r .options.decoder)" = "$dec" ] ||
			die "the options are not decoded by $dec: $("$CG" syncookie status veth1 --netns "$SRV")"
	else
		ip -n "$SRV" link set dev veth1 xdpdrv obj "$XDP_PASS_OBJ" sec xdp ||
			die "cannot attach xdp-pass"
	fi
	out=$("$BB/synflood" --netns "$CLI" --dev veth0 --dst-mac "$(mac "$SRV" veth1)" \
		--dst 10.9.0.2 --port $PORT --seconds "$SC_SECONDS" --ts) || die "synflood failed"
	if [ "${2#responder}" != "$2" ]; then
		"$CG" syncookie status veth1 --netns "$SRV" --json | jq -r .counters.synack >>"$TMPD/synack"
		"$CG" syncookie detach veth1 --netns "$SRV" --quiet || die "cannot detach"
	else
		ip -n "$SRV" link set dev veth1 xdpdrv off
	fi
	echo "$1 $2 $(sed -n 's/.*sent_pps=\([0-9]*\) synack_pps=\([0-9]*\).*/\2 \1/p' <<<"$out")" >>"$TMPD/raw"
	note "syncookie: round $1 $2: $out"
}

topo_up || die "cannot build the veth topology"
rm -f "$TMPD/ready"
"$BUILD/tests/cg-stream" --netns "$SRV" --listen 10.9.0.2 --port $PORT --timeout 3600 \
	--ready-file "$TMPD/ready" >/dev/null 2>&1 &
LISTENER=$!
for i in $(seq 100); do [ -e "$TMPD/ready" ] && break; sleep 0.05; done

CONFIGS="stack responder"
probe=$("$CG" syncookie probe --json)
RAW=$(jq -r .raw_cookies <<<"$probe")
command -v nft >/dev/null || RAW=false
[ "$RAW" = true ] || [ "$(jq -r .ack_program <<<"$probe")" = true ] &&
	CONFIGS="$CONFIGS stack1 responder1"
t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	for c in $(rotate "$r" $CONFIGS); do
		one_run "$r" "$c"
	done
done
elapsed=$(($(date +%s) - t0))

if [ "$RAW" = true ]; then
	cookies="raw cookies, nft tables, tcp_syncookies=1"
	cookies1=$cookies
else
	cookies="the listener's cookies, nft tables, tcp_syncookies=2"
	cookies1="the listener's cookies, --no-handoff (the ACK program's timestamps), tcp_syncookies=2"
fi
read -r stack _ <<<"$(col "$TMPD/raw" stack | stats3)"
read -r resp _ <<<"$(col "$TMPD/raw" responder | stats3)"
read -r stack1 _ <<<"$(col "$TMPD/raw" stack1 | stats3)"
read -r resp1 _ <<<"$(col "$TMPD/raw" responder1 | stats3)"
{
	echo "## SYN-ACKs per second under a SYN flood: responder (XDP) vs the stack"
	echo
	echo "| configuration | SYN-ACK/s (median) | min–max | SYNs offered/s (median) | ratio to the stack (same tcp_timestamps) |"
	echo "|---|---:|---:|---:|---:|"
	for c in $CONFIGS; do
		read -r m lo hi <<<"$(col "$TMPD/raw" "$c" | stats3)"
		read -r o _ <<<"$(col "$TMPD/raw" "$c" 2 | stats3)"
		case $c in
		stack) label="stack alone, tcp_syncookies=2, tcp_timestamps=2" ;;
		responder) label="responder, native XDP, tcp_timestamps=2, $cookies" ;;
		stack1) label="stack alone, tcp_syncookies=2, tcp_timestamps=1" ;;
		responder1) label="responder, native XDP, tcp_timestamps=1, $cookies1" ;;
		esac
		echo "| $label | **$(fmt 0 "$m")** | $(fmt 0 "$lo")–$(fmt 0 "$hi") |" \
			"$(fmt 0 "$o") | $(ratio "$m" "$([[ $c == *1 ]] && echo "$stack1" || echo "$stack")") |"
	done
	echo
	echo "Responder / stack: **$(ratio "$resp" "$stack")x** under tcp_timestamps=2$(
		[ -n "$resp1" ] && [ "$resp1" != nan ] &&
		echo ", **$(ratio "$resp1" "$stack1")x** under 1") (ratios of medians; goal ≥ 1.4x)." \
		"The responder's own synack counter over its runs: $(awk '{ s += $1 } END { print s + 0 }' "$TMPD/synack")."
	echo
	echo "Method: \`bench/synflood\` in one netns writes SYN frames (random sources in" \
		"198.18.0.0/15, random ports; options as Linux sends them: MSS, SACK-permitted," \
		"timestamp, window scale) through packet sockets, one thread per" \
		"CPU, for ${SC_SECONDS}s into a veth whose peer, in the server's netns, has a" \
		"listener on port $PORT, tcp_timestamps=2, or 1 for the last two rows, and" \
		"tcp_syncookies as each row says (so both answer with timestamp, SACK-permitted and window scale:" \
		"40-byte TCP headers); the SYN-ACKs that come back are" \
		"counted by veth0's receive counter (the flood is its only traffic). Both veth" \
		"ends run XDP in every configuration (xdp-pass on veth0; on veth1 the responder," \
		"\`csum-guard syncookie attach veth1 --mode xdp\` (as each row says)," \
		"or xdp-pass). The flood and" \
		"both stacks share this machine's CPUs (a veth runs its peer's receive on the" \
		"sending CPU), so the figures are what the whole box answers. $RUNS rounds," \
		"configurations alternating (who goes first alternates), medians. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-run data (round configuration synack/s offered/s)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result syncookie
