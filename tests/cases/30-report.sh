# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 30-report.sh - what the guard says of its drops: a line each in the drop
# log, and counters that count each of them, on every CPU, in each format.

# The optional drop log writes one line per drop, with the fields that
# tell an operator what was dropped: the device, and where csum_start lay
# against the IP header. Three drops of different shapes, in order: 6 bytes
# into an IHL 5 header, 16 into an IHL 6 one, and an IHL field of 4
# (unreadable), so that a field swapped or dropped shows.
LOG_SHAPES=("--csum-start 20 --csum-offset 6" "--ihl 6 --csum-start 30 --csum-offset 6"
	"--ihl-field 4 --csum-start 34 --csum-offset 6")
LOG_WANT="6 0x45,16 0x46,20 0x44"	# csum_start - L3 header, version/IHL byte

case_log_drops() {
	local t="log-drops [$BACKEND]" trace=/sys/kernel/tracing was_on out got ifx shape

	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	ifx=$(ip -n "$VM" -o link show tap0 | cut -d: -f1)
	if [ "$BACKEND" = bpf ]; then
		[ -e $trace/trace ] || mount -t tracefs tracefs $trace 2>/dev/null
		# tracing switched off (by whoever): the loader says so, and the
		# case switches it on for its own lines and back afterwards
		was_on=$(cat $trace/tracing_on 2>/dev/null || echo 1)
		if [ "$was_on" = 0 ]; then
			out=$("$CG" attach tap0 --netns "$VM" --backend "$BACKEND" --log-drops 2>&1)
			grep -q 'tracing is off' <<<"$out" || fail "$t: tracing off, attach said: $out"
			echo 1 >$trace/tracing_on
		fi
		guard_on --log-drops || { fail "$t: set-up"; topo_down; return; }
		echo > $trace/trace
		for shape in "${LOG_SHAPES[@]}"; do
			ip netns exec "$VM" "$INJECT" --dev tap0 $shape
		done
		# "ifindex=N csum_start=A network_header=B vhl=0xV" -> "A-B 0xV", per line
		got=$(grep 'csum_guard: drop' $trace/trace |
			sed -n 's/.*drop ifindex=\([0-9]*\) csum_start=\([0-9]*\) network_header=\([0-9]*\) vhl=\(0x[0-9a-f]*\)$/\1 \2 \3 \4/p' |
			awk -v ifx="$ifx" '{ d = ($1 == ifx) ? $2 - $3 : "ifindex" $1
				printf "%s%s %s", (NR > 1) ? "," : "", d, $4 }')
		if [ "$got" = "$LOG_WANT" ]; then
			pass "$t: 3 trace lines for 3 drops, each with tap0's ifindex $ifx and csum_start-L3/vhl $got$([ "$was_on" = 0 ] && echo "; with tracing off, attach said so")"
		else
			fail "$t: trace lines say '$got', want '$LOG_WANT' (tap0 is ifindex $ifx): $(grep 'csum_guard: drop' $trace/trace | head -3 | tr '\n' ' ')"
		fi
		echo > $trace/trace
		[ "$was_on" = 0 ] && echo 0 >$trace/tracing_on
	else
		guard_on --log-drops || { fail "$t: set-up"; topo_down; return; }
		dmesg -C
		for shape in "${LOG_SHAPES[@]}"; do
			ip netns exec "$VM" "$INJECT" --dev tap0 $shape
		done
		# "tap0: dropped ingress IPv4 packet, WHY: csum_start A, L3 header at B, ihl I"
		got=$(dmesg | grep 'csum_guard: .*dropped' |
			sed -n 's/.*csum_guard: \([^:]*\): dropped ingress IPv4 packet, \(checksum start inside the IP header\|IP header unreadable\): csum_start \([0-9]*\), L3 header at \([0-9]*\), ihl \([0-9]*\)$/\1 \2 \3 \4 \5/p' |
			awk '{ d = ($1 == "tap0") ? $(NF - 2) - $(NF - 1) : "dev" $1
				printf "%s%s 0x4%x", (NR > 1) ? "," : "", d, $NF }')
		if [ "$got" = "$LOG_WANT" ] &&
		   [ "$(dmesg | grep -c 'csum_guard: tap0: dropped ingress IPv4 packet, IP header unreadable')" = 1 ]; then
			pass "$t: 3 kernel log lines for 3 drops, each naming tap0, ingress and IPv4, csum_start-L3/IHL $got, the unreadable one so called"
		else
			fail "$t: kernel log says '$got', want '$LOG_WANT': $(dmesg | grep 'csum_guard' | tail -3 | tr '\n' ' ')"
		fi
	fi
	guard_off
	topo_down
}
cg_case log_drops

