#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-e2e.sh - what an operator does on a Debian host, run by
# the host itself (tests/guest/boot.sh: /cg/run, at the end of each boot)
#
# First boot: a VM manager stand-in is there (libvirtd.service, host-vmm.sh);
# apt installs csum-guard and csum-guard-dkms from /cg/debs, DKMS builds the
# module with the host's compiler for its kernel; probe picks kmod; the unit
# is enabled and running, and guards the tap the VM manager makes; bad
# frames are dropped, good ones arrive intact; the operator installs the
# libvirt hook; reboot.
# Second boot: the VM manager made its tap and started its guest at boot,
# after the unit was ready (host-vmm.sh checked the first frames); with
# UPGRADE=1, csum-guard-dkms is upgraded to VERSION+next (/cg/debs-next);
# then apt purge, which must leave no module, pin, unit or file behind;
# power off.
#
# /cg/params has VERSION, BAD, GOOD and UPGRADE. Results: PASS/FAIL lines in
# /cg/results (kept on the host's disk meanwhile), commands' output in
# /cg/log. The last line of a finished run is "# [TAG] end".

set -u
C=/cg
D=/usr/local/lib/cg-e2e
S=/var/lib/cg-e2e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C
. "$C/params"
TAG=debian$(. /etc/os-release && echo "$VERSION_ID")
mkdir -p "$S" "$D"
boot=$(($(cat "$S/boots" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$S/boots"
sync

pass() { echo "PASS [$TAG] $*" >>"$S/results"; }
fail() { echo "FAIL [$TAG] $*" >>"$S/results"; }
note() { echo "# [$TAG] $*" >>"$S/results"; }
log() { echo "== boot $boot: $*" >>"$S/log"; }
run() { log "$*"; "$@" >>"$S/log" 2>&1; }

# Power off or reboot, with the results and the log in the share.
finish()
{
	[ "$1" = poweroff ] && note end
	cp "$S/results" "$C/results" 2>/dev/null
	cp "$S/log" "$C/log" 2>/dev/null
	sync
	systemctl "$1" --no-block
	exit 0
}

# wait_vnet0 JQ WANT N: until jq's JQ over `status vnet0 --json` prints
# WANT, at most N tenths of a second; i is the tenths waited.
wait_vnet0()
{
	i=0
	while [ $i -lt "$3" ]; do
		[ "$(csum-guard status vnet0 --json 2>/dev/null | jq -r "$1")" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Every path of the root file system but those the package manager, the
# logs and this test keep, and the hook the operator copied: what an
# install adds and a purge must remove.
snapshot()
{
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o \
		-path /tmp -o -path /var/tmp -o -path /cg -o -path /lost+found -o \
		-path /var/log -o -path /var/cache -o -path /var/lib/apt -o \
		-path /var/lib/dpkg -o -path /var/lib/systemd -o -path "$S" -o \
		-path /root -o -path /etc/libvirt \) -prune -o -print | LC_ALL=C sort
}

stage1()
{
	note "$(. /etc/os-release; echo "$PRETTY_NAME") ($(cat /etc/debian_version)), kernel $(uname -r), $(ldd --version | head -1), $(gcc --version | head -1), PID 1: $(cat /proc/1/comm)"
	if [ "$(cat /proc/1/comm)" = systemd ]; then
		pass "the host booted its own kernel $(uname -r) with systemd as PID 1"
	else
		fail "PID 1 is $(cat /proc/1/comm), not systemd"
	fi
	cp "$C/vmm" "$D/vmm" && cp "$C/cg-inject" "$C/cg-udprecv" "$D/" &&
		printf 'TAG=%s\nBAD=%s\nGOOD=%s\n' "$TAG" "$BAD" "$GOOD" >"$D/params" ||
		fail "cannot copy the test's tools to $D"
	# the VM manager is installed and enabled before csum-guard, as on a
	# host that already runs guests
	cat >/etc/systemd/system/libvirtd.service <<EOF
[Unit]
Description=VM manager stand-in (csum-guard test)

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh $D/vmm start

[Install]
WantedBy=multi-user.target
EOF
	run systemctl enable libvirtd.service || fail "cannot enable the VM manager stand-in"
	snapshot >"$S/files.before"

	cp "$C"/debs/*.deb /root/
	t0=$(date +%s)
	if (cd /root && run apt-get install -y "./csum-guard_${VERSION}_amd64.deb" \
		"./csum-guard-dkms_${VERSION}_all.deb"); then
		pass "apt install ./csum-guard_${VERSION}_amd64.deb ./csum-guard-dkms_${VERSION}_all.deb, offline, in $(($(date +%s) - t0)) s (the DKMS build included)"
	else
		fail "apt install of the two packages failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	rm -f /root/*.deb

	ko=$(modinfo -n csum_guard 2>/dev/null)
	case $ko in
	/lib/modules/"$(uname -r)"/updates/*)
		pass "DKMS installed csum_guard.ko for the running kernel: $ko" ;;
	*)	fail "no csum_guard.ko from DKMS for $(uname -r): '$ko'; dkms status: $(dkms status 2>&1 | tr '\n' ' ')" ;;
	esac
	# built by the host's compiler, the one its kernel was built with
	kcc=$(sed -n 's/.*(\(Debian [0-9][^)]*\)).*/\1/p' /proc/version | head -1)
	mcc=$(readelf -p .comment "$ko" 2>/dev/null | grep -o 'GCC: ([^)]*)' | head -1)
	case $mcc in
	*"($kcc)"*) pass "the module was built by the host's gcc, the kernel's own ($kcc)" ;;
	*)	fail "the module's compiler '$mcc' is not the kernel's ($kcc)" ;;
	esac
	backend=$(csum-guard probe --json 2>>"$S/log" | jq -r .backend)
	if [ "$backend" = kmod ]; then
		pass "csum-guard probe picks kmod on $(uname -r)"
	else
		fail "csum-guard probe picks '$backend' on $(uname -r), not kmod"
	fi
	en=$(systemctl is-enabled csum-guard-watch.service 2>&1)
	act=$(systemctl is-active csum-guard-watch.service 2>&1)
	if [ "$en $act" = "enabled active" ]; then
		pass "the install enabled and started csum-guard-watch.service"
	else
		fail "csum-guard-watch.service is $en and $act after the install"
	fi
	systemctl show -p Before csum-guard-watch.service | grep -qw libvirtd.service &&
		pass "csum-guard-watch.service is ordered before libvirtd.service" ||
		fail "csum-guard-watch.service is not ordered before libvirtd.service"

	# the VM manager starts a guest: its new tap, guarded by the unit
	run systemctl start libvirtd.service
	if wait_vnet0 '"\(.attached) \(.backend)"' "true kmod" 200; then
		pass "csum-guard-watch guarded the VM manager's new tap vnet0 with the module (within $((i / 10 + 1)) s)"
		run sh "$D/vmm" traffic "after the install"
	else
		fail "csum-guard-watch did not guard vnet0 within 20 s: $(csum-guard status vnet0 2>&1 | head -3 | tr '\n' ' ')"
	fi
	run journalctl -b -u csum-guard-watch.service --no-pager

	# the operator installs the libvirt hook, as the README says
	run install -D -m 0755 /usr/share/doc/csum-guard/examples/libvirt-qemu-hook \
		/etc/libvirt/hooks/qemu || fail "the package has no libvirt hook example"
	finish reboot
}

stage2()
{
	note "second boot of the same disk"
	grep -q . "$S/results" || true
	run journalctl -b -u csum-guard-watch.service -u libvirtd.service --no-pager
	if [ "$(systemctl is-active csum-guard-watch.service)" = active ] &&
	   [ -d /sys/module/csum_guard ]; then
		pass "after the reboot csum-guard-watch.service runs and csum_guard is loaded"
	else
		fail "after the reboot: csum-guard-watch.service $(systemctl is-active csum-guard-watch.service), module $([ -d /sys/module/csum_guard ] && echo loaded || echo absent)"
	fi
	grep -q "at boot, the guest's first frames: the $BAD bad frames" "$S/results" ||
		fail "the VM manager stand-in reported no traffic at boot (see its log)"
	run csum-guard status
	[ "${UPGRADE:-0}" = 1 ] && upgrade

	t0=$(date +%s)
	if run apt-get purge -y csum-guard csum-guard-dkms; then
		pass "apt purge csum-guard csum-guard-dkms ($(($(date +%s) - t0)) s)"
	else
		fail "apt purge failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	left=
	[ -d /sys/module/csum_guard ] && left="$left module-loaded"
	find /lib/modules -name 'csum_guard.ko*' | grep -q . && left="$left module-file"
	ls -d /sys/fs/bpf/csum_guard* >/dev/null 2>&1 && left="$left pins"
	[ -n "$(dkms status csum-guard 2>/dev/null)" ] && left="$left dkms-entry"
	systemctl list-unit-files csum-guard-watch.service 2>/dev/null | grep -q csum-guard && left="$left unit"
	grep -rqs csum-guard /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked &&
		left="$left unit-state"
	dpkg -l 'csum-guard*' 2>/dev/null | grep -q '^[a-z][a-z] ' && left="$left dpkg-entry"
	snapshot >"$S/files.after"
	if ! diff "$S/files.before" "$S/files.after" >"$S/files.diff"; then
		left="$left files:$(grep '^[<>]' "$S/files.diff" | head -5 | tr '\n' ' ')"
	fi
	if [ -z "$left" ]; then
		pass "the purge left no module (loaded or on disk), pin, DKMS entry, unit or file behind"
	else
		fail "the purge left:$left"
	fi
	finish poweroff
}

# An upgrade of csum-guard-dkms on a host whose module guards nothing (the
# watcher stopped, every guard detached, the completion guard off; the
# module still loaded): the package's postinst unloads the old module, and
# the watcher, started again, guards with the new one.
upgrade()
{
	run systemctl stop csum-guard-watch.service
	run csum-guard detach --all
	run csum-guard completion off
	old=$(cat /sys/module/csum_guard/version 2>/dev/null)
	cp "$C"/debs-next/*.deb /root/
	if (cd /root && run apt-get install -y "./csum-guard-dkms_${VERSION}+next_all.deb"); then
		pass "apt install of csum-guard-dkms ${VERSION}+next over $VERSION"
	else
		fail "apt install of csum-guard-dkms ${VERSION}+next failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	rm -f /root/*.deb
	# (the postinst starts the enabled watcher too, which loads the new one)
	now=$(cat /sys/module/csum_guard/version 2>/dev/null || echo none)
	if [ "$old" = "$VERSION" ] && { [ "$now" = none ] || [ "$now" = "$VERSION+next" ]; } &&
	   grep -q "unloaded csum_guard $VERSION, which guarded nothing" "$S/log"; then
		pass "the upgrade unloaded csum_guard $VERSION, which guarded nothing (loaded now: $now)"
	else
		fail "after the upgrade: csum_guard $old was loaded before, $(cat /sys/module/csum_guard/version 2>/dev/null || echo none) now"
	fi
	run systemctl start csum-guard-watch.service
	if wait_vnet0 '"\(.attached) \(.module_version)"' "true ${VERSION}+next" 100 &&
	   [ "$(cat /sys/module/csum_guard/version 2>/dev/null)" = "${VERSION}+next" ]; then
		pass "the watcher, started again, guards vnet0 with csum_guard ${VERSION}+next"
	else
		fail "after the watcher's start: $(csum-guard status vnet0 --json 2>&1 | head -c 300)"
	fi
	run sh "$D/vmm" traffic "with the upgraded module"
}

case $boot in
1) stage1 ;;
2) stage2 ;;
*) fail "an unexpected boot ($boot): the host rebooted by itself"; finish poweroff ;;
esac
