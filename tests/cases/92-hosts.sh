# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 92-hosts.sh - the packages on real Debian hosts, end to end.
#
# A host case (cg_host_case), once per run, after the guests (it boots
# QEMU itself, which would take their CPUs): a Debian host made by
# tests/guest/hostroot.sh (its release's root, its own kernel from
# kernels.list, systemd as PID 1, DKMS and the compiler, on an ext4 disk)
# boots under QEMU (tests/guest/boot.sh) and does what an operator does
# (tests/guest/host-e2e.sh, with a VM manager stand-in, host-vmm.sh):
# apt installs both packages of build/dist, DKMS builds the module, the unit
# guards the VM manager's tap, bad frames dropped and good ones intact; it
# reboots, and at boot the guard is there before the guest's first frame;
# on the Debian 12 host, csum-guard-dkms is upgraded to the next release
# and the old module, which guards nothing, is unloaded; apt purge leaves
# nothing behind. The host reports PASS/FAIL lines, tagged
# with its release, which become this run's.
#
# make test boots the Debian 11 host (5.10): the oldest userland the
# packages serve. make test-matrix (CG_DEPTH=full) boots the Debian 12 host
# (6.1) too.

# host_out_of_depth T NAME VERB: make test (quick) has the Debian 11 host
# only; for another, say SKIP (VERB: what make test-matrix does with it).
host_out_of_depth() {
	[ "$CG_DEPTH" != full ] && [ "$2" != deb5.10 ] || return 1
	skip "$1 $2: make test boots the Debian 11 host only; make test-matrix $3 this one"
}

# next_dkms_deb VERSION DEB DIR: DEB as the next release would be, in DIR:
# version VERSION+next in its control, its maintainer scripts, its source
# directory and the VERSION file the module's version comes from.
next_dkms_deb() {
	local ver=$1 deb=$2 dir=$3 x=$TMPD/nextdkms

	rm -rf "$x" "$dir" && mkdir -p "$dir" && dpkg-deb -R "$deb" "$x" &&
		mv "$x/usr/src/csum-guard-$ver" "$x/usr/src/csum-guard-$ver+next" &&
		echo "$ver+next" >"$x/usr/src/csum-guard-$ver+next/VERSION" &&
		sed -i "s/^Version: .*/Version: $ver+next/" "$x/DEBIAN/control" &&
		sed -i "s/^VERSION=$ver\$/VERSION=$ver+next/" "$x/DEBIAN/postinst" "$x/DEBIAN/prerm" &&
		(cd "$x" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$x/DEBIAN/md5sums" &&
		dpkg-deb --root-owner-group -b "$x" "$dir/csum-guard-dkms_${ver}+next_all.deb" >/dev/null
}

# debian_host NAME: the host of kernel NAME of kernels.list.
case_debian_host() {
	local k=$1 t="debian-host" d ver rc secs t0=$SECONDS upgrade=0

	host_out_of_depth "$t" "$k" boots && return
	ver=$(cat "$TOP/VERSION")
	# the upgrade costs a second DKMS build: the Debian 12 host, in full
	[ "$k" != deb5.10 ] && upgrade=1
	d=$TOP/build/hosts/$k
	rm -rf "$d"
	mkdir -p "$d/debs"
	if ! cp "$TOP/build/dist/csum-guard_${ver}_amd64.deb" "$TOP/build/dist/csum-guard-dkms_${ver}_all.deb" \
		"$d/debs/" 2>"$TMPD/host-$k.err"; then
		fail "$t $k: no packages of $ver in build/dist (make dist): $(head -1 "$TMPD/host-$k.err")"
		return
	fi
	cp "$TOP/tests/guest/host-e2e.sh" "$d/run" &&
		cp "$TOP/tests/guest/host-vmm.sh" "$d/vmm" &&
		cp "$BLD/tests/static/cg-inject" "$BLD/tests/static/cg-udprecv" "$d/" &&
		printf 'VERSION=%s\nBAD=%s\nGOOD=%s\nUPGRADE=%s\n' "$ver" 5 20 "$upgrade" >"$d/params" ||
		{ fail "$t $k: cannot prepare the share (make all builds build/tests/static/)"; return; }
	if [ "$upgrade" = 1 ] && ! next_dkms_deb "$ver" "$d/debs/csum-guard-dkms_${ver}_all.deb" "$d/debs-next"; then
		fail "$t $k: cannot make the next release's csum-guard-dkms"
		return
	fi
	"$TOP/tests/guest/boot.sh" "$k" --share "$d" --timeout 1500 >"$TMPD/host-$k.log" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	note "$t $k: the host's two boots took ${secs} s (exit $rc)"
	host_results "$t" "$k" "$d" "$TMPD/host-$k.log" $rc
}
cg_host_case --after-guests debian_host deb5.10
cg_host_case --after-guests debian_host deb6.1-fixed

# debian_host_root NAME: the host's disk, made (or found in its cache)
# while the guests run, so that debian_host, after them, only boots it.
case_debian_host_root() {
	local k=$1 t="debian-host-root" t0=$SECONDS IMAGE= KVER= SUITE=

	host_out_of_depth "$t" "$k" makes && return
	if eval "$("$TOP/tests/guest/hostroot.sh" "$k" 2>"$TMPD/hostroot-$k.err")" && [ -f "$IMAGE" ]; then
		pass "$t $k: the $SUITE host with kernel $KVER, made or found in build/roots in $((SECONDS - t0)) s"
	else
		fail "$t $k: $(tail -1 "$TMPD/hostroot-$k.err")"
	fi
}
cg_host_case debian_host_root deb5.10
cg_host_case debian_host_root deb6.1-fixed
