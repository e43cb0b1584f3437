# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 84-sc-lifecycle.sh - the responder's attach, detach and status: converging,
# devices that go away, an older responder, the sysctls, bad input.
# The namespaces, the helpers and the picture: tests/lib/syncookie.sh.

# Attach converges, ports change in place with the counters kept, another
# mode is refused while attached, auto picks generic XDP on a veth, and
# detach leaves nothing: no pins, programs, XDP, tc or nft state, and the
# sysctl as it was.
sc_snapshot() {
	{
		find /sys/fs/bpf/csum_guard_syncookie 2>/dev/null
		sc_progs
		ip -n "$SC_S" link show veth1 | grep -o 'xdp[a-z]*'
		ip netns exec "$SC_S" tc qdisc show dev veth1
		ip netns exec "$SC_S" nft list tables 2>/dev/null
		ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies
	} | md5sum
}

case_syn_idempotent() {
	local t="syn-idempotent" before p0 id0 id1 m r np

	sc_up || { fail "$t: set-up"; return; }
	before=$(sc_snapshot)
	p0=$(sc_progs)
	expect_ok "attach" sc_on --ports $SC_PORT --set-sysctl &&
		expect_ok "attach again" sc_on --ports $SC_PORT --set-sysctl
	m=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .mode)
	expect_eq "the mode auto picks on a veth" xdp-generic "$m"
	# the SYNs' program, and the ACKs' where it is hooked beside
	np=$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r 'if .ack_program then 2 else 1 end')
	expect_counter "programs after two attaches" "$np" $p0 $(sc_progs)
	id0=$(bpftool prog show 2>/dev/null | awk '/name syncookie_/ { print $1 }' | tail -1)
	r=$(inject $SC_PORT good)	# no listener: passed, counted
	sc_on --ports $SC_CLOSED,$SC_PORT --set-sysctl
	id1=$(bpftool prog show 2>/dev/null | awk '/name syncookie_/ { print $1 }' | tail -1)
	expect_eq "the program's id across a ports update" "$id0" "$id1"
	expect_eq "[ports, passed] after the ports update" "[[$SC_PORT,$SC_CLOSED],$SC_N]" \
		"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.ports, .counters.passed]')"
	expect_refused "a mode change while attached" sc_on --ports $SC_PORT --mode tc
	expect_eq "the mode change's lines on stderr ($(cat "$TMPD/expect.err"))" 1 "$(wc -l <"$TMPD/expect.err")"
	expect_ok "detach" sc_off && expect_ok "detach again" sc_off
	expect_eq "the state after detach (auto), as before attach" "$before" "$(sc_snapshot)"
	for m in tc nft xdp-generic; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		expect_ok "$m: attach" sc_on --ports $SC_PORT --mode $m --set-sysctl &&
			expect_ok "$m: attach again" sc_on --ports $SC_PORT --mode $m &&
			expect_ok "$m: detach" sc_off
		expect_eq "the state after detach ($m), as before attach" "$before" "$(sc_snapshot)"
	done
	expect_verdict "$t" "attach converges (one program, auto = xdp-generic on veth), ports updated in place with counters kept, mode change refused, detach leaves nothing (auto, tc, nft, xdp-generic)"
	sc_down
}
cg_kernel_case syn_idempotent

