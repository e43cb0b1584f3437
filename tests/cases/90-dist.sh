# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 90-dist.sh - what make dist ships, the .deb above all: its digests verify,
# a second build gives the same bytes, dpkg -i has DKMS build the module
# for a guest kernel, that module loads there with VERSION, and dpkg -r
# takes away everything the package and DKMS put on the system.
#
# A host case (cg_host_case), no backend's: tests/guests.sh runs it once,
# on the host, after the guests. It installs system-wide (a guest sees the
# host's root read-only) and boots a guest of its own; as a per-backend
# case it would run under a backend it does not test, and alongside the
# guests it would compete with them for the CPUs.

DIST_KERNEL=${CG_DIST_KERNEL:-deb6.1-vuln}

# depmod's index files (modules.dep, modules.alias.bin, ...) of every
# kernel in /lib/modules. DKMS runs depmod for each kernel it installs the
# module for, and again when it removes it: a kernel whose directory held
# only the build and source links of its headers package keeps a set of
# (empty) indexes afterwards. That is depmod's doing on every Debian host,
# not the package's, so the package's own check leaves them out and the
# test removes those it caused.
DIST_INDEX_RE='^(\S+  )?/lib/modules/[^/]+/modules\.[^/ ]+( f)?$'
dist_indexes() { find /lib/modules -mindepth 2 -maxdepth 2 -type f -name 'modules.*' 2>/dev/null | LC_ALL=C sort; }
dist_no_indexes() { grep -vE "$DIST_INDEX_RE"; }

