#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/hostroot.sh - a Debian host that boots: its release's root,
# its own kernel from kernels.list, systemd as init, on an ext4 disk
#
#   hostroot.sh [--bare|--libvirt] NAME
#                        make the host for kernel NAME of kernels.list (or
#                        reuse its cache) and print, for `eval`:
#                          IMAGE=<pristine ext4 image of the root>
#                          KERNEL=<the root's /boot/vmlinuz-KVER>
#                          INITRD=<the root's /boot/initrd.img-KVER>
#                          KVER=<uname -r>  SUITE=<the Debian release>
#
# The release is the suite of the kernel's line without -security or
# -backports: deb5.10 gives a Debian 11 (bullseye) host, deb6.1-* a Debian
# 12 (bookworm) one. The root is debootstrap's minbase, with apt sources
# for the release and its security archive from the mirrors this machine
# uses (as fetch.sh derives them), then, as an operator's host would have:
# systemd, udev, iproute2, dkms and its compiler, jq (for the test), the
# kernel image and headers of the list's line (the .debs fetch.sh
# downloaded, so the host runs the same pinned kernel as the rest of the
# matrix), and openssh-server, python3 and python3-apt, which Ansible
# needs on the hosts it manages (no key is authorized in the image: a test
# that logs in adds its own at boot). The image holds one unit of the
# test's own, cg-boot.service: at the end of every boot it mounts the 9p
# share "cg" at /cg and runs /cg/run (see boot.sh).
#
# --bare: a host without a compiler and without kernel headers (no dkms,
# only the kernel's image package), as an operator who installs prebuilt
# modules from a repository keeps it (tests/guest/host-repo.sh).
# --libvirt: the host also has Debian's libvirt (libvirt-daemon-system, its
# QEMU driver, virsh) and qemu-system-x86, as a libvirt hypervisor has
# (tests/cases/94-libvirt.sh).
#
# Cache: build/roots/host-NAME/ (host-NAME-bare/, host-NAME+libvirt/ for
# the variants: image, kernel, initrd, a stamp of the list line, the
# variant and this script's format). A run cut short is redone.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: $0 [--bare|--libvirt] NAME   (NAME: $(cg_kernel_names))" >&2
	exit 2
}
variant= name=
for a in "$@"; do
	case $a in
	--bare|--libvirt) [ -z "$variant" ] || usage; variant=${a#--} ;;
	-*) usage ;;
	*) [ -z "$name" ] || usage; name=$a ;;
	esac
done
[ -n "$name" ] || usage
cg_kernel "$name"

# Bump when the host is made differently: older caches get redone.
FORMAT=3
suite=$CG_KSUITE
dir=$CG_BUILD/roots/host-$CG_KNAME
stamp="$CG_KLINE|format $FORMAT"
# what the host has beside its kernel image, and which of the kernel's
# packages it installs (the headers need a compiler to be of any use)
# (and what a fleet tool reaches a host with: ssh, and Python for Ansible)
hostpkgs="systemd-sysv udev kmod iproute2 procps dkms jq openssh-server python3 python3-apt"
kpkgs=$CG_KPKGS
case $variant in
bare)
	dir=$dir-bare
	stamp="$stamp|bare"
	hostpkgs=${hostpkgs/ dkms/}
	kpkgs=${CG_KPKGS%% *} ;;
libvirt)
	dir=$dir+libvirt
	stamp="$stamp|libvirt"
	hostpkgs="$hostpkgs libvirt-daemon-system libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86" ;;
esac

print_info()
{
	echo "IMAGE=$(cg_shquote "$dir/disk.img")"
	echo "KERNEL=$(cg_shquote "$dir/vmlinuz")"
	echo "INITRD=$(cg_shquote "$dir/initrd.img")"
	echo "KVER=$CG_KVER"
	echo "SUITE=$suite"
}

mkdir -p "$CG_BUILD/roots"
exec 9>"$dir.lock"
flock 9
if [ "$(cat "$dir/ready" 2>/dev/null)" = "$stamp" ]; then
	print_info
	exit 0
fi

cg_need_pkgs debootstrap e2fsprogs
eval "$("$CG_GUEST_DIR/fetch.sh" "$CG_KNAME")"

