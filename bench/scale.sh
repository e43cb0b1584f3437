#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# scale.sh - what each command costs as the host grows: N taps guarded by
# the bpf backend, in N/2 named namespaces of two vnet_hdr taps each, one
# loader run per device (as watch or a VM manager's hook runs it).
#
#   netns $PFX-s0 .. $PFX-s<N/2-1>, each:   tap0 (up)   tap1 (up)
#
# For each N of SCALE_N (100 400 1600 2000):
#   attach      every tap, one `csum-guard attach` each: ms per tap
#   status      `status --json` and `status --prometheus` over the host, the
#               median of 3: seconds, with every tap listed
#   watch       a watcher (its own --match) running beside the N guards:
#               ms from the start of making a namespace with a tap to the
#               watcher's "guarded" line, for a named namespace (ip netns
#               add) and an unnamed one (unshare -n), the median of 3
#   detach      every tap, one `csum-guard detach` each: seconds, ms per tap
# and the growth of each figure from one N to the next beside the growth
# of N: a command that costs the same per device whatever the host holds
# grows by 1.00x per tap, and its totals as N does.
#
# It guards hundreds of devices on this host: never beside the test suite,
# whose leak check counts guards host-wide.
set -u
. "$(dirname "$0")/lib.sh"

SCALE_N=${SCALE_N:-100 400 1600 2000}
WPID=
UPID=

cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null && wait "$WPID" 2>/dev/null
	[ -n "$UPID" ] && kill "$UPID" 2>/dev/null
	many_netns_down '*' 1
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

now_ns() { date +%s%N; }

# topo_up N: N/2 namespaces of two taps each
topo_up() {
	local i

	many_netns "$PFX-s" $(($1 / 2)) || return 1
	for ((i = 0; i < $1 / 2; i++)); do
		printf 'tuntap add dev tap0 mode tap vnet_hdr\ntuntap add dev tap1 mode tap vnet_hdr\nlink set tap0 up\nlink set tap1 up\n' |
			ip -n "$PFX-s$i" -batch - || return 1
	done
}

topo_down() { many_netns_down 's*' 0; }

# each_tap VERB: VERB every tap, one loader run each
each_tap() {
	local i d

	for ((i = 0; i < N / 2; i++)); do
		for d in tap0 tap1; do
			if [ "$1" = attach ]; then
				"$CG" attach $d --netns "$PFX-s$i" --backend bpf --quiet
			else
				"$CG" detach $d --netns "$PFX-s$i" --quiet
			fi || die "$1 $d in $PFX-s$i failed"
		done
	done
}

# timed_status ARGS...: seconds of one status run
timed_status() {
	local t0

	t0=$(now_ns)
	"$CG" status "$@" >"$TMPD/status.out" || die "status $* failed"
	awk -v d=$(($(now_ns) - t0)) 'BEGIN { printf "%.3f", d / 1e9 }'
}

# watch_until LINE_PATTERN: until the watcher's log has it (10 s at most);
# the line's stamp on stdout. The lines are stamped as they come, so how
# often this looks is no part of the figure.
watch_until() {
	local i

	for ((i = 0; i < 200; i++)); do
		awk -v p="$1" '{ t = $1; $1 = "" } substr($0, 2) ~ p { print t; f = 1; exit } END { exit !f }' \
			"$TMPD/watch.out" && return 0
		sleep 0.05
	done
	return 1
}

# watch_latency KIND ROUND: ms from making a namespace with a matching tap
# to the watcher's "guarded" line for it
watch_latency() {
	local dev=${PFX}w$1$2 t0 t1

	t0=$(now_us)
	if [ "$1" = n ]; then
		ip netns add "$PFX-w$2" && ip -n "$PFX-w$2" tuntap add dev "$dev" mode tap vnet_hdr ||
			die "cannot make $dev"
	else
		unshare -n sleep 600 &
		UPID=$!
		until [ "$(readlink /proc/$UPID/ns/net)" != "$(readlink /proc/self/ns/net)" ]; do
			sleep 0.001
		done
		nsenter --net=/proc/$UPID/ns/net ip tuntap add dev "$dev" mode tap vnet_hdr ||
			die "cannot make $dev"
	fi
	t1=$(watch_until "^guarded $dev netns ") ||
		die "watch did not guard $dev: $(tail -3 "$TMPD/watch.out")"
	if [ "$1" = n ]; then
		"$CG" detach "$dev" --netns "$PFX-w$2" --quiet
		ip netns del "$PFX-w$2"
	else
		nsenter --net=/proc/$UPID/ns/net "$CG" detach "$dev" --quiet
		kill $UPID
		wait $UPID 2>/dev/null
		UPID=
	fi
	echo $(((t1 - t0) / 1000))
}

