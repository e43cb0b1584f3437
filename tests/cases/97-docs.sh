# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 97-docs.sh - the commands README.md and doc/*.md show work as shown.
# A host case: the docs are the same for every kernel, and run once, on the
# host, with its backend.
#
# The rule for what runs. Only the lines of fenced blocks (```) are read,
# README.md first, then doc/*.md in the order of their names. A line that
# does not begin with "csum-guard " is never run: apt-get, dpkg, dkms,
# mokutil, systemctl, journalctl, make, curl, cron lines, output and
# comments belong to a host or a build, not to a test topology. Of the
# csum-guard lines, these are skipped, and counted:
#   - a synopsis: the line holds [ ] | ..., a placeholder in capitals (DEV,
#     NS, PATH, HEX, GLOB, SECONDS, VERSION) or a shell variable ($);
#   - a command that never ends by itself: watch, events;
#   - a command that changes state beyond the docs' example namespace: every
#     attach, detach, upgrade, completion on|off and syncookie attach|detach
#     that does not name `--netns vm1` (detach --all of the host, say).
# Every other csum-guard line runs, in the order of the docs, with the
# loader built here ($CG) and the docs' example namespace vm1 replaced by
# this run's $VM (topo_up's, whose vnet_hdr tap is tap0, the docs' example
# device); a trailing "# comment" is not part of the command. It must exit
# with the "exit" of the JSON line that follows it in the block when that
# line has one (check's 10), else 0. A JSON line that follows a command
# ({...}) is its documented output: it must parse with jq, and every key it
# shows must be in what the command printed. Every other JSON line of a
# block must parse, and a block of `# HELP` lines is held to prom_parse.

# docs_blocks FILE...: the lines of the fenced blocks, as FILE:LINE:TEXT,
# indentation removed; a line "--" closes each block.
docs_blocks() {
	awk '/^[ \t]*```/ { if (on) print FILENAME ":" FNR ":--"; on = !on; next }
	     on { sub(/^[ \t]+/, ""); print FILENAME ":" FNR ":" $0 }' "$@"
}

# docs_skip_why CMD: why the csum-guard line CMD is not run here; nothing
# when it runs.
docs_skip_why() {
	local c=$1 w

	if [[ $c == *'['* || $c == *'|'* || $c == *'...'* || $c == *'$'* ]] ||
	   [[ $c =~ (^|[^A-Za-z_])[A-Z][A-Z0-9]+($|[^A-Za-z_]) ]]; then
		echo "a synopsis, or a shell variable"
		return
	fi
	read -ra w <<<"$c"
	case " ${w[1]} ${w[2]:-} " in
	" watch "* | " events "*) echo "runs until stopped"; return ;;
	" attach "* | " detach "* | " upgrade "* | " completion on "* | " completion off "* | \
	" syncookie attach "* | " syncookie detach "*)
		[[ " $c " == *" --netns vm1 "* ]] || echo "changes state beyond netns vm1" ;;
	esac
}

