#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/init.sh - init of the guest (busybox sh), packed as the
# initramfs' /init by run.sh.
#
# Stage 1 (/init): load the modules listed in /modules/order (virtio-9p and
# the virtio console, as this kernel needs them), mount the host's root
# read-only from the 9p share "hostroot" on /newroot, read the job run.sh
# left in its run directory (cg.run=DIR on the kernel command line):
#   DIR/env  CG_KNAME, CG_MODULES (tree to mount on /lib/modules), CG_CWD,
#            CG_SHARES (read-write directories, 9p tags rw0, rw1, ...)
#   DIR/cmd  the command, as "exec 'arg0' 'arg1' ..." for the host's /bin/sh
# and mount everything the test needs under /newroot.  All of it runs on
# busybox from memory: an exec of a host binary over 9p costs ~0.2 s under
# TCG.  Then switch_root to /newroot, keeping busybox in /run/cg-guest/.
#
# Stage 2 (PID 1 in the host's root): run the command, its output relayed
# to the virtio console hvc0 (run.sh's stdout, away from kernel messages),
# report "CG-GUEST-RC=<status>" in the kernel log (the console, ttyS0) and
# write the status to isa-debug-exit, which ends QEMU with 2*status+1.
#
# A failure ends this init: the kernel panics, nothing is reported, and
# run.sh fails.

fail()
{
	echo "guest init: $*"
	exit 1
}

stage1()
{
	# The applets as commands (busybox sh finds them by itself only once
	# /proc is mounted).
	/bin/busybox --install -s /bin
	export PATH=/bin

	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev

	while read -r ko; do
		insmod "/modules/$ko" || fail "cannot load $ko"
	done < /modules/order

	for arg in $(cat /proc/cmdline); do
		case $arg in
		cg.run=*) run=${arg#cg.run=} ;;
		esac
	done

	# cache=loose: the read-only root does not change under a test, and
	# revalidating every lookup over 9p is slow under TCG.
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
		hostroot /newroot || fail "cannot mount the host's root over 9p"
	[ -r "/newroot$run/env" ] || fail "no job in '$run'"
	. "/newroot$run/env"

	cd /newroot || fail "no /newroot"
	for dir in proc sys dev; do
		mount -o move "/$dir" "$dir" || fail "cannot move /$dir"
	done

	# Private scratch space over the host's directories, and a /run
	# without the host's state (its /run/netns above all).
	mount -t tmpfs -o mode=1777 tmpfs tmp || fail "cannot mount /tmp"
	mount -t tmpfs -o mode=1777 tmpfs var/tmp || fail "cannot mount /var/tmp"
	mount -t tmpfs -o mode=755 tmpfs run || fail "cannot mount /run"
	mount -t tmpfs -o mode=700 tmpfs root || fail "cannot mount /root"
	mkdir -p dev/pts dev/shm
	mount -t devpts -o newinstance,ptmxmode=666 devpts dev/pts
	mount -t tmpfs -o mode=1777 tmpfs dev/shm
	# What udev would link: bash's process substitution opens /dev/fd/N,
	# and a case reading from one must not read nothing.
	ln -s /proc/self/fd dev/fd
	ln -s /proc/self/fd/0 dev/stdin
	ln -s /proc/self/fd/1 dev/stdout
	ln -s /proc/self/fd/2 dev/stderr
	mount -t bpf bpf sys/fs/bpf || fail "cannot mount bpffs"
	mount -t tracefs tracefs sys/kernel/tracing 2>/dev/null
	mount -t debugfs debugfs sys/kernel/debug 2>/dev/null
	mount -t cgroup2 cgroup2 sys/fs/cgroup 2>/dev/null

	# Read-write shares at their host paths (made if under a tmpfs, as
	# /tmp/x is), before anything is read from them: a source tree under
	# /tmp reaches the guest only this way.  No cache: writes reach the
	# host at once.
	eval "set -- $CG_SHARES"
	i=0
	for dir; do
		mkdir -p "/newroot$dir" 2>/dev/null
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 \
			"rw$i" "/newroot$dir" ||
			fail "cannot mount the read-write share $dir"
		i=$((i + 1))
	done

	# The kernel's modules (and the extra ones run.sh added) where
	# modprobe looks for them.
	mount -o bind "/newroot$CG_MODULES" lib/modules ||
		fail "cannot mount $CG_MODULES on /lib/modules"

	ip link set lo up || fail "cannot set lo up"
	hostname "cg-$CG_KNAME"

	# The output console appears once QEMU answered the driver.
	i=0
	while [ ! -e dev/hvc0 ]; do
		[ $i -lt 100 ] || fail "no /dev/hvc0"
		sleep 0.05
		i=$((i + 1))
	done

	mkdir run/cg-guest
	cp /bin/busybox /init run/cg-guest/
	exec switch_root /newroot /run/cg-guest/busybox sh /run/cg-guest/init \
		stage2 "$run"
}

stage2()
{
	run=$1
	bb=/run/cg-guest/busybox
	fifo=/run/cg-guest/out

	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
	. "$run/env"

	# The command writes into a pipe, as it would in CI on the host, not
	# into a terminal (no colours, no pagers).  busybox cat relays it to
	# hvc0, set raw while the relay holds it open (hvc resets its
	# settings at the last close) so that the bytes arrive unchanged.
	$bb mkfifo "$fifo"
	(
		$bb stty -F /dev/hvc0 raw -echo
		exec $bb cat "$fifo"
	) > /dev/hvc0 &
	relay=$!

	(
		cd "$CG_CWD" 2>/dev/null || {
			echo "guest init: $CG_CWD is not visible in the guest, running in /"
			cd /
		}
		export CG_GUEST=1 CG_GUEST_KERNEL="$CG_KNAME" HOME=/root
		# The host's shell, never busybox's: busybox sh would run its
		# own applets (ip, ...) instead of the host's programs.
		exec /bin/sh "$run/cmd"
	) < /dev/null > "$fifo" 2>&1
	rc=$?

	# The relay ends when the pipe is empty and closed; closing hvc0 waits
	# until everything is sent.  Processes the command left running may
	# hold the pipe open: give up on what they write after 5 s.
	read -r now rest < /proc/uptime
	end=$((${now%.*} + 5))
	while kill -0 "$relay" 2>/dev/null; do
		read -r now rest < /proc/uptime
		if [ "${now%.*}" -ge $end ]; then
			kill "$relay"
			echo "guest init: left-over processes hold the output open, stopped relaying it"
			break
		fi
		$bb sleep 0.02
	done

	# Report through the kernel log: it reaches the console synchronously,
	# unlike a write to /dev/console.  <2>: above any console log level.
	echo "<2>CG-GUEST-RC=$rc" > /dev/kmsg
	printf "\\$(printf %03o "$rc")" |
		$bb dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	# Still here: no isa-debug-exit.  Power off; run.sh fails on the
	# mismatch.
	echo o > /proc/sysrq-trigger
	$bb sleep 10
}

if [ "$1" = stage2 ]; then
	stage2 "$2"
else
	stage1
fi
