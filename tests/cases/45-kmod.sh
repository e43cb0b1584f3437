# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 45-kmod.sh - what only the kernel-module backend has: the module itself.

# The guest loads the very file DKMS built on the host.
case_module_identity() {
	local t="module-identity [$BACKEND]" got

	[ "$BACKEND" = kmod ] || return 0
	[ -n "${CG_MODULE_SRCVERSION:-}" ] || { skip "$t: no DKMS build to compare with"; return; }
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	got=$(cat /sys/module/csum_guard/srcversion 2>/dev/null)
	expect_eq "the loaded module's srcversion, the DKMS build's" "$CG_MODULE_SRCVERSION" "$got"
	expect_verdict "$t" "the loaded module is the DKMS build (srcversion $got)"
	guard_off
	topo_down
}
cg_case module_identity

# rmmod with devices still guarded, then attach again: no oops, no hang.
case_rmmod_guarded() {
	local t="rmmod-while-guarded [$BACKEND]"

	[ "$BACKEND" = kmod ] || return 0
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	"$CG" attach veth0 --netns "$VM" --backend kmod --quiet
	expect_ok "rmmod with guarded devices" timeout 30 rmmod csum_guard &&
		expect_eq "tap0's [dropped, unreadable, attached] after rmmod" "0 0 false" "$(guard_counters)" &&
		expect_ok "attach after rmmod" guard_on &&
		expect_ok "bad frames through" inject_sniff "$TMPD/rm" --csum-start 20 --csum-offset 6 --count 2 &&
		expect_eq "after reload: [dropped, unreadable, attached] for 2 bad frames" "2 0 true" "$(guard_counters)" &&
		expect_drop "after reload" "$TMPD/rm"
	expect_verdict "$t" "rmmod with 2 guarded devices, then attach reloads and drops again"
	guard_off
	topo_down
}
cg_case rmmod_guarded

# The module's device dump while the list changes between its rounds
# (cg-kdump reads one round a read): the messages after the change carry
# NLM_F_DUMP_INTR, so a reader knows to dump again; a dump of a list that
# does not change carries none and has every device once. The loader's
# status, which dumps again, lists every device once.
case_kmod_dump() {
	local t="kmod-dump [$BACKEND]" n=120 i ids out=$TMPD/kdump want

	[ "$BACKEND" = kmod ] || return 0
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	for i in $(seq $n); do echo "tuntap add dev kd$i mode tap"; done | ip -n "$VM" -batch - ||
		{ fail "$t: set-up of $n taps"; topo_down; return; }
	# "IFINDEX NAME" of each, in the order they were made
	ip -n "$VM" -o link show | awk -F': ' '$2 ~ /^kd[0-9]+$/ { print $1, $2 }' | sort -n >"$out.devs"
	ids=$(cut -d' ' -f1 "$out.devs")
	if expect_ok "cg-kdump attach" ip netns exec "$VM" "$KDUMP" attach $ids; then
		ip netns exec "$VM" "$KDUMP" dump >"$out.still" 2>&1
		# the first device listed goes after the first read
		ip netns exec "$VM" "$KDUMP" dump --detach-between "$(head -1 <<<"$ids")" >"$out.moved" 2>&1
		want=$( (sed 1d "$out.devs" | cut -d' ' -f2; echo tap0) | sort)
		expect_match "the dump of an unchanged list of $((n + 1)), no NLM_F_DUMP_INTR" \
			"^summary messages=$((n + 1)) intr=0 rounds=[3-9]" "$(grep '^summary' "$out.still" || cat "$out.still")" &&
			expect_match "a device detached between rounds, NLM_F_DUMP_INTR" \
				"^summary .* intr=1 rounds=[3-9]" "$(grep '^summary' "$out.moved" || cat "$out.moved")" &&
			expect_eq "the $n guarded devices status lists, once each" "$(tr '\n' ' ' <<<"$want")" \
				"$("$CG" status --netns "$VM" --json | jq -r '.[] | select(.attached) | .device' | sort | tr '\n' ' ')"
	fi
	expect_verdict "$t" "$((n + 1)) devices, $(sed -n 's/.*rounds=//p' "$out.still") rounds: unchanged, no NLM_F_DUMP_INTR; one detached between rounds, flagged; status lists each once"
	topo_down
}
cg_case kmod_dump

# comp_send OUT ARGS...: the bad frames (or good ones) through the current
# topology (with the queue's reader for nfqueue: repro_send); "arrived
# sources completion-refused site-matched" of the run
comp_send() {
	local out=$1 c0 c1
	shift
	c0=$("$CG" completion --json | jq -r .dropped)
	repro_send "$out" "$@"
	c1=$("$CG" completion --json | jq -r .dropped)
	echo "$(sniff_datagrams "$out") $(sniff_sources "$out") $((c1 - c0)) ${site_seen:-0}"
}

