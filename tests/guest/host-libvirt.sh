#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-libvirt.sh - Debian's own libvirt and the csum-guard
# packages on a booted Debian host (tests/cases/94-libvirt.sh), run by the
# host itself (tests/guest/boot.sh --libvirt: /cg/run, one boot)
#
#   br0 (10.0.0.1) --- vnetN: g1's <interface type='bridge'>, 2 queues
#   dummy0 -+- macvtapN: g2's <interface type='direct' mode='bridge'>
#           +- mv0 (macvlan, bridge mode, 10.0.1.1)
#   g3: one bridge interface, started when the module cannot load
#
# The domains are TCG guests without a disk, started --paused: libvirt has
# made their devices and QEMU holds them, no guest code runs; the test
# writes the guest's frames into QEMU's tap and macvtap itself (cg-inject
# opens another queue of each).
#
#  1. apt installs both packages (DKMS builds the module); the operator
#     installs the libvirt hook in /etc/libvirt/hooks/qemu.d/ and restarts
#     libvirtd. The watcher is stopped: what guards, the hook does.
#  2. virsh start g1, g2: at "start begin" (a recording hook that libvirt
#     runs after csum-guard's, by name) each device is guarded by the module
#     and QEMU has not started; bad frames dropped and counted, good ones
#     reach a UDP socket intact.
#  3. The opt-in drop-in (libvirtd requires the watcher) installed; libvirtd
#     stopped (the guests run on), the guests' guards detached; starting
#     libvirtd starts the watcher first, ready before libvirtd runs; at
#     "reconnect begin" the devices are guarded again (by the watcher: the
#     hook does nothing then); traffic again. Restarting the watcher
#     restarts libvirtd, the guests run on.
#  4. The module cannot load (modprobe's install rule /bin/false, as a
#     kernel refusing it would): with the drop-in, libvirtd does not start
#     (its dependency fails, the watcher not ready); without it, libvirtd
#     starts, and `virsh start g3` is refused with csum-guard's reason in
#     virsh's error; once the module loads again, g3 starts guarded.
#
# /cg/params has VERSION, BAD, GOOD. Results: PASS/FAIL lines in
# /cg/results, commands' output in /cg/log; the last line of a finished run
# is "# [TAG] end".

set -u
C=/cg
D=/usr/local/lib/cg-e2e
S=/var/lib/cg-e2e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C
. "$C/params"
TAG=debian$(. /etc/os-release && echo "$VERSION_ID")-libvirt
mkdir -p "$S" "$D"
: >"$C/results"
: >"$C/log"

pass() { echo "PASS [$TAG] $*" >>"$C/results"; }
fail() { echo "FAIL [$TAG] $*" >>"$C/results"; }
note() { echo "# [$TAG] $*" >>"$C/results"; }
log() { echo "== $(cut -d' ' -f1 /proc/uptime) s: $*" >>"$C/log"; }
run() { log "$*"; "$@" >>"$C/log" 2>&1; }

finish()
{
	run virsh list --all
	for g in g1 g2 g3; do virsh destroy "$g" >/dev/null 2>&1; done
	run journalctl -b -u csum-guard-watch.service -u libvirtd.service --no-pager
	cp "$S/hook.log" "$C/hook.log" 2>/dev/null
	note end
	sync
	systemctl poweroff --no-block
	exit 0
}

dropped()
{
	csum-guard status "$1" --json 2>>"$C/log" | jq -r '.dropped // 0' 2>/dev/null || echo 0
}

# iface GUEST: the host device of GUEST's only interface
iface()
{
	virsh domiflist "$1" 2>>"$C/log" | awk 'NR > 2 && $1 != "" { print $1; exit }'
}

