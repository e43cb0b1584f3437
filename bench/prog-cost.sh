#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# prog-cost.sh - what the guard program itself costs per packet, from
# kernel.bpf_stats_enabled (run_time_ns / run_cnt), against the empty
# program, with real frames through a tap (topology: lib.sh). The programs:
# the empty one, the minimal one (bench/minimal.bpf.c: the simplest correct
# guard, IPv4 only, the anchor the guard is held to), the same built with
# the three tests the guard's IPv4 pass path makes beyond it (chained only),
# the guard, and the guard of $BEFORE_REV for the before/after of the last
# optimisation. Two methods, in one run:
#
# chained  Every program sits on tap0's tcx hook many times over, in one
#          long chain, so every frame runs each of them many times and
#          each measurement times them all on the same frames: whatever
#          slows one measurement slows every program in it alike. The first
#          places of a chain cost tens of ns more than the rest (whoever
#          sits there), so LEAD copies of the empty program go first and are
#          not counted; behind them the programs follow in a balanced set of
#          orders (orders() below), laid out REPS times, so that each takes
#          each place in an order, and runs directly behind each other
#          program, equally often. A program's figure is its copies' run
#          time over their runs. The steadiest of the two: the headline.
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
# The chain: LEAD uncounted empty programs, then REPS times the balanced
# set of orders (with the guard before, 5 programs in 10 orders: 4 + 50 =
# 54 programs; a tcx hook takes 64). Without REPS, as many times as fit, at
# most 2.
LEAD=${LEAD:-4}
REPS=${REPS:-}
TCX_MAX=64
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

declare -A CHAIN_OBJ=([empty]=$EMPTY_OBJ [minimal]=$MINIMAL_OBJ [tests]=$MINIMAL_TESTS_OBJ
	[guard]=$GUARD_OBJ [before]=$BEFORE_OBJ)
CHAIN_KINDS="partial none"
CHAIN_PROG=()	# the program of each place of the chain ("lead": not counted)
CHAIN_IDS=()	# its id

# The orders of the words given, one per line: a balanced Latin square
# (Williams design), so that each program runs in each position equally
# often and directly behind each other program equally often, in n orders
# for n programs (2n where n is odd) rather than all n! of them.
orders() {
	local -a w=("$@") first=()
	local n=$# i j lo=1 hi=$(($# - 1)) line

	first=(0)
	for ((j = 1; j < n; j++)); do
		if ((j % 2)); then
			first+=("$lo")
			lo=$((lo + 1))
		else
			first+=("$hi")
			hi=$((hi - 1))
		fi
	done
	for ((i = 0; i < n; i++)); do
		line=
		for ((j = 0; j < n; j++)); do
			line="$line${line:+ }${w[(first[j] + i) % n]}"
		done
		echo "$line"
		((n % 2)) && echo "$line" | awk '{ for (k = NF; k > 0; k--) printf "%s%s", $k, (k > 1 ? " " : "\n") }'
	done
}

# The program ids on tap0's tcx ingress, in the order they run.
tcx_ids() {
	"$BB/attach-empty" list --netns "$VM" --dev tap0
}