# The completion guard alone, no ingress guard anywhere, on every completion
# path of the reproduction: first without it (the baseline: this kernel
# rewrites the header, or already refuses the frame at that site), then with
# it: each bad frame this kernel would rewrite is refused at
# skb_checksum_help() and counted (nothing arrives; xt_CHECKSUM ignores the
# error, so its frame arrives with the header untouched), and good frames
# arrive intact through the same site; rmmod while it is on leaves nothing.
# The topologies that get past the ingress guards (macvtap, tunnels, a tc
# redirect) have their completion rows in 12-topology.sh.
case_completion() {
	local t="completion [$BACKEND]" n=3 p src args bad good r rows= kernel
	local b4="--csum-start 20 --csum-offset 6 --count 3 --payload 1000"
	local b6="--ipv6 --csum-start 22 --csum-offset 6 --count 3 --payload 1000"

	[ "$BACKEND" = kmod ] || return 0
	if ! "$CG" completion on 2>"$TMPD/comp.err"; then
		grep -q 'cannot have the completion guard' "$TMPD/comp.err" &&
			{ skip "$t: $(cat "$TMPD/comp.err")"; return; }
		fail "$t: completion on: $(cat "$TMPD/comp.err")"
		return
	fi
	"$CG" completion off
	# every refusal is a drop event too, where "completion", named by the
	# device and its namespace, with the offsets in the frame
	events_start "$TMPD/comp.ev" || unexpected "events" "did not start: $(cat "$TMPD/comp.ev.err")"
	for p in tx frag tx6 xtcsum nfqueue xtcsum6 nfqueue6; do
		local site= ipt=iptables SNIFF_DST=$FAR_IP
		bad=$b4 good="--count 3 --payload 1000" src=$GUEST_IP
		case $p in
		tx) args="--mtu 1500 --tx-csum-off" ;;
		frag) args="--mtu 576" ;;
		tx6) args="--mtu 1500 --tx-csum-off --ipv6" ;;
		xtcsum | nfqueue) args="--mtu 1500" site=$p ;;
		xtcsum6 | nfqueue6) args="--mtu 1500 --ipv6" site=${p%6} ipt=ip6tables ;;
		esac
		if [ "${p%6}" != "$p" ]; then
			bad=$b6 good="--ipv6 $good" src=$GUEST_IP6 SNIFF_DST=$FAR_IP6
		fi
		if [ -n "$site" ] && ! command -v $ipt >/dev/null; then
			skip "$t/$p: $ipt missing"
			continue
		fi
		topo_up $args || { fail "$t/$p: set-up"; topo_down; continue; }
		# site_up says SKIP itself where the kernel has no such target
		[ -z "$site" ] || site_up $site "$t/$p" || { topo_down; continue; }
		set -- $(comp_send "$TMPD/comp-off" $bad)
		r="off: $1 arrived from $2"
		if [ "$1" -gt 0 ] && [ "$2" != "$src" ]; then
			kernel=rewrites
		elif [ "$1" = 0 ] || { [ -n "$site" ] && [ "$4" = $n ]; }; then
			kernel=fixed
			r="$r (this kernel refuses it at that site itself)"
		else
			kernel=unknown
			unexpected "$p without the guard" "the bad frame arrived intact ($1 from $2): no completion ran"
		fi
		"$CG" completion on --quiet
		set -- $(comp_send "$TMPD/comp-on" $bad)
		r="$r; on: $1 arrived from $2, $3 refused"
		case $kernel in
		rewrites)
			expect_eq "$p, completion on: bad frames refused ($1 arrived from $2)" $n "$3"
			# xt_CHECKSUM ignores the refusal: its frames arrive untouched
			[ "$1" = 0 ] || { [ "$site" = xtcsum ] && [ "$2" = "$src" ]; } ||
				unexpected "$p, completion on: what arrived" "expected nothing rewritten${site:+ or through}, saw $1 from $2"
			;;
		fixed)
			[ "$1" = 0 ] || expect_eq "$p, completion on, kernel fixed: the source of the $1 that arrived" "$src" "$2"
			;;
		esac
		set -- $(comp_send "$TMPD/comp-good" $good)
		expect_eq "$p, good frames with completion on: [arrived, from, refused]" "$n $src 0" "$1 $2 $3"
		[ -z "$site" ] || expect_eq "$p, good frames with completion on: the rule saw" $n "$4"
		grep -q csum_ok=0 "$TMPD/comp-good" &&
			unexpected "$p, good frames with completion on" "one arrived with a bad checksum (csum_ok=0)"
		"$CG" completion off --quiet
		rows="$rows $p ($r);"
		topo_down
	done
	events_stop
	local ev
	ev=$(jq -r --arg ns "$VM" 'select(.where == "completion" and .backend == "kmod" and
		.netns == $ns and .reason == "csum_start" and .offsets_from == "frame") |
		"\(.protocol) \(.csum_start - .ip_header)"' "$TMPD/comp.ev" 2>/dev/null | sort | uniq -c |
		awk '{ printf "%s%s:%s+%s", (NR > 1) ? "," : "", $2, $3, $1 }')
	# IPv4: csum_start 6 bytes into the header, IPv6 8; both happened
	expect_match "completion events, protocol:offset+count" '^IPv4:6\+[0-9]+,IPv6:8\+[0-9]+$' "$ev" ||
		unexpected "completion events" "$(head -c 300 "$TMPD/comp.ev")"
	# what operators read: Prometheus and probe agree with the command
	"$CG" completion on --quiet
	local j prom
	j=$("$CG" completion --json)
	prom=$("$CG" status --prometheus)
	expect_grep "Prometheus: the completion guard enabled" '^csum_guard_completion_enabled 1$' - \
		<<<"$(grep completion <<<"$prom")"
	expect_grep "Prometheus: the refusals, as completion --json's ($j)" \
		"^csum_guard_completion_refused_total{reason=\"header\"} $(jq -r .dropped <<<"$j")\$" - \
		<<<"$(grep completion <<<"$prom")"
	expect_gt "completion --json's dropped, at least $((3 * n))" $((3 * n - 1)) "$(jq -r .dropped <<<"$j")"
	expect_eq "probe's completion" true "$("$CG" probe --json | jq -r '.completion')"
	# watch with no options switches it on where the module loads
	"$CG" completion off --quiet
	timeout 20 "$CG" watch --match 'cgnomatch*' >"$TMPD/comp.watch" 2>&1 &
	local wp=$! i
	for i in $(seq 100); do
		grep -q '^completion guard' "$TMPD/comp.watch" && break
		sleep 0.1
	done
	kill -TERM $wp 2>/dev/null
	wait $wp
	expect_grep "watch's log: it switched the completion guard on" '^completion guard on$' "$TMPD/comp.watch" &&
		expect_eq "completion after watch" true "$("$CG" completion --json | jq -r .on)"
	# rmmod while it is on, packets or not: nothing left, and it comes back off
	expect_ok "rmmod with the completion guard on" timeout 30 rmmod csum_guard &&
		expect_eq "after rmmod, completion on again" true \
			"$("$CG" completion on >/dev/null && "$CG" completion --json | jq -r .on)"
	"$CG" completion off --quiet
	expect_eq "the kernel's first warning" "" "$(dmesg | grep -m1 'WARNING:\|BUG:')"
	expect_verdict "$t" "no ingress guard; bad frames refused at skb_checksum_help(), good ones intact:$rows each refusal a drop event ($ev); status, Prometheus and probe report it; watch switches it on; rmmod while on is clean"
}
cg_case completion

