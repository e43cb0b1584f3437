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

# The checks that need no system change. Sets why on failure.
dist_check_artifacts() {
	local dist=$1 ver=$2 f

	if ! make -s --no-print-directory -C "$TOP" dist >"$TMPD/dist-make.log" 2>&1; then
		why="make dist failed: $(tail -1 "$TMPD/dist-make.log")"
		return 1
	fi
	if ! (cd "$dist" && sha256sum --quiet -c ./*.sha256 SHA256SUMS) >"$TMPD/dist-sums" 2>&1; then
		why="build/dist digests do not verify: $(head -1 "$TMPD/dist-sums")"
		return 1
	fi
	if [ "$(wc -l <"$dist/SHA256SUMS")" != "$(ls "$dist"/*.sha256 | wc -l)" ]; then
		why="SHA256SUMS does not cover every artifact with a .sha256"
		return 1
	fi
	# A second build, of a copy of the tree in another directory: every
	# artifact the same bytes (the release date is the one make used here)
	local sde
	sde=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null || stat -c %Y "$TOP/VERSION")
	rm -rf "$TMPD/tree2" && mkdir -p "$TMPD/tree2"
	(cd "$TOP" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$TMPD/tree2" -xf -
	if ! make -s --no-print-directory -C "$TMPD/tree2" SOURCE_DATE_EPOCH="$sde" dist \
		>"$TMPD/dist-make2.log" 2>&1; then
		why="make dist of a copy of the tree failed: $(tail -1 "$TMPD/dist-make2.log")"
		return 1
	fi
	if ! cmp -s "$dist/SHA256SUMS" "$TMPD/tree2/build/dist/SHA256SUMS"; then
		why="a second build in another directory differs: $(diff "$dist/SHA256SUMS" \
			"$TMPD/tree2/build/dist/SHA256SUMS" | grep '^>' | head -2 | tr '\n' ' ')"
		return 1
	fi
	rm -rf "$TMPD/tree2"
	# The tarball's tree is the .deb's /usr/src/csum-guard-VERSION, and
	# DKMS takes it from a source tree.
	mkdir -p "$TMPD/dist-tar" "$TMPD/dist-deb" "$TMPD/dist-dkms"
	if ! tar -C "$TMPD/dist-tar" -xzf "$dist/csum-guard-$ver.tar.gz" ||
	   ! dpkg-deb -x "$dist/csum-guard-dkms_${ver}_all.deb" "$TMPD/dist-deb"; then
		why="cannot unpack the tarball or the .deb"
		return 1
	fi
	if ! diff -r "$TMPD/dist-tar/csum-guard-$ver" "$TMPD/dist-deb/usr/src/csum-guard-$ver" \
	     >"$TMPD/dist-diff" 2>&1; then
		why="the tarball and the .deb ship different trees: $(head -1 "$TMPD/dist-diff")"
		return 1
	fi
	if ! dkms --sourcetree "$TMPD/dist-tar" --dkmstree "$TMPD/dist-dkms" \
	     add -m csum-guard -v "$ver" >"$TMPD/dist-dkms.log" 2>&1; then
		why="dkms add of the unpacked tarball failed: $(grep -m1 -i error "$TMPD/dist-dkms.log")"
		return 1
	fi
}

# dpkg -i, the module in the guest, dpkg -r. Sets why on failure, detail
# on success.
dist_install_cycle() {
	local deb=$1 ver=$2 kver=$3 ko srcv out n idx

	if ! dpkg_retry -i "$deb"; then
		why="dpkg -i failed: $(grep -m1 -iE 'error|fail' "$TMPD/dpkg.log")"
		return 1
	fi
	cp "$TMPD/dpkg.log" "$TMPD/dpkg-i.log"
	# Where the running kernel has no headers (the host), the postinst says
	# so in one line and goes on.
	if [ ! -e "/lib/modules/$(uname -r)/build/Makefile" ] &&
	   [ "$(grep -c "no headers for the running kernel $(uname -r)" "$TMPD/dpkg-i.log")" != 1 ]; then
		why="the postinst did not say in one line that $(uname -r) has no headers"
		return 1
	fi
	grep '^csum-guard-dkms:' "$TMPD/dpkg-i.log" | sed 's/^/# postinst: /'
	if ! dkms status -m csum-guard -v "$ver" -k "$kver" | grep -q ': installed'; then
		why="dpkg -i left csum-guard/$ver not installed for $kver: $(dkms status -m csum-guard)"
		return 1
	fi
	ko=$(ls "/lib/modules/$kver/updates/dkms/"csum_guard.ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		why="no csum_guard.ko in /lib/modules/$kver/updates/dkms"
		return 1
	fi
	srcv=$(modinfo -F srcversion "$ko")
	n=$(dkms status -m csum-guard -v "$ver" | grep -c ': installed')

	out=$("$TOP/tests/guest/run.sh" --kernel "$DIST_KERNEL" --timeout 600 \
		--modules-dir "$(dirname "$ko")" -- sh -c \
		'modprobe csum_guard && echo "version=$(cat /sys/module/csum_guard/version)" &&
		 echo "srcversion=$(cat /sys/module/csum_guard/srcversion)" && "$0" probe --json' \
		"$CG" 2>&1)
	if [ "$(sed -n 's/^version=//p' <<<"$out")" != "$ver" ] ||
	   [ "$(sed -n 's/^srcversion=//p' <<<"$out")" != "$srcv" ] ||
	   [ "$(grep '^{' <<<"$out" | jq -r '"\(.kmod_loaded) \(.backend)"')" != "true kmod" ]; then
		why="in $DIST_KERNEL the module did not load as the package's $ver: $(tail -3 <<<"$out" | tr '\n' ' ')"
		return 1
	fi

	if ! dpkg_retry -r csum-guard-dkms; then
		why="dpkg -r failed: $(grep -m1 -iE 'error|fail' "$TMPD/dpkg.log")"
		return 1
	fi
	if dpkg-query -W -f='${db:Status-Status}\n' csum-guard-dkms 2>/dev/null | grep -qv '^not-installed$'; then
		why="dpkg -r left the package $(dpkg-query -W -f='${db:Status-Status}' csum-guard-dkms)"
		return 1
	fi
	out=$({
		ls -d /usr/src/csum-guard-* /var/lib/dkms/csum-guard
		find /lib/modules -path '/lib/modules/*/kernel' -prune -o -name 'csum_guard.ko*' -print
		dkms status -m csum-guard
	} 2>/dev/null)
	if [ -n "$out" ]; then
		why="dpkg -r left: $(tr '\n' ' ' <<<"$out")"
		return 1
	fi
	# Nothing else either (empty directories, other kernels' indexes), but
	# what the test made for the guest kernel and dkms's own MOK key.
	# depmod's indexes are compared apart: see dist_indexes.
	out=$(system_files_snapshot | grep -vF "${made:-/-}" | grep -vxF "${link:-/-} l" |
		{ if [ -n "$mok" ]; then grep -v '/var/lib/dkms/mok\.'; else cat; fi } | dist_no_indexes)
	if [ "$out" != "$(dist_no_indexes <<<"$before")" ]; then
		why="dpkg -r did not undo dpkg -i: $(diff <(dist_no_indexes <<<"$before") <(echo "$out") | grep '^[<>]' | head -3 | tr '\n' ' ')"
		return 1
	fi
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
	local t="dist-deb" dist=$TOP/build/dist ver deb why= detail= before after
	local KVER HEADERS KERNEL MODULES made= link= mok= indexes0

	ver=$(cat "$TOP/VERSION")
	deb=$dist/csum-guard-dkms_${ver}_all.deb
	dist_check_artifacts "$dist" "$ver" || { fail "$t: $why"; return; }
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
		why="${why:+$why; }the system is not as before: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
	if [ -n "$why" ]; then
		fail "$t: $why"
	else
		pass "$t: digests verify, a second build in another directory is identical; $detail"
	fi
}
cg_host_case dist_deb

