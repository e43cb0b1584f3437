#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/table.sh NAME=LOG... - the kernel table of guest runs made
# with run.sh alone, as tests/run.sh prints it at the end of make test
#
# Each LOG is the output of `tests/run.sh --here` in the guest of kernel
# NAME (run.sh's stdout); its PASS/FAIL/SKIP lines are tagged [NAME], as
# tests/guests.sh folds a guest's results in, and kernel_table
# (tests/lib/common.sh) prints one row per NAME. Several logs of one NAME
# (two boots, one per backend) make one row. A log without the suite's
# last line ("N passed, N failed, N skipped") is an error: that guest gave
# no verdict.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
[ $# -gt 0 ] || { echo "usage: $0 NAME=LOG..." >&2; exit 2; }
. tests/lib/common.sh
trap 'rm -rf "$TMPD"' EXIT

for a; do
	k=${a%%=*} log=${a#*=}
	[ "$k" != "$a" ] && [ -r "$log" ] || { echo "$0: $a: not NAME=LOG" >&2; exit 2; }
	grep -Eq '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" ||
		{ echo "$0: $log: the guest gave no verdict" >&2; exit 1; }
	while read -r r rest; do
		case $r in
		PASS|FAIL|SKIP) echo "$r [$k] $rest" >>"$RESULTS" ;;
		esac
	done <"$log"
done
kernel_table
