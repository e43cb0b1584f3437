# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# probe.sh - auto picks the backend this kernel can run, for the right reason.

# Once per kernel, not per backend. What the kernel offers is read here
# without the loader (bpftool over BTF, modprobe), then compared with the
# loader's choice.
check_probe_choice() {
	local t="probe-choice" want got kfunc=no

	if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	   grep -q "FUNC 'bpf_cast_to_kern_ctx'"; then
		kfunc=yes
		want=bpf
	elif [ -d /sys/module/csum_guard ] || modprobe -n -q csum_guard 2>/dev/null; then
		want=kmod
	else
		want=null
	fi
	got=$(jq -r .backend <<<"$PROBE")
	if [ "$got" = "$want" ]; then
		pass "$t: auto picks $got (kfunc in BTF: $kfunc)"
	else
		fail "$t: auto picks $got, want $want (kfunc in BTF: $kfunc): $(jq -r .reason <<<"$PROBE")"
	fi
}
