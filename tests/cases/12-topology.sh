# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 12-topology.sh - the topologies that get past a tap's ingress guard, as
# rows of the reproduction: the guest-facing device guarded the way
# `csum-guard attach DEV` guards it, with no options; under the kmod backend
# also the completion guard alone, no device guarded. Every row goes through
# the transmit path (veth0 without TX checksum offload), the completion site
# every kernel measured so far leaves open.
#
#   topo macvtap:  the guest writes the character device of a macvtap in
#                  bridge mode, whose macvlan sibling routes: its frames
#                  leave through the macvtap (its egress), never enter it
#   topo vxlan:    the guest sends VXLAN to a VTEP on the host with
#                  csum_start in the inner IPv4 header; the host decapsulates
#                  and forwards the inner packet
#   topo geneve, topo gre, topo ipip: the same through those tunnels (gre
#                  and ipip carry the inner packet from its IP header on)
#   topo redirect: a tc mirred redirect on the tap's ingress (clsact) takes
#                  its frames straight to veth0's transmit path, before any
#                  netfilter hook
#   topo xdp:      someone's XDP program on the tap (generic XDP) redirects
#                  every frame to xa, whose veth peer xb hands it back to
#                  the stack, which forwards it out of veth0: XDP runs before
#                  any guard on the tap, so only the completion guard stops
#                  it there; status names the program as ahead of the guard
#   topo nftfwd:   an nftables netdev chain on the tap at priority INT_MIN,
#                  the module's own, with `fwd to veth0`, loaded again after
#                  attach (as `nft -f` does): at equal priority the hook
#                  registered last runs first, until the module moves back

# topo_kind_up KIND: the guest-facing device of KIND in $VM, after topo_up.
# Sets GDEV (the device to guard), INJECT_DEV (where the guest writes),
# TOPO_ARGS (cg-inject's arguments for that), GUEST_IP (the source the far
# side must see) and IHDR (where the inner IPv4 header starts, counted from
# the first byte of the frame). 3: this kernel has no such device (why in
# $TMPD/kind.err).
topo_kind_up() {
	local d net spec

	GDEV=tap0 INJECT_DEV=tap0 TOPO_ARGS= IHDR=14
	case $1 in
	macvtap)
		ip -n "$VM" link add lowa type veth peer name lowb || return 1
		ip -n "$VM" link add link lowa name mvtap0 type macvtap mode bridge \
			2>"$TMPD/kind.err" || return 3
		ip -n "$VM" link add link lowa name mv0 type macvlan mode bridge \
			2>"$TMPD/kind.err" || return 3
		ip -n "$VM" addr add 10.77.0.1/24 dev mv0
		for d in lowb lowa mv0 mvtap0; do
			ip -n "$VM" link set $d up || return 1
		done
		GDEV=mvtap0 INJECT_DEV=mvtap0 GUEST_IP=10.77.0.2
		TOPO_ARGS="--src $GUEST_IP --dmac $(link_mac "$VM" mv0)"
		;;
	vxlan | geneve | gre | ipip)
		case $1 in
		vxlan) net=78 IHDR=64 spec="id 42 dstport 4789 local 10.0.0.1" ;;
		geneve) net=79 IHDR=64 spec="id 42 remote 10.0.0.2" ;;
		gre) net=80 IHDR=38 spec="local 10.0.0.1 remote 10.0.0.2" ;;
		ipip) net=81 IHDR=34 spec="local 10.0.0.1 remote 10.0.0.2" ;;
		esac
		GDEV=t${1}0 GUEST_IP=10.$net.0.2
		ip -n "$VM" link add $GDEV type $1 $spec 2>"$TMPD/kind.err" || return 3
		ip -n "$VM" addr add 10.$net.0.1/24 dev $GDEV
		ip -n "$VM" link set $GDEV up || return 1
		TOPO_ARGS="--encap $1 --src $GUEST_IP"
		case $1 in
		vxlan | geneve) TOPO_ARGS="$TOPO_ARGS --inner-dmac $(link_mac "$VM" $GDEV)" ;;
		esac
		;;
	redirect)
		# addressed to veth1 already: tc takes it before any MAC check
		ip netns exec "$VM" tc qdisc add dev tap0 clsact 2>"$TMPD/kind.err" &&
		ip netns exec "$VM" tc filter add dev tap0 ingress u32 match u32 0 0 \
			action mirred egress redirect dev veth0 2>"$TMPD/kind.err" || return 3
		TOPO_ARGS="--dmac $(link_mac "$FAR" veth1)"
		;;
	xdp)
		command -v bpftool >/dev/null || { echo "bpftool missing" >"$TMPD/kind.err"; return 3; }
		TOPO_XDP=/sys/fs/bpf/$CG_PFX-topo-xdp
		rm -rf "$TOPO_XDP" "$TOPO_XDP-maps"
		ip -n "$VM" link add xa type veth peer name xb &&
			ip -n "$VM" link set xa up && ip -n "$VM" link set xb up || return 1
		ip netns exec "$VM" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.xb.rp_filter=0
		bpftool prog load "$BLD/tests/xdp-redirect.bpf.o" "$TOPO_XDP" type xdp \
			pinmaps "$TOPO_XDP-maps" 2>"$TMPD/kind.err" || return 3
		# the devmap takes an ifindex of the namespace it is updated from;
		# nsenter keeps our mount namespace, where the pins are
		set -- $(ip -n "$VM" -o link show xa | cut -d: -f1)
		nsenter --net="/run/netns/$VM" bpftool map update pinned "$TOPO_XDP-maps/cg_redirect_to" \
			key 0 0 0 0 value $(($1 & 255)) $(($1 >> 8 & 255)) 0 0 2>"$TMPD/kind.err" &&
		nsenter --net="/run/netns/$VM" ip link set dev tap0 xdpgeneric pinned "$TOPO_XDP" \
			2>"$TMPD/kind.err" || return 3
		TOPO_ARGS="--dmac $(link_mac "$VM" xb)"
		;;
	nftfwd)
		command -v nft >/dev/null || { echo "nft missing" >"$TMPD/kind.err"; return 3; }
		topo_nftfwd_load || return 3
		TOPO_ARGS="--dmac $(link_mac "$FAR" veth1)"
		;;
	*)
		return 1
		;;
	esac
}

