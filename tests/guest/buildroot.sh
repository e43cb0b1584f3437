#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/buildroot.sh - a Debian root that builds modules with the
# compiler of its release, for headers this machine's gcc cannot use
#
#   buildroot.sh SUITE CC   make SUITE's build root with compiler CC (the
#                           gcc-N the headers name) or reuse its cache, and
#                           print ROOT=<its directory>, for `eval`
#
# Debian 7.x headers want sid's gcc-16, whose flags gcc-12 rejects, and
# their kbuild tools (fixdep, modpost, objtool) need sid's glibc: the module
# is built inside that release, as a user's DKMS does it there.  The root
# is debootstrap's minbase from the archive this machine is set up with,
# then, with apt inside it: dkms, make, CC, pahole and the libraries of
# linux-kbuild.  Cache: build/roots/build-SUITE/, with a stamp of what it
# holds, so that a run cut short is redone.  Nothing outside build/ is
# written but the debootstrap package itself.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] && [[ $1 =~ ^[a-z]+$ ]] && [[ $2 =~ ^gcc-[0-9]+$ ]] ||
	{ echo "usage: $0 SUITE gcc-N" >&2; exit 2; }
suite=$1 cc=$2
# Bump when the root is made differently: older caches get redone.
FORMAT=1
# linux-kbuild's libraries and pahole by their names in SUITE
case $suite in
bullseye) libs="dwarves libelf1 libssl1.1" ;;
bookworm) libs="pahole libelf1 libssl3" ;;
*) libs="pahole libelf1t64 libssl3t64" ;;
esac
pkgs="dkms make $cc libc6-dev $libs zlib1g openssl kmod xz-utils zstd"
root=$CG_BUILD/roots/build-$suite
stamp="$suite|$pkgs|format $FORMAT"

mkdir -p "$CG_BUILD/roots"
exec 9>"$root.lock"
flock 9
if [ "$(cat "$root/.cg-root-done" 2>/dev/null)" != "$stamp" ]; then
	cg_need_pkgs debootstrap
	rm -rf "$root" "$root.tmp"
	cg_msg "debootstrap $suite for a build root with $cc from $(cg_mirror 0)"
	debootstrap --variant=minbase "$suite" "$root.tmp" "$(cg_mirror 0)" >"$root.log" 2>&1 ||
		cg_die "debootstrap $suite failed: $(tail -1 "$root.log")"
	echo "deb $(cg_mirror 0) $suite main" >"$root.tmp/etc/apt/sources.list"
	# apt in the chroot, in a mount namespace of its own: nothing stays
	# mounted on the host, whatever happens.
	# shellcheck disable=SC2086
	unshare --mount --propagation private bash -euo pipefail -c '
		root=$1; shift
		mount -t proc proc "$root/proc"
		export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
		chroot "$root" apt-get -q -o Acquire::Check-Valid-Until=false update
		chroot "$root" apt-get -q -y --no-install-recommends install "$@"
		chroot "$root" apt-get -q clean
	' _ "$root.tmp" $pkgs >>"$root.log" 2>&1 ||
		cg_die "installing the build root's packages failed: $(grep -m1 -E '^E:' "$root.log" || tail -1 "$root.log")"
	echo "$stamp" >"$root.tmp/.cg-root-done"
	mv "$root.tmp" "$root"
fi
echo "ROOT=$(cg_shquote "$root")"