watch_round() {
	local r kind ms

	: >"$TMPD/watch.out"
	"$CG" watch --backend bpf --match "${PFX}w*" > >(stamp >"$TMPD/watch.out") 2>&1 &
	WPID=$!
	watch_until '^ready: ' >/dev/null || die "watch not ready: $(tail -3 "$TMPD/watch.out")"
	for r in 1 2 3; do
		for kind in n u; do
			ms=$(watch_latency $kind $r) && [ -n "$ms" ] || die "watch latency ($kind) not measured"
			echo "$N watch_$kind $ms" >>"$TMPD/raw"
		done
	done
	kill "$WPID"
	wait "$WPID" 2>/dev/null
	WPID=
}

one_n() {
	local t0 s r

	topo_up "$N" || die "cannot make $N taps"
	t0=$(now_ns)
	each_tap attach
	echo "$N attach_ms $(awk -v d=$(($(now_ns) - t0)) -v n="$N" 'BEGIN { printf "%.1f", d / 1e6 / n }')" \
		>>"$TMPD/raw"
	for r in 1 2 3; do
		s=$(timed_status --json)
		[ "$(jq '[.[] | select(.guarded)] | length' "$TMPD/status.out")" -ge "$N" ] ||
			die "status --json lists $(jq length "$TMPD/status.out") rows, not $N"
		echo "$N json $s" >>"$TMPD/raw"
		s=$(timed_status --prometheus)
		echo "$N prom $s" >>"$TMPD/raw"
	done
	watch_round
	t0=$(now_ns)
	each_tap detach
	echo "$N detach_s $(awk -v d=$(($(now_ns) - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')" >>"$TMPD/raw"
	topo_down
	note "scale: N=$N done: $(grep "^$N " "$TMPD/raw" | tr '\n' ' ')"
}

# med N CONF: the median of CONF's values at N
med() {
	awk -v n="$1" -v c="$2" '$1 == n && $2 == c { print $3 }' "$TMPD/raw" | stats3 | cut -d' ' -f1
}

t0=$(date +%s)
for N in $SCALE_N; do
	[ $((N % 2)) = 0 ] && [ "$N" -ge 2 ] || die "SCALE_N: even numbers of taps, not $N"
	one_n
done
elapsed=$(($(date +%s) - t0))

# growth A B: B / A as "4.00x"
growth() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (a > 0 ? b / a : 0) }'; }

{
	echo "## Scale: each command's cost with N guarded taps"
	echo
	echo "| taps | attach, ms per tap | status --json, s | --prometheus, s | detach all, s (ms per tap) | watch, named netns, ms | watch, unnamed netns, ms |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	for N in $SCALE_N; do
		d=$(med "$N" detach_s)
		echo "| $N | $(med "$N" attach_ms) | $(med "$N" json) | $(med "$N" prom) |" \
			"$d ($(awk -v d="$d" -v n="$N" 'BEGIN { printf "%.1f", d * 1000 / n }')) |" \
			"$(med "$N" watch_n) | $(med "$N" watch_u) |"
	done
	echo
	echo "Growth from one N to the next (linear: per-tap figures 1.00x, totals as N):"
	echo
	echo "| taps | N | attach per tap | status --json | --prometheus | detach all | watch named | watch unnamed |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	prev=
	for N in $SCALE_N; do
		if [ -n "$prev" ]; then
			echo "| $prev → $N | $(growth "$prev" "$N") |" \
				"$(growth "$(med "$prev" attach_ms)" "$(med "$N" attach_ms)") |" \
				"$(growth "$(med "$prev" json)" "$(med "$N" json)") |" \
				"$(growth "$(med "$prev" prom)" "$(med "$N" prom)") |" \
				"$(growth "$(med "$prev" detach_s)" "$(med "$N" detach_s)") |" \
				"$(growth "$(med "$prev" watch_n)" "$(med "$N" watch_n)") |" \
				"$(growth "$(med "$prev" watch_u)" "$(med "$N" watch_u)") |"
		fi
		prev=$N
	done
	echo
	echo "Method: for each N, N/2 named namespaces of two vnet_hdr taps (up), each tap" \
		"attached by its own \`csum-guard attach --backend bpf\` run, then \`status --json\`" \
		"and \`status --prometheus\` over the whole host (3 runs each, medians; the JSON" \
		"checked to list every tap guarded), then a \`csum-guard watch\` with its own" \
		"--match, from its ready line: 3 times a named namespace (\`ip netns add\` and a" \
		"tap in it) and an unnamed one (\`unshare -n\` and a tap in it), timed from the" \
		"start of making the namespace to the watcher's \"guarded\" line (medians), then" \
		"every tap detached by its own \`csum-guard detach\` run. A watcher's latency" \
		"holds one attach, so it is no lower than the attach figure. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-run data (taps figure value)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result scale