# Unload and reload the module while traffic flows and the completion guard
# is on: a TCP stream out of veth0 without TX checksum offload (each of its
# segments completed in software, under the guard) runs through rmmod and
# `completion on` again, cycle after cycle, and arrives byte for byte; then
# nothing of ours is left in ftrace, the module unloads, the kernel warned
# about nothing.
case_completion_reload() {
	local t="completion/reload [$BACKEND]" rx tx cycles=0 rc
	local ef=/sys/kernel/tracing/enabled_functions

	[ "$BACKEND" = kmod ] || return 0
	if ! vol_up || ! ip netns exec "$VM" ethtool -K veth0 tx off >/dev/null; then
		fail "$t: set-up"
		topo_down
		return
	fi
	if ! completion_on "$t"; then
		topo_down
		return
	fi
	rm -f "$TMPD/rl.ready"
	"$STREAM" --netns "$FAR" --listen $FAR_IP --port 5400 --ready-file "$TMPD/rl.ready" \
		>"$TMPD/rl" 2>&1 &
	rx=$!
	wait_ready "$TMPD/rl.ready"
	"$STREAM" --netns "$VM" --connect $FAR_IP --port 5400 --bytes $((VOL_TCP_BYTES * 4)) \
		>"$TMPD/rl.tx" 2>&1 &
	tx=$!
	while kill -0 $tx 2>/dev/null; do
		expect_ok "rmmod in cycle $((cycles + 1))" timeout 30 rmmod csum_guard || break
		expect_ok "on again in cycle $((cycles + 1))" "$CG" completion on --quiet || break
		kill -0 $tx 2>/dev/null && cycles=$((cycles + 1))
	done
	wait $tx
	rc=$?
	expect_eq "the connector's exit ($(tr '\n' ' ' <"$TMPD/rl.tx"))" 0 $rc
	wait $rx
	rc=$?
	expect_eq "the listener's exit ($(tr '\n' ' ' <"$TMPD/rl"))" 0 $rc
	expect_gt "cycles while the stream ran, at least 3" 2 $cycles
	"$CG" completion off --quiet
	expect_eq "skb_checksum_help traced after off" "" "$(grep skb_checksum_help "$ef" 2>/dev/null)"
	expect_ok "the final rmmod" timeout 30 rmmod csum_guard
	expect_eq "skb_checksum_help traced after rmmod" "" "$(grep skb_checksum_help "$ef" 2>/dev/null)"
	expect_eq "the kernel's first warning" "" "$(dmesg | grep -m1 'WARNING:\|BUG:')"
	expect_verdict "$t" "$cycles cycles of rmmod and on again while a TCP stream crossed the guard, $(fields "$TMPD/rl" tcp bytes) byte-exact; nothing left traced, rmmod clean"
	topo_down
}
cg_case completion_reload

