# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# lib.sh - what the benchmarks share: paths, parameters, the machine line,
# statistics, the tap topology and the hooks measured on it.
#
# The tap topology (prog-cost.sh, tap-path.sh): one namespace, no peer.
#
#   netns $VM
#   +------------------------------------------------------------+
#   | tap0 10.0.0.1/24 (vnet_hdr)     ip_forward=1               |
#   |   tapwrite writes as the        route: blackhole 10.1.0.0/24|
#   |   guest 10.0.0.2 -> 10.1.0.2    (dropped right after the   |
#   |   [hook under test: tc ingress]  route lookup)              |
#   +------------------------------------------------------------+
#
# Every frame is written, received, run through the hook and routed into
# the blackhole in the writer's own context, so the writer's time per frame
# is the path's cost, and little follows the hook to dilute it.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BB=$BUILD/bench
CG=$BUILD/csum-guard
# shellcheck disable=SC2034  # used by the scripts that source this
GUARD_OBJ=$BUILD/csum_guard.bpf.o
EMPTY_OBJ=$BB/empty.bpf.o
# The simplest correct guard (bench/minimal.bpf.c): the anchor of prog-cost
MINIMAL_OBJ=$BB/minimal.bpf.o
# The same with the tests the guard's IPv4 pass path makes beyond it
MINIMAL_TESTS_OBJ=$BB/minimal-tests.bpf.o
# The guard as it was before the last optimisation of its fast path, built
# from git for the before/after rows (prog-cost.sh, testrun.sh).
BEFORE_REV=${BEFORE_REV:-e8a7eb6}
BEFORE_WHAT=${BEFORE_WHAT:-"the program before the common frames (untagged IPv4, and IPv6 with TCP or UDP behind the fixed header) took their own fast paths that read each field when the verdict needs it"}
BEFORE_OBJ=$BB/before/csum_guard.bpf.o
RESULTS=${RESULTS:-$BENCH_DIR/results}
. "$TOP/tests/lib/hostlock.sh"
[ "$(id -u)" = 0 ] && { host_lock "bench/${0##*/}" || exit 1; }

# Parameters; empty values (as make passes them) mean the default.
RUNS=${RUNS:-9}
# The CPU the writer runs on: the last one, away from CPU 0's housekeeping.
BENCH_CPU=${BENCH_CPU:-$(($(nproc) - 1))}

PFX=${CGB_PFX:-cgb$$}
VM=$PFX-vm
PINDIR=/sys/fs/bpf/$PFX
TMPD=$(mktemp -d /tmp/cg-bench.XXXXXX)

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

# "TOTAL STEAL" ticks of the benchmark's CPU (/proc/stat: user nice system
# idle iowait irq softirq steal)
cpu_ticks() {
	awk -v c="cpu$BENCH_CPU" '$1 == c { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9 }' \
		/proc/stat
}
# when this benchmark started
TICKS0=$(cpu_ticks)

# "AMD EPYC, 2 cores, kernel 6.18.44, ..., CPU 1 stolen: 0.4% of the run".
# On a VM, steal time is what the hypervisor gave to other guests: the
# measure of how quiet the machine was while this benchmark ran.
machine_line() {
	local model t0 s0 t1 s1 steal

	model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
	read -r t0 s0 <<<"$TICKS0"
	read -r t1 s1 <<<"$(cpu_ticks)"
	steal=$(awk -v t=$((t1 - t0)) -v s=$((s1 - s0)) \
		'BEGIN { printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }')
	echo "Machine: ${model:-unknown CPU}, $(nproc) cores, kernel $(uname -r)," \
		"$(date -u +%Y-%m-%d) UTC; CPU $BENCH_CPU was stolen by the hypervisor" \
		"for $steal of the run."
}

# --- statistics ---------------------------------------------------------

# median, min, max of the numbers on stdin, one per line: "med min max"
stats3() {
	sort -g | awk '{ v[NR] = $1 }
		END {
			if (!NR) { print "nan nan nan"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR]
		}'
}

# Raw files hold one line per measurement: "ROUND CONFIG VALUE...".
# col FILE CONFIG [N]: the Nth value (default 1) of CONFIG's lines
col() {
	awk -v c="$2" -v n="${3:-1}" '$2 == c { print $(2 + n) }' "$1"
}

# pairdiff FILE A B [N]: per round, A's Nth value minus B's
pairdiff() {
	awk -v a="$2" -v b="$3" -v n="${4:-1}" '
		$2 == a { va[$1] = $(2 + n) }
		$2 == b { vb[$1] = $(2 + n) }
		END { for (r in va) if (r in vb) printf "%.3f\n", va[r] - vb[r] }' "$1"
}

# printf a float with N decimals: fmt N VALUE
fmt() { LC_ALL=C printf "%.${1}f" "$2"; }

