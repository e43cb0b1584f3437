#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# tap-path.sh - what a hook costs a guest, per packet, on the tap write
# path: no hook, the empty program and the guard, each on clsact and on a
# tcx link (topology: lib.sh). bench/tapwrite writes one prebuilt 64-byte
# UDP frame (CHECKSUM_PARTIAL, legitimate csum_start, as a guest with TX
# checksum offload sends them) again and again; the frame is received,
# hooked and blackholed in the writer's own context, so its time per write
# is the path's cost. Configurations rotate from round to round.
set -u
. "$(dirname "$0")/lib.sh"

PACKETS=${PACKETS:-2000000}
KIND=${TAP_KIND:-partial}
CONFIGS=(none empty-clsact empty-tcx guard-clsact guard-tcx)
CONFIG_ON=

cleanup() {
	[ -n "$CONFIG_ON" ] && hook_off "$CONFIG_ON" 2>/dev/null
	tap_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM

label() {
	case $1 in
	none) echo "no hook" ;;
	empty-clsact) echo "empty program, clsact" ;;
	empty-tcx) echo "empty program, tcx" ;;
	guard-clsact) echo "guard, clsact" ;;
	guard-tcx) echo "guard, tcx" ;;
	esac
}

colour() {
	case $1 in
	none) echo 0x999999 ;;
	empty-*) echo 0x8fb3de ;;
	guard-*) echo 0x2f5f9e ;;
	esac
}

tap_topo_up || die "cannot build the tap topology"
stats_on=$(sysctl -n kernel.bpf_stats_enabled)
[ "$stats_on" = 0 ] ||
	note "kernel.bpf_stats_enabled is $stats_on: every program pays the stats clock"

t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	for c in $(rotate "$r" "${CONFIGS[@]}"); do
		hook_on "$c" || die "cannot attach $c"
		CONFIG_ON=$c
		res=$(tapwrite "$KIND" "$PACKETS") || die "tapwrite failed ($c)"
		[ -n "$res" ] || die "no result from tapwrite ($c)"
		echo "$r $c $res" >>"$TMPD/raw"
		hook_off "$c" || die "cannot detach $c"
		CONFIG_ON=
	done
	note "tap-path: round $r/$RUNS done"
done
elapsed=$(($(date +%s) - t0))

# raw: "ROUND CONFIG BATCH_NS WALL_NS CPU_NS"
read -r base _ <<<"$(col "$TMPD/raw" none | stats3)"
: >"$TMPD/plot.dat"
{
	echo "## Tap write path: ns per packet, no hook vs empty program vs guard"
	echo
	echo "| hook | ns/packet (median) | min–max | over no hook, ns | ratio to no hook | whole-run wall, ns | CPU time, ns |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for c in "${CONFIGS[@]}"; do
		read -r m lo hi <<<"$(col "$TMPD/raw" "$c" | stats3)"
		read -r wm _ <<<"$(col "$TMPD/raw" "$c" 2 | stats3)"
		read -r cm _ <<<"$(col "$TMPD/raw" "$c" 3 | stats3)"
		echo "| $(label "$c") | **$(fmt 0 "$m")** | $(fmt 0 "$lo")–$(fmt 0 "$hi") |" \
			"$(sub "$m" "$base" | xargs printf '%+.0f') | $(ratio "$m" "$base") |" \
			"$(fmt 0 "$wm") | $(fmt 0 "$cm") |"
		# label, median, min, max, colour (no hook / empty / guard)
		echo "\"$(label "$c" | sed 's/, /\\n/')\" $m $lo $hi $(colour "$c")" >>"$TMPD/plot.dat"
	done
	echo
	for mode in clsact tcx; do
		read -r d dlo dhi <<<"$(pairdiff "$TMPD/raw" "guard-$mode" "empty-$mode" | stats3)"
		echo "guard − empty program on $mode, per-round pairs: median $(fmt 0 "$d") ns" \
			"(range $(fmt 0 "$dlo") to $(fmt 0 "$dhi"))."
	done
	echo
	echo "Method: \`bench/tapwrite\`, pinned to CPU $BENCH_CPU, writes one prebuilt frame" \
		"(virtio_net_hdr + Ethernet + IPv4 + UDP with a 64-byte payload, $KIND checksum)" \
		"$PACKETS times into a vnet_hdr tap (after 10000 unmeasured), timing each batch of" \
		"500 writes (about 1 ms) with CLOCK_MONOTONIC; a run's figure is its median batch (a batch" \
		"that lost the CPU to another process drops out), next to the whole run's mean" \
		"wall and thread CPU time per write. The tap's netns routes the" \
		"destination to a blackhole, so little work follows the hook. Empty program:" \
		"\`bench/empty.bpf.c\` by \`bench/attach-empty\` (tcx link, or clsact + cls_bpf" \
		"direct-action); guard: \`csum-guard attach --mode tcx|clsact\`; no hook: no clsact" \
		"qdisc, no tcx link (checked after every detach). $RUNS rounds, the five" \
		"configurations rotated from round to round; medians over rounds, ratios of medians." \
		"kernel.bpf_stats_enabled=$stats_on. ${elapsed}s."
	echo
	machine_line
	echo
	echo "![tap write path](tap-path.png)"
	echo
	echo "<details><summary>Per-run data (round configuration batch_ns wall_ns cpu_ns)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result tap-path

# The plot: one bar per configuration, the median, whiskers min..max.
if command -v gnuplot >/dev/null; then
	gnuplot <<EOF || note "gnuplot failed: no plot"
set terminal pngcairo size 900,540 font "sans,10"
set output "$RESULTS/tap-path.png.tmp"
set title "Tap write path, 64-byte UDP payload: ns per packet\n(median of $RUNS interleaved runs of $PACKETS packets; whiskers: min-max)"
set ylabel "ns per packet"
set yrange [0:*]
set xrange [-0.6:4.6]
set style fill solid 0.7 border -1
set boxwidth 0.6
set grid ytics
set bmargin 4
unset key
plot "$TMPD/plot.dat" using 0:2:5:xtic(1) with boxes lc rgb variable, \
     "" using 0:2:3:4 with yerrorbars lc rgb "black" pt 7 ps 0, \
     "" using 0:4:(sprintf("%.0f", \$2)) with labels offset 0,0.9
EOF
	[ -s "$RESULTS/tap-path.png.tmp" ] && mv "$RESULTS/tap-path.png.tmp" "$RESULTS/tap-path.png"
	rm -f "$RESULTS/tap-path.png.tmp"
else
	note "gnuplot missing (make bench installs it): no plot"
fi
