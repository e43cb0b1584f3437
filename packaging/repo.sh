#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# packaging/repo.sh REPO SUITE KEY CERT DEB... - an apt repository in REPO
# with the packages DEB...:
#   pool/main/c/csum-guard/*.deb
#   dists/SUITE/main/binary-{amd64,arm64}/Packages(.gz)
#   dists/SUITE/Release, InRelease (clearsigned), Release.gpg (detached)
#   csum-guard-archive-keyring.gpg (.asc): the key that signs it, for the
#     hosts' signed-by=
#   csum-guard-modules.der (.pem): the certificate of the key that signed
#     the modules, for mokutil --import (Secure Boot) or a kernel's keyring
# KEY names the signing key: a file holding the secret key (imported into
# a keyring of this run's own in /tmp, removed at the end) or a key ID of
# the caller's keyring. Release is dated SOURCE_DATE_EPOCH: two builds of one
# tree give the same files but the signatures. The repository is made
# beside REPO and moved into place once complete.
set -euo pipefail

[ $# -ge 5 ] || { echo "usage: $0 REPO SUITE KEY CERT DEB..." >&2; exit 2; }
repo=$1 suite=$2 key=$3 cert=$(realpath -e "$4" 2>/dev/null) || { echo "repo.sh: no certificate $4 (MODULE_CERT=)" >&2; exit 1; }
shift 4
: "${SOURCE_DATE_EPOCH:?}"
die() { echo "repo.sh: $*" >&2; exit 1; }
[[ $suite =~ ^[a-z][a-z0-9.-]*$ ]] || die "not a suite name: $suite (REPO_SUITE=)"

gpg=(gpg --batch --quiet)
if [ -f "$key" ]; then
	# a key of its own: a keyring of this run's own, never beside the
	# repository (which is published), removed at the end
	home=$(mktemp -d /tmp/csum-guard-repo.XXXXXX)
	trap 'gpgconf --homedir "$home" --kill gpg-agent 2>/dev/null; rm -rf "$home"' EXIT
	gpg+=(--homedir "$home")
	"${gpg[@]}" --import "$key" 2>/dev/null || die "cannot import a key from $key (REPO_KEY=)"
	key=$("${gpg[@]}" --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "$key" ] || die "$3 holds no secret key (REPO_KEY=)"
fi
"${gpg[@]}" --list-secret-keys "$key" >/dev/null 2>&1 ||
	die "no secret key $key to sign the repository with (REPO_KEY=)"

tmp=$repo.tmp
rm -rf "$tmp"
pool=pool/main/c/csum-guard
mkdir -p "$tmp/$pool"
cp "$@" "$tmp/$pool/"
cd "$tmp"
arches="amd64 arm64"
for arch in $arches; do
	dir=dists/$suite/main/binary-$arch
	mkdir -p "$dir"
	# (Architecture: all packages are listed for every architecture)
	apt-ftparchive --arch "$arch" packages "$pool" >"$dir/Packages"
	gzip -9n <"$dir/Packages" >"$dir/Packages.gz"
done
apt-ftparchive \
	-o APT::FTPArchive::Release::Origin=csum-guard \
	-o APT::FTPArchive::Release::Label=csum-guard \
	-o "APT::FTPArchive::Release::Suite=$suite" \
	-o "APT::FTPArchive::Release::Codename=$suite" \
	-o "APT::FTPArchive::Release::Architectures=$arches" \
	-o APT::FTPArchive::Release::Components=main \
	-o "APT::FTPArchive::Release::Description=csum-guard, its DKMS source and its prebuilt modules" \
	release "dists/$suite" >Release.new
# apt-ftparchive dates the file now: the tree's date instead
sed -i "s/^Date: .*/Date: $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")/" Release.new
mv Release.new "dists/$suite/Release"
"${gpg[@]}" --digest-algo SHA512 -u "$key" --clearsign -o "dists/$suite/InRelease" "dists/$suite/Release"
"${gpg[@]}" --digest-algo SHA512 -u "$key" -abs -o "dists/$suite/Release.gpg" "dists/$suite/Release"
"${gpg[@]}" --export "$key" >csum-guard-archive-keyring.gpg
"${gpg[@]}" --armor --export "$key" >csum-guard-archive-keyring.asc
if ! openssl x509 -in "$cert" -outform DER -out csum-guard-modules.der 2>/dev/null; then
	openssl x509 -inform DER -in "$cert" -outform DER -out csum-guard-modules.der
fi
openssl x509 -inform DER -in csum-guard-modules.der -out csum-guard-modules.pem
find . -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
cd - >/dev/null
rm -rf "$repo"
mv "$tmp" "$repo"
