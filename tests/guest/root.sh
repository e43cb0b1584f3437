#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/root.sh - a Debian root of another release, for the loader on
# an older userland than this machine's
#
#   root.sh SUITE     make SUITE's minimal root (or reuse its cache) and
#                     print ROOT=<its directory>, for `eval`
#
# debootstrap --variant=minbase from the archive this machine is set up
# with, into build/roots/SUITE/; a stamp marks a finished root, so a run cut
# short is redone. Nothing outside build/ is written but the debootstrap
# package itself.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] && [[ $1 =~ ^[a-z]+$ ]] || { echo "usage: $0 SUITE" >&2; exit 2; }
suite=$1
roots=$(cd "$(dirname "$0")/../.." && pwd)/build/roots
root=$roots/$suite

if [ ! -e "$root/.cg-root-done" ]; then
	cg_need_pkgs debootstrap
	rm -rf "$root" "$root.tmp"
	mkdir -p "$roots"
	cg_msg "debootstrap $suite from $(cg_mirror 0)"
	debootstrap --variant=minbase "$suite" "$root.tmp" "$(cg_mirror 0)" >&2 ||
		cg_die "debootstrap $suite failed"
	touch "$root.tmp/.cg-root-done"
	mv "$root.tmp" "$root"
fi
echo "ROOT=$(cg_shquote "$root")"
