# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 59-containers-more.sh - more of what container hosts run: netkit pairs,
# a CNI's own tc programs on the container's link, a runtime's bridge.
#
# The topology of 57-containers.sh (its helpers: ct_up, ct_link, ct_send,
# ct_counters), veth0 without TX checksum offload (the tx path) unless a
# case says otherwise:
#
#   netns $CT                 netns $VM                          netns $FAR
#   cg-inject --packet        PFXc0 10.2.0.1/24
#   --dev PFXe0 --> PFXe0 === PFXc0 ---> forward ---> veth0 ===== veth1 ---> cg-sniff
#   10.2.0.2                  (netkit: PFXc0 the primary, PFXe0 its peer;
#                              bridge: PFXc0 a port of PFXbr, 10.2.0.1 on it)

NETKIT=$BLD/tests/cg-netkit

# ct_guest_quick T [WHY]: in a guest of make test (CG_DEPTH=quick), a case the
# host proves already is a SKIP saying so: under TCG each costs about a
# minute, and make test's guests must stay within CI's time. make
# test-matrix runs them all in every guest. (Those that run in make test's
# guests: netkit l2, the one netkit case, which the host cannot run, and
# containers_cni for the module, which the host cannot load.)
ct_guest_quick() {
	[ -n "${CG_GUEST:-}" ] && [ "$CG_DEPTH" = quick ] || return 1
	skip "$1: ${2:-the host runs it in make test}; guests in make test-matrix (about a minute under TCG)"
}

# nk_up MODE PFX: $CT and a netkit pair of MODE (l2, l3), the primary
# PFXc0 in $VM, its peer PFXe0 made in $CT, both addressed and up. 3: this
# kernel has no netkit (why: $TMPD/netkit.err).
nk_up() {
	local mode=$1 p=$2 rc

	ip netns add "$CT" && ip -n "$CT" link set lo up || return 1
	ip netns exec "$VM" "$NETKIT" --mode "$mode" --peer-netns "/run/netns/$CT" \
		${p}c0 ${p}e0 2>"$TMPD/netkit.err"
	rc=$?
	[ $rc = 0 ] || return $rc
	ip -n "$VM" addr add 10.2.0.1/24 dev ${p}c0 &&
		ip -n "$VM" link set ${p}c0 up &&
		ct_link $p
}

