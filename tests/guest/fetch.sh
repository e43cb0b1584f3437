#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/fetch.sh - download and prepare a kernel of kernels.list
#
#   fetch.sh NAME           fetch NAME (or reuse its cache), then print
#   fetch.sh --print NAME   only print, and fail if NAME is not cached
#
# Prints, for `eval`:
#   KVER=<uname -r of the kernel>
#   HEADERS=<headers dir: make -C $HEADERS M=<module dir> builds against it>
#   KERNEL=<image QEMU boots>
#   MODULES=<the kernel's /lib/modules/KVER, depmod'ed>
#
# The image, headers, -common headers and linux-kbuild packages are fetched
# with a private apt configuration (build/kernels/apt/) and unpacked with
# dpkg -x into build/kernels/NAME/root/; nothing is installed system-wide
# except the tools (xz, zstd, kmod, the compiler...).  So deb6.1-fixed is
# also used from the cache, not from /boot: every kernel is handled the same
# way and stays pinned whatever linux-image-amd64 points to.  DKMS, which
# needs system-wide headers, can still be used for a kernel: run.sh merges
# the host's /lib/modules/KVER/updates/ into the guest's module tree.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: $0 [--print] NAME   (NAME: $(cg_kernel_names))" >&2
	exit 2
}

print_only=0
if [ "${1:-}" = --print ]; then
	print_only=1
	shift
fi
[ $# -eq 1 ] || usage
case $1 in -*) usage ;; esac
cg_kernel "$1"

print_info()
{
	echo "KVER=$CG_KVER"
	echo "HEADERS=$CG_KROOT/usr/src/linux-headers-$CG_KVER"
	echo "KERNEL=$(cg_kernel_image)"
	echo "MODULES=$CG_KROOT/lib/modules/$CG_KVER"
}

if cg_kernel_ready; then
	print_info
	exit 0
fi
[ $print_only = 0 ] || cg_die "$CG_KNAME is not fetched yet: run $0 $CG_KNAME"

