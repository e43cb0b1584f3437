# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 15-egress.sh - the host's own sender: what leaves a device never enters one.
#
# The reproduction topology with TX checksum offload off on veth0, but the
# sender is not the guest: an AF_PACKET socket with PACKET_VNET_HDR in netns
# $VM sends the frames out of veth0, addressed to veth1. veth0's transmit
# path completes the bad frame's checksum over its IPv4 header. No ingress
# hook sees that frame; `attach veth0 --egress` puts the guard on veth0's
# transmit path too.
#
#   netns $VM                                  netns $FAR
#   cg-inject --packet --dev veth0 ---> veth0 ========== veth1 ---> cg-sniff
#                                       (tx csum off)

# What attach could have left on veth0: pins (a tcx link lives only while
# pinned), qdiscs and filters, the module's hooks. Not the global program
# count: other suites may be loading programs meanwhile.
egress_snapshot() {
	{
		find "/sys/fs/bpf/csum_guard/$(stat -L -c %i "/run/netns/$VM")" 2>/dev/null | sort
		ip netns exec "$VM" tc qdisc show dev veth0
		ip netns exec "$VM" tc filter show dev veth0 ingress
		ip netns exec "$VM" tc filter show dev veth0 egress
		"$CG" status veth0 --netns "$VM" --json | jq -c '[.attached, .egress]'
	} 2>&1 | md5sum
}

eg_guard() { "$CG" attach veth0 --netns "$VM" --backend "$BACKEND" --quiet "$@"; }
eg_unguard() { "$CG" detach veth0 --netns "$VM" --quiet; }

# "dropped dropped_unreadable attached egress" of veth0
eg_counters() {
	"$CG" status veth0 --netns "$VM" --json |
		jq -r '"\(.dropped) \(.dropped_unreadable) \(.attached) \(.egress)"'
}

# eg_sniff_start OUT / eg_sniff_stop: one capture on veth1 around several sends
eg_sniff_start() {
	local ready=$TMPD/ready.eg

	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst "$FAR_IP" --timeout $SNIFF_IDLE \
		--max-time $((SNIFF_IDLE * 20)) --ready-file "$ready" >"$1" 2>&1 &
	eg_sniff_pid=$!
	wait_ready "$ready"
}
eg_sniff_stop() { wait "$eg_sniff_pid"; }

# eg_send [cg-inject args]: the AF_PACKET sender; $eg_rc its exit status
# (0 all sent, 4 taken but dropped on transmit)
eg_send() {
	ip netns exec "$VM" "$INJECT" --packet --dev veth0 --dmac "$eg_mac" \
		--payload 1000 "$@" 2>>"$TMPD/eg.inject"
	eg_rc=$?
}

# What arrived of bad frames: corrupted, intact or none (as the baseline says)
eg_outcome() {
	local got src
	got=$(sniff_datagrams "$1")
	src=$(sniff_sources "$1")
	if [ "${got:-0}" = 0 ]; then
		echo none
	elif [ "$src" = "$GUEST_IP" ]; then
		echo intact
	else
		echo corrupted
	fi
}

