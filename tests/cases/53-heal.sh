# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 53-heal.sh - guards taken off or changed under watch are put back, and
# counted; verify names each drift and --heal puts it back.

# heal_guarded DEV NS [EGRESS]: is DEV guarded (with its egress hook, when
# EGRESS is true)?
heal_guarded() {
	local st
	st=$("$CG" status "$1" --netns "$2" --json 2>/dev/null) || return 1
	[ "$(jq -r .attached <<<"$st")" = true ] || return 1
	[ "${3:-false}" = false ] || [ "$(jq -r .egress <<<"$st")" = true ]
}

# heal_back DEV NS EGRESS CEILING: wait until DEV is guarded again, CEILING
# seconds at most; prints the milliseconds it took, or fails
heal_back() {
	local t0 now end
	t0=$(date +%s%N)
	end=$((t0 / 1000000 + $4 * 1000))
	until heal_guarded "$1" "$2" "$3"; do
		now=$(date +%s%N)
		[ $((now / 1000000)) -lt $end ] || return 1
		sleep 0.05
	done
	echo $((($(date +%s%N) - t0) / 1000000))
}

# heal_repairs REASON: the host-wide count status --prometheus gives
heal_repairs() {
	"$CG" status --prometheus 2>/dev/null |
		sed -n "s/^csum_guard_repairs_total{reason=\"$1\"} \([0-9]*\)$/\1/p"
}

# heal_drop DEV NS: one bad frame through DEV is dropped and counted
heal_drop() {
	local d0 d1
	d0=$("$CG" status "$1" --netns "$2" --json | jq -r .dropped)
	ip netns exec "$2" "$INJECT" --dev "$1" --csum-start 20 --csum-offset 6 2>"$TMPD/heal.inject" ||
		unexpected "$1: inject" "$(head -2 "$TMPD/heal.inject" | tr '\n' ' ')"
	d1=$("$CG" status "$1" --netns "$2" --json | jq -r .dropped)
	expect_counter "$1: drops after it was put back" 1 "$d0" "$d1" ||
		unexpected "$1: then" "$("$CG" status "$1" --netns "$2"; ip netns exec "$2" tc filter show dev "$1" ingress | tr '\n' ' ')"
}

