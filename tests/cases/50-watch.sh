# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 50-watch.sh - csum-guard watch: every matching tap, in every namespace, now and later.

# watch_line OUT PATTERN SECONDS: until the watcher's log has a line matching
# PATTERN (grep -E); 0 when it came.
watch_line() {
	local end=$((SECONDS + $3))

	until grep -qsE "$2" "$1"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# watch_status DEV NS FIELD
watch_status() {
	"$CG" status "$1" --netns "$2" --json 2>/dev/null | jq -r ".$3"
}

# unshare -n sleep, once its namespace is not ours any more
watch_unnamed() {
	unshare -n sleep 600 &
	_wpid=$!
	while [ "$(readlink /proc/$_wpid/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do
		sleep 0.05
	done
}

watch_refs() { cat /sys/module/csum_guard/refcnt 2>/dev/null || echo 0; }

# The watcher's file descriptors on namespace inode INO.
watch_holds() { ls -l /proc/$1/fd 2>/dev/null | grep -c "net:\[$2\]"; }

case_watch() {
	local t="watch [$BACKEND]" p=cw$(($$ % 100000)) ns=$CG_PFX-w ns2=$CG_PFX-w2
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 10)
	local out=$TMPD/watch.out u upid u2 upid2 wpid dev rc t0 ms times="" i
	local ino2 ino3 ok=1 p0 pins0 r0 inos left

	p0=$(prog_count)
	pins0=$(pin_list)
	r0=$(watch_refs)

	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	# before the watcher: a tap in a named namespace and one in an unnamed one
	if ! { ip netns add $ns && ip -n $ns link set lo up &&
	       ip -n $ns tuntap add dev ${p}a0 mode tap vnet_hdr; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null
		return
	fi
	watch_unnamed
	upid=$_wpid u=/proc/$_wpid/ns/net
	nsenter --net=$u ip tuntap add dev ${p}b0 mode tap vnet_hdr

	: >"$out"
	# its own taps only: other suites may run on this host
	"$CG" watch --backend "$BACKEND" --match "$p*,${p}zz*" --match 'cg-no-match*' \
		>"$out" 2>"$TMPD/watch.err" &
	wpid=$!
	for dev in ${p}a0 ${p}b0; do
		watch_line "$out" "^guarded $dev netns " $lim || unexpected "$dev (there at start)" "not guarded"
	done

	# later: a veth and a tap the glob leaves out, then new taps everywhere
	ip -n $ns link add ${p}v0 type veth peer name ${p}v1
	ip -n $ns tuntap add dev x${p} mode tap vnet_hdr
	ip -n $ns tuntap add dev y${p} mode tap vnet_hdr
	t0=$(date +%s%N)
	ip -n $ns link set y${p} name ${p}r0	# a rename that now matches
	ip -n $ns tuntap add dev ${p}a1 mode tap vnet_hdr
	ip -n $ns link set ${p}a1 up
	nsenter --net=$u ip tuntap add dev ${p}b1 mode tap vnet_hdr
	nsenter --net=$u ip link set ${p}b1 up
	ip netns add $ns2
	ip -n $ns2 tuntap add dev ${p}c0 mode tap vnet_hdr
	watch_unnamed
	upid2=$_wpid u2=/proc/$_wpid/ns/net
	nsenter --net=$u2 ip tuntap add dev ${p}d0 mode tap vnet_hdr
	for dev in ${p}r0 ${p}a1 ${p}b1 ${p}c0 ${p}d0; do
		if watch_line "$out" "^guarded $dev netns " $lim; then
			ms=$((($(date +%s%N) - t0) / 1000000))
			times="$times ${dev#$p}=${ms}ms"
		else
			unexpected "$dev (made later)" "not guarded"
		fi
	done
	# the status, not the log, is the proof
	for dev in ${p}a0:$ns ${p}r0:$ns ${p}a1:$ns ${p}b0:$u ${p}b1:$u ${p}c0:$ns2 ${p}d0:$u2; do
		expect_eq "${dev%%:*}: status's attached, backend" "true $BACKEND" \
			"$("$CG" status ${dev%%:*} --netns ${dev#*:} --json | jq -r '"\(.attached) \(.backend)"')"
	done
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "2 taps there at start, 4 made later (one in a new named, one in a new unnamed namespace) and 1 renamed to match: all guarded; ms since the first was made:$times"

	# the taps were made before a1, and events come in order: they were seen
	for dev in ${p}v0 ${p}v1 x${p}; do
		expect_eq "$dev: attached" false "$(watch_status $dev $ns attached)"
		grep -q " $dev " "$out" && unexpected "$dev" "expected nothing in the log, saw it logged"
	done
	expect_verdict "$t" "a veth whose name matches and a tap whose name does not stay unguarded"

	# a bad frame through two of the new taps: dropped and counted
	for dev in ${p}a1:/run/netns/$ns ${p}b1:$u; do
		nsenter --net=${dev#*:} "$INJECT" --dev ${dev%%:*} --csum-start 20 --csum-offset 6 \
			--count 3 --payload 100 2>>"$TMPD/watch.err" || unexpected "${dev%%:*}: inject" "it failed"
		expect_eq "${dev%%:*}: dropped, unreadable" "3 0" "$("$CG" status ${dev%%:*} --netns ${dev#*:} --json |
			jq -r '"\(.dropped) \(.dropped_unreadable)"')"
	done
	expect_verdict "$t" "3 bad frames into each of two new taps: all dropped, dropped=3"

	# namespaces that die are let go: the watcher holds no socket or fd on them
	ino2=$(stat -L -c %i /run/netns/$ns2)
	ino3=$(stat -L -c %i $u2)
	ip netns del $ns2
	kill $upid2
	wait $upid2 2>/dev/null
	for i in $(seq $((lim * 10))); do
		[ "$(watch_holds $wpid $ino2)$(watch_holds $wpid $ino3)" = 00 ] && break
		sleep 0.1
	done
	[ "$(watch_holds $wpid $ino2)$(watch_holds $wpid $ino3)" = 00 ] &&
		[ "$(grep -c '^forgot netns ' "$out")" -ge 2 ] || ok=0

	# SIGTERM: exit 0, the guards stay
	kill -TERM $wpid
	for i in $(seq $((lim * 10))); do
		kill -0 $wpid 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $wpid 2>/dev/null && note "watch ignored SIGTERM"
	wait $wpid
	rc=$?
	if [ $ok = 1 ] && [ $rc = 0 ] && tail -1 "$out" | grep -q '^stopped on SIGTERM' &&
	   [ "$(watch_status ${p}a1 $ns attached)" = true ] && [ ! -s "$TMPD/watch.err" ]; then
		pass "$t: dead namespaces let go; SIGTERM: exit 0, guards kept, nothing on stderr"
	else
		fail "$t: namespaces let go=$ok, exit $rc, last: $(tail -1 "$out"), stderr:" \
			"$(head -3 "$TMPD/watch.err" | tr '\n' '|')"
	fi

	for dev in ${p}a0:$ns ${p}r0:$ns ${p}a1:$ns ${p}b0:$u ${p}b1:$u; do
		"$CG" detach ${dev%%:*} --netns ${dev#*:} --quiet
	done
	inos="$(stat -L -c %i /run/netns/$ns) $(stat -L -c %i $u) $ino2 $ino3"
	kill $upid
	wait $upid 2>/dev/null
	ip netns del $ns
	# the kernel frees a dead namespace's devices later: then status drops their state
	for i in $(seq $((lim * 5))); do
		"$CG" status --json >/dev/null
		[ "$(prog_count)" = "$p0" ] && [ "$(pin_list)" = "$pins0" ] &&
			[ "$(watch_refs)" = "$r0" ] && break
		sleep 0.2
	done
	# what the guards in the namespaces that died left (c0, d0: never
	# detached), the watcher took (the module's references: other runs
	# on this host hold none, the pins and programs of other runs may come
	# and go)
	left=
	for i in $inos; do
		[ -e /sys/fs/bpf/csum_guard/$i ] && left="$left $(find /sys/fs/bpf/csum_guard/$i | tr '\n' ' ')"
	done
	if [ -z "$left" ] && [ "$(watch_refs)" = "$r0" ]; then
		pass "$t: nothing left of its guards: the pins of the namespaces that died were pruned, module references back to $r0"
	else
		fail "$t: left after the case: pins:${left:- none}; module references $(watch_refs), were $r0"
	fi
}
cg_case watch

# watch with no options, started before any device exists, on a host that
# then gets a tap, a macvtap and a VXLAN endpoint: each guarded the way its
# guest's frames take, so that no bad frame gets through any of them, and
# good frames do. A device the backend cannot guard here (a macvtap under
# the module on a kernel without a netfilter egress hook) must be covered by
# the completion guard watch switched on. Everything watch guarded is
# detached after.
case_watch_kinds() {
	local t="watch/kinds [$BACKEND]" out=$TMPD/wk.out wpid n=3 rows= d ns kind
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 90 || echo 15) comp c0 got src
	local GUEST_IP=$GUEST_IP INJECT_DEV GDEV TOPO_ARGS IHDR

	command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
	topo_down
	: >"$out"
	"$CG" watch >"$out" 2>"$TMPD/wk.err" &
	wpid=$!
	# with no options it says first whether the completion guard is on
	watch_line "$out" '^completion guard ' $lim || unexpected "watch's start" "expected a 'completion guard' line, saw none"
	comp=$(grep -c '^completion guard on$' "$out")
	if ! topo_up --mtu 1500 --tx-csum-off; then
		fail "$t: cannot build the topology"
	else
		for kind in tap macvtap vxlan; do
			GUEST_IP=$GUEST_IP
			if [ $kind = tap ]; then
				GDEV=tap0 INJECT_DEV=tap0 TOPO_ARGS= IHDR=14
			elif ! topo_kind_up $kind; then
				unexpected "$kind" "set-up failed"
				continue
			fi
			if watch_line "$out" "^guarded $GDEV netns $VM " $lim; then
				d=guarded
				rows="$rows $GDEV:$(sed -n "s/^guarded $GDEV netns $VM (\([a-z]*\),.*/\1/p" "$out")"
			elif [ "$comp" = 1 ] && watch_line "$out" "^cannot guard $GDEV netns $VM: .*completion guard covers it" 1; then
				d=completion
				rows="$rows $GDEV:completion"
			else
				unexpected "$GDEV" "not guarded: $(grep " $GDEV " "$out" | head -1)"
				continue
			fi
			c0=$([ "$comp" = 1 ] && topo_refused || echo 0)
			inject_sniff "$TMPD/wk-bad" $TOPO_ARGS --csum-start $((IHDR + 6)) --csum-offset 6 \
				--count $n --payload 1000
			if [ $d = guarded ]; then
				set -- $("$CG" status $GDEV --netns "$VM" --json | jq -r .dropped)
			else
				set -- $(($(topo_refused) - c0))
			fi
			expect_eq "$GDEV: the bad frames' injection" 0 "$inject_rc"
			expect_drop "$GDEV: the bad frames" "$TMPD/wk-bad"
			expect_eq "$GDEV: bad frames counted ($d)" $n "$1"
			inject_sniff "$TMPD/wk-good" $TOPO_ARGS --count $n --payload 1000
			expect_pass "$GDEV: the good frames" "$TMPD/wk-good" $n "$GUEST_IP"
		done
	fi
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "watch with no options, started first; tap, macvtap and VXLAN endpoint made after, guarded by$rows; $n bad frames through each stopped and counted, good ones intact"
	# leave nothing: every guard watch made, and the completion guard
	sed -n 's/^guarded \([^ ]*\) netns \([^ ]*\) .*/\1 \2/p' "$out" | while read -r d ns; do
		"$CG" detach "$d" --netns "$ns" --quiet
	done
	[ "$comp" = 1 ] && "$CG" completion off --quiet
	topo_down
}
cg_case watch_kinds

# The watcher as a Type=notify service: it tells the service manager
# READY=1 (sd_notify, to $NOTIFY_SOCKET) only after every device there at
# its start is guarded, so that the VM managers ordered after it start no
# guest before. Three taps exist first; their "guarded" lines come before
# "ready:" in the log, READY=1 reaches the socket, and the taps read
# guarded. Without NOTIFY_SOCKET it says ready all the same.
case_watch_ready() {
	local t="watch/ready [$BACKEND]" p=cr$(($$ % 100000)) ns=$CG_PFX-wr out=$TMPD/wr.out
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 120 || echo 20) sock=$TMPD/notify.sock
	local rpid wpid i got line

	if ! { ip netns add $ns && for i in 0 1 2; do
		ip -n $ns tuntap add dev ${p}t$i mode tap vnet_hdr || exit 1; done; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null
		return
	fi
	"$SDRECV" "$sock" $lim >"$TMPD/wr.sd" 2>&1 &
	rpid=$!
	while [ ! -S "$sock" ] && kill -0 $rpid 2>/dev/null; do sleep 0.05; done
	NOTIFY_SOCKET=$sock "$CG" watch --backend "$BACKEND" --match "$p*" --no-completion \
		>"$out" 2>"$TMPD/wr.err" &
	wpid=$!
	wait $rpid || unexpected "READY=1" "expected within ${lim}s, saw $(tr '\n' '|' <"$TMPD/wr.sd")"
	# in the log: each tap guarded, then ready, which counts them
	line=$(grep -n '^ready: ' "$out" | head -1)
	expect_match "the ready line" '^ready: 3 guarded, 0 failed, in [0-9]+ network namespaces$' "${line#*:}"
	for i in 0 1 2; do
		got=$(grep -n "^guarded ${p}t$i netns $ns " "$out" | cut -d: -f1)
		[ -n "$got" ] && [ "$got" -lt "${line%%:*}" ] ||
			unexpected "${p}t$i" "expected guarded before the ready line (${line%%:*}), saw line '$got'"
		expect_eq "${p}t$i: attached" true "$(watch_status ${p}t$i $ns attached)"
	done
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	grep -q 'cannot tell the service manager' "$out" &&
		unexpected "the log" "expected no complaint, saw $(grep -m1 'cannot tell' "$out")"

	# no service manager: ready all the same, and nothing said about it
	# (the first watcher's log goes first: the second's shell truncates
	# it only once it has forked, and its ready line must not be taken)
	rm -f "$out"
	env -u NOTIFY_SOCKET "$CG" watch --backend "$BACKEND" --match "$p*" --no-completion \
		>"$out" 2>>"$TMPD/wr.err" &
	wpid=$!
	watch_line "$out" '^ready: 3 guarded, 0 failed' $lim ||
		unexpected "without NOTIFY_SOCKET" "expected a ready line, saw none"
	expect_grep "the second watcher's log" '^already guarded '"${p}t0 " "$out"
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	grep -q 'cannot tell' "$out" &&
		unexpected "the second watcher's log" "expected no complaint, saw $(grep -m1 'cannot tell' "$out")"
	for i in 0 1 2; do
		"$CG" detach ${p}t$i --netns $ns --quiet
	done
	ip netns del $ns
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "READY=1 at $(cut -d' ' -f1 "$TMPD/wr.sd" | tail -1)s, after the 3 taps there at start were guarded (log order, status); without NOTIFY_SOCKET ready all the same"
}
cg_case watch_ready

# watch --log-drops: the guards it makes report their drops, and it writes
# them into its own log, by namespace and device name, with the offsets in
# the frame (no tracefs, no kernel log needed).
case_watch_log_drops() {
	local t="watch/log-drops [$BACKEND]" p=cl$(($$ % 100000)) ns=$CG_PFX-wl out=$TMPD/wl.out
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 120 || echo 20) wpid want

	if ! { ip netns add $ns && ip -n $ns tuntap add dev ${p}t0 mode tap vnet_hdr &&
	       ip -n $ns link set ${p}t0 up; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null
		return
	fi
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion --log-drops \
		>"$out" 2>"$TMPD/wl.err" &
	wpid=$!
	watch_line "$out" '^ready: 1 guarded, 0 failed' $lim || unexpected "watch" "expected ready, saw no ready line"
	expect_eq "${p}t0: log_drops" true "$(watch_status ${p}t0 $ns log_drops)"
	want="drop: ${p}t0 netns $ns [(]$BACKEND, ingress[)]: dropped an IPv4 packet of [0-9]+ bytes, checksum start inside the IP headers: csum_start 20, IP header at 14, ihl 5"
	# the watcher finds a ring made after it started within a second: send
	# until a line comes, a bad frame a second
	for i in $(seq $lim); do
		ip netns exec $ns "$INJECT" --dev ${p}t0 --csum-start 20 --csum-offset 6
		watch_line "$out" "^$want\$" 1 && break
	done
	grep -qE "^$want\$" "$out" || unexpected "the drop line" "expected /^$want\$/ in the log, saw none"
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	"$CG" detach ${p}t0 --netns $ns --quiet
	ip netns del $ns
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "a drop on the tap it guarded is in its log: $(grep -m1 '^drop: ' "$out")"
}
cg_case watch_log_drops

# packaging/libvirt-qemu-hook invoked as libvirt invokes it: `HOOK GUEST OP
# SUBOP -` with the domain XML on stdin. Only "start begin" acts: it guards
# the host device of each interface of a type that has one (network,
# bridge, ethernet, direct), a name with an XML entity included, and
# nothing else the XML names (a disk's target, a user interface's); a
# device it cannot guard makes it exit non-zero with one line, so that
# libvirt does not start the guest.
case_libvirt_hook() {
	local t="libvirt-hook [$BACKEND]" p=lh$(($$ % 100000)) hook=$TOP/packaging/libvirt-qemu-hook
	local bin=$TMPD/hookbin xml=$TMPD/dom.xml d rc guarded unguarded

	mkdir -p "$bin" && ln -sf "$CG" "$bin/csum-guard"
	for d in ${p}n0 ${p}b0 ${p}e0 ${p}d0 "${p}&1" ${p}vd ${p}us; do
		ip tuntap add dev "$d" mode tap vnet_hdr && ip link set "$d" up || unexpected "set-up" "$d"
	done
	cat >"$xml" <<EOD
<domain type='kvm' id='7'>
  <name>cg-hook-test</name>
  <devices>
    <disk type='file' device='disk'>
      <source file='/var/lib/libvirt/images/x.qcow2'/>
      <target dev='${p}vd' bus='virtio'/>
    </disk>
    <interface type='network'>
      <mac address='52:54:00:00:00:01'/>
      <source network='default' portid='7a1f' bridge='virbr0'/>
      <target dev='${p}n0'/>
      <model type='virtio'/>
    </interface>
    <interface type="bridge">
      <source bridge='br0'/>
      <target dev="${p}b0"/>
    </interface>
    <interface type='ethernet'>
      <target dev='${p}e0' managed='no'/>
    </interface>
    <interface type='direct'>
      <source dev='eth0' mode='bridge'/>
      <target dev='${p}d0'/>
    </interface>
    <interface type='ethernet'>
      <target dev='${p}&amp;1'/>
    </interface>
    <interface type='user'>
      <target dev='${p}us'/>
    </interface>
  </devices>
</domain>
EOD
	guarded="${p}n0 ${p}b0 ${p}e0 ${p}d0 ${p}&1" unguarded="${p}vd ${p}us"
	# the other operations do nothing
	for op in "prepare begin" "started begin" "stopped end" "release end"; do
		PATH=$bin:$PATH "$hook" cg-hook-test $op - <"$xml" >"$TMPD/hook.out" 2>&1 ||
			unexpected "$op" "expected exit 0, saw exit $?"
	done
	for d in $guarded; do
		expect_eq "$d: attached before start" false "$("$CG" status "$d" --json | jq -r .attached)"
	done
	PATH=$bin:$PATH "$hook" cg-hook-test start begin - <"$xml" >"$TMPD/hook.out" 2>&1 ||
		unexpected "start begin" "expected exit 0, saw exit $?: $(tr '\n' '|' <"$TMPD/hook.out")"
	for d in $guarded; do
		expect_eq "$d: attached after start" true "$("$CG" status "$d" --json | jq -r .attached)"
	done
	for d in $unguarded; do
		expect_eq "$d: attached after start" false "$("$CG" status "$d" --json | jq -r .attached)"
	done
	"$INJECT" --dev ${p}n0 --csum-start 20 --csum-offset 6 --count 2 --payload 100 2>/dev/null
	expect_eq "${p}n0: dropped after 2 bad frames" 2 "$("$CG" status ${p}n0 --json | jq -r .dropped)"
	# a device that is not there: refuse the start, in one line
	sed "s/'${p}e0'/'${p}gone'/" "$xml" >"$TMPD/dom2.xml"
	PATH=$bin:$PATH "$hook" cg-hook-test start begin - <"$TMPD/dom2.xml" >"$TMPD/hook.out" 2>&1
	rc=$?
	expect_ne "a missing device: exit status" 0 $rc
	expect_eq "a missing device: lines naming it ($(tr '\n' '|' <"$TMPD/hook.out"))" 1 \
		"$(grep -c "cannot guard ${p}gone of guest cg-hook-test: not starting it" "$TMPD/hook.out")"
	for d in $guarded $unguarded; do
		"$CG" detach "$d" --quiet 2>/dev/null
		ip link del "$d" 2>/dev/null
	done
	expect_verdict "$t" "start begin guarded the 5 interfaces' devices (network, bridge, ethernet, direct, a name written &amp;) and not a disk's or a user interface's target; 2 bad frames dropped; other operations did nothing; a missing device refused the start in one line"
}
cg_case libvirt_hook

# A watcher that could guard nothing fails at once with one line, rather
# than logging "cannot guard" for ever with exit 0: asked for a backend
# that probe says cannot run here (kmod where modules do not load, bpf
# where the kfunc is missing).
case_watch_unable() {
	local t="watch/unable [$BACKEND]" p b= why rc lines

	p=$("$CG" probe --json)
	if [ "$(jq -r .bpf_unavailable <<<"$p")" != null ]; then
		b=bpf why=$(jq -r .bpf_unavailable <<<"$p")
	elif [ "$(jq -r .kmod_unavailable <<<"$p")" != null ]; then
		b=kmod why=$(jq -r .kmod_unavailable <<<"$p")
	else
		skip "$t: both backends can run on this kernel"
		return
	fi
	timeout 20 "$CG" watch --backend $b >"$TMPD/wu.out" 2>"$TMPD/wu.err"
	rc=$?
	lines=$(wc -l <"$TMPD/wu.err")
	if [ $rc = 1 ] && [ "$lines" = 1 ] && grep -q "^csum-guard: cannot watch: " "$TMPD/wu.err" &&
	   [ ! -s "$TMPD/wu.out" ]; then
		pass "$t: --backend $b ($why): exit 1 at once: $(cat "$TMPD/wu.err")"
	else
		fail "$t: --backend $b: exit $rc, $lines stderr lines: $(tr '\n' '|' <"$TMPD/wu.err") stdout: $(head -c 200 "$TMPD/wu.out")"
	fi
}
cg_case watch_unable

# A guard does not follow its device out of its namespace, nor survive the
# device's deletion: watch guards it again when it comes back, moved back
# into a watched namespace or recreated under the same name, as it guards
# a new tap (issue 27).
case_watch_comeback() {
	local t="watch/comeback [$BACKEND]" p=cb$(($$ % 100000)) a=$CG_PFX-wca b=$CG_PFX-wcb
	local out=$TMPD/wcb.out lim=$([ -n "${CG_GUEST:-}" ] && echo 120 || echo 20) wpid i

	if ! { ip netns add $a && ip netns add $b && ip -n $a tuntap add dev ${p}t0 mode tap vnet_hdr &&
	       ip -n $a link set ${p}t0 up; }; then
		fail "$t: set-up"
		ip netns del $a 2>/dev/null
		ip netns del $b 2>/dev/null
		return
	fi
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>"$TMPD/wcb.err" &
	wpid=$!
	watch_line "$out" '^ready: 1 guarded' $lim || unexpected "watch" "expected ready, saw no ready line"
	# deleted and made again under its name
	ip -n $a link del ${p}t0
	ip -n $a tuntap add dev ${p}t0 mode tap vnet_hdr && ip -n $a link set ${p}t0 up
	for i in $(seq $((lim * 10))); do
		[ "$(watch_status ${p}t0 $a attached)" = true ] && break
		sleep 0.1
	done
	expect_eq "recreated: attached" true "$(watch_status ${p}t0 $a attached)"
	# away to another namespace (guarded there: watch watches it too), and back
	ip -n $a link set ${p}t0 netns $b && ip -n $b link set ${p}t0 up
	watch_line "$out" "^guarded ${p}t0 netns $b " $lim || unexpected "moved away" "expected guarded in $b, saw no such line"
	ip -n $b link set ${p}t0 netns $a && ip -n $a link set ${p}t0 up
	for i in $(seq $((lim * 10))); do
		[ "$(watch_status ${p}t0 $a attached)" = true ] && break
		sleep 0.1
	done
	expect_eq "moved back: attached" true "$(watch_status ${p}t0 $a attached)"
	# a bad frame stops at the guard: IP in the namespace never sees it, a
	# good one it does
	local r0 r1 r2
	r0=$(ip netns exec $a awk '/^Ip:/ { if (h++) print $4 }' /proc/net/snmp)
	ip netns exec $a "$INJECT" --dev ${p}t0 --csum-start 20 --csum-offset 6
	r1=$(ip netns exec $a awk '/^Ip:/ { if (h++) print $4 }' /proc/net/snmp)
	ip netns exec $a "$INJECT" --dev ${p}t0
	r2=$(ip netns exec $a awk '/^Ip:/ { if (h++) print $4 }' /proc/net/snmp)
	expect_counter "InReceives after the bad frame" 0 "$r0" "$r1"
	expect_counter "InReceives after the good frame" 1 "$r1" "$r2"
	# one guard, the one its namespace's status shows: it counted the drop
	expect_eq "dropped" 1 "$(watch_status ${p}t0 $a dropped)"
	expect_eq "'guarded' lines in the log for $a" 3 "$(grep -c "^guarded ${p}t0 netns $a " "$out")"
	if [ "$BACKEND" = bpf ]; then
		expect_eq "csum_guard programs on the tcx hook" 1 \
			"$(ip netns exec $a "$BLD/tests/cg-hooks" ${p}t0 | grep -c '^tcx_ingress .* csum_guard$')"
	fi
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	"$CG" detach ${p}t0 --netns $a --quiet
	"$CG" detach --all --netns $b --quiet
	ip netns del $a
	ip netns del $b
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "a tap recreated under its name and one moved away and back are guarded again, by one guard, which counts the bad frame it stops before IP; a good one reaches IP"
}
cg_case watch_comeback