case_egress() {
	local t="egress" b="[$BACKEND]" n=3 bad="--csum-start 20 --csum-offset 6"
	local base out cnt got before

	if ! topo_up --mtu 1500 --tx-csum-off; then
		command -v ethtool >/dev/null || { skip "$t $b: ethtool missing"; return; }
		fail "$t $b: cannot build the topology"
		return
	fi
	eg_mac=$(ip -n "$FAR" -o link show veth1 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')
	: >"$TMPD/eg.inject"
	before=$(egress_snapshot)

	# Can this backend guard egress here at all? The probe says; where it
	# says no, attach --egress refuses in one line and changes nothing, and
	# the rest is skipped. Where it says yes, a refusal is a failure.
	local why
	why=$(egress_unavailable)
	if ! eg_guard --egress 2>"$TMPD/eg.err"; then
		if [ -z "$why" ]; then
			fail "$t $b: the probe says egress works here, but attach --egress failed: $(tr '\n' ' ' <"$TMPD/eg.err")"
		elif [ "$(wc -l <"$TMPD/eg.err")" = 1 ] && grep -q -- '--egress' "$TMPD/eg.err" &&
		     [ "$(egress_snapshot)" = "$before" ]; then
			skip "$t $b: $why (attach --egress refused it in one line, nothing changed)"
		else
			fail "$t $b: attach --egress failed: $(tr '\n' ' ' <"$TMPD/eg.err")"
		fi
		eg_unguard
		topo_down
		return
	elif [ -n "$why" ]; then
		fail "$t $b: the probe says egress cannot work here ($why), but attach --egress succeeded"
	fi
	eg_unguard

	# No guard: what does this kernel do with the host's own bad frame?
	eg_sniff_start "$TMPD/eg-off"
	eg_send $bad --count $n
	eg_sniff_stop
	base=$(eg_outcome "$TMPD/eg-off")
	if [ "$eg_rc" != 0 ]; then
		fail "$t/baseline $b: the packet socket refused the frame (rc $eg_rc): $(tail -1 "$TMPD/eg.inject")"
	elif [ "$base" = corrupted ]; then
		pass "$t/baseline $b: AF_PACKET bad frame leaves veth0 corrupted ($(sniff_sources "$TMPD/eg-off"))"
	else
		pass "$t/baseline $b: AF_PACKET bad frame: $base (kernel does not corrupt it here)"
	fi

	# Ingress only: the frame never enters veth0, so the guard never sees it.
	if eg_guard; then
		eg_sniff_start "$TMPD/eg-in"
		eg_send $bad --count $n
		eg_sniff_stop
		out=$(eg_outcome "$TMPD/eg-in")
		cnt=$(eg_counters)
		if [ "$cnt" = "0 0 true false" ] && [ "$out" = "$base" ]; then
			pass "$t/ingress-only $b: not seen (counters [0,0]), arrived $out as without the guard"
		else
			fail "$t/ingress-only $b: counters/attached/egress $cnt, arrived $out (baseline $base)"
		fi
	else
		fail "$t/ingress-only $b: attach failed"
	fi

	# Converge to --egress: the bad frames are dropped on veth0's transmit
	# path and counted; the boundary shows the program reads the IP header
	# where it is (skb->data at the MAC header at egress); good frames,
	# tagged ones too, pass intact. The module logs which hook dropped.
	local logopt= logged=1
	[ "$BACKEND" = kmod ] && logopt=--log-drops && dmesg -C
	if eg_guard --egress $logopt; then
		local rcs=""
		eg_sniff_start "$TMPD/eg-on"
		eg_send $bad --count $n; rcs="$rcs$eg_rc"
		eg_send --csum-start 33 --csum-offset 6; rcs="$rcs$eg_rc"
		eg_send --csum-start 24 --csum-offset 6 --vlan 5; rcs="$rcs$eg_rc"
		eg_send --csum-start 28 --csum-offset 6 --vlan 5 --vlan 6; rcs="$rcs$eg_rc"
		eg_send --csum-start 34 --csum-offset 6; rcs="$rcs$eg_rc"
		eg_send --count $n; rcs="$rcs$eg_rc"
		eg_send --count 1 --vlan 5 --vlan 6; rcs="$rcs$eg_rc"
		# fail closed: the IPv4 header behind four tags, past the frame's end
		eg_send --csum-start 20 --csum-offset 6 --vlan 5 --vlan 6 --vlan 7 --vlan 8 --truncate 30
		rcs="$rcs$eg_rc"
		eg_sniff_stop
		cnt=$(eg_counters)
		got=$(sniff_datagrams "$TMPD/eg-on")
		[ -z "$logopt" ] || dmesg | grep -q 'csum_guard: veth0: dropped egress IPv4' || logged=0
		if [ "$cnt" = "$((n + 3)) 1 true true" ] && [ "$rcs" = 44440004 ] && [ $logged = 1 ] &&
		   [ "$got" = $((n + 2)) ] && [ "$(sniff_sources "$TMPD/eg-on")" = "$GUEST_IP" ] &&
		   ! grep -q csum_ok=0 "$TMPD/eg-on"; then
			pass "$t/guarded $b: $((n + 3)) bad frames (csum_start 20, 33, tagged, QinQ) dropped on transmit and counted, 1 whose IPv4 header lies past its end counted unreadable; $got good (34, tagged) intact"
		else
			fail "$t/guarded $b: counters/attached/egress $cnt (want $((n + 3)) 1 true true), send status $rcs (want 44440004), $got intact of $((n + 2)), sources $(sniff_sources "$TMPD/eg-on"), logged $logged"
		fi
	else
		fail "$t/guarded $b: attach --egress over an ingress guard failed"
	fi

	# Back to ingress only, asked explicitly: the egress hook goes, the
	# counters stay (a plain attach keeps it: tests/cases/52-hostile.sh).
	if eg_guard --no-egress; then
		eg_sniff_start "$TMPD/eg-back"
		eg_send $bad --count 2
		eg_sniff_stop
		out=$(eg_outcome "$TMPD/eg-back")
		cnt=$(eg_counters)
		if [ "$cnt" = "$((n + 3)) 1 true false" ] && [ "$out" = "$base" ] && [ "$eg_rc" = 0 ]; then
			pass "$t/converge $b: attach --no-egress removed the egress hook, kept the counters; arrived $out"
		else
			fail "$t/converge $b: counters/attached/egress $cnt, arrived $out (baseline $base), send status $eg_rc"
		fi
	else
		fail "$t/converge $b: attach --no-egress failed"
	fi

	# PACKET_QDISC_BYPASS sends through dev_direct_xmit(): does it pass the
	# egress hook? Either answer is recorded; half of each is a failure.
	if eg_guard --egress; then
		eg_sniff_start "$TMPD/eg-bypass"
		eg_send $bad --count 2 --qdisc-bypass
		eg_sniff_stop
		out=$(eg_outcome "$TMPD/eg-bypass")
		set -- $(eg_counters)
		if [ "$1" = $((n + 5)) ] && [ "$out" = none ] && [ "$eg_rc" = 4 ]; then
			pass "$t/qdisc-bypass $b: PACKET_QDISC_BYPASS frames pass the egress hook: dropped and counted"
		elif [ "$1" = $((n + 3)) ] && [ "$out" = "$base" ] && [ "$eg_rc" = 0 ]; then
			pass "$t/qdisc-bypass $b: PACKET_QDISC_BYPASS skips the egress hook (limit): arrived $out, not counted"
		else
			fail "$t/qdisc-bypass $b: dropped $1 (was $((n + 3))), arrived $out, send status $eg_rc"
		fi
	else
		fail "$t/qdisc-bypass $b: attach --egress failed"
	fi

	# The bpf backend's other mode: a clsact filter on the egress parent.
	if [ "$BACKEND" = bpf ]; then
		eg_unguard
		if eg_guard --egress --mode clsact &&
		   [ "$(ip netns exec "$VM" tc filter show dev veth0 egress | grep -c 'handle 0xc5')" = 1 ]; then
			eg_send $bad --count 2
			set -- $(eg_counters)
			local rc=$eg_rc
			eg_guard --mode clsact --no-egress
			if [ "$1 $3 $4 $rc" = "2 true true 4" ] &&
			   [ "$(ip netns exec "$VM" tc filter show dev veth0 egress | grep -c 'handle 0xc5')" = 0 ] &&
			   [ "$(eg_counters)" = "2 0 true false" ]; then
				pass "$t/clsact $b: egress filter drops and counts; --no-egress removes it"
			else
				fail "$t/clsact $b: dropped $1 attached $3 egress $4 send status $rc, then $(eg_counters)"
			fi
		else
			fail "$t/clsact $b: attach --egress --mode clsact made no egress filter"
		fi
	fi

	# detach takes both hooks off and leaves nothing.
	eg_unguard
	if [ "$(egress_snapshot)" = "$before" ] && [ "$(eg_counters)" = "0 0 false false" ]; then
		pass "$t/detach $b: both hooks gone, nothing left behind"
	else
		fail "$t/detach $b: state differs after detach"
	fi

	[ "$BACKEND" = bpf ] && eg_rollback "$t/rollback $b"

	# The device goes away under an egress guard: nothing hangs, nothing stays.
	if eg_guard --egress; then
		timeout 60 ip -n "$VM" link del veth0
		local rc=$? listed
		listed=$(guarded_json --netns "$VM")
		# status only reads: detach of the device that is gone (what a VM
		# manager runs) removes what its guard left
		eg_unguard || rc="$rc, detach failed"
		if [ "$rc" = 0 ] && [ "$listed" = "[]" ] &&
		   [ -z "$(egress_pins)" ] && ! dmesg | grep -q 'unregister_netdevice: waiting'; then
			pass "$t/vanish $b: device deleted while egress-guarded: no hang, not listed; after detach no state left"
		else
			fail "$t/vanish $b: link del rc $rc, listed $listed, pins after detach $(egress_pins | tr '\n' ' ')"
		fi
	else
		fail "$t/vanish $b: attach --egress failed"
	fi
	topo_down
}
cg_case egress

egress_pins() { find "/sys/fs/bpf/csum_guard/$(stat -L -c %i "/run/netns/$VM")" 2>/dev/null; }

# A failed attach --egress leaves nothing of its own and no guard changed.
# A u32 filter at our clsact egress handle and priority is of another kind,
# so the bpf filter cannot replace it there: the egress step fails.
eg_rollback() {
	local t=$1 qd cnt id0 id1

	if ! ip netns exec "$VM" tc qdisc add dev veth0 clsact ||
	   ! ip netns exec "$VM" tc filter add dev veth0 egress prio 1 handle 0xc5 \
		protocol all u32 match u32 0 0 2>/dev/null; then
		skip "$t: no u32 classifier to stand in the way here"
		ip netns exec "$VM" tc qdisc del dev veth0 clsact 2>/dev/null
		return
	fi
	qd=$(ip netns exec "$VM" tc filter show dev veth0 egress | md5sum)
	# fresh: the ingress filter it had placed goes again
	if eg_guard --egress --mode clsact 2>"$TMPD/eg.err"; then
		fail "$t: attach --egress succeeded over a foreign egress filter"
	elif [ "$(wc -l <"$TMPD/eg.err")" != 1 ] || [ "$(eg_counters)" != "0 0 false false" ] ||
	     [ -n "$(egress_pins)" ] ||
	     ip netns exec "$VM" tc filter show dev veth0 ingress | grep -q . ||
	     [ "$(ip netns exec "$VM" tc filter show dev veth0 egress | md5sum)" != "$qd" ]; then
		fail "$t: fresh attach failed but left state: $(eg_counters), pins $(egress_pins | tr '\n' ' ')"
	else
		pass "$t: fresh attach --egress failed in one line and left nothing"
	fi
	# update: the ingress guard stays as it was, program and options alike
	if eg_guard --mode clsact; then
		id0=$(ip netns exec "$VM" tc filter show dev veth0 ingress | sed -n 's/.* id \([0-9]*\) .*/\1/p')
		eg_guard --egress --log-drops 2>"$TMPD/eg.err"
		local rc=$?
		cnt=$("$CG" status veth0 --netns "$VM" --json | jq -r '"\(.attached) \(.egress) \(.log_drops)"')
		id1=$(ip netns exec "$VM" tc filter show dev veth0 ingress | sed -n 's/.* id \([0-9]*\) .*/\1/p')
		if [ $rc = 1 ] && [ "$(wc -l <"$TMPD/eg.err")" = 1 ] && [ "$cnt" = "true false false" ] &&
		   [ -n "$id0" ] && [ "$id0" = "$id1" ] &&
		   [ "$(ip netns exec "$VM" tc filter show dev veth0 egress | md5sum)" = "$qd" ]; then
			pass "$t: update to --egress --log-drops failed in one line; the ingress guard kept its program and options"
		else
			fail "$t: update failed with rc $rc; attached/egress/log_drops $cnt, ingress program $id0 -> $id1"
		fi
	else
		fail "$t: attach --mode clsact next to a foreign egress filter failed"
	fi
	eg_unguard
	ip netns exec "$VM" tc qdisc del dev veth0 clsact
}
