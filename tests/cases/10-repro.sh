# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 10-repro.sh - the reproduction: bad and good frames, guard off and on.

# The four rows, through one completion site.
#   repro frag:     IP fragmentation on forward (veth MTU 576)
#   repro tx:       the transmit path of a device without TX checksum offload
#   repro tx6:      the same for IPv6 (csum_start 22 is the source address);
#                   forwarded IPv6 is never fragmented, so it has no frag row
#   repro vlan:     tx, the guest on an 802.1Q sub-interface of the tap
#   repro qinq:     tx, the guest on 802.1ad 200 + 802.1Q 300 sub-interfaces:
#                   the hooks on tap0 see the inner tag still in the packet
#   repro xtcsum:   iptables -j CHECKSUM --checksum-fill in the forwarding
#                   namespace's mangle POSTROUTING
#   repro nfqueue:  iptables -j NFQUEUE in its FORWARD chain, read by cg-nfq
#                   in copy-packet mode: the kernel completes the checksum
#                   before it copies the packet out
#   repro xtcsum6, repro nfqueue6: the same two with ip6tables and IPv6
#   repro srh6:     tx6 with a routing header (SRH) after the fixed header,
#                   csum_start on its first segment: what the rule has to
#                   protect beyond the 40 bytes; compared is that segment
#   repro frag6h:   tx6 with a fragment header (an atomic fragment), the
#                   checksum field placed on its fragment offset; compared
#                   is that field
# The xtcsum and nfqueue paths keep MTU 1500 and veth0's TX checksum
# offload on, so the rule is the only completion site; a control frame sent
# before the rule exists proves it (it must arrive untouched).
case_repro() {
	local path=$1 n=3 args src got kernel row res site= site_seen seen says ipt=iptables
	local bad="--csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--count $n --payload 1000"
	local t="repro/$path [$BACKEND]"
	local GUEST_IP=$GUEST_IP SNIFF_DST=$FAR_IP
	local l3 tags look=sources what=source

	case $path in
	frag) args="--mtu 576" ;;
	tx|tx6|srh6|frag6h) args="--mtu 1500 --tx-csum-off" ;;
	xtcsum*|nfqueue*) args="--mtu 1500" ;;
	vlan | qinq)
		args="--mtu 1500 --tx-csum-off --$path"
		# the source address, 12 bytes into the IP header behind the tags
		l3=$([ $path = vlan ] && echo 18 || echo 22)
		tags=$([ $path = vlan ] && echo "--vlan 100" || echo "--vlan-proto 88a8 --vlan 200 --vlan 300")
		GUEST_IP=$([ $path = vlan ] && echo $GUEST_IP_VLAN || echo $GUEST_IP_QINQ)
		bad="$tags --src $GUEST_IP --csum-start $((l3 + 6)) --csum-offset 6 --count $n --payload 1000"
		good="$tags --src $GUEST_IP --count $n --payload 1000"
		;;
	esac
	if [ "${path%6}" != "$path" ] || [ $path = frag6h ]; then
		args="$args --ipv6"
		bad="--ipv6 --csum-start 22 --csum-offset 6 --count $n --payload 1000"
		good="--ipv6 --count $n --payload 1000"
		GUEST_IP=$GUEST_IP6
		SNIFF_DST=$FAR_IP6
		ipt=ip6tables
	fi
	if [ $path = srh6 ]; then
		# the first segment: 14 + 40 + the routing header's 8 bytes
		bad="--ipv6 --ext6 srh --csum-start 62 --csum-offset 6 --count $n --payload 1000"
		good="--ipv6 --ext6 srh --count $n --payload 1000"
		GUEST_IP=$SRH_SEGMENT look=segment what="routing header's first segment"
	fi
	if [ $path = frag6h ]; then
		# the offset field, 14 + 40 + 2: the checksum lands on it
		bad="--ipv6 --ext6 frag --csum-start 54 --csum-offset 2 --count $n --payload 1000"
		good="--ipv6 --ext6 frag --count $n --payload 1000"
		GUEST_IP=fragoff=0x0000 look=fragoff what="fragment header's offset field"
	fi
	case $path in
	xtcsum*|nfqueue*)
		command -v $ipt >/dev/null || { skip "$t: $ipt missing"; return; } ;;
	esac
	topo_up $args
	case $? in
	0) ;;
	3)
		skip "$t: this kernel cannot make VLAN devices: $(head -1 "$TMPD/vlan.err")"
		topo_down
		return
		;;
	*)
		[ "$path" = tx ] && ! command -v ethtool >/dev/null &&
			{ skip "$t: ethtool missing"; return; }
		fail "$t: cannot build the topology"
		topo_down
		return
		;;
	esac
	case $path in
	xtcsum*|nfqueue*)
		# control: without the rule nothing completes the checksum
		repro_send "$TMPD/control" $bad
		got=$(sniff_datagrams "$TMPD/control")
		src=$(sniff_sources "$TMPD/control")
		if [ "$inject_rc" != 0 ] || [ "$got" != $n ] || [ "$src" != $GUEST_IP ]; then
			fail "$t control: without the rule arrived=$got from $src (want $n untouched from $GUEST_IP)"
			topo_down
			return
		fi
		pass "$t control: without the rule $got bad frames arrive untouched from $src"
		site_up ${path%6} "$t" || { topo_down; return; }
		site=${path%6}
		;;
	esac

	# bad frame, no guard: what does this kernel do with it?
	local ff0 ff1
	ff0=$(frag_fails)
	repro_send "$TMPD/bad-off" $bad
	ff1=$(frag_fails)
	got=$(repro_count "$TMPD/bad-off")
	src=$(repro_seen $look "$TMPD/bad-off")
	says=$(site_says "$TMPD/bad-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the tap refused the frame: $(cat "$TMPD/bad-off.inject")"
		kernel=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != $GUEST_IP ] && [ "$site_seen" = "${site:+$n}" ]; then
		kernel=vulnerable
		pass "$t bad/off: $what corrupted to $src$says (kernel vulnerable)"
	elif [ "${got:-0}" = 0 ] && [ "$path" = frag ] && [ "$ff1" -gt "$ff0" ]; then
		kernel=fixed
		pass "$t bad/off: kernel already fixed (dropped it, IpFragFails +$((ff1 - ff0)))"
	elif [ "${got:-0}" = 0 ] && [ -n "$site" ] && [ "$site_seen" = $n ] &&
	     { [ "$site" != nfqueue ] || [ "$(queue_packets "$TMPD/bad-off")" = 0 ]; }; then
		kernel=fixed
		pass "$t bad/off: kernel already fixed (the $(site_rule) rule saw $n$says, nothing arrived)"
	else
		kernel=unknown
		fail "$t bad/off: expected corruption or a kernel drop, got $got datagrams from $src$says"
	fi
	case $kernel in
	vulnerable) kernel=corrupted ;;
	fixed) kernel=dropped-by-kernel ;;
	esac
	repro_row "$path bad off ${got:-0} ${src:--} - $kernel"

	# bad frame, guard on: nothing arrives, every frame counted, nothing
	# reaches the completion site
	if guard_on; then
		repro_send "$TMPD/bad-on" $bad
		got=$(repro_count "$TMPD/bad-on")
		set -- $(guard_counters)
		if [ "$inject_rc" = 0 ] && [ "${got:-x}" = 0 ] && [ "$1" = $n ] && [ "$2" = 0 ] &&
		   [ "$site_seen" = "${site:+0}" ]; then
			pass "$t bad/on: nothing arrived, dropped=$1${site:+, the $(site_rule) rule saw none}"
			row=dropped-by-guard
		else
			seen=${site:+ $(site_rule) rule saw $site_seen}
			fail "$t bad/on: arrived=$got counters=[$1,$2]$seen (want 0 arrived, [$n,0])"
			row=NOT-DROPPED
		fi
		repro_row "$path bad on ${got:-0} $(repro_seen $look "$TMPD/bad-on") [$1,$2] $row"
		guard_off
	else
		fail "$t bad/on: attach failed"
	fi

	# good frame, guard on and off: intact, counters untouched, and through
	# the completion site under test
	for row in on off; do
		if [ $row = on ] && ! guard_on; then
			fail "$t good/$row: attach failed"
			continue
		fi
		repro_send "$TMPD/good-$row" $good
		got=$(repro_count "$TMPD/good-$row")
		src=$(repro_seen $look "$TMPD/good-$row")
		local cnt=- ok=1
		if [ $row = on ]; then
			set -- $(guard_counters)
			cnt="[$1,$2]"
			[ "$1" = 0 ] && [ "$2" = 0 ] || ok=0
			guard_off
		fi
		grep -q 'csum_ok=0' "$TMPD/good-$row" && ok=0
		[ "$site_seen" = "${site:+$n}" ] || ok=0
		[ "$site" = nfqueue ] && [ "$(queue_sources "$TMPD/good-$row")" != $GUEST_IP ] && ok=0
		seen=${site:+, through the $(site_rule) rule ($site_seen)$(site_says "$TMPD/good-$row")}
		if [ $ok = 1 ] && [ "$got" = $n ] && [ "$src" = $GUEST_IP ]; then
			pass "$t good/$row: $got intact from $src, counters $cnt$seen"
			res=intact
		else
			fail "$t good/$row: arrived=$got from $src counters $cnt$seen (want $n intact from $GUEST_IP, [0,0])"
			res=NOT-INTACT
		fi
		repro_row "$path good $row ${got:-0} ${src:--} $cnt $res"
	done
	topo_down
}
cg_case --demo repro frag
cg_case --demo repro tx
cg_case --demo repro tx6
cg_case repro vlan
cg_case repro qinq
cg_case --demo repro xtcsum
cg_case --demo repro nfqueue
cg_case --demo repro xtcsum6
cg_case --demo repro nfqueue6
cg_case repro srh6
cg_case repro frag6h

