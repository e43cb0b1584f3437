# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 35-traffic.sh - legitimate traffic at volume through guarded devices, and
# GSO frames from the guest, bad and good.

# Volumes: the guests run under TCG, where everything is 10-50x slower.
if [ -n "${CG_GUEST:-}" ]; then
	VOL_TCP_BYTES=${VOL_TCP_BYTES:-48000000}
	VOL_UDP_COUNT=${VOL_UDP_COUNT:-1000}
	GSO_FRAMES=${GSO_FRAMES:-10}
	GRACE=${GRACE:-1}
else
	VOL_TCP_BYTES=${VOL_TCP_BYTES:-200000000}
	VOL_UDP_COUNT=${VOL_UDP_COUNT:-5000}
	GSO_FRAMES=${GSO_FRAMES:-50}
	GRACE=${GRACE:-0.3}
fi
VOL_FLOWS=4
VOL_SAMPLE=64		# packets a witness capture looks at

# The volume topology: two namespaces, one veth pair, nothing else.
#
#   netns $VM (the sender)                 netns $FAR (the receiver)
#   veth0 10.1.0.1/24 fd01::1/64  ------  veth1 10.1.0.2/24 fd01::2/64
#   [guard at ingress: the acks]           [guard at ingress: the data]
#
# TX checksum offload stays on (the veth default), so what one side sends
# reaches the other side's ingress still CHECKSUM_PARTIAL: TCP and UDP
# leave the checksum to the device, and a veth hands the skb over as is.
vol_up() {
	topo_down
	netns_new "$VM" "$FAR" &&
		veth_pair "$VM" veth0 "$FAR" veth1 10.1.0.1/24 $FAR_IP/24 fd01::1/64 $FAR_IP6/64
}

# vol_guard on|off: the guard on both ends
vol_guard() {
	if [ "$1" = on ]; then
		"$CG" attach veth1 --netns "$FAR" --backend "$BACKEND" --quiet &&
			"$CG" attach veth0 --netns "$VM" --backend "$BACKEND" --quiet
	else
		"$CG" detach veth1 --netns "$FAR" --quiet
		"$CG" detach veth0 --netns "$VM" --quiet
	fi
}

# vol_counters: "[d,u] [d,u]" of veth1 and veth0
vol_counters() {
	set -- $(counters_of veth1 "$FAR") $(counters_of veth0 "$VM")
	echo "[$1,$2] [$3,$4]"
}

# witness NAME NS DEV DST PROTO: capture the first packets to DST arriving
# on DEV, where a guard sits. A packet socket on a device's ingress sees
# the skb just before the tc and netfilter ingress hooks do, and reports
# CHECKSUM_PARTIAL (TP_STATUS_CSUMNOTREADY): cg-sniff counts those.
witness() {
	local f=$TMPD/w-$1

	rm -f "$f.ready"
	ip netns exec "$2" "$SNIFF" --dev "$3" --dst "$4" --proto "$5" --count $VOL_SAMPLE \
		--timeout $((SNIFF_IDLE * 4)) --ready-file "$f.ready" >"$f" 2>&1 &
	W_PIDS="$W_PIDS $!"
	wait_ready "$f.ready"
}

# fields FILE WORD NAME...: "NAME=VALUE ..." of the line of FILE that
# starts with WORD (a tool's result line), without starting a process
fields() {
	local f=$1 word=$2 line k out=

	shift 2
	while read -r line; do
		[ "${line%% *}" = "$word" ] && break
	done <"$f"
	for k; do
		[[ " $line " =~ \ $k=([^ ]*)\  ]] && out="$out $k=${BASH_REMATCH[1]}"
	done
	echo "${out# }"
}

# stream NAME ADDR [cg-stream args]: the listener in $FAR, the connector in
# $VM, with a witness on each end; the listener's line goes to $TMPD/NAME;
# $stream_ok says whether both ends exited 0 (all of it verified)
stream() {
	local name=$1 addr=$2 proto=6 near=10.1.0.1 pid tx_rc rx_rc
	shift 2
	[ "$name" = "${name#udp}" ] || proto=17
	[ "$addr" = "${addr#*:}" ] || near=fd01::1
	rm -f "$TMPD/$name.ready"
	"$STREAM" --netns "$FAR" --listen "$addr" --ready-file "$TMPD/$name.ready" "$@" \
		>"$TMPD/$name" 2>&1 &
	pid=$!
	wait_ready "$TMPD/$name.ready"
	W_PIDS=
	witness "$name-data" "$FAR" veth1 "$addr" $proto
	witness "$name-back" "$VM" veth0 $near $proto
	"$STREAM" --netns "$VM" --connect "$addr" "$@" >"$TMPD/$name.tx" 2>&1
	tx_rc=$?
	wait $pid
	rx_rc=$?
	wait $W_PIDS
	stream_ok=1
	[ $tx_rc = 0 ] && [ $rx_rc = 0 ] && return
	stream_ok=0
	note "$name: listener exit $rx_rc: $(tr '\n' ' ' <"$TMPD/$name")"
	note "$name: connector exit $tx_rc: $(tr '\n' ' ' <"$TMPD/$name.tx")"
}