# traffic WHAT DEV SRC DST DMAC: $BAD bad frames (csum_start 20, inside the
# IPv4 header) written into DEV as its guest would, then $GOOD good ones
# (csum_start 34) to a UDP socket on DST that checks every byte
traffic()
{
	what=$1 dev=$2 src=$3 dst=$4 dmac=$5
	d0=$(dropped "$dev")
	"$D/cg-inject" --dev "$dev" --src "$src" --dst "$dst" --dmac "$dmac" --dport 5001 \
		--csum-start 20 --csum-offset 6 --count "$BAD" >>"$C/log" 2>&1 ||
		fail "$what: cg-inject could not write the bad frames into $dev"
	rm -f "$S/ready"
	"$D/cg-udprecv" --bind "$dst" --port 5000 --count "$GOOD" --timeout 10 \
		--ready-file "$S/ready" >"$S/recv.out" 2>>"$C/log" &
	rp=$!
	i=0
	while [ ! -e "$S/ready" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$D/cg-inject" --dev "$dev" --src "$src" --dst "$dst" --dmac "$dmac" --dport 5000 \
		--csum-start 34 --csum-offset 6 --count "$GOOD" >>"$C/log" 2>&1 ||
		fail "$what: cg-inject could not write the good frames into $dev"
	wait $rp
	rrc=$?
	d1=$(dropped "$dev")
	log "$what: $dev dropped $d0 -> $d1; $(cat "$S/recv.out")"
	if [ "$((d1 - d0))" = "$BAD" ] && [ $rrc = 0 ]; then
		pass "$what: $BAD bad frames into $dev dropped and counted, $GOOD good ones reached $dst intact"
	else
		fail "$what: $dev counted $((d1 - d0)) drops of $BAD bad frames; good frames: $(cat "$S/recv.out") of $GOOD (exit $rrc)"
	fi
}

# at_hook GUEST PHASE DEV: the recording hook's line for DEV at PHASE
at_hook()
{
	grep "^$1 $2 $3 " "$S/hook.log" 2>/dev/null | tail -1
}

# running GUEST: QEMU of GUEST still runs, paused, and libvirt says so
running()
{
	[ "$(virsh domstate "$1" 2>/dev/null)" = paused ]
}

qemu_pids() { pgrep -f 'guest=g[0-9],' | sort | paste -sd' '; }

domain()
{
	name=$1 nic=$2
	cat <<EOF
<domain type='qemu'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    $nic
  </devices>
</domain>
EOF
}

setup()
{
	note "$(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), $(virsh --version 2>/dev/null | sed 's/^/libvirt /'), $(qemu-system-x86_64 --version | head -1)"
	cp "$C/cg-inject" "$C/cg-udprecv" "$D/" || fail "cannot copy the test's tools to $D"
	cp "$C"/debs/*.deb /root/
	if (cd /root && run apt-get install -y "./csum-guard_${VERSION}_amd64.deb" \
		"./csum-guard-dkms_${VERSION}_all.deb"); then
		pass "apt install of csum-guard and csum-guard-dkms $VERSION beside libvirt (DKMS built the module)"
	else
		fail "apt install of the two packages failed: $(tail -3 "$C/log" | tr '\n' ' ')"
		finish
	fi
	rm -f /root/*.deb
	# (libvirtd itself is socket-activated: it may not run yet)
	[ "$(systemctl is-active csum-guard-watch.service)" = active ] ||
		fail "after the install: csum-guard-watch.service is $(systemctl is-active csum-guard-watch.service)"

	modprobe dummy
	{ ip link add br0 type bridge && ip addr add 10.0.0.1/24 dev br0 && ip link set br0 up &&
	  ip link add dummy0 type dummy && ip link set dummy0 up &&
	  ip link add mv0 link dummy0 type macvlan mode bridge &&
	  ip addr add 10.0.1.1/24 dev mv0 && ip link set mv0 up; } >>"$C/log" 2>&1 ||
		{ fail "cannot make br0, dummy0 and mv0"; finish; }

	run install -D -m 0755 /usr/share/doc/csum-guard/examples/libvirt-qemu-hook \
		/etc/libvirt/hooks/qemu.d/csum-guard || { fail "the package has no libvirt hook example"; finish; }
	# after csum-guard's hook (libvirt runs qemu.d's scripts by name): what
	# the hook left at each phase, and whether QEMU ran yet
	cat >/etc/libvirt/hooks/qemu.d/zz-cg-record <<'EOF'
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
xml=$(cat)
q=$(pgrep -f "guest=$1," >/dev/null && echo qemu-running || echo qemu-absent)
for dev in $(printf '%s\n' "$xml" | sed -n "s/.*<target dev='\([^']*\)'.*/\1/p"); do
	st=$(csum-guard status "$dev" --json 2>/dev/null | jq -r '"\(.attached) \(.backend)"' 2>/dev/null)
	echo "$1 $2 $3 $dev $q ${st:-unknown}" >>/var/lib/cg-e2e/hook.log
done
exit 0
EOF
	chmod 0755 /etc/libvirt/hooks/qemu.d/zz-cg-record
	# libvirt looks for hooks when it starts
	run systemctl restart libvirtd.service
	# the hook alone guards from here on
	run systemctl stop csum-guard-watch.service
	domain g1 "<interface type='bridge'><source bridge='br0'/><model type='virtio'/><driver queues='2'/></interface>" >"$S/g1.xml"
	domain g2 "<interface type='direct'><source dev='dummy0' mode='bridge'/><model type='virtio'/></interface>" >"$S/g2.xml"
	domain g3 "<interface type='bridge'><source bridge='br0'/><model type='virtio'/></interface>" >"$S/g3.xml"
	for g in g1 g2 g3; do
		run virsh define "$S/$g.xml" || fail "virsh define $g failed"
	done
}

# 2. started by virsh, guarded by the hook
hook_start()
{
	for g in g1 g2; do
		t0=$(date +%s)
		if virsh start "$g" --paused >>"$C/log" 2>"$S/$g.err"; then
			log "virsh start $g --paused: $(($(date +%s) - t0)) s"
		else
			fail "virsh start $g --paused failed: $(tr '\n' ' ' <"$S/$g.err")"
		fi
	done
	dev1=$(iface g1) dev2=$(iface g2)
	log "g1 has ${dev1:-none}, g2 has ${dev2:-none}"
	# libvirt sets a direct interface up when the guest's CPUs start; the
	# test, which writes the guest's frames itself, does it for the paused g2
	[ -n "$dev2" ] && run ip link set "$dev2" up
	[ "$(systemctl is-active csum-guard-watch.service)" != active ] ||
		fail "the watcher runs: the hook's part cannot be told apart"
	for x in "g1 $dev1 tap" "g2 $dev2 macvtap"; do
		# shellcheck disable=SC2086
		set -- $x
		[ $# = 3 ] || { fail "$1 has no interface device after virsh start"; continue; }
		# a tap has tun_flags; a macvtap, its character device tapIFINDEX
		case $3 in
		tap) [ -e "/sys/class/net/$2/tun_flags" ] ;;
		macvtap) [ -e "/sys/class/net/$2/tap$(cat "/sys/class/net/$2/ifindex")" ] ;;
		esac || fail "$1's $2 is not a $3"
		line=$(at_hook "$1" start begin "$2")
		if [ "$line" = "$1 start begin $2 qemu-absent true kmod" ]; then
			pass "virsh start $1: at \"start begin\" the hook had guarded $3 $2 with the module, before QEMU ran"
		else
			fail "virsh start $1: at \"start begin\" $2 was '${line:-not seen}' (want guarded, kmod, QEMU not yet run)"
		fi
	done
	if running g1 && running g2; then
		pass "g1 and g2 run (paused) with every device guarded, the watcher stopped"
	else
		fail "g1 $(virsh domstate g1 2>&1), g2 $(virsh domstate g2 2>&1) after virsh start --paused"
	fi
	traffic "g1's tap, guarded by the hook" "$dev1" 10.0.0.2 10.0.0.1 "$(cat /sys/class/net/br0/address)"
	traffic "g2's macvtap, guarded by the hook" "$dev2" 10.0.1.2 10.0.1.1 "$(cat /sys/class/net/mv0/address)"
}

