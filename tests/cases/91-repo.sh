# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 91-repo.sh - make repo: the signed apt repository, its prebuilt and
# signed modules, and a Debian host without a compiler that installs from
# it.
#
# Host cases (cg_host_case), once per run: they build with make in the
# tree, and the last boots QEMU itself.
#   repo_layout   (make test, seconds: no module built) the repository's
#                 files, apt's check of its signature (and its refusal
#                 with another key), two builds with the same bytes but
#                 the signatures, bad input refused
#   repo_modules  (make test-matrix) the modules of every kernel of the
#                 repository (amd64 and arm64), each built in its
#                 release's root, signed by the builder's key, loaded in a
#                 boot of its kernel, built twice the same
#   repo_host     (make test-matrix) a Debian 12 host and a Debian 11
#                 one made without a compiler and without headers
#                 (hostroot.sh --bare) add the repository and apt installs
#                 csum-guard: the module for their kernel arrives prebuilt
#                 and guards a new tap; a kernel of another ABI gets its
#                 module, and the host reboots into it: guarded again,
#                 that kernel's prebuilt module loaded; back in its first
#                 kernel, apt-get upgrade to the next release, published
#                 in the same repository, keeps the tap guarded, and the
#                 new module guards it once reloaded
#                 (tests/guest/host-repo.sh)

# The throwaway keys of a run, made once in $TMPD/repokeys: a gpg key for
# the repository (exported as a secret key file), another one to be
# refused, a module signing key and certificate. The certificate's CN is
# what modinfo calls the signer.
REPO_SIGNER="csum-guard test fleet key"
repo_keys() {
	local k=$TMPD/repokeys

	[ -f "$k/done" ] && return 0
	rm -rf "$k" && mkdir -p -m 0700 "$k/gnupg" "$k/other" || return 1
	GNUPGHOME=$k/gnupg gpg --batch --quiet --passphrase '' \
		--quick-gen-key 'csum-guard test repository <repo@test.invalid>' rsa3072 sign never &&
	GNUPGHOME=$k/gnupg gpg --batch --armor --export-secret-keys >"$k/repo.asc" &&
	GNUPGHOME=$k/other gpg --batch --quiet --passphrase '' \
		--quick-gen-key 'someone else <else@test.invalid>' rsa3072 sign never &&
	GNUPGHOME=$k/other gpg --batch --export >"$k/other.gpg" &&
	openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-subj "/CN=$REPO_SIGNER" -addext basicConstraints=critical,CA:FALSE \
		-addext keyUsage=digitalSignature -addext extendedKeyUsage=codeSigning \
		-newkey rsa:3072 -keyout "$k/mod.key" -out "$k/mod.crt" 2>/dev/null &&
	touch "$k/done"
}

# make_repo DIR KERNELS: make repo into DIR with the throwaway keys
make_repo() {
	local k=$TMPD/repokeys

	make -C "$TOP" --no-print-directory repo REPO="$1" REPO_KERNELS="$2" \
		REPO_KEY="$k/repo.asc" MODULE_KEY="$k/mod.key" MODULE_CERT="$k/mod.crt"
}

# repo_apt REPO KEYRING ARGS: apt-get ARGS with a private configuration whose
# only source is REPO, trusted with KEYRING (as a host's signed-by)
repo_apt() {
	local r=$1 kr=$2 a=$TMPD/repo-apt
	shift 2

	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" && : >"$a/status" &&
	echo "deb [signed-by=$kr] file:$r stable main" >"$a/sources.list" &&
	apt-get -q -o "Dir::Etc::sourcelist=$a/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o "Dir::State::status=$a/status" \
		-o APT::Architecture=amd64 -o APT::Sandbox::User=root "$@"
}

# the clearsigned text of an InRelease, without its signature
repo_signed_text() { sed -n '/^-----BEGIN PGP SIGNED MESSAGE-----$/,/^-----BEGIN PGP SIGNATURE-----$/p' "$1"; }