# Under watch, each way a guard can be taken off or changed, one device
# each, then put back within a second (waited for up to $ceil s: a
# functional check; the watcher's own figure is in its log), counted by
# reason and by device, and dropping a bad frame again:
#
#   netns $CG_PFX-heal: taps ${p}q ${p}f ${p}r ${p}e (bpf: clsact, made
#   before watch), ${p}l ${p}s and ${p}d (what watch picks: tcx where the kernel
#   has it, else clsact; kmod: the module's hooks)
#
#   bpf:  tc qdisc del (q), tc filter del (f), another program in the
#         guard's place (r), its egress filter deleted (e), the tcx link
#         detached with bpftool (l), the tcx link updated to another
#         program (s: cg-hooks --swap), a detach by another csum-guard (d)
#   kmod: a detach by another csum-guard (d), rmmod (every device)
case_heal_watch() {
	local t="heal/watch [$BACKEND]" ns=$CG_PFX-heal p=hw$(($$ % 10000)) out=$TMPD/hw.out
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 120 || echo 20)
	local ceil=$([ -n "${CG_GUEST:-}" ] && echo 30 || echo 10)
	local wpid d ms rows= tcx ino ifi r0 r1 want devs egress=false
	export CSUM_GUARD_REPAIRS=$TMPD/hw.repairs

	rm -f "$CSUM_GUARD_REPAIRS"
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	tcx=$("$CG" probe --json | jq -r .tcx)
	ip netns add "$ns"
	devs="${p}l ${p}d"
	[ "$BACKEND" = bpf ] && devs="${p}q ${p}f ${p}r ${p}e ${p}s $devs"
	for d in $devs; do
		ip -n "$ns" tuntap add dev "$d" mode tap vnet_hdr
		ip -n "$ns" link set "$d" up
	done
	if [ "$BACKEND" = bpf ]; then
		for d in ${p}q ${p}f ${p}r; do
			expect_ok "attach $d --mode clsact" "$CG" attach "$d" --netns "$ns" --mode clsact --quiet
		done
		expect_ok "attach ${p}e --mode clsact --egress" \
			"$CG" attach ${p}e --netns "$ns" --mode clsact --egress --quiet
	elif [ "$("$CG" probe --json | jq -r .kmod_egress_unavailable)" = null ]; then
		# what the module held goes with it: watch puts --egress back from memory
		expect_ok "attach ${p}l --egress" "$CG" attach ${p}l --netns "$ns" --backend kmod --egress --quiet &&
			egress=true
	fi
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$TMPD/hw.err" &
	wpid=$!
	watch_line "$out" '^ready: ' $lim || unexpected "ready" "no ready line: $(tr '\n' '|' <"$out")"

	# heal_one DEV REASON EGRESS WHAT CMD...: CMD takes DEV's guard off
	heal_one() {
		r0=$(heal_repairs "$2")
		"${@:5}" || unexpected "$4" "failed"
		if ! ms=$(heal_back "$1" "$ns" "$3" "$ceil"); then
			unexpected "$1 after $4" "not guarded again within $ceil s: $(grep " $1 " "$out" | tail -2 | tr '\n' '|')"
			return
		fi
		# the count comes with the repair's log line, right after the guard
		watch_line "$out" "^put back the guard of $1 netns $ns .* after $2, in [0-9]+ ms$" $lim ||
			unexpected "$1: log" "no 'put back ... after $2' line: $(grep " $1 " "$out" | tail -2 | tr '\n' '|')"
		r1=$(heal_repairs "$2")
		expect_counter "csum_guard_repairs_total{reason=\"$2\"}" 1 "${r0:-0}" "${r1:-0}"
		expect_eq "$1: repairs in status --json" 1 \
			"$("$CG" status "$1" --netns "$ns" --json | jq -r .repairs)"
		heal_drop "$1" "$ns"
		rows="$rows; $4: back in $ms ms (watch's log: $(sed -n "s/^put back the guard of $1 netns $ns .* in \([0-9]*\) ms$/\1/p" "$out" | tail -1) ms)"
	}

	if [ "$BACKEND" = bpf ]; then
		heal_one ${p}q qdisc_deleted false "tc qdisc del" \
			ip netns exec "$ns" tc qdisc del dev ${p}q clsact
		heal_one ${p}f filter_deleted false "tc filter del" \
			ip netns exec "$ns" tc filter del dev ${p}f ingress
		heal_one ${p}r program_replaced false "another program in its place" \
			ip netns exec "$ns" tc filter replace dev ${p}r ingress pref 1 handle 0xc5 bpf da \
			obj "$BLD/tests/tc-pass.bpf.o" sec tc
		heal_one ${p}e options_changed true "its egress filter deleted" \
			ip netns exec "$ns" tc filter del dev ${p}e egress
		if [ "$tcx" = true ]; then
			ino=$(stat -L -c %i /run/netns/"$ns")
			ifi=$(ip netns exec "$ns" cat /sys/class/net/${p}l/ifindex)
			expect_eq "${p}l's mode" tcx "$("$CG" status ${p}l --netns "$ns" --json | jq -r .mode)"
			heal_one ${p}l link_detached false "tcx link detached" \
				bpftool link detach pinned /sys/fs/bpf/csum_guard/$ino/$ifi/link
			# the link stays and reads as attached: only its program changes
			ifi=$(ip netns exec "$ns" cat /sys/class/net/${p}s/ifindex)
			# (from here: ip netns exec mounts a /sys without bpffs)
			heal_one ${p}s program_replaced false "tcx link updated to another program" \
				"$HOOKS" --swap /sys/fs/bpf/csum_guard/$ino/$ifi/link "$BLD/tests/tc-pass.bpf.o" >/dev/null
		else
			note "$t: no tcx on this kernel: the tcx detach is for kernels with it"
		fi
		want=$([ "$tcx" = true ] && echo link_detached || echo filter_deleted)
	else
		want=hook_gone
	fi
	# another csum-guard's detach: the guard and its state gone
	heal_one ${p}d $want false "csum-guard detach" "$CG" detach ${p}d --netns "$ns" --quiet
	if [ "$BACKEND" = kmod ]; then
		# the module unloaded: every device it guarded, back
		r0=$(heal_repairs module_unloaded)
		if expect_ok "rmmod" rmmod csum_guard; then
			for d in $devs; do
				heal_back "$d" "$ns" "$([ $d = ${p}l ] && echo $egress || echo false)" "$ceil" >/dev/null ||
					unexpected "$d after rmmod" "not guarded again within $ceil s: $(grep " $d " "$out" | tail -2 | tr '\n' '|')"
			done
			watch_line "$out" "^put back the guard of ${p}l netns $ns .* after module_unloaded" $lim
			r1=$(heal_repairs module_unloaded)
			expect_counter "csum_guard_repairs_total{reason=\"module_unloaded\"}" 2 "${r0:-0}" "${r1:-0}"
			heal_drop ${p}l "$ns"
			rows="$rows; rmmod: both back$([ $egress = true ] && echo ", ${p}l with its --egress")"
		fi
	fi
	grep -q '^cannot put back' "$out" && unexpected "log" "$(grep -m1 '^cannot put back' "$out")"
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	for d in $devs; do "$CG" detach "$d" --netns "$ns" --quiet; done
	ip netns del "$ns"
	unset CSUM_GUARD_REPAIRS
	expect_verdict "$t" "each put back, counted by reason and device, dropping again${rows}"
}
cg_case heal_watch

