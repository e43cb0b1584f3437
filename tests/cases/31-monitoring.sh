# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 31-monitoring.sh - the monitoring bundle: watch --textfile writing what
# node_exporter reads, the shipped alert rules under promtool, the shipped
# Grafana dashboard against the metrics really written, and the README's
# status JSON against status's real keys.

MON_RULES=$TOP/deploy/monitoring/csum-guard.rules.yml
MON_DASH=$TOP/deploy/monitoring/csum-guard-dashboard.json

# mon_wait SECONDS CMD...: until CMD succeeds; 0 when it did
mon_wait() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# mon_sample FILE PATTERN: FILE has a line matching PATTERN (grep -E)
mon_sample() { grep -qE "$2" "$1" 2>/dev/null; }

# mon_rules_json: each rule of the rules file as a JSON line, {alert,
# labels, annotations}, read from its one-line, double-quoted form
mon_rules_json() {
	awk '
	function flush() {
		if (name != "")
			printf "{\"alert\":\"%s\",\"labels\":{%s},\"annotations\":{%s}}\n", name, lab, ann
		name = lab = ann = ""
	}
	/^ *- alert: / { flush(); name = $3; sect = ""; next }
	/^ *labels:$/ { sect = "l"; next }
	/^ *annotations:$/ { sect = "a"; next }
	/^ *(expr|for):/ { sect = ""; next }
	sect != "" && /^ +[a-z_]+: / {
		k = $1; sub(/:$/, "", k)
		v = $0; sub(/^ +[a-z_]+: /, "", v)
		if (v !~ /^".*"$/) { v = "\"" v "\"" }
		if (sect == "l") lab = lab (lab == "" ? "" : ",") "\"" k "\":" v
		else ann = ann (ann == "" ? "" : ",") "\"" k "\":" v
	}
	END { flush() }' "$MON_RULES"
}

