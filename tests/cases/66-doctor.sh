# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 66-doctor.sh - csum-guard doctor: what it says of a device before and
# after it is guarded, its exit status, and that it changes nothing.

# doctor_finding JSON NAME: the state of the finding about NAME ("" none)
doctor_finding() {
	jq -r --arg n "$2" '[.checks[] | select(.check == $n) | .state] | first // ""' <<<"$1"
}

case_doctor() {
	local t="doctor [$BACKEND]" out rc dev before

	topo_up || { fail "$t: set-up"; return; }
	dev="device tap0 netns $VM (tun)"
	before=$(guarded_json | jq -c 'map([.device, .netns, .attached])')
	out=$("$CG" doctor --json)
	rc=$?
	jq -e '.checks | length > 3' >/dev/null <<<"$out" || unexpected "not its JSON" "${out:0:120}"
	case $(doctor_finding "$out" "$dev") in
	fail) [ "$rc" = 1 ] || unexpected "exit $rc with tap0 unguarded" ;;
	warn) # the completion guard covers it where the module runs
		[ "$(doctor_finding "$out" "completion guard")" = ok ] ||
			unexpected "tap0 a warning without the completion guard" ;;
	*) unexpected "unguarded tap0" "'$(doctor_finding "$out" "$dev")'" ;;
	esac
	[ "$(jq -r .healthy <<<"$out")" = "$([ "$(jq .failed <<<"$out")" = 0 ] && echo true || echo false)" ] &&
		[ "$rc" = "$([ "$(jq .failed <<<"$out")" = 0 ] && echo 0 || echo 1)" ] ||
		unexpected "healthy, failed and the exit status disagree (rc $rc)"
	"$CG" doctor >"$TMPD/doctor.txt"
	grep -q "^fail  $dev: not guarded" "$TMPD/doctor.txt" ||
		grep -q "^warn  $dev: no guard of its own" "$TMPD/doctor.txt" ||
		unexpected "the text names no finding for tap0"
	grep -q -- "-> csum-guard attach tap0 --netns $VM" "$TMPD/doctor.txt" ||
		unexpected "no attach hint for tap0"
	[ "$(guarded_json | jq -c 'map([.device, .netns, .attached])')" = "$before" ] ||
		unexpected "doctor changed what is guarded"
	# what the watcher's --match leaves alone is excluded, no failure
	out=$("$CG" doctor --json --match 'cgnomatch*')
	[ "$(doctor_finding "$out" "$dev")" = ok ] &&
		jq -e --arg n "$dev" '.checks[] | select(.check == $n) | .detail | test("^excluded: ")' >/dev/null <<<"$out" ||
		unexpected "tap0 outside --match" "'$(doctor_finding "$out" "$dev")', not ok and excluded"
	guard_on || unexpected "attach failed"
	out=$("$CG" doctor --json)
	[ "$(doctor_finding "$out" "$dev")" = ok ] || unexpected "guarded tap0" "'$(doctor_finding "$out" "$dev")'"
	jq -e --arg n "$dev" '.checks[] | select(.check == $n) | .detail | test("^guarded by ")' \
		>/dev/null <<<"$out" || unexpected "guarded tap0's detail" "no 'guarded by'"
	"$CG" doctor tap0 >/dev/null 2>&1
	[ $? = 2 ] || unexpected "doctor took a device"
	guard_off
	# a bpf guard whose egress hook was taken off: a warning naming it
	if [ "$BACKEND" = bpf ]; then
		"$CG" attach tap0 --netns "$VM" --backend bpf --mode clsact --egress -q &&
			tc -n "$VM" filter del dev tap0 egress || unexpected "cannot set up the egress drift"
		out=$("$CG" doctor --json)
		jq -e --arg n "$dev" '[.checks[] | select(.check == $n and .state == "warn") | .detail] |
			any(test("egress hook is gone"))' >/dev/null <<<"$out" ||
			unexpected "no warning for tap0's egress hook gone" "$(jq -c --arg n "$dev" '[.checks[] | select(.check == $n)]' <<<"$out")"
		guard_off
	fi
	expect_verdict "$t" "an unguarded tap is a finding with the attach to run, excluded and no failure outside --match, the exit status follows the findings, a guarded one is ok$([ "$BACKEND" = bpf ] && echo ", one whose egress hook was deleted a warning"); nothing changed"
	topo_down
}
cg_case doctor

