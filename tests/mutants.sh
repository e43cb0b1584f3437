#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# mutants.sh - does the suite fail when the code is wrong? Each mutant of
# tests/mutants.list is applied to a copy of the tree, built, and run
# against the cases that must catch it; a mutant that every one of them
# passes has survived, and that is a failure of the suite.
#
#   tests/mutants.sh [NAME...]      (make test-mutants: all of them)
#
# The copy is of the working tree (tracked files and new ones that git does
# not ignore). bpf mutants run on this kernel (tests/run.sh --here); kmod
# mutants boot CG_MUTANT_KERNEL (deb6.1-vuln) with the mutated module built
# by DKMS.
# Prints PASS (caught) / FAIL (survived, stale or broken) per mutant and
# ends with "N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
LIST=tests/mutants.list
: "${CG_MUTANT_KERNEL:=deb6.1-vuln}"

if [ "$(id -u)" != 0 ]; then
	echo "tests/mutants.sh: must be run as root, as the suite is" >&2
	exit 1
fi
if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "tests/mutants.sh: needs a git checkout (the mutants copy its tracked files)" >&2
	exit 1
fi
WORK=$(mktemp -d /tmp/cg-mutants.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

n_pass=0 n_fail=0
pass() { n_pass=$((n_pass + 1)); echo "PASS $*"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $*"; }

# mutant NAME BACKEND CASES FILE PERL
mutant() {
	local name=$1 backend=$2 cases=$3 file=$4 perl=$5 dir=$WORK/$1 log=$WORK/$1.log t0=$SECONDS
	local fails

	mkdir -p "$dir"
	git -C "$TOP" ls-files -z --cached --others --exclude-standard | (cd "$TOP" && tar --null -T - -cf -) | tar -C "$dir" -xf -
	if ! perl -0pe "$perl" "$TOP/$file" >"$dir/$file" 2>"$log" || cmp -s "$TOP/$file" "$dir/$file"; then
		fail "mutant $name: does not apply to $file: tests/mutants.list has gone stale ($(head -1 "$log"))"
		return
	fi
	# The real tree's build, so that make rebuilds only what the mutant
	# touches (tar keeps the sources' times; the mutated file is newer),
	# and the guest kernels it fetched serve its copies too.
	mkdir -p "$dir/build"
	[ -d "$TOP/build" ] && tar -C "$TOP/build" --exclude=./kernels --exclude=./dist -cf - . |
		tar -C "$dir/build" -xf -
	[ -d "$TOP/build/kernels" ] && ln -s "$TOP/build/kernels" "$dir/build/kernels"
	# (the tools too: the unit tests and the test builds of the program,
	# guard-helper.bpf.o among them, compile the mutated headers)
	if ! make -C "$dir" -s all tools >"$log" 2>&1; then
		fail "mutant $name: does not build, so it tests nothing: $(grep -m1 -i error "$log")"
		return
	fi
	case $backend in
	bpf)
		# in a mount namespace of its own with a bpffs of its own: what a
		# mutated loader leaves pinned goes with it, not onto the host
		(cd "$dir" && unshare -m --propagation private sh -c \
			'mount -t bpf bpf /sys/fs/bpf && exec tests/run.sh --here --backend bpf --case "$0"' \
			"$cases") >"$log" 2>&1 ;;
	kmod)
		(cd "$dir" && CG_GUESTS="$CG_MUTANT_KERNEL:kmod" tests/run.sh --backend kmod --case "$cases") \
			>"$log" 2>&1 ;;
	esac
	# caught: a case failed (the leak and machine checks do not count)
	fails=$(grep '^FAIL ' "$log" | grep -v '^FAIL \(\[[^]]*\] \)\?\(leak-check\|machine-check\|preflight\)')
	if [ -n "$fails" ]; then
		pass "mutant $name [$backend]: caught by $(wc -l <<<"$fails") failure(s), first: $(head -1 <<<"$fails" |
			cut -c6-160) ($((SECONDS - t0)) s)"
	else
		fail "mutant $name [$backend]: survived $cases ($(tail -1 "$log"))"
	fi
	rm -rf "$dir"
}

want=" $* "
while IFS= read -r line; do
	case $line in '#'*|'') continue ;; esac
	IFS='|' read -r name backend cases file perl <<<"${line// | /|}"
	[ $# = 0 ] || [[ "$want" == *" $name "* ]] || continue
	mutant "$name" "$backend" "$cases" "$file" "$perl"
done <"$LIST"
echo "$n_pass passed, $n_fail failed"
[ $n_fail = 0 ] && [ $n_pass -gt 0 ]
