#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-repo.sh - an operator's Debian host without a compiler
# and without kernel headers (hostroot.sh --bare) installs csum-guard from
# the project's apt repository, run by the host itself at the end of its
# boot (tests/guest/boot.sh: /cg/run)
#
# The repository of make repo is in the share (/cg/repo): the operator adds
# its key and a file: source, apt-get update checks the signature of
# InRelease, `apt install csum-guard` pulls csum-guard-modules (Recommends)
# and the prebuilt module of the running kernel arrives in
# /lib/modules/KVER/updates/csum-guard/, signed by the builder's key
# (modinfo's signer is the CN of /cg/params' SIGNER); probe says prebuilt,
# picks kmod; the unit guards the VM manager's new tap (host-vmm.sh): bad
# frames dropped, good ones intact. With NEXT_KVER, a kernel of another ABI
# of the repository is installed (its image package in /cg/kernel-next) and
# gets its module from its own postinst; the host reboots into it (boot.sh
# boots the vmlinuz and initrd it leaves in /cg/boot-next), where the
# watcher guards the new tap again and the prebuilt module of that kernel
# loads; then back into the first kernel, which removes the other one. With
# NEXT_VERSION, apt-get upgrade to the next release from the same repository
# republished (upgrade_release). Then apt purge, which must leave no module,
# hook, unit or file behind; power off.
#
# The script runs at the end of every boot: $S/phase says which boot this
# is (first, next: in NEXT_KVER, back: in the first kernel again).
#
# /cg/params has VERSION, BAD, GOOD, SUITE, SIGNER, NEXT_KVER and
# NEXT_VERSION (those two may be empty). Results: PASS/FAIL
# lines in /cg/results, commands' output in /cg/log. The last line of a
# finished run is "# [TAG] end".

set -u
C=/cg
D=/usr/local/lib/cg-e2e
S=/var/lib/cg-e2e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C
. "$C/params"
TAG=debian$(. /etc/os-release && echo "$VERSION_ID")-repo
mkdir -p "$S" "$D"

pass() { echo "PASS [$TAG] $*" >>"$S/results"; }
fail() { echo "FAIL [$TAG] $*" >>"$S/results"; }
note() { echo "# [$TAG] $*" >>"$S/results"; }
log() { echo "== $*" >>"$S/log"; }
run() { log "$*"; "$@" >>"$S/log" 2>&1; }

finish()
{
	note end
	cp "$S/results" "$C/results" 2>/dev/null
	cp "$S/log" "$C/log" 2>/dev/null
	sync
	systemctl poweroff --no-block
	exit 0
}

# boot_into KVER PHASE: power off for a boot into the installed kernel
# KVER, as the boot loader would boot it; this script goes on with PHASE
boot_into()
{
	rm -rf "$C/boot-next.tmp" && mkdir "$C/boot-next.tmp" &&
		cp "/boot/vmlinuz-$1" "$C/boot-next.tmp/vmlinuz" &&
		cp "/boot/initrd.img-$1" "$C/boot-next.tmp/initrd.img" &&
		mv "$C/boot-next.tmp" "$C/boot-next" || {
		fail "cannot hand /boot/vmlinuz-$1 and /boot/initrd.img-$1 to the next boot"
		finish
	}
	echo "$2" >"$S/phase"
	note "rebooting into $1"
	cp "$S/results" "$C/results" 2>/dev/null
	sync
	systemctl poweroff --no-block
	exit 0
}

# as host-e2e.sh's: until jq's $1 over `status vnet0 --json` prints $2,
# at most $3 tenths of a second
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

# every path of the root but those of the package manager, the logs and
# the test: what the install adds and the purge must take away
snapshot()
{
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o \
		-path /tmp -o -path /var/tmp -o -path /cg -o -path /lost+found -o \
		-path /var/log -o -path /var/cache -o -path /var/lib/apt -o \
		-path /var/lib/dpkg -o -path /var/lib/systemd -o -path "$S" -o \
		-path /root \) -prune -o -print | LC_ALL=C sort
}

kver=$(uname -r)
phase=$(cat "$S/phase" 2>/dev/null || echo first)

