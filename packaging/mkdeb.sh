#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# packaging/mkdeb.sh STAGE META OUT - make the .deb OUT of the files under
# STAGE and the package metadata in META (packaging/loader, packaging/dkms):
# its control file with @VERSION@, @ARCH@, @INSTALLED_SIZE@ and @KVERS@
# (the kernels of csum-guard-modules) filled in, its conffiles and
# maintainer scripts, the copyright and the changelog every Debian
# package carries, md5sums, and lintian overrides when META has some.
# VERSION, ARCH and KVERS come from the environment; dpkg-deb dates every file
# SOURCE_DATE_EPOCH, so two runs give the same bytes. Run from the top of
# the tree.
set -eu

stage=$1 meta=$2 out=$3
: "${VERSION:?}" "${ARCH:=all}" "${SOURCE_DATE_EPOCH:?}"

die() { echo "mkdeb.sh: $*" >&2; exit 1; }

name=$(sed -n 's/^Package: //p' "$meta/control")
[ -n "$name" ] || die "$meta/control names no package"
# The changelog's newest entry is this version: a release bumps both.
top=$(sed -n '1s/^csum-guard (\([^)]*\)).*/\1/p' packaging/changelog)
[ "$top" = "$VERSION" ] ||
	die "packaging/changelog's newest entry is ${top:-unreadable}, VERSION is $VERSION: add an entry for $VERSION"

doc=$stage/usr/share/doc/$name
install -d "$doc" "$stage/DEBIAN"
install -m 0644 packaging/copyright "$doc/copyright"
# a native package: the Debian changelog is changelog.gz
gzip -9n <packaging/changelog >"$doc/changelog.gz"
if [ -e "$meta/lintian-overrides" ]; then
	install -D -m 0644 "$meta/lintian-overrides" "$stage/usr/share/lintian/overrides/$name"
fi
if [ -e "$meta/conffiles" ]; then
	install -m 0644 "$meta/conffiles" "$stage/DEBIAN/conffiles"
fi
for f in postinst prerm postrm; do
	[ -e "$meta/$f" ] || continue
	sed "s/@VERSION@/$VERSION/g" "$meta/$f" >"$stage/DEBIAN/$f"
	chmod 0755 "$stage/DEBIAN/$f"
done
chmod -R u+rwX,go=rX,go-w "$stage"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
	xargs -r -d '\n' md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"
size=$(find "$stage" -path "$stage/DEBIAN" -prune -o -type f -printf '%s\n' |
	awk '{ k += int(($1 + 1023) / 1024) } END { print k + 0 }')
sed -e "s/@VERSION@/$VERSION/g" -e "s/@ARCH@/$ARCH/g" -e "s/@INSTALLED_SIZE@/$size/" \
	-e "s/@KVERS@/${KVERS:-}/" \
	"$meta/control" >"$stage/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
