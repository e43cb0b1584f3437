# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 94-libvirt.sh - the libvirt hook and the VM manager's drop-in, with
# Debian's own libvirt.
#
# A host case, after the guests (it boots QEMU itself): a Debian 12 host
# made by tests/guest/hostroot.sh --libvirt (the host of 92-hosts.sh, plus
# libvirt-daemon-system 9.0 and qemu-system-x86) boots under QEMU
# (tests/guest/boot.sh --libvirt) and runs tests/guest/host-libvirt.sh:
#
#   br0 --- vnetN (g1, <interface type='bridge'>)
#   dummy0 -+- macvtapN (g2, <interface type='direct'>)
#           +- mv0 (the good frames' receiver)
#
# domains started by `virsh start --paused`, guarded by the hook before QEMU
# runs (seen from libvirt's own "start begin" call), bad frames dropped and
# good ones intact through QEMU's very devices; libvirtd restarted under the
# opt-in drop-in (packaging/libvirtd-require-watch.conf): the watcher ready
# first and the devices guarded at "reconnect begin"; with a module the
# kernel refuses, libvirtd not started under the drop-in, and `virsh start`
# refused with csum-guard's reason in libvirt's error without it. The
# macvtap rows need a kernel with netfilter egress: 6.1 has it.
#
# make test-matrix (CG_DEPTH=full) only: the host, its DKMS build and
# libvirt under TCG in TCG take several minutes. make test says SKIP.

# libvirt_host NAME: the libvirt host of kernel NAME of kernels.list.
case_libvirt_host() {
	local k=$1 t="libvirt-host" d ver rc t0=$SECONDS

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $k: boots a Debian 12 host with libvirt for several minutes: make test-matrix runs it"
		return
	fi
	ver=$(cat "$TOP/VERSION")
	d=$TOP/build/hosts/libvirt-$k
	rm -rf "$d"
	mkdir -p "$d/debs"
	if ! cp "$TOP/build/dist/csum-guard_${ver}_amd64.deb" "$TOP/build/dist/csum-guard-dkms_${ver}_all.deb" \
		"$d/debs/" 2>"$TMPD/lvhost-$k.err"; then
		fail "$t $k: no packages of $ver in build/dist (make dist): $(head -1 "$TMPD/lvhost-$k.err")"
		return
	fi
	cp "$TOP/tests/guest/host-libvirt.sh" "$d/run" &&
		cp "$BLD/tests/static/cg-inject" "$BLD/tests/static/cg-udprecv" "$d/" &&
		printf 'VERSION=%s\nBAD=%s\nGOOD=%s\n' "$ver" 5 20 >"$d/params" ||
		{ fail "$t $k: cannot prepare the share (make all builds build/tests/static/)"; return; }
	"$TOP/tests/guest/boot.sh" "$k" --libvirt --share "$d" --timeout 1800 --mem 1536M \
		>"$TMPD/lvhost-$k.log" 2>&1
	rc=$?
	note "$t $k: the host's boot took $((SECONDS - t0)) s (exit $rc)"
	host_results "$t" "$k" "$d" "$TMPD/lvhost-$k.log" $rc
}
cg_host_case --after-guests libvirt_host deb6.1-fixed

# libvirt_host_root NAME: its disk, made (or found in build/roots) while
# the guests run.
case_libvirt_host_root() {
	local k=$1 t="libvirt-host-root" t0=$SECONDS IMAGE= KVER= SUITE=

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $k: make test-matrix makes this host"
		return
	fi
	if eval "$("$TOP/tests/guest/hostroot.sh" "$k" --libvirt 2>"$TMPD/lvroot-$k.err")" && [ -f "$IMAGE" ]; then
		pass "$t $k: the $SUITE host with kernel $KVER and libvirt, made or found in build/roots in $((SECONDS - t0)) s"
	else
		fail "$t $k: $(tail -1 "$TMPD/lvroot-$k.err")"
	fi
}
cg_host_case libvirt_host_root deb6.1-fixed
