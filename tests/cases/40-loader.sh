# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 40-loader.sh - the command's contract: idempotence, clean detach, errors.

# Attach again and again: one guard, whose program the kernel keeps while
# the options stay, swaps when they change, and which runs the options
# asked for; the counters count every drop across all of it. What runs is
# read from the kernel (bpf: the hooks' programs and their read-only data;
# kmod: the module, which is the kernel's state), what was dropped from
# the frames the case sends. bpf: one program per kind of load for the
# host, verified once: a second tap's guard runs the very program of the
# first's with the same options, and its drops are its own.
case_idempotent() {
	local t="attach-idempotent [$BACKEND]" p0 p1 n h0 h1 h2 h3 h4 sent=0

	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	p0=$(prog_count)
	idem_step() {	# attach OPTS, then send one bad frame
		expect_ok "attach $*" guard_on "$@"
		ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --payload 64 &&
			sent=$((sent + 1))
	}
	idem_step
	h0=$(kernel_guard "$VM" tap0)
	idem_step
	h1=$(kernel_guard "$VM" tap0)
	idem_step --log-drops
	h2=$(kernel_guard "$VM" tap0)
	idem_step --log-drops
	h3=$(kernel_guard "$VM" tap0)
	n=$(guarded_json --netns "$VM" | jq length)
	p1=$(prog_count)
	set -- $("$CG" status tap0 --netns "$VM" --json |
		jq -r '"\(.attached) \(.log_drops) \(.backend) \(.dropped) \(.dropped_unreadable)"')
	expect_eq "status's attached, log_drops, backend; devices listed" "true true $BACKEND 1" "$1 $2 $3 $n"
	expect_eq "[dropped, unreadable] for $sent bad frames sent" "$sent 0" "$4 $5"
	if [ "$BACKEND" = bpf ]; then
		expect_eq "programs the kernel runs on tap0 after one attach ($(tr '\n' ' ' <<<"$h0"))" 1 \
			"$(wc -l <<<"$h0")"
		expect_glob "the program on tap0's hook" "*_ingress *" "$h0"
		expect_eq "the program after a repeated attach" "$h0" "$h1"
		# "HOOK ID TAG LOG_DROPS": the same hook, another program, which
		# runs with log_drops on
		set -- $h0 $h2
		[ "$#" = 8 ] && [ "$1" = "$5" ] && [ "$2" != "$6" ] && [ "$4 $8" = "false true" ] ||
			unexpected "--log-drops" "expected another program that logs on the same hook, saw $h0 -> $h2"
		expect_eq "the program after a repeated attach --log-drops" "$h2" "$h3"
		# the program without --log-drops stays loaded for the next guard
		expect_counter "csum_guard programs on the host" 2 $p0 $p1
		ip -n "$VM" tuntap add dev tap1 mode tap vnet_hdr && ip -n "$VM" link set tap1 up &&
			expect_ok "attach tap1" "$CG" attach tap1 --netns "$VM" --backend bpf --quiet
		h4=$(kernel_guard "$VM" tap1)
		set -- $h0 $h4
		[ "$#" = 8 ] && [ "$2 $3 $4" = "$6 $7 $8" ] ||
			unexpected "tap1's guard" "expected tap0's first program, saw $h0 / $h4"
		expect_eq "programs after a second tap's guard" "$p1" "$(prog_count)"
		ip netns exec "$VM" "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --payload 64
		expect_eq "tap1's counters after one drop on it" "1 0 true" "$(guard_counters tap1)"
		expect_eq "tap0's dropped after one drop on tap1" "$sent" "$(guard_counters | cut -d' ' -f1)"
		"$CG" detach tap1 --netns "$VM" --quiet
	fi
	if [ "$BACKEND" = bpf ]; then
		expect_verdict "$t" "four attaches, one guard; the kernel kept the program while the options stayed and swapped it for --log-drops; $sent drops counted; a second tap's guard runs the first program, no new load, its drop its own"
	else
		expect_verdict "$t" "four attaches, one guard, as the module reports it, with log_drops on; $sent drops counted"
	fi
	guard_off
	topo_down
}
cg_case idempotent

