# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# cases.sh - how a case is declared, chosen and run.
#
# A case is a function case_NAME in a file of tests/cases/, registered by
# one line of the same file, next to it:
#
#   cg_case NAME [ARG]          once per backend: case_NAME ARG
#   cg_case --demo NAME [ARG]   the same, and a row of tests/run.sh --demo
#   cg_kernel_case NAME [ARG]   once per kernel, after the backends' cases
#   cg_host_case NAME           once per tests/run.sh with its guests, on
#                               the host, after its own cases (tests/guests.sh)
#
# The files' names begin with two digits, a different number each:
# cases_source reads them in that order, so the cases run in the order of
# the files and, in each file, of its registrations. Adding a case is one
# edit to one file: the function and its line. A new file takes a number
# between those of the files whose cases run before and after its own.
# `tests/run.sh --case NAME` runs the cases whose "NAME ARG" contains NAME.

CG_CASES=()		# "NAME [ARG]" each, in order
CG_DEMO_CASES=()
CG_KERNEL_CASES=()
CG_HOST_CASES=()

cg_case() {
	if [ "$1" = --demo ]; then
		shift
		CG_DEMO_CASES+=("$*")
	fi
	CG_CASES+=("$*")
}
cg_kernel_case() { CG_KERNEL_CASES+=("$*"); }
cg_host_case() { CG_HOST_CASES+=("$*"); }

# cases_source DIR: the case files of DIR, in the order of their numbers;
# then every case registered has its function and every case function is
# registered, or the suite does not run (a case must not vanish).
cases_source() {
	local f n seen=" " bad=0 c fn

	for f in "$1"/*.sh; do
		n=${f##*/}
		n=${n%%-*}
		if [[ ! $n =~ ^[0-9][0-9]$ ]] || [[ $seen == *" $n "* ]]; then
			echo "tests/run.sh: $f: a case file's name is a number of its own, two digits, then -NAME.sh" >&2
			bad=1
		fi
		seen="$seen$n "
		. "$f"
	done
	for c in "${CG_CASES[@]}" "${CG_KERNEL_CASES[@]}" "${CG_HOST_CASES[@]}"; do
		declare -F "case_${c%% *}" >/dev/null && continue
		echo "tests/run.sh: case '$c' is registered, but nothing defines case_${c%% *}" >&2
		bad=1
	done
	for fn in $(compgen -A function case_); do
		for c in "${CG_CASES[@]}" "${CG_KERNEL_CASES[@]}" "${CG_HOST_CASES[@]}"; do
			[ "case_${c%% *}" = "$fn" ] && continue 2
		done
		echo "tests/run.sh: $fn is defined, but no cg_case line registers it" >&2
		bad=1
	done
	return $bad
}

# cg_selected "NAME [ARG]": does the --case filter let it through?
cg_selected() {
	local w
	[ -z "$only_case" ] && return 0
	for w in ${only_case//,/ }; do
		[[ "$1" == *"$w"* ]] && return 0
	done
	return 1
}

# cg_run "NAME [ARG]": case_NAME ARG
cg_run() {
	local w

	read -ra w <<<"$1"
	"case_${w[0]}" "${w[@]:1}"
}
