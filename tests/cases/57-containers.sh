# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 57-containers.sh - a container's sender, over a veth, guarded by watch.
#
# The reproduction topology, and a "container": netns $CT joined to $VM by
# a veth pair made in $VM and its end moved into $CT, as Docker does. Inside
# $CT, with CAP_NET_RAW in that namespace only, an AF_PACKET socket with
# PACKET_VNET_HDR sends CHECKSUM_PARTIAL frames with csum_start inside the
# IP header. The veth keeps ip_summed across the pair; $VM forwards them out
# of veth0, where the completion site of the path writes the sum.
#
#   netns $CT                 netns $VM                          netns $FAR
#   cg-inject --packet        CGc0 10.2.0.1/24  fd02::1/64
#   --dev CGe0 ---> CGe0 ==== CGc0 ---> forward ---> veth0 ===== veth1 ---> cg-sniff
#   10.2.0.2, fd02::2                                 (MTU 576: frag;
#                                                      tx csum off: tx, tx6)
#
# Nothing guards CGc0 by hand: watch, given only a glob for this run's
# names (other suites' devices are not ours to touch), finds the pair as
# a container's link once its end has moved, and guards both ends.

CT=$CG_PFX-ct
CT_IP=10.2.0.2
CT_IP6=fd02::2

# ct_up PFX: the container's namespace and its veth, its end moved in
ct_up() {
	local p=$1
	ip netns add "$CT" && ip -n "$CT" link set lo up &&
	ip -n "$VM" link add ${p}c0 type veth peer name ${p}e0 &&
	ip -n "$VM" addr add 10.2.0.1/24 dev ${p}c0 &&
	ip -n "$VM" addr add fd02::1/64 dev ${p}c0 nodad &&
	ip -n "$VM" link set ${p}c0 up &&
	ip -n "$VM" link set ${p}e0 netns "$CT"
}

# ct_link PFX: the container's end up, addressed
ct_link() {
	local p=$1
	ip -n "$CT" addr add $CT_IP/24 dev ${p}e0 &&
	ip -n "$CT" addr add $CT_IP6/64 dev ${p}e0 nodad &&
	ip -n "$CT" link set ${p}e0 up
}

# ct_send OUT PFX [cg-inject args]: capture on veth1 while the container
# sends from its end of the pair; $inject_rc the sender's status. The
# capture waits 2 s at least for the first frame: on a loaded machine the
# sender (ip netns exec, then cg-inject) can take longer than SNIFF_IDLE
# to start. The frames go to the MAC of the host end, or of $CT_DMAC_DEV
# of $VM (the bridge the host end is a port of); to none where the host end
# has none (a netkit pair in l3 mode: cg-inject sends from the IP header on).
ct_send() {
	local out=$1 p=$2 ready=$TMPD/ready.ct pid mac idle=$((SNIFF_IDLE < 2000 ? 2000 : SNIFF_IDLE))
	shift 2
	mac=$(link_mac "$VM" ${CT_DMAC_DEV:-${p}c0})
	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst "$SNIFF_DST" --timeout $idle \
		--max-time $((idle * 20)) --ready-file "$ready" >"$out" 2>&1 &
	pid=$!
	wait_ready "$ready"
	ip netns exec "$CT" "$INJECT" --packet --dev ${p}e0 ${mac:+--dmac "$mac"} "$@" 2>"$out.inject"
	inject_rc=$?
	wait $pid
}

# ct_base T PATH PFX IP [cg-inject args]: the bad frame without a guard,
# sent from the container (ct_send), as this kernel treats it: a result of
# case T, and $base: corrupted (arrived from another source than IP),
# dropped-by-kernel (frag: IpFragFails counted it) or unknown
ct_base() {
	local t=$1 path=$2 p=$3 ip=$4 ff0 ff1 got src
	shift 4
	ff0=$(frag_fails)
	ct_send "$TMPD/ct-bad-off" $p "$@"
	ff1=$(frag_fails)
	got=$(sniff_datagrams "$TMPD/ct-bad-off")
	src=$(sniff_sources "$TMPD/ct-bad-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the packet socket refused the frame (rc $inject_rc): $(tail -1 "$TMPD/ct-bad-off.inject")"
		base=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != "$ip" ]; then
		pass "$t bad/off: the container's frame left veth0 with its source corrupted to $src"
		base=corrupted
	elif [ "${got:-0}" = 0 ] && [ $path = frag ] && [ "$ff1" -gt "$ff0" ]; then
		pass "$t bad/off: kernel already fixed on this path (dropped it, IpFragFails +$((ff1 - ff0)))"
		base=dropped-by-kernel
	else
		fail "$t bad/off: expected corruption or a kernel drop, got ${got:-0} datagrams from ${src:--}"
		base=unknown
	fi
}