# A container on a netkit pair (Cilium's datapath on 6.8 and later): the
# container's packet socket sends on the peer; the primary receives in the
# host's namespace. Without a guard: what the kernel does with the bad
# frame. Then attach by hand (l2) and watch: the primary's ingress drops it.
case_netkit() {
	local mode=$1
	local t="netkit/$mode [$BACKEND]" p=n$(($$ % 100000)) n=3 rc
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15)
	local bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--src $CT_IP --dst $FAR_IP --count $n --payload 1000"
	local out=$TMPD/nk-$mode.watch wpid got src cnt base bad_ SNIFF_DST=$FAR_IP

	[ -x "$NETKIT" ] || { fail "$t: $NETKIT missing (make tools)"; return; }
	[ $mode = l3 ] && ct_guest_quick "$t" "make test's guests run netkit l2" && return
	if ! topo_up --mtu 1500 --tx-csum-off; then
		command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
		fail "$t: cannot build the topology"
		topo_down
		return
	fi
	nk_up $mode $p
	rc=$?
	if [ $rc != 0 ]; then
		if [ $rc = 3 ]; then
			skip "$t: this kernel has no netkit: $(cat "$TMPD/netkit.err")"
		else
			fail "$t: cannot make the netkit pair: $(cat "$TMPD/netkit.err")"
		fi
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi

	ct_status "$t" $p netkit

	# no guard: the good frame crosses, the bad one is written over
	ct_send "$TMPD/nk-good-off" $p $good
	got=$(sniff_datagrams "$TMPD/nk-good-off")
	src=$(sniff_sources "$TMPD/nk-good-off")
	if [ "$inject_rc" = 0 ] && [ "$got" = $n ] && [ "$src" = "$CT_IP" ]; then
		pass "$t good/off: $n frames from the container's packet socket crossed the netkit pair intact"
	else
		fail "$t good/off: arrived=${got:-0} from ${src:--} rc $inject_rc: $(tail -1 "$TMPD/nk-good-off.inject")"
	fi
	ct_send "$TMPD/nk-bad-off" $p $bad
	got=$(sniff_datagrams "$TMPD/nk-bad-off")
	src=$(sniff_sources "$TMPD/nk-bad-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the packet socket refused the frame (rc $inject_rc): $(tail -1 "$TMPD/nk-bad-off.inject")"
		base=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != "$CT_IP" ]; then
		pass "$t bad/off: the container's frame crossed the netkit pair CHECKSUM_PARTIAL and left veth0 with its source corrupted to $src"
		base=corrupted
	else
		fail "$t bad/off: expected corruption on the transmit path, got ${got:-0} datagrams from ${src:--}"
		base=unknown
	fi

	# attach by hand, on the primary
	if [ $mode = l2 ]; then
		"$CG" attach ${p}c0 --netns "$VM" --backend "$BACKEND" --quiet
		ct_send "$TMPD/nk-bad-at" $p $bad
		got=$(sniff_datagrams "$TMPD/nk-bad-at")
		cnt=$(ct_counters "$VM" ${p}c0)
		if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$n 0 true netkit" ]; then
			pass "$t attach: nothing arrived (without the guard: $base), ${p}c0 dropped $n ($("$CG" status ${p}c0 --netns "$VM" --json | jq -r .mode))"
		else
			fail "$t attach: arrived=${got:-0} counters/attached/kind '$cnt' rc $inject_rc (want 0 arrived, '$n 0 true netkit')"
		fi
		"$CG" detach ${p}c0 --netns "$VM" --quiet
	fi

	# watch: both ends guarded; bad frames dropped, good ones intact
	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	bad_=
	watch_line "$out" "^guarded ${p}c0 netns $VM " $lim || bad_="$bad_ ${p}c0(primary)"
	watch_line "$out" "^guarded ${p}e0 netns $CT " $lim || bad_="$bad_ ${p}e0(peer)"
	if [ -z "$bad_" ]; then
		pass "$t watch: both ends of the container's netkit pair guarded"
	else
		fail "$t watch: not guarded:$bad_; log: $(tr '\n' '|' <"$out")"
	fi
	ct_send "$TMPD/nk-bad-on" $p $bad
	got=$(sniff_datagrams "$TMPD/nk-bad-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$n 0 true netkit" ]; then
		pass "$t bad/on: under watch nothing arrived (without it: $base), ${p}c0 dropped $n"
	else
		fail "$t bad/on: arrived=${got:-0} counters/attached/kind '$cnt' rc $inject_rc (want 0 arrived, '$n 0 true netkit')"
	fi
	ct_send "$TMPD/nk-good-on" $p $good
	got=$(sniff_datagrams "$TMPD/nk-good-on")
	src=$(sniff_sources "$TMPD/nk-good-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	if [ "$got" = $n ] && [ "$src" = "$CT_IP" ] && ! grep -q 'csum_ok=0' "$TMPD/nk-good-on" &&
	   [ "$cnt" = "$n 0 true netkit" ]; then
		pass "$t good/on: $n intact from $src, counters unchanged"
	else
		fail "$t good/on: arrived=$got from $src counters '$cnt' (want $n intact from $CT_IP)"
	fi
	ct_down $wpid $p
}
cg_case netkit l2
cg_case netkit l3

