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
list=$top/tests/guest/kernels.list
work=$top/build/kmods
mkdir -p "$work" "$out"
exec 8>"$work/lock"
flock 8

# the root NAME builds in: "SUITE gcc-N", from kernels.list and the headers
root_of()
{
	local suite cc text

	suite=$(awk -v n="$1" '$1 == n { print $2 }' "$list")
	suite=${suite%-security}
	suite=${suite%-backports}
	# the kernel's own compiler is in its config ("gcc-12 (Debian 12.2.0-14)
	# 12.2.0", "x86_64-linux-gnu-gcc-12 (...)"): fetch.sh may have pointed
	# the headers' .kernelvariables at this machine's gcc
	text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$2/.config")
	cc=$(grep -o 'gcc-[0-9][0-9]*' <<<"$text" | head -1)
	[ -n "$cc" ] || cc=$(sed -n 's/.*(Debian \([0-9][0-9]*\)\..*/gcc-\1/p' <<<"$text")
	[ -n "$suite" ] && [ -n "$cc" ] || return 1
	echo "$suite $cc"
}

for name; do
	KVER= HEADERS=
	eval "$(tests/guest/fetch.sh "$name")" && [ -n "$KVER" ] || die "cannot fetch kernel $name"
	read -r suite cc < <(root_of "$name" "$HEADERS") || die "$name: cannot tell its release and compiler"
	arch=$(sed -n 's/^CONFIG_X86_64=y$/amd64/p; s/^CONFIG_ARM64=y$/arm64/p' "$HEADERS/.config")
	ROOT=
	case $arch in
	"$(dpkg --print-architecture)")
		eval "$(tests/guest/buildroot.sh "$suite" "$cc")" ;;
	arm64)
		# an arm64 root of the release, its programs under qemu-user
		# (the headers' kbuild tools are arm64 programs too)
		eval "$(tests/guest/armroot.sh "$suite" "$cc")" ;;
	*)
		die "$name is an ${arch:-unknown} kernel: only $(dpkg --print-architecture) and arm64 kernels are built here" ;;
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
	kernels=$(realpath "$top/build/kernels")
	# what runs in the root: SRC HEADERS CC
	build='mod=$(echo "$1"/csum-guard-*/kmod)
		make -C "$mod" KDIR="$2" CC="$3" modules
		strip --strip-debug "$mod/csum_guard.ko"
		"$2/scripts/sign-file" sha256 "$1/sign/key.pem" "$1/sign/cert" "$mod/csum_guard.ko"'
	env=(env LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin bash -euo pipefail -c "$build" _
	     "$src" "$HEADERS" "$cc")
	if [ "$arch" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
		tests/guest/armrun.sh "$ROOT" --bind "$src" --bind "$kernels" -- "${env[@]}" >"$log" 2>&1
	else
		unshare --mount --propagation private bash -euo pipefail -c '
			root=$1 src=$2 kernels=$3
			shift 3
			mount -t proc proc "$root/proc"
			for d in "$src" "$kernels"; do
				mkdir -p "$root$d"
				mount --bind "$d" "$root$d"
			done
			chroot "$root" "$@"
		' _ "$ROOT" "$src" "$kernels" "${env[@]}" >"$log" 2>&1
	fi || {
		rm -rf "$src/sign"
		die "$KVER: the build failed: $(grep -m1 -iE 'error|fail' "$log" || tail -1 "$log")"
	}
	rm -rf "$src/sign"
	install -D -m 0644 "$src"/csum-guard-*/kmod/csum_guard.ko "$out/$KVER/csum_guard.ko"
	echo "$suite $cc" >"$out/$KVER/built-with"
	echo "$arch" >"$out/$KVER/arch"
done
