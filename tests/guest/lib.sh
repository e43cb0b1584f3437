# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# tests/guest/lib.sh - helpers shared by fetch.sh and run.sh (sourced by bash)
#
# Layout of the kernel cache (build/ is the build tree, never committed):
#   build/kernels/apt/          private apt configuration: sources, lists, cache
#   build/kernels/debs/         downloaded .deb files, shared by all kernels
#   build/kernels/NAME/root/    the kernel's packages unpacked with dpkg -x
#   build/kernels/NAME/vmlinux  uncompressed kernel for a direct PVH boot
#   build/kernels/NAME/ready    stamp: what was prepared, from which list line
#   build/kernels/NAME/initrd-HASH    run.sh: busybox, init.sh, 9p modules
#   build/kernels/NAME/modules-HASH/  run.sh: module tree with extra modules
#   build/kernels/NAME.lock     held shared by run.sh, exclusive by fetch.sh
# run.sh's per-run directories go to build/guest/.

CG_GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
CG_TOP=$(cd "$CG_GUEST_DIR/../.." && pwd -P)
CG_BUILD=$CG_TOP/build
# CG_KERNEL_CACHE moves the kernel cache (e.g. to one that CI keeps; not
# under /tmp, which the guest does not see).
# Resolved, so that the cache's stamps name one path however it is reached
# (a build/kernels that is a symlink to a shared cache stays valid).
CG_KERNELS=$(realpath -m "${CG_KERNEL_CACHE:-$CG_BUILD/kernels}")
CG_LIST=$CG_GUEST_DIR/kernels.list

# Bump when fetch.sh prepares a kernel differently: older caches get redone.
CG_FETCH_FORMAT=1

cg_msg()
{
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Exit with CG_DIE_STATUS (run.sh uses 125: "no verdict"), 1 by default.
cg_die()
{
	cg_msg "$*"
	exit "${CG_DIE_STATUS:-1}"
}

# Install the Debian packages among "$@" that are missing.  CI machines start
# fresh, so the runner brings its own tools.  Other jobs may hold the dpkg
# lock: wait for it instead of failing.  apt's chatter goes to stderr so that
# stdout stays clean for the caller.
cg_need_pkgs()
{
	local missing
	local apt=(apt-get -q -y --no-install-recommends -o DPkg::Lock::Timeout=600)

	mapfile -t missing < <(
		{ dpkg-query -W -f='${db:Status-Status} ${Package}\n' "$@" 2>/dev/null || true; } |
		awk -v want="$*" '$1 == "installed" { ok[$2] = 1 }
			END { n = split(want, w); for (i = 1; i <= n; i++) if (!ok[w[i]]) print w[i] }')
	[ ${#missing[@]} -eq 0 ] && return 0

	cg_msg "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	"${apt[@]}" install "${missing[@]}" >&2 && return 0
	# A fresh machine may have no package lists yet.
	apt-get -q -o DPkg::Lock::Timeout=600 update >&2 &&
		"${apt[@]}" install "${missing[@]}" >&2 ||
		cg_die "cannot install ${missing[*]}"
}

# The archive mirrors this machine is set up with: the one serving the
# *-security suites and the one serving the rest (deb822 .sources files and
# one-line .list files both count).  Debian's own servers otherwise.
cg_mirror()
{
	local want=$1 uri

	uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	      awk -v want="$want" -v RS= '
		{
			uri = ""; sec = 0
			for (i = 1; i <= NF; i++) {
				if ($i == "URIs:") uri = $(i + 1)
				if ($i ~ /-security$/) sec = 1
			}
			if (uri != "" && sec == want) { print uri; exit }
		}')
	[ -n "$uri" ] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	      sed 's/\[[^]]*\]//' |
	      awk -v want="$want" '$1 == "deb" { if (($3 ~ /-security$/) == want) { print $2; exit } }')
	if [ -z "$uri" ]; then
		[ "$want" = 1 ] && uri=http://deb.debian.org/debian-security ||
			uri=http://deb.debian.org/debian
	fi
	echo "$uri"
}

# cg_apt_setup DIR SUITE...: APT, apt-get with a private configuration in
# DIR: its own sources.list naming each SUITE (those ending in -security
# from the security archive), its own lists and cache.  The system's apt
# state is only read (dpkg status), never written.
cg_apt_setup()
{
	local dir=$1 suite main sec

	shift
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	main=$(cg_mirror 0)
	sec=$(cg_mirror 1)
	for suite; do
		case $suite in
		*-security) echo "deb $sec $suite main" ;;
		*) echo "deb $main $suite main" ;;
		esac
	done > "$dir/sources.list.new"
	if ! cmp -s "$dir/sources.list.new" "$dir/sources.list"; then
		mv "$dir/sources.list.new" "$dir/sources.list"
		rm -f "$dir/lists/"*_Packages*	# stale for the new sources
	else
		rm "$dir/sources.list.new"
	fi
	# Every architecture of kernels.list (amd64 and arm64), for apt alone:
	# dpkg's own architectures stay as they are.
	APT=(apt-get -q
	     -o "APT::Architectures::=$(dpkg --print-architecture)"
	     -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
	     -o "Dir::Etc::sourcelist=$dir/sources.list"
	     -o Dir::Etc::sourceparts=-
	     -o "Dir::State::Lists=$dir/lists"
	     -o "Dir::Cache=$dir/cache"
	     -o APT::Sandbox::User=root)
}

cg_kernel_names()
{
	awk '!/^[[:space:]]*(#|$)/ { printf "%s%s", sep, $1; sep = " " }' "$CG_LIST"
}

# Look NAME up in kernels.list and set:
#   CG_KNAME            its name
#   CG_KVER             the kernel release (uname -r), from the image's name
#   CG_KARCH            its Debian architecture, from the image's name
#                       (linux-image-...-arm64: arm64, else amd64)
#   CG_KSUITE           its release: the list's suite without -security or
#                       -backports (the root that builds for it)
#   CG_KPKGS            "pkg=version" of the image and each headers package
#   CG_KLINE            the list line, normalised (it keys the cache)
#   CG_KDIR CG_KROOT    its cache directory and the unpacked packages in it
cg_kernel()
{
	local name suite image version rest p

	while read -r name suite image version rest; do
		case $name in ''|'#'*) continue ;; esac
		[ "$name" = "$1" ] || continue
		CG_KNAME=$name
		CG_KSUITE=${suite%-security}
		CG_KSUITE=${CG_KSUITE%-backports}
		CG_KVER=${image#linux-image-}
		case $image in
		*-arm64) CG_KARCH=arm64 ;;
		*) CG_KARCH=amd64 ;;
		esac
		CG_KPKGS="$image=$version"
		for p in $rest; do
			case $p in *=*) ;; *) p=$p=$version ;; esac
			CG_KPKGS+=" $p"
		done
		CG_KLINE="$name $suite $image $version $rest"
		CG_KDIR=$CG_KERNELS/$name
		CG_KROOT=$CG_KDIR/root
		return 0
	done < "$CG_LIST"
	cg_die "unknown kernel '$1' (kernels.list has: $(cg_kernel_names))"
}