# detach of what is gone: the device (the responder's nft table and the
# sysctl it set stay in the namespace until detach puts them back), and
# the namespace. Exit 0, and nothing of the responder left.
case_syn_detach_gone() {
	local t="syn-detach-gone" ino out rc m before sysctl0 p0

	p0=$(sc_progs)
	for m in xdp-generic tc nft netns; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		sc_up || { unexpected "set-up" "the namespaces"; break; }
		ino=$(stat -L -c %i "/run/netns/$SC_S")
		sysctl0=$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies \
			net.netfilter.nf_conntrack_tcp_loose 2>/dev/null | paste -sd, -)
		expect_ok "attach ($m)" sc_on --ports $SC_PORT --mode $([ $m = netns ] && echo tc || echo $m) --set-sysctl
		if [ $m = netns ]; then
			sc_down
		else
			ip -n "$SC_S" link del veth1
		fi
		out=$("$CG" syncookie detach veth1 --netns "$SC_S" 2>&1)
		rc=$?
		expect_eq "detach ($m): exit status ($out)" 0 $rc
		expect_grep "detach ($m): what it said" 'is gone: removed the state' - <<<"$out"
		expect_eq "pins left ($m)" "" "$(find "/sys/fs/bpf/csum_guard_syncookie/$ino" -mindepth 1 2>/dev/null)"
		if [ $m != netns ]; then
			expect_eq "the sysctls after detach ($m)" "$sysctl0" \
				"$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies \
				net.netfilter.nf_conntrack_tcp_loose 2>/dev/null | paste -sd, -)"
			expect_eq "nft tables left ($m)" "" "$(ip netns exec "$SC_S" nft list tables 2>/dev/null)"
		fi
		sc_down
	done
	# the device that set the sysctl is deleted, and never detached by
	# name: the detach of the other responder of its namespace puts the
	# sysctl back and takes the gone one's pins too
	if sc_up && sc_second_dev; then
		ino=$(stat -L -c %i "/run/netns/$SC_S")
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
		expect_ok "attach veth1" sc_on --ports $SC_PORT --mode tc --set-sysctl &&
			expect_ok "attach vx0" "$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --quiet
		ip -n "$SC_S" link del veth1
		expect_ok "detach vx0" "$CG" syncookie detach vx0 --netns "$SC_S" --quiet
		expect_eq "tcp_syncookies after the last detach, as found" 1 \
			"$(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)"
		expect_eq "pins left after detaching the other device" "" \
			"$(find "/sys/fs/bpf/csum_guard_syncookie/$ino" -mindepth 1 2>/dev/null)"
	else
		unexpected "set-up" "two devices"
	fi
	sc_down
	sleep 0.3
	expect_eq "programs, as before" "$p0" "$(sc_progs)"
	expect_verdict "$t" "device deleted (generic XDP, tc, nft) and namespace deleted (tc): detach exits 0, sysctl and nft table put back, no pin or program left; the deleted device that set the sysctl is undone by the detach of another device of its namespace"
}
cg_kernel_case syn_detach_gone