# A running `watch --textfile` rewrites the file node_exporter reads: it
# appears, with mode 0644, through a rename (a new inode each time, no
# temporary file left), parses strictly, says the tap it guards is guarded
# and counts the frames the case sends it, lists the tap its --match leaves
# out as excluded (never in csum_guard_guarded), carries the watcher's last
# scan, and keeps being rewritten. status with the same --match says
# "excluded" in text and JSON; without it the same tap is unguarded. Then
# the dashboard's every query names a family the file has, and the shipped
# rules pass promtool check rules and promtool test rules over series made
# from those real samples (and series of the same shapes for what this host
# cannot make): every alert fires for what it should, with its labels and
# annotations, and for nothing else.
case_monitoring() {
	local t="monitoring [$BACKEND]" p=cm$(($$ % 100000)) ns=$CG_PFX-mon d=$TMPD/mon
	local f wpid ino1 ino2 ts1 ts2 scan now mode names missing promtool n

	mkdir -p "$d/tf"
	f=$d/tf/csum_guard.prom
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	if ! { ip netns add "$ns" && ip -n "$ns" tuntap add dev ${p}g0 mode tap vnet_hdr &&
	       ip -n "$ns" tuntap add dev ${p}x0 mode tap vnet_hdr &&
	       ip -n "$ns" link set ${p}g0 up && ip -n "$ns" link set ${p}x0 up; }; then
		fail "$t: set-up"
		ip netns del "$ns" 2>/dev/null
		return
	fi
	# a directory that is not there: one line, exit 1, nothing runs
	"$CG" watch --backend "$BACKEND" --match "${p}g*" --no-completion --textfile "$d/none/x.prom" \
		>/dev/null 2>"$d/bad.err"
	expect_eq "watch --textfile into a missing directory: exit status" 1 $?
	expect_grep "watch --textfile into a missing directory: the line" \
		"^csum-guard: cannot watch: --textfile $d/none/x.prom: $d/none: No such file or directory$" "$d/bad.err"
	"$CG" watch --textfile-interval 5 >/dev/null 2>&1
	expect_eq "--textfile-interval without --textfile: exit status" 2 $?

	# its own taps only: other suites may run on this host
	"$CG" watch --backend "$BACKEND" --match "${p}g*" --no-completion --textfile "$f" --textfile-interval 1 \
		>"$d/watch.out" 2>"$d/watch.err" &
	wpid=$!
	if ! mon_wait 20 mon_sample "$f" "^csum_guard_guarded\{device=\"${p}g0\",netns=\"$ns\",backend=\"$BACKEND\",mode=\"[a-z]+\",state=\"guarded\",egress=\"false\"\} 1$"; then
		fail "$t: no textfile saying ${p}g0 is guarded after 20 s: $(tr '\n' '|' <"$d/watch.err" | head -c 400)"
		kill $wpid; wait $wpid 2>/dev/null
		"$CG" detach ${p}g0 --netns "$ns" --quiet 2>/dev/null
		ip netns del "$ns"
		return
	fi
	ino1=$(stat -c %i "$f")
	ts1=$(sed -n 's/^csum_guard_status_timestamp_seconds //p' "$f")
	mode=$(stat -c %a "$f")
	expect_eq "the textfile's mode" 644 "$mode"
	expect_ok "3 bad frames into ${p}g0" ip netns exec "$ns" "$INJECT" --dev ${p}g0 \
		--csum-start 20 --csum-offset 6 --count 3
	mon_wait 10 mon_sample "$f" "^csum_guard_dropped_total\{device=\"${p}g0\",netns=\"$ns\",backend=\"$BACKEND\",mode=\"[a-z]+\",reason=\"header\"\} 3$" ||
		unexpected "the textfile after 3 drops" "expected dropped_total{reason=\"header\"} 3 for ${p}g0 within 10 s, saw: $(grep "dropped_total{device=\"${p}g0\"" "$f" | tr '\n' '|')"
	cp "$f" "$d/real.prom"
	ino2=$(stat -c %i "$f")
	ts2=$(sed -n 's/^csum_guard_status_timestamp_seconds //p' "$d/real.prom")
	scan=$(sed -n 's/^csum_guard_watch_last_scan_timestamp_seconds //p' "$d/real.prom")
	now=$(date +%s)
	[ "$ino1" != "$ino2" ] || unexpected "the textfile rewritten" "expected a new file renamed over it, saw inode $ino1 twice"
	[ -n "$ts1" ] && [ -n "$ts2" ] && [ "$ts2" -gt "$ts1" ] ||
		unexpected "csum_guard_status_timestamp_seconds" "expected it to advance, saw '$ts1' then '$ts2'"
	[ -n "$scan" ] && [ $((now - scan)) -ge 0 ] && [ $((now - scan)) -le 10 ] ||
		unexpected "csum_guard_watch_last_scan_timestamp_seconds" "expected within 10 s of $now, saw '$scan'"
	prom_parse "$FLEET_METRICS csum_guard_watch_last_scan_timestamp_seconds csum_guard_completion_refused_total" \
		<"$d/real.prom" >"$d/real.samples" 2>"$d/parse.err" ||
		unexpected "the textfile, strictly" "$(head -1 "$d/parse.err")"
	expect_eq "${p}x0 in csum_guard_excluded" 1 \
		"$(grep -c "^csum_guard_excluded	${p}x0	$ns	" "$d/real.samples")"
	expect_eq "${p}x0 in csum_guard_guarded" 0 \
		"$(grep -c "^csum_guard_guarded	${p}x0	" "$d/real.samples")"
	# status: the same --match marks it excluded; without, it is unguarded
	expect_eq "status --match: ${p}x0" "${p}x0 netns $ns: excluded (tun: no --match glob names it)" \
		"$("$CG" status --netns "$ns" --match "${p}g*" | grep "^${p}x0 ")"
	expect_eq "status --match --json: ${p}x0's state" "excluded false" \
		"$("$CG" status ${p}x0 --netns "$ns" --match "nothing*,${p}g*" --json | jq -r '"\(.state) \(.guarded)"')"
	expect_eq "status --json: ${p}x0's state" "unguarded" \
		"$("$CG" status ${p}x0 --netns "$ns" --json | jq -r .state)"
	"$CG" status --netns "$ns" --prometheus >"$d/unguarded.prom"
	expect_grep "status --prometheus without --match: ${p}x0" \
		"^csum_guard_guarded{device=\"${p}x0\",netns=\"$ns\",backend=\"\",mode=\"\",state=\"unguarded\",egress=\"false\"} 0$" \
		"$d/unguarded.prom"
	kill $wpid
	wait $wpid 2>/dev/null
	expect_eq "files left in the textfile's directory" "csum_guard.prom" "$(ls -A "$d/tf" | tr '\n' ' ' | sed 's/ $//')"
	"$CG" detach ${p}g0 --netns "$ns" --quiet || unexpected "detach" "failed"
	expect_verdict "$t" "watch --textfile (every 1 s) rewrote the file by rename (inode $ino1 -> $ino2, mode 644, no file left beside it), timestamps advancing; it counted 3 drops on ${p}g0, listed ${p}x0 as excluded and not in csum_guard_guarded; status --match says excluded, status without it unguarded; a missing directory is refused"

	# the dashboard's every query names a family the textfile really has
	jq -r '[.. | objects | (.expr?, .query?) | strings] | .[]' "$MON_DASH" |
		grep -o 'csum_guard_[a-z_]*' | sort -u >"$d/dash.names"
	sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$d/real.prom" | sort -u >"$d/file.names"
	n=$(wc -l <"$d/dash.names")
	missing=$(comm -23 "$d/dash.names" "$d/file.names" | tr '\n' ' ')
	if [ "$n" -lt 10 ] || [ -n "$missing" ]; then
		fail "dashboard [$BACKEND]: $n metric names in its queries; not in what watch --textfile wrote: ${missing:-none}"
	else
		pass "dashboard [$BACKEND]: the $n metric names its queries use are all families watch --textfile wrote here: $(tr '\n' ' ' <"$d/dash.names")"
	fi

	if ! promtool=$(promtool_get); then
		skip "alert-rules [$BACKEND]: no promtool: $promtool"
		ip netns del "$ns"
		return
	fi
	mon_alert_rules "$promtool" "$d" "$p" "$ns"
	ip netns del "$ns"
}
cg_case monitoring

