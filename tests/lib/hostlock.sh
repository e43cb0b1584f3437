# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# hostlock.sh - one suite or bench at a time on a host. Each compares what
# the host holds at its end (programs, pins, the firewall, modules) with its
# start, so a second run at the same time would count the first's as leaks.
# Sourced by tests/run.sh and bench/lib.sh; what they start inherit the lock.

# host_lock WHO: wait for the lock (saying so once), or fail after
# CG_LOCK_WAIT seconds (7200)
host_lock() {
	local who=$1 lock=${CG_LOCK:-/run/lock/csum-guard-suite.lock}

	[ -n "${CG_HOST_LOCKED:-}" ] && return 0
	mkdir -p "${lock%/*}" || return 1
	exec 9>>"$lock" || { echo "$who: cannot open $lock" >&2; return 1; }
	if ! flock -n 9; then
		echo "$who: another csum-guard suite or bench runs on this host; waiting for it" >&2
		if ! flock -w "${CG_LOCK_WAIT:-7200}" 9; then
			echo "$who: still running after ${CG_LOCK_WAIT:-7200} s: giving up" >&2
			return 1
		fi
	fi
	export CG_HOST_LOCKED=$$
}