case_repo_layout() {
	local t="repo-layout" r1=$TMPD/repo1 r2=$TMPD/repo2 f ver n d

	ver=$(cat "$TOP/VERSION")
	if ! repo_keys >"$TMPD/repokeys.log" 2>&1; then
		fail "$t: cannot make the throwaway keys: $(tail -1 "$TMPD/repokeys.log")"
		return
	fi
	# bad input: no keys named, or a key that is not one: one line, no repository
	make -C "$TOP" --no-print-directory repo REPO="$TMPD/repo0" REPO_KERNELS= \
		>"$TMPD/repo0.out" 2>"$TMPD/repo0.err" && unexpected "make repo without keys succeeded"
	[ "$(grep -c 'make repo: name the keys' "$TMPD/repo0.err")" = 1 ] ||
		unexpected "make repo without keys did not say which to name" "$(head -2 "$TMPD/repo0.err" | tr '\n' ' ')"
	make -C "$TOP" --no-print-directory repo REPO="$TMPD/repo0" REPO_KERNELS= \
		REPO_KEY="$TMPD/repokeys/mod.crt" MODULE_KEY="$TMPD/repokeys/mod.key" \
		MODULE_CERT="$TMPD/repokeys/mod.crt" >"$TMPD/repo0.out" 2>"$TMPD/repo0.err" &&
		unexpected "make repo with a certificate as REPO_KEY succeeded"
	grep -q 'repo.sh: cannot import a key' "$TMPD/repo0.err" ||
		unexpected "a bad REPO_KEY was not named" "$(grep -v '^make' "$TMPD/repo0.err" | head -2 | tr '\n' ' ')"
	[ -e "$TMPD/repo0" ] && unexpected "a refused make repo left $TMPD/repo0"

	if ! make_repo "$r1" "" >"$TMPD/repo1.log" 2>&1 || ! make_repo "$r2" "" >"$TMPD/repo2.log" 2>&1; then
		fail "$t: make repo failed: $(grep -v '^make' "$TMPD/repo1.log" "$TMPD/repo2.log" | tail -2 | tr '\n' ' ')"
		return
	fi
	for f in pool/main/c/csum-guard/csum-guard_${ver}_amd64.deb pool/main/c/csum-guard/csum-guard_${ver}_arm64.deb \
		pool/main/c/csum-guard/csum-guard-dkms_${ver}_all.deb pool/main/c/csum-guard/csum-guard-modules_${ver}_amd64.deb \
		dists/stable/Release dists/stable/InRelease dists/stable/Release.gpg \
		dists/stable/main/binary-amd64/Packages.gz dists/stable/main/binary-arm64/Packages.gz \
		csum-guard-archive-keyring.gpg csum-guard-modules.der; do
		[ -s "$r1/$f" ] || unexpected "no $f"
	done
	# the secret key goes nowhere near what is published
	grep -rlq 'PRIVATE KEY' "$r1" && unexpected "the repository holds a private key"
	[ -e "$TMPD/repo-gnupg" ] && unexpected "make repo left a keyring beside the repository"
	# the signatures, by gpgv with the archive key alone
	gpgv --keyring "$r1/csum-guard-archive-keyring.gpg" "$r1/dists/stable/InRelease" >/dev/null 2>&1 ||
		unexpected "InRelease does not verify with the archive key"
	gpgv --keyring "$r1/csum-guard-archive-keyring.gpg" "$r1/dists/stable/Release.gpg" \
		"$r1/dists/stable/Release" >/dev/null 2>&1 || unexpected "Release.gpg does not verify"
	[ "$(openssl x509 -inform DER -in "$r1/csum-guard-modules.der" -noout -subject 2>/dev/null)" = \
	  "$(openssl x509 -in "$TMPD/repokeys/mod.crt" -noout -subject)" ] ||
		unexpected "csum-guard-modules.der is not the module certificate"
	# apt: the key of signed-by makes the repository trusted, another key does not
	rm -rf "$TMPD/repo-apt"
	if repo_apt "$r1" "$r1/csum-guard-archive-keyring.gpg" update >"$TMPD/repo-apt.log" 2>&1 &&
	   ! grep -q '^[WE]:' "$TMPD/repo-apt.log"; then
		n=$(repo_apt "$r1" "$r1/csum-guard-archive-keyring.gpg" install -s csum-guard 2>&1 |
			grep -c "^Inst csum-guard (${ver//./\\.} csum-guard:stable \[amd64\])")
		[ "$n" = 1 ] || unexpected "apt does not offer csum-guard $ver for amd64 from the repository"
	else
		unexpected "apt-get update with the archive key failed" "$(grep -m1 '^[WE]:' "$TMPD/repo-apt.log")"
	fi
	rm -rf "$TMPD/repo-apt"
	repo_apt "$r1" "$TMPD/repokeys/other.gpg" update >"$TMPD/repo-apt.log" 2>&1
	grep -q 'NO_PUBKEY\|not signed' "$TMPD/repo-apt.log" ||
		unexpected "apt-get update with another key did not refuse the repository"
	rm -rf "$TMPD/repo-apt"
	# what each architecture's index lists, with the pool's digests
	for d in amd64:"csum-guard csum-guard-dkms csum-guard-modules" arm64:"csum-guard csum-guard-dkms"; do
		n=$(zcat "$r1/dists/stable/main/binary-${d%%:*}/Packages.gz" | sed -n 's/^Package: //p' | LC_ALL=C sort | paste -sd' ')
		[ "$n" = "${d#*:}" ] || unexpected "${d%%:*} lists '$n', not '${d#*:}'"
	done
	while read -r f n; do
		[ "$(sha256sum <"$r1/$f" | cut -d' ' -f1)" = "$n" ] || unexpected "$f's SHA256 in Packages is wrong"
	done < <(awk '/^Filename:/ { f = $2 } /^SHA256:/ { print f, $2 }' "$r1/dists/stable/main/binary-amd64/Packages")
	# built twice: the same files but the signatures
	for f in $(cd "$r1" && find . -type f ! -name InRelease ! -name Release.gpg | LC_ALL=C sort); do
		cmp -s "$r1/$f" "$r2/$f" || unexpected "$f differs between two builds"
	done
	cmp -s <(repo_signed_text "$r1/dists/stable/InRelease") <(repo_signed_text "$r2/dists/stable/InRelease") ||
		unexpected "InRelease's signed text differs between two builds"
	grep -q "^Date: $(LC_ALL=C date -u -R -d "@$(git -C "$TOP" log -1 --format=%ct)")\$" "$r1/dists/stable/Release" ||
		unexpected "Release is not dated by the last commit"
	expect_verdict "$t" "make repo signs Release/InRelease with REPO_KEY (gpgv, apt with signed-by; another key refused), lists csum-guard amd64+arm64, -dkms, -modules with their digests; two builds the same but the signatures; no keys or a bad one: one line, nothing made"
}
cg_host_case repo_layout

