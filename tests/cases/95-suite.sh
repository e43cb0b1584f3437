# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 95-suite.sh - the suite's own health, checked where it is cheap: every
# mutant of tests/mutants.list still applies to the code it mutates.
#
# make test-mutants builds and runs each mutant (an hour with the guests);
# that a mutant's pattern still matches takes a millisecond, so make test
# checks it, and a change that moves mutated code fails here, in the same
# run, instead of in the next make test-matrix.

case_mutants_apply() {
	local t="mutants-apply" line name backend cases file perl n=0 stale=

	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		IFS='|' read -r name backend cases file perl <<<"${line// | /|}"
		n=$((n + 1))
		if [ ! -f "$TOP/$file" ]; then
			stale="$stale $name($file: no such file)"
		elif ! perl -0pe "$perl" "$TOP/$file" 2>/dev/null | cmp -s - "$TOP/$file"; then
			:	# it changes the file: it applies
		else
			stale="$stale $name($file)"
		fi
	done <"$TOP/tests/mutants.list"
	if [ "$n" = 0 ]; then
		fail "$t: tests/mutants.list has no mutant"
	elif [ -z "$stale" ]; then
		pass "$t: each of the $n mutants of tests/mutants.list still changes its file"
	else
		fail "$t: stale mutants (their pattern no longer matches):$stale"
	fi
}
cg_host_case mutants_apply