# The first segment of the routing header cg-inject --ext6 srh sends
SRH_SEGMENT=fd77:1:0:0:0:0:0:99

# repro_seen sources|segment|fragoff FILE: what a capture shows of the
# frames: their sources, the first segment of their routing header (as an
# address, groups without leading zeros), or their fragment header's
# offset field (fragoff=0xHHHH, as sent: 0x0000)
repro_seen() {
	local hex g out= i
	if [ "$1" = sources ]; then
		sniff_sources "$2"
		return
	fi
	hex=$(sed -n 's/^summary .*exts=\([^ ,]*\).*/\1/p' "$2")
	[ -n "$hex" ] && [ "$hex" != - ] || { echo -; return; }
	if [ "$1" = fragoff ]; then
		echo "fragoff=0x${hex:4:4}"
		return
	fi
	for i in 0 1 2 3 4 5 6 7; do
		g=${hex:$((16 + 4 * i)):4}
		g=$(printf '%x' "0x${g:-0}")
		out="$out${out:+:}$g"
	done
	echo "$out"
}

# What arrived: datagrams, or with a fragment header's offset rewritten
# (no longer a whole datagram), packets. Uses case_repro's $look.
repro_count() {
	if [ "$look" = fragoff ]; then
		sed -n 's/^summary packets=\([0-9]*\).*/\1/p' "$1"
	else
		sniff_datagrams "$1"
	fi
}