# module_sig_ok KO CERT: KO's appended PKCS#7 signature verifies over the
# module's bytes with CERT (what the kernel does with a trusted key)
module_sig_ok() {
	local ko=$1 cert=$2 size siglen x=$TMPD/modsig

	size=$(stat -c %s "$ko")
	# trailer: struct module_signature (12 bytes, sig_len big-endian last)
	# and the magic string (28 bytes)
	[ "$(tail -c 28 "$ko")" = "~Module signature appended~" ] || return 1
	siglen=$(tail -c 32 "$ko" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 40 - siglen)) "$ko" >"$x.data"
	tail -c $((siglen + 40)) "$ko" | head -c "$siglen" >"$x.p7"
	openssl cms -verify -binary -inform DER -in "$x.p7" -content "$x.data" \
		-certfile "$cert" -nointern -noverify -out /dev/null 2>/dev/null
}

# kernel_of NAME: "KVER ARCH" of kernels.list's NAME, as tests/guest/lib.sh's
# cg_kernel reads it (in a subshell: its helpers stay out of the suite)
kernel_of() {
	(. "$TOP/tests/guest/lib.sh" && cg_kernel "$1" && echo "$CG_KVER $CG_KARCH")
}

# repo_mok K KO [CERT]: KO, the repository's module for the amd64 kernel K,
# loaded with modprobe in a boot of K with Secure Boot (Debian's signed
# shim, grub and kernel: signatures enforced, by sig_enforce from 6.1 on,
# by the lockdown alone in 5.10), CERT in shim's MokList as an operator's
# `mokutil --import` leaves it; prints what the guest saw
repo_mok() {
	"$TOP/tests/guest/run.sh" --kernel "$1" --timeout 900 --secure-boot ${3:+--mok "$3"} \
		--modules-dir "$(dirname "$2")" -- sh -c '
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
		echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce)"
		echo "lockdown: $(cat /sys/kernel/security/lockdown 2>/dev/null)"
		dmesg | sed -n "s/.*Loaded X.509 cert .\(.*\): [0-9a-f]*.$/cert: \1/p"
		out=$(modprobe csum_guard 2>&1)
		echo "modprobe: rc=$? $out"
		echo "taint: $(cat /sys/module/csum_guard/taint 2>/dev/null)"' 2>&1
}