# cni_hold WHERE OUT: another's tcx program (tc-pass) on PFXc0's ingress of
# $VM, put first or last, held in the background ($cni_pid) until killed;
# its id in $cni_id, empty when none could be put (OUT says why: status 3
# of cg-hooks, no tcx before 6.6)
cni_hold() {
	ip netns exec "$VM" "$HOOKS" --hold ${p}c0 $1 "$BLD/tests/tc-pass.bpf.o" >"$2" 2>&1 &
	cni_pid=$!
	for _ in $(seq 200); do
		grep -q '^holding ' "$2" && break
		kill -0 $cni_pid 2>/dev/null || break
		sleep 0.05
	done
	cni_id=$(sed -n 's/^holding //p' "$2")
}

# What a CNI runs on the container's link, there before any guard: a tcx
# program appended (Cilium's way on a veth) and a cls_bpf filter in clsact
# (Calico's). watch guards the link all the same; the bpf guard in tcx mode
# puts itself before both, the module's hook runs after every tc program
# and status says so. Then a program that puts itself first after the
# guard: status and doctor name it; the bad frames still stop at the guard
# (that program passes them), and watch leaves it be: no repair, no
# re-attach.
case_containers_cni() {
	local t="containers/cni [$BACKEND]" p=q$(($$ % 100000)) n=3 bad_= got cnt mode want
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15) out=$TMPD/cni.watch wpid
	local bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--src $CT_IP --dst $FAR_IP --count $n --payload 1000"
	local SNIFF_DST=$FAR_IP cni_pid cni_id last= first= lpid= fpid= order gid

	[ "$BACKEND" = bpf ] && ct_guest_quick "$t" && return
	# the repairs this case's watch counts, apart from any other's
	export CSUM_GUARD_REPAIRS=$TMPD/cni.repairs
	if ! topo_up --mtu 1500 --tx-csum-off || ! ct_up $p || ! ct_link $p; then
		command -v ethtool >/dev/null || { skip "$t: ethtool missing"; topo_down; return; }
		fail "$t: cannot build the topology"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	cni_hold last "$TMPD/cni.last"
	last=$cni_id lpid=$cni_pid
	if [ -z "$last" ]; then
		wait $lpid
		[ $? = 3 ] || bad_="$bad_ tcx-hold:[$(tr '\n' ' ' <"$TMPD/cni.last")]"
		lpid=
	fi
	ip netns exec "$VM" tc qdisc add dev ${p}c0 clsact &&
		ip netns exec "$VM" tc filter add dev ${p}c0 ingress prio 10 handle 1 \
			bpf da obj "$BLD/tests/tc-pass.bpf.o" sec tc || bad_="$bad_ clsact-filter"

	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	watch_line "$out" "^guarded ${p}c0 netns $VM " $lim || bad_="$bad_ not-guarded"
	mode=$("$CG" status ${p}c0 --netns "$VM" --json | jq -r .mode)
	got=$("$CG" status ${p}c0 --netns "$VM" --json | jq -r '.ahead | join("|")')
	case $BACKEND/$mode in
	bpf/tcx)
		# the kernel's order: the guard, then the CNI's program
		gid=$(kernel_hooks "$VM" ${p}c0 | awk '$1 == "tcx_ingress" { print $2 }')
		order=$(ip netns exec "$VM" "$HOOKS" ${p}c0 | awk '$1 == "tcx_ingress" { print $2 }' | paste -sd' ')
		[ "$order" = "$gid${last:+ $last}" ] || bad_="$bad_ order:[$order] guard $gid"
		want= ;;
	bpf/clsact) want= ;;
	*) want="${last:+tcx program $last tc_pass|}tc filter bpf prio 10 handle 0x1" ;;
	esac
	[ "$got" = "$want" ] || bad_="$bad_ ahead:[$got] want [$want]"
	ct_send "$TMPD/cni-bad" $p $bad
	got=$(sniff_datagrams "$TMPD/cni-bad")
	cnt=$(ct_counters "$VM" ${p}c0)
	[ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$n 0 true veth" ] ||
		bad_="$bad_ bad:arrived=${got:-0},counters='$cnt',rc=$inject_rc"
	ct_send "$TMPD/cni-good" $p $good
	got=$(sniff_datagrams "$TMPD/cni-good")
	[ "$got" = $n ] && [ "$(sniff_sources "$TMPD/cni-good")" = "$CT_IP" ] ||
		bad_="$bad_ good:arrived=${got:-0}"
	if [ -z "$bad_" ]; then
		pass "$t: with a CNI's ${last:+tcx program and }clsact filter there first, watch guarded the container's veth ($BACKEND, $mode$([ -n "$want" ] && echo ", after them, as status says" || echo ", ahead of them")); $n bad frames dropped, $n good ones arrived"
	else
		fail "$t:$bad_"
	fi

	# a program that puts itself before every other, the guard included
	bad_=
	cni_hold first "$TMPD/cni.first"
	first=$cni_id fpid=$cni_pid
	if [ -z "$first" ]; then
		wait $fpid
		fpid=
		if [ -z "$last" ]; then
			skip "$t ahead: no tcx on this kernel: $(head -1 "$TMPD/cni.first")"
		else
			fail "$t ahead: cannot put a tcx program first: $(tr '\n' ' ' <"$TMPD/cni.first")"
		fi
	else
		got=$("$CG" status ${p}c0 --netns "$VM" --json | jq -r '.ahead | join("|")')
		[[ "|$got|" == *"|tcx program $first tc_pass|"* ]] || bad_="$bad_ status:[$got]"
		"$CG" doctor --match "$p*" >"$TMPD/cni.doctor"
		grep -q "^warn  .*${p}c0 .*ahead of the guard: tcx program $first tc_pass" "$TMPD/cni.doctor" ||
			bad_="$bad_ doctor:[$(grep "${p}c0" "$TMPD/cni.doctor" | tr '\n' '|')]"
		ct_send "$TMPD/cni-bad2" $p $bad
		got=$(sniff_datagrams "$TMPD/cni-bad2")
		cnt=$(ct_counters "$VM" ${p}c0)
		[ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$((2 * n)) 0 true veth" ] ||
			bad_="$bad_ bad:arrived=${got:-0},counters='$cnt'"
		# watch's rounds meanwhile: the guard stays, nothing is put back
		sleep 3
		got=$("$CG" status ${p}c0 --netns "$VM" --json | jq -r .repairs)
		[ "$got" = 0 ] || bad_="$bad_ repairs=$got"
		got=$(grep -c "^guarded ${p}c0 " "$out")
		[ "$got" = 1 ] || bad_="$bad_ guarded-lines=$got"
		if [ -z "$bad_" ]; then
			pass "$t ahead: a tcx program put first after the guard is named by status and doctor; the bad frames still stopped at the guard behind it; watch put nothing back (repairs 0 after 3 s)"
		else
			fail "$t ahead:$bad_; watch: $(tr '\n' '|' <"$out")"
		fi
	fi
	for pid in $fpid $lpid; do kill $pid 2>/dev/null; wait $pid 2>/dev/null; done
	ct_down $wpid $p
}
cg_case containers_cni

# br_up PFX: $CT, and its veth as a port of the bridge PFXbr of $VM, which
# holds 10.2.0.1 (docker0, cni0, podman0): the container's end moved in
br_up() {
	local p=$1
	ip netns add "$CT" && ip -n "$CT" link set lo up &&
		ip -n "$VM" link add ${p}br type bridge &&
		ip -n "$VM" addr add 10.2.0.1/24 dev ${p}br &&
		ip -n "$VM" link set ${p}br up &&
		ip -n "$VM" link add ${p}c0 type veth peer name ${p}e0 &&
		ip -n "$VM" link set ${p}c0 master ${p}br &&
		ip -n "$VM" link set ${p}c0 up &&
		ip -n "$VM" link set ${p}e0 netns "$CT" &&
		ct_link $p
}

# A container runtime's bridge: the container's veth is a port of a bridge
# in the host's namespace, which routes out of veth0. The frame enters the
# host on the port (tc ingress runs before the bridge takes it), crosses
# the bridge, is routed, and is written over on the frag or tx path. watch
# guards the port, not the bridge.
case_containers_bridge() {
	local path=$1
	local t="containers/bridge-$path [$BACKEND]" p=b$(($$ % 100000)) n=3 args bad_ got cnt src
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15) out=$TMPD/br-$path.watch wpid base
	local bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--src $CT_IP --dst $FAR_IP --count $n --payload 1000"
	local SNIFF_DST=$FAR_IP CT_DMAC_DEV

	ct_guest_quick "$t" && return
	case $path in
	frag) args="--mtu 576" ;;
	tx) args="--mtu 1500 --tx-csum-off" ;;
	esac
	if ! topo_up $args; then
		command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
		fail "$t: cannot build the topology"
		topo_down
		return
	fi
	if ! br_up $p; then
		fail "$t: cannot make the bridge and the container's veth"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	CT_DMAC_DEV=${p}br
	ct_base "$t" $path $p $CT_IP $bad

	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	bad_=
	watch_line "$out" "^guarded ${p}c0 netns $VM " $lim || bad_="$bad_ ${p}c0(port)"
	watch_line "$out" '^ready: ' $lim || bad_="$bad_ not-ready"
	grep -q "^guarded ${p}br " "$out" && bad_="$bad_ ${p}br(the bridge guarded)"
	ct_send "$TMPD/br-bad-on" $p $bad
	got=$(sniff_datagrams "$TMPD/br-bad-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	[ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$n 0 true veth" ] ||
		bad_="$bad_ bad:arrived=${got:-0},counters='$cnt',rc=$inject_rc"
	ct_send "$TMPD/br-good-on" $p $good
	got=$(sniff_datagrams "$TMPD/br-good-on")
	src=$(sniff_sources "$TMPD/br-good-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	[ "$got" = $n ] && [ "$src" = "$CT_IP" ] && ! grep -q 'csum_ok=0' "$TMPD/br-good-on" &&
		[ "$cnt" = "$n 0 true veth" ] || bad_="$bad_ good:arrived=${got:-0},from=${src:--},counters='$cnt'"
	if [ -z "$bad_" ]; then
		pass "$t bad/on: under watch the bridge port was guarded (not the bridge); $n bad frames dropped there (without it: $base), $n good ones crossed the bridge intact"
	else
		fail "$t bad/on:$bad_; log: $(tr '\n' '|' <"$out")"
	fi
	ct_down $wpid $p
}
cg_case containers_bridge frag
cg_case containers_bridge tx

