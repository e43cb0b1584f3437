#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/boot.sh - boot a Debian host of hostroot.sh, and let it reboot
#
#   boot.sh [--bare|--libvirt] NAME --share DIR [--timeout S] [--mem SIZE]
#           [--smp N] [--ssh-port PORT]
#
# (--bare, --libvirt: that variant of the host, hostroot.sh's)
# Copies the pristine image of host NAME to DIR/disk.img (the cache stays
# as it was made), then boots it under QEMU (TCG) with its own kernel and
# initrd, root=/dev/vda, systemd as init, DIR shared over 9p as "cg". At the
# end of every boot the host's cg-boot.service runs /cg/run (DIR/run): the
# test's script, which reboots the host (QEMU resets and boots the same disk
# again) or powers it off (QEMU exits). A host that installed a kernel and
# reboots into it leaves that kernel's vmlinuz and initrd.img in
# DIR/boot-next/ before it powers off: QEMU starts again with them, as the
# host's boot loader would boot its newest kernel (one request, one boot;
# the timeout covers every boot). The serial console of every boot goes to
# DIR/console.log. No network: what the host installs, it gets from DIR.
# --ssh-port: one NIC (eth0) on QEMU's user network, restricted (no route
# out), whose port 22 is 127.0.0.1:PORT here: a controller's ssh to the host
# (the test's script gives eth0 its address, 10.0.2.15/24).
#
# Exit status: QEMU's (0 after a power-off), 124 on timeout (QEMU killed),
# 2 on usage, 1 if the host could not be made.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: $0 [--bare|--libvirt] NAME --share DIR [--timeout S] [--mem SIZE] [--smp N] [--ssh-port PORT]" >&2
	exit 2
}

name= share= timeout=1200 mem=1G smp=1 variant=() net=()
while [ $# -gt 0 ]; do
	case $1 in
	--bare|--libvirt) [ ${#variant[@]} = 0 ] || usage; variant=("$1") ;;
	--share)	share=${2:?}; shift ;;
	--timeout)	timeout=${2:?}; shift ;;
	--mem)		mem=${2:?}; shift ;;
	--smp)		smp=${2:?}; shift ;;
	--ssh-port)	[[ ${2:-} =~ ^[0-9]+$ ]] || usage
			net=(-netdev "user,id=cg0,restrict=on,hostfwd=tcp:127.0.0.1:$2-:22"
			     -device virtio-net-pci,netdev=cg0)
			shift ;;
	-*)		usage ;;
	*)		[ -z "$name" ] || usage; name=$1 ;;
	esac
	shift
done
[ -n "$name" ] && [ -n "$share" ] && [ -d "$share" ] || usage
[ -f "$share/run" ] || cg_die "$share/run: no script for the host to run"
share=$(cd "$share" && pwd -P)

cg_need_pkgs qemu-system-x86
IMAGE= KERNEL= INITRD= KVER=
eval "$("$CG_GUEST_DIR/hostroot.sh" "${variant[@]}" "$name")" || cg_die "cannot make host $name"

cp --sparse=always "$IMAGE" "$share/disk.img"
: >"$share/console.log"

append="root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1"
append+=" systemd.show_status=1 loglevel=4 cryptomgr.notests"

kernel=$KERNEL initrd=$INITRD deadline=$((SECONDS + timeout)) status=0 qpid=
rm -rf "$share/boot-next" "$share/boot-now"
stop() { [ -z "$qpid" ] || { kill -TERM "$qpid" 2>/dev/null; wait "$qpid"; }; exit "$1"; }
trap 'stop 130' INT
trap 'stop 143' TERM
while :; do
	left=$((deadline - SECONDS))
	[ "$left" -gt 0 ] || { status=124; break; }
	timeout --kill-after=5 "$left" \
		qemu-system-x86_64 -nodefaults -no-user-config -display none \
		-machine pc,accel=tcg -cpu max -m "$mem" -smp "$smp" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-drive "file=$share/disk.img,if=virtio,format=raw,cache=unsafe" \
		-fsdev "local,id=cg,path=$share,security_model=none,multidevs=remap" \
		-device virtio-9p-pci,fsdev=cg,mount_tag=cg "${net[@]}" \
		-chardev "file,id=ser,path=$share/console.log,append=on" -serial chardev:ser \
		</dev/null &
	qpid=$!
	status=0
	wait $qpid || status=$?
	# powered off asking for another kernel at the next boot
	[ "$status" = 0 ] && [ -f "$share/boot-next/vmlinuz" ] && [ -f "$share/boot-next/initrd.img" ] ||
		break
	rm -rf "$share/boot-now" && mv "$share/boot-next" "$share/boot-now"
	kernel=$share/boot-now/vmlinuz initrd=$share/boot-now/initrd.img
done
exit "$status"
