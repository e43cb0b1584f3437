#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# prog-cost.sh - what the guard program itself costs per packet, from
# kernel.bpf_stats_enabled (run_time_ns / run_cnt), against the empty
# program, with real frames through a tap (topology: lib.sh). The programs:
# the empty one, the minimal one (bench/minimal.bpf.c: the simplest correct
# guard, IPv4 only, the anchor the guard is held to), the guard, and the
# guard of $BEFORE_REV for the before/after of the last optimisation. Two
# methods, in one run:
#
# chained  The programs sit on tap0's tcx hook together and every frame
#          runs them all, one after the other, so whatever slows one
#          measurement slows every program in it alike, and the
#          differences are steady. Whichever program runs first pays an
#          extra that belongs to none of them, so each round runs every
#          order of the programs and a program's figure is its mean over
#          them: each takes each position, and precedes each other
#          program, equally often.
# alone    Each program runs alone on the hook, as the guard does in
#          service: attached one after the other in an order rotated from
#          round to round, the same frames written through each. Closer to
#          service, noisier: the programs meet different moments of the
#          machine.
#
# A program's figure is its difference to the empty program within a
# round; the tables give the median over rounds and the range. The stats
# clock costs more than any of the programs and wanders from run to run, so
# the absolute figures mean little.
# The kinds of frame:
#   partial  CHECKSUM_PARTIAL with a legitimate csum_start (the guard reads
#            the IPv4 header and passes it)
#   none     not partial (the guard's early exit)
#   bad      csum_start inside the IPv4 header (the guard counts and drops
#            it; alone only, as a drop ends a chain)
set -u
. "$(dirname "$0")/lib.sh"

PACKETS=${PACKETS:-1000000}
# Chained measurements time every program on the same frames, so they need
# fewer of them to be steady.
CHAIN_PACKETS=${CHAIN_PACKETS:-$((PACKETS / 4))}
WARMUP=10000		# tapwrite's default, counted by the stats too
KINDS="partial none bad"
STATS_WAS=

cleanup() {
	[ -n "$STATS_WAS" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	rm -f "$PINDIR"/chain-*
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

	case $conf in guard-* | before-*) d0=$(guard_dropped) ;; esac
	read -r t0 n0 <<<"$(prog_stats "$HOOK_PROG")"
	tapwrite "$kind" "$PACKETS" >/dev/null || die "tapwrite failed ($conf, $kind)"
	read -r t1 n1 <<<"$(prog_stats "$HOOK_PROG")"
	[ $((n1 - n0)) = "$want" ] || die "$conf $kind: the program ran $((n1 - n0)) times for $want frames"
	if [ "${conf%%-*}" = guard ] || [ "${conf%%-*}" = before ]; then
		d1=$(guard_dropped)
		[ "$kind" = bad ] && drops=$want
		[ $((d1 - d0)) = "$drops" ] ||
			die "$conf $kind: the guard dropped $((d1 - d0)) of $want frames"
	fi
	awk -v r="$r" -v c="$conf" -v t=$((t1 - t0)) -v n="$want" \
		'BEGIN { printf "%s %s %.3f\n", r, c, t / n }' >>"$TMPD/raw.$kind"
}

# --- chained ---------------------------------------------------------------

declare -A CHAIN_OBJ=([empty]=$EMPTY_OBJ [minimal]=$MINIMAL_OBJ [guard]=$GUARD_OBJ
	[before]=$BEFORE_OBJ)
declare -A CHAIN_ID=()
CHAIN_KINDS="partial none"