# The netfilter completion sites of 10-repro.sh (its site_up, repro_send),
# the sender a container: an xt_CHECKSUM rule in the forwarding namespace's
# mangle POSTROUTING, or an NFQUEUE rule in its FORWARD chain read by
# cg-nfq. MTU 1500 and veth0's TX checksum offload on: the rule is the only
# completion site, which a control frame sent before it exists proves.
ct_site_sender() { ct_send "$1" $p "${@:2}"; }

case_containers_site() {
	local path=$1 site= ipt=iptables n=3 p=s$(($$ % 100000)) got src cnt base says bad_
	local t="containers/$path [$BACKEND]" v6= ip=$CT_IP
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15) out=$TMPD/site-$path.watch wpid
	local bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--src $CT_IP --dst $FAR_IP --count $n --payload 1000"
	local SNIFF_DST=$FAR_IP REPRO_SEND=ct_site_sender

	if [ "${path%6}" != "$path" ]; then
		bad="--ipv6 --src $CT_IP6 --dst $FAR_IP6 --csum-start 22 --csum-offset 6 --count $n --payload 1000"
		good="--ipv6 --src $CT_IP6 --dst $FAR_IP6 --count $n --payload 1000"
		ipt=ip6tables v6=--ipv6 ip=$CT_IP6 SNIFF_DST=$FAR_IP6
	fi
	ct_guest_quick "$t" && return
	command -v $ipt >/dev/null || { skip "$t: $ipt missing"; return; }
	if ! topo_up --mtu 1500 $v6 || ! ct_up $p || ! ct_link $p; then
		fail "$t: cannot build the topology"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	# control: without the rule nothing completes the checksum
	repro_send "$TMPD/site-control" $bad
	got=$(sniff_datagrams "$TMPD/site-control")
	src=$(sniff_sources "$TMPD/site-control")
	if [ "$inject_rc" != 0 ] || [ "$got" != $n ] || [ "$src" != "$ip" ]; then
		fail "$t control: without the rule arrived=${got:-0} from ${src:--} (want $n untouched from $ip)"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	if ! site_up ${path%6} "$t"; then
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	site=${path%6}

	repro_send "$TMPD/site-bad-off" $bad
	got=$(sniff_datagrams "$TMPD/site-bad-off")
	src=$(sniff_sources "$TMPD/site-bad-off")
	says=$(site_says "$TMPD/site-bad-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the packet socket refused the frame: $(tail -1 "$TMPD/site-bad-off.inject")"
		base=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != "$ip" ] && [ "$site_seen" = $n ]; then
		pass "$t bad/off: the container's frame went through the $(site_rule) rule and left with its source corrupted to $src$says"
		base=corrupted
	elif [ "${got:-0}" = 0 ] && [ "$site_seen" = $n ] &&
	     { [ "$site" != nfqueue ] || [ "$(queue_packets "$TMPD/site-bad-off")" = 0 ]; }; then
		pass "$t bad/off: kernel already fixed on this path (the $(site_rule) rule saw $n$says, nothing arrived)"
		base=dropped-by-kernel
	else
		fail "$t bad/off: expected corruption or a kernel drop, got ${got:-0} from ${src:--}, the rule saw ${site_seen:-0}$says"
		base=unknown
	fi

	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	bad_=
	watch_line "$out" "^guarded ${p}c0 netns $VM " $lim || bad_="$bad_ not-guarded"
	repro_send "$TMPD/site-bad-on" $bad
	got=$(sniff_datagrams "$TMPD/site-bad-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	[ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$site_seen" = 0 ] &&
		[ "$cnt" = "$n 0 true veth" ] ||
		bad_="$bad_ bad:arrived=${got:-0},rule-saw=$site_seen,counters='$cnt'"
	repro_send "$TMPD/site-good-on" $good
	got=$(sniff_datagrams "$TMPD/site-good-on")
	src=$(sniff_sources "$TMPD/site-good-on")
	[ "$got" = $n ] && [ "$src" = "$ip" ] && [ "$site_seen" = $n ] &&
		! grep -q 'csum_ok=0' "$TMPD/site-good-on" ||
		bad_="$bad_ good:arrived=${got:-0},from=${src:--},rule-saw=$site_seen"
	[ "$site" = nfqueue ] && [ "$(queue_sources "$TMPD/site-good-on")" != "$ip" ] &&
		bad_="$bad_ queue-saw:$(queue_sources "$TMPD/site-good-on")"
	if [ -z "$bad_" ]; then
		pass "$t bad/on: under watch the $(site_rule) rule saw none of $n bad frames (without the guard: $base), the container's veth dropped them; $n good ones through the rule intact"
	else
		fail "$t bad/on:$bad_; log: $(tr '\n' '|' <"$out")"
	fi
	ct_down $wpid $p
}
cg_case containers_site nfqueue6
cg_case containers_site xtcsum6
cg_case containers_site xtcsum
cg_case containers_site nfqueue