# ct_status T PFX KIND: a result of case T: status, before any guard, lists
# PFXc0 of $VM unguarded, of KIND, its peer in $CT
ct_status() {
	local t=$1 p=$2 kind=$3 ino got

	ino=$(stat -L -c %i "/run/netns/$CT")
	got=$("$CG" status --netns "$VM" --json |
		jq -r ".[] | select(.device == \"${p}c0\") | \"\(.guarded) \(.kind) \(.peer_netns_ino)\"")
	if [ "$got" = "false $kind $ino" ]; then
		pass "$t status: ${p}c0 listed unguarded, kind $kind, peer in netns $ino (the container's)"
	else
		fail "$t status: ${p}c0 ${got:+reads '$got'}${got:-is not listed}, want 'false $kind $ino'"
	fi
}

# ct_down WPID PFX: the watch WPID stopped, PFXc0 and PFXe0 unguarded, the
# container's namespace and the topology gone
ct_down() {
	kill -TERM $1 2>/dev/null
	wait $1 2>/dev/null
	"$CG" detach $2c0 --netns "$VM" --quiet
	"$CG" detach $2e0 --netns "$CT" --quiet
	ip netns del "$CT" 2>/dev/null
	topo_down
}

# "dropped dropped_unreadable attached kind" of DEV in NS
ct_counters() {
	"$CG" status "$2" --netns "$1" --json |
		jq -r '"\(.dropped) \(.dropped_unreadable) \(.attached) \(.kind)"'
}

# The paths: frag (IPv4 fragmentation on forward), tx and tx6 (the transmit
# path of veth0 without TX checksum offload).
case_containers() {
	local path=$1
	local t="containers/$path [$BACKEND]" p=k$(($$ % 100000)) n=3
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15)
	local out=$TMPD/ct-$path.watch wpid args bad bad2= good src got base
	local SNIFF_DST=$FAR_IP ip=$CT_IP cnt t0 ms d

	case $path in
	frag) args="--mtu 576" ;;
	tx) args="--mtu 1500 --tx-csum-off" ;;
	tx6) args="--mtu 1500 --tx-csum-off --ipv6" ;;
	esac
	if [ $path = tx6 ]; then
		# 22: the source address; 38: the destination's
		bad="--ipv6 --src $CT_IP6 --dst $FAR_IP6 --csum-start 22 --csum-offset 6"
		bad2="--ipv6 --src $CT_IP6 --dst $FAR_IP6 --csum-start 38 --csum-offset 6"
		good="--ipv6 --src $CT_IP6 --dst $FAR_IP6"
		SNIFF_DST=$FAR_IP6 ip=$CT_IP6
	else
		bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6"
		good="--src $CT_IP --dst $FAR_IP"
	fi
	if ! topo_up $args; then
		command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
		fail "$t: cannot build the topology"
		topo_down
		return
	fi
	if ! ct_up $p || ! ct_link $p; then
		fail "$t: cannot make the container's namespace and veth"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi

	# status, before any guard: the host end is a container's link, named
	# by kind and by the container's namespace, and listed unguarded
	ct_status "$t" $p veth

	# no guard: what does this kernel do with the container's bad frame?
	ct_base "$t" $path $p $ip $bad --count $n --payload 1000

	# watch, for this run's names only, started with the pair already
	# there: both ends are guarded, a pair inside one namespace is not
	ip -n "$VM" link add ${p}s0 type veth peer name ${p}s1
	ip -n "$VM" link set ${p}s0 up
	ip -n "$VM" link set ${p}s1 up
	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	watch_line "$out" "^guarded ${p}c0 netns $VM " $lim || unexpected "${p}c0(host end)"
	watch_line "$out" "^guarded ${p}e0 netns $CT " $lim || unexpected "${p}e0(container end)"
	watch_line "$out" '^ready: ' $lim || unexpected "not-ready"
	grep -q " ${p}s[01] " "$out" && unexpected "same-namespace-pair(logged)"
	[ "$(watch_status ${p}s0 "$VM" attached)" = false ] || unexpected "${p}s0(guarded)"
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t watch" "both ends of the container's veth guarded, a veth within one namespace left alone"

	# the attack under watch: nothing arrives, the host end counts it
	ct_send "$TMPD/ct-bad-on" $p $bad --count $n --payload 1000
	[ -n "$bad2" ] && ct_send "$TMPD/ct-bad2-on" $p $bad2 --count $n --payload 1000
	got=$(sniff_datagrams "$TMPD/ct-bad-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	local want=$n
	[ -n "$bad2" ] && want=$((2 * n))
	if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$want 0 true veth" ]; then
		pass "$t bad/on: nothing arrived (without the guard: $base), ${p}c0 dropped $want${bad2:+ (csum_start 22 and 38)}"
	else
		fail "$t bad/on: arrived=${got:-0} counters/attached/kind '$cnt' rc $inject_rc (want 0 arrived, '$want 0 true veth')"
	fi
	ct_send "$TMPD/ct-good-on" $p $good --count $n --payload 1000
	got=$(sniff_datagrams "$TMPD/ct-good-on")
	src=$(sniff_sources "$TMPD/ct-good-on")
	cnt=$(ct_counters "$VM" ${p}c0)
	if [ "$got" = $n ] && [ "$src" = "$ip" ] && ! grep -q 'csum_ok=0' "$TMPD/ct-good-on" &&
	   [ "$cnt" = "$want 0 true veth" ]; then
		pass "$t good/on: $n intact from $src, counters unchanged"
	else
		fail "$t good/on: arrived=$got from $src counters '$cnt' (want $n intact from $ip)"
	fi

	# a container that comes later, made as Docker makes it: the pair in
	# the host's namespace, then one end moved; the kernel tells nothing of
	# the end left behind, which must be guarded all the same, before the
	# container's end is even up
	ip -n "$VM" link add ${p}c1 type veth peer name ${p}e1
	ip -n "$VM" link set ${p}c1 up
	t0=$(date +%s%N)
	ip -n "$VM" link set ${p}e1 netns "$CT"
	if watch_line "$out" "^guarded ${p}c1 netns $VM " $lim; then
		ms=$((($(date +%s%N) - t0) / 1000000))
		cnt=$(ct_counters "$VM" ${p}c1)
		if [[ $cnt == *" true veth" ]]; then
			pass "$t later: a container's veth made after watch started, its end moved away, guarded in ${ms} ms"
		else
			fail "$t later: watch said guarded, status says '$cnt'"
		fi
	else
		fail "$t later: ${p}c1 not guarded after its peer moved away; log: $(tr '\n' '|' <"$out")"
	fi

	# and made as a CNI plugin makes it, the peer born in the other
	# namespace: the kernel reports that end before the two are joined
	ip -n "$VM" link add ${p}c2 type veth peer name ${p}e2 netns "$CT"
	watch_line "$out" "^guarded ${p}c2 netns $VM " $lim || unexpected "not guarded" "${p}c2"
	watch_line "$out" "^guarded ${p}e2 netns $CT " $lim || unexpected "not guarded" "${p}e2"
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t peer-netns" "a pair made with its peer in the container's namespace: both ends guarded"

	kill -TERM $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	for d in c0 c1 c2; do "$CG" detach ${p}$d --netns "$VM" --quiet; done
	for d in e0 e1 e2; do "$CG" detach ${p}$d --netns "$CT" --quiet; done
	ip netns del "$CT" 2>/dev/null
	topo_down
}
cg_case containers frag
cg_case containers tx
cg_case containers tx6