case_detach_clean() {
	local t="detach-clean [$BACKEND]" before after

	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	before=$(state_snapshot)
	guard_on && guard_off
	after=$(state_snapshot)
	if [ "$before" = "$after" ] && guard_off; then
		pass "$t: nothing left after detach; a second detach is a no-op"
	else
		fail "$t: state differs after attach+detach"
	fi
	topo_down
}
cg_case detach_clean

# detach of what the VM manager already deleted: the device, the device
# made again under the same name, the namespace. Each exits 0, removes
# exactly the state that device's guard left, and touches no other device.
# bpf: the netns-gone case runs for tcx and clsact (a clsact filter leaves
# pins that no prune finds); kmod: the module drops a device's state when
# the device goes, so only the exit and the listing are to check.
case_detach_gone() {
	local t="detach-gone [$BACKEND]" p0 pins0 ino out rc mode modes=tcx

	p0=$(prog_count)
	pins0=$(pin_list)
	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	ino=$(stat -L -c %i "/run/netns/$VM")
	gone_pins() { find "/sys/fs/bpf/csum_guard/$ino" -mindepth 1 2>/dev/null; }
	# gone_detach WHAT SAYS: detach tap0 exits 0, says SAYS (bpf), leaves no pin
	gone_detach() {
		out=$("$CG" detach tap0 --netns "$VM" 2>&1)
		rc=$?
		expect_eq "detach ($1): exit status ($out)" 0 $rc
		[ "$BACKEND" != bpf ] || expect_grep "detach ($1): what it said" "$2" - <<<"$out"
		expect_eq "pins left ($1)" "" "$(gone_pins | tr '\n' ' ')"
	}

	# the device is gone
	expect_ok "attach" guard_on
	ip -n "$VM" link del tap0
	gone_detach "deleted tap" 'was gone: removed'
	expect_eq "guards listed after" "[]" "$(guarded_json --netns "$VM")"

	# made again under the same name: the old guard's state goes, the new
	# tap and a guarded neighbour stay as they are
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr && ip -n "$VM" link set tap0 up
	expect_ok "attach" guard_on
	ip -n "$VM" link del tap0
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr && ip -n "$VM" link set tap0 up
	ip -n "$VM" tuntap add dev tap1 mode tap vnet_hdr && ip -n "$VM" link set tap1 up
	expect_ok "attach tap1" "$CG" attach tap1 --netns "$VM" --backend "$BACKEND" --quiet
	out=$("$CG" detach tap0 --netns "$VM" 2>&1)
	expect_eq "detach of a remade tap: exit status ($out)" 0 $?
	expect_eq "guarded after detach of the remade tap0 ($("$CG" status --netns "$VM" --json))" tap1 \
		"$(guarded_json --netns "$VM" | jq -r '[.[] | .device] | join(",")')"
	[ "$BACKEND" != bpf ] ||
		expect_eq "meta pins after ($(gone_pins | tr '\n' ' '))" 1 "$(gone_pins | grep -c /meta)"
	ip netns exec "$VM" "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --payload 64
	expect_eq "tap1's dropped after a bad frame" 1 "$("$CG" status tap1 --netns "$VM" --json | jq -r .dropped)"
	"$CG" detach tap1 --netns "$VM" --quiet

	# renamed after attach, attached again under its new name, then deleted:
	# detach under the new name finds what the guard left
	expect_ok "attach" guard_on
	ip -n "$VM" link set tap0 down && ip -n "$VM" link set tap0 name tapr &&
		ip -n "$VM" link set tapr up || unexpected "rename" "ip link set name failed"
	expect_ok "attach tapr" "$CG" attach tapr --netns "$VM" --backend "$BACKEND" --quiet
	ip -n "$VM" link del tapr
	out=$("$CG" detach tapr --netns "$VM" 2>&1)
	expect_eq "detach of a renamed, deleted tap: exit status ($out)" 0 $?
	[ "$BACKEND" != bpf ] || expect_grep "detach of a renamed, deleted tap: what it said" 'was gone: removed' - <<<"$out"
	expect_eq "pins left (renamed)" "" "$(gone_pins | tr '\n' ' ')"
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr && ip -n "$VM" link set tap0 up

	# a name that never existed: not guarded, exit 0
	out=$("$CG" detach nosuch0 --netns "$VM" 2>&1)
	expect_eq "detach nosuch0: exit status" 0 $?
	expect_grep "detach nosuch0: what it said" 'no such device, and no guard recorded' - <<<"$out"

	# the namespace is gone
	[ "$BACKEND" = bpf ] && modes="tcx clsact"
	for mode in $modes; do
		topo_up --mtu 1500 || { unexpected "set-up" "topo_up"; break; }
		ino=$(stat -L -c %i "/run/netns/$VM")
		if [ "$BACKEND" = bpf ]; then
			expect_ok "attach --mode $mode" guard_on --mode $mode
		else
			expect_ok "attach" guard_on
		fi
		topo_down
		gone_detach "deleted netns, $mode" "netns $VM is gone: removed the state of 1 bpf guard"
	done
	sleep 0.3
	expect_eq "programs, as before" "$p0" "$(prog_count)"
	expect_eq "pins, as before" "$pins0" "$(pin_list)"
	expect_verdict "$t" "deleted tap, tap made again beside a guarded one, renamed and deleted tap, unknown name, deleted namespace$([ "$BACKEND" = bpf ] && echo " (tcx and clsact)"): exit 0, exactly their state removed"
	topo_down
}
cg_case detach_gone

