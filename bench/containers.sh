#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# containers.sh - watch on a node of CT_N containers (500): how long a new
# container's veth waits for its guard with none and with CT_N present, and
# how long one watcher takes to guard CT_N containers made at once.
#
#   netns $PFX-node   ${PFX}h0 .. ${PFX}h<N-1>   the host ends (veth, up)
#   netns $PFX-c<i>   ${PFX}e<i>                 each container's end
#
# The node is a namespace of its own, not the host's: the rest of the host
# must not see CT_N veths come and go. One `csum-guard watch --backend bpf`
# with its own --match runs throughout, its log stamped as it comes.
#   new, 0 present      CT_ROUNDS times: a pair made in the node, one end
#                       then moved into a new namespace (as Docker and CNI
#                       plugins do it), ms from the move to the watcher's
#                       "guarded" line for the node's end: the median
#   CT_N made           CT_N namespaces and pairs made in two ip batches:
#                       s until every end of them (2 CT_N) is guarded
#   new, CT_N present   the first figure again, beside them
# Every guard is detached after (detach --all, one run per namespace).
set -u
. "$(dirname "$0")/lib.sh"

CT_N=${CT_N:-500}
CT_ROUNDS=${CT_ROUNDS:-5}
NODE=$PFX-node
WPID=

cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null && wait "$WPID" 2>/dev/null
	many_netns_down '*' 1
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# until PATTERN SECONDS: the stamp of the watcher's first line matching it
until_line() {
	local end=$((SECONDS + $2))

	while [ $SECONDS -lt $end ]; do
		awk -v p="$1" '{ t = $1; $1 = "" } substr($0, 2) ~ p { print t; f = 1; exit } END { exit !f }' \
			"$TMPD/watch.out" && return 0
		sleep 0.05
	done
	return 1
}

# new_one TAG: a container made as a runtime makes it; ms to its host end's guard
new_one() {
	local h=${PFX}x$1 c=${PFX}y$1 ns=$PFX-n$1 t0 t1

	ip netns add "$ns" || die "netns $ns"
	ip -n "$NODE" link add "$h" type veth peer name "$c" || die "veth $h"
	ip -n "$NODE" link set "$h" up
	t0=$(now_us)
	ip -n "$NODE" link set "$c" netns "$ns" || die "move $c"
	t1=$(until_line "^guarded $h netns " 30) || die "$h not guarded within 30 s"
	echo $(((t1 - t0) / 1000))
}

[ "$(id -u)" = 0 ] || die "needs root"
ip netns add "$NODE" || die "netns $NODE"
: >"$TMPD/watch.out"
"$CG" watch --backend bpf --match "$PFX*" --no-completion 2>&1 | stamp >"$TMPD/watch.out" &
WPID=$!
until_line '^ready: ' 60 >/dev/null || die "the watcher did not get ready"

t_start=$(date +%s)
for ((r = 0; r < CT_ROUNDS; r++)); do
	echo "0 new $(new_one a$r)" >>"$TMPD/raw"
done
note "containers: none present: $(grep '^0 new' "$TMPD/raw" | cut -d' ' -f3 | tr '\n' ' ')ms"

# CT_N containers at once
t0=$(now_us)
many_netns "$PFX-c" "$CT_N" || die "namespaces"
for ((i = 0; i < CT_N; i++)); do
	printf 'link add %s type veth peer name %s netns %s\nlink set %s up\n' \
		"${PFX}h$i" "${PFX}e$i" "$PFX-c$i" "${PFX}h$i"
done | ip -n "$NODE" -batch - || die "veths"
t1=$(now_us)
want=$((2 * CT_N + 2 * CT_ROUNDS))	# and both ends of the first rounds
end=$((SECONDS + 1800))
until [ "$(grep -c ' guarded ' "$TMPD/watch.out")" -ge $want ]; do
	[ $SECONDS -lt $end ] || die "not every end guarded within 1800 s"
	sleep 0.5
done
t2=$(awk '$2 == "guarded" { t = $1 } END { print t }' "$TMPD/watch.out")
made_s=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", d / 1e6 }')
guard_s=$(awk -v d=$((t2 - t0)) 'BEGIN { printf "%.1f", d / 1e6 }')
failed=$(grep -c '^[0-9]* cannot guard ' "$TMPD/watch.out")
note "containers: $CT_N made in ${made_s}s, all guarded ${guard_s}s from the start, $failed failures"

for ((r = 0; r < CT_ROUNDS; r++)); do
	echo "$CT_N new $(new_one b$r)" >>"$TMPD/raw"
done
note "containers: $CT_N present: $(grep "^$CT_N new" "$TMPD/raw" | cut -d' ' -f3 | tr '\n' ' ')ms"
elapsed=$(($(date +%s) - t_start))

med() { awk -v n="$1" '$1 == n { print $3 }' "$TMPD/raw" | stats3; }
{
	echo "## Containers: watch's latency for a new container's veth"
	echo
	echo "| containers present | new container guarded, ms (median, min, max) |"
	echo "|---:|---:|"
	set -- $(med 0)
	echo "| 0 | $1 ($2, $3) |"
	set -- $(med "$CT_N")
	echo "| $CT_N | $1 ($2, $3) |"
	echo
	echo "$CT_N containers made at once (namespaces and pairs in two \`ip -batch\` runs," \
		"${made_s} s): every one of their $((2 * CT_N)) ends guarded ${guard_s} s after" \
		"the first was made, $failed failures."
	echo
	echo "Method: one \`csum-guard watch --backend bpf\` with its own --match, in a node" \
		"namespace of its own; a new container is a veth pair made in the node and one" \
		"end moved into a new namespace, as container runtimes do it, timed from the" \
		"move to the watcher's \"guarded\" line for the end left in the node (the kernel" \
		"tells nothing of that end: the watcher asks for it when its peer leaves)," \
		"$CT_ROUNDS times with none present and again with $CT_N present. Each guard is" \
		"one attach in a child process, as for a tap (see scale.md). ${elapsed}s."
	echo
	machine_line
	echo
	echo "<details><summary>Per-run data (present, figure, ms)</summary>"
	echo
	echo '```'
	cat "$TMPD/raw"
	echo '```'
	echo "</details>"
} | write_result containers