# --- the netfilter completion sites (xtcsum, nfqueue) -----------------
# These run inside case_repro and use its $site and $ipt.

NFQ_NUM=7

site_rule() {
	case $site in
	xtcsum) echo CHECKSUM ;;
	nfqueue) echo NFQUEUE ;;
	esac
}

# site_up PATH T: the rule for PATH in the forwarding namespace; says skip
# or fail itself when it cannot.
site_up() {
	local err

	case $1 in
	xtcsum)
		err=$(ip netns exec "$VM" $ipt -w -t mangle -A POSTROUTING -o veth0 -p udp \
			-j CHECKSUM --checksum-fill 2>&1) ||
			{ skip "$2: no CHECKSUM target here: ${err//$'\n'/ }"; return 1; }
		;;
	nfqueue)
		err=$(ip netns exec "$VM" $ipt -w -A FORWARD -o veth0 -p udp \
			-j NFQUEUE --queue-num $NFQ_NUM 2>&1) ||
			{ skip "$2: no NFQUEUE target here: ${err//$'\n'/ }"; return 1; }
		# can a reader bind a queue at all (nfnetlink_queue)?
		err=$(ip netns exec "$VM" "$NFQ" --queue $NFQ_NUM --timeout 1 2>&1) ||
			{ skip "$2: ${err//$'\n'/ }"; return 1; }
		;;
	esac
}

# Packets the site's rule has matched so far (0 without a site).
site_hits() {
	case $site in
	xtcsum) ip netns exec "$VM" $ipt -w -t mangle -L POSTROUTING 1 -v -x -n ;;
	nfqueue) ip netns exec "$VM" $ipt -w -L FORWARD 1 -v -x -n ;;
	*) echo 0 ;;
	esac | awk '{ print $1; exit }'
}

# repro_send OUT [cg-inject args...]: inject_sniff (or $REPRO_SEND, which
# takes the same arguments: a container's sender in 59-containers-more.sh),
# with the queue's reader running for nfqueue (its lines in OUT.nfq);
# $site_seen gets how many packets the site's rule matched meanwhile, empty
# without a site.
repro_send() {
	local out=$1 h0 qpid ready=$TMPD/ready.q
	shift

	h0=$(site_hits)
	rm -f "$out.nfq"
	if [ "$site" = nfqueue ]; then
		rm -f "$ready"
		ip netns exec "$VM" "$NFQ" --queue $NFQ_NUM --timeout 0 \
			--max-time $((SNIFF_IDLE * 40)) --ready-file "$ready" >"$out.nfq" 2>&1 &
		qpid=$!
		wait_ready "$ready"
	fi
	${REPRO_SEND:-inject_sniff} "$out" "$@"
	if [ -n "${qpid:-}" ]; then
		# the capture idled for SNIFF_IDLE: every verdict is given
		kill -TERM $qpid 2>/dev/null
		wait $qpid
	fi
	site_seen=
	[ -n "$site" ] && site_seen=$(($(site_hits) - h0))
}

# What the queue's reader saw: packets and sources of its copies.
queue_packets() { sed -n 's/^summary packets=\([0-9]*\).*/\1/p' "$1.nfq" 2>/dev/null; }
queue_sources() { sed -n 's/^summary .*sources=\([^ ]*\).*/\1/p' "$1.nfq" 2>/dev/null; }

# ", the queue got N from A" for nfqueue, nothing otherwise
site_says() {
	local src

	[ "$site" = nfqueue ] || return 0
	src=$(queue_sources "$1")
	[ "$src" = - ] && src=
	echo ", the queue got $(queue_packets "$1")${src:+ from $src}"
}