# a - b, a / b
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }

# The tree measured, as a run's heading names it: its commit, "-dirty"
# where anything but bench/results (what the last run wrote) differs from it
tree_rev() {
	local rev

	rev=$(git -C "$TOP" describe --always 2>/dev/null) || { echo "an unversioned tree"; return; }
	git -C "$TOP" diff --quiet HEAD -- . ':(exclude)bench/results' 2>/dev/null || rev=$rev-dirty
	echo "$rev"
}

# --- the guard before --------------------------------------------------

# Build the guard of $BEFORE_REV (its own Makefile, sources and compiler
# flags, from this checkout's history) into $BEFORE_OBJ, once per revision.
# Returns 1 and says why when it cannot: a tree without git history (an
# unpacked release) measures without the before rows.
BEFORE_WHY=
before_build() {
	local src=$BB/before/src stamp=$BB/before/rev rev

	if ! rev=$(git -C "$TOP" rev-parse --verify -q "$BEFORE_REV^{commit}"); then
		BEFORE_WHY="revision $BEFORE_REV is not in this tree's git history"
		return 1
	fi
	[ -e "$BEFORE_OBJ" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$rev" ] && return 0
	rm -rf "$BB/before" && mkdir -p "$src" || return 1
	if ! git -C "$TOP" archive "$rev" Makefile bpf include | tar -x -C "$src" ||
	   ! make -C "$src" -s BUILD=build build/csum_guard.bpf.o >"$BB/before/build.log" 2>&1; then
		BEFORE_WHY="cannot build the guard of $BEFORE_REV (see ${BB#"$TOP"/}/before/build.log)"
		return 1
	fi
	cp "$src/build/csum_guard.bpf.o" "$BEFORE_OBJ" && echo "$rev" >"$stamp"
}

# --- topology -----------------------------------------------------------

tap_topo_up() {
	# without udev (a test guest) nobody made /dev/net/tun: loading tun does
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns add "$VM" || return 1
	ip -n "$VM" link set lo up
	ip netns exec "$VM" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr || return 1
	ip -n "$VM" addr add 10.0.0.1/24 dev tap0
	ip -n "$VM" link set tap0 up
	ip -n "$VM" route add blackhole 10.1.0.0/24 || return 1
	ip netns exec "$VM" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.tap0.rp_filter=0
}

# The tap topology with the route out of a veth instead of the blackhole:
# veth vt0 without TX checksum offload, its peer in a second namespace that
# drops what it gets (no address, no forwarding). Each partial frame then
# has its checksum completed by skb_checksum_help() on vt0's transmit path:
# one call per packet.
tap_tx_up() {
	ip -n "$VM" route del blackhole 10.1.0.0/24 &&
	ip netns add "$VM-far" &&
	ip -n "$VM" link add vt0 type veth peer name vt1 netns "$VM-far" &&
	ip -n "$VM" addr add 10.1.0.1/24 dev vt0 &&
	ip -n "$VM" link set vt0 up &&
	ip -n "$VM-far" link set vt1 up &&
	ip -n "$VM" neigh replace 10.1.0.2 dev vt0 nud permanent \
		lladdr "$(ip -n "$VM-far" -o link show vt1 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')" &&
	ip netns exec "$VM" ethtool -K vt0 tx off >/dev/null
}

# Delete a namespace; what was attached in it goes with its devices.
netns_del() {
	ip netns del "$1" 2>/dev/null
	true
}

# many_netns NAME N: namespaces NAME0 .. NAME<N-1>, in one `ip -batch` run
many_netns() {
	local i

	for ((i = 0; i < $2; i++)); do echo "netns add $1$i"; done | ip -batch -
}

# many_netns_down GLOB DETACH: the run's namespaces $PFX-GLOB deleted in
# one `ip -batch` run; with DETACH 1 each one's guards detached first (a
# cleanup after a failure), with 0 not (they were)
many_netns_down() {
	local f

	for f in /run/netns/"$PFX"-$1; do
		[ -e "$f" ] || continue
		[ "$2" = 1 ] && "$CG" detach --all --netns "${f##*/}" --quiet 2>/dev/null
		echo "netns del ${f##*/}"
	done | ip -batch - 2>/dev/null
	true
}

# microseconds, without a process: what stamp marks a watcher's lines with
now_us() { echo "${EPOCHREALTIME/./}"; }

# stamp: each line of stdin with the microsecond it came at (a watcher's log)
stamp() {
	local l

	while IFS= read -r l; do
		echo "${EPOCHREALTIME/./} $l"
	done
}

# tapwrite KIND COUNT: "batch_ns wall_ns cpu_ns" per packet (see tapwrite.c)
tapwrite() {
	local out

	out=$("$BB/tapwrite" --netns "$VM" --dev tap0 --kind "$1" --count "$2" \
		--payload 64 --cpu "$BENCH_CPU") || return 1
	sed -n 's/.* wall_ns=\([0-9.]*\) cpu_ns=\([0-9.]*\) batch_ns=\([0-9.]*\)$/\3 \1 \2/p' <<<"$out"
}

# --- hooks --------------------------------------------------------------
#
# A configuration is "none" or PROGRAM-MODE, PROGRAM empty, guard or before
# (the guard of $BEFORE_REV, by attach --object), MODE tcx or clsact.
# hook_on sets HOOK_PROG to the id of the program it attached (for
# kernel.bpf_stats_enabled); hook_off removes it and checks that tap0 is
# left with no clsact qdisc: "none" must mean no hook.

HOOK_PROG=

# The guard's program id, from the loader's pins for tap0 in $VM.
guard_prog_id() {
	local ino ifindex dir

	ino=$(stat -L -c %i "/run/netns/$VM") || return 1
	ifindex=$(ip -n "$VM" -o link show dev tap0 | cut -d: -f1)
	dir=/sys/fs/bpf/csum_guard/$ino/$ifindex
	if [ -e "$dir/link" ]; then
		bpftool -j link show pinned "$dir/link" | jq -r .prog_id
	else
		bpftool -j prog show pinned "$dir/prog" | jq -r .id
	fi
}

hook_on() {
	local mode=${1#*-} out

	HOOK_PROG=
	case $1 in
	none)
		return 0 ;;
	empty-tcx|empty-clsact|minimal-tcx|minimal-clsact)
		mkdir -p "$PINDIR"
		out=$("$BB/attach-empty" attach --netns "$VM" --dev tap0 --mode "$mode" \
			--obj "$([ "${1%%-*}" = empty ] && echo "$EMPTY_OBJ" || echo "$MINIMAL_OBJ")" \
			--pin "$PINDIR/${1%%-*}-link") || return 1
		HOOK_PROG=${out#prog_id=} ;;
	guard-tcx|guard-clsact)
		"$CG" attach tap0 --netns "$VM" --backend bpf --mode "$mode" --quiet ||
			return 1
		HOOK_PROG=$(guard_prog_id) ;;
	before-tcx|before-clsact)
		"$CG" attach tap0 --netns "$VM" --backend bpf --mode "$mode" --quiet \
			--object "$BEFORE_OBJ" --sha256 "$(sha256sum <"$BEFORE_OBJ" | cut -d' ' -f1)" ||
			return 1
		HOOK_PROG=$(guard_prog_id) ;;
	kmod)
		"$CG" attach tap0 --netns "$VM" --backend kmod --quiet
		return ;;
	comp | comp-tx)
		"$CG" completion on --quiet
		return ;;
	none-tx)
		return 0 ;;
	*)
		die "unknown configuration $1" ;;
	esac
	[ -n "$HOOK_PROG" ] || die "no program id for $1"
}