# The chain of topo nftfwd, loaded (again) as a ruleset reload does: the
# table goes and comes back, its hook registered anew.
topo_nftfwd_load() {
	ip netns exec "$VM" nft delete table netdev cgtopo 2>/dev/null
	ip netns exec "$VM" nft -f - 2>"$TMPD/kind.err" <<-EOF
	table netdev cgtopo {
		chain early {
			type filter hook ingress device tap0 priority -2147483648;
			fwd to veth0
		}
	}
	EOF
}

# Good frames through the completion guard, checksums offloaded
TOPO_GOOD=50

# The completion guard's refusals so far
topo_refused() { "$CG" completion --json | jq -r .dropped; }

# completion_on T: switch the completion guard on for case T; 0 if it is.
# Where the kernel cannot have it (arm64 from 6.2: no
# DYNAMIC_FTRACE_WITH_REGS), as the probe says once the module is loaded,
# T says SKIP and why; any other failure is T's FAIL.
completion_on() {
	local w

	"$CG" completion on --quiet 2>"$TMPD/comp.err" && return 0
	w=$("$CG" probe --json 2>/dev/null | jq -r '.completion_unavailable // empty')
	if [ -n "$w" ] && [ -d /sys/module/csum_guard ]; then
		skip "$1: no completion guard on $(uname -r): $w"
	else
		fail "$1: set-up: $(cat "$TMPD/comp.err")"
	fi
	return 1
}

