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
	local i n bad=0 prom= jsons=0 err w ino

	topo_up || { fail "$t: topology"; return; }
	mapfile -t lines < <(cd "$TOP" && docs_blocks README.md doc/*.md)
	n=${#lines[@]}
	if [ "$n" = 0 ]; then
		fail "$t: no fenced block in README.md or doc/*.md"
		return
	fi
	for ((i = 0; i < n; i++)); do
		IFS=: read -r f line rest <<<"${lines[i]}"
		# a Prometheus example: the block from its first # HELP line
		if [[ $rest == '# HELP '* ]] && [ -z "$prom" ]; then
			prom=$f:$line
			: >"$TMPD/docs.prom"
		fi
		if [ -n "$prom" ]; then
			if [ "$rest" = -- ]; then
				if ! err=$(prom_parse "" <"$TMPD/docs.prom" 2>&1 >/dev/null); then
					fail "$t: $prom: the Prometheus example does not parse: $err"
					bad=1
				fi
				prom=
			else
				echo "$rest" >>"$TMPD/docs.prom"
			fi
			continue
		fi
		if [[ $rest == '{'* ]]; then
			jsons=$((jsons + 1))
			jq -e . >/dev/null 2>&1 <<<"$rest" || {
				fail "$t: $f:$line: the JSON example does not parse: $rest"
				bad=1
			}
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
		if [ "$rc" != "$want" ]; then
			fail "$t: $f:$line: '$cmd' exited $rc, the docs say $want: $(head -c 300 "$TMPD/docs.err")"
			bad=1
		elif [ -n "$json" ]; then
			keys=$(jq -r --argjson got "$(tail -1 <<<"$out")" \
				'keys_unsorted - ($got | keys_unsorted) | join(" ")' <<<"$json" 2>/dev/null) ||
				keys="(the command did not print JSON: $(head -c 200 <<<"$out"))"
			if [ -n "$keys" ]; then
				fail "$t: $f:$line: '$cmd' printed no $keys, which the docs show"
				bad=1
			fi
		fi
	done
	# whatever the docs attached to tap0 goes, pins and all
	ino=$(stat -L -c %i "/run/netns/$VM")
	"$CG" detach tap0 --netns "$VM" --quiet
	if [ -e "/sys/fs/bpf/csum_guard/$ino" ]; then
		fail "$t: pins left under /sys/fs/bpf/csum_guard/$ino after detach"
		bad=1
	fi
	topo_down
	if [ "$ran" = 0 ]; then
		fail "$t: no csum-guard command of the docs ran ($skipped skipped)"
	elif [ $bad = 0 ]; then
		pass "$t: $ran csum-guard commands of README.md and doc/*.md ran as shown, $skipped skipped by the rule, $jsons JSON examples parse"
	fi
}
cg_host_case docs_commands
