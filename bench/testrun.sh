#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# testrun.sh - BPF_PROG_TEST_RUN: the guard against the empty program.
#
# BPF_PROG_TEST_RUN hands the program an skb with ip_summed ==
# CHECKSUM_NONE, so this measures the guard's not-partial path only (the
# partial and drop paths need real frames: prog-cost.sh). No namespace, no
# attachment: the programs are loaded, run and unloaded by testrun itself.
# With the guard of $BEFORE_REV (lib.sh) it gives the before/after too.
set -u
. "$(dirname "$0")/lib.sh"

REPEAT=${REPEAT:-1000000}

cleanup() { rm -rf "$TMPD"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

BEFORE_ARGS=()
if before_build; then
	BEFORE_ARGS=(--before "$BEFORE_OBJ")
else
	note "testrun: no before/after: $BEFORE_WHY"
fi
"$BB/testrun" --guard "$GUARD_OBJ" --empty "$EMPTY_OBJ" "${BEFORE_ARGS[@]}" --runs "$RUNS" \
	--repeat "$REPEAT" --cpu "$BENCH_CPU" >"$TMPD/out" || die "testrun failed"
# "ROUND PROG DURATION WALL"
sed -n 's/^run=\([0-9]*\) prog=\([a-z]*\) duration_ns=\([0-9]*\) wall_ns=\([0-9.]*\)$/\1 \2 \3 \4/p' \
	"$TMPD/out" >"$TMPD/raw"

# row LABEL STATS(duration) STATS(wall)
row() {
	local -a d w
	read -r -a d <<<"$2"
	read -r -a w <<<"$3"
	echo "| $1 | $(fmt 1 "${d[0]}") | $(fmt 0 "${d[1]}")–$(fmt 0 "${d[2]}") |" \
		"$(fmt 2 "${w[0]}") | $(fmt 2 "${w[1]}")–$(fmt 2 "${w[2]}") |"
}

{
	echo "## BPF_PROG_TEST_RUN, not-partial path: guard vs empty program"
	echo
	echo "| program | kernel duration, ns/run (median) | min–max | wall, ns/run (median) | min–max |"
	echo "|---|---:|---:|---:|---:|"
	row "empty" "$(col "$TMPD/raw" empty 1 | stats3)" "$(col "$TMPD/raw" empty 2 | stats3)"
	row "guard" "$(col "$TMPD/raw" guard 1 | stats3)" "$(col "$TMPD/raw" guard 2 | stats3)"
	row "**guard − empty** (per-run pairs)" \
		"$(pairdiff "$TMPD/raw" guard empty 1 | stats3)" \
		"$(pairdiff "$TMPD/raw" guard empty 2 | stats3)"
	if [ ${#BEFORE_ARGS[@]} -gt 0 ]; then
		row "guard of $BEFORE_REV" "$(col "$TMPD/raw" before 1 | stats3)" \
			"$(col "$TMPD/raw" before 2 | stats3)"
		row "$BEFORE_REV − empty (per-run pairs)" \
			"$(pairdiff "$TMPD/raw" before empty 1 | stats3)" \
			"$(pairdiff "$TMPD/raw" before empty 2 | stats3)"
		row "**guard − $BEFORE_REV** (per-run pairs)" \
			"$(pairdiff "$TMPD/raw" guard before 1 | stats3)" \
			"$(pairdiff "$TMPD/raw" guard before 2 | stats3)"
	fi
	echo
	echo "Method: \`bench/testrun\` loads \`build/csum_guard.bpf.o\` and \`bench/empty.bpf.c\`" \
		"and calls BPF_PROG_TEST_RUN with repeat=$REPEAT on one 64-byte Ethernet/IPv4/UDP" \
		"packet (the kernel makes it CHECKSUM_NONE: the guard's not-partial path)," \
		"$RUNS runs, the programs interleaved (who goes first rotates), pinned to CPU $BENCH_CPU." \
		"$([ ${#BEFORE_ARGS[@]} -gt 0 ] && echo "The guard of $BEFORE_REV (built from git by its own Makefile) is $BEFORE_WHAT." ||
			echo "No before/after rows: $BEFORE_WHY.")" \
		"Kernel duration: the kernel's mean per repetition, an integer," \
		"rescheduled time left out; wall: CLOCK_MONOTONIC around the call / repeat (sub-ns" \
		"resolution, but on a busy machine it also counts time other processes held the" \
		"CPU). The difference row is the median of the per-run differences."
	echo
	machine_line
} | write_result testrun