# A tap of root's moved into a namespace of another user namespace (here
# root's own `unshare -U`: a user's `unshare -rn` is the same to status):
# watch leaves such namespaces alone, so status and doctor say excluded,
# with why, not unguarded (which a user could raise by the thousand);
# asked about by name, the same; and status --prometheus puts it under
# csum_guard_excluded, never csum_guard_unguarded.
case_status_userns() {
	local t="status-userns" p=cx$(($$ % 10000)) pid out row ino

	command -v unshare >/dev/null || { skip "$t: no unshare"; return; }
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	unshare -U -r -n sleep 120 &
	pid=$!
	sleep 0.3
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid 2>/dev/null
		skip "$t: this kernel makes no user namespace here"
		return
	fi
	if ! ip tuntap add dev ${p}t0 mode tap vnet_hdr || ! ip link set ${p}t0 netns $pid ||
	   ! nsenter -t $pid -n ip link set ${p}t0 up; then
		fail "$t: set-up: no tap ${p}t0 in the user namespace's netns"
		ip link del ${p}t0 2>/dev/null
		kill $pid; wait $pid 2>/dev/null
		return
	fi
	ino=$(stat -L -c %i /proc/$pid/ns/net)
	out=$("$CG" status --json)
	row=$(jq -c --arg d ${p}t0 --arg n "$ino" '[.[] | select(.device == $d and .netns == $n)] | first // empty' <<<"$out")
	[ "$(jq -r .state <<<"$row")" = excluded ] &&
		jq -e '.state_reason | test("another user namespace")' >/dev/null <<<"$row" ||
		unexpected "host-wide status" "${row:-no row}"
	row=$("$CG" status ${p}t0 --netns /proc/$pid/ns/net --json)
	[ "$(jq -r .state <<<"$row")" = excluded ] || unexpected "status ${p}t0 --netns" "$row"
	out=$("$CG" status --prometheus)
	grep -q "^csum_guard_excluded{device=\"${p}t0\",netns=\"$ino\"" <<<"$out" ||
		unexpected "no csum_guard_excluded line"
	grep -q "^csum_guard_guarded{device=\"${p}t0\"" <<<"$out" && unexpected "listed in csum_guard_guarded too"
	out=$("$CG" doctor --json)
	jq -e --arg n "device ${p}t0 netns $ino (tun)" \
		'.checks[] | select(.check == $n) | .state == "ok" and (.detail | test("^excluded: "))' \
		>/dev/null <<<"$out" || unexpected "doctor" "$(jq -c --arg d ${p}t0 '[.checks[] | select(.check | contains($d))]' <<<"$out")"
	kill $pid
	wait $pid 2>/dev/null
	expect_verdict "$t" "a tap in another user namespace's netns: excluded in status (host-wide and by name), csum_guard_excluded, doctor ok, with why"
}
cg_kernel_case status_userns

# The completion guard's metrics say what `completion status` says: on,
# and whether it can be at all (available), with the counters.
case_completion_metrics() {
	local t="completion-metrics" st prom want_av want_on

	st=$("$CG" completion status --json 2>"$TMPD/$t.err") ||
		{ fail "$t: completion status failed: $(cat "$TMPD/$t.err")"; return; }
	prom=$("$CG" status --prometheus) || { fail "$t: status --prometheus failed"; return; }
	want_on=$(jq -r 'if .on then 1 else 0 end' <<<"$st")
	want_av=$(jq -r 'if .on or .unavailable == null then 1 else 0 end' <<<"$st")
	if ! grep -qx "csum_guard_completion_available $want_av" <<<"$prom" ||
	   ! grep -qx "csum_guard_completion_enabled $want_on" <<<"$prom" ||
	   ! grep -q '^# TYPE csum_guard_completion_available gauge$' <<<"$prom"; then
		fail "$t: completion status $st, metrics: $(grep completion_ <<<"$prom" | grep -v '^#' | tr '\n' ' ')"
		return
	fi
	pass "$t: available $want_av, enabled $want_on, as completion status says ($(jq -r '.unavailable // "it can be on"' <<<"$st"))"
}
cg_kernel_case completion_metrics
