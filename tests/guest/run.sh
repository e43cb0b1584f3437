#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/run.sh - run a command inside a Debian kernel under QEMU (TCG)
#
#   run.sh --kernel NAME [--timeout S] [--mem SIZE] [--smp N]
#          [--share-rw DIR]... [--modules-dir DIR]... [--append ARGS]
#          [--secure-boot [--mok CERT]] [--verbose] -- COMMAND [ARGS...]
#
# NAME is an entry of kernels.list; fetch.sh downloads it on first use.
# An arm64 kernel boots under qemu-system-aarch64 -M virt in an arm64
# Debian root (armroot.sh) instead of the host's: the tree and the kernel
# cache are bound into that root at their own paths, in a mount namespace
# of QEMU's own, so the guest sees them where the host does.
# The guest sees the host's root read-only over virtio-9p, so every host
# tool and the build tree are at the same paths; /tmp, /var/tmp, /run and
# /root are private tmpfs (so paths under them are NOT visible in the
# guest: keep inputs in the build tree, or pass them with --share-rw or
# --modules-dir).  --share-rw DIR mounts DIR read-write at the same path.
#
# Modules: /lib/modules/KVER in the guest is the kernel's own tree.  The
# *.ko files of each --modules-dir, and those under the host's
# /lib/modules/KVER/updates/ (where `dkms install` puts them), are added to
# its updates/ and indexed with depmod on the host, so `modprobe NAME` works
# for them in the guest; a --modules-dir module wins over a DKMS one of the
# same name.
#
# The command runs as root in the caller's cwd with CG_GUEST=1 and
# CG_GUEST_KERNEL=NAME; stdin is /dev/null, stdout and stderr go into one
# pipe (not a terminal) streamed to run.sh's stdout through a virtio
# console.  Kernel messages go to a log on the serial port, shown on
# failure (or live on stderr with --verbose).
#
# Exit status: the command's; 124 when the timeout (default 600 s) killed
# QEMU; 125 when the guest gave no verdict: kernel panic, oops or WARN
# (panic_on_warn), set-up failure; 2 on usage errors.

set -euo pipefail
. "$(dirname "$0")/lib.sh"
CG_DIE_STATUS=125

usage()
{
	sed -n '6,8s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

kernel='' timeout=600 mem=1G smp=1 verbose=0 root=/ extra='' secboot=0 mok=
shares=() moddirs=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	kernel=${2:?}; shift ;;
	--timeout)	timeout=${2:?}; shift ;;
	--mem)		mem=${2:?}; shift ;;
	--smp)		smp=${2:?}; shift ;;
	--share-rw)	shares+=("$(realpath -e "${2:?}")") || exit 2; shift ;;
	--modules-dir)	moddirs+=("$(realpath -e "${2:?}")") || exit 2; shift ;;
	--append)	extra+=" ${2:?}"; shift ;;
	--secure-boot)	secboot=1 ;;
	--mok)		mok=$(realpath -e "${2:?}") || exit 2; shift ;;
	-v|--verbose)	verbose=1 ;;
	--)		shift; break ;;
	*)		usage ;;
	esac
	shift
done
[ -n "$kernel" ] && [ $# -gt 0 ] || usage
[ -z "$mok" ] || [ $secboot = 1 ] || cg_die "--mok is for a --secure-boot boot (shim reads the MokList)"
case $timeout in *[!0-9]*|'') usage ;; esac

cg_kernel "$kernel"
# QEMU, busybox and cpio for the initramfs, modprobe (host and guest), ip.
case $CG_KARCH in
amd64)	cg_need_pkgs qemu-system-x86 busybox-static cpio kmod xz-utils zstd iproute2 ;;
arm64)	cg_need_pkgs qemu-system-arm cpio kmod xz-utils zstd iproute2 util-linux ;;
esac
eval "$("$CG_GUEST_DIR/fetch.sh" "$kernel")" || cg_die "cannot fetch $kernel"
if [ "$CG_KARCH" = arm64 ]; then
	# the kernel's own release (the -security and -backports suites are
	# their release's), with the compiler its headers name, for DKMS
	cc=$(cg_kernel_cc "$HEADERS") || cc=
	ROOT=
	eval "$("$CG_GUEST_DIR/armroot.sh" "$CG_KSUITE" $cc)" && [ -n "$ROOT" ] ||
		cg_die "cannot make the arm64 $CG_KSUITE root"
	root=$ROOT
