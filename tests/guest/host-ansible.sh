#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-ansible.sh - a Debian host made ready for a controller's
# Ansible, run by the host itself (tests/guest/boot.sh --ssh-port: /cg/run,
# at the end of its boot)
#
# The VM manager stand-in (host-vmm.sh) makes its guest's tap vnet0, as on
# a host that runs guests before csum-guard arrives; eth0 gets QEMU's user
# network address; the key of /cg/authorized_keys (made by the test for
# this run) may log in as root; sshd runs. Then /cg/ready. The controller
# does the rest over ssh (tests/cases/93-ansible.sh) and powers it off.
#
# /cg/params has TAG, BAD and GOOD, for the stand-in. Its results (`vmm
# traffic`) are PASS/FAIL lines in /var/lib/cg-e2e/results.

set -u
C=/cg
D=/usr/local/lib/cg-e2e
S=/var/lib/cg-e2e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
mkdir -p "$D" "$S"
exec >>"$C/log" 2>&1

cp "$C/vmm" "$C/cg-inject" "$C/cg-udprecv" "$C/params" "$D/" || exit 1
sh "$D/vmm" start || exit 1

ip link set lo up &&
	ip addr add 10.0.2.15/24 dev eth0 &&
	ip link set eth0 up || exit 1
install -d -m 0700 /root/.ssh &&
	install -m 0600 "$C/authorized_keys" /root/.ssh/authorized_keys || exit 1
systemctl start ssh.service || exit 1
ip -br addr
echo "ready at $(cut -d' ' -f1 /proc/uptime) s of uptime" >"$C/ready"
