# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 45-kmod.sh - what only the kernel-module backend has: the module itself.

# The guest loads the very file DKMS built on the host.
case_module_identity() {
	local t="module-identity [$BACKEND]" got

	[ "$BACKEND" = kmod ] || return 0
	[ -n "${CG_MODULE_SRCVERSION:-}" ] || { skip "$t: no DKMS build to compare with"; return; }
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	got=$(cat /sys/module/csum_guard/srcversion 2>/dev/null)
	if [ "$got" = "$CG_MODULE_SRCVERSION" ]; then
		pass "$t: the loaded module is the DKMS build (srcversion $got)"
	else
		fail "$t: loaded srcversion $got, DKMS built $CG_MODULE_SRCVERSION"
	fi
	guard_off
	topo_down
}
cg_case module_identity

# rmmod with devices still guarded, then attach again: no oops, no hang.
case_rmmod_guarded() {
	local t="rmmod-while-guarded [$BACKEND]"

	[ "$BACKEND" = kmod ] || return 0
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	"$CG" attach veth0 --netns "$VM" --backend kmod --quiet
	if ! timeout 30 rmmod csum_guard; then
		fail "$t: rmmod failed with guarded devices"
		topo_down
		return
	fi
	if [ "$(guard_counters)" != "0 0 false" ]; then
		fail "$t: still reported guarded after rmmod"
	elif guard_on && inject_sniff "$TMPD/rm" --csum-start 20 --csum-offset 6 --count 2 &&
	     [ "$(guard_counters)" = "2 0 true" ] && [ "$(sniff_datagrams "$TMPD/rm")" = 0 ]; then
		pass "$t: rmmod with 2 guarded devices, then attach reloads and drops again"
	else
		fail "$t: after reload: counters $(guard_counters)"
	fi
	guard_off
	topo_down
}
cg_case rmmod_guarded

# A device guarded by one backend is not guarded by the other as well.
case_one_backend() {
	local t="one-backend-per-device [$BACKEND]" other

	[ "$BPF_OK" = 1 ] && [ "$KMOD_OK" = 1 ] ||
		{ [ "$BACKEND" = bpf ] && skip "$t: needs both backends on one kernel"; return 0; }
	[ "$BACKEND" = bpf ] && other=kmod || other=bpf
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	if "$CG" attach tap0 --netns "$VM" --backend $other 2>"$TMPD/err"; then
		fail "$t: --backend $other attached over $BACKEND"
	elif ! grep -q "already guarded by the $BACKEND backend" "$TMPD/err"; then
		fail "$t: refused, but said: $(cat "$TMPD/err")"
	elif "$CG" attach tap0 --netns "$VM" --quiet &&
	     [ "$("$CG" status tap0 --netns "$VM" --json | jq -r .backend)" = "$BACKEND" ]; then
		pass "$t: --backend $other refused; auto keeps $BACKEND"
	else
		fail "$t: auto attach moved the guard off $BACKEND"
	fi
	guard_off
	topo_down
}
cg_case one_backend