hook_off() {
	local mode=${1#*-}

	case $1 in
	none) ;;
	empty-*|minimal-*)
		"$BB/attach-empty" detach --netns "$VM" --dev tap0 --mode "$mode" \
			--pin "$PINDIR/${1%%-*}-link" || return 1 ;;
	guard-*|before-*|kmod)
		"$CG" detach tap0 --netns "$VM" --quiet || return 1 ;;
	comp | comp-tx)
		"$CG" completion off --quiet || return 1 ;;
	none-tx) ;;
	esac
	if tc -n "$VM" qdisc show dev tap0 | grep -q clsact; then
		die "$1: tap0 still has a clsact qdisc after detach"
	fi
}

# Everything a tap benchmark may have left: hooks, pins, the namespace.
tap_cleanup() {
	[ -e "/run/netns/$VM" ] && "$CG" detach tap0 --netns "$VM" --quiet 2>/dev/null
	rm -f "$PINDIR/empty-link" "$PINDIR/minimal-link"
	rmdir "$PINDIR" 2>/dev/null
	netns_del "$VM"
	netns_del "$VM-far"
	rm -rf "$TMPD"
}

# "run_time_ns run_cnt" of a program (kernel.bpf_stats_enabled)
prog_stats() {
	bpftool -j prog show id "$1" | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# --- output -------------------------------------------------------------

# write_result NAME: stdin (a Markdown document) to $RESULTS/NAME.md and stdout
write_result() {
	mkdir -p "$RESULTS"
	tee "$RESULTS/$1.md.tmp" && mv "$RESULTS/$1.md.tmp" "$RESULTS/$1.md"
}

# The order of configurations for round R: rotated by R, so that each one
# takes every position equally often. rotate R CONF...
rotate() {
	local r=$1
	shift
	local n=$# i
	local a=("$@")
	for ((i = 0; i < n; i++)); do
		echo "${a[(i + r) % n]}"
	done
}