# Another ftrace user with IPMODIFY on skb_checksum_help() (a live patch
# of it would be one; here tests/tools/cg-hold, which tests/guests.sh
# builds for each guest kernel) keeps the completion guard off: `completion
# on` fails and says why, the module says it in the kernel log, and once the
# other user is gone the guard goes on and off, leaving nothing traced.
case_completion_held() {
	local t="completion/held [$BACKEND]" ko ef=/sys/kernel/tracing/enabled_functions

	[ "$BACKEND" = kmod ] || return 0
	for ko in "$BLD"/hold/*/cg_hold.ko ""; do
		[ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$(uname -r)" ] &&
			break
	done
	if [ -z "$ko" ]; then
		skip "$t: no cg_hold.ko built for $(uname -r) (tests/guests.sh builds it)"
		return
	fi
	"$CG" completion off --quiet 2>/dev/null
	if ! insmod "$ko" 2>"$TMPD/hold.err"; then
		fail "$t: insmod cg_hold: $(cat "$TMPD/hold.err")"
		return
	fi
	dmesg -c >/dev/null
	if expect_refused "completion on while cg_hold holds skb_checksum_help" "$CG" completion on; then
		expect_grep "what the loader said" 'already redirected by another ftrace user' "$TMPD/expect.err"
		dmesg | grep -q 'another ftrace user with IPMODIFY (a live patch?) holds skb_checksum_help' ||
			unexpected "the kernel log" "does not say why: $(dmesg | grep -m1 csum_guard)"
		expect_eq "completion after the refusal" false "$("$CG" completion --json | jq -r .on)"
	else
		"$CG" completion off --quiet
	fi
	expect_ok "rmmod cg_hold" rmmod cg_hold
	expect_ok "on after cg_hold left" "$CG" completion on --quiet
	"$CG" completion off --quiet
	expect_eq "skb_checksum_help traced" "" "$(grep skb_checksum_help "$ef" 2>/dev/null)"
	expect_verdict "$t" "refused while another IPMODIFY user held skb_checksum_help, said so to the user and in the kernel log; on and off once it left, nothing traced"
}
cg_case completion_held

# A device guarded by one backend is not guarded by the other as well.
case_one_backend() {
	local t="one-backend-per-device [$BACKEND]" other

	[ "$BPF_OK" = 1 ] && [ "$KMOD_OK" = 1 ] ||
		{ [ "$BACKEND" = bpf ] && skip "$t: needs both backends on one kernel"; return 0; }
	[ "$BACKEND" = bpf ] && other=kmod || other=bpf
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	expect_refused "--backend $other over $BACKEND" "$CG" attach tap0 --netns "$VM" --backend $other &&
		expect_grep "what the refusal said" "already guarded by the $BACKEND backend" "$TMPD/expect.err" &&
		expect_ok "auto attach" "$CG" attach tap0 --netns "$VM" --quiet &&
		expect_eq "the backend after auto attach" "$BACKEND" \
			"$("$CG" status tap0 --netns "$VM" --json | jq -r .backend)"
	expect_verdict "$t" "--backend $other refused; auto keeps $BACKEND"
	guard_off
	topo_down
}
cg_case one_backend