# Legitimate TCP and UDP, both families, both directions guarded: every
# byte arrives as sent, nothing is dropped. Witnesses show the traffic was
# CHECKSUM_PARTIAL where the guards sit; then one bad frame each way shows
# both guards were live and judging exactly such packets.
#
# volume completion (kmod): the same traffic with TX checksum offload off
# on both veths and the module's completion guard on, no device guarded:
# every packet's checksum is completed by skb_checksum_help() under the
# guard (the witnesses see none still partial), none is refused, every
# byte arrives; then a bad frame each way is refused there.
case_volume() {
	local t="volume [$BACKEND]" rec=() mbps= s name ok n w r cnt mac0 mac1 t0
	local port=5300 comp=${1:-} c0 want=partial

	t0=$(date +%s%N)
	if [ -n "$comp" ]; then
		[ "$BACKEND" = kmod ] || return 0
		t="volume/completion [$BACKEND]" want=completed
		if ! vol_up || ! ip netns exec "$VM" ethtool -K veth0 tx off >/dev/null ||
		   ! ip netns exec "$FAR" ethtool -K veth1 tx off >/dev/null; then
			fail "$t: set-up"
			topo_down
			return
		fi
		if ! completion_on "$t"; then
			"$CG" completion off --quiet
			topo_down
			return
		fi
		c0=$(topo_refused)
	elif ! vol_up || ! vol_guard on; then
		fail "$t: set-up"
		vol_guard off 2>/dev/null
		topo_down
		return
	fi
	# TCP: a deterministic pseudo-random stream, checked byte for byte
	ok=1
	for s in tcp4:$FAR_IP tcp6:$FAR_IP6; do
		name=${s%%:*}
		stream $name "${s#*:}" --port $((port += 10)) --bytes $VOL_TCP_BYTES
		[ $stream_ok = 1 ] || ok=0
		rec+=("$name $(fields "$TMPD/$name" tcp bytes mbps)")
		r=$(fields "$TMPD/$name" tcp mbps)
		mbps="$mbps, $name ${r#mbps=} MB/s"
	done
	if [ $ok = 1 ]; then
		pass "$t tcp: IPv4 and IPv6, $VOL_TCP_BYTES bytes each, byte-exact (${mbps#, })"
	else
		fail "$t tcp: a transfer failed or did not verify (${rec[*]})"
	fi
	# UDP: flows on several ports, sequence numbers, checked payloads
	ok=1
	for s in udp4:$FAR_IP udp6:$FAR_IP6; do
		name=${s%%:*}
		stream $name "${s#*:}" --port $((port += 10)) --udp --flows $VOL_FLOWS \
			--count $VOL_UDP_COUNT
		[ $stream_ok = 1 ] || ok=0
		rec+=("$name $(fields "$TMPD/$name" udp datagrams bytes lost dup bad reordered seconds)")
	done
	n=$((2 * VOL_FLOWS * VOL_UDP_COUNT))
	if [ $ok = 1 ]; then
		pass "$t udp: IPv4 and IPv6, $VOL_FLOWS flows x $VOL_UDP_COUNT datagrams:" \
			"all $n arrived once, payloads checked"
	else
		fail "$t udp: datagrams lost, duplicated or bad (${rec[2]}; ${rec[3]})"
	fi
	# The witnesses: was it CHECKSUM_PARTIAL where each guard sits (with
	# the completion guard: completed in software before it arrived)?
	ok=1 w=
	for s in tcp4 tcp6 udp4 udp6; do
		for n in data back; do
			r=$(fields "$TMPD/w-$s-$n" summary packets partial)
			if [[ $r =~ ^packets=([0-9]+)\ partial=([0-9]+)$ ]] &&
			   [ "${BASH_REMATCH[1]}" -gt 0 ]; then
				case $want in
				partial) [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] || ok=0 ;;
				completed) [ "${BASH_REMATCH[2]}" = 0 ] || ok=0 ;;
				esac
			else
				ok=0
			fi
			w="$w $s-$n=${BASH_REMATCH[2]:-?}/${BASH_REMATCH[1]:-?}"
		done
	done
	if [ $ok = 1 ] && [ $want = partial ]; then
		pass "$t partial: every sampled packet was CHECKSUM_PARTIAL at the guarded" \
			"ingress (partial/sampled:$w)"
	elif [ $ok = 1 ]; then
		pass "$t completed: no sampled packet arrived still partial: each was" \
			"completed by skb_checksum_help() on its way (partial/sampled:$w)"
	else
		fail "$t $want: sampled packets not as expected (partial/sampled:$w)"
	fi
	if [ -n "$comp" ]; then
		cnt=$(($(topo_refused) - c0))
		if [ "$cnt" = 0 ]; then
			pass "$t refused: none of the legitimate packets was refused"
		else
			fail "$t refused: $cnt legitimate packets refused at completion"
		fi
	fi
	cnt=$(vol_counters)
	if [ -n "$comp" ]; then
		:
	elif [ "$cnt" = "[0,0] [0,0]" ]; then
		pass "$t counters: [0,0] on veth1 (data) and veth0 (acks) after all of it"
	else
		fail "$t counters: veth1 and veth0 $cnt after legitimate traffic, want [0,0] [0,0]"
	fi
	# The control: one bad PARTIAL frame each way, from a packet socket
	# with a virtio_net_hdr: each guard counts exactly it
	mac0=$(link_mac "$VM" veth0)
	mac1=$(link_mac "$FAR" veth1)
	ip netns exec "$VM" "$INJECT" --packet --dev veth0 --dmac "$mac1" --src 10.1.0.1 \
		--dst $FAR_IP --csum-start 20 --csum-offset 6 2>"$TMPD/ctl" ||
		unexpected "control: the frame out of veth0" "the injector failed"
	ip netns exec "$FAR" "$INJECT" --packet --dev veth1 --dmac "$mac0" --src $FAR_IP \
		--dst 10.1.0.1 --csum-start 20 --csum-offset 6 2>>"$TMPD/ctl" ||
		unexpected "control: the frame out of veth1" "the injector failed"
	if [ -n "$comp" ]; then
		cnt=$(($(topo_refused) - c0))
		# the sender sees the failed completion as a failed send
		if [ "$cnt" = 2 ]; then
			pass "$t control: a bad PARTIAL frame each way is refused at completion"
		else
			fail "$t control: refused $cnt, want 2 $(cat "$TMPD/ctl")"
		fi
		"$CG" completion off --quiet
		topo_down
		reliability "$t: ${rec[*]}; witnesses$w;" \
			"$(( ($(date +%s%N) - t0) / 1000000 )) ms"
		return
	fi
	cnt=$(vol_counters)
	expect_eq "counters of veth1 and veth0" "[1,0] [1,0]" "$cnt"
	expect_clean || unexpected "the injector said" "$(cat "$TMPD/ctl")"
	expect_verdict "$t control" "a bad PARTIAL frame each way is dropped and counted: $cnt"
	vol_guard off
	topo_down
	reliability "volume [$BACKEND]: ${rec[*]}; witnesses$w;" \
		"$(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