# A clsact that was there before stays, with the filter someone else added.
case_clsact_foreign() {
	local t="clsact-coexists [$BACKEND]"

	[ "$BACKEND" = bpf ] || { skip "$t: clsact is the bpf backend's"; return; }
	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	# tc's object loader makes its own directories on bpffs: ours to tidy
	local tcdirs d
	tcdirs=$(for d in ip xdp tc; do [ -e /sys/fs/bpf/$d ] || echo /sys/fs/bpf/$d; done)
	ip netns exec "$VM" tc qdisc add dev tap0 clsact
	ip netns exec "$VM" tc filter add dev tap0 ingress prio 100 handle 7 protocol all \
		bpf da obj "$BLD/csum_guard.bpf.o" sec tc 2>/dev/null
	guard_on --mode clsact
	local during
	during=$(ip netns exec "$VM" tc filter show dev tap0 ingress | grep -c 'handle 0x')
	guard_off
	if [ "$during" = 2 ] && ip netns exec "$VM" tc qdisc show dev tap0 | grep -q clsact &&
	   ip netns exec "$VM" tc filter show dev tap0 ingress | grep -q 'handle 0x7 '; then
		pass "$t: our filter beside theirs, theirs and their clsact kept on detach"
	else
		fail "$t: filters during=$during; after: $(ip netns exec "$VM" tc filter show dev tap0 ingress | tr '\n' ' ')"
	fi
	# the clsact we create is ours to remove
	ip netns exec "$VM" tc qdisc del dev tap0 clsact
	guard_on --mode clsact && guard_off
	if ip netns exec "$VM" tc qdisc show dev tap0 | grep -q clsact; then
		fail "$t: a clsact attach created was left behind"
	else
		pass "$t: the clsact attach created is gone after detach"
	fi
	topo_down
	# tc made tc/globals and the ip and xdp links to it
	for d in $tcdirs; do
		if [ -L "$d" ]; then rm -f "$d"; else rmdir "$d/globals" "$d" 2>/dev/null; fi
	done
}
cg_case clsact_foreign

# A namespace nobody named, a tap someone else made: /proc/PID/ns/net.
case_unnamed_netns() {
	local t="unnamed-netns [$BACKEND]" pid ns

	unshare -n sleep 60 &
	pid=$!
	sleep 0.2
	ns=/proc/$pid/ns/net
	nsenter -t $pid -n ip tuntap add dev vnet7 mode tap vnet_hdr
	nsenter -t $pid -n ip link set vnet7 up
	if "$CG" attach vnet7 --netns $ns --backend "$BACKEND" --quiet &&
	   [ "$("$CG" status vnet7 --netns $ns --json | jq -r .attached)" = true ] &&
	   "$CG" detach vnet7 --netns $ns --quiet &&
	   [ "$("$CG" status vnet7 --netns $ns --json | jq -r .attached)" = false ]; then
		pass "$t: attach, status, detach by /proc/PID/ns/net"
	else
		fail "$t: by /proc/PID/ns/net"
	fi
	kill $pid
	wait $pid 2>/dev/null
}
cg_case unnamed_netns