# A responder left running by an older csum-guard (its state of another
# SC_ABI_VERSION: the meta pin's version rewritten here, as a package
# upgrade leaves it) still answers, and status says so and how to update it
# (text, and --json attached with outdated); the listing shows it; attach
# again starts it over with this version (one program, not outdated), and
# detach of an outdated one says it detached.
case_syn_outdated() {
	local t="syn-outdated" meta st p0 out round l

	command -v bpftool >/dev/null || { skip "$t: no bpftool"; return; }
	sc_up || { fail "$t: set-up"; return; }
	p0=$(sc_progs)
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --ready-file "$TMPD/sc.ready" --timeout 300 >/dev/null 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	for round in again detach; do
		expect_ok "$round: attach" sc_on --ports $SC_PORT --mode tc --set-sysctl || break
		meta=$(sc_pin_dir)/meta
		# the version is the first 4 bytes, little-endian: one less
		set -- $(bpftool map lookup pinned "$meta" key 0 0 0 0 -j | jq -r '.value[]' | sed 's/^0x//')
		[ $# -gt 4 ] && bpftool map update pinned "$meta" key 0 0 0 0 value hex \
			"$(printf %02x $((0x$1 - 1)))" "${@:2}" || { unexpected "$round: the meta" "could not rewrite it"; break; }
		st=$("$CG" syncookie status veth1 --netns "$SC_S")
		expect_grep "$round: status" "^veth1.*: answering SYNs (tc) with an older csum-guard's program (its state is version [0-9]*, this one's [0-9]*): attach again to update it$" - <<<"$st"
		expect_eq "$round: status --json's [attached, outdated, mode]" '[true,true,"tc"]' \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.attached, .outdated, .mode]')"
		expect_eq "$round: the listing's devices" '["veth1"]' \
			"$("$CG" syncookie status --netns "$SC_S" --json | jq -c 'map(.dev)')"
		"$CG" status --prometheus >"$TMPD/sc.prom"
		expect_grep "$round: status --prometheus ($(grep "$SC_S" "$TMPD/sc.prom" | tr '\n' ' '))" \
			"^csum_guard_syncookie_answering{device=\"veth1\",netns=\"$SC_S\",mode=\"tc\",.*outdated=\"true\"} 1$" "$TMPD/sc.prom"
		expect_eq "$round: the outdated responder's replies" "sent=$SC_N synack=$SC_N rst=0 other=0" \
			"$(inject $SC_PORT good)"
		if [ $round = again ]; then
			expect_ok "attach again" sc_on --ports $SC_PORT --mode tc --set-sysctl
			expect_eq "status --json's [attached, outdated] after attach again" '[true,false]' \
				"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -c '[.attached, .outdated]')"
			expect_eq "the replies after attach again" "sent=$SC_N synack=$SC_N rst=0 other=0" \
				"$(inject $SC_PORT good)"
			sc_off
		else
			out=$("$CG" syncookie detach veth1 --netns "$SC_S" 2>&1)
			expect_grep "what detach said" "detached the SYN responder from veth1" - <<<"$out"
		fi
		sleep 0.3
		expect_eq "$round: programs after, as before" "$p0" "$(sc_progs)"
	done
	kill $l 2>/dev/null
	wait $l 2>/dev/null
	expect_verdict "$t" "an older version's responder answers, status (text, --json outdated, the listing, --prometheus) says so and to attach again; attach again updates it, detach takes it; no program left"
	sc_down
}
cg_kernel_case syn_outdated

