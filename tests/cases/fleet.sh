# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# fleet.sh - status of every namespace of the host at once, and its
# Prometheus text exposition for node_exporter's textfile collector.

# prom_parse: a strict reader of the text format (0.0.4) on stdin. Each
# metric family has one HELP and one TYPE before its samples, which come
# together; names, labels, escapes (\\ \" \n only) and values are checked.
# Prints a sample per line: name, device, netns, backend, mode, egress
# ("-" when absent), value, tab-separated, label values unescaped. Exits 1
# with the first fault on stderr, or when a family in $1 has no HELP/TYPE.
prom_parse() {
	awk -v want="$1" '
	function bad(why) {
		printf "prometheus line %d: %s: %s\n", NR, why, $0 >"/dev/stderr"
		err = 1
		exit 1
	}
	BEGIN { NAME = "^[a-zA-Z_:][a-zA-Z0-9_:]*" }
	/^# HELP / {
		rest = substr($0, 8)
		if (!match(rest, NAME))
			bad("HELP without a metric name")
		m = substr(rest, 1, RLENGTH)
		text = substr(rest, RLENGTH + 1)
		if (text != "" && substr(text, 1, 1) != " ")
			bad("bad metric name in HELP")
		if (m in help || m in seen)
			bad("HELP twice or after the samples")
		for (t = text; (i = index(t, "\\")) > 0; t = substr(t, i + 2))
			if (substr(t, i + 1, 1) !~ /^[\\n]$/)
				bad("bad escape in HELP")
		help[m] = 1
		next
	}
	/^# TYPE / {
		if (split(substr($0, 8), f, " ") != 2 || substr($0, 8) != f[1] " " f[2])
			bad("TYPE takes a name and a type")
		if (f[1] !~ (NAME "$"))
			bad("bad metric name in TYPE")
		if (f[2] !~ /^(counter|gauge|histogram|summary|untyped)$/)
			bad("unknown type")
		if (f[1] in type || f[1] in seen)
			bad("TYPE twice or after the samples")
		type[f[1]] = f[2]
		next
	}
	/^#/ { bad("a comment other than HELP or TYPE") }
	{
		line = $0
		if (!match(line, NAME))
			bad("no metric name")
		m = substr(line, 1, RLENGTH)
		line = substr(line, RLENGTH + 1)
		if (!(m in type) || !(m in help))
			bad("sample before the HELP and TYPE of " m)
		if (m != cur && m in seen)
			bad("the samples of " m " are not together")
		cur = m
		seen[m] = 1
		split("", lab)
		if (substr(line, 1, 1) == "{") {
			line = substr(line, 2)
			while (substr(line, 1, 1) != "}") {
				if (!match(line, /^[a-zA-Z_][a-zA-Z0-9_]*="/))
					bad("bad label name")
				ln = substr(line, 1, RLENGTH - 2)
				line = substr(line, RLENGTH + 1)
				if (ln in lab)
					bad("label " ln " twice")
				v = ""
				for (;;) {
					c = substr(line, 1, 1)
					line = substr(line, 2)
					if (c == "")
						bad("unterminated label value")
					if (c == "\"")
						break
					if (c == "\\") {
						c = substr(line, 1, 1)
						line = substr(line, 2)
						if (c == "n")
							c = "\n"
						else if (c != "\\" && c != "\"")
							bad("bad escape in a label value")
					}
					v = v c
				}
				lab[ln] = v
				c = substr(line, 1, 1)
				if (c == ",")
					line = substr(line, 2)
				else if (c != "}")
					bad("a label value not followed by , or }")
			}
			line = substr(line, 2)
		}
		if (line !~ /^ ([-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?Inf|NaN)( -?[0-9]+)?$/)
			bad("bad value")
		split(line, f, " ")
		if (type[m] == "counter" && f[1] !~ /^\+?[0-9]/)
			bad("a counter below 0 or not a number")
		for (ln in lab)
			if (lab[ln] ~ /\t/)
				bad("a tab in a label value")
		print m "\t" lab["device"] "\t" lab["netns"] "\t" lab["backend"] "\t" \
			lab["mode"] "\t" (("egress" in lab) ? lab["egress"] : "-") "\t" f[1]
	}
	END {
		if (err)
			exit 1
		n = split(want, w, " ")
		for (i = 1; i <= n; i++)
			if (!(w[i] in help) || !(w[i] in type)) {
				printf "prometheus: no HELP or TYPE for %s\n", w[i] >"/dev/stderr"
				exit 1
			}
	}'
}

FLEET_METRICS="csum_guard_guarded csum_guard_dropped_total csum_guard_dropped_unreadable_total"

# What the Prometheus output must hold for the JSON rows whose netns_ino is
# in $1 (a JSON array), in prom_parse's form.
prom_expect() {
	jq -r --argjson inos "$1" '.[] | select(.netns_ino as $i | $inos | index($i)) |
		[.device, .netns // "", .backend, .mode] as $l |
		(["csum_guard_guarded"] + $l + [(.egress | tostring), "1"]),
		(["csum_guard_dropped_total"] + $l + ["-", (.dropped | tostring)]),
		(["csum_guard_dropped_unreadable_total"] + $l + ["-", (.dropped_unreadable | tostring)]) |
		join("\t")'
}

fleet_cleanup() {
	local d
	for d in "${fleet_devs[@]}"; do
		"$CG" detach "${d%%|*}" --netns "${d#*|}" --quiet 2>/dev/null
	done
	[ -n "${fleet_pid:-}" ] && { kill "$fleet_pid"; wait "$fleet_pid" 2>/dev/null; }
	ip netns del "$CG_PFX-fleet1" 2>/dev/null
	ip netns del "$CG_PFX-fleet2" 2>/dev/null
	fleet_pid=
}

# Taps guarded in two named namespaces and an unnamed one: `status` with no
# DEV and no --netns reports each once, by name or /proc path, with its own
# counters; --prometheus says the same in a form node_exporter reads.
case_fleet() {
	local t="fleet [$BACKEND]" n1=$CG_PFX-fleet1 n2=$CG_PFX-fleet2 p=f$(($$ % 100000))
	local u ino1 ino2 ino3 inos json prom want got d bad="" rc mode
	local dev1=${p}a dev2="${p}\"q\\" dev3=${p}u

	fleet_devs=() fleet_pid=
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	unshare -n sleep 120 &
	fleet_pid=$!
	u=/proc/$fleet_pid/ns/net
	sleep 0.2
	if ! { ip netns add "$n1" && ip netns add "$n2" &&
	       ip -n "$n1" tuntap add dev "$dev1" mode tap vnet_hdr &&
	       ip -n "$n1" link set "$dev1" up &&
	       ip -n "$n2" tuntap add dev "$dev2" mode tap vnet_hdr &&
	       ip -n "$n2" link set "$dev2" up &&
	       nsenter --net="$u" ip tuntap add dev "$dev3" mode tap vnet_hdr &&
	       nsenter --net="$u" ip link set "$dev3" up; }; then
		fail "$t: set-up"
		fleet_cleanup
		return
	fi
	fleet_devs=("$dev1|$n1" "$dev2|$n2" "$dev3|$u")
	for d in "${fleet_devs[@]}"; do
		"$CG" attach "${d%%|*}" --netns "${d#*|}" --backend "$BACKEND" --quiet ||
			bad="$bad attach:${d%%|*}"
	done
	ino1=$(stat -L -c %i "/run/netns/$n1")
	ino2=$(stat -L -c %i "/run/netns/$n2")
	ino3=$(stat -L -c %i "$u")
	inos="[$ino1,$ino2,$ino3]"
	ip netns exec "$n2" "$INJECT" --dev "$dev2" --csum-start 20 --csum-offset 6 \
		--count 3 --payload 100 2>"$TMPD/fleet.err" || bad="$bad inject"
	[ -z "$bad" ] || { fail "$t: set-up:$bad"; fleet_cleanup; return; }

	# JSON: each of ours once, named or by path, the 3 drops only on dev2
	json=$("$CG" status --json)
	for want in "$ino1	$n1	$dev1	0	0" "$ino2	$n2	$dev2	3	0" \
		    "$ino3	$u	$dev3	0	0"; do
		got=$(jq -r --argjson ino "${want%%	*}" '[.[] | select(.netns_ino == $ino)] |
			if length == 1 then .[0] | [.netns_ino, .netns, .device, .dropped,
				.dropped_unreadable, .backend, .attached] | map(tostring) | join("\t")
			else "\(length) entries" end' <<<"$json")
		[ "$got" = "$want	$BACKEND	true" ] || bad="$bad [$got]"
	done
	# the host's own rows, if any: netns null, and its inode
	[ "$(jq --argjson self "$(stat -L -c %i /proc/self/ns/net)" \
		'[.[] | select(.netns == null and .netns_ino != $self)] | length' <<<"$json")" = 0 ] ||
		bad="$bad host-row"
	if [ -z "$bad" ]; then
		pass "$t: status --json lists the taps of 2 named and 1 unnamed netns once each; 3 drops on one"
	else
		fail "$t: status --json:$bad; got $json"
	fi

	# text: one line per device; --netns narrows to one namespace
	bad=""
	"$CG" status >"$TMPD/fleet.txt"
	mode=$(jq -r --argjson i "$ino1" '.[] | select(.netns_ino == $i) | .mode' <<<"$json")
	for d in "$dev1 netns $n1|0" "$dev2 netns $n2|3" "$dev3 netns $u|0"; do
		[ "$(grep -cxF "${d%|*}: guarded by $BACKEND ($mode), dropped ${d#*|}, dropped_unreadable 0" \
			"$TMPD/fleet.txt")" = 1 ] || bad="$bad text:${d%% *}"
	done
	got=$("$CG" status --netns "$n1" --json |
		jq -r '[.[] | "\(.device) \(.netns) \(.netns_ino)"] | join(",")')
	[ "$got" = "$dev1 $n1 $ino1" ] || bad="$bad --netns:[$got]"
	got=$("$CG" status "$dev3" --netns "$u" --json |
		jq -r '"\(.device) \(.netns) \(.netns_ino) \(.attached)"')
	[ "$got" = "$dev3 $u $ino3 true" ] || bad="$bad DEV:[$got]"
	if [ -z "$bad" ]; then
		pass "$t: text status has one line per device; --netns NS and DEV --netns NS report only that"
	else
		fail "$t:$bad; text: $(tr '\n' '|' <"$TMPD/fleet.txt")"
	fi

	# Prometheus: strictly valid, and the same numbers as the JSON
	bad=""
	"$CG" status --prometheus >"$TMPD/fleet.prom" || bad="$bad rc"
	json=$("$CG" status --json)
	prom_parse "$FLEET_METRICS" <"$TMPD/fleet.prom" >"$TMPD/fleet.samples" 2>"$TMPD/fleet.perr" ||
		bad="$bad parse:$(cat "$TMPD/fleet.perr")"
	want=$(prom_expect "$inos" <<<"$json" | sort)
	got=$(awk -F '\t' -v a="$n1" -v b="$n2" -v c="$u" '$3 == a || $3 == b || $3 == c' \
		"$TMPD/fleet.samples" | sort)
	[ "$(wc -l <<<"$want")" = 9 ] && [ "$got" = "$want" ] || bad="$bad samples"
	grep -qF "csum_guard_dropped_total{device=\"${p}\\\"q\\\\\",netns=\"$n2\",backend=\"$BACKEND\"" \
		"$TMPD/fleet.prom" || bad="$bad escaping"
	if [ -z "$bad" ]; then
		pass "$t: --prometheus parses strictly (\\\" and \\\\ escaped in a device name," \
			"a /proc path as netns) and matches the JSON counters"
	else
		fail "$t: --prometheus:$bad; want $(tr '\n\t' '| ' <<<"$want"); got $(tr '\n\t' '| ' <<<"$got")"
	fi

	# nothing guarded there: still a valid file; --json and --prometheus exclude each other
	bad=""
	"$CG" detach "$dev1" --netns "$n1" --quiet
	"$CG" status --netns "$n1" --prometheus >"$TMPD/fleet.prom" || bad="$bad rc"
	got=$(prom_parse "$FLEET_METRICS" <"$TMPD/fleet.prom" 2>&1) || bad="$bad parse:$got"
	[ -z "$got" ] && [ "$(grep -c '^# ' "$TMPD/fleet.prom")" = 6 ] || bad="$bad empty:[$got]"
	"$CG" status --json --prometheus >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || bad="$bad exclusive:rc=$rc"
	if [ -z "$bad" ]; then
		pass "$t: nothing guarded: --prometheus still writes HELP and TYPE;" \
			"--json --prometheus is bad usage"
	else
		fail "$t:$bad"
	fi
	fleet_cleanup
}

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