# The downloaded .deb of "pkg=version" for the kernel's architecture (or
# all), if any (apt writes ':' as %3a).
deb_of()
{
	local pkg=${1%%=*} ver=${1#*=} f

	for f in "$CG_KERNELS/debs/${pkg}_${ver//:/%3a}_"{"$CG_KARCH",all}.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# Debian's 7.x kernels are split: linux-image-KVER is an empty package that
# depends on linux-binary-KVER (the image, /usr/lib/modules/KVER/vmlinuz),
# linux-modules-KVER and linux-base-KVER (modules.builtin and friends), all
# of the image's version.  Print those dependencies of the downloaded image
# package as "pkg=version" (nothing for an image package that holds the
# kernel itself).
image_parts()
{
	local deb

	deb=$(deb_of "${CG_KPKGS%% *}") || return 0
	dpkg-deb -f "$deb" Depends | tr ',' '\n' |
		sed -n "s/^ *\(linux-\(binary\|modules\|base\)-$CG_KVER\) *(= *\([^)]*\)).*/\1=\3/p"
}

# Download the packages of the kernel that are not in build/kernels/debs/ yet:
# those of its kernels.list line, then the parts a split image depends on.
# The private lists are refreshed when there are none or when a pinned
# version cannot be found in them.
download()
{
	download_pkgs $CG_KPKGS
	# shellcheck disable=SC2046
	download_pkgs $(image_parts)
}

download_pkgs()
{
	local pv i need=()

	for pv; do
		deb_of "$pv" > /dev/null || need+=("$pv")
	done
	[ ${#need[@]} -eq 0 ] && return 0

	cg_apt_setup "$CG_KERNELS/apt" $(awk '!/^[[:space:]]*(#|$)/ { print $2 }' "$CG_LIST" | sort -u)
	mkdir -p "$CG_KERNELS/debs"
	cd "$CG_KERNELS/debs"
	if ! compgen -G "$CG_KERNELS/apt/lists/*_Packages*" > /dev/null; then
		"${APT[@]}" update >&2 || cg_die "apt-get update failed"
	fi
	# pkg:arch=version: the kernel's architecture, whatever this machine's
	# (Architecture: all packages, the -common headers, take no suffix).
	for i in "${!need[@]}"; do
		pv=${need[i]/=/:$CG_KARCH=}
		"${APT[@]}" download --print-uris "$pv" > /dev/null 2>&1 && need[i]=$pv
	done
	cg_msg "downloading ${need[*]}"
	if ! "${APT[@]}" download "${need[@]}" >&2; then
		"${APT[@]}" update >&2 || cg_die "apt-get update failed"
		"${APT[@]}" download "${need[@]}" >&2 ||
			cg_die "cannot download ${need[*]}: no longer in the archive? update $CG_LIST"
	fi
	cd - > /dev/null
}

# Make the unpacked headers usable in place:
#   make -C $root/usr/src/linux-headers-KVER M=<dir>
fix_headers()
{
	local root=$1 hdr=$1/usr/src/linux-headers-$CG_KVER cc want have

	[ -f "$hdr/Makefile" ] || cg_die "no headers in $hdr"

	# The arch headers include the -common ones by absolute path
	# (/usr/src/...): point it at the unpacked copy next to this Makefile.
	sed -i 's|^include /usr/src/\(linux-headers-[^/]*\)/Makefile$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1/Makefile|' \
		"$hdr/Makefile"
	grep -q '^include /usr/src/' "$hdr/Makefile" &&
		cg_die "unexpected include in $hdr/Makefile"

	# scripts/ and tools/ are relative links into usr/lib/linux-kbuild-X,
	# unpacked into the same root: they must resolve there.
	[ -f "$hdr/scripts/Makefile.build" ] ||
		cg_die "$hdr/scripts does not resolve: linux-kbuild package missing from kernels.list?"

	# 7.x headers also name their own place absolutely (KBUILD_OUTPUT):
	# the directory of this Makefile, wherever it was unpacked.
	sed -i 's|^KBUILD_OUTPUT=/usr/src/linux-headers-[^/]*$|KBUILD_OUTPUT := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))|' \
		"$hdr/Makefile"
	grep -q '^KBUILD_OUTPUT=/' "$hdr/Makefile" &&
		cg_die "unexpected KBUILD_OUTPUT in $hdr/Makefile"

	# The headers name the compiler the kernel was built with (gcc-10 for
	# bullseye).  Without it, use this machine's gcc if it is newer (modules
	# load anyway: the vermagic holds no compiler version).  An older gcc
	# rejects the flags of a newer one: such headers (7.x want gcc-16) stay
	# as they are, and dkms.sh builds in a root of the kernel's release.
	# Another architecture's headers stay as they are too: their modules
	# are built in a root of the kernel's release, with its compiler.
	cc=$(cg_headers_cc "$hdr")
	have=gcc-$(gcc -dumpversion | cut -d. -f1)
	if [ "$CG_KARCH" = "$(dpkg --print-architecture)" ] &&
	   [ -n "$cc" ] && ! command -v "$cc" > /dev/null &&
	   [ "${cc#gcc-}" -lt "${have#gcc-}" ]; then
		cg_msg "$CG_KNAME: headers want $cc, using $have"
		sed -i "s/^\(CC = .*)\)$cc\$/\1$have/" "$hdr/.kernelvariables"
	fi

	# Relative build/source links, so that the module tree can find its
	# headers inside the unpacked root as well.
	want=$(readlink "$root/lib/modules/$CG_KVER/source" || true)
	ln -sfn "../../../usr/src/linux-headers-$CG_KVER" "$root/lib/modules/$CG_KVER/build"
	case $want in
	/*) ln -sfn "../../..$want" "$root/lib/modules/$CG_KVER/source" ;;
	esac
	return 0
}

# Extract the uncompressed kernel from the bzImage, so that QEMU can boot it
# through its PVH entry point, about 3x faster under TCG than decompressing
# in the guest.  The setup header gives the compressed payload's place:
# (setup_sects + 1) * 512 + payload_offset, payload_length bytes, which end
# with the 4-byte decompressed size.  On any doubt, leave no vmlinux: run.sh
# then boots the bzImage.
payload()
{
	dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none
}

extract_vmlinux()
{
	local bz=$1 out=$2 sects off len magic notes

	rm -f "$out"
	sects=$(od -An -t u1 -j 497 -N 1 "$bz")
	off=$(( (sects + 1) * 512 + $(od -An -t u4 -j 584 -N 4 "$bz") ))
	len=$(od -An -t u4 -j 588 -N 4 "$bz")
	magic=$(od -An -t x1 -j "$off" -N 6 "$bz" | tr -d ' \n')
	case $magic in
	fd377a585a00)	# xz
		payload "$bz" "$off" "$len" |
			xz -dc --single-stream > "$out.new" || true ;;
	28b52ffd*)	# zstd: the trailing size field is not part of the frame
		payload "$bz" "$off" $((len - 4)) |
			zstd -qdc > "$out.new" || true ;;
	*)
		cg_msg "$CG_KNAME: unknown compression ($magic), booting the bzImage"
		return 0 ;;
	esac
	# An ELF with the PVH entry note (Xen note type 0x12, PHYS32_ENTRY).
	notes=$(readelf -n "$out.new" 2>/dev/null || true)
	if grep -Eq 'note type: \(0x00000012\)|PHYS32_ENTRY' <<< "$notes"; then
		mv "$out.new" "$out"
	else
		cg_msg "$CG_KNAME: no PVH vmlinux in $bz, booting the bzImage"
		rm -f "$out.new"
	fi
}

# arm64: QEMU's -kernel takes a raw or gzipped Image, not the EFI zboot
# image (a PE file whose payload is the compressed Image) that newer
# kernels ship.  Take the Image out of either, so that every arm64 kernel
# boots the same way; fail if what comes out is no arm64 Image.
extract_image()
{
	local vmlinuz=$1 out=$2 off len comp

	rm -f "$out"
	case $(od -An -t x1 -N 8 "$vmlinuz" | tr -d ' \n') in
	1f8b*)
		gzip -dc < "$vmlinuz" > "$out.new" || true ;;
	4d5a*)
		# "MZ", then "zimg", payload offset and size, compression name
		if [ "$(dd if="$vmlinuz" bs=1 skip=4 count=4 status=none)" = zimg ]; then
			off=$(od -An -t u4 -j 8 -N 4 "$vmlinuz" | tr -d ' ')
			len=$(od -An -t u4 -j 12 -N 4 "$vmlinuz" | tr -d ' ')
			comp=$(dd if="$vmlinuz" bs=1 skip=24 count=8 status=none | tr -d '\0')
			case $comp in
			gzip) payload "$vmlinuz" "$off" "$len" | gzip -dc > "$out.new" || true ;;
			zstd|zstd22) payload "$vmlinuz" "$off" "$len" | zstd -qdc > "$out.new" || true ;;
			xzkern) payload "$vmlinuz" "$off" "$len" | xz -dc > "$out.new" || true ;;
			esac
		else
			cp "$vmlinuz" "$out.new"
		fi ;;
	esac
	# An arm64 Image carries "ARM\x64" at offset 56.
	if [ "$(dd if="$out.new" bs=1 skip=56 count=3 status=none 2>/dev/null)" = ARM ]; then
		mv "$out.new" "$out"
	else
		rm -f "$out.new"
		cg_die "$CG_KNAME: cannot take an arm64 Image out of $vmlinuz"
	fi
}

# Debian 7.x ships its module tree (and the image in it) under
# /usr/lib/modules, and the headers' build/source links are relative to
# that place.  Move the tree to lib/modules, where depmod -b, run.sh and
# the older kernels have it, and make those links point to the same
# targets from there.
merged_usr()
{
	local root=$1 from=usr/lib/modules/$CG_KVER l t

	[ -d "$root/$from" ] || return 0
	[ -e "$root/lib/modules/$CG_KVER" ] && cg_die "both lib/modules and usr/lib/modules hold $CG_KVER"
	mkdir -p "$root/lib/modules"
	mv "$root/$from" "$root/lib/modules/"
	rmdir -p --ignore-fail-on-non-empty "$root/usr/lib/modules"
	for l in build source; do
		t=$(readlink "$root/lib/modules/$CG_KVER/$l") || continue
		case $t in
		/*) ;;	# fix_headers makes absolute links relative
		*) ln -sfn "../../../$(realpath -m --relative-to=/ "/$from/$t")" \
			"$root/lib/modules/$CG_KVER/$l" ;;
		esac
	done
}

prepare()
{
	local root=$CG_KDIR/root.new pv

	rm -rf "$root" "$CG_KDIR/ready"
	mkdir -p "$root"
	for pv in $CG_KPKGS $(image_parts); do
		dpkg -x "$(deb_of "$pv")" "$root"
	done
	merged_usr "$root"
	[ -d "$root/lib/modules/$CG_KVER" ] || cg_die "no lib/modules/$CG_KVER in the image"
	fix_headers "$root"
	# Uncompressed modules (6.12 ships .ko.xz): depmod over them, which
	# run.sh repeats when extra modules join, takes 1 s instead of 10, and
	# the guest loads them faster.  The signature is inside the .ko and
	# stays valid.
	find "$root/lib/modules/$CG_KVER" -name '*.ko.xz' -print0 |
		xargs -0 -r -n 64 -P "$(nproc)" xz -d
	find "$root/lib/modules/$CG_KVER" -name '*.ko.zst' -print0 |
		xargs -0 -r -n 64 -P "$(nproc)" zstd -q -d --rm
	depmod -b "$root" "$CG_KVER"
	rm -rf "$CG_KROOT"
	mv "$root" "$CG_KROOT"
	case $CG_KARCH in
	amd64) extract_vmlinux "$(cg_kernel_vmlinuz)" "$CG_KDIR/vmlinux" ;;
	arm64) extract_image "$(cg_kernel_vmlinuz)" "$CG_KDIR/Image" ;;
	esac
	# run.sh rebuilds these from the new modules.
	rm -rf "$CG_KDIR"/initrd-* "$CG_KDIR"/modules-*
	cg_kernel_stamp > "$CG_KDIR/ready"
}

# Tools: dpkg -x and apt, decompressors for vmlinuz and modules, depmod;
# make, gcc and pahole (6.12 headers ship a BTF vmlinux) to build modules
# against the headers.
cg_need_pkgs apt dpkg xz-utils zstd kmod binutils make gcc libc6-dev libelf1 pahole

# One fetch at a time: concurrent run.sh may ask for the same kernel.  And
# never prepare a kernel again under a running guest: run.sh holds the
# kernel's lock shared while QEMU runs.
mkdir -p "$CG_KDIR"
exec 9> "$CG_KERNELS/.lock"
flock 9
if ! cg_kernel_ready; then
	download
	exec 8>> "$CG_KERNELS/$CG_KNAME.lock"
	flock 8
	cg_msg "preparing $CG_KNAME in $CG_KDIR"
	prepare
	exec 8>&-
fi
exec 9>&-
print_info