# 3. libvirtd with the drop-in: restarted, the watcher ready first
dropin_reconnect()
{
	run install -D -m 0644 /usr/share/doc/csum-guard/examples/libvirtd-require-watch.conf \
		/etc/systemd/system/libvirtd.service.d/csum-guard.conf ||
		{ fail "the package has no libvirtd-require-watch.conf example"; return; }
	run systemctl daemon-reload
	pids=$(qemu_pids)
	run systemctl stop libvirtd.service
	run csum-guard detach "$dev1"
	run csum-guard detach "$dev2"
	if [ "$(qemu_pids)" != "$pids" ] || [ -z "$pids" ] ||
	   [ "$(csum-guard status "$dev1" --json 2>/dev/null | jq -r .attached)" != false ]; then
		fail "with libvirtd stopped: QEMU '$(qemu_pids)' (was '$pids'), $dev1 $(csum-guard status "$dev1" 2>&1 | head -1)"
	fi
	: >"$S/hook.log"
	if run systemctl start libvirtd.service; then
		w=$(systemctl show -p ActiveEnterTimestampMonotonic --value csum-guard-watch.service)
		l=$(systemctl show -p ExecMainStartTimestampMonotonic --value libvirtd.service)
		if [ "$(systemctl is-active csum-guard-watch.service)" = active ] && [ "$w" -gt 0 ] && [ "$w" -le "$l" ]; then
			pass "with the drop-in, systemctl start libvirtd started csum-guard-watch first and libvirtd after it was ready"
		else
			fail "with the drop-in: watcher $(systemctl is-active csum-guard-watch.service), ready at $w us, libvirtd started at $l us"
		fi
	else
		fail "with the drop-in, systemctl start libvirtd failed"
	fi
	# libvirtd reconnects to its guests in threads of their own, after it
	# told systemd it is ready
	i=0
	while [ $i -lt 60 ] && { [ -z "$(at_hook g1 reconnect begin "$dev1")" ] ||
				 [ -z "$(at_hook g2 reconnect begin "$dev2")" ]; }; do
		sleep 1
		i=$((i + 1))
	done
	for x in "g1 $dev1" "g2 $dev2"; do
		# shellcheck disable=SC2086
		set -- $x
		line=$(at_hook "$1" reconnect begin "$2")
		if [ "$line" = "$1 reconnect begin $2 qemu-running true kmod" ] && running "$1"; then
			pass "libvirtd restarted: at \"reconnect begin\" of the running $1, $2 was guarded again by the watcher; $1 runs on"
		else
			fail "libvirtd restarted: at \"reconnect begin\" $2 was '${line:-not seen}'; $1 $(virsh domstate "$1" 2>&1)"
		fi
	done
	traffic "g1's tap, guarded by the watcher after libvirtd's restart" "$dev1" 10.0.0.2 10.0.0.1 "$(cat /sys/class/net/br0/address)"
	traffic "g2's macvtap, guarded by the watcher after libvirtd's restart" "$dev2" 10.0.1.2 10.0.1.1 "$(cat /sys/class/net/mv0/address)"

	l0=$(systemctl show -p MainPID --value libvirtd.service)
	run systemctl restart csum-guard-watch.service
	i=0
	while [ $i -lt 60 ] && [ "$(systemctl is-active libvirtd.service)" != active ]; do
		sleep 1
		i=$((i + 1))
	done
	l1=$(systemctl show -p MainPID --value libvirtd.service)
	if [ "$(systemctl is-active libvirtd.service)" = active ] && [ "$l0" != "$l1" ] &&
	   [ "$(qemu_pids)" = "$pids" ] && running g1 && running g2; then
		pass "with the drop-in, restarting the watcher restarted libvirtd (pid $l0 -> $l1); the guests ran on"
	else
		fail "with the drop-in, after restarting the watcher: libvirtd $(systemctl is-active libvirtd.service) pid $l0 -> $l1, QEMU '$(qemu_pids)' (was '$pids')"
	fi
}

