#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# packaging/kmods.sh TARBALL KEY CERT OUT [NAME...] - build csum_guard.ko from
# the DKMS source TARBALL for each kernel NAME of tests/guest/kernels.list,
# sign it with the module signing KEY and CERT, and leave it as
# OUT/KVER/csum_guard.ko, with OUT/KVER/arch (amd64, arm64) and
# OUT/KVER/built-with (the root's release and compiler). Run from the top
# of the tree.
#
# Each module is built as a host of that kernel's release would build it:
# in a Debian root of the release (tests/guest/buildroot.sh, cached under
# build/roots/) with the compiler the kernel's headers name (gcc-10 for
# bullseye's 5.10, gcc-12 for bookworm's 6.1 and its backported 6.12,
# gcc-14 for trixie's 6.12), against the headers tests/guest/fetch.sh
# unpacks (build/kernels/). An arm64 kernel's module is built in an arm64
# root of its release (tests/guest/armroot.sh), whose programs, and the
# headers' kbuild tools, run under qemu-user (tests/guest/armrun.sh). The
# release comes from the kernel's suite in kernels.list (-security and
# -backports dropped). Then debug information goes, as Debian strips its
# own modules, and sign-file of the kernel's linux-kbuild signs it with
# sha256, inside the same root (its libcrypto).
#
# The source is unpacked at one fixed path for every build, so two builds
# of one tree give the same module bytes; RSA PKCS#1 v1.5 signatures are
# deterministic too. Build logs: build/kmods/KVER.log.
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: $0 TARBALL KEY CERT OUT [NAME...]" >&2; exit 2; }
tarball=$1 key=$2 cert=$3 out=$4
shift 4
die() { echo "kmods.sh: $*" >&2; exit 1; }
[ -f "$tarball" ] || die "no DKMS source $tarball: make dist makes it"
[ -r "$key" ] || die "cannot read the module signing key $key (MODULE_KEY=)"
[ -r "$cert" ] || die "cannot read the module signing certificate $cert (MODULE_CERT=)"
openssl x509 -in "$cert" -noout 2>/dev/null || openssl x509 -inform DER -in "$cert" -noout 2>/dev/null ||
	die "$cert is not an X.509 certificate (MODULE_CERT=)"

top=$(pwd -P)
work=$top/build/kmods
mkdir -p "$work" "$out"
exec 8>"$work/lock"
flock 8

. tests/guest/lib.sh

# run a command in $ROOT, the source and the kernel cache bound at their
# own paths: a root of this machine's architecture by chroot, an arm64 one
# under qemu-user (armrun.sh)
in_chroot() {
	unshare --mount --propagation private bash -euo pipefail -c '
		root=$1 src=$2 kernels=$3
		shift 3
		mount -t proc proc "$root/proc"
		for d in "$src" "$kernels"; do
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		chroot "$root" "$@"
	' _ "$ROOT" "$src" "$CG_KERNELS" "$@"
}
in_armroot() {
	tests/guest/armrun.sh "$ROOT" --bind "$src" --bind "$CG_KERNELS" -- "$@"
}

for name; do
	KVER= HEADERS=
	eval "$(tests/guest/fetch.sh "$name")" && [ -n "$KVER" ] || die "cannot fetch kernel $name"
	cg_kernel "$name"
	# the release's root, with the compiler the kernel was built with
	# (fetch.sh may have pointed the headers at this machine's gcc)
	suite=$CG_KSUITE arch=$CG_KARCH
	cc=$(cg_kernel_cc "$HEADERS") || die "$name: cannot tell the compiler it was built with"
	ROOT=
	case $arch in
	"$(dpkg --print-architecture)")
		eval "$(tests/guest/buildroot.sh "$suite" "$cc")"
		run=in_chroot ;;
	arm64)
		# its programs, and the headers' kbuild tools, are arm64 ones
		eval "$(tests/guest/armroot.sh "$suite" "$cc")"
		run=in_armroot ;;
	*)
		die "$name is an $arch kernel: only $(dpkg --print-architecture) and arm64 kernels are built here" ;;
	esac
	[ -n "$ROOT" ] || die "cannot make a $suite $arch root with $cc for $name"

	# one fixed path for the source, bound into the root with the kernel
	# cache (kbuild writes temporary files next to the headers)
	src=$work/src
	rm -rf "$src" && mkdir -p "$src/sign"
	tar -C "$src" -xzf "$tarball"
	install -m 0600 "$key" "$src/sign/key.pem"
	install -m 0644 "$cert" "$src/sign/cert"
	log=$work/$KVER.log
	echo "kmods.sh: $KVER in the $suite $arch root with $cc" >&2
	# what runs in the root: SRC HEADERS CC
	build='mod=$(echo "$1"/csum-guard-*/kmod)
		make -C "$mod" KDIR="$2" CC="$3" modules
		strip --strip-debug "$mod/csum_guard.ko"
		"$2/scripts/sign-file" sha256 "$1/sign/key.pem" "$1/sign/cert" "$mod/csum_guard.ko"'
	"$run" env LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin bash -euo pipefail -c "$build" _ \
		"$src" "$HEADERS" "$cc" >"$log" 2>&1 || {
		rm -rf "$src/sign"
		die "$KVER: the build failed: $(grep -m1 -iE 'error|fail' "$log" || tail -1 "$log")"
	}
	rm -rf "$src/sign"
	install -D -m 0644 "$src"/csum-guard-*/kmod/csum_guard.ko "$out/$KVER/csum_guard.ko"
	echo "$suite $cc" >"$out/$KVER/built-with"
	echo "$arch" >"$out/$KVER/arch"
done