case_docs_commands() {
	local t="docs-commands" f line cmd rest out rc want json keys ran=0 skipped=0 why
	local -a lines
	local i n prom= jsons=0 err w ino

	topo_up || { fail "$t: topology"; return; }
	mapfile -t lines < <(cd "$TOP" && docs_blocks README.md doc/*.md)
	n=${#lines[@]}
	expect_gt "lines of fenced blocks in README.md and doc/*.md" 0 "$n"
	for ((i = 0; i < n; i++)); do
		IFS=: read -r f line rest <<<"${lines[i]}"
		# a Prometheus example: the block from its first # HELP line
		if [[ $rest == '# HELP '* ]] && [ -z "$prom" ]; then
			prom=$f:$line
			: >"$TMPD/docs.prom"
		fi
		if [ -n "$prom" ]; then
			if [ "$rest" = -- ]; then
				err=$(prom_parse "" <"$TMPD/docs.prom" 2>&1 >/dev/null) ||
					unexpected "$prom: the Prometheus example" "does not parse: $err"
				prom=
			else
				echo "$rest" >>"$TMPD/docs.prom"
			fi
			continue
		fi
		if [[ $rest == '{'* ]]; then
			jsons=$((jsons + 1))
			jq -e . >/dev/null 2>&1 <<<"$rest" ||
				unexpected "$f:$line: the JSON example" "does not parse: $rest"
			continue
		fi
		[[ $rest == 'csum-guard '* ]] || continue
		cmd=$(sed 's/[[:space:]]\+#.*//' <<<"$rest")
		why=$(docs_skip_why "$cmd")
		if [ -n "$why" ]; then
			skipped=$((skipped + 1))
			echo "# docs: skipped $f:$line ($why): $cmd"
			continue
		fi
		# the documented output, when the next line of the block is one
		json=
		IFS=: read -r _ _ json <<<"${lines[i + 1]:-}"
		[[ $json == '{'* ]] || json=
		want=0
		[ -n "$json" ] && want=$(jq -r '.exit // 0' <<<"$json" 2>/dev/null)
		read -ra w <<<"${cmd//vm1/$VM}"
		out=$("$CG" "${w[@]:1}" 2>"$TMPD/docs.err")
		rc=$?
		ran=$((ran + 1))
		echo "# docs: ran $f:$line: $cmd: exit $rc"
		if expect_eq "$f:$line: '$cmd': the exit status the docs say ($(head -c 300 "$TMPD/docs.err"))" \
			"$want" "$rc" && [ -n "$json" ]; then
			keys=$(jq -r --argjson got "$(tail -1 <<<"$out")" \
				'keys_unsorted - ($got | keys_unsorted) | join(" ")' <<<"$json" 2>/dev/null) ||
				keys="(the command did not print JSON: $(head -c 200 <<<"$out"))"
			expect_eq "$f:$line: '$cmd': keys the docs show that it did not print" "" "$keys"
		fi
	done
	# whatever the docs attached to tap0 goes, pins and all
	ino=$(stat -L -c %i "/run/netns/$VM")
	"$CG" detach tap0 --netns "$VM" --quiet
	[ -e "/sys/fs/bpf/csum_guard/$ino" ] &&
		unexpected "pins under /sys/fs/bpf/csum_guard/$ino" "left after detach"
	topo_down
	expect_gt "csum-guard commands of the docs that ran ($skipped skipped)" 0 "$ran"
	expect_verdict "$t" "$ran csum-guard commands of README.md and doc/*.md ran as shown, $skipped skipped by the rule, $jsons JSON examples parse"
}
cg_host_case docs_commands

# The README's alert rules, as Prometheus reads them, over what status
# --prometheus really writes. promtool checks the rules (every block whose
# lines begin with "- alert:", in one group), then runs them over series
# made from a live status of this host: a guarded tap that dropped 3 frames
# and a tap that is up and unguarded. Counters are 0 for 10 minutes, then
# what status said; gauges are what status said. At 15 minutes the
# unguarded tap fires CsumGuardUnguardedDevice, the tap that dropped fires
# CsumGuardDrops, with the labels status gave them, and nothing fires
# CsumGuardAhead. Then series of its own: a program ahead fires
# CsumGuardAhead, unreadable drops CsumGuardDrops, and an unguarded tap
# is pending at 30 s and firing at 2 minutes (for: 1m).
case_prom_alerts() {
	local t="prom-alerts" promtool d=$TMPD/alerts n

	if ! promtool=$(promtool_get); then
		fail "$t: no promtool: $promtool"
		return
	fi
	mkdir -p "$d"
	awk '/^```/ { inb = !inb; if (!inb && rule) rule = 0; next }
	     inb && /^- alert:/ { rule = 1 }
	     inb && rule { print "  " $0 }' "$TOP/README.md" >"$d/rules.body"
	n=$(grep -c -- '- alert:' "$d/rules.body")
	expect_gt "alert rules README.md shows, the three it describes" 2 "$n" ||
		{ expect_verdict "$t" "-"; return; }
	{ echo "groups:"; echo "- name: csum-guard"; echo "  rules:"; cat "$d/rules.body"; } >"$d/rules.yml"
	"$promtool" check rules "$d/rules.yml" >"$d/check.out" 2>&1 ||
		unexpected "promtool check rules" "$(grep -v '^$' "$d/check.out" | tail -2 | tr '\n' ' ')"
	expect_clean || { expect_verdict "$t" "-"; return; }

	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }
	expect_ok "make tap7" ip -n "$VM" tuntap add dev tap7 mode tap vnet_hdr &&
		expect_ok "tap7 up" ip -n "$VM" link set tap7 up
	expect_ok "attach" "$CG" attach tap0 --netns "$VM" --quiet
	expect_ok "inject" ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 3
	expect_ok "status --prometheus" "$CG" status --netns "$VM" --prometheus >"$d/status.prom"
	"$CG" detach tap0 --netns "$VM" --quiet
	topo_down
	expect_clean || { expect_verdict "$t" "-"; return; }

	# name<TAB>labels as JSON (empty values dropped, as Prometheus does)<TAB>value
	prom_samples "$d/status.prom" | jq -r '"\(.name)\t\(.labels | tojson)\t\(.value)"' >"$d/samples"
	expect_grep "status --prometheus: csum_guard_guarded 0 for the unguarded tap7" \
		"^csum_guard_guarded	.*\"tap7\".*	0$" "$d/samples"
	expect_grep "status --prometheus: csum_guard_dropped_total 3 for tap0" \
		"^csum_guard_dropped_total	.*\"tap0\".*	3$" "$d/samples"
	expect_clean || { expect_verdict "$t" "-"; return; }
	# the test, in JSON (which is YAML): the series and the alerts expected
	jq -R -s --arg rules "$d/rules.yml" '
		[split("\n")[] | select(length > 0) | split("\t") |
		 {name: .[0], labels: (.[1] | fromjson), value: (.[2] | tonumber)}] as $s |
		def sel($f): $s | map(select(.name == $f));
		def series($x): "\($x.name){\($x.labels | to_entries | map("\(.key)=\"\(.value)\"") | join(","))}";
		def vals($x): if ($x.name | endswith("_total")) then "0x9 \($x.value)x5" else "\($x.value)x15" end;
		{rule_files: [$rules], evaluation_interval: "1m",
		 tests: [{interval: "1m",
			input_series: [$s[] | {series: series(.), values: vals(.)}],
			alert_rule_test: [
				{eval_time: "15m", alertname: "CsumGuardUnguardedDevice",
				 exp_alerts: [sel("csum_guard_guarded")[] | select(.value == 0) | {exp_labels: .labels}]},
				{eval_time: "15m", alertname: "CsumGuardDrops",
				 exp_alerts: [sel("csum_guard_dropped_total")[] | select(.value > 0) | {exp_labels: .labels}]},
				{eval_time: "15m", alertname: "CsumGuardAhead",
				 exp_alerts: [sel("csum_guard_ahead")[] | select(.value > 0) | {exp_labels: .labels}]}]},
		  {interval: "1m",
			input_series: [{series: "csum_guard_ahead{device=\"tap0\",netns=\"vm1\",backend=\"bpf\",mode=\"tcx\"}", values: "1x15"},
				       {series: "csum_guard_dropped_total{device=\"tap0\",netns=\"vm1\",backend=\"bpf\",mode=\"tcx\",reason=\"unreadable\"}", values: "0x9 2x5"},
				       {series: "csum_guard_guarded{device=\"tap7\",netns=\"vm1\"}", values: "0x15"}],
			alert_rule_test: [
				{eval_time: "15m", alertname: "CsumGuardAhead",
				 exp_alerts: [{exp_labels: {device: "tap0", netns: "vm1", backend: "bpf", mode: "tcx"}}]},
				{eval_time: "15m", alertname: "CsumGuardDrops",
				 exp_alerts: [{exp_labels: {device: "tap0", netns: "vm1", backend: "bpf", mode: "tcx", reason: "unreadable"}}]},
				{eval_time: "30s", alertname: "CsumGuardUnguardedDevice", exp_alerts: []},
				{eval_time: "2m", alertname: "CsumGuardUnguardedDevice",
				 exp_alerts: [{exp_labels: {device: "tap7", netns: "vm1"}}]}]}]}' \
		"$d/samples" >"$d/test.yml" || { fail "$t: cannot make the rules test"; return; }
	"$promtool" test rules "$d/test.yml" >"$d/test.out" 2>&1 ||
		unexpected "promtool test rules" "$(grep -v '^$' "$d/test.out" | head -12 | tr '\n' ' ' | cut -c1-900)"
	expect_verdict "$t" "README's $n alert rules pass promtool check rules, and over this host's status --prometheus fire for the unguarded tap and the tap that dropped, with their labels, and not for what is fine"
}
cg_host_case prom_alerts

