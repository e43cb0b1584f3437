#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/sigforce.sh [lockdown|secureboot] - inside a guest booted
# with module.sig_enforce=1; with lockdown=integrity (what Secure Boot turns
# on in Debian's kernels) given "lockdown"; through Debian's signed shim,
# grub and kernel with Secure Boot on (run.sh --secure-boot) given
# "secureboot" (tests/cases/52-hostile.sh): what the kernel, probe, attach,
# watch and doctor say of a module it refuses. One "NAME: ..." line each,
# for the case to judge.
CG=${CG_BUILD_DIR:?}/csum-guard

echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce 2>&1)"
case ${1:-} in
lockdown)
	# the guest's init mounts no securityfs: probe has the command line
	echo "probe_nosecfs: $("$CG" probe --json 2>&1 | tr '\n' ' ')" ;;
secureboot)
	# efivarfs, as systemd mounts it on an EFI boot
	modprobe efivarfs && mount -t efivarfs efivarfs /sys/firmware/efi/efivars
	echo "secureboot: $(od -An -tu1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c 2>&1 | tr -s ' ')" ;;
esac
if [ -n "${1:-}" ]; then
	# securityfs, as systemd mounts it on every Debian host
	mount -t securityfs securityfs /sys/kernel/security
	echo "lockdown: $(cat /sys/kernel/security/lockdown 2>&1)"
fi
echo "signer: $(modinfo -F signer csum_guard 2>&1)"
echo "probe: $("$CG" probe --json 2>&1 | tr '\n' ' ')"
[ -e /dev/net/tun ] || modprobe tun
ip tuntap add dev sg0 mode tap vnet_hdr && ip link set sg0 up
"$CG" attach sg0 --backend kmod >/tmp/a.out 2>&1
echo "attach: rc=$? $(tr '\n' ' ' </tmp/a.out)"
timeout 20 "$CG" watch --backend kmod --no-completion --match sg0 >/tmp/w.out 2>&1
echo "watch: rc=$? $(tr '\n' '|' </tmp/w.out)"
echo "status: $("$CG" status sg0 --json 2>&1 | tr '\n' ' ')"
echo "doctor: $("$CG" doctor 2>&1 | grep -E '^[a-z]+ +module' | tr '\n' '|')"
# the completion guard loads the module without asking probe: the
# kernel's own reason must come through
"$CG" completion on >/tmp/c.out 2>&1
echo "completion: rc=$? $(tr '\n' ' ' </tmp/c.out)"
# the kernel's own answer, last: it must agree with the probe
modprobe csum_guard >/tmp/m.out 2>&1
echo "modprobe: rc=$? $(tr '\n' ' ' </tmp/m.out)"
echo "loaded: $([ -d /sys/module/csum_guard ] && echo yes || echo no)"
echo "refused: $(dmesg | grep -m1 'Lockdown: .*module' || echo none)"