# The same from a real container: Debian's podman runs a root this suite
# makes (the static cg-inject, nothing else) in $CT, the namespace of the
# veth above (--network ns:), with Docker's default capabilities, CAP_NET_RAW
# among them. watch guards the pair; the container's bad frames stop there.
# Podman's own network (a bridge and NAT rules in the host's namespace) is
# not used: the suite leaves the host's firewall as it found it.
CT_CAPS=CHOWN,DAC_OVERRIDE,FSETID,FOWNER,MKNOD,NET_RAW,SETGID,SETUID,SETFCAP,SETPCAP,NET_BIND_SERVICE,SYS_CHROOT,KILL,AUDIT_WRITE

# ct_podman OUT ARGS...: podman runs the root's cg-inject in $CT with ARGS;
# its output in OUT, its status returned
ct_podman() {
	local out=$1
	shift
	timeout 120 podman --runtime "$CT_RUNTIME" run --rm --network "ns:/run/netns/$CT" \
		--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--cap-drop all --cap-add "$CT_CAPS" --rootfs "$CT_ROOT" /cg-inject "$@" >"$out" 2>&1
}

# ct_podman_send OUT PFX [cg-inject args]: ct_send, the sender in podman
ct_podman_send() {
	local out=$1 p=$2 ready=$TMPD/ready.ct pid mac
	shift 2
	mac=$(link_mac "$VM" ${p}c0)
	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst "$SNIFF_DST" --timeout 5000 \
		--max-time 100000 --ready-file "$ready" >"$out" 2>&1 &
	pid=$!
	wait_ready "$ready"
	ct_podman "$out.inject" --packet --dev ${p}e0 --dmac "$mac" "$@"
	inject_rc=$?
	wait $pid
}

