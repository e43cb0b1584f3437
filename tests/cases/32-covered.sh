# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 32-covered.sh - a device whose own hook cannot exist, covered by the
# module's completion guard: status, the metrics and the libvirt hook agree.
#
#   guest --write--> /dev/tapN of mvtap0 (macvtap, bridge mode on lowa)
#                      egress of mvtap0 --> mv0 (macvlan sibling, routes)
#                      --> veth0 (TX checksum offload off) --> $FAR
#
# A macvtap carries its guest's frames out through its own egress; a kernel
# without netfilter egress (before 5.16) gives the module no hook there, and
# where the bpf guard cannot run either, attach fails. With the completion
# guard on, the device is covered: what its guard would drop, the
# completion guard refuses at skb_checksum_help().

# What this case has to cover: nothing where a backend hooks a macvtap's
# egress, or where the completion guard cannot be had (the reason on stdout)
covered_why_not() {
	local probe

	probe=$("$CG" probe --json 2>/dev/null)
	if [ "$(jq -r '.kmod_egress_unavailable' <<<"$probe")" = null ]; then
		echo "the module hooks a macvtap's egress on $(uname -r): nothing for the completion guard to cover"
	elif [ "$(jq -r '.bpf_egress_unavailable' <<<"$probe")" = null ]; then
		echo "the bpf guard hooks a macvtap's egress on $(uname -r): nothing for the completion guard to cover"
	elif [ "$(jq -r '.completion_unavailable' <<<"$probe")" != null ]; then
		echo "no completion guard here: $(jq -r '.completion_unavailable' <<<"$probe")"
	fi
}

# The libvirt hook for a guest with mvtap0 as its type='direct' interface,
# run in $VM as libvirt runs it; its output in $TMPD/cov-hook.out
covered_hook() {
	local bin=$TMPD/covbin

	mkdir -p "$bin" && ln -sf "$CG" "$bin/csum-guard"
	printf '%s\n' "<domain type='kvm'>" "  <name>cg-covered</name>" "  <devices>" \
		"    <interface type='direct'>" "      <source dev='lowa' mode='bridge'/>" \
		"      <target dev='mvtap0'/>" "    </interface>" "  </devices>" "</domain>" |
		ip netns exec "$VM" env PATH="$bin:$PATH" "$TOP/packaging/libvirt-qemu-hook" \
			cg-covered start begin - >"$TMPD/cov-hook.out" 2>&1
}

case_covered() {
	local t="covered [$BACKEND]" why n=3 c0 got out line
	local GUEST_IP=$GUEST_IP INJECT_DEV GDEV TOPO_ARGS IHDR

	if [ "$BACKEND" != kmod ]; then
		skip "$t: the completion guard is the module's (kmod backend)"
		return
	fi
	why=$(covered_why_not)
	if [ -n "$why" ]; then
		skip "$t: $why"
		return
	fi
	command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
	topo_up --mtu 1500 --tx-csum-off || { fail "$t: cannot build the topology"; topo_down; return; }
	topo_kind_up macvtap
	case $? in
	0) ;;
	3) skip "$t: this kernel cannot make a macvtap: $(head -1 "$TMPD/kind.err")"; topo_down; return ;;
	*) fail "$t: cannot build the macvtap"; topo_down; return ;;
	esac
	if ! "$CG" completion on --quiet 2>"$TMPD/cov.err"; then
		fail "$t: completion on: $(cat "$TMPD/cov.err")"
		topo_down
		return
	fi

	# its own guard cannot be had; status says what covers it
	out=$("$CG" attach mvtap0 --netns "$VM" 2>&1)
	expect_eq "attach mvtap0: exit status" 1 $?
	expect_grep "attach mvtap0: the line" "the completion guard covers it" - <<<"$out"
	expect_eq "status --json: state, guarded" "covered false" \
		"$("$CG" status mvtap0 --netns "$VM" --json | jq -r '"\(.state) \(.guarded)"')"
	line=$("$CG" status --netns "$VM" | grep '^mvtap0 ')
	expect_grep "status: mvtap0's line" "^mvtap0 netns $VM: covered by the completion guard (macvtap: no hook of its own here: the kernel has no netfilter egress)$" - <<<"$line"
	"$CG" status --netns "$VM" --prometheus >"$TMPD/cov.prom"
	expect_grep "status --prometheus: mvtap0" \
		"^csum_guard_guarded{device=\"mvtap0\",netns=\"$VM\",backend=\"kmod\",mode=\"completion\",state=\"covered\",egress=\"false\"} 1$" \
		"$TMPD/cov.prom"
	expect_eq "mvtap0's csum_guard_guarded lines" 1 "$(grep -c '^csum_guard_guarded{device="mvtap0",' "$TMPD/cov.prom")"

	# and it does: the bad frames are refused, counted where the alert looks
	c0=$("$CG" completion --json | jq -r .dropped)
	inject_sniff "$TMPD/cov-bad" $TOPO_ARGS --csum-start $((IHDR + 6)) --csum-offset 6 --count $n --payload 1000
	got=$(sniff_datagrams "$TMPD/cov-bad")
	expect_eq "bad frames through mvtap0: the guest's writes" 0 "$inject_rc"
	expect_eq "bad frames through mvtap0: arrived" 0 "${got:-x}"
	expect_eq "refused at skb_checksum_help()" $n $(($("$CG" completion --json | jq -r .dropped) - c0))
	"$CG" status --prometheus >"$TMPD/cov-all.prom"
	expect_grep "status --prometheus: csum_guard_completion_refused_total" \
		"^csum_guard_completion_refused_total{reason=\"header\"} $("$CG" completion --json | jq -r .dropped)$" \
		"$TMPD/cov-all.prom"

	# the libvirt hook starts the guest, and says why
	covered_hook
	expect_eq "the libvirt hook, covered: exit status" 0 $?
	expect_grep "the libvirt hook, covered: what it says" \
		"csum-guard hook: mvtap0 of guest cg-covered has no guard of its own here; the completion guard covers it" \
		"$TMPD/cov-hook.out"

	# without the completion guard the device is unguarded, and refused
	"$CG" completion off --quiet || unexpected "completion off" "failed"
	expect_eq "completion off: status --json's state" unguarded \
		"$("$CG" status mvtap0 --netns "$VM" --json | jq -r .state)"
	"$CG" status --netns "$VM" --prometheus >"$TMPD/cov.prom"
	expect_grep "completion off: status --prometheus" \
		"^csum_guard_guarded{device=\"mvtap0\",netns=\"$VM\",backend=\"\",mode=\"\",state=\"unguarded\",egress=\"false\"} 0$" \
		"$TMPD/cov.prom"
	covered_hook
	expect_eq "the libvirt hook, completion off: exit status" 1 $?
	expect_grep "the libvirt hook, completion off: what it says" \
		"cannot guard mvtap0 of guest cg-covered: not starting it" "$TMPD/cov-hook.out"
	topo_down
	expect_verdict "$t" "on $(uname -r), a macvtap the module cannot hook: with the completion guard on, attach fails naming it, status says covered (text, JSON, csum_guard_guarded 1 state covered), $n bad frames through it refused and counted, the libvirt hook starts the guest; with it off, unguarded (guarded 0) and the hook refuses"
}
cg_case covered
