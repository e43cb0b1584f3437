#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# watch.sh - what one `csum-guard watch` holds as the host's namespaces
# grow: its descriptors and its resident memory with WATCH_N namespaces
# (10 1000 5000), each watched (root's, named: ip netns add), measured on
# one watcher as they are added, against the first step of the same run.
#
#   netns $PFX-w0 .. $PFX-w<N-1>   lo only; the watcher gives each an id,
#                                  hears its link events and lists its links
#
# At each step, once the watcher has logged "watching netns" for every
# namespace added: ls /proc/PID/fd | wc -l, VmRSS and VmHWM of
# /proc/PID/status, and the seconds from the step's first namespace to the
# watcher's last "watching" line. The namespaces are deleted after.
set -u
. "$(dirname "$0")/lib.sh"

WATCH_N=${WATCH_N:-10 1000 5000}
WPID=

cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null && wait "$WPID" 2>/dev/null
	many_netns_down 'w*' 0
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# kB of FIELD (VmRSS, VmHWM) of the watcher
vm() { awk -v f="$1:" '$1 == f { print $2 }' /proc/"$WPID"/status; }

# the namespaces $PFX-wA .. $PFX-w<B-1>, in one ip batch
grow() {
	local i

	for ((i = $1; i < $2; i++)); do echo "netns add $PFX-w$i"; done | ip -batch - ||
		die "namespaces $1..$2"
}

[ "$(id -u)" = 0 ] || die "needs root"
mkdir -p "$TMPD"
: >"$TMPD/watch.out"
# its own --match: it guards nothing of the host's while it is measured
"$CG" watch --backend bpf --match "${PFX}zz*" --no-completion >"$TMPD/watch.out" 2>&1 &
WPID=$!
end=$((SECONDS + 60))
until grep -q '^ready: ' "$TMPD/watch.out"; do
	[ $SECONDS -lt $end ] && kill -0 $WPID 2>/dev/null || die "the watcher did not get ready"
	sleep 0.1
done

# a namespace is logged once, by the first way found to it: an `ip netns
# add` caught before its bind mount is logged by its process
base=$(grep -c '^watching netns ' "$TMPD/watch.out")
t_start=$(date +%s)
have=0
for n in $WATCH_N; do
	[ "$n" -gt "$have" ] || die "WATCH_N must grow: $WATCH_N"
	t0=$(now_us)
	grow "$have" "$n"
	have=$n
	end=$((SECONDS + 120 + n / 10))
	until [ $(($(grep -c '^watching netns ' "$TMPD/watch.out") - base)) -ge "$n" ]; do
		[ $SECONDS -lt $end ] && kill -0 $WPID 2>/dev/null ||
			die "the watcher saw $(($(grep -c '^watching netns ' "$TMPD/watch.out") - base)) of $n namespaces"
		sleep 0.2
	done
	t1=$(now_us)
	# a full rescan (2 s) after the last: what it holds between events
	sleep 2.5
	echo "$n $(ls /proc/$WPID/fd | wc -l) $(vm VmRSS) $(vm VmHWM) $(((t1 - t0) / 1000))" >>"$TMPD/raw"
	note "watch: $(tail -1 "$TMPD/raw")"
done
elapsed=$(($(date +%s) - t_start))

{
	echo "## watch on a fixed budget: descriptors and memory by namespaces watched"
	echo
	echo "| namespaces | descriptors | × first | RSS, kB | × first | peak RSS, kB | all seen, s after the step's first |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	awk 'NR == 1 { f = $2; r = $3 }
		{ printf "| %d | %d | %.2f | %d | %.2f | %d | %.1f |\n", $1, $2, $2 / f, $3, $3 / r, $4, $5 / 1000 }' \
		"$TMPD/raw"
	echo
	echo "Method: one \`csum-guard watch --backend bpf\` (a --match that guards nothing, so" \
		"only watching is measured) while named namespaces are added in \`ip -batch\` runs" \
		"up to each count of WATCH_N ($WATCH_N); at each, once it has logged every one and" \
		"one full rescan later: its descriptors (/proc/PID/fd) and VmRSS, VmHWM" \
		"(/proc/PID/status). The ratios are to the first count, in the same run. ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-step data (namespaces, fds, RSS kB, peak kB, ms)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result watch
