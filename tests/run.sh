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
# The cases are in tests/cases/, each registered next to its function, and
# run in order, each in a subshell of its own (tests/lib/cases.sh).
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
. tests/lib/prom.sh
. tests/lib/expect.sh
. tests/lib/syncookie.sh
. tests/lib/cases.sh
. tests/lib/hostlock.sh

# A process and everything under it (the background guests: QEMU included).
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}

cleanup() {
	[ -n "${GUESTS_PID:-}" ] && kill -0 "$GUESTS_PID" 2>/dev/null && kill_tree "$GUESTS_PID"
	cg_stop
	topo_down
	sc_down
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cases_source tests/cases || exit 2

if [ "$(id -u)" != 0 ]; then
	echo "tests/run.sh: must be run as root (it creates namespaces and taps)" >&2
	exit 1
fi
# One suite or bench at a time on a host: each compares the host's programs,
# pins and firewall at its end with its start, so another's would be its leaks.
host_lock "tests/run.sh" || exit 1
for b in "$CG" "$INJECT" "$SNIFF" "$NFQ" "$STREAM" "$BLD/tests/unit" "$SYN" "$HOOKS" "$KDUMP"; do
	[ -x "$b" ] || { echo "tests/run.sh: $b is missing: run make first" >&2; exit 1; }
done
# What the suite needs of this machine: all of it, or no case runs.
if ! preflight $mode; then
	echo "tests/run.sh: this machine lacks what the suite needs (above)" >&2
	results_tally
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	exit 1
fi
# What it may change outside its namespaces, to compare at the end.
[ $mode != demo ] && [ -z "${CG_GUEST:-}" ] && MACHINE0=$(machine_snapshot)

# Which backends this kernel runs, from the loader's own probe.
PROBE=$("$CG" probe --json)
BPF_OK=$(jq -r 'if .bpf_unavailable == null then 1 else 0 end' <<<"$PROBE")
KMOD_OK=$(jq -r 'if .kmod_unavailable == null then 1 else 0 end' <<<"$PROBE")

# run_cases CASE...: those the --case filter lets through, each timed
run_cases() {
	local c t0
	for c; do
		cg_selected "$c" || continue
		t0=$SECONDS
		cg_run "$c" "$BACKEND"
		echo "$((SECONDS - t0)) $c [$BACKEND]" >>"$TMPD/durations"
	done
}

# The cases of every backend (cg_case), in order.
run_backend() {
	BACKEND=$1
	repro_row "backend $BACKEND"
	run_cases "${CG_CASES[@]}"
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

	# (a case's namespaces are gone after it, and recorded if it left any)
	{ ip netns list | grep -q "^$CG_PFX-" || [ -s "$TMPD/netns-left" ]; } && left="$left netns"
	[ "$(pin_list)" != "$PINS0" ] && left="$left pins"
	[ "$(prog_count)" != "$PROGS0" ] && left="$left programs"
	[ "$(sc_progs)" != "$SC_PROGS0" ] && left="$left syncookie-programs"
	if [ -d /sys/module/csum_guard ]; then
		[ "$(guarded_json 2>/dev/null)" = "[]" ] || left="$left guarded-devices"
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
PROGS0=$(prog_count)
SC_PROGS0=$(sc_progs)
PINS0=$(pin_list)
note "kernel $(uname -r); probe picks $(jq -r '.backend // "none"' <<<"$PROBE"): $(jq -r .reason <<<"$PROBE")"

if [ $mode = demo ]; then
	for BACKEND in bpf kmod; do backend_ok $BACKEND && break; done
	backend_ok $BACKEND || { echo "csum-guard demo: no backend runs here: $(jq -r .reason <<<"$PROBE")" >&2; exit 1; }
	note "backend $BACKEND"
	for c in "${CG_DEMO_CASES[@]}"; do
		cg_run "$c" "$BACKEND"
	done
	print_table
	echo "frag: IP fragmentation on forward (veth MTU 576); tx: transmit without checksum offload;"
	echo "tx6: the same for IPv6 (csum_start 22, the source address);"
	echo "xtcsum: iptables -j CHECKSUM --checksum-fill; nfqueue: a queue reader in copy-packet mode;"
	echo "xtcsum6, nfqueue6: the same two for IPv6"
	results_tally
	echo "$n_pass passed, $n_fail failed"
	[ $n_fail = 0 ]
	exit
fi

# The unit binary: its lines, held to its own summary and exit status.
"$BLD/tests/unit" >"$TMPD/unit"
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
# The cases that do not depend on the checksum guard's backend (the
# SYN-cookie responder, cg_kernel_case), once per kernel (a guest booted for
# the module alone leaves them to the bpf boot).
if [ "$only_backend" != kmod ]; then
	BACKEND=kernel
	run_cases "${CG_KERNEL_CASES[@]}"
fi
repro_rows && print_table
leak_check
durations

[ -n "$GUESTS_PID" ] && guests_finish
[ -n "${MACHINE0:-}" ] && machine_check "$MACHINE0"

[ $mode = all ] && kernel_table && topology_table && reliability_table
# (not a failure: a namespace deleted with its guards on is a host's everyday
# event; said at the end, where a log's tail shows it, because the next case's
# counts would have met it)
[ -s "$TMPD/state-reaped" ] &&
	note "cases that left the state of guards in namespaces now gone (removed after each):" \
		"$(sort -u "$TMPD/state-reaped" | paste -sd, | sed 's/,/, /g')"
results_tally
failures_recap
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ $n_fail = 0 ]