# The compiler (gcc-N) the kernel of HEADERS was built with, from its
# .config ("gcc-12 (Debian 12.2.0-14) 12.2.0", "x86_64-linux-gnu-gcc-12
# (...)", "gcc (Debian 10.2.1-6) 10.2.1"): what a root of its release has.
cg_kernel_cc()
{
	local text cc

	text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config" 2>/dev/null)
	cc=$(grep -o 'gcc-[0-9][0-9]*' <<<"$text" | head -1)
	[ -n "$cc" ] || cc=$(sed -n 's/.*(Debian \([0-9][0-9]*\)\..*/gcc-\1/p' <<<"$text")
	[ -n "$cc" ] && echo "$cc"
}

# The compiler (gcc-N) that a module build against HEADERS calls: CC in
# their .kernelvariables, which fetch.sh may have pointed at this
# machine's newer gcc (cg_kernel_cc is the kernel's own). Empty if none.
cg_headers_cc()
{
	sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$1/.kernelvariables" 2>/dev/null || true
}

# The stamp a prepared kernel cache carries in its "ready" file.
cg_kernel_stamp()
{
	printf '%s|format %s|%s\n' "$CG_KLINE" "$CG_FETCH_FORMAT" "$CG_KDIR"
}

cg_kernel_ready()
{
	[ "$(cat "$CG_KDIR/ready" 2>/dev/null)" = "$(cg_kernel_stamp)" ]
}

# The image QEMU boots: the uncompressed vmlinux (PVH entry, boots in about a
# third of the time) when fetch.sh could extract it, else the bzImage; for
# arm64 the uncompressed Image fetch.sh took out of the vmlinuz.
cg_kernel_image()
{
	if [ -f "$CG_KDIR/vmlinux" ]; then
		echo "$CG_KDIR/vmlinux"
	elif [ -f "$CG_KDIR/Image" ]; then
		echo "$CG_KDIR/Image"
	else
		cg_kernel_vmlinuz
	fi
}

# The kernel's compressed image in its unpacked packages: /boot/vmlinuz-KVER,
# or, since Debian's 7.x (linux-binary-KVER), the vmlinuz of its module tree
# (/usr/lib/modules/KVER, which fetch.sh moves to lib/modules/KVER).
cg_kernel_vmlinuz()
{
	if [ -f "$CG_KROOT/lib/modules/$CG_KVER/vmlinuz" ]; then
		echo "$CG_KROOT/lib/modules/$CG_KVER/vmlinuz"
	else
		echo "$CG_KROOT/boot/vmlinuz-$CG_KVER"
	fi
}

# Quote "$@" for a POSIX shell: each argument in single quotes.
cg_shquote()
{
	local a sep=''

	for a; do
		printf "%s'%s'" "$sep" "${a//\'/\'\\\'\'}"
		sep=' '
	done
}

# cg_qemu_user: the path of qemu-aarch64-static, from qemu-user-static's
# .deb unpacked under build/roots/ (a static interpreter: binfmt's F flag
# opens it once, and it runs inside a chroot without any library of this
# machine); nothing is installed
cg_qemu_user()
{
	local q=$CG_BUILD/roots/qemu-user-static

	if [ ! -x "$q/usr/bin/qemu-aarch64-static" ]; then
		rm -rf "$q" && mkdir -p "$q/deb"
		(cd "$q/deb" && apt-get -q -o APT::Sandbox::User=root download qemu-user-static >&2) ||
			cg_die "cannot download qemu-user-static"
		dpkg -x "$q"/deb/qemu-user-static_*.deb "$q"
		rm -rf "$q/deb"
	fi
	echo "$q/usr/bin/qemu-aarch64-static"
}