# chain_on ROUND: the chain on tap0's tcx hook, each program appended behind
# the one before, the orders' rows starting from a different one each
# round; checks that they run in that order
chain_on() {
	local r=$1 i j k p out

	mkdir -p "$PINDIR"
	CHAIN_PROG=() CHAIN_IDS=()
	for ((i = 0; i < LEAD; i++)); do
		CHAIN_PROG+=(lead)
	done
	for ((k = 0; k < REPS; k++)); do
		for ((i = 0; i < ${#ORDERS[@]}; i++)); do
			for p in ${ORDERS[(i + r) % ${#ORDERS[@]}]}; do
				CHAIN_PROG+=("$p")
			done
		done
	done
	for ((j = 0; j < ${#CHAIN_PROG[@]}; j++)); do
		p=${CHAIN_PROG[j]}
		[ "$p" = lead ] && p=empty
		out=$("$BB/attach-empty" attach --netns "$VM" --dev tap0 --mode tcx \
			--obj "${CHAIN_OBJ[$p]}" --pin "$PINDIR/chain-$j") || return 1
		CHAIN_IDS+=("${out#prog_id=}")
	done
	[ "$(tcx_ids)" = "${CHAIN_IDS[*]}" ] ||
		die "chain of round $r: tap0 runs $(tcx_ids), not ${CHAIN_IDS[*]}"
}

chain_off() {
	local j

	for ((j = 0; j < ${#CHAIN_IDS[@]}; j++)); do
		"$BB/attach-empty" detach --netns "$VM" --dev tap0 --mode tcx \
			--pin "$PINDIR/chain-$j" || return 1
	done
	[ -z "$(tcx_ids)" ] || die "tap0 still runs $(tcx_ids) after the chain came off"
}

# "ID TIME COUNT" of each program of the chain, in one bpftool call
chain_stats() {
	bpftool -j prog show | jq -r --arg ids "${CHAIN_IDS[*]}" '
		($ids | split(" ") | map(tonumber)) as $want
		| .[] | select(.id as $i | $want | index($i))
		| "\(.id) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# measure_chain ROUND KIND: write the frames through the chain, record
# "ROUND PROGRAM NS" in chain.KIND for each program, NS its copies' run
# time over their runs; checks that every place ran once per frame
measure_chain() {
	local r=$1 kind=$2 want=$((CHAIN_PACKETS + WARMUP)) j map=

	for ((j = 0; j < ${#CHAIN_IDS[@]}; j++)); do
		map="$map${CHAIN_IDS[j]}=${CHAIN_PROG[j]} "
	done
	chain_stats >"$TMPD/before"
	tapwrite "$kind" "$CHAIN_PACKETS" >/dev/null || die "tapwrite failed (chain, $kind)"
	chain_stats >"$TMPD/after"
	join <(sort "$TMPD/before") <(sort "$TMPD/after") | awk -v r="$r" -v want="$want" \
		-v map="$map" -v n="${#CHAIN_IDS[@]}" '
		BEGIN { k = split(map, m, " "); for (i = 1; i <= k; i++) { split(m[i], kv, "="); prog[kv[1]] = kv[2] } }
		{
			seen++
			if ($5 - $3 != want) { printf "bad %s ran %d times for %d frames\n", prog[$1], $5 - $3, want; exit }
			p = prog[$1]
			if (p == "lead") next
			t[p] += $4 - $2; c[p] += $5 - $3
		}
		END {
			if (seen != n) { printf "bad %d of %d programs found\n", seen, n; exit }
			for (p in t) printf "%s %s %.3f\n", r, p, t[p] / c[p]
		}' >"$TMPD/chain.line"
	grep '^bad ' "$TMPD/chain.line" && die "chain, $kind: $(sed -n 's/^bad //p' "$TMPD/chain.line")"
	cat "$TMPD/chain.line" >>"$TMPD/chain.$kind"
}

CONFS="empty-tcx minimal-tcx guard-tcx"
CHAIN="empty minimal tests guard"
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
NPROG=$(wc -w <<<"$CHAIN")
if [ -z "$REPS" ]; then
	REPS=$(((TCX_MAX - LEAD) / (${#ORDERS[@]} * NPROG)))
	[ "$REPS" -gt 2 ] && REPS=2
fi
if [ "$REPS" -lt 1 ] || [ $((LEAD + REPS * ${#ORDERS[@]} * NPROG)) -gt $TCX_MAX ]; then
	die "a chain of $LEAD + $REPS x ${#ORDERS[@]} x $NPROG programs does not fit a tcx hook ($TCX_MAX)"
fi

tap_topo_up || die "cannot build the tap topology"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1 || die "cannot enable kernel.bpf_stats_enabled"

t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	# chained: one long chain, its orders starting from another row each round
	chain_on "$r" || die "cannot put the chain on tap0"
	for kind in $CHAIN_KINDS; do
		measure_chain "$r" "$kind"
	done
	chain_off || die "cannot take the chain off"
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

# "**median** (min to max)" of the numbers on stdin
range_cell() {
	local -a d
	read -r -a d <<<"$(stats3)"
	echo "**$(fmt 1 "${d[0]}")** ($(fmt 1 "${d[1]}") to $(fmt 1 "${d[2]}"))"
}

# the median of CONF's figures in FILE (ROUND CONF NS lines): med FILE CONF
med() {
	local m
	read -r m _ <<<"$(col "$1" "$2" | stats3)"
	fmt 1 "$m"
}

# per-round A − B in FILE, as a cell: diff_cell FILE A B
diff_cell() { pairdiff "$1" "$2" "$3" | range_cell; }

kind_label() {
	case $1 in
	partial) echo "CHECKSUM_PARTIAL, legitimate csum_start (34)" ;;
	none) echo "not partial (no NEEDS_CSUM)" ;;
	bad) echo "bad csum_start (20): the guard counts and drops" ;;
	esac
}

# "median (min to max)" over rounds of what A's partial path costs beyond
# its not-partial one, less the same of B: both kinds run through the same
# loaded copies in a round, so where the JIT placed them, which moves a
# program's figure on both kinds alike, cancels. chain_path_cell A B
chain_path_cell() {
	awk -v a="$1" -v b="$2" '
		FILENAME ~ /partial$/ { k = "p" } FILENAME ~ /none$/ { k = "n" }
		$2 == a { v[k, "a", $1] = $3; r[$1] = 1 }
		$2 == b { v[k, "b", $1] = $3 }
		END {
			for (i in r)
				printf "%.3f\n", (v["p", "a", i] - v["n", "a", i]) - (v["p", "b", i] - v["n", "b", i])
		}' "$TMPD/chain.partial" "$TMPD/chain.none" | range_cell
}

# The programs' columns, the same in both tables
table_head() {
	if [ -n "$BEFORE" ]; then
		echo "| frames | empty, ns/run | minimal, ns/run | guard, ns/run | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns | guard of $BEFORE_REV, ns/run | $BEFORE_REV − empty, ns | guard − $BEFORE_REV, ns |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	else
		echo "| frames | empty, ns/run | minimal, ns/run | guard, ns/run | **guard − minimal**, ns | minimal − empty, ns | guard − empty, ns |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
	fi
}

# table_row LABEL FILE SUFFIX: a row of either table from FILE, whose
# configurations are the programs' names with SUFFIX ("" chained, -tcx alone)
table_row() {
	local f=$2 x=$3 line

	line="| $1 | $(med "$f" "empty$x") | $(med "$f" "minimal$x") | $(med "$f" "guard$x") |"
	line="$line $(diff_cell "$f" "guard$x" "minimal$x") | $(diff_cell "$f" "minimal$x" "empty$x") |"
	line="$line $(diff_cell "$f" "guard$x" "empty$x") |"
	if [ -n "$BEFORE" ]; then
		line="$line $(med "$f" "before$x") | $(diff_cell "$f" "before$x" "empty$x") |"
		line="$line $(diff_cell "$f" "guard$x" "before$x") |"
	fi
	echo "$line"
}

{
	echo "## Program cost: guard vs the simplest correct guard and the empty program (kernel.bpf_stats_enabled, real frames)"
	echo
	echo "### Chained: every frame runs every program many times over"
	echo
	table_head
	for kind in $CHAIN_KINDS; do
		table_row "$(kind_label "$kind")" "$TMPD/chain.$kind" ""
	done
	echo
	echo "What the CHECKSUM_PARTIAL path costs beyond the not-partial one, within each round" \
		"(the same loaded copies run both kinds, so where the JIT placed them cancels):"
	echo
	hdr="| partial path | **guard − minimal**, ns | minimal+tests − minimal, ns | **guard − minimal+tests**, ns | minimal − empty, ns | guard − empty, ns |"
	sep="|---|---:|---:|---:|---:|---:|"
	row="| its own cost | $(chain_path_cell guard minimal) | $(chain_path_cell tests minimal) | $(chain_path_cell guard tests) | $(chain_path_cell minimal empty) | $(chain_path_cell guard empty) |"
	if [ -n "$BEFORE" ]; then
		hdr="$hdr $BEFORE_REV − empty, ns | guard − $BEFORE_REV, ns |"
		sep="$sep---:|---:|"
		row="$row $(chain_path_cell before empty) | $(chain_path_cell guard before) |"
	fi
	printf '%s\n' "$hdr" "$sep" "$row"
	echo
	echo "minimal+tests (\`tests\` in the chain) is \`bench/minimal.bpf.c\` built with" \
		"\`MINIMAL_TESTS\`: the anchor plus the three tests the guard's IPv4 pass path makes" \
		"beyond it (the protocol against IPv6, the network header 14 bytes behind the MAC" \
		"header, an IHL below 5 dropped), so that guard − minimal splits into what those tests" \
		"cost and what the guard adds beyond them."
	echo
	echo "One chain of ${#CHAIN_IDS[@]} programs on tap0's tcx hook, each loaded on its own and" \
		"attached by \`bench/attach-empty\`: $LEAD copies of the empty program first, not counted" \
		"(the first places of a chain cost tens of ns more, whoever sits there), then the" \
		"programs ($CHAIN) in ${#ORDERS[@]} orders (a balanced Latin square: each program in each" \
		"place of an order, and directly behind each other one, equally often), the whole laid out" \
		"$REPS times, so that every frame runs each program $((REPS * ${#ORDERS[@]})) times;" \
		"each round starts the orders from another row. $CHAIN_PACKETS frames per measurement." \
		"A program's figure is its copies' run time over their runs, differences are the" \
		"median over the $RUNS rounds of the difference within each round, with its range." \
		"The bad frames are not chained: a drop ends the chain."
	echo
	echo "### Alone: each program by itself on the hook, as in service"
	echo
	table_head
	for kind in $KINDS; do
		table_row "$(kind_label "$kind")" "$TMPD/raw.$kind" -tcx
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
		echo "The guard of $BEFORE_REV is $BEFORE_WHAT, built from git by its own Makefile."
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
	echo "Chained (kind round program ns/run):"
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
