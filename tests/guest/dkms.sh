#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/dkms.sh NAME - build and install csum_guard.ko with DKMS for
# kernel NAME of kernels.list, against its fetched headers, in private DKMS
# trees under build/dkms (nothing system-wide); print the directory that
# holds the module, for run.sh --modules-dir. The DKMS output goes to
# build/dkms/NAME.log; on failure its first error line goes to stderr.
#
# An arm64 kernel's module is built by DKMS inside an arm64 guest of that
# kernel (run.sh), as on an arm64 machine: the headers' kbuild tools
# (fixdep, modpost) are arm64 programs, and a user's DKMS builds with the
# native compiler for the running kernel.  The source and the DKMS trees
# are prepared here and shared read-write into the guest.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=$TOP/build/dkms
VER=$(cat "$TOP/VERSION")
SRC=$B/src/csum-guard-$VER

dk() { dkms --sourcetree "$B/src" --dkmstree "$B/tree" --installtree "$B/install" "$@"; }

# --in-guest KVER HEADERS: the DKMS commands alone (in the arm64 guest,
# where the root is read-only: DKMS's own state, its signing key, goes to
# a tmpfs).
if [ "${1:-}" = --in-guest ]; then
	KVER=$2 HEADERS=$3
	mount -t tmpfs tmpfs /var/lib/dkms || exit 1
	dk add -m csum-guard -v "$VER" &&
	dk build -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" &&
	dk install -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" --no-depmod
	exit
fi

# --kbuild NAME DIR: build the out-of-tree module in DIR (its Kbuild and
# source: tests/tools/cg-hold) against NAME's headers, with the compiler
# and in the root that NAME's DKMS build uses; make's output to stdout.
KB=
if [ "${1:-}" = --kbuild ]; then
	KB=${3:?usage: tests/guest/dkms.sh --kbuild NAME DIR}
	KB=$(realpath -e "$KB") || exit 1
	shift
fi
NAME=${1:?usage: tests/guest/dkms.sh [--kbuild] NAME [DIR]}
LOG=$B/$NAME.log

eval "$("$TOP/tests/guest/fetch.sh" "$NAME")" && [ -n "${KVER:-}" ] ||
	{ echo "cannot fetch kernel $NAME" >&2; exit 1; }
. "$TOP/tests/guest/lib.sh"
cg_kernel "$NAME"

# What a source package ships: dkms.conf, VERSION, kmod/, include/.
mkdir -p "$B" && exec 9>"$B/lock" && flock 9
if [ -z "$KB" ]; then
	rm -rf "$SRC" "$B/tree/csum-guard" "$B/install/$KVER/updates"
	mkdir -p "$SRC/kmod" "$B/tree" "$B/install/$KVER"
	cp "$TOP/dkms.conf" "$TOP/VERSION" "$SRC/" && cp -r "$TOP/include" "$SRC/" &&
		cp "$TOP"/kmod/*.[ch] "$TOP/kmod/Kbuild" "$TOP/kmod/Makefile" "$SRC/kmod/" &&
		rm -f "$SRC"/kmod/*.mod.c || exit 1
fi

# Headers that want a newer gcc than this machine's (fetch.sh left their
# compiler as it was: 7.x want gcc-16) are built in a root of the kernel's
# release that has it (buildroot.sh), as a user's DKMS builds there: its
# dkms and compiler, the DKMS trees and the kernel cache bound at their own
# paths (kbuild writes its temporary files in the headers' directory), /proc mounted (7.x objtool reads its stack limit there).
cc=$(cg_headers_cc "$HEADERS")
suite=
if [ "$CG_KARCH" = amd64 ] && [ -n "$cc" ] && ! command -v "$cc" >/dev/null; then
	suite=$CG_KSUITE
	ROOT=
	eval "$("$TOP/tests/guest/buildroot.sh" "$suite" "$cc")" && [ -n "$ROOT" ] ||
		{ echo "cannot make a $suite root with $cc for $NAME" >&2; exit 1; }
fi

in_root() {
	unshare --mount --propagation private bash -euo pipefail -c '
		root=$1 b=$2 k=$3; shift 3
		mount -t proc proc "$root/proc"
		for d in "$b" "$k" ${kb:+"$kb"}; do
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		exec chroot "$root" env LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
	' _ "$ROOT" "$B" "$CG_KERNELS" "$@"
}

if [ -n "$KB" ]; then
	if [ "$CG_KARCH" != amd64 ]; then
		echo "--kbuild: $NAME's kbuild tools are $CG_KARCH programs" >&2
		exit 1
	elif [ -n "$suite" ]; then
		export kb=$KB && in_root make -s -C "$HEADERS" M="$KB" modules
	else
		make -s -C "$HEADERS" M="$KB" modules
	fi
	exit
fi

build() {
	if [ "$CG_KARCH" = arm64 ]; then
		"$TOP/tests/guest/run.sh" --kernel "$NAME" --timeout 1200 --share-rw "$B" -- \
			bash "$TOP/tests/guest/dkms.sh" --in-guest "$KVER" "$HEADERS"
	elif [ -n "$suite" ]; then
		echo "building in the $suite root $ROOT with $cc"
		in_root dkms --sourcetree "$B/src" --dkmstree "$B/tree" --installtree "$B/install" \
			add -m csum-guard -v "$VER" &&
		in_root dkms --sourcetree "$B/src" --dkmstree "$B/tree" --installtree "$B/install" \
			build -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" &&
		in_root dkms --sourcetree "$B/src" --dkmstree "$B/tree" --installtree "$B/install" \
			install -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" --no-depmod
	else
		dk add -m csum-guard -v "$VER" &&
		dk build -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" &&
		dk install -m csum-guard -v "$VER" -k "$KVER" --kernelsourcedir "$HEADERS" --no-depmod
	fi
}
if ! build >"$LOG" 2>&1; then
	grep -m1 -i error "$LOG" >&2 || tail -1 "$LOG" >&2
	exit 1
fi
ko=$(find "$B/install/$KVER" -name 'csum_guard.ko*' | head -1)
[ -n "$ko" ] || { echo "dkms installed no csum_guard.ko for $KVER" >&2; exit 1; }
dirname "$ko"
