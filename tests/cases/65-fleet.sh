# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 65-fleet.sh - status of every namespace of the host at once, and its
# Prometheus text exposition for node_exporter's textfile collector.

# What the Prometheus output must hold for the JSON rows whose netns_ino is
# in $1 (a JSON array), in prom_parse's form.
prom_expect() {
	jq -r --argjson inos "$1" '.[] | select(.netns_ino as $i | $inos | index($i)) |
		[.device, .netns // "", .backend, .mode] as $l |
		(["csum_guard_guarded"] + $l + [(.egress | tostring), "1"]),
		(["csum_guard_dropped_total/header"] + $l + ["-", (.dropped | tostring)]),
		(["csum_guard_dropped_total/unreadable"] + $l + ["-", (.dropped_unreadable | tostring)]),
		(["csum_guard_guard_info"] + $l + ["-", "1"]),
		(["csum_guard_ahead"] + $l + ["-", (.ahead_count | tostring)]) |
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
# DEV and no --netns reports each once, by name or inode (never the /proc
# path, which moves when its process exits), with its own counters;
# --prometheus says the same in a form node_exporter reads.
case_fleet() {
	local t="fleet [$BACKEND]" n1=$CG_PFX-fleet1 n2=$CG_PFX-fleet2 p=f$(($$ % 100000))
	local u ino1 ino2 ino3 inos json prom want got d e mode code
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
		expect_ok "set-up: attach ${d%%|*}" "$CG" attach "${d%%|*}" --netns "${d#*|}" --backend "$BACKEND" --quiet
	done
	ino1=$(stat -L -c %i "/run/netns/$n1")
	ino2=$(stat -L -c %i "/run/netns/$n2")
	ino3=$(stat -L -c %i "$u")
	inos="[$ino1,$ino2,$ino3]"
	ip netns exec "$n2" "$INJECT" --dev "$dev2" --csum-start 20 --csum-offset 6 \
		--count 3 --payload 100 2>"$TMPD/fleet.err" || unexpected "set-up: inject" "$(head -1 "$TMPD/fleet.err")"
	expect_clean || { expect_verdict "$t" "-"; fleet_cleanup; return; }

	# JSON: each of ours once, named or by inode, the 3 drops only on dev2
	json=$("$CG" status --json)
	for want in "$ino1	$n1	$dev1	0	0" "$ino2	$n2	$dev2	3	0" \
		    "$ino3	$ino3	$dev3	0	0"; do
		got=$(jq -r --argjson ino "${want%%	*}" '[.[] | select(.netns_ino == $ino)] |
			if length == 1 then .[0] | [.netns_ino, .netns, .device, .dropped,
				.dropped_unreadable, .backend, .attached] | map(tostring) | join("\t")
			else "\(length) entries" end' <<<"$json")
		expect_eq "status --json: the row of netns ${want%%	*}" "$want	$BACKEND	true" "$got"
	done
	# the host's own rows, if any: netns null, and its inode
	expect_eq "status --json: rows of netns null other than the host's" 0 \
		"$(jq --argjson self "$(stat -L -c %i /proc/self/ns/net)" \
		'[.[] | select(.netns == null and .netns_ino != $self)] | length' <<<"$json")"
	expect_clean || unexpected "status --json" "$json"
	expect_verdict "$t" "status --json lists the taps of 2 named and 1 unnamed netns once each; 3 drops on one"

	# text: one line per device; --netns narrows to one namespace
	"$CG" status >"$TMPD/fleet.txt"
	mode=$(jq -r --argjson i "$ino1" '.[] | select(.netns_ino == $i) | .mode' <<<"$json")
	# (text escapes a backslash as \\, as it writes other odd bytes as \xHH)
	# the code that guards it, as JSON says: program and loader (bpf), module (kmod)
	code=$(jq -r 'map(select(.attached))[0] | (if .program_tag then "; program \(.program_tag)" else "" end) +
		(if .loader_version then ", attached by csum-guard \(.loader_version)" else "" end) +
		(if .module_version then "; module \(.module_version)" else "" end)' <<<"$json")
	case $BACKEND in
	bpf) expect_glob "the code that guards it, in the text" \
		"; program ????????????????, attached by csum-guard $(cat "$TOP/VERSION")" "$code" ;;
	kmod) expect_eq "the code that guards it, in the text" "; module $(cat /sys/module/csum_guard/version)" "$code" ;;
	esac
	for d in "$dev1 netns $n1|0" "$dev2 netns $n2|3" "$dev3 netns $ino3|0"; do
		e=${d%|*}
		e=${e//\\/\\\\}
		expect_eq "text: lines of ${d%% *}" 1 \
			"$(grep -cxF "$e: guarded by $BACKEND ($mode), dropped ${d#*|}, dropped_unreadable 0$code" "$TMPD/fleet.txt")"
	done
	expect_eq "status --netns $n1" "$dev1 $n1 $ino1" "$("$CG" status --netns "$n1" --json |
		jq -r '[.[] | "\(.device) \(.netns) \(.netns_ino)"] | join(",")')"
	expect_eq "status DEV --netns /proc/PID/ns/net" "$dev3 $ino3 $ino3 true" "$("$CG" status "$dev3" --netns "$u" --json |
		jq -r '"\(.device) \(.netns) \(.netns_ino) \(.attached)"')"
	# the inode status reports leads back to the namespace: --netns takes it
	expect_eq "status DEV --netns INODE" "$dev3 $ino3 $ino3 true" "$("$CG" status "$dev3" --netns "$ino3" --json |
		jq -r '"\(.device) \(.netns) \(.netns_ino) \(.attached)"')"
	"$CG" status "$dev3" --netns 1 --json >/dev/null 2>&1 &&
		unexpected "status DEV --netns 1" "expected a refusal, saw exit 0"
	expect_clean || unexpected "text" "$(tr '\n' '|' <"$TMPD/fleet.txt")"
	expect_verdict "$t" "text status has one line per device; --netns NS and DEV --netns NS report only that; --netns takes the inode status gives an unnamed namespace"

	# Prometheus: strictly valid, and the same numbers as the JSON
	expect_ok "status --prometheus" "$CG" status --prometheus >"$TMPD/fleet.prom"
	json=$("$CG" status --json)
	prom_parse "$FLEET_METRICS" <"$TMPD/fleet.prom" >"$TMPD/fleet.samples" 2>"$TMPD/fleet.perr" ||
		unexpected "status --prometheus" "expected a strict parse, saw $(cat "$TMPD/fleet.perr")"
	want=$(prom_expect "$inos" <<<"$json" | sort)
	got=$(awk -F '\t' -v a="$n1" -v b="$n2" -v c="$ino3" '$3 == a || $3 == b || $3 == c' \
		"$TMPD/fleet.samples" | sort)
	expect_eq "the samples expected from the JSON" 15 "$(wc -l <<<"$want")"
	expect_eq "the samples, as the JSON's" "$want" "$got"
	# which code guards each, and which csum-guard wrote the file
	expect_gt "csum_guard_guard_info lines" 2 \
		"$(grep -c '^csum_guard_guard_info{.*,program_tag="[0-9a-f]*",loader_version="[^"]*",object_sha256="[0-9a-f]*",module_version="[^"]*"} 1$' "$TMPD/fleet.prom")"
	grep -qx "csum_guard_build_info{version=\"$(cat "$TOP/VERSION")\",abi=\"[0-9]*\"} 1" "$TMPD/fleet.prom" ||
		unexpected "csum_guard_build_info" "expected this version's line, saw none"
	grep -qF "csum_guard_dropped_total{device=\"${p}\\\"q\\\\\",netns=\"$n2\",backend=\"$BACKEND\"" \
		"$TMPD/fleet.prom" || unexpected "escaping" "expected \\\" and \\\\ escaped in $dev2's labels, saw them not"
	expect_verdict "$t" "--prometheus parses strictly (\\\" and \\\\ escaped in a device name, an unnamed namespace by its inode), matches the JSON counters, says which code guards each (guard_info) and which csum-guard wrote it (build_info)"

	# nothing guarded there: the tap listed unguarded, for an alert on
	# csum_guard_guarded == 0; still a valid file; --json and --prometheus
	# exclude each other
	"$CG" detach "$dev1" --netns "$n1" --quiet
	# (and a tap that is down, which carries nothing: not listed)
	ip -n "$n1" tuntap add dev "${p}down" mode tap vnet_hdr || unexpected "set-up" "the tap that is down"
	expect_ok "status --prometheus, unguarded" "$CG" status --netns "$n1" --prometheus >"$TMPD/fleet.prom"
	got=$(prom_parse "$FLEET_METRICS" <"$TMPD/fleet.prom" 2>&1) ||
		unexpected "status --prometheus, unguarded" "expected a strict parse, saw $got"
	# (when it was read: a time, not compared)
	got=$(grep -v '^csum_guard_status_timestamp_seconds	' <<<"$got")
	expect_eq "status --prometheus, unguarded: the samples" \
		"$(printf 'csum_guard_build_info\t\t\t\t\t-\t1\ncsum_guard_guarded\t%s\t%s\t\t\tfalse\t0' "$dev1" "$n1")" "$got"
	expect_eq "status --prometheus, unguarded: comment lines" 14 "$(grep -c '^# ' "$TMPD/fleet.prom")"
	grep -qx "csum_guard_build_info{version=\"$(cat "$TOP/VERSION")\",abi=\"[0-9]*\"} 1" "$TMPD/fleet.prom" ||
		unexpected "csum_guard_build_info, unguarded" "expected this version's line, saw none"
	expect_eq "status --json, unguarded" "[[\"$dev1\",\"tun\",false,false,null]]" \
		"$("$CG" status --netns "$n1" --json | jq -c 'map([.device, .kind, .guarded, .attached, .backend])')"
	expect_eq "status, unguarded" \
		"$(printf '%s netns %s: not guarded (tun)\nno guarded devices in netns %s' "$dev1" "$n1" "$n1")" \
		"$("$CG" status --netns "$n1")"
	"$CG" status --json --prometheus >/dev/null 2>&1
	expect_eq "status --json --prometheus: exit status" 2 $?
	expect_verdict "$t" "an unguarded tap: listed with guarded false and its kind (JSON, text), one that is down not, csum_guard_guarded 0 and no counters in --prometheus, which stays valid; --json --prometheus is bad usage"
	fleet_cleanup
}
cg_case fleet

# Names no output may pass on raw: a tap named with bytes that are not
# UTF-8 (\xff\xfe) and one with an escape sequence, in a namespace whose
# name is not UTF-8 either. JSON and Prometheus stay valid UTF-8 that
# strict readers take (the bytes become U+FFFD, ESC \u001b in JSON), text
# output, messages and watch's log show them as \xHH, never raw.
case_odd_names() {
	local t="odd-names [$BACKEND]" ns=$'cgodd\xff'"$CG_PFX" a=$'\xff\xfe' b=$'t\e[31m' out d

	ip netns add "$ns" && ip -n "$ns" tuntap add dev "$a" mode tap vnet_hdr &&
		ip -n "$ns" tuntap add dev "$b" mode tap vnet_hdr ||
		{ fail "$t: set-up"; ip netns del "$ns" 2>/dev/null; return; }
	for d in "$a" "$b"; do
		out=$("$CG" attach "$d" --netns "$ns" --backend "$BACKEND" 2>&1) ||
			unexpected "attach of an odd name" "expected exit 0, saw exit $?"
		[[ $out == *$'\e'* || $out == *$'\xff'* ]] &&
			unexpected "attach's messages" "expected no raw ESC or \\xff byte, saw $(cat -v <<<"$out")"
	done
	expect_ok "status --json" "$CG" status --netns "$ns" --json >"$TMPD/odd.json"
	iconv -f UTF-8 -t UTF-8 <"$TMPD/odd.json" >/dev/null 2>&1 ||
		unexpected "status --json" "expected valid UTF-8, saw bytes that are not"
	# U+FFFD twice, as bytes: $'\u...' needs a UTF-8 locale, which a guest lacks
	expect_eq "status --json's devices" $'t\e[31m,\xef\xbf\xbd\xef\xbf\xbd' \
		"$(jq -r '[.[].device] | sort | join(",")' "$TMPD/odd.json")"
	expect_ok "status --prometheus" "$CG" status --netns "$ns" --prometheus >"$TMPD/odd.prom"
	iconv -f UTF-8 -t UTF-8 <"$TMPD/odd.prom" >/dev/null 2>&1 ||
		unexpected "status --prometheus" "expected valid UTF-8, saw bytes that are not"
	prom_parse "$FLEET_METRICS" <"$TMPD/odd.prom" >/dev/null 2>"$TMPD/odd.perr" ||
		unexpected "status --prometheus" "expected a strict parse, saw $(cat "$TMPD/odd.perr")"
	grep -q $'\e' "$TMPD/odd.prom" && unexpected "status --prometheus" "expected no raw ESC, saw one"
	"$CG" status --netns "$ns" >"$TMPD/odd.txt" 2>&1
	grep -q $'\e\|\xff' "$TMPD/odd.txt" && unexpected "status's text" "expected no raw ESC or \\xff byte, saw one"
	grep -qF 't\x1b[31m netns cgodd\xff' "$TMPD/odd.txt" ||
		unexpected "status's text" "expected the names escaped, saw $(cat -v "$TMPD/odd.txt")"
	out=$("$CG" attach $'x\e]0;pwn\a' --netns "$ns" 2>&1) &&
		unexpected "attach of a device that is not there" "expected a refusal, saw exit 0"
	[[ $out == *$'\e'* || $out == *$'\a'* ]] &&
		unexpected "attach's error" "expected no raw ESC or BEL, saw $(cat -v <<<"$out")"
	for d in "$a" "$b"; do
		"$CG" detach "$d" --netns "$ns" --quiet || unexpected "detach of an odd name" "expected exit 0, saw exit $?"
	done
	ip netns del "$ns"
	expect_verdict "$t" "device names \\xff\\xfe and ESC[31m in netns cgodd\\xff: JSON and Prometheus valid UTF-8 that strict readers take, text and messages escaped"
}
cg_case odd_names

# status reads only, so it takes no lock: a scrape while another command
# holds the host lock (an attach, a watch's child) answers at once, with
# every guard, and the command still holds the lock after it.
#
#   netns $VM: tap0 guarded;  a sleep holds /run/csum-guard.lock meanwhile
case_status_unlocked() {
	local t="status-unlocked [$BACKEND]" lpid out

	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	# the sleep itself holds it: killing it lets go
	sh -c 'exec 9>>/run/csum-guard.lock && flock -x 9 && exec sleep 60' &
	lpid=$!
	# until it holds the lock: an attach that may not wait says so
	for _ in $(seq 100); do
		"$CG" --wait 0 attach tap0 --netns "$VM" --backend "$BACKEND" --quiet 2>/dev/null || break
		sleep 0.05
	done
	expect_refused "attach --wait 0 under the held lock" "$CG" --wait 0 attach tap0 --netns "$VM" \
		--backend "$BACKEND" --quiet
	out=$(timeout 20 "$CG" status --json)
	expect_eq "status --json under the lock: exit status" 0 $?
	expect_eq "status --json under the lock: tap0 attached ($out)" true \
		"$(jq -r --arg ns "$VM" '.[] | select(.netns == $ns and .device == "tap0") | .attached' <<<"$out")"
	out=$(timeout 20 "$CG" status --prometheus)
	expect_eq "status --prometheus under the lock: exit status" 0 $?
	expect_grep "status --prometheus under the lock: tap0" "^csum_guard_guarded{device=\"tap0\",netns=\"$VM\"" - <<<"$out"
	kill -0 $lpid 2>/dev/null || unexpected "the lock holder" "expected alive, saw it gone"
	kill $lpid
	wait $lpid 2>/dev/null
	expect_ok "detach after the lock was let go" "$CG" detach tap0 --netns "$VM" --quiet
	topo_down
	expect_verdict "$t" "status --json and --prometheus listed the guard while another process held the host lock"
}
cg_case status_unlocked
