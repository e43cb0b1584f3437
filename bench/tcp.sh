#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# tcp.sh - legitimate TCP throughput through a guarded device: what the
# guard takes from real traffic that uses checksum offload.
#
#   netns $NEAR                          netns $FAR
#   +---------------------------+        +------------------------------+
#   | tcpbulk client            |        | tcpbulk server               |
#   | veth0 10.2.0.1/24 --------+--------+-- veth1 10.2.0.2/24          |
#   | TX checksum offload on    |  veth  |   [guard at ingress: tcx]    |
#   +---------------------------+        +------------------------------+
#
# With TX checksum offload on veth0 the peer's ingress sees every segment
# still CHECKSUM_PARTIAL (TSO/GSO super-packets included), so the guard
# reads each one's IPv4 header and passes it. Guarded and unguarded runs
# alternate; the guard must drop nothing.
set -u
. "$(dirname "$0")/lib.sh"

NEAR=$PFX-near
FAR=$PFX-far
TCP_SECONDS=${TCP_SECONDS:-3}
PORT=5201
GUARDED=0

cleanup() {
	[ "$GUARDED" = 1 ] && "$CG" detach veth1 --netns "$FAR" --quiet 2>/dev/null
	[ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null
	netns_del "$NEAR"
	netns_del "$FAR"
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

topo_up() {
	ip netns add "$NEAR" && ip netns add "$FAR" || return 1
	ip -n "$NEAR" link set lo up
	ip -n "$FAR" link set lo up
	ip -n "$NEAR" link add veth0 type veth peer name veth1 netns "$FAR" || return 1
	ip -n "$NEAR" addr add 10.2.0.1/24 dev veth0
	ip -n "$FAR" addr add 10.2.0.2/24 dev veth1
	ip -n "$NEAR" link set veth0 up
	ip -n "$FAR" link set veth1 up
}

# tx-checksumming of veth0, "on" or "off" (veths default to on)
tx_csum() {
	ip netns exec "$NEAR" ethtool -k veth0 2>/dev/null |
		sed -n 's/^tx-checksumming: \([a-z]*\).*/\1/p'
}

# one_run ROUND CONFIG: a server in $FAR, the client in $NEAR; records the
# server's MB/s, and for a guarded run the guard's counters
one_run() {
	local r=$1 c=$2 out mbps

	if [ "$c" = guarded ]; then
		"$CG" attach veth1 --netns "$FAR" --backend bpf --quiet ||
			die "cannot attach the guard to veth1"
		GUARDED=1
	fi
	"$BB/tcpbulk" server --netns "$FAR" --port $PORT >"$TMPD/server" 2>&1 &
	SERVER_PID=$!
	"$BB/tcpbulk" client --netns "$NEAR" --addr 10.2.0.2 --port $PORT \
		--seconds "$TCP_SECONDS" >"$TMPD/client" 2>&1 ||
		die "tcpbulk client failed: $(cat "$TMPD/client")"
	wait "$SERVER_PID" || die "tcpbulk server failed: $(cat "$TMPD/server")"
	SERVER_PID=
	mbps=$(sed -n 's/.*mbps=\([0-9.]*\).*/\1/p' "$TMPD/server")
	[ -n "$mbps" ] || die "no result from tcpbulk server"
	echo "$r $c $mbps" >>"$TMPD/raw"
	if [ "$c" = guarded ]; then
		out=$("$CG" status veth1 --netns "$FAR" --json) || die "csum-guard status failed"
		jq -r '"\(.mode) \(.dropped) \(.dropped_unreadable)"' <<<"$out" >>"$TMPD/counters"
		"$CG" detach veth1 --netns "$FAR" --quiet || die "cannot detach the guard"
		GUARDED=0
	fi
}

topo_up || die "cannot build the veth topology"
txcsum=$(tx_csum)
[ "$txcsum" = on ] || die "veth0 TX checksum offload is '${txcsum:-unknown}', want on"

t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	for c in $(rotate "$r" unguarded guarded); do
		one_run "$r" "$c"
	done
	note "tcp: round $r/$RUNS done"
done
elapsed=$(($(date +%s) - t0))

mode=$(awk '{ print $1 }' "$TMPD/counters" | sort -u | tr '\n' ' ')
dropped=$(awk '{ s += $2 } END { print s + 0 }' "$TMPD/counters")
unreadable=$(awk '{ s += $3 } END { print s + 0 }' "$TMPD/counters")
read -r base _ <<<"$(col "$TMPD/raw" unguarded | stats3)"
{
	echo "## Legitimate TCP throughput through a guarded veth (TX checksum offload on)"
	echo
	echo "| configuration | MB/s (median) | min–max | ratio to unguarded |"
	echo "|---|---:|---:|---:|"
	for c in unguarded guarded; do
		read -r m lo hi <<<"$(col "$TMPD/raw" "$c" | stats3)"
		echo "| $c | **$(fmt 0 "$m")** | $(fmt 0 "$lo")–$(fmt 0 "$hi") | $(ratio "$m" "$base") |"
	done
	read -r d dlo dhi <<<"$(pairdiff "$TMPD/raw" guarded unguarded | stats3)"
	echo
	echo "guarded − unguarded, per-round pairs: median $(fmt 0 "$d") MB/s" \
		"(range $(fmt 0 "$dlo") to $(fmt 0 "$dhi"))." \
		"Guard counters over all guarded runs (\`csum-guard status --json\`):" \
		"dropped=$dropped, dropped_unreadable=$unreadable$(
			[ "$dropped$unreadable" = 00 ] && echo " (as required)" ||
				echo " — **legitimate traffic was dropped**")."
	echo
	echo "Method: two netns joined by a veth pair, TX checksum offload on (veth0" \
		"tx-checksumming: $txcsum; TSO/GSO as the veth defaults), so segments reach" \
		"veth1's ingress CHECKSUM_PARTIAL; guarded runs attach \`csum-guard attach veth1" \
		"--netns FAR\` (mode: ${mode% }) before and detach after. \`bench/tcpbulk\`: one" \
		"connection, the client writes 256 KiB buffers for ${TCP_SECONDS}s, the server" \
		"reads to EOF and reports bytes / time from its first byte (MB = 10^6 bytes)." \
		"$RUNS rounds, guarded and unguarded alternating (who goes first alternates)," \
		"medians, ratio of medians. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-run data (round configuration MB/s)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result tcp-throughput

[ "$dropped$unreadable" = 00 ] || die "the guard dropped legitimate TCP segments"