fi
# Keep fetch.sh from preparing the kernel again while it runs here (QEMU
# inherits the lock).
exec 8>> "$CG_KERNELS/$kernel.lock"
flock -s 8
cg_kernel_ready || cg_die "$kernel was being prepared again, try again"

# The guest reaches the tree, the run directory and the kernel cache through
# the read-only root, except where it mounts its tmpfs: a tree there (a CI
# clone under /tmp) is shared into the guest at its own path instead.
# Another root than the host's gets them bound in at the same paths
# (binds, below).
binds=()
for d in "$CG_TOP" "$CG_KERNELS"; do
	case $d/ in
	"$CG_TOP"/?*) ;;	# inside the tree: goes with it
	/tmp/*|/var/tmp/*|/run/*|/root/*) shares+=("$(realpath -e "$d")") ;;
	*) [ "$root" = / ] || binds+=("$(realpath -e "$d")") ;;
	esac
done
# Modules are mounted on /lib/modules: the mount point must exist on the
# host (a fresh machine without any kernel package has none).
[ -d /lib/modules ] || mkdir -p /lib/modules

mkdir -p "$CG_BUILD/guest"
# by its real path: the guest's first stage looks for it in the host's root
# before that root is its own, where a symlink on the way would not resolve
run=$(realpath -e "$(mktemp -d "$CG_BUILD/guest/run.XXXXXX")") || exit 1
teepid=
cleanup()
{
	[ -z "$teepid" ] || kill "$teepid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT

# The initramfs: static busybox, init.sh as /init and the modules that
# mounting the 9p root and the output console need (those of the kernel's
# virtio_pci, 9pnet_virtio, 9p and virtio_console that are not built in;
# fetch.sh uncompressed them), in load order.  Cached next to the kernel,
# named after what goes in, so that a changed init.sh makes a new one.
initrd_modules="virtio_pci 9pnet_virtio 9p virtio_console"
build_initrd()
{
	# (the static busybox of the guest's root: the arm64 one for arm64)
	local src=$CG_GUEST_DIR/init.sh stage=$run/initramfs m ko busybox=$root/bin/busybox

	initrd=$CG_KDIR/initrd-$({ cat "$src"; echo "$initrd_modules"; } |
				 sha1sum | cut -c1-12)
	[ -f "$initrd" ] && return 0
	cg_msg "building $initrd"
	mkdir -p "$stage"/{bin,dev,proc,sys,newroot,modules}
	cp "$busybox" "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	cp "$src" "$stage/init"
	chmod 755 "$stage/init"
	for m in $initrd_modules; do
		modprobe -d "$CG_KROOT" -S "$KVER" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$stage/list" ||
		cg_die "$kernel: cannot find the modules $initrd_modules"
	while read -r ko; do
		cp "$ko" "$stage/modules/"
		echo "${ko##*/}" >> "$stage/modules/order"
	done < "$stage/list"
	rm "$stage/list"
	touch "$stage/modules/order"
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) > "$initrd.$$"
	mv "$initrd.$$" "$initrd"
	rm -rf "$stage"
}

# The tree the guest mounts on /lib/modules: the kernel's own, depmod'ed by
# fetch.sh, unless there are extra modules.  Then a tree of links to the
# kernel's directories, with the extra .ko files copied into updates/, all
# indexed by depmod here on the host (depmod follows the links and records
# paths relative to the tree, which resolve the same way in the guest).
# That takes a second, so the tree is kept next to the kernel, named after
# the extra modules' contents, for the next run; unused ones go after a day.
modules_tree()
{
	local kdir=$CG_KROOT/lib/modules/$KVER upd=/lib/modules/$KVER/updates
	local extra=() key tree tmp d f

	modules=$CG_KROOT/lib/modules
	# DKMS's first, so that a --modules-dir module of the same name wins.
	if [ -d "$upd" ]; then
		while read -r f; do
			extra+=("$f")
		done < <(find -L "$upd" -type f -name '*.ko*' | sort)
	fi
	for d in ${moddirs[@]+"${moddirs[@]}"}; do
		for f in "$d"/*.ko "$d"/*.ko.xz "$d"/*.ko.zst; do
			[ -f "$f" ] && extra+=("$f")
		done
	done
	[ ${#extra[@]} -eq 0 ] && return 0

	key=$(for f in "${extra[@]}"; do
		echo "${f##*/} $(sha1sum < "$f")"
	done | sha1sum | cut -c1-12)
	tree=$CG_KDIR/modules-$key
	if [ ! -d "$tree" ]; then
		tmp=$(mktemp -d "$tree.XXXXXX")
		mkdir -p "$tmp/lib/modules/$KVER/updates"
		for f in "$kdir"/*; do
			case ${f##*/} in
			modules.order|modules.builtin|modules.builtin.modinfo)
				cp "$f" "$tmp/lib/modules/$KVER/" ;;
			modules.*|updates|build|source)
				;;
			*)	ln -s "$f" "$tmp/lib/modules/$KVER/" ;;
			esac
		done
		for f in "${extra[@]}"; do
			d=${f##*/}
			rm -f "$tmp/lib/modules/$KVER/updates/${d%%.ko*}".ko*
			cp "$f" "$tmp/lib/modules/$KVER/updates/"
		done
		depmod -b "$tmp" "$KVER" || cg_die "depmod failed on the extra modules"
		chmod 755 "$tmp"
		# Another run may have made the same tree meanwhile.
		mv -T "$tmp" "$tree" 2>/dev/null || rm -rf "$tmp"
	fi
	modules=$tree/lib/modules
}

