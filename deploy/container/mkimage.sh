#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# deploy/container/mkimage.sh OUT DEB BUSYBOX - the image's one layer, OUT
# (a tar), from the csum-guard .deb of make dist and a static busybox
# (Debian's busybox-static): the static loader and the guard's object from
# the .deb, its copyright, busybox for the shell, httpd and modprobe, and
# this folder's csum-guard-node and metrics. Nothing from a registry, no
# libc: the loader is static. Every file dated SOURCE_DATE_EPOCH, owned by
# root, in a fixed order, so that two runs give the same bytes. Run from the
# top of the tree.
set -eu

out=$1 deb=$2 busybox=$3
: "${SOURCE_DATE_EPOCH:?}"

die() { echo "mkimage.sh: $*" >&2; exit 1; }

[ -f "$deb" ] || die "no package $deb (make dist)"
[ -x "$busybox" ] || die "no busybox at $busybox (Debian's busybox-static)"
readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter' &&
	die "$busybox is not statically linked (Debian's busybox-static is)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/deb"
root=$tmp/root
install -d -m 0755 "$root/bin" "$root/sbin" "$root/usr/sbin" "$root/usr/lib/csum-guard" \
	"$root/usr/share/doc/csum-guard" "$root/usr/share/csum-guard/www/cgi-bin" \
	"$root/etc" "$root/dev" "$root/proc" "$root/sys" "$root/run" "$root/lib/modules"
install -d -m 1777 "$root/tmp"
install -m 0755 "$tmp/deb/usr/sbin/csum-guard" "$root/usr/sbin/csum-guard"
install -m 0644 "$tmp/deb/usr/lib/csum-guard/csum_guard.bpf.o" "$root/usr/lib/csum-guard/"
install -m 0644 "$tmp/deb/usr/share/doc/csum-guard/copyright" "$root/usr/share/doc/csum-guard/"
install -m 0755 "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s ../bin/busybox "$root/sbin/modprobe"
install -m 0755 deploy/container/csum-guard-node "$root/usr/sbin/"
install -m 0755 deploy/container/metrics "$root/usr/share/csum-guard/www/cgi-bin/"
# what is inside, for whoever finds the image on a node
{
	echo "csum-guard $(dpkg-deb -f "$deb" Version) ($(dpkg-deb -f "$deb" Architecture))"
	echo "busybox: $("$busybox" 2>&1 | head -1)"
} >"$root/usr/share/doc/csum-guard/image"
chmod 0644 "$root/usr/share/doc/csum-guard/image"
printf 'root:x:0:0:root:/:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
chmod 0644 "$root/etc/passwd" "$root/etc/group"

tar -C "$root" --sort=name --format=gnu --mtime=@"$SOURCE_DATE_EPOCH" \
	--owner=0 --group=0 --numeric-owner -cf "$out.tmp" .
mv "$out.tmp" "$out"