cg_case volume
cg_case volume completion

# --- GSO -----------------------------------------------------------------

# gso_send OUT SNIFF-ARGS -- INJECT-ARGS: capture on veth1 while the guest
# writes; $inject_rc is the injector's status. A capture given --count
# ends by it (or idle); one that expects nothing ends GRACE seconds after
# the last write: a tap write is handled before write() returns, so what
# has not arrived by then never will.
gso_send() {
	local out=$1 ready=$TMPD/gso.ready pid sargs=() idle=0
	shift
	while [ "$1" != -- ]; do
		[ "$1" = --count ] && idle=$SNIFF_IDLE
		sargs+=("$1")
		shift
	done
	shift
	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --timeout $idle --max-time 120000 \
		--ready-file "$ready" "${sargs[@]}" >"$out" 2>&1 &
	pid=$!
	wait_ready "$ready"
	ip netns exec "$VM" "$INJECT" --dev tap0 "$@" 2>"$out.inject"
	inject_rc=$?
	if [ $idle = 0 ]; then
		sleep "$GRACE"
		kill -TERM $pid 2>/dev/null
	fi
	wait $pid
}

# Helpers that start no process: under TCG each costs a good part of a
# second, jq more.
# sniff_read FILE: $got and $src from a capture's summary line
sniff_read() {
	local line

	got= src=
	while read -r line; do
		[[ $line =~ ^summary\ .*datagrams=([0-9]+).*\ sources=([^ ]+) ]] &&
			got=${BASH_REMATCH[1]} src=${BASH_REMATCH[2]}
	done <"$1"
}