# Two responders in one namespace that issue the listener's cookies
# (--no-handoff), the first attached with --set-sysctl: detaching it must
# not take the sysctl from under the second; the last detach puts back
# what the first attach found. Responders with raw cookies (with the
# hand-off tables, kernel 6.0+: status .cookies "raw") need no sysctl:
# attach leaves tcp_syncookies as it is, --set-sysctl too, takes no part in
# the hand-over, and says where 2 costs the options.
case_syn_sysctl() {
	local t="syn-sysctl" v raw=
	local sys=(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)

	sc_up || { fail "$t: set-up"; return; }
	sc_second_dev || { fail "$t: set-up"; sc_down; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
	expect_ok "attach veth1 --set-sysctl" sc_on --ports $SC_PORT --set-sysctl --no-handoff
	expect_ok "attach vx0" "$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --no-handoff --quiet
	expect_eq "tcp_syncookies with both attached" 2 "$("${sys[@]}")"
	expect_ok "detach veth1" sc_off
	expect_eq "tcp_syncookies after the first detach, vx0 still answering" 2 "$("${sys[@]}")"
	expect_ok "detach vx0" "$CG" syncookie detach vx0 --netns "$SC_S" --quiet
	expect_eq "tcp_syncookies after the last detach, as found" 1 "$("${sys[@]}")"
	# raw cookies, where the kernel has them and nft makes the tables
	if command -v nft >/dev/null && sc_on --ports $SC_PORT --set-sysctl 2>"$TMPD/err" &&
	   [ "$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .cookies)" = raw ]; then
		raw=1
		expect_eq "raw cookies: tcp_syncookies after attach --set-sysctl, as found" 1 "$("${sys[@]}")"
		# beside one of the listener's cookies, which sets 2 and alone puts back 1
		expect_ok "attach vx0 --no-handoff beside raw" "$CG" syncookie attach vx0 --netns "$SC_S" \
			--ports $SC_PORT --no-handoff --set-sysctl --quiet
		expect_eq "tcp_syncookies with vx0 --no-handoff" 2 "$("${sys[@]}")"
		# under 2 the raw responder's SYN-ACKs carry the MSS option alone, and attach says why
		"$CG" syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT >"$TMPD/out" 2>&1
		expect_grep "raw cookies under tcp_syncookies 2: attach" "MSS only (tcp_syncookies is 2" "$TMPD/out"
		expect_ok "detach vx0 (--no-handoff)" "$CG" syncookie detach vx0 --netns "$SC_S" --quiet
		expect_eq "tcp_syncookies after detaching the --no-handoff one beside raw" 1 "$("${sys[@]}")"
		expect_ok "detach veth1 (raw)" sc_off
		expect_eq "tcp_syncookies after the raw one's detach" 1 "$("${sys[@]}")"
	elif [ -s "$TMPD/err" ]; then
		unexpected "attach with the tables" "$(head -1 "$TMPD/err")"
	else
		sc_off
	fi
	expect_verdict "$t" "two responders of the listener's cookies in one namespace keep tcp_syncookies=2 until the last detach, which puts back 1$([ -n "$raw" ] && echo "; raw cookies (with the tables) leave it at 1, --set-sysctl too, say what 2 costs, and do not hold it for a --no-handoff one")"
	sc_down
}
cg_kernel_case syn_sysctl

# syncookie detach --all: --netns NS takes that namespace's responders (an
# XDP one that set the sysctl, and an nft or tc one) and no other; without
# --netns every responder of the host goes, the client namespace's and the
# pins of a namespace deleted under its responder included; again, nothing
# to detach. Afterwards: no pin, program, nft table, and the sysctl as found.
case_syn_detach_all() {
	local t="syn-detach-all" p0 out m2 dead ino sys0
	local sys=(ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies)

	sc_up || { fail "$t: set-up"; return; }
	sc_second_dev || { fail "$t: set-up"; sc_down; return; }
	dead=$CG_PFX-scdead
	ip netns add $dead && ip -n $dead link add d0 type veth peer name d1 && ip -n $dead link set d0 up ||
		{ fail "$t: set-up"; sc_down; ip netns del $dead 2>/dev/null; return; }
	ino=$(stat -L -c %i /run/netns/$dead)
	p0=$(sc_progs)
	sys0=$("${sys[@]}")
	m2=$(command -v nft >/dev/null && echo nft || echo tc)
	expect_ok "attach veth1" sc_on --ports $SC_PORT --set-sysctl
	expect_ok "attach vx0 ($m2)" "$CG" syncookie attach vx0 --netns "$SC_S" --ports $SC_PORT --mode $m2 \
		--set-sysctl --quiet
	# these two without the hand-off: their ACK program too, where it loads
	expect_ok "attach veth0" "$CG" syncookie attach veth0 --netns "$SC_C" --ports $SC_PORT --mode tc \
		--set-sysctl --no-handoff --quiet
	expect_ok "attach d0" "$CG" syncookie attach d0 --netns $dead --ports $SC_PORT --mode tc \
		--set-sysctl --no-handoff --quiet
	ip netns del $dead

	out=$("$CG" syncookie detach --all --netns "$SC_S" 2>&1)
	expect_eq "detach --all --netns: exit status" 0 $?
	expect_eq "detach --all --netns: responders it named ($(tr '\n' '|' <<<"$out"))" 2 \
		"$(grep -c "^csum-guard: detached the SYN responder from \(veth1\|vx0\) in netns $SC_S$" <<<"$out")"
	expect_grep "detach --all --netns: its count" '^csum-guard: detached 2 SYN responders$' - <<<"$out"
	expect_eq "$SC_S's responders after" 0 "$("$CG" syncookie status --netns "$SC_S" --json | jq length)"
	expect_eq "tcp_syncookies after, as found" "$sys0" "$("${sys[@]}")"
	expect_eq "$SC_C's responder after --netns $SC_S (its mode)" tc \
		"$("$CG" syncookie status veth0 --netns "$SC_C" --json | jq -r .mode)"

	out=$("$CG" syncookie detach --all 2>&1)
	expect_eq "detach --all: exit status" 0 $?
	expect_grep "detach --all: what it said" "^csum-guard: detached the SYN responder from veth0 in netns $SC_C$" - <<<"$out"
	[ ! -e /sys/fs/bpf/csum_guard_syncookie/$ino ] ||
		unexpected "the deleted namespace's pins" "expected gone, saw them stay"
	out=$("$CG" syncookie detach --all 2>&1)
	expect_eq "detach --all again: exit status" 0 $?
	expect_grep "detach --all again: what it said" 'no device answering SYNs$' - <<<"$out"
	sleep 0.3
	expect_eq "programs, as before" "$p0" "$(sc_progs)"
	expect_eq "nft tables left" "" "$(ip netns exec "$SC_S" nft list tables 2>/dev/null)"
	expect_eq "pins left" "" "$(find /sys/fs/bpf/csum_guard_syncookie -mindepth 2 2>/dev/null | head -2)"
	expect_verdict "$t" "--netns took its 2 responders (xdp-generic with the sysctl, $m2) and put the sysctl back; --all took the client's and a deleted namespace's pins (both --no-handoff: their ACK programs where they load); again: nothing; no pin, program or table left"
	sc_down
}
cg_kernel_case syn_detach_all

# Bad input: one line on stderr, status 2 (usage) or 1 (refused), and no change.
case_syn_bad_input() {
	local t="syn-bad-input" before want args n=0

	sc_up || { fail "$t: set-up"; return; }
	ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=1
	before=$(sc_snapshot)
	while IFS='|' read -r want args; do
		[ -n "$want" ] || continue
		n=$((n + 1))
		eval "set -- $args"
		expect_bad_input "syncookie $args" "$want" "$CG" syncookie "$@"
	done <<-EOT
	2|
	2|frobnicate
	2|attach
	2|attach veth1 --netns $SC_S
	2|attach veth1 --netns $SC_S --ports 0
	2|attach veth1 --netns $SC_S --ports 65536
	2|attach veth1 --netns $SC_S --ports 80,
	2|attach veth1 --netns $SC_S --ports http
	2|attach veth1 --netns $SC_S --ports 80 --mode warp
	2|attach veth1 veth0 --netns $SC_S --ports 80
	2|attach a/b --netns $SC_S --ports 80
	2|detach veth1 --ports 80 --netns $SC_S
	2|detach veth1 --set-sysctl --netns $SC_S
	2|status veth1 --mode xdp --netns $SC_S
	2|probe veth1
	2|attach veth1 --netns $SC_S --ports 80 --allow 10.0.0.0/33
	2|attach veth1 --netns $SC_S --ports 80 --allow 10.0.0.1,
	2|attach veth1 --netns $SC_S --ports 80 --allow fd09::zz
	2|detach veth1 --allow 10.0.0.1 --netns $SC_S
	2|attach veth1 --netns $SC_S --ports 80 --mode nft --no-handoff
	2|detach veth1 --no-handoff --netns $SC_S
	2|probe --netns $SC_S
	2|detach
	1|attach veth1 --netns $SC_S --ports 80 --no-handoff
	1|attach nosuch0 --netns $SC_S --ports 80 --set-sysctl
	1|attach veth1 --netns $CG_PFX-nosuchns --ports 80
	EOT
	expect_eq "the state after them, as before" "$before" "$(sc_snapshot)"
	expect_verdict "$t" "$n bad invocations, one line each, status 2 or 1 (tcp_syncookies=1 without --set-sysctl refused for the listener's cookies), nothing changed"
	sc_down
}
cg_kernel_case syn_bad_input