case_topo() {
	local kind=$1 n=3 t="topo/$1 [$BACKEND]" got src rc bad good res out
	local GUEST_IP=$GUEST_IP INJECT_DEV GDEV TOPO_ARGS IHDR c0 TOPO_XDP=

	command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
	if ! topo_up --mtu 1500 --tx-csum-off; then
		fail "$t: cannot build the topology"
		topo_down
		return
	fi
	topo_kind_up $kind
	rc=$?
	if [ $rc = 3 ]; then
		skip "$t: this kernel cannot make it: $(head -1 "$TMPD/kind.err")"
		topo_down
		return
	elif [ $rc != 0 ]; then
		fail "$t: cannot build the $kind device"
		topo_down
		return
	fi
	bad="$TOPO_ARGS --csum-start $((IHDR + 6)) --csum-offset 6 --count $n --payload 1000"
	good="$TOPO_ARGS --count $n --payload 1000"

	# no guard: what does this kernel do with the bad frame here?
	inject_sniff "$TMPD/topo-off" $bad
	got=$(sniff_datagrams "$TMPD/topo-off")
	src=$(sniff_sources "$TMPD/topo-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the guest's write was refused: $(cat "$TMPD/topo-off.inject")"
		res=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != "$GUEST_IP" ]; then
		pass "$t bad/off: source corrupted to $src on the transmit path (kernel vulnerable)"
		res=corrupted
	elif [ "${got:-0}" = 0 ]; then
		pass "$t bad/off: nothing arrived (this kernel drops it itself)"
		res=dropped-by-kernel
	else
		fail "$t bad/off: $got arrived intact from $src: no completion ran, the topology misses the transmit path"
		res=unknown
	fi
	repro_row "$kind bad off ${got:-0} ${src:--} - $res"

	# the backend's guard on the guest-facing device, as attach DEV puts it
	if [ $kind = xdp ]; then
		# XDP runs before every guard a device can have: attach says so,
		# status names it; the completion guard is what stops it
		if out=$("$CG" attach $GDEV --netns "$VM" --backend $BACKEND 2>&1) &&
		   grep -q "warning: on tap0 in netns $VM, xdp program [0-9]* xdp_redirect (generic) runs before the guard" <<<"$out" &&
		   [ "$("$CG" status tap0 --netns "$VM" --json | jq -r '.ahead_count')" = 1 ]; then
			pass "$t ahead: attach warns and status names the XDP program ahead of the guard"
		else
			fail "$t ahead: attach said: $out; status: $("$CG" status tap0 --netns "$VM" --json | jq -c .ahead)"
		fi
		"$CG" detach $GDEV --netns "$VM" --quiet
		skip "$t bad/on: XDP runs before any guard on the device; the completion guard covers it (topo/$kind completion)"
	elif [ $kind = redirect ] && [ $BACKEND = kmod ]; then
		skip "$t bad/on: tc ingress redirects before any netfilter hook runs; the completion guard covers it (topo/$kind completion)"
	elif out=$("$CG" attach $GDEV --netns "$VM" --backend $BACKEND 2>&1); then
		if [ $kind = nftfwd ]; then
			# reloaded after attach: the module gets back in front
			topo_nftfwd_load
			for c0 in $(seq 50); do
				[ $BACKEND = bpf ] ||
					[ "$("$CG" status tap0 --netns "$VM" --json | jq -r .reordered)" -ge 1 ] &&
					break
				sleep 0.2
			done
		fi
		topo_guarded "$t" "$bad" "$good" "$out"
		"$CG" detach $GDEV --netns "$VM" --quiet
	elif grep -q 'the completion guard covers it' <<<"$out"; then
		skip "$t bad/on: ${out#csum-guard: }"
	else
		fail "$t bad/on: attach: $out"
	fi

	# the module's completion guard alone
	if [ $BACKEND = kmod ]; then
		if completion_on "$t completion"; then
			c0=$(topo_refused)
			inject_sniff "$TMPD/topo-comp" $bad
			got=$(sniff_datagrams "$TMPD/topo-comp")
			c0=$(($(topo_refused) - c0))
			if [ "$inject_rc" = 0 ] && [ "${got:-x}" = 0 ] && [ "$c0" = $n ]; then
				pass "$t completion: no device guarded; nothing arrived, $c0 refused at skb_checksum_help()"
				res=refused-at-completion
			else
				fail "$t completion: arrived=$got from $(sniff_sources "$TMPD/topo-comp"), refused $c0 (want 0, $n)"
				res=NOT-DROPPED
			fi
			repro_row "$kind bad compl ${got:-0} $(sniff_sources "$TMPD/topo-comp") [$c0] $res"
			# legitimate frames, checksum offloaded (VXLAN: the inner one),
			# each completed in software under the guard: none refused
			c0=$(topo_refused)
			inject_sniff "$TMPD/topo-cgood" $TOPO_ARGS --count $TOPO_GOOD --payload 1000
			got=$(sniff_datagrams "$TMPD/topo-cgood")
			src=$(sniff_sources "$TMPD/topo-cgood")
			c0=$(($(topo_refused) - c0))
			if [ "$got" = $TOPO_GOOD ] && [ "$src" = "$GUEST_IP" ] && [ "$c0" = 0 ] &&
			   ! grep -q 'csum_ok=0' "$TMPD/topo-cgood"; then
				pass "$t completion: good frames $got intact from $src, none refused"
				res=intact
			else
				fail "$t completion: good frames arrived=$got from $src, refused $c0 (want $TOPO_GOOD intact from $GUEST_IP, 0)"
				res=NOT-INTACT
			fi
			repro_row "$kind good compl ${got:-0} ${src:--} [$c0] $res"
			"$CG" completion off --quiet
		fi
	fi
	topo_down
	[ $kind != xdp ] || rm -rf "$TOPO_XDP" "$TOPO_XDP-maps"
}

