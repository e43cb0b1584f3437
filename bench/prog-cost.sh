#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# prog-cost.sh - what the guard program itself costs per packet, from
# kernel.bpf_stats_enabled (run_time_ns / run_cnt), against the empty
# program, with real frames through a tap (topology: lib.sh).
#
# Each program runs alone on tap0's tcx hook, as the guard does in
# service: the empty program, the guard, and the guard of $BEFORE_REV
# (attach --object) for the before/after of the last optimisation. Each
# round attaches them one after the other in a rotated order and writes the
# same frames through each; a program's figure is its difference to the
# empty program within the round, and the table gives the median over
# rounds. The stats clock costs more than any of the programs and wanders
# from run to run, so the absolute figures mean little.
# The kinds of frame:
#   partial  CHECKSUM_PARTIAL with a legitimate csum_start (the guard reads
#            the IPv4 header and passes it)
#   none     not partial (the guard's early exit)
#   bad      csum_start inside the IPv4 header (the guard counts and drops it)
set -u
. "$(dirname "$0")/lib.sh"

PACKETS=${PACKETS:-1000000}
WARMUP=10000		# tapwrite's default, counted by the stats too
KINDS="partial none bad"
STATS_WAS=

cleanup() {
	[ -n "$STATS_WAS" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	tap_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM

guard_dropped() { "$CG" status tap0 --netns "$VM" --json | jq -r .dropped; }

# measure ROUND CONF KIND: write the frames, record the program's ns per run
# as "ROUND CONF NS" in raw.KIND; check it ran once per frame and that a
# guard dropped exactly the bad frames
measure() {
	local r=$1 conf=$2 kind=$3 t0 n0 t1 n1 d0 d1 want=$((PACKETS + WARMUP)) drops=0

	[ "$conf" != empty-tcx ] && d0=$(guard_dropped)
	read -r t0 n0 <<<"$(prog_stats "$HOOK_PROG")"
	tapwrite "$kind" "$PACKETS" >/dev/null || die "tapwrite failed ($conf, $kind)"
	read -r t1 n1 <<<"$(prog_stats "$HOOK_PROG")"
	[ $((n1 - n0)) = "$want" ] || die "$conf $kind: the program ran $((n1 - n0)) times for $want frames"
	if [ "$conf" != empty-tcx ]; then
		d1=$(guard_dropped)
		[ "$kind" = bad ] && drops=$want
		[ $((d1 - d0)) = "$drops" ] ||
			die "$conf $kind: the guard dropped $((d1 - d0)) of $want frames"
	fi
	awk -v r="$r" -v c="$conf" -v t=$((t1 - t0)) -v n="$want" \
		'BEGIN { printf "%s %s %.3f\n", r, c, t / n }' >>"$TMPD/raw.$kind"
}

CONFS="empty-tcx guard-tcx"
BEFORE=
if before_build; then
	BEFORE=1
	CONFS="$CONFS before-tcx"
else
	note "prog-cost: no before/after: $BEFORE_WHY"
fi

tap_topo_up || die "cannot build the tap topology"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1 || die "cannot enable kernel.bpf_stats_enabled"

t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	for conf in $(rotate "$r" $CONFS); do
		hook_on "$conf" || die "cannot attach $conf"
		for kind in $KINDS; do
			measure "$r" "$conf" "$kind"
		done
		hook_off "$conf" || die "cannot detach $conf"
	done
	note "prog-cost: round $r/$RUNS done"
done
elapsed=$(($(date +%s) - t0))

# "median (min to max)" of per-round A − B for KIND: diff KIND A B
diff_cell() {
	local -a d
	read -r -a d <<<"$(pairdiff "$TMPD/raw.$1" "$2" "$3" | stats3)"
	echo "**$(fmt 1 "${d[0]}")** ($(fmt 1 "${d[1]}") to $(fmt 1 "${d[2]}"))"
}

# median ns/run of CONF for KIND
med() {
	local m
	read -r m _ <<<"$(col "$TMPD/raw.$1" "$2" | stats3)"
	fmt 1 "$m"
}

# row LABEL KIND
row() {
	local line="| $1 | $(med "$2" empty-tcx) | $(med "$2" guard-tcx) | $(diff_cell "$2" guard-tcx empty-tcx) |"

	if [ -n "$BEFORE" ]; then
		line="$line $(med "$2" before-tcx) | $(diff_cell "$2" before-tcx empty-tcx) |"
		line="$line $(diff_cell "$2" guard-tcx before-tcx) |"
	fi
	echo "$line"
}

{
	echo "## Program cost: guard vs empty program (kernel.bpf_stats_enabled, real frames)"
	echo
	if [ -n "$BEFORE" ]; then
		echo "| frames | empty, ns/run | guard, ns/run | **guard − empty**, ns | guard of $BEFORE_REV, ns/run | $BEFORE_REV − empty, ns | guard − $BEFORE_REV, ns |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
	else
		echo "| frames | empty, ns/run | guard, ns/run | **guard − empty**, ns |"
		echo "|---|---:|---:|---:|"
	fi
	row "CHECKSUM_PARTIAL, legitimate csum_start (34)" partial
	row "not partial (no NEEDS_CSUM)" none
	row "bad csum_start (20): the guard counts and drops" bad
	echo
	echo "Differences: the median over rounds of the difference within each round, with its range."
	if [ -n "$BEFORE" ]; then
		echo "The guard of $BEFORE_REV is the program before its entry was made stack-free" \
			"(one callee-saved register instead of four, slow paths out of line, BPF ISA v3)," \
			"built from git by its own Makefile and attached with \`attach --object\`."
	else
		echo "No before/after rows: $BEFORE_WHY."
	fi
	echo
	echo "Method: run_time_ns / run_cnt from bpf prog info (kernel.bpf_stats_enabled=1)" \
		"over $PACKETS frames per measurement (64-byte UDP payload; \`bench/tapwrite\`," \
		"pinned to CPU $BENCH_CPU, writes them into a vnet_hdr tap whose IPv4 route is a" \
		"blackhole). Each program runs alone on tap0's tcx hook, attached as in service" \
		"(\`csum-guard attach --mode tcx\`; \`bench/empty.bpf.c\` by \`bench/attach-empty\`);" \
		"each of $RUNS rounds measures every program on every kind of frame, the programs" \
		"in an order rotated from round to round. Absolute figures are mostly the stats clock." \
		"Checked: each program ran once per frame, and a guard dropped exactly the bad frames" \
		"and nothing else. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-measurement data (kind round program ns)</summary>"
	echo
	echo '```'
	for kind in $KINDS; do
		sed "s/^/$kind /" "$TMPD/raw.$kind"
	done
	echo '```'
	echo "</details>"
} | write_result prog-cost