# repo_sb_ok K KVER KO: one enrolled key covers the fleet: under Secure
# Boot, with the builder's certificate in shim's MokList, the kernel trusts
# it and KO loads, not tainting it as unsigned; without it, refused
repo_sb_ok() {
	local k=$1 kver=$2 ko=$3 out

	out=$(repo_mok "$k" "$ko" "$TMPD/repokeys/mod.crt")
	grep -qx "sig_enforce: Y" <<<"$out" || grep -q "^lockdown: .*\[integrity\]" <<<"$out" ||
		unexpected "$kver, Secure Boot" "signatures not enforced: $(grep -E '^(sig_enforce|lockdown):' <<<"$out" | tr '\n' ' ')"
	grep -qx "cert: $REPO_SIGNER" <<<"$out" || unexpected "$kver, Secure Boot" "the kernel did not load the MokList's certificate"
	grep -qx "modprobe: rc=0 " <<<"$out" && grep -qx "taint: O" <<<"$out" ||
		unexpected "$kver, Secure Boot, key enrolled" "$(grep -E '^(modprobe|taint):' <<<"$out" | tr '\n' ' ')"
	# refused: by the signature check (sig_enforce), or by the lockdown
	out=$(repo_mok "$k" "$ko")
	{ { grep -qx "sig_enforce: Y" <<<"$out" &&
		grep -Eq "^modprobe: rc=1 .*(Key was rejected by service|Required key not available)" <<<"$out"; } ||
	  { grep -q "^lockdown: .*\[integrity\]" <<<"$out" &&
		grep -q "^modprobe: rc=1 .*Operation not permitted" <<<"$out"; }; } &&
		! grep -q "^cert: $REPO_SIGNER" <<<"$out" ||
		unexpected "$kver, Secure Boot, no key enrolled" "not refused: $(grep -E '^(sig_enforce|lockdown|modprobe):' <<<"$out" | tr '\n' ' ')"
}

