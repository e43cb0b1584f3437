#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/armrun.sh - run a command in an arm64 root on this machine
#
#   armrun.sh ROOT [--bind DIR]... -- COMMAND [ARGS...]
#
# COMMAND runs chrooted in ROOT (an arm64 Debian root: armroot.sh's), its
# arm64 programs under qemu-aarch64-static, in new user, mount and PID
# namespaces.  The user namespace maps uids and gids 0-65535 to themselves
# (written from here: no newuidmap), so that dpkg's chown works; in it, a
# binfmt_misc instance of its own (Linux 6.7 and later) sends arm64 ELF
# files to qemu, /proc is mounted in ROOT, the host's /dev bound there, and
# each DIR bound at its own path.  Nothing is registered on the host, and
# the mounts go with the namespaces.  Exit status: COMMAND's (2 on usage).

set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: $0 ROOT [--bind DIR]... -- COMMAND [ARGS...]" >&2; exit 2; }

[ $# -ge 1 ] && [ -d "$1" ] || usage
root=$(realpath -e "$1")
shift
binds=()
while [ $# -gt 0 ]; do
	case $1 in
	--bind)	[ -d "${2:-}" ] || usage; binds+=("$(realpath -e "$2")"); shift ;;
	--)	shift; break ;;
	*)	usage ;;
	esac
	shift
done
[ $# -gt 0 ] || usage
qemu=$(cg_qemu_user)

fifo=$(mktemp -u "${TMPDIR:-/tmp}/cg-armrun.XXXXXX")
mkfifo -m 0600 "$fifo"
trap 'rm -f "$fifo"' EXIT
unshare --user --mount --pid --fork --kill-child bash -c '
	set -e
	fifo=$1 root=$2 qemu=$3 n=$4
	shift 4
	read -r _ <"$fifo"
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	printf "%s" ":cg-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:$qemu:F" \
		>/proc/sys/fs/binfmt_misc/register
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	while [ "$n" -gt 0 ]; do
		mkdir -p "$root$1" && mount --bind "$1" "$root$1"
		shift
		n=$((n - 1))
	done
	exec chroot "$root" "$@"
' _ "$fifo" "$root" "$qemu" ${#binds[@]} ${binds[@]+"${binds[@]}"} "$@" &
pid=$!
# unshare itself enters the new user namespace: once it has, map it, then go
for _ in $(seq 100); do
	[ "$(readlink "/proc/$pid/ns/user" 2>/dev/null)" != "$(readlink /proc/self/ns/user)" ] && break
	sleep 0.05
done
if ! { echo "0 0 65536" >"/proc/$pid/uid_map" && echo "0 0 65536" >"/proc/$pid/gid_map"; } 2>/dev/null; then
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	cg_die "cannot map the user namespace of $root's command"
fi
echo go >"$fifo"
rc=0
wait "$pid" || rc=$?
exit $rc
