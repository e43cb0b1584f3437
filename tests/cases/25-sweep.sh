# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 25-sweep.sh - every decision of the guard, frame by frame, through a real tap.
#
#   netns $VM
#   +-------------------------------------------------------------+
#   | tap0 (vnet_hdr)    cg-inject --sweep CLASS writes as guest  |
#   |   ingress, in this order:                                   |
#   |     the guard (tcx/clsact, or netfilter at INT_MIN)          |
#   |       -> dropped, dropped_unreadable                         |
#   |     nft netdev chain at priority 0 -> counter "seen"         |
#   +-------------------------------------------------------------+
#
# cg-inject predicts each vector's verdict from the frame bytes (its own
# oracle, not cg_verdict()) and writes one class per run. The guard's two
# counters and the nft counter, which sees only what the guard passed, must
# then grow by exactly the frames the tap accepted: one frame judged wrong
# either way shows up as a mismatch. The frames go to a MAC that is not the
# tap's, so the host stack drops them right after ingress: nothing is
# forwarded or answered, and what the tap itself sends (IPv6 DAD, router
# solicitations) is egress, which no counter here sees.

SWEEP_TABLE=cgsweep

# sweep_field FILE KEY: a value of the tool's summary line
sweep_field() { sed -n "s/^summary .* $2=\([0-9]*\).*/\1/p" "$1"; }

sweep_setup() {
	ip netns add "$VM" || return 1
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr &&
		ip -n "$VM" link set tap0 up
}

# sweep_run NAME [ATTACH-ARGS...]: the sweep with the guard attached with
# ATTACH-ARGS (none: the built-in program)
sweep_run() {
	local t="$1 [$BACKEND]" cls out rc d0 u0 s0 d1 u1 s1 want
	local vec=0 acc=0 ref=0 got_drop=0 got_unr=0 got_pass=0 v a r start
	shift

	command -v nft >/dev/null || { skip "$t: nft missing (Debian package nftables)"; return; }
	topo_down
	sweep_setup || { fail "$t: set-up"; topo_down; return; }
	if ! out=$(seen_on $SWEEP_TABLE tap0); then
		skip "$t: no nftables netdev ingress chain here: ${out//$'\n'/ }"
		topo_down
		return
	fi
	guard_on "$@" || { fail "$t: attach failed"; topo_down; return; }
	start=$(date +%s)
	for cls in drop unreadable pass; do
		out=$TMPD/sweep.$cls
		set -- $(guard_counters)
		d0=$1 u0=$2
		s0=$(seen_count $SWEEP_TABLE)
		ip netns exec "$VM" "$INJECT" --dev tap0 --sweep $cls >"$out" 2>&1
		rc=$?
		set -- $(guard_counters)
		d1=$1 u1=$2
		s1=$(seen_count $SWEEP_TABLE)
		v=$(sweep_field "$out" vectors)
		a=$(sweep_field "$out" accepted)
		r=$(sweep_field "$out" refused)
		if [ $rc != 0 ] || [ -z "$a" ]; then
			unexpected "$cls: cg-inject" "expected exit 0 and a summary, saw exit $rc: $(tail -1 "$out")"
			continue
		fi
		expect_gt "$cls: vectors the tap accepted, of $v" 0 "$a"
		# what each counter should have grown by: dropped unreadable seen
		case $cls in
		drop) want="$a 0 0" got_drop=$a ;;
		unreadable) want="0 $a 0" got_unr=$a ;;
		pass) want="0 0 $a" got_pass=$a ;;
		esac
		expect_eq "$cls: $a accepted; dropped, unreadable, passed grew by" "$want" \
			"$((d1 - d0)) $((u1 - u0)) $((s1 - s0))"
		vec=$((vec + v)) acc=$((acc + a)) ref=$((ref + r))
	done
	guard_off
	topo_down
	expect_clean && reliability "$t: $vec vectors, $acc accepted, $ref refused by the tap; $got_drop dropped, $got_unr dropped_unreadable, $got_pass passed, each as the oracle predicted ($(($(date +%s) - start)) s)"
	expect_verdict "$t" "$vec vectors ($acc accepted, $ref refused by the tap): $got_drop dropped, $got_unr unreadable, $got_pass passed; counters exact"
}

case_sweep() { sweep_run sweep; }
cg_case sweep

# The same vectors through the guard with direct packet access switched off
# (build/tests/guard-helper.bpf.o): every header byte is then read by
# bpf_skb_load_bytes() in the out-of-line slow path, which frames from a
# tap, linear up to their checksum field, seldom reach otherwise.
case_sweep_helper() {
	local obj=$BLD/tests/guard-helper.bpf.o

	[ "$BACKEND" = bpf ] || { skip "sweep-helper [$BACKEND]: the helper path is the bpf program's"; return; }
	[ -r "$obj" ] || { fail "sweep-helper [$BACKEND]: $obj missing: run make"; return; }
	sweep_run sweep-helper --object "$obj" --sha256 "$(sha256sum "$obj" | cut -c1-64)"
}
cg_case sweep_helper
