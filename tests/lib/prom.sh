# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# prom.sh - a strict reader of what `status --prometheus` writes, for the
# cases that read it (tests/cases/30-report.sh, tests/cases/65-fleet.sh,
# tests/cases/31-monitoring.sh), and promtool for those that run alert rules.

# prom_parse: a strict reader of the text format (0.0.4) on stdin. Each
# metric family has one HELP and one TYPE before its samples, which come
# together; names, labels, escapes (\\ \" \n only) and values are checked.
# Prints a sample per line: name (with "/REASON" after it for a sample
# with a reason label), device, netns, backend, mode, egress ("-" when
# absent), value, tab-separated, label values unescaped. Exits 1
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
		print m (("reason" in lab) ? "/" lab["reason"] : "") "\t" lab["device"] "\t" lab["netns"] "\t" lab["backend"] "\t" \
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

# prom_samples FILE: the samples of a Prometheus text file as JSON lines,
# {name, labels (empty values dropped, as Prometheus does), value}; for
# files whose label values hold no "," followed by a quote (the cases' own
# names), as promtool's input series
prom_samples() {
	awk '!/^#/ && NF {
		i = index($0, "{"); j = index($0, "} ")
		if (i == 0) { split($0, f, " "); printf "{\"name\":\"%s\",\"labels\":{},\"value\":%s}\n", f[1], f[2]; next }
		name = substr($0, 1, i - 1); lab = substr($0, i + 1, j - i - 1); val = substr($0, j + 2)
		out = ""; n = split(lab, kv, /",/)
		for (k = 1; k <= n; k++) {
			e = index(kv[k], "=\""); key = substr(kv[k], 1, e - 1); v = substr(kv[k], e + 2)
			sub(/"$/, "", v)
			if (v != "") out = out (out == "" ? "" : ",") "\"" key "\":\"" v "\""
		}
		printf "{\"name\":\"%s\",\"labels\":{%s},\"value\":%s}\n", name, out, val
	}' "$1"
}

# promtool_get: the path of promtool, from Debian's prometheus package
# downloaded into build/tools and unpacked there with dpkg -x: nothing is
# installed system-wide (the package would start a Prometheus server).
# One per architecture: an arm64 guest shares the tree with the host that
# unpacked the amd64 one (read-only there, and with no network to download
# its own).
promtool_get() {
	local arch d deb

	arch=$(dpkg --print-architecture) || return 1
	d=$TOP/build/tools/prometheus-$arch
	if [ ! -x "$d/usr/bin/promtool" ]; then
		mkdir -p "$d.dl" 2>/dev/null ||
			{ echo "none for $arch in $(dirname "$d"), which cannot be written here"; return 1; }
		rm -f "$d.dl"/*.deb &&
			(cd "$d.dl" && apt-get -q download prometheus >"$d.dl/log" 2>&1 ||
				{ apt-get -q update >>"$d.dl/log" 2>&1 && apt-get -q download prometheus >>"$d.dl/log" 2>&1; }) ||
			{ echo "apt-get download prometheus failed: $(tail -1 "$d.dl/log")"; return 1; }
		deb=$(ls "$d.dl"/prometheus_*.deb | head -1)
		rm -rf "$d" && dpkg-deb -x "$deb" "$d" ||
			{ echo "cannot unpack $deb"; return 1; }
	fi
	echo "$d/usr/bin/promtool"
}

FLEET_METRICS="csum_guard_build_info csum_guard_status_timestamp_seconds csum_guard_guarded csum_guard_excluded csum_guard_dropped_total csum_guard_guard_info csum_guard_ahead"
