#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# packaging/cross-sysroot.sh ARCH DIR - the libraries the static loader
# links, for another Debian architecture, unpacked into DIR/root
#
# Downloads libbpf-dev, libelf-dev and zlib1g-dev of ARCH (their headers
# and static archives) with a private apt configuration: this machine's
# sources, ARCH's package lists in DIR/apt, nothing installed or
# configured system-wide (no dpkg --add-architecture). The versions are
# those of this machine's release, as for the native build. A stamp names
# the packages and versions unpacked; a later run with the same list
# reuses DIR. Prints DIR/root.

set -euo pipefail

[ $# -eq 2 ] && [[ $1 =~ ^[a-z0-9]+$ ]] || { echo "usage: $0 ARCH DIR" >&2; exit 2; }
arch=$1
dir=$(realpath -m "$2")
pkgs=(libbpf-dev libelf-dev zlib1g-dev)

die() { echo "${0##*/}: $*" >&2; exit 1; }

mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
: >"$dir/apt/status"
apt=(apt-get -q -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
     -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::State::status=$dir/apt/status"
     -o "Dir::Cache=$dir/apt/cache" -o APT::Sandbox::User=root)

# the versions the lists name now (after an update when there are none)
compgen -G "$dir/apt/lists/*_Packages*" >/dev/null ||
	"${apt[@]}" update >"$dir/apt.log" 2>&1 || die "apt-get update for $arch failed: $(tail -1 "$dir/apt.log")"
want=$(for p in "${pkgs[@]}"; do
	printf '%s=%s\n' "$p" "$(apt-cache -o "APT::Architecture=$arch" -o "APT::Architectures=$arch" \
		-o "Dir::State::Lists=$dir/apt/lists" -o "Dir::State::status=$dir/apt/status" \
		-o "Dir::Cache=$dir/apt/cache" policy "$p:$arch" | awk '/Candidate:/ { print $2 }')"
done)
grep -q '=$' <<<"$want" && die "no $arch candidate for: $(grep '=$' <<<"$want" | tr '\n' ' ')"
if [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ] && [ -d "$dir/root" ]; then
	echo "$dir/root"
	exit 0
fi

rm -rf "$dir/root" "$dir/debs" && mkdir -p "$dir/debs"
(cd "$dir/debs" && "${apt[@]}" download $(sed "s/=/:$arch=/" <<<"$want")) >>"$dir/apt.log" 2>&1 ||
	die "cannot download the $arch packages: $(tail -1 "$dir/apt.log")"
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root" || die "cannot unpack $deb"
done
echo "$want" >"$dir/stamp"
echo "$dir/root"