# The counters count every drop on every CPU, each kind in its own
# counter, and JSON and Prometheus each say what the case itself sent. The
# injector is pinned to each CPU in turn (a tap runs its receive path on
# the writer's CPU) and sends a different number of frames of each kind
# there, so a CPU left out of the sum, or two counters swapped, shows. For
# bpf the per-CPU slots of the counters map are read from the kernel too.
case_counters() {
	local t="counters [$BACKEND]" c ncpu want_d=0 want_u=0 json prom got percpu= why=

	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	guard_on || { fail "$t: attach failed"; topo_down; return; }
	ncpu=$(nproc)
	for c in $(seq 0 $((ncpu - 1))); do
		taskset -c "$c" ip netns exec "$VM" "$INJECT" --dev tap0 --payload 64 \
			--csum-start 20 --csum-offset 6 --count $((c + 1)) || why="$why; inject on CPU $c failed"
		taskset -c "$c" ip netns exec "$VM" "$INJECT" --dev tap0 --payload 64 \
			--ihl-field 4 --csum-start 34 --csum-offset 6 --count $((2 * c + 3)) ||
			why="$why; inject on CPU $c failed"
		want_d=$((want_d + c + 1)) want_u=$((want_u + 2 * c + 3))
		percpu="$percpu $c:$((c + 1)):$((2 * c + 3))"
	done
	json=$("$CG" status tap0 --netns "$VM" --json | jq -r '"\(.dropped) \(.dropped_unreadable)"')
	[ "$json" = "$want_d $want_u" ] || why="$why; status --json says [${json/ /,}], sent [$want_d,$want_u]"
	"$CG" status --netns "$VM" --prometheus >"$TMPD/counters.prom"
	prom=$(prom_parse "$FLEET_METRICS" <"$TMPD/counters.prom" 2>&1 |
		awk -F '\t' -v ns="$VM" '$2 == "tap0" && $3 == ns { v[$1] = $NF }
			END { print v["csum_guard_guarded"], v["csum_guard_dropped_total"], v["csum_guard_dropped_unreadable_total"] }')
	[ "$prom" = "1 $want_d $want_u" ] || why="$why; --prometheus says guarded/dropped/unreadable '$prom', sent 1 $want_d $want_u"
	if [ "$BACKEND" = bpf ]; then
		got=$(bpftool map dump pinned "$(find "/sys/fs/bpf/csum_guard/$(stat -L -c %i "/run/netns/$VM")" \
			-name counters | head -1)" -j 2>/dev/null |
			jq -r '[.[].formatted | .key as $k | .values[] | {cpu, k: $k, v: .value}] | group_by(.cpu)[] |
				" \(.[0].cpu):\(map(select(.k == 0))[0].v):\(map(select(.k == 1))[0].v)"' | tr -d '\n')
		[ "$got" = "$percpu" ] || why="$why; the kernel's per-CPU counters are '$got', sent '$percpu' (cpu:dropped:unreadable)"
	fi
	if [ -z "$why" ]; then
		pass "$t: on each of $ncpu CPUs its own number of frames of each kind: [$want_d,$want_u] in JSON and Prometheus$([ "$BACKEND" = bpf ] && echo ", and per CPU in the kernel's map")"
	else
		fail "$t: ${why#; }"
	fi
	guard_off
	topo_down
}
cg_case counters
