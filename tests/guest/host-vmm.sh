#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-vmm.sh - a VM manager stand-in on the booted Debian hosts
# of tests/cases/92-hosts.sh, installed as /usr/local/lib/cg-e2e/vmm and run
# by a libvirtd.service of the test's (the unit name csum-guard-watch.service
# is ordered before).
#
#   vmm start          make the guest's tap vnet0 (vnet_hdr, 10.0.0.1/24);
#                      if the libvirt hook is installed, run it as libvirt
#                      does before it starts a guest ("start begin", the
#                      domain XML on stdin), then start the guest: traffic
#   vmm traffic WHAT   the guest's frames through vnet0: first $BAD bad ones
#                      (csum_start 20, inside the IPv4 header), then $GOOD
#                      good ones to a UDP socket of the host that checks
#                      every byte
#
# Results go to /var/lib/cg-e2e/results as PASS/FAIL lines: on the host's
# disk, since at boot this runs before the test's share is mounted.

set -u
D=/usr/local/lib/cg-e2e
S=/var/lib/cg-e2e
. "$D/params"		# TAG BAD GOOD
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

pass() { echo "PASS [$TAG] $*" >>"$S/results"; }
fail() { echo "FAIL [$TAG] $*" >>"$S/results"; }
log() { echo "vmm: $*" >>"$S/log"; }

dropped()
{
	csum-guard status vnet0 --json 2>>"$S/log" | jq -r '.dropped // 0' 2>/dev/null || echo 0
}

traffic()
{
	what=$1
	d0=$(dropped)
	"$D/cg-inject" --dev vnet0 --src 10.0.0.2 --dst 10.0.0.1 --dport 5001 \
		--csum-start 20 --csum-offset 6 --count "$BAD" >>"$S/log" 2>&1 ||
		fail "$what: cg-inject could not write the bad frames"
	rm -f "$S/ready"
	"$D/cg-udprecv" --bind 10.0.0.1 --port 5000 --count "$GOOD" --timeout 10 \
		--ready-file "$S/ready" >"$S/recv.out" 2>>"$S/log" &
	rp=$!
	i=0
	while [ ! -e "$S/ready" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$D/cg-inject" --dev vnet0 --src 10.0.0.2 --dst 10.0.0.1 --dport 5000 \
		--csum-start 34 --csum-offset 6 --count "$GOOD" >>"$S/log" 2>&1 ||
		fail "$what: cg-inject could not write the good frames"
	wait $rp
	rrc=$?
	d1=$(dropped)
	log "$what: dropped $d0 -> $d1; $(cat "$S/recv.out")"
	if [ "$((d1 - d0))" = "$BAD" ]; then
		pass "$what: the $BAD bad frames (csum_start 20) dropped and counted by the guard on vnet0"
	else
		fail "$what: the guard on vnet0 counted $((d1 - d0)) drops for $BAD bad frames"
	fi
	if [ $rrc = 0 ]; then
		pass "$what: the $GOOD good frames (csum_start 34) reached a UDP socket intact"
	else
		fail "$what: good frames: $(cat "$S/recv.out") of $GOOD (exit $rrc)"
	fi
}

start()
{
	st=$(systemctl show -p ActiveState csum-guard-watch.service | cut -d= -f2)
	log "start at $(cut -d' ' -f1 /proc/uptime) s of uptime: csum-guard-watch.service is $st"
	if ! { ip tuntap add dev vnet0 mode tap vnet_hdr &&
	       ip addr add 10.0.0.1/24 dev vnet0 && ip link set vnet0 up; } >>"$S/log" 2>&1; then
		fail "the VM manager could not make its tap vnet0"
		return 0
	fi
	# before the operator installed the hook (the first boot), the unit
	# alone guards the tap; the test's script goes on from here
	[ -x /etc/libvirt/hooks/qemu ] || return 0
	if [ "$st" = active ]; then
		pass "at boot, csum-guard-watch.service was ready when the VM manager started"
	else
		fail "at boot, csum-guard-watch.service was '$st' when the VM manager started"
	fi
	if /etc/libvirt/hooks/qemu guest1 start begin - >>"$S/log" 2>&1 <<'EOF'
<domain type='kvm'>
  <name>guest1</name>
  <devices>
    <interface type='ethernet'>
      <target dev='vnet0'/>
      <model type='virtio'/>
    </interface>
  </devices>
</domain>
EOF
	then
		pass "at boot, the libvirt hook (qemu guest1 start begin) guarded vnet0 before the guest started"
	else
		fail "at boot, the libvirt hook refused the guest's start"
	fi
	traffic "at boot, the guest's first frames"
}

case ${1:-} in
start) start ;;
traffic) traffic "${2:?}" ;;
*) echo "usage: $0 start | traffic WHAT" >&2; exit 2 ;;
esac
exit 0
