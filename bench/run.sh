#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# run.sh - every benchmark, one after the other (make bench runs this).
#
#   testrun    BPF_PROG_TEST_RUN, guard vs empty (not-partial path)
#   prog-cost  kernel.bpf_stats_enabled with real frames, guard vs empty
#   tap-path   ns per packet on the tap write path, five hook configurations
#   tcp        TCP throughput through a guarded veth with checksum offload
#   kmod       the kernel module in a 6.1 guest (QEMU), as a ratio
#   syncookie  the responder's cost per SYN and per ACK (bpf_stats), this tree's and an
#              earlier one's; SYN-ACKs/s under a SYN flood, the responder vs the stack
#   scale      attach, status, detach and watch with 100, 400 and 1600 guarded taps
#   containers watch's latency for a new container's veth beside 500 containers
#   watch      watch's descriptors and memory with 10, 1000 and 5000 namespaces
#
# Each writes its Markdown table to bench/results/NAME.md. Environment:
# RUNS (9), PACKETS (prog-cost 1000000, a quarter of it chained; tap-path
# 2000000), TCP_SECONDS (3),
# REPEAT (testrun, 1000000), SC_SECONDS (syncookie, 3), SCALE_N (scale, "100 400 1600"),
# CT_N and CT_ROUNDS (containers, 500 and 5), WATCH_N (watch, "10 1000 5000"),
# BENCH_CPU (the last CPU), ONLY (a subset).
set -u
. "$(dirname "$0")/lib.sh"
rm -rf "$TMPD"

ALL="testrun prog-cost tap-path tcp kmod syncookie scale containers watch"
ONLY=${ONLY:-$ALL}

[ "$(id -u)" = 0 ] || die "needs root"
for f in "$CG" "$GUARD_OBJ" "$EMPTY_OBJ" "$BB/tapwrite" "$BB/attach-empty" \
	"$BB/testrun" "$BB/tcpbulk" "$BB/synflood"; do
	[ -e "$f" ] || die "$f missing: run make bench (or make all bench-tools)"
done
[ "$(sysctl -n kernel.bpf_stats_enabled)" = 0 ] ||
	note "kernel.bpf_stats_enabled is on: tap-path and tcp figures include the stats clock"

failed=
start=$(date +%s)
for b in $ONLY; do
	case $b in
	testrun|prog-cost|tap-path|tcp|kmod|syncookie|scale|containers|watch)
		echo
		"$BENCH_DIR/$b.sh" || failed="$failed $b" ;;
	*)
		die "unknown benchmark '$b' (one of: $ALL)" ;;
	esac
done
echo
echo "bench: $(($(date +%s) - start))s; results in ${RESULTS#"$TOP"/}/"
[ -z "$failed" ] || die "failed:$failed"
