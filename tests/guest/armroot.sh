#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/armroot.sh - the arm64 Debian root the arm64 guests run in
#
#   armroot.sh [SUITE [CC]]   make SUITE's root (bookworm unless named)
#                             with compiler CC (the gcc-N the kernel's
#                             headers name; the release's gcc unless
#                             named), or reuse its cache, and print
#                             ROOT=<its directory>, for `eval`
#
# An amd64 guest runs the host's own root over 9p; an arm64 guest needs an
# arm64 userland with everything the suite runs (bash, iproute2, nftables,
# iptables, jq, ethtool, bpftool, strace, dkms and its compiler for the
# module, busybox-static for the initramfs).  The module is built in the
# guest by DKMS with the compiler its headers name, so a kernel of a newer
# release (sid's 7.x want gcc-16) runs in a root of its own release.  debootstrap --foreign
# --arch=arm64 unpacks it on this machine.  Its second stage (dpkg
# configuring every package) runs arm64 programs: here under qemu-user, in
# a user namespace of its own whose binfmt_misc instance (Linux 6.7 and
# later) sends arm64 ELF files to qemu-aarch64-static.  That registration
# ends with the namespace: nothing is registered on the host, no dpkg
# --add-architecture, and qemu-user-static is unpacked into the cache, not
# installed.  (The same second stage inside a qemu-system-aarch64 guest on
# a 9p root took minutes per package.)
#
# Cache: build/roots/arm64-SUITE/, with a stamp of the package list and of
# this script's format; a run cut short is redone.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -le 2 ] && [[ ${1:-bookworm} =~ ^[a-z]+$ ]] && [[ ${2:-gcc} =~ ^gcc(-[0-9]+)?$ ]] ||
	{ echo "usage: $0 [SUITE [gcc-N]]" >&2; exit 2; }
suite=${1:-bookworm} cc=${2:-gcc}
# Bump when the root is made differently: older caches get redone.
FORMAT=1
# What the suite and DKMS run (tests/lib/preflight.sh names the commands);
# pahole, and after bookworm the libraries of linux-kbuild's programs, by
# their names in SUITE (a dependency of nothing else there).
case $suite in
bullseye|bookworm) libs=dwarves ;;
*) libs="pahole libelf1t64 libssl3t64" ;;
esac
pkgs="bash iproute2 nftables iptables jq ethtool strace dkms kmod util-linux
	bpftool procps busybox-static gcc $cc make libc6-dev $libs curl python3
	perl binutils file xz-utils zstd conntrack ca-certificates"
pkgs=$(echo $pkgs | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ')
dir=$CG_BUILD/roots/arm64-$suite
stamp="$suite|$(echo $pkgs)|format $FORMAT"

# qemu-aarch64-static from qemu-user-static's .deb, unpacked next to the
# root (a static interpreter: binfmt's F flag opens it once, and it runs
# inside the chroot without any library of this machine).
qemu_user()
{
	local q=$CG_BUILD/roots/qemu-user-static

	if [ ! -x "$q/usr/bin/qemu-aarch64-static" ]; then
		rm -rf "$q" && mkdir -p "$q/deb"
		(cd "$q/deb" && apt-get -q -o APT::Sandbox::User=root download qemu-user-static >&2) ||
			cg_die "cannot download qemu-user-static"
		dpkg -x "$q"/deb/qemu-user-static_*.deb "$q"
		rm -rf "$q/deb"
	fi
	echo "$q/usr/bin/qemu-aarch64-static"
}

# second_stage ROOT QEMU: debootstrap --second-stage in ROOT, in new user,
# mount and PID namespaces. The user namespace maps uids and gids 0-65535
# to themselves (written from here: no newuidmap), so that dpkg's chown
# works; in it, a binfmt_misc of its own, /proc, and the host's /dev bound.
# container=lxc: debootstrap skips its mknod test of the target (no device
# nodes in a user namespace; nothing in the root needs one).
second_stage()
{
	local root=$1 qemu=$2 fifo=$dir.tmp.go pid rc=0

	rm -f "$fifo" && mkfifo "$fifo"
	unshare --user --mount --pid --fork --kill-child bash -c '
		set -e
		read -r _ <"$1"
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		printf "%s" ":cg-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:$3:F" \
			>/proc/sys/fs/binfmt_misc/register
		mount -t proc proc "$2/proc"
		mount --rbind /dev "$2/dev"
		container=lxc LC_ALL=C.UTF-8 chroot "$2" /debootstrap/debootstrap --second-stage
	' _ "$fifo" "$root" "$qemu" &
	pid=$!
	# (unshare itself is in the new user namespace: map it, then go)
	sleep 0.2
	echo "0 0 65536" >"/proc/$pid/uid_map" && echo "0 0 65536" >"/proc/$pid/gid_map" ||
		{ kill "$pid"; wait "$pid"; rm -f "$fifo"; return 1; }
	echo go >"$fifo"
	wait "$pid" || rc=$?
	rm -f "$fifo"
	return $rc
}

mkdir -p "$CG_BUILD/roots"
exec 9>"$dir.lock"
flock 9
if [ "$(cat "$dir/ready" 2>/dev/null)" != "$stamp" ]; then
	cg_need_pkgs debootstrap util-linux
	qemu=$(qemu_user)
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	cg_msg "debootstrap --foreign --arch=arm64 $suite from $(cg_mirror 0)"
	debootstrap --foreign --arch=arm64 --variant=minbase \
		--include="$(echo $pkgs | tr ' ' ,)" \
		"$suite" "$dir.tmp" "$(cg_mirror 0)" >"$dir.log" 2>&1 ||
		cg_die "debootstrap --foreign failed: $(tail -1 "$dir.log")"
	# (--foreign leaves /proc a link to the host's: mount points instead)
	[ -L "$dir.tmp/proc" ] && rm "$dir.tmp/proc" && mkdir "$dir.tmp/proc"
	cg_msg "debootstrap --second-stage under qemu-aarch64-static"
	second_stage "$dir.tmp" "$qemu" >>"$dir.log" 2>&1 ||
		cg_die "debootstrap --second-stage failed: $(tail -1 "$dir.log")"
	[ ! -e "$dir.tmp/debootstrap" ] ||
		cg_die "debootstrap --second-stage did not finish (see $dir.log)"
	rm -f "$dir.tmp"/var/cache/apt/archives/*.deb
	echo "cg-arm64" >"$dir.tmp/etc/hostname"
	echo "$stamp" >"$dir.tmp/ready"
	mv "$dir.tmp" "$dir"
fi
echo "ROOT=$(cg_shquote "$dir")"
