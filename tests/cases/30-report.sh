# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 30-report.sh - what the guard says of its drops: a line each in the drop
# log, and counters that count each of them, on every CPU, in each format.

# The optional drop log: a drop event per drop, which `csum-guard events`
# writes with the fields that tell an operator what was dropped: the
# namespace and device by name, where csum_start and the IP header lay in
# the frame, the IHL. Three drops of different shapes, in order: 6 bytes
# into an IHL 5 header, 16 into an IHL 6 one, and an IHL field of 4
# (unreadable), so that a field swapped or dropped shows. The bpf backend
# reports through a ring buffer (no tracefs), the module through its
# netlink group; each has a budget of its own, so a flood neither floods the
# log nor spends the host's net_ratelimit.
LOG_SHAPES=("--csum-start 20 --csum-offset 6" "--ihl 6 --csum-start 30 --csum-offset 6"
	"--ihl-field 4 --csum-start 34 --csum-offset 6")
LOG_WANT="20 14 5 csum_start,30 14 6 csum_start,34 14 4 unreadable"

case_log_drops() {
	local t="log-drops [$BACKEND]" got shape lines held rings i

	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	ip -n "$VM" tuntap add dev tap1 mode tap vnet_hdr && ip -n "$VM" link set tap1 up &&
		guard_on --log-drops &&
		"$CG" attach tap1 --netns "$VM" --backend "$BACKEND" --log-drops --quiet ||
		{ fail "$t: set-up"; topo_down; return; }
	if [ "$BACKEND" = bpf ]; then
		# one ring for the host, whatever the number of guards
		rings=$(bpftool map show | grep -c "ringbuf  name $CG_EVENTS_MAP ")
		expect_eq "event rings" 1 "$rings"
	else
		dmesg -C
	fi
	events_start "$TMPD/ev" || unexpected "events" "could not start reading them"
	for shape in "${LOG_SHAPES[@]}"; do
		ip netns exec "$VM" "$INJECT" --dev tap0 $shape
	done
	# a flood on tap1: at most 10 lines a second, the rest counted
	ip netns exec "$VM" "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --count 60
	sleep 1.2
	events_stop
	got=$(jq -r --arg ns "$VM" --arg b "$BACKEND" 'select(.netns == $ns and .device == "tap0" and
		.backend == $b and .where == "ingress" and .protocol == "IPv4" and
		.offsets_from == "frame") | "\(.csum_start) \(.ip_header) \(.ihl) \(.reason)"' \
		"$TMPD/ev" | paste -sd,)
	expect_eq "tap0's events (csum_start, IP header, IHL, reason)" "$LOG_WANT" "$got"
	lines=$(jq -r --arg ns "$VM" 'select(.netns == $ns and .device == "tap1" and .csum_start == 20)' \
		"$TMPD/ev" | jq -s length)
	held=$(jq --arg ns "$VM" 'select(.netns == $ns and .device == "tap1") | .not_logged // 0' \
		"$TMPD/ev" | jq -s add)
	{ [ "$lines" -le 20 ] && [ $((lines + held)) = 60 ]; } ||
		unexpected "the flood on tap1" "expected at most 20 lines and the rest of 60 counted, saw $lines + $held"
	if [ "$BACKEND" = kmod ]; then
		# the kernel log keeps a line per drop, on a budget of its own
		dmesg >"$TMPD/dmesg"
		expect_grep "the kernel log" 'csum_guard: tap0: dropped ingress IPv4 packet, IP header unreadable: csum_start 34, IP header at 14, ihl 4$' \
			"$TMPD/dmesg"
		grep -q 'net_ratelimit' "$TMPD/dmesg" && unexpected "the kernel log" "expected no net_ratelimit line, saw one"
	fi
	"$CG" detach tap1 --netns "$VM" --quiet
	guard_off
	if [ "$BACKEND" = bpf ]; then
		# the ring goes with the last program, freed after a grace period
		for i in $(seq 50); do
			rings=$(bpftool map show | grep -c "ringbuf  name $CG_EVENTS_MAP ")
			[ "$rings" = 0 ] && break
			sleep 0.1
		done
		expect_eq "event rings left" 0 "$rings"
	fi
	expect_clean || unexpected "events" "$(head -c 600 "$TMPD/ev")"
	expect_verdict "$t" "csum-guard events named tap0 in netns $VM for 3 drops, csum_start/IP header/IHL $LOG_WANT; a flood of 60 on tap1: $lines lines and $held counted$([ "$BACKEND" = bpf ] && echo "; one ring for both guards, gone with them")"
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
	local t="counters [$BACKEND]" c ncpu want_d=0 want_u=0 json prom got percpu=

	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	guard_on || { fail "$t: attach failed"; topo_down; return; }
	ncpu=$(nproc)
	for c in $(seq 0 $((ncpu - 1))); do
		expect_ok "inject on CPU $c" taskset -c "$c" ip netns exec "$VM" "$INJECT" --dev tap0 \
			--payload 64 --csum-start 20 --csum-offset 6 --count $((c + 1))
		expect_ok "inject unreadable on CPU $c" taskset -c "$c" ip netns exec "$VM" "$INJECT" \
			--dev tap0 --payload 64 --ihl-field 4 --csum-start 34 --csum-offset 6 --count $((2 * c + 3))
		want_d=$((want_d + c + 1)) want_u=$((want_u + 2 * c + 3))
		percpu="$percpu $c:$((c + 1)):$((2 * c + 3))"
	done
	json=$("$CG" status tap0 --netns "$VM" --json | jq -r '"\(.dropped) \(.dropped_unreadable)"')
	expect_eq "status --json's dropped, unreadable" "$want_d $want_u" "$json"
	"$CG" status --netns "$VM" --prometheus >"$TMPD/counters.prom"
	prom=$(prom_parse "$FLEET_METRICS" <"$TMPD/counters.prom" 2>&1 |
		awk -F '\t' -v ns="$VM" '$2 == "tap0" && $3 == ns { v[$1] = $NF }
			END { print v["csum_guard_guarded"], v["csum_guard_dropped_total/header"], v["csum_guard_dropped_total/unreadable"] }')
	expect_eq "--prometheus's guarded, dropped, unreadable" "1 $want_d $want_u" "$prom"
	if [ "$BACKEND" = bpf ]; then
		# tap0's entry in the map its running program counts in, keyed
		# by its namespace's cookie and its ifindex
		got=$(bpftool map dump id "$(guard_map_id "$VM" tap0 dev_counters)" -j 2>/dev/null |
			jq -r --argjson c "$(ip netns exec "$VM" "$HOOKS" --netns-cookie)" \
				--argjson i "$(ip netns exec "$VM" cat /sys/class/net/tap0/ifindex)" \
				'.[] | (.formatted // .) | select(.key.netns_cookie == $c and .key.ifindex == $i) |
				.values[] | " \(.cpu):\(.value.cnt[0]):\(.value.cnt[1])"' | tr -d '\n')
		expect_eq "the kernel's per-CPU counters (cpu:dropped:unreadable)" "$percpu" "$got"
	fi
	expect_verdict "$t" "on each of $ncpu CPUs its own number of frames of each kind: [$want_d,$want_u] in JSON and Prometheus$([ "$BACKEND" = bpf ] && echo ", and per CPU in the kernel's map")"
	guard_off
	topo_down
}
cg_case counters