case_repo_modules() {
	local t="repo-modules" r=$TMPD/repo-mods kernels=${CG_REPO_KERNELS:-$(sed -n 's/^REPO_KERNELS ?= //p' "$TOP/packaging/repo.mk")}
	local k kver ko x=$TMPD/mods-x first n=0 cc deb a m out ver sb=

	if [ "$CG_DEPTH" != full ]; then
		skip "$t: builds a module per kernel in its release's root (minutes): make test-matrix runs it"
		return
	fi
	repo_keys >"$TMPD/repokeys.log" 2>&1 || { fail "$t: cannot make the throwaway keys"; return; }
	if ! make_repo "$r" "$kernels" >"$TMPD/repo-mods.log" 2>&1; then
		fail "$t: make repo REPO_KERNELS='$kernels' failed: $(grep -v '^make' "$TMPD/repo-mods.log" | tail -2 | tr '\n' ' ')"
		return
	fi
	ver=$(cat "$TOP/VERSION")
	# one csum-guard-modules per architecture, each in its Packages
	rm -rf "$x" && mkdir -p "$x"
	for deb in "$r"/pool/main/c/csum-guard/csum-guard-modules_*.deb; do
		a=$(dpkg-deb -f "$deb" Architecture)
		dpkg-deb -x "$deb" "$x/$a" || unexpected "dpkg-deb -x $deb"
		grep -qx "Filename: pool/main/c/csum-guard/${deb##*/}" "$r/dists/stable/main/binary-$a/Packages" ||
			unexpected "${deb##*/}" "not in binary-$a/Packages"
	done
	for k in $kernels; do
		read -r kver a < <(kernel_of "$k")
		case $a in arm64) m=AArch64 ;; *) m=X86-64 ;; esac
		ko=$x/$a/usr/lib/csum-guard/modules/$kver/csum_guard.ko
		[ -f "$ko" ] || { unexpected "no module for $kver in csum-guard-modules ($a)"; continue; }
		readelf -h "$ko" | grep -q "Machine: .*$m" ||
			unexpected "$kver" "not an $a object: $(readelf -h "$ko" | grep Machine:)"
		[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ] || unexpected "$kver" "vermagic $(modinfo -F vermagic "$ko")"
		[ "$(modinfo -F signer "$ko")" = "$REPO_SIGNER" ] || unexpected "$kver" "signer '$(modinfo -F signer "$ko")'"
		module_sig_ok "$ko" "$TMPD/repokeys/mod.crt" || unexpected "$kver" "the signature does not verify with the certificate"
		# the compiler the kernel was built with
		cc=$(grep -o 'CONFIG_CC_VERSION_TEXT="[^"]*"' "$TOP/build/kernels/$k/root/usr/src/linux-headers-$kver/.config" |
		     sed 's/.*(\(Debian [^)]*\)).*/\1/')
		readelf -p .comment "$ko" 2>/dev/null | grep -qF "($cc)" ||
			unexpected "$kver" "not built by the kernel's compiler ($cc): $(readelf -p .comment "$ko" | grep -m1 GCC)"
		# it loads in a boot of its kernel (under TCG; arm64 in its
		# release's arm64 root): the module of this file, this release
		out=$("$TOP/tests/guest/run.sh" --kernel "$k" --timeout $([ $a = arm64 ] && echo 1500 || echo 600) \
			--modules-dir "$(dirname "$ko")" -- sh -c \
			'modprobe csum_guard && echo "loaded $(cat /sys/module/csum_guard/version) $(cat /sys/module/csum_guard/srcversion)"' 2>&1)
		[ "$(grep '^loaded ' <<<"$out")" = "loaded $ver $(modinfo -F srcversion "$ko")" ] ||
			unexpected "$kver" "does not load in its kernel: $(tail -3 <<<"$out" | tr '\n' ' ')"
		n=$((n + 1))
		# the amd64 ones under Secure Boot too
		[ "$a" = amd64 ] || continue
		repo_sb_ok "$k" "$kver" "$ko"
		sb="${sb:+$sb, }$kver"
	done
	# built again: the same bytes (the first kernel alone)
	first=${kernels%% *}
	read -r kver a < <(kernel_of "$first")
	if make_repo "$TMPD/repo-mods2" "$first" >"$TMPD/repo-mods2.log" 2>&1; then
		cmp -s "$x/$a/usr/lib/csum-guard/modules/$kver/csum_guard.ko" "$TOP/build/kmods/out/$kver/csum_guard.ko" ||
			unexpected "$kver" "a second build gave other bytes"
	else
		unexpected "the second make repo failed"
	fi
	rm -rf "$x" "$TMPD/repo-mods2"
	expect_verdict "$t" "$n prebuilt modules ($kernels), each in the csum-guard-modules of its architecture, with its kernel's vermagic and compiler, signed by '$REPO_SIGNER' (the signature verifies with the certificate), loaded in a boot of its kernel; under Secure Boot (signatures enforced) with that certificate in shim's MokList loaded, without it refused (${sb:-no amd64 kernel}); $kver built twice, the same bytes"
}
cg_host_case repo_modules