# Remove from /lib/modules/*/updates what was not there before (a module
# that dkms remove did not take away), then index those kernels again.
dist_restore_updates() {
	local before=$1 made=$2 p kver kvers=()

	while read -r p; do
		rm -rf "$p"
		kver=${p#/lib/modules/}
		kvers+=("${kver%%/*}")
	done < <(LC_ALL=C comm -13 <(awk '{ print $1 }' <<<"$before" | LC_ALL=C sort) \
		<(find /lib/modules/*/updates 2>/dev/null | LC_ALL=C sort) |
		awk 'top == "" || index($0, top "/") != 1 { top = $0; print }')
	for kver in $(printf '%s\n' "${kvers[@]}" | sort -u); do
		[ "/lib/modules/$kver" != "$made" ] && [ -e "/lib/modules/$kver/modules.dep" ] &&
			depmod -a "$kver" 2>/dev/null
	done
}

# dpkg_retry ARGS: dpkg, waiting while another dpkg or apt holds the lock.
dpkg_retry() {
	local rc

	for _ in $(seq 60); do
		dpkg "$@" >"$TMPD/dpkg.log" 2>&1
		rc=$?
		grep -q 'lock' "$TMPD/dpkg.log" && [ $rc != 0 ] || return $rc
		sleep 5
	done
	return $rc
}

# The checks that need no system change; the first that fails is recorded
# (expect.sh) and ends them.
dist_check_artifacts() {
	local dist=$1 ver=$2 f

	make -s --no-print-directory -C "$TOP" dist >"$TMPD/dist-make.log" 2>&1 ||
		{ unexpected "make dist" "failed: $(tail -1 "$TMPD/dist-make.log")"; return 1; }
	(cd "$dist" && sha256sum --quiet -c ./*.sha256 SHA256SUMS) >"$TMPD/dist-sums" 2>&1 ||
		{ unexpected "build/dist's digests" "do not verify: $(head -1 "$TMPD/dist-sums")"; return 1; }
	expect_eq "lines of SHA256SUMS, one for each artifact with a .sha256" \
		"$(ls "$dist"/*.sha256 | wc -l)" "$(wc -l <"$dist/SHA256SUMS")" || return 1
	# A second build, of a copy of the tree in another directory: every
	# artifact the same bytes (the release date is the one make used here)
	local sde
	sde=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null || stat -c %Y "$TOP/VERSION")
	rm -rf "$TMPD/tree2" && mkdir -p "$TMPD/tree2"
	(cd "$TOP" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$TMPD/tree2" -xf -
	make -s --no-print-directory -C "$TMPD/tree2" SOURCE_DATE_EPOCH="$sde" dist \
		>"$TMPD/dist-make2.log" 2>&1 ||
		{ unexpected "make dist of a copy of the tree" "failed: $(tail -1 "$TMPD/dist-make2.log")"; return 1; }
	cmp -s "$dist/SHA256SUMS" "$TMPD/tree2/build/dist/SHA256SUMS" ||
		{ unexpected "a second build in another directory" "differs: $(diff "$dist/SHA256SUMS" \
			"$TMPD/tree2/build/dist/SHA256SUMS" | grep '^>' | head -2 | tr '\n' ' ')"; return 1; }
	rm -rf "$TMPD/tree2"
	# The tarball's tree is the .deb's /usr/src/csum-guard-VERSION, and
	# DKMS takes it from a source tree.
	mkdir -p "$TMPD/dist-tar" "$TMPD/dist-deb" "$TMPD/dist-dkms"
	expect_ok "unpack the tarball" tar -C "$TMPD/dist-tar" -xzf "$dist/csum-guard-$ver.tar.gz" &&
		expect_ok "unpack the .deb" dpkg-deb -x "$dist/csum-guard-dkms_${ver}_all.deb" "$TMPD/dist-deb" ||
		return 1
	diff -r "$TMPD/dist-tar/csum-guard-$ver" "$TMPD/dist-deb/usr/src/csum-guard-$ver" >"$TMPD/dist-diff" 2>&1 ||
		{ unexpected "the tarball's and the .deb's trees" "differ: $(head -1 "$TMPD/dist-diff")"; return 1; }
	dkms --sourcetree "$TMPD/dist-tar" --dkmstree "$TMPD/dist-dkms" \
		add -m csum-guard -v "$ver" >"$TMPD/dist-dkms.log" 2>&1 ||
		{ unexpected "dkms add of the unpacked tarball" "failed: $(grep -m1 -i error "$TMPD/dist-dkms.log")"; return 1; }
}

# dpkg -i, the module in the guest, dpkg -r. The first check that fails
# is recorded and ends it; on success it sets detail.
dist_install_cycle() {
	local deb=$1 ver=$2 kver=$3 ko srcv out n idx st

	dpkg_retry -i "$deb" ||
		{ unexpected "dpkg -i" "failed: $(grep -m1 -iE 'error|fail' "$TMPD/dpkg.log")"; return 1; }
	cp "$TMPD/dpkg.log" "$TMPD/dpkg-i.log"
	# Where the running kernel has no headers (the host), the postinst says
	# so in one line and goes on.
	if [ ! -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		expect_eq "the postinst's lines saying that $(uname -r) has no headers" 1 \
			"$(grep -c "no headers for the running kernel $(uname -r)" "$TMPD/dpkg-i.log")" || return 1
	fi
	grep '^csum-guard-dkms:' "$TMPD/dpkg-i.log" | sed 's/^/# postinst: /'
	expect_grep "dkms status after dpkg -i: csum-guard/$ver installed for $kver ($(dkms status -m csum-guard))" \
		': installed' - <<<"$(dkms status -m csum-guard -v "$ver" -k "$kver")" || return 1
	ko=$(ls "/lib/modules/$kver/updates/dkms/"csum_guard.ko* 2>/dev/null | head -1)
	expect_ne "csum_guard.ko in /lib/modules/$kver/updates/dkms" "" "$ko" || return 1
	srcv=$(modinfo -F srcversion "$ko")
	n=$(dkms status -m csum-guard -v "$ver" | grep -c ': installed')

	out=$("$TOP/tests/guest/run.sh" --kernel "$DIST_KERNEL" --timeout 600 \
		--modules-dir "$(dirname "$ko")" -- sh -c \
		'modprobe csum_guard && echo "version=$(cat /sys/module/csum_guard/version)" &&
		 echo "srcversion=$(cat /sys/module/csum_guard/srcversion)" && "$0" probe --json' \
		"$CG" 2>&1)
	expect_eq "in $DIST_KERNEL, the module's [version, srcversion] and probe's [kmod_loaded, backend] ($(tail -3 <<<"$out" | tr '\n' ' '))" \
		"$ver $srcv true kmod" \
		"$(sed -n 's/^version=//p' <<<"$out") $(sed -n 's/^srcversion=//p' <<<"$out") $(grep '^{' <<<"$out" | jq -r '"\(.kmod_loaded) \(.backend)"')" ||
		return 1

	dpkg_retry -r csum-guard-dkms ||
		{ unexpected "dpkg -r" "failed: $(grep -m1 -iE 'error|fail' "$TMPD/dpkg.log")"; return 1; }
	st=$(dpkg-query -W -f='${db:Status-Status}\n' csum-guard-dkms 2>/dev/null)
	[ -z "$st" ] || expect_eq "the package's status after dpkg -r" not-installed "$st" || return 1
	out=$({
		ls -d /usr/src/csum-guard-* /var/lib/dkms/csum-guard
		find /lib/modules -path '/lib/modules/*/kernel' -prune -o -name 'csum_guard.ko*' -print
		dkms status -m csum-guard
	} 2>/dev/null)
	expect_eq "what dpkg -r left of the package and DKMS" "" "${out//$'\n'/ }" || return 1
	# Nothing else either (empty directories, other kernels' indexes), but
	# what the test made for the guest kernel and dkms's own MOK key.
	# depmod's indexes are compared apart: see dist_indexes.
	out=$(system_files_snapshot | grep -vF "${made:-/-}" | grep -vxF "${link:-/-} l" |
		{ if [ -n "$mok" ]; then grep -v '/var/lib/dkms/mok\.'; else cat; fi } | dist_no_indexes)
	[ "$out" = "$(dist_no_indexes <<<"$before")" ] ||
		{ unexpected "dpkg -r" "did not undo dpkg -i: $(diff <(dist_no_indexes <<<"$before") <(echo "$out") | grep '^[<>]' | head -3 | tr '\n' ' ')"; return 1; }
	idx=$(LC_ALL=C comm -13 <(echo "$indexes0") <(dist_indexes | grep -vF "${made:-/-}") |
		sed 's|^/lib/modules/\([^/]*\)/.*|\1|' | sort -u | paste -sd, -)
	detail="dpkg -i built $ver for $n kernel(s) with headers, $kver among them; loaded in $DIST_KERNEL as version $ver (srcversion $srcv, probe: kmod); dpkg -r left nothing${idx:+ but the depmod indexes of $idx, which the test removes}"
}

# Put the system back as it was, whatever failed: the package, what the
# test made (the headers link, depmod's files for it), the MOK key dkms
# makes on its first signing. Uses case_dist_deb's variables.
dist_restore() {
	dpkg-query -W -f='${db:Status-Status}\n' csum-guard-dkms 2>/dev/null | grep -qv '^not-installed$' &&
		dpkg_retry --purge csum-guard-dkms
	dkms status -m csum-guard 2>/dev/null | grep -q . &&
		dkms remove -m csum-guard -v "$ver" --all >/dev/null 2>&1
	rm -rf /var/lib/dkms/csum-guard "/usr/src/csum-guard-$ver"
	[ -n "$link" ] && rm -f "$link"
	[ -n "$made" ] && rm -rf "$made"
	[ -n "$mok" ] && rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	dist_restore_updates "$before" "$made"
	# depmod's indexes where there were none before (see dist_indexes)
	LC_ALL=C comm -13 <(echo "$indexes0") <(dist_indexes) | xargs -r rm -f
}

case_dist_deb() {
	local t="dist-deb" dist=$TOP/build/dist ver deb detail= before after
	local KVER HEADERS KERNEL MODULES made= link= mok= indexes0

	ver=$(cat "$TOP/VERSION")
	deb=$dist/csum-guard-dkms_${ver}_all.deb
	dist_check_artifacts "$dist" "$ver" || { expect_verdict "$t" "-"; return; }
	if ! eval "$("$TOP/tests/guest/fetch.sh" "$DIST_KERNEL" 2>"$TMPD/dist-fetch.err")" ||
	   [ -z "${KVER:-}" ]; then
		fail "$t: fetch $DIST_KERNEL: $(tail -1 "$TMPD/dist-fetch.err")"
		return
	fi

	# One at a time: it changes the system.
	mkdir -p /run/lock && exec 7>/run/lock/csum-guard-dist-deb.lock && flock -w 1800 7
	if dpkg-query -W -f='${db:Status-Status}\n' csum-guard-dkms 2>/dev/null | grep -qv '^not-installed$' ||
	   ls -d /usr/src/csum-guard-* /var/lib/dkms/csum-guard >/dev/null 2>&1; then
		exec 7>&-
		skip "$t: csum-guard is already in dpkg, /usr/src or DKMS here: not touching it"
		return
	fi
	# /lib/modules is the guests' mount point too (tests/guest/run.sh makes
	# it on a host without modules): made before the snapshot, and kept.
	mkdir -p /lib/modules
	before=$(system_files_snapshot)
	indexes0=$(dist_indexes)
	[ -e /var/lib/dkms/mok.key ] || mok=1
	# (the case's own subshell's: should the run be stopped, the runner
	# stops this case and waits for it to put the system back)
	trap dist_restore EXIT
	# The guest kernel's headers as installed ones, for the postinst to find.
	if [ ! -e "/lib/modules/$KVER" ]; then
		made=/lib/modules/$KVER
		mkdir -p "$made"
	fi
	if [ ! -e "/lib/modules/$KVER/build" ]; then
		link=/lib/modules/$KVER/build
		ln -s "$HEADERS" "$link"
	fi

	dist_install_cycle "$deb" "$ver" "$KVER"

	dist_restore
	trap - EXIT
	after=$(system_files_snapshot)
	exec 7>&-

	[ "$before" = "$after" ] ||
		unexpected "the system after" "not as before: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
	expect_verdict "$t" "digests verify, a second build in another directory is identical; $detail"
}
cg_host_case dist_deb

# make install into a scratch DESTDIR: the loader that runs, the very object
# that was built, the unit running the PREFIX's loader, and the man page
# with the version filled in and every command and option of the loader's
# own usage text documented.
case_make_install() {
	local t="make-install" d=$TMPD/install man w

	rm -rf "$d"
	if ! make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr/local >"$TMPD/install.log" 2>&1; then
		fail "$t: make install failed: $(tail -1 "$TMPD/install.log")"
		return
	fi
	man=$d/usr/local/share/man/man8/csum-guard.8
	expect_grep "the installed loader's version" "^csum-guard $(cat "$TOP/VERSION") " - \
		<<<"$("$d/usr/local/sbin/csum-guard" version)"
	cmp -s "$d/usr/local/lib/csum-guard/csum_guard.bpf.o" "$TOP/build/csum_guard.bpf.o" ||
		unexpected "the installed object" "is not the one built"
	# where systemd looks for the admin's units, running the loader installed
	expect_grep "lib/systemd/system/csum-guard-watch.service" '^ExecStart=/usr/local/sbin/csum-guard watch$' \
		"$d/usr/local/lib/systemd/system/csum-guard-watch.service"
	expect_grep "lib/systemd/system/csum-guard-syncookie.service" \
		'^ExecStart=/usr/local/sbin/csum-guard syncookie apply --follow$' \
		"$d/usr/local/lib/systemd/system/csum-guard-syncookie.service" &&
		expect_grep "csum-guard-syncookie.service, after nftables.service" '^After=.*nftables.service' \
			"$d/usr/local/lib/systemd/system/csum-guard-syncookie.service"
	if [ ! -s "$man" ]; then
		unexpected "the man page" "none at share/man/man8/csum-guard.8"
	else
		grep -q '@VERSION@' "$man" && unexpected "the man page" "still says @VERSION@"
		expect_grep "the man page's version" "csum-guard $(cat "$TOP/VERSION")" "$man"
		# every command and --option of the usage text, in the man page
		for w in $("$CG" help | grep -o -- '--[a-z0-9-]*\|^ *Usage: csum-guard [a-z]*\|^ *csum-guard [a-z]*' |
			   awk '{ print $NF }' | sort -u); do
			case $w in
			--*) grep -qF -- "${w//-/\\-}" "$man" ;;	# roff escapes each -
			*) grep -qF "csum-guard $w" "$man" ;;
			esac || unexpected "$w" "expected in the man page, not there"
		done
	fi
	rm -rf "$d"
	expect_verdict "$t" "loader, object, csum-guard(8), csum-guard-watch.service and csum-guard-syncookie.service installed; the man page names every command and option"
}
cg_host_case make_install

