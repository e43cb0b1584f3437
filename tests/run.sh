#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# run.sh - the csum-guard suite: one runner, every case for every backend
# this kernel can run, the reproduction at its centre.
#
#   tests/run.sh               this kernel, then the guest kernels (make test)
#   tests/run.sh --here        this kernel only (what each guest runs)
#   tests/run.sh --demo        the reproduction table, guard off and on
#   options: --backend bpf|kmod   only that backend
#            --case NAME[,NAME]   only cases whose name contains a NAME
#
# Prints PASS/FAIL/SKIP per case and ends with "N passed, N failed, N skipped".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1

mode=all only_backend= only_case=
while [ $# -gt 0 ]; do
	case $1 in
	--here) mode=here ;;
	--demo) mode=demo ;;
	--backend) only_backend=$2; shift ;;
	--case) only_case=$2; shift ;;
	*) echo "usage: tests/run.sh [--here|--demo] [--backend bpf|kmod] [--case NAME[,NAME]]" >&2; exit 2 ;;
	esac
	shift
done

. tests/lib/common.sh
. tests/lib/preflight.sh
for f in tests/cases/*.sh; do . "$f"; done

ROWS=()
# A process and everything under it (the background guests: QEMU included).
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}

cleanup() {
	[ -n "${GUESTS_PID:-}" ] && kill -0 "$GUESTS_PID" 2>/dev/null && kill_tree "$GUESTS_PID"
	topo_down
	sc_down
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" != 0 ]; then
	echo "tests/run.sh: must be run as root (it creates namespaces and taps)" >&2
	exit 1
fi
for b in "$CG" "$INJECT" "$SNIFF" "$NFQ" "$STREAM" "$TOP/build/tests/unit" "$SYN" "$HOOKS" "$KDUMP"; do
	[ -x "$b" ] || { echo "tests/run.sh: $b is missing: run make first" >&2; exit 1; }
done
# What the suite needs of this machine: all of it, or no case runs.
if ! preflight $mode; then
	echo "tests/run.sh: this machine lacks what the suite needs (above)" >&2
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	exit 1
fi
# What it may change outside its namespaces, to compare at the end.
[ $mode != demo ] && [ -z "${CG_GUEST:-}" ] && MACHINE0=$(machine_snapshot)

# The cases, in order; each runs once per backend.
CASES=(
	"repro frag" "repro tx" "repro tx6" "repro vlan" "repro qinq" "repro xtcsum" "repro nfqueue"
	"repro xtcsum6" "repro nfqueue6" egress boundaries unreadable not_judged sweep sweep_helper log_drops counters
	volume gso idempotent detach_clean detach_gone clsact_foreign unnamed_netns vanish bad_input
	module_identity rmmod_guarded kmod_dump completion one_backend watch check object fleet kill_attach many_taps
)

# Cases that do not depend on the checksum guard's backend (the SYN-cookie
# responder): each runs once per kernel, after the backends' cases.
KERNEL_CASES=(
	"syn_connect xdp" "syn_connect xdp-generic" "syn_connect tc" "syn_connect nft"
	syn_stack syn_malformed syn_idempotent syn_detach_gone syn_sysctl syn_bad_input
)

# Which backends this kernel runs, from the loader's own probe.
PROBE=$("$CG" probe --json)
BPF_OK=$(jq -r 'if .bpf_unavailable == null then 1 else 0 end' <<<"$PROBE")
KMOD_OK=$(jq -r 'if .kmod_unavailable == null then 1 else 0 end' <<<"$PROBE")

# case_selected NAME: does the --case filter let NAME through?
case_selected() {
	local w
	[ -z "$only_case" ] && return 0
	for w in ${only_case//,/ }; do
		[[ "$1" == *"$w"* ]] && return 0
	done
	return 1
}

# run_cases CASE...: those the --case filter lets through, "name arg" as case_name arg
run_cases() {
	local c t0
	for c; do
		case_selected "$c" || continue
		t0=$SECONDS
		case_${c% *} $([ "${c#* }" != "$c" ] && echo "${c#* }")
		echo "$((SECONDS - t0)) $c [$BACKEND]" >>"$TMPD/durations"
	done
}

run_backend() {
	BACKEND=$1
	ROWS+=("backend $BACKEND")
	run_cases "${CASES[@]}"
}

# Where the time went: the slowest cases, for whoever keeps CI short.
durations() {
	[ -s "$TMPD/durations" ] || return 0
	note "slowest cases on $(uname -r), of $(awk '{ s += $1 } END { print s }' "$TMPD/durations") s:" \
		"$(sort -rn "$TMPD/durations" | head -8 | awk '{ $1 = $1 "s"; print }' | paste -sd, | sed 's/,/, /g')"
}

# What the suite made, it removed: namespaces, pins, programs, the module's hooks.
leak_check() {
	local left=""

	ip netns list | grep -q "^$CG_PFX-" && left="$left netns"
	[ "$(pin_list)" != "$PINS0" ] && left="$left pins"
	[ "$(prog_count)" != "$PROGS0" ] && left="$left programs"
	[ "$(sc_progs)" != "$SC_PROGS0" ] && left="$left syncookie-programs"
	if [ -d /sys/module/csum_guard ]; then
		[ "$("$CG" status --json 2>/dev/null)" = "[]" ] || left="$left guarded-devices"
		[ "$(cat /sys/module/csum_guard/refcnt 2>/dev/null || echo 0)" = 0 ] || left="$left module-refs"
	fi
	if [ -z "$left" ]; then
		pass "leak-check: no namespace, pin, program or guarded device left"
	else
		fail "leak-check: left behind:$left"
	fi
}

backend_ok() {
	case $1 in
	bpf) [ "$BPF_OK" = 1 ] ;;
	kmod) [ "$KMOD_OK" = 1 ] ;;
	esac
}

backend_why() {
	jq -r ".${1}_unavailable" <<<"$PROBE"
}

# Guards the host had before the suite (an operator's) are not leaks.
pin_list() { find /sys/fs/bpf/csum_guard /sys/fs/bpf/csum_guard_syncookie 2>/dev/null | sort; }
PROGS0=$(prog_count)
SC_PROGS0=$(sc_progs)
PINS0=$(pin_list)
note "kernel $(uname -r); probe picks $(jq -r '.backend // "none"' <<<"$PROBE"): $(jq -r .reason <<<"$PROBE")"

if [ $mode = demo ]; then
	for BACKEND in bpf kmod; do backend_ok $BACKEND && break; done
	backend_ok $BACKEND || { echo "csum-guard demo: no backend runs here: $(jq -r .reason <<<"$PROBE")" >&2; exit 1; }
	note "backend $BACKEND"
	case_repro frag
	case_repro tx
	case_repro tx6
	case_repro xtcsum
	case_repro nfqueue
	case_repro xtcsum6
	case_repro nfqueue6
	print_table
	echo "frag: IP fragmentation on forward (veth MTU 576); tx: transmit without checksum offload;"
	echo "tx6: the same for IPv6 (csum_start 22, the source address);"
	echo "xtcsum: iptables -j CHECKSUM --checksum-fill; nfqueue: a queue reader in copy-packet mode;"
	echo "xtcsum6, nfqueue6: the same two for IPv6"
	echo "$n_pass passed, $n_fail failed"
	[ $n_fail = 0 ]
	exit
fi

# The unit binary: its lines, held to its own summary and exit status.
"$TOP/build/tests/unit" >"$TMPD/unit"
unit_rc=$? unit_p=0 unit_f=0 unit_sum=
while read -r r rest; do
	case $r in
	PASS) pass "$rest"; unit_p=$((unit_p + 1)) ;;
	FAIL) fail "$rest"; unit_f=$((unit_f + 1)) ;;
	unit:) unit_sum=$rest ;;
	*) echo "$r $rest" ;;
	esac
done <"$TMPD/unit"
if [ "$unit_sum" != "$unit_p passed, $unit_f failed" ] || [ $unit_p = 0 ] ||
   { [ $unit_f = 0 ] && [ $unit_rc != 0 ]; } || { [ $unit_f != 0 ] && [ $unit_rc != 1 ]; }; then
	fail "unit: exit status $unit_rc and summary '${unit_sum:-none}' do not match the $unit_p PASS and $unit_f FAIL lines read"
fi
check_probe_choice

# The guest kernels (make test): in the background while the host's cases run.
GUESTS_PID=
if [ $mode = all ] && [ -z "${CG_GUEST:-}" ] && [ -f tests/guests.sh ]; then
	. tests/guests.sh
	guests_start
fi

for b in bpf kmod; do
	[ -z "$only_backend" ] || [ "$b" = "$only_backend" ] || continue
	if backend_ok $b; then
		note "backend $b"
		run_backend $b
	else
		skip "backend $b on $(uname -r): $(backend_why $b)"
	fi
done
# (a guest booted for the module alone leaves them to the bpf boot)
if [ "$only_backend" != kmod ]; then
	BACKEND=kernel
	run_cases "${KERNEL_CASES[@]}"
fi
[ ${#ROWS[@]} -gt 0 ] && [ -n "$(printf '%s\n' "${ROWS[@]}" | grep -v '^backend ')" ] && print_table
leak_check
durations

[ -n "$GUESTS_PID" ] && guests_finish
[ -n "${MACHINE0:-}" ] && machine_check "$MACHINE0"

[ $mode = all ] && kernel_table && reliability_table
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ $n_fail = 0 ]