# The device, then the namespace, vanish under the guard: nothing is left.
case_vanish() {
	local t="device-and-netns-vanish [$BACKEND]" p0 pins0

	p0=$(prog_count)
	pins0=$(pin_list)
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	ip -n "$VM" link del tap0
	"$CG" status --netns "$VM" --json >/dev/null
	if [ "$(guarded_json --netns "$VM")" = "[]" ]; then
		pass "$t: device deleted while guarded: no longer listed"
	else
		fail "$t: device deleted while guarded: still listed"
	fi
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr
	guard_on || fail "$t: attach to a new tap0"
	ip netns del "$VM"
	sleep 0.3
	# status only reads; detach of the namespace that is gone (what a VM
	# manager runs) removes what its guard left
	local st0 st1
	st0=$(pin_list)
	"$CG" status --json >/dev/null
	st1=$(pin_list)
	"$CG" detach tap0 --netns "$VM" --quiet || fail "$t: detach after the netns was deleted"
	if [ "$st0" != "$st1" ]; then
		fail "$t: status changed the pins: $(diff <(echo "$st0") <(echo "$st1") | tr '\n' ' ')"
	elif [ "$(prog_count)" = "$p0" ] && [ "$(pin_list)" = "$pins0" ] &&
	   ! dmesg | grep -q 'unregister_netdevice: waiting'; then
		pass "$t: netns deleted while guarded: status changed nothing; after detach no program, pin or device reference left"
	else
		fail "$t: netns deleted while guarded: programs $(prog_count) (was $p0), pins: $(pin_list | tr '\n' ' ')"
	fi
	topo_down
}
cg_case vanish