root=$dir.tmp/root
rm -rf "$dir" "$dir.tmp"
mkdir -p "$root"
cg_msg "debootstrap $suite for $CG_KNAME from $(cg_mirror 0)"
debootstrap --variant=minbase "$suite" "$root" "$(cg_mirror 0)" >"$dir.tmp/debootstrap.log" 2>&1 ||
	cg_die "debootstrap $suite failed: $(tail -1 "$dir.tmp/debootstrap.log")"

# A host's apt sources: the release and its security updates.
sec_suite=$suite-security
[ "$suite" = buster ] && sec_suite=$suite/updates
cat >"$root/etc/apt/sources.list" <<EOF
deb $(cg_mirror 0) $suite main
deb $(cg_mirror 1) $sec_suite main
EOF
# No service starts inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

mkdir -p "$root/tmp/kdebs"
for pv in $kpkgs; do
	p=${pv%%=*} v=${pv#*=}
	f=$(ls "$CG_KERNELS/debs/${p}_${v//:/%3a}_"*.deb 2>/dev/null | head -1 || true)
	[ -n "$f" ] || cg_die "fetch.sh left no .deb for $pv"
	cp "$f" "$root/tmp/kdebs/"
done

# apt in the chroot, in a mount namespace of its own: nothing stays mounted
# on the host, whatever happens.
unshare --mount --propagation private bash -euo pipefail -c '
	root=$1 hostpkgs=$2
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount -t devpts devpts "$root/dev/pts" 2>/dev/null || true
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
	chroot "$root" apt-get -q update
	# shellcheck disable=SC2086
	chroot "$root" apt-get -q -y --no-install-recommends install $hostpkgs
	chroot "$root" sh -c "apt-get -q -y --no-install-recommends install /tmp/kdebs/*.deb"
	chroot "$root" apt-get -q clean
' _ "$root" "$hostpkgs" >"$dir.tmp/apt.log" 2>&1 ||
	cg_die "installing the host's packages failed: $(grep -m1 -E '^E:' "$dir.tmp/apt.log" || tail -1 "$dir.tmp/apt.log")"
rm -rf "$root/tmp/kdebs" "$root/usr/sbin/policy-rc.d"
[ -f "$root/boot/vmlinuz-$CG_KVER" ] && [ -f "$root/boot/initrd.img-$CG_KVER" ] ||
	cg_die "the root has no /boot/vmlinuz-$CG_KVER or initrd.img-$CG_KVER"

# The host's identity and its disk.
echo "cg-$suite" >"$root/etc/hostname"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$root/etc/fstab"
# (no root password: nobody logs in; the test's unit does the work)
cat >"$root/etc/systemd/system/cg-boot.service" <<'EOF'
[Unit]
Description=csum-guard test: run /cg/run from the host's 9p share
After=multi-user.target

[Service]
Type=oneshot
ExecStartPre=/bin/mkdir -p /cg
ExecStartPre=/sbin/modprobe 9pnet_virtio
ExecStartPre=/bin/mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 cg /cg
ExecStart=/bin/sh /cg/run
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -s /etc/systemd/system/cg-boot.service \
	"$root/etc/systemd/system/multi-user.target.wants/cg-boot.service"
# nothing waits for a network the host does not have
rm -f "$root/etc/systemd/system/"*/systemd-networkd-wait-online.service

cp "$root/boot/vmlinuz-$CG_KVER" "$dir.tmp/vmlinuz"
cp "$root/boot/initrd.img-$CG_KVER" "$dir.tmp/initrd.img"
# Sized for the root, the packages the test installs and a DKMS build.
used=$(du -sm "$root" | cut -f1)
# (its notes go to a log: what this script prints is eval'ed by its callers)
mke2fs -q -F -t ext4 -L cgroot -d "$root" "$dir.tmp/disk.img" "$((used + 1536))M" \
	>"$dir.tmp/mke2fs.log" 2>&1 ||
	cg_die "mke2fs of the root failed: $(tail -1 "$dir.tmp/mke2fs.log")"
rm -rf "$root"
echo "$stamp" >"$dir.tmp/ready"
mv "$dir.tmp" "$dir"
print_info
