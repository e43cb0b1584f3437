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
# guest by DKMS (or here, for the repository: packaging/kmods.sh) with the
# compiler its headers name, so a kernel of a newer release (sid's 7.x want
# gcc-16) runs in a root of its own release.  debootstrap --foreign
# --arch=arm64 unpacks it on this machine.  Its second stage (dpkg
# configuring every package) runs arm64 programs: here under qemu-user
# (armrun.sh: a user namespace of its own whose binfmt_misc instance sends
# arm64 ELF files to qemu-aarch64-static).  Nothing is registered on the
# host, no dpkg --add-architecture, and qemu-user-static is unpacked into
# the cache, not installed.  (The same second stage inside a
# qemu-system-aarch64 guest on a 9p root took minutes per package.)
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

mkdir -p "$CG_BUILD/roots"
exec 9>"$dir.lock"
flock 9
if [ "$(cat "$dir/ready" 2>/dev/null)" != "$stamp" ]; then
	cg_need_pkgs debootstrap util-linux
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
	# (container=lxc: debootstrap skips its mknod test of the target: no
	# device nodes in a user namespace, and nothing in the root needs one)
	"$CG_GUEST_DIR/armrun.sh" "$dir.tmp" -- \
		env container=lxc LC_ALL=C.UTF-8 /debootstrap/debootstrap --second-stage \
		>>"$dir.log" 2>&1 ||
		cg_die "debootstrap --second-stage failed: $(tail -1 "$dir.log")"
	[ ! -e "$dir.tmp/debootstrap" ] ||
		cg_die "debootstrap --second-stage did not finish (see $dir.log)"
	rm -f "$dir.tmp"/var/cache/apt/archives/*.deb
	echo "cg-arm64" >"$dir.tmp/etc/hostname"
	echo "$stamp" >"$dir.tmp/ready"
	mv "$dir.tmp" "$dir"
fi
echo "ROOT=$(cg_shquote "$dir")"