# mon_alert_rules PROMTOOL DIR P NS: the shipped rules under promtool,
# over the samples this run really wrote ($DIR/real.prom, the case's
# namespace only: other suites' devices may be in it) and status's
# unguarded tap ($DIR/unguarded.prom), each kept for 50 minutes: counters
# 0 for 10 minutes, then what was read; the two timestamps advancing with
# time; the completion guard's real sample refusing twice; plus what the
# host cannot make, in the shapes status writes them: a guard of an older loader and of an older
# module, a responder whose tables are gone, and a host ("stale") whose file
# stopped at 0 s. At 15 minutes (the drift rules, whose for is 30m: at 40)
# each rule fires for exactly those, with its severity and its annotations
# as the rules file renders them.
mon_alert_rules() {
	local promtool=$1 d=$2 p=$3 ns=$4 t="alert-rules [$BACKEND]" n

	if ! "$promtool" check rules "$MON_RULES" >"$d/check.out" 2>&1; then
		fail "$t: promtool check rules: $(grep -v '^$' "$d/check.out" | tail -2 | tr '\n' ' ')"
		return
	fi
	n=$(grep -c -- '- alert:' "$MON_RULES")
	mon_rules_json >"$d/rules.jsonl"
	{ prom_samples "$d/real.prom"; prom_samples "$d/unguarded.prom"; } |
		jq -c --arg ns "$ns" 'select((.labels.netns // "") == $ns or (.labels.device == null))' |
		jq -s -c 'unique_by([.name, .labels])' >"$d/real.json"
	jq -n -c --slurpfile rules "$d/rules.jsonl" --slurpfile real "$d/real.json" \
		--arg rfile "$MON_RULES" --arg p "$p" '
		$real[0] as $s |
		def series($x): "\($x.name){\($x.labels | to_entries | map("\(.key)=\"\(.value)\"") | join(","))}";
		def vals($x): if ($x.name | test("_timestamp_seconds$")) then "0+60x50"
			elif $x.name == "csum_guard_completion_refused_total" and $x.labels.reason == "header" then "0x9 2x41"
			elif ($x.name | endswith("_total")) then "0x9 \($x.value)x41"
			else "\($x.value)x50" end;
		def one($f): [$s[] | select(.name == $f)];
		def info: one("csum_guard_guard_info")[0];
		# what this host cannot make, in the shapes status writes
		def extra: [
			(info | .labels.loader_version = "0.0.9" | {name, labels, vals: "1x50"}),
			(info | .labels.backend = "kmod" | .labels.mode = "netfilter" | del(.labels.program_tag, .labels.object_sha256, .labels.loader_version)
			      | .labels.module_version = "0.0.9" | {name, labels, vals: "1x50"}),
			{name: "csum_guard_syncookie_answering", labels: {device: "eth9", netns: "sc", mode: "nft", tables: "gone", outdated: "false"}, vals: "0x50"},
			{name: "csum_guard_syncookie_answering", labels: {device: "eth8", netns: "sc", mode: "xdp", tables: "ok", cookies: "raw", outdated: "false"}, vals: "1x50"},
			{name: "csum_guard_status_timestamp_seconds", labels: {instance: "stale"}, vals: "0x50"},
			{name: "csum_guard_watch_last_scan_timestamp_seconds", labels: {instance: "stale"}, vals: "0x50"},
			{name: "csum_guard_repairs_total", labels: {instance: "flappy", reason: "qdisc_deleted"}, vals: "0x9 1x2 3x2 5x37"},
			{name: "csum_guard_repairs_total", labels: {instance: "flappy", reason: "module_unloaded"}, vals: "0x9 1x41"}];
		def rule($a): $rules[] | select(.alert == $a);
		def render($l): with_entries(.value |= gsub("\\{\\{ \\$labels\\.(?<k>[a-z_]+) \\}\\}"; $l[.k] // ""));
		def alert($a; $l): rule($a) as $r | {exp_labels: ($l + $r.labels), exp_annotations: ($r.annotations | render($l))};
		def fire_at($t; $a; $xs): {eval_time: $t, alertname: $a, exp_alerts: [$xs[] | alert($a; .)]};
		def fire($a; $xs): fire_at("15m"; $a; $xs);
		[extra[]] as $x |
		{rule_files: [$rfile], evaluation_interval: "1m",
		 tests: [{interval: "1m",
			input_series: ([$s[] | {series: series(.), values: vals(.)}] + [$x[] | {series: series(.), values: .vals}]),
			alert_rule_test: [
				fire("CsumGuardUnguardedDevice"; [one("csum_guard_guarded")[] | select(.value == 0) | .labels]),
				fire("CsumGuardDrops"; [one("csum_guard_dropped_total")[] | select(.value > 0) | .labels]),
				fire("CsumGuardCompletionRefused"; [{reason: "header"}]),
				fire("CsumGuardAhead"; [one("csum_guard_ahead")[] | select(.value > 0) | .labels]),
				fire("CsumGuardStatusStale"; [{instance: "stale"}]),
				fire("CsumGuardWatcherNotScanning"; [{instance: "stale"}]),
				# drift: pending for 30 minutes, the time of an upgrade
				fire("CsumGuardLoaderVersionDrift"; []),
				fire_at("40m"; "CsumGuardLoaderVersionDrift"; [$x[0].labels]),
				fire_at("40m"; "CsumGuardModuleVersionDrift"; [$x[1].labels]),
				fire("CsumGuardResponderTablesGone"; [$x[2].labels]),
				fire("CsumGuardRepairsRepeated"; [$x[6].labels]),
				{eval_time: "30s", alertname: "CsumGuardUnguardedDevice", exp_alerts: []}]}]}' \
		>"$d/test.json" || { fail "$t: cannot make the rules test"; return; }
	# the test must expect what the run made: an unguarded tap and one that dropped
	jq -e --arg p "$p" '[.tests[0].alert_rule_test[] | select(.alertname == "CsumGuardUnguardedDevice" and .eval_time == "15m") |
		.exp_alerts[].exp_labels.device] == ["\($p)x0"]' "$d/test.json" >/dev/null &&
	jq -e --arg p "$p" '[.tests[0].alert_rule_test[] | select(.alertname == "CsumGuardDrops") |
		.exp_alerts[].exp_labels | "\(.device) \(.reason)"] == ["\($p)g0 header"]' "$d/test.json" >/dev/null ||
		{ fail "$t: the series made from this run lack the unguarded ${p}x0 or the drops of ${p}g0"; return; }
	if "$promtool" test rules "$d/test.json" >"$d/test.out" 2>&1; then
		pass "$t: the $n shipped rules pass promtool check rules; over this run's textfile (${p}g0 dropped 3, ${p}x0 unguarded without --match) and series of status's shapes each fires for exactly what it should, with severity and annotations (unguarded, drops, completion refused, stale file, watcher not scanning, loader and module drift, responder tables gone, repairs repeated), none while pending or for what is fine"
	else
		fail "$t: promtool test rules: $(grep -v '^$' "$d/test.out" | head -14 | tr '\n' ' ' | cut -c1-1200)"
	fi
}

# The README's example of `status DEV --json` has exactly the keys status
# really writes for a tap the bpf guard guards, in its order (a module's
# guard adds "reordered": doc/operations.md).
case_readme_json() {
	local t="readme-json [$BACKEND]" doc real

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the README's example is of a bpf guard (the module's adds reordered)"
		return
	fi

	doc=$(grep -A1 -x 'csum-guard status tap0 --netns vm1 --json' "$TOP/README.md" | sed -n 2p |
		jq -c 'keys_unsorted' 2>/dev/null)
	if [ -z "$doc" ]; then
		fail "$t: README.md has no JSON line after 'csum-guard status tap0 --netns vm1 --json'"
		return
	fi
	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	guard_on || { fail "$t: attach failed"; topo_down; return; }
	real=$("$CG" status tap0 --netns "$VM" --json | jq -c 'keys_unsorted')
	guard_off
	topo_down
	expect_eq "the README's keys against status --json's" "$real" "$doc"
	expect_verdict "$t" "the README's status --json example has the $(jq length <<<"$real") keys status writes for a guarded tap, in order"
}
cg_case readme_json