# The released loader on an older userland: a Debian 11 root (glibc 2.31,
# no libbpf.so.1), made by debootstrap and kept under build/roots/. The
# csum-guard package of make dist installs there with dpkg (enabling
# csum-guard-watch.service, which needs no systemd running to be enabled)
# and its command runs as it is, sharing this kernel: version, probe, and a
# tap in a namespace guarded from inside the root, a bad frame dropped and
# counted. The next release's package (csum-guard-next inside) upgrades it
# and moves the guard to its program. Then dpkg --purge: the guard
# detached, the unit no longer enabled, no file of the package or of its
# enablement left in the root.
case_portable() {
	local t="portable-loader" ROOT= r ns=$CG_PFX-port glibc ver deb wants left

	ver=$(cat "$TOP/VERSION")
	deb=$(ls "$TOP/build/dist/csum-guard_${ver}_$(dpkg --print-architecture).deb" 2>/dev/null)
	if ! eval "$("$TOP/tests/guest/root.sh" bullseye 2>"$TMPD/root.log")" || [ -z "$ROOT" ]; then
		fail "$t: cannot make a Debian 11 root: $(tail -1 "$TMPD/root.log")"
		return
	fi
	if [ -z "$deb" ]; then
		fail "$t: no build/dist/csum-guard_${ver}_*.deb (make dist)"
		return
	fi
	# the test's tap, before the root sees /run/netns
	if ! { ip netns add "$ns" && ip -n "$ns" tuntap add dev tap0 mode tap vnet_hdr &&
	       ip -n "$ns" link set tap0 up; }; then
		fail "$t: cannot make the tap"
		ip netns del "$ns" 2>/dev/null
		return
	fi
	# the root stays as debootstrap left it: the test runs in an overlay of it
	r=$TMPD/bullseye
	mkdir -p "$r" "$TMPD/ovl-up" "$TMPD/ovl-work"
	if ! mount -t overlay overlay \
		-o "lowerdir=$ROOT,upperdir=$TMPD/ovl-up,workdir=$TMPD/ovl-work" "$r"; then
		fail "$t: cannot mount an overlay of the root"
		ip netns del "$ns"
		return
	fi
	mkdir -p "$r/run/netns"
	mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
	mount --rbind /dev "$r/dev" && mount --rbind /run/netns "$r/run/netns" ||
		unexpected "mounts in the root" "cannot mount /proc, /sys, /dev or /run/netns"
	cp "$deb" "$r/tmp/" && chroot "$r" dpkg -i "/tmp/${deb##*/}" >"$TMPD/port.dpkg" 2>&1 ||
		unexpected "dpkg -i in the root" "failed: $(grep -m1 -iE 'error|depend' "$TMPD/port.dpkg")"
	rm -f "$r/tmp/${deb##*/}"
	wants=$r/etc/systemd/system/multi-user.target.wants/csum-guard-watch.service
	expect_eq "csum-guard-watch.service enabled ($(ls -l "$wants" 2>&1))" \
		/lib/systemd/system/csum-guard-watch.service "$(readlink "$wants")"
	expect_grep "what csum-guard-watch.service runs" '^ExecStart=/usr/sbin/csum-guard watch$' \
		"$r/lib/systemd/system/csum-guard-watch.service"
	# the declared responders' unit: enabled too (postinst starts nothing of it)
	expect_eq "csum-guard-syncookie.service enabled" /lib/systemd/system/csum-guard-syncookie.service \
		"$(readlink "${wants%/*}/csum-guard-syncookie.service")"
	expect_grep "what csum-guard-syncookie.service runs" \
		'^ExecStart=/usr/sbin/csum-guard syncookie apply --follow$' \
		"$r/lib/systemd/system/csum-guard-syncookie.service"
	glibc=$(chroot "$r" /usr/bin/ldd --version 2>/dev/null | head -1)
	[ -e "$r/usr/lib/x86_64-linux-gnu/libbpf.so.1" ] && unexpected "the root" "has libbpf.so.1"
	chroot "$r" csum-guard version >"$TMPD/port.out" 2>&1
	expect_grep "version in the root" "^csum-guard $ver " "$TMPD/port.out"
	chroot "$r" csum-guard probe --json >"$TMPD/port.probe" 2>"$TMPD/port.err" ||
		unexpected "probe in the root" "failed: $(head -c 200 "$TMPD/port.err")"
	expect_eq "probe's backend in the root, as here" "$("$CG" probe --json | jq -r .backend)" \
		"$(jq -r .backend "$TMPD/port.probe" 2>/dev/null)"
	if expect_clean && expect_ok "attach from the root" chroot "$r" csum-guard attach tap0 --netns "$ns" --quiet; then
		expect_ok "inject" ip netns exec "$ns" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2
		expect_eq "dropped, as status from the root says" 2 \
			"$(chroot "$r" csum-guard status tap0 --netns "$ns" --json | jq -r .dropped)"
	fi
	# an upgrade to the next release (this package with csum-guard-next in
	# it, VERSION+next): the postinst moves the guard to the new program
	if expect_clean; then
		rm -rf "$TMPD/nextdeb" && dpkg-deb -R "$deb" "$TMPD/nextdeb" &&
		cp "$TOP/build/tests/csum-guard-next" "$TMPD/nextdeb/usr/sbin/csum-guard" &&
		sed -i "s/^Version: .*/Version: $ver+next/" "$TMPD/nextdeb/DEBIAN/control" &&
		(cd "$TMPD/nextdeb" && find usr lib -type f | LC_ALL=C sort | xargs md5sum) \
			>"$TMPD/nextdeb/DEBIAN/md5sums" &&
		dpkg-deb --root-owner-group -b "$TMPD/nextdeb" "$r/tmp/next.deb" >/dev/null ||
			unexpected "the next release's package" "cannot be made"
		chroot "$r" dpkg -i /tmp/next.deb >"$TMPD/port.dpkg" 2>&1 ||
			unexpected "dpkg -i of the next release" "failed: $(grep -m1 -iE 'error|fail' "$TMPD/port.dpkg")"
		grep -q "upgraded tap0 in netns $ns: csum-guard $ver's program replaced by csum-guard $ver+next's" \
			"$TMPD/port.dpkg" || unexpected "what the upgrade said" "$(tr '\n' '|' <"$TMPD/port.dpkg")"
		expect_eq "[loader_version, dropped] after the upgrade" "$ver+next 2" \
			"$(chroot "$r" csum-guard status tap0 --netns "$ns" --json | jq -r '"\(.loader_version) \(.dropped)"')"
		rm -rf "$TMPD/nextdeb" "$r/tmp/next.deb"
	fi
	# purge: the guard and a SYN responder go with the package, and every file
	expect_ok "syncookie attach from the root" chroot "$r" csum-guard syncookie attach tap0 --netns "$ns" \
		--ports 80 --mode tc --set-sysctl --quiet
	chroot "$r" dpkg --purge csum-guard >"$TMPD/port.dpkg" 2>&1 ||
		unexpected "dpkg --purge in the root" "failed: $(grep -m1 -iE 'error|fail' "$TMPD/port.dpkg")"
	expect_eq "attached, after dpkg --purge" false "$("$CG" status tap0 --netns "$ns" --json | jq -r .attached)"
	expect_eq "[SYN responders, tcp_syncookies] after dpkg --purge" "0 1" \
		"$("$CG" syncookie status --netns "$ns" --json | jq length) $(ip netns exec "$ns" sysctl -n net.ipv4.tcp_syncookies)"
	left=$(cd "$TMPD/ovl-up" && find . \( -iname '*csum*guard*' -o -lname '*csum*guard*' \) -print | head -3)
	expect_eq "what dpkg --purge left" "" "$(echo $left)"
	umount -R "$r/run/netns" "$r/dev" "$r/sys" "$r/proc" 2>/dev/null
	expect_ok "umount the root" umount "$r"
	ip netns del "$ns" 2>/dev/null
	expect_verdict "$t" "${deb##*/} in a Debian 11 root ($glibc, no libbpf.so.1): dpkg -i enabled csum-guard-watch.service and csum-guard-syncookie.service; version, probe, attach, a bad frame dropped and counted; dpkg -i of the next release moved the guard to its program, counters kept; dpkg --purge detached the guard and a SYN responder (sysctl put back) and left no file"
}
cg_host_case portable

# The two packages as Debian's own checker reads them: lintian with no
# error and no warning (the overrides the csum-guard package carries say
# why each is there: packaging/loader/lintian-overrides). And what the
# loader package ships is what the tree has: the unit with /usr/sbin filled
# in (Type=notify, before libvirt, wanted by multi-user.target), the libvirt
# hook and the opt-in libvirtd drop-in (an example, not installed) byte for
# byte, the man page of this version.
case_lintian() {
	local t="lintian" dist=$TOP/build/dist ver debs out x=$TMPD/loader-deb n arch want

	ver=$(cat "$TOP/VERSION")
	arch=$(dpkg --print-architecture)
	# the build machine's loader package, arm64's (cross-built on amd64), the module's
	want=$([ "$arch" = amd64 ] && echo 3 || echo 2)
	debs=$(ls "$dist/csum-guard_${ver}_$arch.deb" "$dist/csum-guard-dkms_${ver}_all.deb" 2>/dev/null
	       [ "$arch" = amd64 ] && ls "$dist/csum-guard_${ver}_arm64.deb" 2>/dev/null)
	if [ "$(wc -w <<<"$debs")" != "$want" ]; then
		fail "$t: build/dist lacks a package of $ver (make dist): $(echo $debs)"
		return
	fi
	if ! command -v lintian >/dev/null; then
		fail "$t: lintian is missing (make deps installs it)"
		return
	fi
	# shellcheck disable=SC2086
	lintian --fail-on error,warning --tag-display-limit 0 -I $debs \
		>"$TMPD/lintian.out" 2>"$TMPD/lintian.err" ||
		unexpected "lintian" "failed: $(grep -E '^[EW]:' "$TMPD/lintian.out" | head -3 | tr '\n' ' ')$(grep -v 'root privileges' "$TMPD/lintian.err" | head -1)"
	expect_eq "lintian's errors and warnings" "" "$(grep -E '^[EW]:' "$TMPD/lintian.out" | head -3 | tr '\n' ' ')"
	# shellcheck disable=SC2086
	lintian --fail-on none --show-overrides $debs 2>/dev/null | grep '^O:' >"$TMPD/lintian.o"

	rm -rf "$x" && mkdir -p "$x" && dpkg-deb -x "$dist/csum-guard_${ver}_$arch.deb" "$x"
	cmp -s "$x/usr/share/doc/csum-guard/examples/libvirt-qemu-hook" "$TOP/packaging/libvirt-qemu-hook" ||
		unexpected "the hook shipped" "is not packaging/libvirt-qemu-hook"
	[ -x "$x/usr/share/doc/csum-guard/examples/libvirt-qemu-hook" ] ||
		unexpected "the hook shipped" "is not executable"
	for n in csum-guard.rules.yml csum-guard-dashboard.json; do
		cmp -s "$x/usr/share/csum-guard/monitoring/$n" "$TOP/deploy/monitoring/$n" ||
			unexpected "/usr/share/csum-guard/monitoring/$n" "is not deploy/monitoring's"
	done
	cmp -s "$x/usr/share/doc/csum-guard/examples/libvirtd-require-watch.conf" "$TOP/packaging/libvirtd-require-watch.conf" ||
		unexpected "the drop-in shipped" "is not packaging/libvirtd-require-watch.conf"
	[ -e "$x/etc/systemd/system/libvirtd.service.d" ] &&
		unexpected "the libvirtd drop-in" "is installed, not opt-in"
	out=$x/lib/systemd/system/csum-guard-watch.service
	for n in 'Type=notify' 'ExecStart=/usr/sbin/csum-guard watch' 'WantedBy=multi-user.target'; do
		grep -qx "$n" "$out" 2>/dev/null || unexpected "the unit" "lacks $n"
	done
	for n in libvirtd.service virtqemud.service pve-guests.service; do
		grep '^Before=' "$out" 2>/dev/null | grep -qw "$n" || unexpected "the unit" "is not ordered before $n"
	done
	expect_grep "the man page's version" "csum-guard $ver" - <<<"$(zcat "$x/usr/share/man/man8/csum-guard.8.gz" 2>/dev/null)"
	expect_grep "the packaged loader's version" "^csum-guard $ver " - <<<"$("$x/usr/sbin/csum-guard" version)"
	rm -rf "$x"
	expect_verdict "$t" "$(echo $debs | xargs -n1 basename | paste -sd' ') lintian-clean ($(grep -c '^I:' "$TMPD/lintian.out") informational tags, $(grep -c . "$TMPD/lintian.o") overridden with reasons); unit, hook, monitoring rules and dashboard, man page and loader as the tree has them"
}
cg_host_case lintian

# The arm64 loader, cross-built on an amd64 machine (make dist): a static
# AArch64 executable, listed in SHA256SUMS, that runs under qemu-user (no
# arm64 machine here): it says its version and, from the host's kernel
# BTF, finds the kfunc the guard needs; the bpf() syscall is what qemu-user
# does not emulate, and probe says so. Its package has the files of the
# amd64 one, the same BPF object byte for byte, and that loader.
case_dist_arm64() {
	local t="dist-arm64" dist=$TOP/build/dist ver a=$TMPD/deb-arm64 b=$TMPD/deb-native probe

	if [ "$(dpkg --print-architecture)" != amd64 ]; then
		skip "$t: the arm64 loader is cross-built on amd64 machines only"
		return
	fi
	command -v qemu-aarch64 >/dev/null || { fail "$t: no qemu-aarch64 (make deps installs qemu-user)"; return; }
	ver=$(cat "$TOP/VERSION")
	for f in csum-guard-arm64 "csum-guard_${ver}_arm64.deb"; do
		[ -f "$dist/$f" ] || { fail "$t: no build/dist/$f (make dist)"; return; }
		expect_grep "SHA256SUMS lists $f" "  $f\$" "$dist/SHA256SUMS"
	done
	(cd "$dist" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1 || unexpected "SHA256SUMS" "does not verify"
	expect_grep "csum-guard-arm64's machine" 'Machine:.*AArch64' - <<<"$(readelf -h "$dist/csum-guard-arm64" 2>/dev/null)"
	readelf -l "$dist/csum-guard-arm64" 2>/dev/null | grep -q INTERP &&
		unexpected "csum-guard-arm64" "is not static (it asks for a dynamic loader)"
	expect_grep "csum-guard-arm64 version under qemu-aarch64" "^csum-guard $ver " - \
		<<<"$(qemu-aarch64 "$dist/csum-guard-arm64" version 2>&1)"
	probe=$(qemu-aarch64 "$dist/csum-guard-arm64" probe --json 2>/dev/null)
	jq -e '.btf and .kfunc and (.bpf_unavailable | test("Function not implemented"))' <<<"$probe" >/dev/null ||
		unexpected "probe under qemu-aarch64" "expected BTF, the kfunc and bpf() not implemented, saw $(head -c 300 <<<"$probe")"
	rm -rf "$a" "$b" && mkdir -p "$a" "$b" &&
		dpkg-deb -x "$dist/csum-guard_${ver}_arm64.deb" "$a" && dpkg-deb -x "$dist/csum-guard_${ver}_amd64.deb" "$b" ||
		unexpected "the packages" "cannot be unpacked"
	expect_eq "the arm64 package's Architecture" arm64 "$(dpkg-deb -f "$dist/csum-guard_${ver}_arm64.deb" Architecture)"
	[ "$(cd "$a" && find . | sort)" = "$(cd "$b" && find . | sort)" ] ||
		unexpected "the packages' files" "differ: $(diff <(cd "$a" && find . | sort) <(cd "$b" && find . | sort) | grep '^[<>]' | head -3 | tr '\n' ' ')"
	cmp -s "$a/usr/lib/csum-guard/csum_guard.bpf.o" "$b/usr/lib/csum-guard/csum_guard.bpf.o" ||
		unexpected "the two packages' BPF objects" "differ"
	expect_grep "the arm64 package's loader's machine" 'Machine:.*AArch64' - \
		<<<"$(readelf -h "$a/usr/sbin/csum-guard" 2>/dev/null)"
	rm -rf "$a" "$b"
	expect_verdict "$t" "csum-guard-arm64 and csum-guard_${ver}_arm64.deb: static AArch64, in SHA256SUMS; under qemu-aarch64 it is $ver and reads the kernel's BTF (the kfunc found; bpf() is not emulated); the package has the amd64 one's files and the same BPF object"
}
cg_host_case dist_arm64
