#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# kmod.sh - what the kernel module costs a guest, per packet, on the tap
# write path (the topology and method of tap-path.sh), in a Debian 6.1
# guest under QEMU:
#   - no hook vs the module guarding the tap (netfilter ingress), and vs
#     the completion guard on, with the route into a blackhole: packets
#     that never need a software checksum;
#   - then with the route out of a veth without TX checksum offload, each
#     packet's checksum completed by skb_checksum_help(): completion guard
#     off vs on, whose difference is its cost per call;
#   - and in a Debian 6.12 guest, where both backends run, the module and
#     the bpf guard (tcx) side by side, each against no hook in the same
#     rounds.
# TCG timing is not absolute, so the figures are ratios to no hook in the
# same guest, and differences in TCG nanoseconds.
#
# On the host this builds the module with DKMS for the guest kernel, boots
# the guest and runs itself there (CG_GUEST set), which prints raw rounds;
# the host turns them into the table.
set -u
. "$(dirname "$0")/lib.sh"

KERNEL=${BENCH_KMOD_KERNEL:-deb6.1-vuln}
# a TCG guest writes ~100x slower than the host: fewer packets a run
PACKETS=${KMOD_PACKETS:-50000}
CONFIGS=(none kmod comp)
TX_CONFIGS=(none-tx comp-tx)
# the kernel where both backends run, and what is compared there
SIDE_KERNEL=${BENCH_SIDE_KERNEL:-deb6.12}
SIDE_CONFIGS=(none kmod guard-tcx)

# rounds CONFIG...: RUNS rounds of the configurations, rotated, a raw line each
rounds() {
	local r c res

	for ((r = 1; r <= RUNS; r++)); do
		for c in $(rotate "$r" "$@"); do
			hook_on "$c" || die "cannot switch on $c"
			res=$(tapwrite partial "$PACKETS") || die "tapwrite failed ($c)"
			hook_off "$c" || die "cannot switch off $c"
			echo "raw $r $c $res"
		done
	done
}

if [ -n "${CG_GUEST:-}" ]; then
	trap tap_cleanup EXIT
	tap_topo_up || die "cannot build the tap topology"
	if [ "${BENCH_KMOD_PART:-}" = side ]; then
		rounds "${SIDE_CONFIGS[@]}"
		exit 0
	fi
	rounds "${CONFIGS[@]}"
	tap_tx_up || die "cannot route out of a veth without TX checksum offload"
	rounds "${TX_CONFIGS[@]}"
	exit 0
fi

# the median over rounds of A / B within each round: rratio FILE A B
# (TCG's speed drifts from round to round, so a ratio of medians taken
# over different rounds can say 0.8 for a hook that costs time)
rratio() {
	awk -v a="$2" -v b="$3" '
		$2 == a { va[$1] = $3 }
		$2 == b { vb[$1] = $3 }
		END { for (r in va) if ((r in vb) && vb[r]) printf "%.4f\n", va[r] / vb[r] }' "$1" |
		stats3 | { read -r m _; fmt 3 "$m"; }
}

# guest_rounds KERNEL FILE [VAR=VALUE...]: this script's rounds in a KERNEL
# guest, with the module DKMS built for it, into FILE
guest_rounds() {
	local kernel=$1 file=$2 moddir
	shift 2

	moddir=$("$TOP/tests/guest/dkms.sh" "$kernel") || die "cannot build the module for $kernel"
	"$TOP/tests/guest/run.sh" --kernel "$kernel" --modules-dir "$moddir" -- \
		env RUNS="$RUNS" KMOD_PACKETS="$PACKETS" BUILD="$BUILD" "$@" "$BENCH_DIR/kmod.sh" \
		>"$file.out" 2>&1 || { tail -20 "$file.out" >&2; die "the $kernel guest run failed"; }
	sed -n 's/^raw //p' "$file.out" >"$file"
	[ -s "$file" ] || die "no rounds from the $kernel guest"
}

# krow LABEL NAME FILE A B: a table row, A against B within each round of
# FILE; NAME goes into SPANS when the per-round differences span zero
SPANS=
krow() {
	local d lo hi

	read -r d lo hi <<<"$(pairdiff "$3" "$4" "$5" | stats3)"
	echo "| $1 | **$(rratio "$3" "$4" "$5")** | $(fmt 0 "$d") ($(fmt 0 "$lo") to $(fmt 0 "$hi")) |"
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo < 0 && hi > 0) }' &&
		SPANS="$SPANS${SPANS:+; }$2"
}

trap 'rm -rf "$TMPD"' EXIT
t0=$(date +%s)
guest_rounds "$KERNEL" "$TMPD/raw"
guest_rounds "$SIDE_KERNEL" "$TMPD/side" BENCH_KMOD_PART=side
elapsed=$(($(date +%s) - t0))
{
	echo "## Kernel module, tap write path, in $KERNEL and $SIDE_KERNEL guests (TCG): ratio to no hook"
	echo
	echo "| hook | ratio to no hook (median of per-round ratios) | hook − none, per-round pairs (TCG ns) |"
	echo "|---|---:|---:|"
	echo "| no hook | 1.000 | |"
	krow "csum_guard.ko, netfilter ingress" module "$TMPD/raw" kmod none
	krow "completion guard on, no software checksum on the path" \
		"completion guard, no software checksum" "$TMPD/raw" comp none
	echo
	echo "Out of a veth without TX checksum offload: one skb_checksum_help() call per packet."
	echo
	echo "| completion guard | ratio to off (median of per-round ratios) | on − off, per-round pairs (TCG ns): the cost per call |"
	echo "|---|---:|---:|"
	echo "| off | 1.000 | |"
	krow on "completion guard per call" "$TMPD/raw" comp-tx none-tx
	echo
	echo "Where both backends run ($SIDE_KERNEL guest), each against no hook in the same rounds:"
	echo
	echo "| hook | ratio to no hook (median of per-round ratios) | hook − none, per-round pairs (TCG ns) |"
	echo "|---|---:|---:|"
	echo "| no hook | 1.000 | |"
	krow "csum_guard.ko, netfilter ingress" "module on $SIDE_KERNEL" "$TMPD/side" kmod none
	krow "bpf guard, tcx" "bpf guard on $SIDE_KERNEL" "$TMPD/side" guard-tcx none
	krow "module against the bpf guard" "module against the bpf guard" "$TMPD/side" kmod guard-tcx
	echo
	if [ -n "$SPANS" ]; then
		echo "The per-round differences span zero for: $SPANS. Under TCG those costs are" \
			"below what this method resolves, and their ratios are within that noise."
		echo
	fi
	echo "Method: as tap-path, inside QEMU (TCG, one vCPU) booting $KERNEL, then" \
		"$SIDE_KERNEL, with the module DKMS built for each; $RUNS rounds of $PACKETS packets per table, the" \
		"configurations of each rotated; each run's figure is the median batch, ratios and differences are taken within each round and their median given. TCG emulates" \
		"every instruction, so only the ratio means anything. ${elapsed}s."
	echo
	machine_line
} | write_result kmod