# topo_guarded T BAD GOOD ATTACH_OUTPUT: with $GDEV guarded, the bad frames
# are dropped and counted there, the good ones arrive intact.
topo_guarded() {
	local t=$1 bad=$2 good=$3 said=$4 got src res egress eg=
	set -- $("$CG" status $GDEV --netns "$VM" --json | jq -r '"\(.dropped) \(.dropped_unreadable) \(.egress)"')
	egress=$3
	[ "$egress" = true ] && eg=", egress"
	if [ $GDEV = mvtap0 ] && { [ "$egress" != true ] || ! grep -q 'transmits what its guest writes' <<<"$said"; }; then
		fail "$t: attach without --egress did not guard the macvtap's egress: egress=$egress, said: $said"
	fi
	inject_sniff "$TMPD/topo-on" $bad
	got=$(sniff_datagrams "$TMPD/topo-on")
	set -- $("$CG" status $GDEV --netns "$VM" --json | jq -r '"\(.dropped) \(.dropped_unreadable)"')
	if [ "$inject_rc" = 0 ] && [ "${got:-x}" = 0 ] && [ "$1" = $n ] && [ "$2" = 0 ]; then
		pass "$t bad/on: $GDEV guarded (attach, no options$eg): nothing arrived, dropped=$1"
		res=dropped-by-guard
	else
		fail "$t bad/on: $GDEV guarded: arrived=$got counters=[$1,$2] (want 0, [$n,0])"
		res=NOT-DROPPED
	fi
	repro_row "$kind bad on ${got:-0} $(sniff_sources "$TMPD/topo-on") [$1,$2] $res"
	inject_sniff "$TMPD/topo-good" $good
	got=$(sniff_datagrams "$TMPD/topo-good")
	src=$(sniff_sources "$TMPD/topo-good")
	set -- $("$CG" status $GDEV --netns "$VM" --json | jq -r '"\(.dropped) \(.dropped_unreadable)"')
	if [ "$got" = $n ] && [ "$src" = "$GUEST_IP" ] && [ "$1" = $n ] && [ "$2" = 0 ] &&
	   ! grep -q 'csum_ok=0' "$TMPD/topo-good"; then
		pass "$t good/on: $got intact from $src, counters unchanged"
		res=intact
	else
		fail "$t good/on: arrived=$got from $src counters=[$1,$2] (want $n intact from $GUEST_IP, [$n,0])"
		res=NOT-INTACT
	fi
	repro_row "$kind good on ${got:-0} ${src:--} [$1,$2] $res"
}
cg_case --demo topo macvtap
cg_case --demo topo vxlan
cg_case topo geneve
cg_case topo gre
cg_case topo ipip
cg_case --demo topo redirect
cg_case topo xdp
cg_case topo nftfwd