# Every relative link of README.md and doc/*.md leads somewhere: the file
# exists and, for a link into a Markdown file, its #anchor is one of that
# file's headings as GitHub names them (lower case, punctuation dropped,
# spaces as '-').
docs_anchors() {
	grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ //' | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
case_docs_links() {
	local t="docs-links" f l path frag target n=0

	for f in "$TOP/README.md" "$TOP"/doc/*.md; do
		while read -r l; do
			path=${l%%#*} frag=
			[[ $l == *#* ]] && frag=${l#*#}
			target=$f
			[ -n "$path" ] && target=$(dirname "$f")/$path
			n=$((n + 1))
			if [ ! -e "$target" ]; then
				unexpected "${f#"$TOP"/}: ($l)" "no such file"
			elif [ -n "$frag" ] && [[ $target == *.md ]]; then
				expect_grep "${f#"$TOP"/}: ($l): a heading of $(basename "$target")" "^$frag\$" - \
					<<<"$(docs_anchors "$target")"
			fi
		done < <(grep -o '\]([^)]*)' "$f" | sed 's/^](//; s/)$//' | grep -vE '^[a-z]+:')
	done
	expect_gt "relative links of README.md and doc/*.md" 50 $n
	expect_verdict "$t" "the $n relative links of README.md and doc/*.md lead to a file and, where they name one, a heading"
}
cg_host_case docs_links

# No merge left half-done in the tree: no text file of it holds a
# conflict's markers (a README with both sides of a merge reads as truth).
case_tree_markers() {
	local t="tree-markers" n

	n=$(cd "$TOP" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print | wc -l)
	(cd "$TOP" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 |
		xargs -0 grep -InE '^(<<<<<<<|>>>>>>>)( |$)' 2>/dev/null) >"$TMPD/markers"
	expect_eq "lines with a merge conflict's markers ($(head -3 "$TMPD/markers" | tr '\n' ' '))" \
		0 "$(grep -c . "$TMPD/markers")"
	expect_verdict "$t" "none of the tree's $n files holds a merge conflict's markers"
}
cg_host_case tree_markers

# man_synopsis: the man page's SYNOPSIS as text, one form a line: .B and .I
# join their words with spaces, the two-font macros (.RB .IR .BR .RI ...)
# without, input lines join with a space, .br ends a form.
man_synopsis() {
	awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on' doc/csum-guard.8 |
	awk '
	/^\.br/ { print line; line = ""; next }
	{
		w = ""
		if ($1 ~ /^\.(B|I)$/) { $1 = ""; w = substr($0, 2) }
		else if ($1 ~ /^\.[BIR][BIR]$/) { for (i = 2; i <= NF; i++) w = w $i }
		else w = $0
		line = line == "" ? w : line " " w
	}
	END { if (line != "") print line }' | sed 's/\\-/-/g; s/\\&//g; s/  */ /g; s/ *$//'
}

# help_synopsis: csum-guard --help's usage forms, one a line
help_synopsis() {
	"$CG" --help | awk '
	/COMMAND --help/ { exit }
	/^$/ { exit }
	{ sub(/^Usage:/, ""); sub(/^ +/, "") }
	/^csum-guard / { if (line != "") print line; line = $0; next }
	{ line = line " " $0 }
	END { if (line != "") print line }' | sed 's/  */ /g; s/ *$//'
}

# The man page's synopsis is the command table's (loader/cmd.c and
# syncookie's), form for form, and its OPTIONS name every option a
# command's --help lists; each command's --help is its own (its usage
# first, its options only).
case_docs_synopsis() {
	local t="docs-synopsis" d=$TMPD/synopsis c o
	mkdir -p "$d"
	man_synopsis >"$d/man"
	help_synopsis >"$d/help"
	expect_gt "usage forms csum-guard --help gives ($(head -3 "$d/help" | tr '\n' '|'))" 14 \
		"$(wc -l <"$d/help")" || { expect_verdict "$t" "-"; return; }
	diff "$d/man" "$d/help" >"$d/diff" ||
		unexpected "the man page's SYNOPSIS" "differs from the command table: $(grep '^[<>]' "$d/diff" | head -4 | tr '\n' ' ')"
	expect_clean || { expect_verdict "$t" "-"; return; }
	for c in attach detach upgrade status probe verify watch events check completion \
		 "syncookie attach" "syncookie detach" "syncookie status" "syncookie probe" \
		 "syncookie apply"; do
		# shellcheck disable=SC2086
		"$CG" $c --help >"$d/one" 2>&1 || unexpected "$c --help" "expected exit 0, saw exit $?"
		expect_grep "$c --help: its first line" "^Usage: csum-guard $c\b" - <<<"$(head -1 "$d/one")"
		grep -q "^Usage: csum-guard $c\b" "$d/one" && [ "$(grep -c '^ *csum-guard [a-z]' "$d/one")" -le 2 ] ||
			unexpected "$c --help" "expected its own usage alone, saw $(grep -c '^ *csum-guard [a-z]' "$d/one") forms"
		for o in $(sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' "$d/one"); do
			grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" doc/csum-guard.8 ||
				unexpected "$c $o" "expected in the man page, not there"
		done
	done
	# an option of another command is refused, naming the one it goes with
	expect_refused "status --egress" "$CG" status --egress >/dev/null &&
		expect_grep "what status --egress said" '--egress goes with attach' "$TMPD/expect.err"
	expect_verdict "$t" "the man page's $(wc -l <"$d/man") synopsis forms are the command table's; every command's --help is its own, with options the man page names"
}
cg_case docs_synopsis