# 4. a module the kernel will not load
refused()
{
	run systemctl stop libvirtd.service csum-guard-watch.service
	run csum-guard detach --all
	run csum-guard completion off
	run rmmod csum_guard
	echo "install csum_guard /bin/false" >/etc/modprobe.d/cg-test-refuse.conf
	if [ -d /sys/module/csum_guard ]; then
		fail "csum_guard could not be unloaded: the refusal cannot be tested"
		return
	fi
	# a test's bound on the watcher's start (systemd's default is 90 s)
	mkdir -p /etc/systemd/system/csum-guard-watch.service.d
	printf '[Service]\nTimeoutStartSec=30s\n' >/etc/systemd/system/csum-guard-watch.service.d/cg-test.conf
	run systemctl daemon-reload
	t0=$(date +%s)
	if run systemctl start libvirtd.service; then
		fail "with the drop-in and the module refused, libvirtd started (watcher $(systemctl is-active csum-guard-watch.service))"
	elif [ "$(systemctl is-active libvirtd.service)" != active ] &&
	     journalctl -b -u libvirtd.service --no-pager | grep -q 'Dependency failed' &&
	     journalctl -b -u csum-guard-watch.service --no-pager | grep -q "not ready:.*$dev1"; then
		pass "with the drop-in and the module refused, libvirtd did not start ($(($(date +%s) - t0)) s: the watcher, not ready, named $dev1; libvirtd's dependency failed)"
	else
		fail "with the drop-in and the module refused: libvirtd $(systemctl is-active libvirtd.service); watcher's log: $(journalctl -b -u csum-guard-watch.service --no-pager | tail -2 | tr '\n' ' ')"
	fi
	[ "$(qemu_pids)" = "$pids" ] || fail "the guests' QEMU died meanwhile: '$(qemu_pids)', was '$pids'"

	run systemctl stop csum-guard-watch.service
	rm -f /etc/systemd/system/libvirtd.service.d/csum-guard.conf
	run systemctl daemon-reload
	run systemctl reset-failed
	run systemctl start libvirtd.service || fail "without the drop-in, libvirtd did not start"
	if virsh start g3 --paused >>"$C/log" 2>"$S/g3.err"; then
		fail "virsh start g3 succeeded with the module refused: $(iface g3) $(csum-guard status "$(iface g3)" 2>&1 | head -1)"
	else
		err=$(tr '\n' ' ' <"$S/g3.err")
		log "virsh start g3: $err"
		if echo "$err" | grep -q 'cannot guard vnet[0-9]* of guest g3: not starting it' &&
		   echo "$err" | grep -q 'csum-guard: ' && [ "$(virsh domstate g3 2>&1)" = "shut off" ]; then
			pass "virsh start g3 refused, the reason in libvirt's error: $(grep -m1 'csum-guard: ' "$S/g3.err")"
		else
			fail "virsh start g3 failed without the hook's reason, or g3 runs: $err; g3 $(virsh domstate g3 2>&1)"
		fi
	fi
	rm -f /etc/modprobe.d/cg-test-refuse.conf
	if virsh start g3 --paused >>"$C/log" 2>"$S/g3.err" &&
	   [ "$(at_hook g3 start begin "$(iface g3)")" = "g3 start begin $(iface g3) qemu-absent true kmod" ]; then
		pass "once the module loads again, virsh start g3 guards $(iface g3) and starts"
	else
		fail "with the module back, g3: $(tr '\n' ' ' <"$S/g3.err") $(virsh domstate g3 2>&1)"
	fi
}

setup
hook_start
dropin_reconnect
refused
finish