# counters_of DEV NS: "dropped dropped_unreadable" of the guard on DEV
counters_of() {
	local j

	j=$("$CG" status "$1" --netns "$2" --json)
	[[ $j =~ \"dropped\":([0-9]+),\"dropped_unreadable\":([0-9]+) ]] &&
		echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# TX dropped of veth0 (ip -s -o: the 4th number after "TX:")
tx_dropped() {
	local l

	l=$(ip -n "$VM" -s -o link show veth0)
	[[ $l =~ TX:[^0-9]*[0-9]+\ +[0-9]+\ +[0-9]+\ +([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# payload_ok FILE N M: FILE is M payloads of N bytes as cg-inject writes
# them (byte i is i & 0xff); two processes, not one per byte (TCG)
payload_ok() {
	od -An -v -tu1 -w1 "$1" |
		awk -v n="$2" -v m="$3" '$1 != (NR - 1) % n % 256 { bad++ }
			END { exit !(NR == n * m && !bad) }'
}

# Frames with a virtio_net_hdr GSO request, through the tap into the
# forwarding path (TX checksum offload off on veth0, so the kernel segments
# them in software and completes each segment's checksum).
#   bad:  csum_start inside the IP header. The guard drops and counts each
#         frame at the tap. Without the guard, what the kernel does is
#         recorded (a note), never asserted: it differs between kernels.
#   good: csum_start at the L4 header. Each frame arrives as its segments,
#         every checksum right, every byte (UDP) as sent.
# A shape the tap refuses at write() (cg-inject exit 3) is a SKIP that
# says so: it never reaches the guard.
#
# Measured without the guard (skb:kfree_skb for the drop sites):
# - host 6.18 and Debian 6.1.187: the bad tcpv4 and tcpv6 frames are
#   accepted and then dropped in validate_xmit_skb (veth0 tx_dropped),
#   with TSO on or off: the GSO layer refuses csum_start != the transport
#   header ("net: drop bad gso csum_start and offset in virtio_net_hdr",
#   6.11, in the 6.1 stable line). Nothing arrives, nothing is written.
# - Debian 5.10.223, without that check: segmentation ignores csum_start,
#   so the segments arrive intact with right checksums; with TSO on the
#   frame crosses the veth unsegmented, still CHECKSUM_PARTIAL with the bad
#   csum_start, for whoever completes it later to write at csum_start + 16:
#   the TCP header for IPv4, the destination address for IPv6 at 22.
# - The tap takes TCPv6 GSO with csum_start below 40 (from the Ethernet
#   header) on 6.1 and 5.10 but refuses it on 6.18 (EINVAL), and refuses
#   UDP_L4 GSO altogether before 6.2 (no USO in the tap).
case_gso() {
	local t="gso [$BACKEND]" c=$GSO_FRAMES size=1000 pl=8000 segs shape s args
	local dst gsrc start off got src d0 d1 what rec= ok t0 comp

	t0=$(date +%s%N)
	if ! topo_up --mtu 1500 --tx-csum-off --ipv6; then
		command -v ethtool >/dev/null || { skip "$t: ethtool missing"; topo_down; return; }
		fail "$t: cannot build the topology"
		topo_down
		return
	fi
	segs=$((c * ((pl + size - 1) / size)))
	# shape:csum_start:csum_offset
	for s in tcpv4:20:16 udp_l4:20:6 tcpv6:40:16 tcpv6:22:16; do
		IFS=: read -r shape start off <<<"$s"
		args="--gso $shape --gso-size $size --payload $pl --count $c"
		dst=$FAR_IP gsrc=$GUEST_IP
		[ $shape = tcpv6 ] && { args="$args --ipv6"; dst=$FAR_IP6 gsrc=$GUEST_IP6; }
		t="gso/$shape@$start [$BACKEND]"

		# bad, no guard: record what this kernel does
		d0=$(tx_dropped)
		gso_send "$TMPD/gb-off" --dst $dst -- $args --csum-start $start --csum-offset $off
		d1=$(tx_dropped)
		sniff_read "$TMPD/gb-off"
		if [ "$inject_rc" = 3 ]; then
			what="the tap refuses it at write(): $(cat "$TMPD/gb-off.inject")"
		elif [ "${got:-0}" = 0 ] && [ $((d1 - d0)) = $c ]; then
			what="nothing arrived, veth0 tx_dropped +$c: dropped on veth0's transmit path"
		elif [ "${got:-0}" = 0 ]; then
			what="nothing arrived (veth0 tx_dropped +$((d1 - d0)))"
		elif [ "$src" != "$gsrc" ] || grep -q csum_ok=0 "$TMPD/gb-off"; then
			what="$got packets arrived CORRUPTED (sources $src,"
			what="$what $(grep -c csum_ok=0 "$TMPD/gb-off") bad checksums)"
		else
			what="$got packets arrived, intact"
		fi
		note "$t bad/off: $what"
		rec="$rec $shape@$start:${got:-0}"

		# bad, guard on: each frame dropped at the tap and counted once
		guard_on || { fail "$t bad/on: attach failed"; continue; }
		gso_send "$TMPD/gb-on" --dst $dst -- $args --csum-start $start --csum-offset $off
		sniff_read "$TMPD/gb-on"
		set -- $(counters_of tap0 "$VM")
		if [ "$inject_rc" = 3 ]; then
			skip "$t bad/on: the tap refuses this frame at write() (cg-inject exit 3:" \
				"$(cat "$TMPD/gb-on.inject")); it never reaches the guard, counters [$1,$2]"
		elif [ "$inject_rc" = 0 ] && [ "${got:-x}" = 0 ] && [ "$1" = $c ] && [ "$2" = 0 ]; then
			pass "$t bad/on: $c GSO frames dropped and counted [$1,$2], nothing arrived"
		else
			fail "$t bad/on: inject exit $inject_rc, arrived=$got, counters [$1,$2] (want 0 arrived, [$c,0])"
		fi
		guard_off

		# the good twin, guard on (and the module's completion guard), once
		# per shape: nothing counted, nothing refused
		[ $start = 22 ] && continue
		guard_on || { fail "$t good/on: attach failed"; continue; }
		comp=
		[ "$BACKEND" = kmod ] && "$CG" completion on --quiet && comp=$(topo_refused)
		gso_send "$TMPD/gg" --dst $dst --count $segs --bytes-out "$TMPD/gg.bytes" -- $args
		sniff_read "$TMPD/gg"
		[ -n "$comp" ] && comp=$(($(topo_refused) - comp)) && "$CG" completion off --quiet
		set -- $(counters_of tap0 "$VM")
		ok=1
		[ "$inject_rc" = 0 ] && [ "$got" = $segs ] && [ "$1,$2" = 0,0 ] || ok=0
		[ "${comp:-0}" = 0 ] || ok=0
		[ "$src" = "$gsrc" ] || ok=0
		[ "$(grep -c 'csum_ok=1' "$TMPD/gg")" = $segs ] || ok=0
		what="checksums right"
		if [ $shape = udp_l4 ]; then
			payload_ok "$TMPD/gg.bytes" $pl $c || ok=0
			what="checksums right, payload bytes as sent"
		fi
		if [ "$inject_rc" = 3 ]; then
			skip "$t good/on: the tap refuses this frame at write() (cg-inject exit 3:" \
				"$(cat "$TMPD/gg.inject")): this kernel takes no such GSO frame from a guest"
		elif [ $ok = 1 ]; then
			pass "$t good/on: $c GSO frames -> $got segments from $src, $what, counters [0,0]${comp:+, completion guard on: 0 refused}"
		else
			fail "$t good/on: inject exit $inject_rc, $got segments (want $segs) from $src," \
				"$(grep -c 'csum_ok=1' "$TMPD/gg") checksums right, counters [$1,$2]${comp:+, completion guard refused $comp}"
		fi
		guard_off
		rec="$rec ${shape}-good:${got:-0}"
	done
	topo_down
	reliability "gso [$BACKEND]: $c frames per shape of $pl bytes at gso_size $size;" \
		"arrived (bad with no guard, good with the guard):$rec;" \
		"$(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
cg_case gso