# verify: exit 1 naming each drift, 0 and nothing on stdout when all is
# well; --heal puts each back (0) and counts it; bad input refused.
#
#   netns $CG_PFX-hv: taps ${p}a (clsact, egress), ${p}b, ${p}c
case_heal_verify() {
	local t="heal/verify [$BACKEND]" ns=$CG_PFX-hv p=hv$(($$ % 10000)) rc d out=$TMPD/hv.out
	local next=$BLD/tests/csum-guard-next outdated= auto=
	export CSUM_GUARD_REPAIRS=$TMPD/hv.repairs

	rm -f "$CSUM_GUARD_REPAIRS"
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns add "$ns"
	for d in ${p}a ${p}b ${p}c; do
		ip -n "$ns" tuntap add dev "$d" mode tap vnet_hdr
		ip -n "$ns" link set "$d" up
	done
	# nothing guarded: each named, exit 1
	"$CG" verify --netns "$ns" >"$out" 2>/dev/null
	expect_eq "verify, nothing guarded: exit" 1 $?
	for d in ${p}a ${p}b ${p}c; do
		expect_grep "verify names $d" "^drift: $d netns $ns: not guarded" "$out"
	done
	# all guarded: exit 0, nothing on stdout
	if [ "$BACKEND" = bpf ]; then
		"$CG" attach ${p}a --netns "$ns" --mode clsact --egress --quiet
	else
		"$CG" attach ${p}a --netns "$ns" --backend kmod --egress --quiet
	fi
	for d in ${p}b ${p}c; do "$CG" attach $d --netns "$ns" --backend "$BACKEND" --quiet; done
	"$CG" verify --netns "$ns" >"$out" 2>"$TMPD/hv.err"
	rc=$?
	expect_eq "verify, all guarded: exit" 0 $rc
	expect_eq "verify, all guarded: stdout" "" "$(cat "$out")"
	expect_grep "verify, all guarded: stderr" "nothing drifted" "$TMPD/hv.err"
	# a fourth tap, where tcx is: its guard's link updated to another program
	local swapped= ino ifi
	if [ "$BACKEND" = bpf ] && [ "$("$CG" probe --json | jq -r .tcx)" = true ]; then
		ip -n "$ns" tuntap add dev ${p}d mode tap vnet_hdr && ip -n "$ns" link set ${p}d up &&
			"$CG" attach ${p}d --netns "$ns" --backend bpf --mode tcx --quiet &&
			swapped=1
	fi
	# drifts
	if [ "$BACKEND" = bpf ]; then
		if [ -n "$swapped" ]; then
			ino=$(stat -L -c %i /run/netns/"$ns")
			ifi=$(ip netns exec "$ns" cat /sys/class/net/${p}d/ifindex)
			expect_ok "swap ${p}d's link to tc-pass" \
				"$HOOKS" --swap /sys/fs/bpf/csum_guard/$ino/$ifi/link "$BLD/tests/tc-pass.bpf.o" >/dev/null
		fi
		ip netns exec "$ns" tc filter del dev ${p}a egress
		"$CG" detach ${p}b --netns "$ns" --quiet
		if [ -x "$next" ]; then
			"$CG" detach ${p}c --netns "$ns" --quiet
			"$next" attach ${p}c --netns "$ns" --quiet && outdated=1
		fi
	else
		"$CG" detach ${p}b --netns "$ns" --quiet
		rmmod csum_guard || unexpected "rmmod" "refused"
	fi
	"$CG" verify --netns "$ns" >"$out" 2>/dev/null
	expect_eq "verify, drifted: exit" 1 $?
	if [ "$BACKEND" = bpf ]; then
		expect_grep "verify names ${p}a" "^drift: ${p}a netns $ns: guarded with other options than recorded: egress" "$out"
		expect_grep "verify names ${p}b" "^drift: ${p}b netns $ns: not guarded" "$out"
		[ -n "$outdated" ] && expect_grep "verify names ${p}c" \
			"^drift: ${p}c netns $ns: program outdated: attached by csum-guard .*+next" "$out"
		[ -n "$swapped" ] && expect_grep "verify names ${p}d" \
			"^drift: ${p}d netns $ns: program replaced: its tcx link runs another program" "$out"
		expect_eq "verify, drifted: lines" $((2 + ${outdated:-0} + ${swapped:-0})) "$(grep -c '^drift: ' "$out")"
	else
		for d in ${p}a ${p}b ${p}c; do
			expect_grep "verify names $d" "^drift: $d netns $ns: not guarded" "$out"
		done
		# the module's absence is a drift of its own where an attach
		# would take the module; where it would take bpf (6.2 and
		# later), the taps are just unguarded, and --heal guards them so
		auto=$("$CG" probe --json 2>/dev/null | jq -r .backend)
		[ "$auto" != kmod ] ||
			expect_grep "verify says the module is gone" "not guarded: the module csum_guard is not loaded" "$out"
	fi
	"$CG" verify --netns "$ns" --json >"$out" 2>/dev/null
	expect_eq "verify --json, drifted: exit" 1 $?
	expect_eq "verify --json: ok" false "$(jq -r .ok "$out" 2>&1)"
	# --heal: each put back as it was, exit 0
	"$CG" verify --netns "$ns" --heal >"$out" 2>/dev/null
	expect_eq "verify --heal: exit" 0 $?
	expect_eq "verify --heal: lines" 0 "$(grep -vc '^healed: ' "$out")"
	# the module's guards keep their options in the module: once it is
	# unloaded, verify cannot know ${p}a had --egress (watch remembers)
	if [ "$BACKEND" = bpf ]; then
		heal_guarded ${p}a "$ns" true || unexpected "${p}a after --heal" "not guarded with egress"
	else
		heal_guarded ${p}a "$ns" || unexpected "${p}a after --heal" "not guarded"
	fi
	for d in ${p}b ${p}c; do
		heal_guarded $d "$ns" || unexpected "$d after --heal" "not guarded"
	done
	if [ -n "$swapped" ]; then
		heal_drop ${p}d "$ns"
		expect_eq "${p}d's repairs (program_replaced)" 1 \
			"$("$CG" status ${p}d --netns "$ns" --json | jq -r .repairs)"
	fi
	[ -n "$outdated" ] && expect_eq "${p}c's loader after --heal" "$(cat "$TOP/VERSION")" \
		"$("$CG" status ${p}c --netns "$ns" --json | jq -r .loader_version)"
	heal_drop ${p}a "$ns"
	if [ "$BACKEND" = bpf ]; then
		expect_eq "repairs counted (options_changed)" 1 "$(heal_repairs options_changed)"
		expect_eq "${p}a's repairs" 1 "$("$CG" status ${p}a --netns "$ns" --json | jq -r .repairs)"
	elif [ "$auto" = kmod ]; then
		expect_eq "repairs counted (module_unloaded)" 3 "$(heal_repairs module_unloaded)"
	fi
	"$CG" verify --netns "$ns" >"$out" 2>/dev/null
	expect_eq "verify after --heal: exit" 0 $?
	expect_eq "verify after --heal: stdout" "" "$(cat "$out")"
	# bad input: one line, nothing changed
	expect_bad_input "verify DEV" 2 "$CG" verify ${p}a
	expect_bad_input "verify --netns of none" 1 "$CG" verify --netns "$CG_PFX-none"
	expect_bad_input "verify --egress" 2 "$CG" verify --egress
	for d in ${p}a ${p}b ${p}c ${p}d; do "$CG" detach $d --netns "$ns" --quiet 2>/dev/null; done
	ip netns del "$ns"
	unset CSUM_GUARD_REPAIRS
	expect_verdict "$t" "exit 1 naming each drift$([ -n "$outdated" ] && echo ", an outdated program among them")$([ -n "$auto" ] && echo " (the module unloaded; an attach here takes $auto)"), 0 and a quiet stdout when none, --heal put each back as recorded (0)$([ "${auto:-kmod}" = kmod ] && echo " and counted it"), bad input refused"
}
cg_case heal_verify
