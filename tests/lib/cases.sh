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
#   cg_host_case --after-guests NAME [ARG]   the same, once the guests have
#                               ended: a case that boots QEMU itself would
#                               take the guests' CPUs
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
CG_AFTER_GUESTS=()	# host cases that boot QEMU themselves: after the guests
CG_CASE_PID=		# the case running now (cg_run)

cg_case() {
	if [ "$1" = --demo ]; then
		shift
		CG_DEMO_CASES+=("$*")
	fi
	CG_CASES+=("$*")
}
cg_kernel_case() { CG_KERNEL_CASES+=("$*"); }
cg_host_case() {
	if [ "$1" = --after-guests ]; then
		shift
		CG_AFTER_GUESTS+=("$*")
	fi
	CG_HOST_CASES+=("$*")
}
# cg_after_guests "NAME [ARG]": registered with --after-guests?
cg_after_guests() {
	local c
	for c in "${CG_AFTER_GUESTS[@]}"; do
		[ "$c" = "$1" ] && return 0
	done
	return 1
}

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

# cg_selected "NAME [ARG]": does the --case filter let it through? Its
# words are split at commas only ("syn_connect tc" picks that one)
cg_selected() {
	local w ws
	[ -z "$only_case" ] && return 0
	IFS=, read -ra ws <<<"$only_case"
	for w in "${ws[@]}"; do
		[ -n "$w" ] && [[ "$1" == *"$w"* ]] && return 0
	done
	return 1
}

# cg_run "NAME [ARG]" TAG: case_NAME ARG, in a subshell of its own, so that
# nothing it sets reaches the runner or another case (what it reports goes
# through files: $RESULTS, $REPRO_ROWS, tests/lib/common.sh), and in a
# process group of its own, with stdin from /dev/null; then cg_reap. A case
# that exits non-zero without a PASS, FAIL or SKIP of its own is a FAIL,
# named "NAME ARG [TAG]": a case that dies must not vanish.
cg_run() {
	local c=$1 tag=$2 before rc

	results_tally
	before=$((n_pass + n_fail + n_skip))
	set -m
	(
		set +m
		read -ra w <<<"$c"
		"case_${w[0]}" "${w[@]:1}"
	) </dev/null &
	CG_CASE_PID=$!
	set +m
	wait "$CG_CASE_PID"
	rc=$?
	cg_reap "$c [$tag]"
	results_tally
	if [ $rc != 0 ] && [ $((n_pass + n_fail + n_skip)) = "$before" ]; then
		fail "$c [$tag]: the case exited with status $rc and reported nothing"
	fi
}

# cg_reap "NAME ARG [TAG]": what the case that just ended left behind goes,
# so that the next one cannot meet it: every process of its group, every
# namespace of this run ($CG_PFX-*: topo_up's, sc_up's, any other), and
# the state of guards in namespaces that are gone. A namespace left is
# noted, and recorded for the leak check.
cg_reap() {
	local n i left=

	if kill -TERM -- -"$CG_CASE_PID" 2>/dev/null; then
		# (its loaders finish what they do on SIGTERM first)
		for i in $(seq 50); do
			kill -0 -- -"$CG_CASE_PID" 2>/dev/null || break
			sleep 0.1
		done
	fi
	CG_CASE_PID=
	for n in /run/netns/"$CG_PFX"-*; do
		[ -e "$n" ] && left="$left ${n##*/}"
	done
	if [ -n "$left" ]; then
		if [ -n "$1" ]; then
			note "$1 left namespaces behind:$left (deleted)"
			echo "$1:$left" >>"$TMPD/netns-left"
		fi
		printf 'netns del %s\n' $left | ip -force -batch - 2>/dev/null
	fi
	cg_reap_gone "$1"
	return 0
}

# cg_reap_gone "NAME ARG [TAG]": a guarded namespace deleted is an everyday
# event on a host, and what its guards pinned stays until a host-wide walk
# (watch, detach --all, upgrade) or an attach in a namespace that takes
# its inode number prunes it. Between cases that is removed here (and
# noted), not pruned in the middle of a later case that counts the host's
# programs and pins: a namespace is destroyed in the background, and
# whether the next one takes its number depends on how fast. The
# namespaces the host had before the suite are not touched; what all
# guards share goes with the last of them, as the loader's own prune does.
cg_reap_gone() {
	local live root d here gone=

	compgen -G "/sys/fs/bpf/csum_guard*/[0-9]*" >/dev/null || return 0
	live=$(stat -L -c %i /run/netns/* /proc/[0-9]*/ns/net 2>/dev/null | sort -u)
	for root in /sys/fs/bpf/csum_guard /sys/fs/bpf/csum_guard_syncookie; do
		here=
		for d in "$root"/[0-9]*; do
			[ -d "$d" ] || continue
			grep -qx "${d##*/}" <<<"$live" && continue
			grep -qx "$d" <<<"$PINS0" && continue
			rm -rf "$d" && here="$here $d"
		done
		gone=$gone$here
		[ -n "$here" ] && [ -d "$root" ] && ! grep -qx "$root" <<<"$PINS0" &&
			! compgen -G "$root/[0-9]*" >/dev/null && rm -rf "$root"
	done
	if [ -n "$gone" ] && [ -n "$1" ]; then
		note "$1 left the state of guards in namespaces now gone:$gone (removed)"
		echo "$1" >>"$TMPD/state-reaped"
	fi
	return 0
}

# cg_stop: the case running while the run is stopped (tests/run.sh's
# cleanup): its process group is sent SIGTERM, and waited for, so that a
# case that puts the system back on its way out (dist_deb) has done so.
cg_stop() {
	[ -n "${CG_CASE_PID:-}" ] || return 0
	kill -TERM -- -"$CG_CASE_PID" 2>/dev/null
	wait "$CG_CASE_PID" 2>/dev/null
	cg_reap ""
}