# make install into a scratch DESTDIR: the loader that runs, the very object
# that was built, the unit running the PREFIX's loader, and the man page
# with the version filled in and every command and option of the loader's
# own usage text documented.
case_make_install() {
	local t="make-install" d=$TMPD/install man why= w

	rm -rf "$d"
	if ! make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr/local >"$TMPD/install.log" 2>&1; then
		fail "$t: make install failed: $(tail -1 "$TMPD/install.log")"
		return
	fi
	man=$d/usr/local/share/man/man8/csum-guard.8
	"$d/usr/local/sbin/csum-guard" version | grep -q "^csum-guard $(cat "$TOP/VERSION") " ||
		why="$why; the installed loader does not say version $(cat "$TOP/VERSION")"
	cmp -s "$d/usr/local/lib/csum-guard/csum_guard.bpf.o" "$TOP/build/csum_guard.bpf.o" ||
		why="$why; the installed object is not the one built"
	# where systemd looks for the admin's units, running the loader installed
	grep -qx 'ExecStart=/usr/local/sbin/csum-guard watch' \
		"$d/usr/local/lib/systemd/system/csum-guard-watch.service" 2>/dev/null ||
		why="$why; no unit in lib/systemd/system running /usr/local/sbin/csum-guard watch"
	grep -qx 'ExecStart=/usr/local/sbin/csum-guard syncookie apply --follow' \
		"$d/usr/local/lib/systemd/system/csum-guard-syncookie.service" 2>/dev/null &&
	grep -q '^After=.*nftables.service' "$d/usr/local/lib/systemd/system/csum-guard-syncookie.service" ||
		why="$why; no unit running /usr/local/sbin/csum-guard syncookie apply --follow after nftables.service"
	if [ ! -s "$man" ]; then
		why="$why; no man page at share/man/man8/csum-guard.8"
	else
		grep -q '@VERSION@' "$man" && why="$why; the man page still says @VERSION@"
		grep -q "csum-guard $(cat "$TOP/VERSION")" "$man" || why="$why; the man page has no version"
		# every command and --option of the usage text, in the man page
		for w in $("$CG" help | grep -o -- '--[a-z0-9-]*\|^ *Usage: csum-guard [a-z]*\|^ *csum-guard [a-z]*' |
			   awk '{ print $NF }' | sort -u); do
			case $w in
			--*) grep -qF -- "${w//-/\\-}" "$man" ;;	# roff escapes each -
			*) grep -qF "csum-guard $w" "$man" ;;
			esac || why="$why; $w is not in the man page"
		done
	fi
	rm -rf "$d"
	if [ -z "$why" ]; then
		pass "$t: loader, object, csum-guard(8), csum-guard-watch.service and csum-guard-syncookie.service installed; the man page names every command and option"
	else
		fail "$t: ${why#; }"
	fi
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
	local t="portable-loader" ROOT= r why= ns=$CG_PFX-port glibc ver deb wants left

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
		why="$why; cannot mount /proc, /sys, /dev or /run/netns in the root"
	cp "$deb" "$r/tmp/" && chroot "$r" dpkg -i "/tmp/${deb##*/}" >"$TMPD/port.dpkg" 2>&1 ||
		why="$why; dpkg -i in the root: $(grep -m1 -iE 'error|depend' "$TMPD/port.dpkg")"
	rm -f "$r/tmp/${deb##*/}"
	wants=$r/etc/systemd/system/multi-user.target.wants/csum-guard-watch.service
	[ "$(readlink "$wants")" = /lib/systemd/system/csum-guard-watch.service ] ||
		why="$why; the unit is not enabled: $(ls -l "$wants" 2>&1)"
	grep -qx 'ExecStart=/usr/sbin/csum-guard watch' "$r/lib/systemd/system/csum-guard-watch.service" ||
		why="$why; the unit does not run /usr/sbin/csum-guard watch"
	# the declared responders' unit: enabled too (postinst starts nothing of it)
	[ "$(readlink "${wants%/*}/csum-guard-syncookie.service")" = \
	  /lib/systemd/system/csum-guard-syncookie.service ] ||
		why="$why; csum-guard-syncookie.service is not enabled"
	grep -qx 'ExecStart=/usr/sbin/csum-guard syncookie apply --follow' \
		"$r/lib/systemd/system/csum-guard-syncookie.service" ||
		why="$why; the syncookie unit does not run /usr/sbin/csum-guard syncookie apply --follow"
	glibc=$(chroot "$r" /usr/bin/ldd --version 2>/dev/null | head -1)
	[ -e "$r/usr/lib/x86_64-linux-gnu/libbpf.so.1" ] && why="$why; the root has libbpf.so.1"
	chroot "$r" csum-guard version >"$TMPD/port.out" 2>&1 &&
		grep -q "^csum-guard $ver " "$TMPD/port.out" ||
		why="$why; version: $(head -1 "$TMPD/port.out")"
	chroot "$r" csum-guard probe --json >"$TMPD/port.probe" 2>"$TMPD/port.err" &&
		[ "$(jq -r .backend "$TMPD/port.probe")" = "$(jq -r .backend <("$CG" probe --json))" ] ||
		why="$why; probe: $(head -c 200 "$TMPD/port.probe" "$TMPD/port.err")"
	if [ -z "$why" ]; then
		if chroot "$r" csum-guard attach tap0 --netns "$ns" --quiet 2>"$TMPD/port.err"; then
			ip netns exec "$ns" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2 \
				2>>"$TMPD/port.err" || why="$why; inject failed"
			[ "$(chroot "$r" csum-guard status tap0 --netns "$ns" --json | jq -r .dropped)" = 2 ] ||
				why="$why; status from the root: $(chroot "$r" csum-guard status tap0 --netns "$ns" --json)"
		else
			why="$why; attach from the root: $(cat "$TMPD/port.err")"
		fi
	fi
	# an upgrade to the next release (this package with csum-guard-next in
	# it, VERSION+next): the postinst moves the guard to the new program
	if [ -z "$why" ]; then
		rm -rf "$TMPD/nextdeb" && dpkg-deb -R "$deb" "$TMPD/nextdeb" &&
		cp "$TOP/build/tests/csum-guard-next" "$TMPD/nextdeb/usr/sbin/csum-guard" &&
		sed -i "s/^Version: .*/Version: $ver+next/" "$TMPD/nextdeb/DEBIAN/control" &&
		(cd "$TMPD/nextdeb" && find usr lib -type f | LC_ALL=C sort | xargs md5sum) \
			>"$TMPD/nextdeb/DEBIAN/md5sums" &&
		dpkg-deb --root-owner-group -b "$TMPD/nextdeb" "$r/tmp/next.deb" >/dev/null ||
			why="$why; cannot make the next release's package"
		chroot "$r" dpkg -i /tmp/next.deb >"$TMPD/port.dpkg" 2>&1 ||
			why="$why; dpkg -i of the next release: $(grep -m1 -iE 'error|fail' "$TMPD/port.dpkg")"
		grep -q "upgraded tap0 in netns $ns: csum-guard $ver's program replaced by csum-guard $ver+next's" \
			"$TMPD/port.dpkg" || why="$why; the upgrade said: $(tr '\n' '|' <"$TMPD/port.dpkg")"
		[ "$(chroot "$r" csum-guard status tap0 --netns "$ns" --json | jq -r '"\(.loader_version) \(.dropped)"')" = "$ver+next 2" ] ||
			why="$why; after the upgrade: $(chroot "$r" csum-guard status tap0 --netns "$ns" --json)"
		rm -rf "$TMPD/nextdeb" "$r/tmp/next.deb"
	fi
	# purge: the guard and a SYN responder go with the package, and every file
	chroot "$r" csum-guard syncookie attach tap0 --netns "$ns" --ports 80 --mode tc \
		--set-sysctl --quiet 2>>"$TMPD/port.err" || why="$why; syncookie attach from the root"
	chroot "$r" dpkg --purge csum-guard >"$TMPD/port.dpkg" 2>&1 ||
		why="$why; dpkg --purge in the root: $(grep -m1 -iE 'error|fail' "$TMPD/port.dpkg")"
	[ "$("$CG" status tap0 --netns "$ns" --json | jq -r .attached)" = false ] ||
		why="$why; still guarded after dpkg --purge"
	[ "$("$CG" syncookie status --netns "$ns" --json | jq length)" = 0 ] &&
		[ "$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_syncookies)" = 1 ] ||
		why="$why; the SYN responder or its sysctl stays after dpkg --purge"
	left=$(cd "$TMPD/ovl-up" && find . \( -iname '*csum*guard*' -o -lname '*csum*guard*' \) -print | head -3)
	[ -z "$left" ] || why="$why; dpkg --purge left $(echo $left)"
	umount -R "$r/run/netns" "$r/dev" "$r/sys" "$r/proc" 2>/dev/null
	umount "$r" || why="$why; the root stays mounted"
	ip netns del "$ns" 2>/dev/null
	if [ -z "$why" ]; then
		pass "$t: ${deb##*/} in a Debian 11 root ($glibc, no libbpf.so.1): dpkg -i enabled csum-guard-watch.service and csum-guard-syncookie.service; version, probe, attach, a bad frame dropped and counted; dpkg -i of the next release moved the guard to its program, counters kept; dpkg --purge detached the guard and a SYN responder (sysctl put back) and left no file"
	else
		fail "$t: ${why#; }"
	fi
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
	local t="lintian" dist=$TOP/build/dist ver debs out why= x=$TMPD/loader-deb n arch want

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
		why="$why; lintian failed: $(grep -E '^[EW]:' "$TMPD/lintian.out" | head -3 | tr '\n' ' ')$(grep -v 'root privileges' "$TMPD/lintian.err" | head -1)"
	grep -qE '^[EW]:' "$TMPD/lintian.out" && why="$why; $(grep -E '^[EW]:' "$TMPD/lintian.out" | head -3 | tr '\n' ' ')"
	# shellcheck disable=SC2086
	lintian --fail-on none --show-overrides $debs 2>/dev/null | grep '^O:' >"$TMPD/lintian.o"

	rm -rf "$x" && mkdir -p "$x" && dpkg-deb -x "$dist/csum-guard_${ver}_$arch.deb" "$x"
	cmp -s "$x/usr/share/doc/csum-guard/examples/libvirt-qemu-hook" "$TOP/packaging/libvirt-qemu-hook" ||
		why="$why; the hook shipped is not packaging/libvirt-qemu-hook"
	[ -x "$x/usr/share/doc/csum-guard/examples/libvirt-qemu-hook" ] || why="$why; the hook is not executable"
	cmp -s "$x/usr/share/doc/csum-guard/examples/libvirtd-require-watch.conf" "$TOP/packaging/libvirtd-require-watch.conf" ||
		why="$why; the drop-in shipped is not packaging/libvirtd-require-watch.conf"
	[ -e "$x/etc/systemd/system/libvirtd.service.d" ] && why="$why; the libvirtd drop-in is installed, not opt-in"
	out=$x/lib/systemd/system/csum-guard-watch.service
	for n in 'Type=notify' 'ExecStart=/usr/sbin/csum-guard watch' 'WantedBy=multi-user.target'; do
		grep -qx "$n" "$out" 2>/dev/null || why="$why; the unit lacks $n"
	done
	for n in libvirtd.service virtqemud.service pve-guests.service; do
		grep '^Before=' "$out" 2>/dev/null | grep -qw "$n" || why="$why; the unit is not ordered before $n"
	done
	zcat "$x/usr/share/man/man8/csum-guard.8.gz" 2>/dev/null | grep -q "csum-guard $ver" ||
		why="$why; the man page is not of $ver"
	"$x/usr/sbin/csum-guard" version | grep -q "^csum-guard $ver " || why="$why; the packaged loader is not $ver"
	rm -rf "$x"
	if [ -z "$why" ]; then
		pass "$t: $(echo $debs | xargs -n1 basename | paste -sd' ') lintian-clean ($(grep -c '^I:' "$TMPD/lintian.out") informational tags, $(grep -c . "$TMPD/lintian.o") overridden with reasons); unit, hook, man page and loader as the tree has them"
	else
		fail "$t: ${why#; }"
	fi
}
cg_host_case lintian

# The arm64 loader, cross-built on an amd64 machine (make dist): a static
# AArch64 executable, listed in SHA256SUMS, that runs under qemu-user (no
# arm64 machine here): it says its version and, from the host's kernel
# BTF, finds the kfunc the guard needs; the bpf() syscall is what qemu-user
# does not emulate, and probe says so. Its package has the files of the
# amd64 one, the same BPF object byte for byte, and that loader.
case_dist_arm64() {
	local t="dist-arm64" dist=$TOP/build/dist ver why= a=$TMPD/deb-arm64 b=$TMPD/deb-native probe

	if [ "$(dpkg --print-architecture)" != amd64 ]; then
		skip "$t: the arm64 loader is cross-built on amd64 machines only"
		return
	fi
	command -v qemu-aarch64 >/dev/null || { fail "$t: no qemu-aarch64 (make deps installs qemu-user)"; return; }
	ver=$(cat "$TOP/VERSION")
	for f in csum-guard-arm64 "csum-guard_${ver}_arm64.deb"; do
		[ -f "$dist/$f" ] || { fail "$t: no build/dist/$f (make dist)"; return; }
		grep -q "  $f\$" "$dist/SHA256SUMS" || why="$why; $f is not in SHA256SUMS"
	done
	(cd "$dist" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1 || why="$why; SHA256SUMS does not verify"
	readelf -h "$dist/csum-guard-arm64" 2>/dev/null | grep -q 'Machine:.*AArch64' ||
		why="$why; csum-guard-arm64 is not an AArch64 executable"
	readelf -l "$dist/csum-guard-arm64" 2>/dev/null | grep -q INTERP &&
		why="$why; csum-guard-arm64 is not static (it asks for a dynamic loader)"
	qemu-aarch64 "$dist/csum-guard-arm64" version 2>&1 | grep -q "^csum-guard $ver " ||
		why="$why; under qemu-aarch64 it says: $(qemu-aarch64 "$dist/csum-guard-arm64" version 2>&1 | head -1)"
	probe=$(qemu-aarch64 "$dist/csum-guard-arm64" probe --json 2>/dev/null)
	jq -e '.btf and .kfunc and (.bpf_unavailable | test("Function not implemented"))' <<<"$probe" >/dev/null ||
		why="$why; probe under qemu-aarch64: $(head -c 300 <<<"$probe")"
	rm -rf "$a" "$b" && mkdir -p "$a" "$b" &&
		dpkg-deb -x "$dist/csum-guard_${ver}_arm64.deb" "$a" && dpkg-deb -x "$dist/csum-guard_${ver}_amd64.deb" "$b" ||
		why="$why; cannot unpack the packages"
	[ "$(dpkg-deb -f "$dist/csum-guard_${ver}_arm64.deb" Architecture)" = arm64 ] ||
		why="$why; the arm64 package says Architecture $(dpkg-deb -f "$dist/csum-guard_${ver}_arm64.deb" Architecture)"
	[ "$(cd "$a" && find . | sort)" = "$(cd "$b" && find . | sort)" ] ||
		why="$why; the packages' files differ: $(diff <(cd "$a" && find . | sort) <(cd "$b" && find . | sort) | grep '^[<>]' | head -3 | tr '\n' ' ')"
	cmp -s "$a/usr/lib/csum-guard/csum_guard.bpf.o" "$b/usr/lib/csum-guard/csum_guard.bpf.o" ||
		why="$why; the two packages carry different BPF objects"
	readelf -h "$a/usr/sbin/csum-guard" 2>/dev/null | grep -q 'Machine:.*AArch64' ||
		why="$why; the arm64 package's loader is not AArch64"
	rm -rf "$a" "$b"
	if [ -z "$why" ]; then
		pass "$t: csum-guard-arm64 and csum-guard_${ver}_arm64.deb: static AArch64, in SHA256SUMS; under qemu-aarch64 it is $ver and reads the kernel's BTF (the kfunc found; bpf() is not emulated); the package has the amd64 one's files and the same BPF object"
	else
		fail "$t: ${why#; }"
	fi
}
cg_host_case dist_arm64