# Bad input: one line, a non-zero exit, nothing changed.
case_bad_input() {
	local t="bad-input [$BACKEND]" before after rc line want args n=0

	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	# a FIFO where a file or a namespace is named: refused, never waited on
	rm -f "$TMPD/fifo" && mkfifo "$TMPD/fifo"
	before=$(state_snapshot)
	while IFS='|' read -r want args; do
		[ -n "$want" ] || continue
		n=$((n + 1))
		eval "set -- $args"
		if [[ " $args " != *" --json "* ]]; then
			expect_bad_input "csum-guard $args" "$want" timeout 20 "$CG" "$@"
			continue
		fi
		# with --json the error is one JSON object on stdout, as bpftool's
		timeout 20 "$CG" "$@" >"$TMPD/out" 2>"$TMPD/err"
		rc=$?
		line=$(head -1 "$TMPD/err")
		if [ "$rc" != "$want" ] || [ -s "$TMPD/err" ] ||
		   [ "$(wc -l <"$TMPD/out")" != 1 ] ||
		   ! jq -e '(keys == ["error"]) and (.error | type == "string" and length > 0)' 				"$TMPD/out" >/dev/null 2>&1; then
			unexpected "csum-guard $args" "expected exit $want and one {\"error\": ...} line on stdout alone, saw exit $rc, stdout: $(head -c 300 "$TMPD/out"), stderr: $line"
		fi
	done <<-EOT
	2|
	2|frobnicate
	2|attach
	2|detach
	2|attach tap0 --bogus
	2|attach tap0 --netns
	2|attach tap0 --netns ''
	2|attach tap0 --backend magic --netns $VM
	2|attach tap0 --mode xdp --netns $VM
	2|attach tap0 tap1 --netns $VM
	2|attach this-name-is-too-long --netns $VM
	2|attach a/b --netns $VM
	2|attach $'a\nb' --netns $VM
	2|status tap0 --bogus$'\e[31m\n'
	2|upgrade tap0
	2|upgrade --netns $VM
	2|status tap0 --log-drops --netns $VM
	2|detach tap0 --egress --netns $VM
	2|probe tap0
	2|detach tap0 --json --netns $VM
	2|status tap0 --json --prometheus --netns $VM
	2|probe --prometheus
	2|probe --json --bogus$'\xff\e'
	2|--wait x status
	2|status --wait
	2|status tap0 --netns $VM --wait -1
	2|status tap0 --netns $VM --wait=
	1|status nosuch0 --json --netns $VM
	1|status --json --netns $TMPD/fifo
	1|syncookie status nosuch0 --json --netns $VM
	1|--json status nosuch0 --netns $VM
	1|-q --json syncookie status nosuch0 --netns $VM
	2|--json --json
	2|attach tap0 --object /dev/null --netns $VM
	2|attach tap0 --sha256 00 --object /dev/null --netns $VM
	2|attach tap0 --object /dev/null --sha256 $(printf '%064d' 0) --backend kmod --netns $VM
	2|detach tap0 --object /dev/null --netns $VM
	1|attach tap0 --object /dev/null --sha256 $(printf '%064d' 0) --netns $VM
	1|attach tap0 --object /nonexistent.o --sha256 $(printf '%064d' 0) --netns $VM
	1|attach nosuch0 --netns $VM
	1|status nosuch0 --netns $VM
	1|attach tap0 --netns $CG_PFX-nosuchns
	1|attach tap0 --netns /etc/passwd
	1|attach tap0 --netns /nonexistent/ns
	1|attach tap0 --netns $TMPD/fifo
	1|status --netns $TMPD/fifo
	1|attach tap0 --object $TMPD/fifo --sha256 $(printf '%064d' 0) --netns $VM
	EOT
	# under `ip netns exec` (a private mount namespace) pins would die
	# with the loader, and the guard with them: refused, nothing attached
	if [ "$BACKEND" = bpf ]; then
		n=$((n + 1))
		expect_bad_input "ip netns exec ... attach tap0" 1 ip netns exec "$VM" "$CG" attach tap0 --backend bpf &&
			expect_grep "ip netns exec ... attach tap0: what it said" 'use --netns instead' "$TMPD/expect.err"
	fi
	if [ "$BACKEND" = bpf ] && [ "$KMOD_OK" != 1 ]; then
		n=$((n + 1))
		expect_refused "attach --backend kmod where it cannot run" "$CG" attach tap0 --netns "$VM" --backend kmod
		expect_eq "attach --backend kmod: lines on stderr" 1 "$(wc -l <"$TMPD/expect.err")"
	fi
	# Not root, no capabilities: refused with one line, whether the tap is
	# guarded or not, and the guard (or its absence) stays as it was.
	local nobody=0 state guarded
	if command -v setpriv >/dev/null; then
		for state in unguarded guarded; do
			if [ $state = guarded ]; then
				expect_ok "not root: set-up attach" guard_on
				guarded=$(state_snapshot)
			fi
			while read -r args; do
				n=$((n + 1)) nobody=$((nobody + 1))
				setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
					"$CG" $args >"$TMPD/out" 2>"$TMPD/err"
				rc=$?
				# under --json the line is {"error":"..."} on stdout
				[[ " $args " == *" --json "* ]] &&
					jq -r .error "$TMPD/out" 2>/dev/null | sed 's/^/csum-guard: /' >"$TMPD/err" &&
					: >"$TMPD/out"
				if [ $rc = 0 ] || [ "$(wc -l <"$TMPD/err")" != 1 ] || [ -s "$TMPD/out" ] ||
				   ! grep -q '^csum-guard: .*must be run as root$' "$TMPD/err"; then
					unexpected "not root, $state: csum-guard $args" "expected a non-zero exit and one line '... must be run as root', saw exit $rc: $(head -3 "$TMPD/err" | tr '\n' ' ')"
				fi
			done <<-EOT
			attach tap0 --netns $VM --backend $BACKEND
			attach tap0 --netns $VM --log-drops
			attach tap0 --netns $VM --egress
			detach tap0 --netns $VM
			status tap0 --netns $VM --json
			status --netns $VM
			EOT
			if [ $state = guarded ]; then
				expect_eq "not root: the state of the guard, as before" "$guarded" "$(state_snapshot)"
				expect_eq "not root: the guard's counters" "0 0 true" "$(guard_counters)"
				guard_off
			fi
		done
	fi
	after=$(state_snapshot)
	expect_eq "the state after them all, as before" "$before" "$after"
	expect_clean && reliability "bad input [$BACKEND]: $n malformed or impossible invocations ($nobody unprivileged: attach, detach, status; tap guarded and not), each one line on stderr with exit 2 or 1, no state changed"
	expect_verdict "$t" "$n bad invocations ($nobody unprivileged), each one line and the right exit, nothing changed"
	topo_down
}
cg_case bad_input