case_containers_podman() {
	local t="containers/podman [$BACKEND]" p=m$(($$ % 100000)) n=3 rt why= got src cnt
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15) out=$TMPD/ctp.watch wpid
	local bad="--src $CT_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"
	local good="--src $CT_IP --dst $FAR_IP --count $n --payload 1000"
	local CT_ROOT=$TMPD/ctroot CT_RUNTIME base

	command -v podman >/dev/null || { skip "$t: podman is not installed (make deps installs it)"; return; }
	[ -x "$BLD/tests/static/cg-inject" ] ||
		{ skip "$t: no static cg-inject for the container's root (make tools)"; return; }
	command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
	mkdir -p "$CT_ROOT"/{dev,proc,sys,etc,tmp} && cp "$BLD/tests/static/cg-inject" "$CT_ROOT/" ||
		{ fail "$t: cannot make the container's root"; return; }
	if ! topo_up --mtu 1500 --tx-csum-off || ! ct_up $p || ! ct_link $p; then
		fail "$t: cannot build the topology"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	# the runtime: crun, podman's first choice, refuses a host whose
	# cgroups are mixed v1 and v2 (this machine's); runc takes it
	for rt in crun runc; do
		command -v $rt >/dev/null || { why="$why; $rt: not installed"; continue; }
		CT_RUNTIME=$rt
		if ct_podman "$TMPD/ctp.try" --help; then
			break
		fi
		why="$why; $rt: $(grep -m1 -i error "$TMPD/ctp.try" || tail -1 "$TMPD/ctp.try")"
		CT_RUNTIME=
	done
	if [ -z "$CT_RUNTIME" ]; then
		skip "$t: podman cannot run a container here${why}"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	[ -n "$why" ] && note "$t: podman runs with $CT_RUNTIME$why"

	# no guard: the container's own packet socket, as the kernel treats it
	ct_podman_send "$TMPD/ctp-bad-off" $p $bad
	got=$(sniff_datagrams "$TMPD/ctp-bad-off")
	src=$(sniff_sources "$TMPD/ctp-bad-off")
	if [ "$inject_rc" != 0 ]; then
		fail "$t bad/off: the container could not send: $(tail -1 "$TMPD/ctp-bad-off.inject")"
		base=unknown
	elif [ "${got:-0}" -gt 0 ] && [ "$src" != "$CT_IP" ]; then
		pass "$t bad/off: a podman container ($CT_RUNTIME, Docker's default capabilities) sent frames that left veth0 with the source corrupted to $src"
		base=corrupted
	else
		fail "$t bad/off: expected corruption on the transmit path, got ${got:-0} datagrams from ${src:--}"
		base=unknown
	fi
	# the capability is what it takes: without CAP_NET_RAW no packet socket
	if CT_CAPS=${CT_CAPS/NET_RAW,/} ct_podman "$TMPD/ctp-noraw" --packet --dev ${p}e0 \
		--dmac 02:00:00:00:00:01 --csum-start 20 --csum-offset 6; then
		fail "$t no-raw: without CAP_NET_RAW the container still sent"
	elif grep -q 'packet socket.*Operation not permitted' "$TMPD/ctp-noraw"; then
		pass "$t no-raw: without CAP_NET_RAW the container cannot open the packet socket"
	else
		fail "$t no-raw: the container failed otherwise: $(tail -1 "$TMPD/ctp-noraw")"
	fi

	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$out.err" &
	wpid=$!
	if ! watch_line "$out" "^guarded ${p}c0 netns $VM " $lim; then
		fail "$t watch: the container's veth was not guarded; log: $(tr '\n' '|' <"$out")"
	else
		ct_podman_send "$TMPD/ctp-bad-on" $p $bad
		got=$(sniff_datagrams "$TMPD/ctp-bad-on")
		cnt=$(ct_counters "$VM" ${p}c0)
		if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ "$cnt" = "$n 0 true veth" ]; then
			pass "$t bad/on: under watch nothing arrived (without it: $base), the host end dropped $n"
		else
			fail "$t bad/on: arrived=${got:-0} counters/attached/kind '$cnt' rc $inject_rc: $(tail -1 "$TMPD/ctp-bad-on.inject")"
		fi
		ct_podman_send "$TMPD/ctp-good-on" $p $good
		got=$(sniff_datagrams "$TMPD/ctp-good-on")
		src=$(sniff_sources "$TMPD/ctp-good-on")
		if [ "$inject_rc" = 0 ] && [ "$got" = $n ] && [ "$src" = "$CT_IP" ] &&
		   ! grep -q 'csum_ok=0' "$TMPD/ctp-good-on"; then
			pass "$t good/on: $n good frames from the container arrived intact"
		else
			fail "$t good/on: arrived=$got from $src rc $inject_rc (want $n intact from $CT_IP)"
		fi
	fi
	ct_down $wpid $p
}
cg_case containers_podman