# repack_next DEB DIR [FILE SRC]...: DEB as the next release would be, in
# DIR: version VERSION+next (and its relations to VERSION: csum-guard
# recommends csum-guard-modules of its own version), each FILE of the
# package replaced by SRC (a path under the package's root; SRC empty:
# removed), its md5sums made again. Prints the new .deb's path.
repack_next() {
	local deb=$1 dir=$2 x=$TMPD/repack ver name arch

	shift 2
	ver=$(dpkg-deb -f "$deb" Version) && name=$(dpkg-deb -f "$deb" Package) &&
		arch=$(dpkg-deb -f "$deb" Architecture) || return 1
	rm -rf "$x" && mkdir -p "$dir" && dpkg-deb -R "$deb" "$x" || return 1
	while [ $# -ge 2 ]; do
		rm -f "$x/$1"
		[ -z "$2" ] || install -D -m "$(stat -c %a "$2")" "$2" "$x/$1" || return 1
		shift 2
	done
	sed -i -e "s/^Version: $ver\$/Version: $ver+next/" -e "s/(= $ver)/(= $ver+next)/g" "$x/DEBIAN/control" &&
		(cd "$x" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
			xargs -r -d '\n' md5sum) >"$x/DEBIAN/md5sums" &&
		dpkg-deb --root-owner-group -b "$x" "$dir/${name}_${ver}+next_$arch.deb" >/dev/null &&
		echo "$dir/${name}_${ver}+next_$arch.deb"
}

# repo_next REPO KVER NAME OUT: the repository REPO published again into OUT
# with the next release beside this one: csum-guard VERSION+next (the loader
# built as the next release, build/tests/csum-guard-next) and
# csum-guard-modules VERSION+next, whose module for kernel NAME (release
# KVER) is built again from the DKMS source with the version VERSION+next,
# signed by the same key. Same signing keys, same suite.
repo_next() {
	local r=$1 kver=$2 name=$3 out=$4 k=$TMPD/repokeys x=$TMPD/next-rel ver pool loader mods

	ver=$(cat "$TOP/VERSION")
	pool=$r/pool/main/c/csum-guard
	rm -rf "$x" && mkdir -p "$x/src" "$x/debs" &&
		tar -C "$x/src" -xzf "$TOP/build/dist/csum-guard-$ver.tar.gz" &&
		mv "$x/src/csum-guard-$ver" "$x/src/csum-guard-$ver+next" &&
		echo "$ver+next" >"$x/src/csum-guard-$ver+next/VERSION" &&
		tar -C "$x/src" -czf "$x/next.tar.gz" "csum-guard-$ver+next" &&
		(cd "$TOP" && packaging/kmods.sh "$x/next.tar.gz" "$k/mod.key" "$k/mod.crt" "$x/kmods" "$name") &&
		make -C "$TOP" --no-print-directory "${BLD#"$TOP"/}/tests/csum-guard-next" &&
		strip --strip-unneeded --remove-section=.comment --remove-section=.note \
			-o "$x/csum-guard" "$BLD/tests/csum-guard-next" || return 1
	loader=$(repack_next "$pool/csum-guard_${ver}_amd64.deb" "$x/debs" usr/sbin/csum-guard "$x/csum-guard") ||
		return 1
	mods=$(repack_next "$pool/csum-guard-modules_${ver}_amd64.deb" "$x/debs" \
		"usr/lib/csum-guard/modules/$kver/csum_guard.ko" "$x/kmods/$kver/csum_guard.ko") || return 1
	[ "$(modinfo -F version "$x/kmods/$kver/csum_guard.ko")" = "$ver+next" ] || return 1
	SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct) "$TOP/packaging/repo.sh" "$out" stable \
		"$k/repo.asc" "$k/mod.crt" "$pool"/*.deb "$loader" "$mods"
}

# repo_host NAME: the bare host of kernel NAME of kernels.list (Debian 12
# for deb6.1-fixed, Debian 11 for deb5.10). The kernel it installs later:
# bookworm-backports' 6.12 on Debian 12, bookworm's 6.1 on Debian 11 (the
# line bullseye-backports carried to Debian 11 hosts).
case_repo_host() {
	local k=$1 t="repo-host" next d ver rc t0=$SECONDS KVER= hkver

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $k: boots a Debian host without a compiler (minutes): make test-matrix runs it"
		return
	fi
	case $k in
	deb5.10) next=deb6.1-fixed ;;
	*) next=deb6.12 ;;
	esac
	ver=$(cat "$TOP/VERSION")
	d=$TOP/build/hosts/repo-$k
	rm -rf "$d" && mkdir -p "$d"
	repo_keys >"$TMPD/repokeys.log" 2>&1 || { fail "$t $k: cannot make the throwaway keys"; return; }
	# the host's kernel and the one it installs later (its image package only)
	eval "$("$TOP/tests/guest/fetch.sh" "$k" 2>"$TMPD/repo-host.log")" && hkver=$KVER && [ -n "$hkver" ] ||
		{ fail "$t $k: cannot fetch $k: $(tail -1 "$TMPD/repo-host.log")"; return; }
	KVER=
	eval "$("$TOP/tests/guest/fetch.sh" "$next" 2>"$TMPD/repo-host.log")" && [ -n "${KVER:-}" ] ||
		{ fail "$t $k: cannot fetch $next: $(tail -1 "$TMPD/repo-host.log")"; return; }
	mkdir -p "$d/kernel-next" && cp "$TOP/build/kernels/debs/linux-image-${KVER}_"*_amd64.deb "$d/kernel-next/" ||
		{ fail "$t $k: no image package of $KVER in build/kernels/debs"; return; }
	if ! make_repo "$d/repo" "$k $next" >"$TMPD/repo-host.log" 2>&1; then
		fail "$t $k: make repo REPO_KERNELS='$k $next' failed: $(grep -v '^make' "$TMPD/repo-host.log" | tail -2 | tr '\n' ' ')"
		return
	fi
	# the same repository once the next release is published in it
	if ! repo_next "$d/repo" "$hkver" "$k" "$d/repo-next" >"$TMPD/repo-next.log" 2>&1; then
		fail "$t $k: cannot publish the next release ($ver+next): $(tail -2 "$TMPD/repo-next.log" | tr '\n' ' ')"
		return
	fi
	cp "$TOP/tests/guest/host-repo.sh" "$d/run" &&
		cp "$TOP/tests/guest/host-vmm.sh" "$d/vmm" &&
		cp "$BLD/tests/static/cg-inject" "$BLD/tests/static/cg-udprecv" "$d/" &&
		printf "VERSION=%s\nBAD=%s\nGOOD=%s\nSUITE=stable\nSIGNER='%s'\nNEXT_KVER=%s\nNEXT_VERSION=%s\n" \
			"$ver" 5 20 "$REPO_SIGNER" "$KVER" "$ver+next" >"$d/params" ||
		{ fail "$t $k: cannot prepare the share (make all builds build/tests/static/)"; return; }
	note "$t $k: the repository and the next release took $((SECONDS - t0)) s"
	t0=$SECONDS
	# (three boots: its kernel, the other ABI's, its kernel again)
	"$TOP/tests/guest/boot.sh" --bare "$k" --share "$d" --timeout 3600 >"$TMPD/host-repo.log" 2>&1
	rc=$?
	note "$t $k: the bare host's boot took $((SECONDS - t0)) s (exit $rc)"
	host_results "$t" "$k" "$d" "$TMPD/host-repo.log" $rc
}
cg_host_case --after-guests repo_host deb6.1-fixed
cg_host_case --after-guests repo_host deb5.10