# The habits of ip and bpftool: --help and --version anywhere on the line
# print and change nothing, --quiet goes before the command too.
case_cli_habits() {
	local t="cli-habits [$BACKEND]" a v w

	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	v="csum-guard $(cat "$TOP/VERSION") "
	for a in "attach tap0 --netns $VM --help" "detach -h" "status --help" "watch --help" \
		 "completion -h" "syncookie attach tap0 --ports 80 --netns $VM --help" "check --help"; do
		expect_ok "$a" "$CG" $a >"$TMPD/out" &&
			expect_grep "$a: the first line" '^Usage: csum-guard ' - <<<"$(head -1 "$TMPD/out")" &&
			expect_eq "$a: stderr" "" "$(cat "$TMPD/expect.err")"
	done
	for a in "-V" "--version" "status --version" "attach tap0 --netns $VM -V"; do
		expect_eq "$a" "${v}(abi $(abi_of_loader))" "$("$CG" $a 2>&1)"
	done
	expect_eq "attached after --help and --version" false \
		"$("$CG" status tap0 --netns "$VM" --json | jq -r .attached)"
	a=$("$CG" --quiet attach tap0 --netns "$VM" --backend "$BACKEND" 2>&1)
	expect_eq "--quiet attach: exit status" 0 $?
	expect_eq "--quiet attach: what it said" "" "$a"
	expect_eq "attached after --quiet attach" true "$("$CG" status tap0 --netns "$VM" --json | jq -r .attached)"
	a=$("$CG" -q detach tap0 --netns "$VM" 2>&1)
	expect_eq "-q detach: exit status" 0 $?
	expect_eq "-q detach: what it said" "" "$a"
	# and after it, as the help says: anywhere on the line
	a=$("$CG" attach tap0 -q --netns "$VM" --backend "$BACKEND" 2>&1)
	expect_eq "attach -q: exit status" 0 $?
	expect_eq "attach -q: what it said" "" "$a"
	a=$("$CG" detach tap0 --netns "$VM" -q 2>&1)
	expect_eq "detach -q: exit status" 0 $?
	expect_eq "detach -q: what it said" "" "$a"
	a=$("$CG" syncookie status -q 2>&1 >/dev/null)
	expect_eq "syncookie status -q: exit status" 0 $?
	# --json before the command as after it
	a=$("$CG" --json --quiet status tap0 --netns "$VM" 2>&1)
	expect_eq "--json status: exit status" 0 $?
	expect_eq "--json status: .device ($a)" tap0 "$(jq -r .device <<<"$a")"
	# the host lock held by another command: attach says why it waits, then works
	flock /run/csum-guard.lock sleep 1 &
	sleep 0.3
	a=$("$CG" attach tap0 --netns "$VM" --backend "$BACKEND" 2>&1)
	expect_eq "attach under a held lock: exit status" 0 $?
	expect_eq "attach under a held lock: its first line" \
		"csum-guard: waiting for /run/csum-guard.lock: another csum-guard command holds it" "$(head -1 <<<"$a")"
	expect_eq "attach under a held lock: 'guarding tap0' lines ($a)" 1 "$(grep -c '^csum-guard: guarding tap0' <<<"$a")"
	expect_eq "attached after attach under a held lock" true \
		"$("$CG" status tap0 --netns "$VM" --json | jq -r .attached)"
	wait
	"$CG" detach tap0 --netns "$VM" --quiet
	# --wait SECONDS bounds that wait (anywhere on the line): 0 gives up at
	# once, 1 before the holder is done; one line naming the device, exit
	# 1, nothing attached; long enough, it waits and attaches
	flock /run/csum-guard.lock sleep $([ -n "${CG_GUEST:-}" ] && echo 20 || echo 4) &
	sleep 0.3
	for w in "--wait 0 attach" "attach --wait=1"; do
		a=$("$CG" ${w%% *} ${w#* } tap0 --netns "$VM" --backend "$BACKEND" 2>&1)
		expect_eq "$w under a held lock: exit status" 1 $?
		[ "$(grep -c . <<<"$a")" -le 2 ] || unexpected "$w under a held lock" "expected at most 2 lines, saw: $a"
		grep -qx "csum-guard: cannot attach to tap0 in netns $VM: another csum-guard command holds /run/csum-guard.lock (gave up after --wait [01])" <<<"$a" ||
			unexpected "$w under a held lock" "expected the line naming the device and the lock, saw: $a"
		kill -0 $! 2>/dev/null || unexpected "$w under a held lock" "expected to give up before the holder was done, saw it done"
		expect_eq "$w under a held lock: attached" false "$("$CG" status tap0 --netns "$VM" --json | jq -r .attached)"
	done
	a=$("$CG" attach tap0 --netns "$VM" --backend "$BACKEND" --wait 30 2>&1)
	expect_eq "--wait 30 under a held lock: exit status" 0 $?
	expect_grep "--wait 30 under a held lock: what it said" '^csum-guard: waiting up to 30 s for /run/csum-guard.lock' - <<<"$a"
	expect_eq "--wait 30 under a held lock: attached" true "$("$CG" status tap0 --netns "$VM" --json | jq -r .attached)"
	wait
	"$CG" detach tap0 --netns "$VM" --quiet
	topo_down
	expect_verdict "$t" "--help and -h on every command print the usage (exit 0), -V and --version anywhere the version, neither changes anything; --quiet and -q before the command and after it, --json before it; a held host lock is waited for with one line, --wait 0 and --wait=1 give up in one line naming the device, --wait 30 waits"
}
cg_case cli_habits

# detach_all_gone WHAT NS INO "N bpf guards": detach --all --netns NS of a
# namespace that is gone (WHAT), whose guards were pinned under its inode
# INO: exit 0; bpf: what they left removed, and said; the module's went
# with the namespace: nothing recorded.
detach_all_gone() {
	local what=$1 ns=$2 ino=$3 n=$4 out

	out=$("$CG" detach --all --netns "$ns" 2>&1)
	expect_eq "detach --all --netns of $what: exit status ($out)" 0 $?
	if [ "$BACKEND" = bpf ]; then
		expect_grep "detach --all --netns of $what: what it said" \
			"^csum-guard: netns $ns is gone: removed the state of $n it had$" - <<<"$out"
		expect_eq "pins left of $what" "" \
			"$(find /sys/fs/bpf/csum_guard/$ino 2>/dev/null | tr '\n' ' ')"
	else
		expect_grep "detach --all --netns of $what: what it said" \
			'no such network namespace, and no guard recorded under that name$' - <<<"$out"
	fi
}

# detach --all --netns NS takes every guard of that namespace and no other;
# detach --all takes every guard of the host, in named and unnamed
# namespaces alike (this host runs nothing else guarded meanwhile).
case_detach_all() {
	local t="detach-all [$BACKEND]" a=$CG_PFX-da b=$CG_PFX-db u upid n d out ino

	for n in $a $b; do
		ip netns add $n && ip -n $n tuntap add dev tap0 mode tap vnet_hdr &&
			ip -n $n tuntap add dev tap1 mode tap vnet_hdr || unexpected "set-up" "$n and its taps"
	done
	unshare -n sleep 300 &
	upid=$!
	while [ "$(readlink /proc/$upid/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
	u=/proc/$upid/ns/net
	nsenter --net=$u ip tuntap add dev tapu mode tap vnet_hdr || unexpected "set-up" "tapu"
	for d in tap0:$a tap1:$a tap0:$b tap1:$b tapu:$u; do
		expect_ok "attach $d" "$CG" attach ${d%%:*} --netns ${d#*:} --backend "$BACKEND" --quiet
	done
	out=$("$CG" detach --all --netns $a 2>&1)
	expect_eq "detach --all --netns: exit status" 0 $?
	expect_eq "detach --all --netns: guards it named ($out)" 2 \
		"$(grep -c '^csum-guard: detached from tap[01] in netns' <<<"$out")"
	for d in tap0:$a:false tap1:$a:false tap0:$b:true tap1:$b:true tapu:$u:true; do
		IFS=: read -r n d0 want <<<"$d"
		expect_eq "after detach --all --netns: $n in $d0 attached" "$want" \
			"$("$CG" status $n --netns $d0 --json | jq -r .attached)"
	done
	out=$("$CG" detach --all --netns $a 2>&1)
	expect_eq "detach --all --netns again: exit status" 0 $?
	expect_grep "detach --all --netns again: what it said" 'nothing guarded in netns' - <<<"$out"
	# a namespace deleted with its guards on, as a VM manager does: what
	# they left goes, as with detach DEV --netns of the gone name
	ino=$(stat -L -c %i /run/netns/$b)
	ip netns del $b
	detach_all_gone "a deleted namespace" $b "$ino" "2 bpf guards"
	expect_ok "detach --all" "$CG" detach --all --quiet
	expect_eq "guards left after detach --all ($(guarded_json))" 0 "$(guarded_json | jq length)"
	# by the path of a namespace whose process is gone, as by a name
	expect_ok "attach tapu again" "$CG" attach tapu --netns $u --backend "$BACKEND" --quiet
	ino=$(stat -L -c %i $u)
	kill $upid
	wait $upid 2>/dev/null
	detach_all_gone "a path that leads nowhere" $u "$ino" "1 bpf guard"
	ip netns del $a
	expect_verdict "$t" "--netns NS took its 2 guards and no other; again: nothing guarded; of a namespace deleted with 2 guards on, and by the path of one whose process is gone, exit 0$([ "$BACKEND" = bpf ] && echo ", their state removed"); --all took the unnamed namespace's"
}
cg_case detach_all

# An attach or a detach acts on its own namespace: what the guards of
# another one left (here a deleted tap's, its tcx link without a device)
# is neither read nor removed by it, so that its cost is the same on a
# host of thousands of guards. detach --all --netns of that namespace
# drops it, as watch does for a namespace it sees go.
#
#   netns $VM: tap0 (attached, detached, under strace)
#   netns $CG_PFX-on: tap0 guarded, then deleted
case_own_netns() {
	local t="own-netns [$BACKEND]" o=$CG_PFX-on ino dir tr=$TMPD/own.strace pins0

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the module drops a device's state itself"
		return
	fi
	topo_up --mtu 1500 || { fail "$t: set-up"; return; }
	ip netns add $o && ip -n $o tuntap add dev tap0 mode tap vnet_hdr &&
		ip -n $o link set tap0 up || unexpected "set-up" "$o and its tap"
	expect_ok "attach in $o" "$CG" attach tap0 --netns $o --backend bpf --quiet
	ino=$(stat -L -c %i /run/netns/$o)
	dir=/sys/fs/bpf/csum_guard/$ino
	ip -n $o link del tap0
	pins0=$(find "$dir" 2>/dev/null | sort)
	expect_ne "the deleted tap's guard's meta pins" "" "$(find "$dir" -name meta 2>/dev/null)"
	expect_ok "attach" strace -f -e trace=bpf,openat -o "$tr" "$CG" attach tap0 --netns "$VM" --backend bpf --quiet
	expect_ok "detach" strace -f -e trace=bpf,openat -o "$tr.2" "$CG" detach tap0 --netns "$VM" --quiet
	# a guard's program lends the host's one event ring (its link, read
	# once), never its meta: a meta read of $o's is a prune of $o
	grep -q "$dir/[0-9]*/meta" "$tr" "$tr.2" &&
		unexpected "attach or detach in $VM" "expected no read of $o's meta, saw $(grep -h "$dir/" "$tr" "$tr.2" | head -2)"
	expect_eq "$o's pins, as before" "$pins0" "$(find "$dir" 2>/dev/null | sort)"
	expect_ok "detach --all --netns $o" "$CG" detach --all --netns $o --quiet
	expect_eq "what detach --all --netns $o left" "" "$(find "$dir" 2>/dev/null | tr '\n' ' ')"
	ip netns del $o
	topo_down
	expect_verdict "$t" "attach and detach of a tap read and removed nothing of another namespace's guards; detach --all --netns of that one dropped a deleted tap's state"
}
cg_case own_netns

# The ABI number the loader prints
abi_of_loader() { "$CG" version | sed -n 's/.*(abi \([0-9]*\))$/\1/p'; }