# every order of the words given, one per line
orders() {
	local p q
	local -a rest

	if [ $# -le 1 ]; then
		echo "$*"
		return
	fi
	for p in "$@"; do
		rest=()
		for q in "$@"; do
			[ "$q" = "$p" ] || rest+=("$q")
		done
		orders "${rest[@]}" | sed "s/^/$p /"
	done
}

# The program ids on tap0's tcx ingress, in the order they run.
tcx_ids() {
	"$BB/attach-empty" list --netns "$VM" --dev tap0
}

# chain_on PROGRAM...: the programs on tap0's tcx hook, each appended behind
# the one before; checks that they run in that order
chain_on() {
	local p out want=

	mkdir -p "$PINDIR"
	for p in "$@"; do
		out=$("$BB/attach-empty" attach --netns "$VM" --dev tap0 --mode tcx \
			--obj "${CHAIN_OBJ[$p]}" --pin "$PINDIR/chain-$p") || return 1
		CHAIN_ID[$p]=${out#prog_id=}
		want="$want${want:+ }${CHAIN_ID[$p]}"
	done
	[ "$(tcx_ids)" = "$want" ] || die "chain $*: tap0 runs $(tcx_ids), not $want"
}

chain_off() {
	local p

	for p in $CHAIN; do
		"$BB/attach-empty" detach --netns "$VM" --dev tap0 --mode tcx \
			--pin "$PINDIR/chain-$p" || return 1
	done
	[ -z "$(tcx_ids)" ] || die "tap0 still runs $(tcx_ids) after the chain came off"
}

# measure_chain ROUND ORDER KIND: write the frames through the chain, record
# "ROUND ORDER NS..." in chain.KIND, one NS per program of $CHAIN in that
# order (ORDER with commas); check each program ran once per frame
measure_chain() {
	local r=$1 order=$2 kind=$3 p t n line want=$((CHAIN_PACKETS + WARMUP))
	local -A st=() sn=()

	for p in $CHAIN; do
		read -r t n <<<"$(prog_stats "${CHAIN_ID[$p]}")"
		st[$p]=$t sn[$p]=$n
	done
	tapwrite "$kind" "$CHAIN_PACKETS" >/dev/null || die "tapwrite failed (chain $order, $kind)"
	line="$r ${order// /,}"
	for p in $CHAIN; do
		read -r t n <<<"$(prog_stats "${CHAIN_ID[$p]}")"
		[ $((n - sn[$p])) = "$want" ] ||
			die "chain $order, $kind: $p ran $((n - sn[$p])) times for $want frames"
		line="$line $(awk -v t=$((t - st[$p])) -v n="$want" 'BEGIN { printf "%.3f", t / n }')"
	done
	echo "$line" >>"$TMPD/chain.$kind"
}

# the column of PROGRAM's figure in a chain.KIND line, after ROUND ORDER
chain_col() {
	local p i=1

	for p in $CHAIN; do
		[ "$p" = "$1" ] && { echo "$i"; return; }
		i=$((i + 1))
	done
	die "$1 is not in the chain"
}

# "median (min to max)" over rounds of A − B, each round's figure the mean
# over its orders: chain_cell KIND A B
chain_cell() {
	local -a d

	read -r -a d <<<"$(awk -v a=$((2 + $(chain_col "$2"))) -v b=$((2 + $(chain_col "$3"))) '
		{ s[$1] += $a - $b; n[$1]++ }
		END { for (r in s) printf "%.3f\n", s[r] / n[r] }' "$TMPD/chain.$1" | stats3)"
	echo "**$(fmt 1 "${d[0]}")** ($(fmt 1 "${d[1]}") to $(fmt 1 "${d[2]}"))"
}

# What running first rather than last costs each program, in KIND's chains:
# "empty +X, guard +Y, ..." (its mean when first minus its mean when last)
chain_first() {
	awk -v progs="$CHAIN" '
		BEGIN { np = split(progs, name, " ") }
		{
			k = split($2, ord, ",")
			for (i = 1; i <= np; i++) {
				if (ord[1] == name[i]) { f[i] += $(2 + i); nf[i]++ }
				if (ord[k] == name[i]) { l[i] += $(2 + i); nl[i]++ }
			}
		}
		END {
			for (i = 1; i <= np; i++)
				printf "%s%s %+.1f", (i > 1 ? ", " : ""), name[i],
					nf[i] && nl[i] ? f[i] / nf[i] - l[i] / nl[i] : 0
		}' "$TMPD/chain.$1"
}

CONFS="empty-tcx minimal-tcx guard-tcx"
CHAIN="empty minimal guard"
BEFORE=
if before_build; then
	BEFORE=1
	CONFS="$CONFS before-tcx"
	CHAIN="$CHAIN before"
else
	note "prog-cost: no before/after: $BEFORE_WHY"
fi
# shellcheck disable=SC2086  # a list of words
mapfile -t ORDERS < <(orders $CHAIN)

tap_topo_up || die "cannot build the tap topology"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1 || die "cannot enable kernel.bpf_stats_enabled"

t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	# chained: every order, from a different one each round
	for ((i = 0; i < ${#ORDERS[@]}; i++)); do
		order=${ORDERS[(i + r) % ${#ORDERS[@]}]}
		# shellcheck disable=SC2086  # the order is a list of words
		chain_on $order || die "cannot chain $order"
		for kind in $CHAIN_KINDS; do
			measure_chain "$r" "$order" "$kind"
		done
		chain_off || die "cannot take the chain $order off"
	done
	# alone
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

kind_label() {
	case $1 in
	partial) echo "CHECKSUM_PARTIAL, legitimate csum_start (34)" ;;
	none) echo "not partial (no NEEDS_CSUM)" ;;
	bad) echo "bad csum_start (20): the guard counts and drops" ;;
	esac
}

# chain_row KIND: the chained table's row
chain_row() {
	local line="| $(kind_label "$1") | $(chain_cell "$1" guard minimal) | $(chain_cell "$1" minimal empty) | $(chain_cell "$1" guard empty) |"

	if [ -n "$BEFORE" ]; then
		line="$line $(chain_cell "$1" before empty) | $(chain_cell "$1" guard before) |"
	fi
	echo "$line"
}

# row LABEL KIND
row() {
	local line="| $1 | $(med "$2" empty-tcx) | $(med "$2" minimal-tcx) | $(med "$2" guard-tcx) |"

	line="$line $(diff_cell "$2" guard-tcx minimal-tcx) | $(diff_cell "$2" minimal-tcx empty-tcx) |"
	line="$line $(diff_cell "$2" guard-tcx empty-tcx) |"

	if [ -n "$BEFORE" ]; then
		line="$line $(med "$2" before-tcx) | $(diff_cell "$2" before-tcx empty-tcx) |"
		line="$line $(diff_cell "$2" guard-tcx before-tcx) |"
	fi
	echo "$line"
}

{
	echo "## Program cost: guard vs the simplest correct guard and the empty program (kernel.bpf_stats_enabled, real frames)"
	echo
	echo "### Chained: every frame runs all the programs, in every order"
	echo
	if [ -n "$BEFORE" ]; then
		echo "| frames | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns | guard of $BEFORE_REV − empty, ns | guard − $BEFORE_REV, ns |"
		echo "|---|---:|---:|---:|---:|---:|"
	else
		echo "| frames | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns |"
		echo "|---|---:|---:|---:|"
	fi
	for kind in $CHAIN_KINDS; do
		chain_row "$kind"
	done
	echo
	echo "The programs ($CHAIN) sit on tap0's tcx hook together, attached by" \
		"\`bench/attach-empty\`, so each frame runs them all and each measurement times" \
		"them under the same conditions, $CHAIN_PACKETS frames per measurement. Each round runs" \
		"all ${#ORDERS[@]} orders, a program's" \
		"figure in a round is the mean over them, and the table gives the median over the" \
		"$RUNS rounds with its range. The bad frames are not chained: a drop ends the chain."
	for kind in $CHAIN_KINDS; do
		echo "Running first rather than last, $(kind_label "$kind"): $(chain_first "$kind") ns."
	done
	echo
	echo "### Alone: each program by itself on the hook, as in service"
	echo
	if [ -n "$BEFORE" ]; then
		echo "| frames | empty, ns/run | minimal, ns/run | guard, ns/run | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns | guard of $BEFORE_REV, ns/run | $BEFORE_REV − empty, ns | guard − $BEFORE_REV, ns |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	else
		echo "| frames | empty, ns/run | minimal, ns/run | guard, ns/run | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
	fi
	for kind in $KINDS; do
		row "$(kind_label "$kind")" "$kind"
	done
	echo
	echo "Each program runs alone on tap0's tcx hook, attached as in service" \
		"(\`csum-guard attach --mode tcx\`; \`bench/empty.bpf.c\` and \`bench/minimal.bpf.c\`" \
		"by \`bench/attach-empty\`);" \
		"each of $RUNS rounds measures every program on every kind of frame, $PACKETS frames" \
		"per measurement, the programs" \
		"in an order rotated from round to round. Differences: the median over rounds of the" \
		"difference within each round, with its range."
	echo
	if [ -n "$BEFORE" ]; then
		echo "The guard of $BEFORE_REV is the program before its entry was made stack-free" \
			"(one callee-saved register instead of four, slow paths out of line, BPF ISA v3)," \
			"built from git by its own Makefile."
	else
		echo "No before/after rows: $BEFORE_WHY."
	fi
	echo
	echo "Method: run_time_ns / run_cnt from bpf prog info (kernel.bpf_stats_enabled=1)" \
		"with frames of a 64-byte UDP payload (\`bench/tapwrite\`," \
		"pinned to CPU $BENCH_CPU, writes them into a vnet_hdr tap whose IPv4 route is a" \
		"blackhole). Each round runs the chained measurements, then the alone ones." \
		"Absolute figures are mostly the stats clock." \
		"Checked: each program ran once per frame, a chain ran in the order it was attached," \
		"and a guard alone dropped exactly the bad frames and nothing else. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-measurement data</summary>"
	echo
	echo "Chained (kind round order, then ns/run of: $CHAIN):"
	echo
	echo '```'
	for kind in $CHAIN_KINDS; do
		sed "s/^/$kind /" "$TMPD/chain.$kind"
	done
	echo '```'
	echo
	echo "Alone (kind round program ns/run):"
	echo
	echo '```'
	for kind in $KINDS; do
		sed "s/^/$kind /" "$TMPD/raw.$kind"
	done
	echo '```'
	echo "</details>"
} | write_result prog-cost