# Initramfs images and module trees are named after their contents: mark
# the ones used now, drop those unused for a day.
prune_cache()
{
	touch "$initrd" "${modules%/lib/modules}"
	find "$CG_KDIR" -maxdepth 1 \( -name 'initrd-*' -o -name 'modules-*' \) \
		-mtime +1 -exec rm -rf {} +
}

# The job init.sh reads: env (sourced) and cmd (run by the host's /bin/sh).
write_job()
{
	local cwd=$PWD hidden=0 d

	# The cwd may be under a tmpfs of the guest, unless a share brings it.
	case $cwd/ in /tmp/*|/var/tmp/*|/run/*|/root/*) hidden=1 ;; esac
	for d in ${shares[@]+"${shares[@]}"}; do
		case $cwd/ in "$d"/*) hidden=0 ;; esac
	done
	if [ $hidden = 1 ]; then
		cg_msg "warning: $cwd is hidden in the guest (tmpfs), running in /"
		cwd=/
	fi
	{
		echo "CG_KNAME=$(cg_shquote "$kernel")"
		echo "CG_MODULES=$(cg_shquote "$1")"
		echo "CG_CWD=$(cg_shquote "$cwd")"
		echo "CG_SHARES=$(cg_shquote "$(cg_shquote ${shares[@]+"${shares[@]}"})")"
	} > "$run/env"
	echo "exec $(cg_shquote "${@:2}")" > "$run/cmd"
}

# Kernel messages that fail a run, whatever the command's status.  With
# panic_on_warn and oops=panic, a WARN or an oops also ends in a panic.
bad='Kernel panic|Oops|BUG:|WARNING: CPU: [0-9]+ PID:|general protection fault'

# Print the kernel's console to stderr, for a failure: from the first bad
# message on if there is one, else its end.
show_console()
{
	local first

	first=$(grep -naE "$bad" "$run/console.log" | head -n 1 | cut -d: -f1 || true)
	cg_msg "$1; kernel console:"
	if [ -n "$first" ]; then
		sed -n "$first,$((first + 80))p" "$run/console.log"
	else
		tail -n 60 "$run/console.log"
	fi | sed 's/^/| /' >&2
}

build_initrd
modules_tree
prune_cache
write_job "$modules" "$@"

# QEMU's option parser takes ",," for a comma in a value.
q()
{
	echo "${1//,/,,}"
}

# Any oops or WARN panics, a panic ends QEMU at once (exit 0, no report).
# No lockup detectors: TCG's timing is erratic.  No crypto self-tests: they
# cost ~0.8 s of boot.
case $CG_KARCH in
amd64) append="console=ttyS0" ;;
arm64) append="console=ttyAMA0" ;;
esac
append+=" panic=-1 oops=panic panic_on_warn=1 nowatchdog"
append+=" cryptomgr.notests"
append+=" rdinit=/init cg.run=$run"
# Errors and warnings only (a WARN splat is a warning): a chatty serial
# console slows the boot by a second.
[ $verbose = 1 ] || append+=" loglevel=5"
# --append: more of the kernel's command line (module.sig_enforce=1)
append+=$extra
# --verbose: QEMU writes the console into a pipe, tee keeps the log.
conpath=$run/console.log
: > "$conpath"
if [ $verbose = 1 ]; then
	conpath=$run/console.pipe
	mkfifo "$conpath"
	tee "$run/console.log" < "$conpath" >&2 &
	teepid=$!
fi
# --secure-boot: Debian's signed shim, grub and kernel on an ESP (a FAT
# image made with mtools), booted by OVMF with Secure Boot on and
# Microsoft's keys enrolled (Debian's ovmf, shim-signed and
# grub-efi-amd64-signed, downloaded into build/sb/).
sb_esp()
{
	local d=$CG_BUILD/sb f esp=$run/esp.img

	[ "$CG_KARCH" = amd64 ] || cg_die "--secure-boot is for amd64 kernels"
	cg_need_pkgs mtools dosfstools
	if [ ! -f "$d/ready" ]; then
		rm -rf "$d" && mkdir -p "$d/debs" &&
			(cd "$d/debs" && apt-get download ovmf shim-signed grub-efi-amd64-signed) >&2 ||
			cg_die "cannot download ovmf, shim-signed and grub-efi-amd64-signed"
		for f in "$d"/debs/*.deb; do
			dpkg-deb -x "$f" "$d/root" || cg_die "cannot unpack $f"
		done
		touch "$d/ready"
	fi
	SB_CODE=$d/root/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
	cp "$d/root/usr/share/OVMF/OVMF_VARS_4M.ms.fd" "$run/vars.fd" || cg_die "no OVMF variables"
	[ -z "$mok" ] || sb_mok
	# the signed grub reads grub.cfg from its own directory
	printf 'set timeout=0\nlinux /vmlinuz %s\ninitrd /initrd\nboot\n' "$append" >"$run/grub.cfg"
	truncate -s 64M "$esp" && mkfs.vfat -n ESP "$esp" >/dev/null &&
		mmd -i "$esp" ::/EFI ::/EFI/BOOT &&
		mcopy -i "$esp" "$d/root/usr/lib/shim/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI &&
		mcopy -i "$esp" "$d/root/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ::/EFI/BOOT/grubx64.efi &&
		mcopy -i "$esp" "$run/grub.cfg" ::/EFI/BOOT/grub.cfg &&
		mcopy -i "$esp" "$(cg_kernel_vmlinuz)" ::/vmlinuz &&
		mcopy -i "$esp" "$initrd" ::/initrd || cg_die "cannot make the ESP"
}

# --mok CERT: the certificate (PEM) in shim's MokList of this boot's copy
# of the variables, as `mokutil --import` and MokManager at the next boot
# would leave it: shim mirrors it to MokListRT and Debian's kernel, booted
# with Secure Boot, trusts it (the machine keyring) for module signatures.
# The tool is virt-fw-vars of python3-virt-firmware, trixie's (Debian 12 has
# none; it is Python, run from its unpacked packages), in build/sb/vfw/.
sb_mok()
{
	local d=$CG_BUILD/sb/vfw f
	local pkgs=(python3-virt-firmware python3-pefile python3-importlib-resources python3-zipp)

	cg_need_pkgs python3 python3-cryptography
	if [ ! -f "$d/ready" ]; then
		rm -rf "$d/debs" "$d/root" && mkdir -p "$d/debs"
		cg_apt_setup "$d/apt" trixie
		(cd "$d/debs" && { "${APT[@]}" download "${pkgs[@]}" ||
			{ "${APT[@]}" update && "${APT[@]}" download "${pkgs[@]}"; }; }) >&2 ||
			cg_die "cannot download ${pkgs[*]} (trixie)"
		for f in "$d"/debs/*.deb; do
			dpkg-deb -x "$f" "$d/root" || cg_die "cannot unpack $f"
		done
		touch "$d/ready"
	fi
	PYTHONPATH=$d/root/usr/lib/python3/dist-packages python3 "$d/root/usr/bin/virt-fw-vars" \
		--inplace "$run/vars.fd" --add-mok 605dab50-e046-4300-abb6-3dd810dd8b23 "$mok" >&2 ||
		cg_die "cannot add $mok to the MokList of the OVMF variables"
}

# The status comes back through isa-debug-exit on x86; the virt machine has
# none: the arm64 guest powers off (QEMU exits 0) after its report.
case $CG_KARCH in
amd64)
	machine=pc
	[ $secboot = 1 ] && machine=q35,smm=on
	qemu=(qemu-system-x86_64 -machine "$machine,accel=tcg" -cpu max
	      -device isa-debug-exit,iobase=0xf4,iosize=0x04) ;;
arm64)
	# pointer authentication with QEMU's cheap algorithm: the
	# architected one costs a lot of TCG time on every function return
	qemu=(qemu-system-aarch64 -machine virt,accel=tcg -cpu max,pauth-impdef=on) ;;
esac
qemu+=(-nodefaults -no-user-config -display none
      -no-reboot -m "$mem" -smp "$smp")
if [ $secboot = 1 ]; then
	sb_esp
	qemu+=(-global driver=cfi.pflash01,property=secure,value=on
	       -drive "if=pflash,format=raw,unit=0,readonly=on,file=$(q "$SB_CODE")"
	       -drive "if=pflash,format=raw,unit=1,file=$(q "$run/vars.fd")"
	       -drive "if=none,id=esp,format=raw,file=$(q "$run/esp.img")"
	       -device virtio-blk-pci,drive=esp)
else
	qemu+=(-kernel "$KERNEL" -initrd "$initrd" -append "$append")
fi
qemu+=(
      -chardev "file,id=con,path=$(q "$conpath")" -serial chardev:con
      -device virtio-serial-pci,max_ports=1
      -chardev stdio,id=out,signal=off -device virtconsole,chardev=out
      -fsdev "local,id=hostroot,path=$(q "$root"),security_model=none,readonly=on,multidevs=remap"
      -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot)
for i in "${!shares[@]}"; do
	qemu+=(-fsdev "local,id=rw$i,path=$(q "${shares[i]}"),security_model=none,multidevs=remap"
	       -device "virtio-9p-pci,fsdev=rw$i,mount_tag=rw$i")
done

# Another root: the tree and the kernel cache bound into it, in a mount
# namespace that ends with QEMU (nothing stays mounted on the host).  The
# mount points are made in the root, and those of the shares that neither
# a bind nor a guest tmpfs brings (init.sh cannot make them in a read-only
# root).
if [ "$root" != / ]; then
	for d in ${binds[@]+"${binds[@]}"} /lib/modules; do
		mkdir -p "$root$d"
	done
	for d in ${shares[@]+"${shares[@]}"}; do
		case $d/ in
		"$CG_TOP"/*|/tmp/*|/var/tmp/*|/run/*|/root/*) ;;
		*) mkdir -p "$root$d" ;;
		esac
	done
	qemu=(unshare --mount --propagation private
	      sh -c 'r=$1; n=$2; shift 2
		     while [ $n -gt 0 ]; do mount --bind "$1" "$r$1" || exit 1; shift; n=$((n - 1)); done
		     exec "$@"' _ "$root" ${#binds[@]} ${binds[@]+"${binds[@]}"} "${qemu[@]}")
fi
# QEMU runs in the background so that an INT or TERM of run.sh can stop it
# (timeout puts it in a process group of its own, out of the terminal's reach).
timeout --kill-after=5 "$timeout" "${qemu[@]}" < /dev/null &
qpid=$!
stop()
{
	kill -TERM "$qpid" 2>/dev/null
	wait "$qpid"
	exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM
status=0
wait $qpid || status=$?
trap - INT TERM
if [ -n "$teepid" ]; then
	# Open and close the pipe as a writer (O_RDWR never blocks), so that
	# tee ends even if QEMU never opened it.
	exec 7<> "$conpath"
	exec 7>&-
	wait "$teepid" || true
fi

# The verdict.  The command's status counts only if the guest reported it
# (CG-GUEST-RC in the kernel log), QEMU exited through isa-debug-exit with
# the same status (2*rc+1, modulo 256), and the kernel never complained.
# timeout(1) says 124, or 137 if QEMU needed a KILL (also 2*68+1).
rc=$(grep -ao 'CG-GUEST-RC=[0-9]*' "$run/console.log" | tail -n 1 | cut -d= -f2 || true)
if [ $status -eq 124 ] || { [ $status -eq 137 ] && [ -z "$rc" ]; }; then
	show_console "timed out after $timeout s"
	exit 124
fi
if grep -Eaq "$bad" "$run/console.log"; then
	show_console "the guest kernel failed"
	exit 125
fi
if [ -z "$rc" ]; then
	show_console "the guest did not report an exit status (QEMU exited with $status)"
	exit 125
fi
want=$(( (2 * rc + 1) & 255 ))
# (arm64, and a Secure Boot guest, whose lockdown keeps /dev/port from
# init.sh, power off instead: QEMU exits 0)
{ [ "$CG_KARCH" = arm64 ] || [ $secboot = 1 ]; } && want=0
if [ $status -ne $want ]; then
	show_console "QEMU exited with $status after the guest reported $rc"
	exit 125
fi
# What init.sh had to say (e.g. output cut short), if anything.
[ $verbose = 1 ] || grep -a '^guest init:' "$run/console.log" >&2 || true
exit "$rc"
