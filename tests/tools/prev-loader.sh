#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# prev-loader.sh COMMIT VERSION OUT - the loader of an earlier commit of
# this tree, built by that commit's own Makefile in a scratch directory
# beside OUT and reporting VERSION: what the tests take for a release
# before this one. Where the commit is not in the repository (a release
# tarball, a shallow clone) OUT is not made and OUT.missing says why.
set -eu
commit=$1 version=$2 out=$3

rm -f "$out" "$out.missing"
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
	echo "commit $commit is not in this tree's git history" >"$out.missing"
	exit 0
fi
dir=$(mktemp -d "$out.XXXXXX")
trap 'rm -rf "$dir" "$dir.log"' EXIT
git archive "$commit" | tar -x -C "$dir"
if ! ${MAKE:-make} -C "$dir" --no-print-directory BUILD=build LOADER_VERSION="$version" build/csum-guard \
	>"$dir.log" 2>&1; then
	tail -20 "$dir.log" >&2
	exit 1
fi
cp "$dir/build/csum-guard" "$out"
