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

NAME=${1:?usage: tests/guest/dkms.sh NAME}
LOG=$B/$NAME.log

eval "$("$TOP/tests/guest/fetch.sh" "$NAME")" && [ -n "${KVER:-}" ] ||
	{ echo "cannot fetch kernel $NAME" >&2; exit 1; }
. "$TOP/tests/guest/lib.sh"
cg_kernel "$NAME"

# What a source package ships: dkms.conf, VERSION, kmod/, include/.
mkdir -p "$B" && exec 9>"$B/lock" && flock 9
rm -rf "$SRC" "$B/tree/csum-guard" "$B/install/$KVER/updates"
mkdir -p "$SRC/kmod" "$B/tree" "$B/install/$KVER"
cp "$TOP/dkms.conf" "$TOP/VERSION" "$SRC/" && cp -r "$TOP/include" "$SRC/" &&
	cp "$TOP"/kmod/*.[ch] "$TOP/kmod/Kbuild" "$TOP/kmod/Makefile" "$SRC/kmod/" &&
	rm -f "$SRC"/kmod/*.mod.c || exit 1

build() {
	if [ "$CG_KARCH" = arm64 ]; then
		"$TOP/tests/guest/run.sh" --kernel "$NAME" --timeout 1200 --share-rw "$B" -- \
			bash "$TOP/tests/guest/dkms.sh" --in-guest "$KVER" "$HEADERS"
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