# the first boot, in the host's own kernel: the repository, the install, the
# new tap guarded; a kernel of another ABI installed
first_boot()
{
	note "$(. /etc/os-release; echo "$PRETTY_NAME") ($(cat /etc/debian_version)), kernel $kver"
	echo "$kver" >"$S/kver.first"
	if command -v gcc >/dev/null || command -v cc >/dev/null || command -v dkms >/dev/null ||
	   [ -e "/lib/modules/$kver/build" ]; then
		fail "the host has a compiler, DKMS or the kernel's headers: $(command -v gcc cc dkms) $(ls -d "/lib/modules/$kver/build" 2>/dev/null)"
	else
		pass "the host has no compiler, no DKMS and no headers for $kver"
	fi
	cp "$C/vmm" "$D/vmm" && cp "$C/cg-inject" "$C/cg-udprecv" "$D/" &&
		printf 'TAG=%s\nBAD=%s\nGOOD=%s\n' "$TAG" "$BAD" "$GOOD" >"$D/params" ||
		fail "cannot copy the test's tools to $D"
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
	run systemctl daemon-reload

	# the operator: the repository's key and source, as the README says
	run install -D -m 0644 "$C/repo/csum-guard-archive-keyring.gpg" /usr/share/keyrings/csum-guard-archive-keyring.gpg
	echo "deb [signed-by=/usr/share/keyrings/csum-guard-archive-keyring.gpg] file:$C/repo $SUITE main" \
		>/etc/apt/sources.list.d/csum-guard.list
	snapshot >"$S/files.before"
	# (the host has no network: only this source is refreshed)
	if run apt-get update -o Dir::Etc::sourcelist=/etc/apt/sources.list.d/csum-guard.list \
		-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0; then
		pass "apt-get update: the repository's InRelease verifies with its key"
	else
		fail "apt-get update of the repository failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	t0=$(date +%s)
	if run apt-get install -y csum-guard; then
		pass "apt install csum-guard from the repository in $(($(date +%s) - t0)) s"
	else
		fail "apt install csum-guard failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	run dpkg -l 'csum-guard*'
	st=$(dpkg-query -W -f='${Version} ${db:Status-Status}' csum-guard-modules 2>/dev/null)
	if [ "$st" = "$VERSION installed" ]; then
		pass "csum-guard-modules $VERSION came with it (csum-guard recommends it)"
	else
		fail "csum-guard-modules is '$st', not $VERSION installed"
	fi
	# (dpkg knows of it, "un", once apt has seen it suggested: installed is what counts)
	[ "$(dpkg-query -W -f='${db:Status-Status}' csum-guard-dkms 2>/dev/null)" = installed ] &&
		fail "csum-guard-dkms was installed too"

	ko=$(modinfo -n csum_guard 2>/dev/null)
	if [ "$ko" = "/lib/modules/$kver/updates/csum-guard/csum_guard.ko" ] &&
	   cmp -s "$ko" "/usr/lib/csum-guard/modules/$kver/csum_guard.ko"; then
		pass "the prebuilt csum_guard.ko for $kver is installed: $ko"
	else
		fail "modprobe resolves csum_guard to '$ko', not the prebuilt one for $kver"
	fi
	signer=$(modinfo -F signer csum_guard 2>/dev/null)
	if [ "$signer" = "$SIGNER" ] && [ "$(modinfo -F sig_hashalgo csum_guard 2>/dev/null)" = sha256 ]; then
		pass "modinfo: the module is signed by the builder's key '$signer' (sha256)"
	else
		fail "modinfo: signer '$signer', not '$SIGNER'"
	fi
	[ "$(modinfo -F version csum_guard 2>/dev/null)" = "$VERSION" ] ||
		fail "the module's version is $(modinfo -F version csum_guard 2>/dev/null), not $VERSION"

	# the watcher loads it; probe says where it came from
	en=$(systemctl is-enabled csum-guard-watch.service 2>&1)
	act=$(systemctl is-active csum-guard-watch.service 2>&1)
	[ "$en $act" = "enabled active" ] && pass "the install enabled and started csum-guard-watch.service" ||
		fail "csum-guard-watch.service is $en and $act after the install"
	run csum-guard probe
	p=$(csum-guard probe --json 2>>"$S/log")
	if [ "$(echo "$p" | jq -r '"\(.backend) \(.module_origin) \(.module_signer) \(.module_file_version)"')" = \
	     "kmod prebuilt $SIGNER $VERSION" ]; then
		pass "csum-guard probe picks kmod and says the module is prebuilt, $VERSION, signed by '$SIGNER'"
	else
		fail "csum-guard probe: $(echo "$p" | jq -c '{backend, module_origin, module_signer, module_file_version, kmod_unavailable}')"
	fi

	run systemctl start libvirtd.service
	if wait_vnet0 '"\(.attached) \(.backend) \(.module_version)"' "true kmod $VERSION" 200; then
		pass "csum-guard-watch guarded the VM manager's new tap vnet0 with the prebuilt module (within $((i / 10 + 1)) s)"
		run sh "$D/vmm" traffic "prebuilt module"
		j=$(csum-guard status vnet0 --json 2>>"$S/log")
		if [ "$(echo "$j" | jq -r '"\(.module_version) \(.module_origin) \(.module_signer)"')" = \
		     "$VERSION prebuilt $SIGNER" ]; then
			pass "status --json: vnet0's module is $VERSION, prebuilt, signed by '$SIGNER'"
		else
			fail "status --json of vnet0: $(echo "$j" | jq -c '{module_version, module_origin, module_signer}')"
		fi
	else
		fail "csum-guard-watch did not guard vnet0 within 20 s: $(csum-guard status vnet0 2>&1 | head -3 | tr '\n' ' ')"
	fi
	[ "$(csum-guard probe --json 2>/dev/null | jq -r .module_file_loaded)" = yes ] &&
		pass "probe: the module loaded is the prebuilt file's build" ||
		fail "probe does not say the loaded module is the prebuilt file's build"
	run journalctl -b -u csum-guard-watch.service --no-pager

	# A kernel of another ABI of the repository arrives (NEXT_KVER, its image
	# package in /cg/kernel-next): its own postinst gives it its prebuilt
	# module, with no apt call of ours (and its initramfs, for the reboot).
	if [ -n "${NEXT_KVER:-}" ]; then
		cp "$C"/kernel-next/*.deb /root/
		t0=$(date +%s)
		if (cd /root && run apt-get install -y --no-install-recommends ./linux-image-"$NEXT_KVER"_*.deb); then
			pass "apt install of kernel $NEXT_KVER ($(($(date +%s) - t0)) s)"
		else
			fail "apt install of kernel $NEXT_KVER failed: $(tail -3 "$S/log" | tr '\n' ' ')"
		fi
		rm -f /root/*.deb
		ko=/lib/modules/$NEXT_KVER/updates/csum-guard/csum_guard.ko
		if [ "$(modinfo -k "$NEXT_KVER" -n csum_guard 2>/dev/null)" = "$ko" ] &&
		   [ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$NEXT_KVER" ] &&
		   [ "$(modinfo -F signer "$ko" 2>/dev/null)" = "$SIGNER" ] &&
		   grep -q "installed the prebuilt csum_guard.ko for $NEXT_KVER" "$S/log"; then
			pass "the new kernel's postinst installed its prebuilt module ($ko, vermagic $NEXT_KVER, signed by '$SIGNER'): modprobe finds it for $NEXT_KVER"
		else
			fail "no prebuilt module for the new kernel $NEXT_KVER: modprobe finds '$(modinfo -k "$NEXT_KVER" -n csum_guard 2>&1)'"
		fi
		boot_into "$NEXT_KVER" next
	fi
}

# In the kernel of another ABI: the watcher (enabled, started at boot)
# guards the VM manager's new tap with the backend the probe picks there,
# and the prebuilt module of this kernel loads (the watcher loads it where
# it is the backend; elsewhere the completion guard does), signed, of this
# release. Then back into the first kernel.
next_boot()
{
	first=$(cat "$S/kver.first")
	if [ "$kver" = "$NEXT_KVER" ]; then
		pass "rebooted into the kernel it installed, $NEXT_KVER"
	else
		fail "rebooted into $kver, not $NEXT_KVER"
		finish
	fi
	run systemctl start libvirtd.service
	if wait_vnet0 .attached true 300; then
		b=$(csum-guard status vnet0 --json 2>/dev/null | jq -r .backend)
		pass "in $NEXT_KVER, csum-guard-watch guarded the VM manager's new tap vnet0 ($b backend)"
		run sh "$D/vmm" traffic "after the reboot into $NEXT_KVER ($b)"
	else
		fail "in $NEXT_KVER, csum-guard-watch did not guard vnet0 within 30 s: $(csum-guard status vnet0 2>&1 | head -3 | tr '\n' ' ')"
	fi
	[ -d /sys/module/csum_guard ] || run csum-guard completion on
	p=$(csum-guard probe --json 2>>"$S/log")
	if [ "$(cat /sys/module/csum_guard/version 2>/dev/null)" = "$VERSION" ] &&
	   [ "$(echo "$p" | jq -r '"\(.module_origin) \(.module_signer) \(.module_file_loaded)"')" = \
	     "prebuilt $SIGNER yes" ]; then
		pass "in $NEXT_KVER, csum_guard $VERSION is loaded from its prebuilt file, signed by '$SIGNER'"
	else
		fail "in $NEXT_KVER, the module: loaded $(cat /sys/module/csum_guard/version 2>&1); probe $(echo "$p" | jq -c '{module_origin, module_signer, module_file_loaded, kmod_unavailable}' 2>&1)"
	fi
	run journalctl -b -u csum-guard-watch.service --no-pager
	boot_into "$first" back
}

# Back in the first kernel: the other one goes, and its module with it.
back_boot()
{
	first=$(cat "$S/kver.first")
	[ "$kver" = "$first" ] && pass "rebooted into the first kernel, $first" ||
		fail "rebooted into $kver, not the first kernel $first"
	ko=/lib/modules/$NEXT_KVER/updates/csum-guard/csum_guard.ko
	if run apt-get purge -y "linux-image-$NEXT_KVER" && [ ! -e "$ko" ]; then
		pass "the kernel's removal took its module away"
	else
		fail "after the kernel's removal: $(ls -d "$ko" 2>&1)"
	fi
	run systemctl start libvirtd.service
	wait_vnet0 '"\(.attached) \(.backend) \(.module_version)"' "true kmod $VERSION" 300 ||
		fail "back in $first, csum-guard-watch did not guard vnet0 with the module within 30 s: $(csum-guard status vnet0 2>&1 | head -3 | tr '\n' ' ')"
}

case $phase in
first) first_boot ;;
next) next_boot ;;
back) back_boot ;;
*) fail "unknown phase '$phase' in $S/phase"; finish ;;
esac

# The next release (NEXT_VERSION), published in the same repository: the
# case made it again with VERSION+next beside VERSION (/cg/repo-next), bound
# here over /cg/repo, so the host's source and key stay as they were.
# apt-get upgrade moves csum-guard and csum-guard-modules while the module
# guards vnet0 (sampled all along: it stays guarded); the old module keeps
# its guards, and status says the file on disk is not its build. Then the
# README's way to the new module: the watcher stopped, the guards detached,
# the completion guard off, rmmod, the watcher started: it guards vnet0 with
# the new prebuilt module.
upgrade_release()
{
	nv=$NEXT_VERSION
	if ! run mount --bind "$C/repo-next" "$C/repo" ||
	   ! run apt-get update -o Dir::Etc::sourcelist=/etc/apt/sources.list.d/csum-guard.list \
		-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0; then
		fail "apt-get update of the republished repository failed: $(tail -3 "$S/log" | tr '\n' ' ')"
		return
	fi
	run apt-cache policy csum-guard csum-guard-modules
	: >"$S/during"
	(while :; do
		csum-guard status vnet0 --json 2>/dev/null | jq -r '"\(.attached) \(.backend)"'
		sleep 0.2
	done) >>"$S/during" 2>&1 &
	poll=$!
	t0=$(date +%s)
	# (only what this source has: the host has no network, and Debian's
	# lists made with its root would want their security updates)
	if run apt-get upgrade -y -o Dir::Etc::sourcelist=/etc/apt/sources.list.d/csum-guard.list \
		-o Dir::Etc::sourceparts=-; then
		pass "apt-get upgrade from the republished repository ($(($(date +%s) - t0)) s)"
	else
		fail "apt-get upgrade failed: $(tail -3 "$S/log" | tr '\n' ' ')"
	fi
	kill $poll
	wait $poll 2>/dev/null
	v=$(dpkg-query -W -f='${Package}=${Version} ' csum-guard csum-guard-modules 2>/dev/null)
	if [ "$v" = "csum-guard=$nv csum-guard-modules=$nv " ] &&
	   csum-guard --version 2>/dev/null | grep -qF "$nv"; then
		pass "csum-guard and csum-guard-modules moved to $nv (csum-guard --version: $(csum-guard --version 2>/dev/null | head -1))"
	else
		fail "after the upgrade: $v; csum-guard --version: $(csum-guard --version 2>&1 | head -1)"
	fi
	ko=/lib/modules/$kver/updates/csum-guard/csum_guard.ko
	if [ "$(modinfo -F version "$ko" 2>/dev/null)" = "$nv" ] && [ "$(modinfo -F signer "$ko" 2>/dev/null)" = "$SIGNER" ] &&
	   [ "$(modinfo -n csum_guard 2>/dev/null)" = "$ko" ]; then
		pass "the upgrade installed the prebuilt csum_guard.ko $nv for $kver, signed by '$SIGNER'"
	else
		fail "after the upgrade modprobe finds $(modinfo -n csum_guard 2>&1), version $(modinfo -F version "$ko" 2>&1)"
	fi
	n=$(grep -c . "$S/during")
	if [ "$n" -gt 0 ] && [ "$(grep -cvx 'true kmod' "$S/during")" = 0 ]; then
		pass "vnet0 stayed guarded by the module all along the upgrade ($n samples of status)"
	else
		fail "vnet0 during the upgrade: $(sort "$S/during" | uniq -c | tr '\n' ' ')"
	fi
	j=$(csum-guard status vnet0 --json 2>>"$S/log")
	if [ "$(echo "$j" | jq -r '"\(.attached) \(.module_version) \(has("module_origin")) \(.module_origin) \(.module_signer)"')" = \
	     "true $VERSION true null null" ]; then
		pass "after the upgrade csum_guard $VERSION keeps guarding vnet0; status says module_origin null (the file on disk is $nv's)"
	else
		fail "status --json of vnet0 after the upgrade: $(echo "$j" | jq -c '{attached, module_version, module_origin, module_signer}')"
	fi
	run sh "$D/vmm" traffic "after the package upgrade, the old module"

	run systemctl stop csum-guard-watch.service
	run csum-guard detach --all
	run csum-guard completion off
	run rmmod csum_guard
	run systemctl start csum-guard-watch.service
	if wait_vnet0 '"\(.attached) \(.module_version) \(.module_origin) \(.module_signer)"' \
	   "true $nv prebuilt $SIGNER" 200 && [ "$(cat /sys/module/csum_guard/version 2>/dev/null)" = "$nv" ]; then
		pass "detached, rmmod, the watcher started: it guards vnet0 with the prebuilt csum_guard $nv (status: prebuilt, signed by '$SIGNER')"
	else
		fail "after the module's reload: $(csum-guard status vnet0 --json 2>&1 | jq -c '{attached, module_version, module_origin, module_signer}' 2>&1), loaded $(cat /sys/module/csum_guard/version 2>&1)"
	fi
	run sh "$D/vmm" traffic "the upgraded prebuilt module"
	run umount "$C/repo"
}
[ -n "${NEXT_VERSION:-}" ] && upgrade_release

# the VM manager goes, then csum-guard: nothing may stay
run systemctl stop libvirtd.service
t0=$(date +%s)
if run apt-get purge -y csum-guard csum-guard-modules; then
	pass "apt purge csum-guard csum-guard-modules ($(($(date +%s) - t0)) s)"
else
	fail "apt purge failed: $(tail -3 "$S/log" | tr '\n' ' ')"
fi
left=
[ -d /sys/module/csum_guard ] && left="$left module-loaded"
find /lib/modules /usr/lib/csum-guard -name 'csum_guard.ko*' 2>/dev/null | grep -q . && left="$left module-file"
ls /etc/kernel/postinst.d/csum-guard* /etc/kernel/postrm.d/csum-guard* >/dev/null 2>&1 && left="$left kernel-hook"
ls -d /sys/fs/bpf/csum_guard* >/dev/null 2>&1 && left="$left pins"
systemctl list-unit-files csum-guard-watch.service 2>/dev/null | grep -q csum-guard && left="$left unit"
dpkg -l 'csum-guard*' 2>/dev/null | grep -q '^[a-z][a-z] ' && left="$left dpkg-entry"
modprobe -n csum_guard 2>/dev/null && left="$left modprobe-finds-it"
snapshot >"$S/files.after"
if ! diff "$S/files.before" "$S/files.after" >"$S/files.diff"; then
	left="$left files:$(grep '^[<>]' "$S/files.diff" | head -5 | tr '\n' ' ')"
fi
if [ -z "$left" ]; then
	pass "the purge left no module (loaded or on disk), kernel hook, pin, unit or file behind"
else
	fail "the purge left:$left"
fi
finish
