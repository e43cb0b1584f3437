# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# kmod.sh - what only the kernel-module backend has: the module itself.

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

# A device guarded by one backend is not guarded by the other as well.
case_one_backend() {
	local t="one-backend-per-device [$BACKEND]" other

	[ "$BPF_OK" = 1 ] && [ "$KMOD_OK" = 1 ] ||
		{ [ "$BACKEND" = bpf ] && skip "$t: needs both backends on one kernel"; return; }
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

# The module's device dump while the list changes between its rounds
# (cg-kdump reads one round a read): the messages after the change carry
# NLM_F_DUMP_INTR, so a reader knows to dump again; a dump of a list that
# does not change carries none and has every device once. The loader's
# status, which dumps again, lists every device once.
case_kmod_dump() {
	local t="kmod-dump [$BACKEND]" n=120 i ids out=$TMPD/kdump want

	[ "$BACKEND" = kmod ] || return 0
	topo_up --mtu 1500 && guard_on || { fail "$t: set-up"; topo_down; return; }
	for i in $(seq $n); do echo "tuntap add dev kd$i mode tap"; done | ip -n "$VM" -batch - ||
		{ fail "$t: set-up of $n taps"; topo_down; return; }
	# "IFINDEX NAME" of each, in the order they were made
	ip -n "$VM" -o link show | awk -F': ' '$2 ~ /^kd[0-9]+$/ { print $1, $2 }' | sort -n >"$out.devs"
	ids=$(cut -d' ' -f1 "$out.devs")
	if ! ip netns exec "$VM" "$KDUMP" attach $ids 2>"$out.err"; then
		fail "$t: cg-kdump attach: $(cat "$out.err")"
		topo_down
		return
	fi
	ip netns exec "$VM" "$KDUMP" dump >"$out.still" 2>&1
	# the first device listed goes after the first read
	ip netns exec "$VM" "$KDUMP" dump --detach-between "$(head -1 <<<"$ids")" >"$out.moved" 2>&1
	want=$( (sed 1d "$out.devs" | cut -d' ' -f2; echo tap0) | sort)
	if ! grep -q "^summary messages=$((n + 1)) intr=0 rounds=[3-9]" "$out.still"; then
		fail "$t: unchanged list of $((n + 1)): $(cat "$out.still")"
	elif ! grep -q "^summary .* intr=1 rounds=[3-9]" "$out.moved"; then
		fail "$t: a device detached between rounds, no NLM_F_DUMP_INTR: $(cat "$out.moved")"
	elif [ "$("$CG" status --netns "$VM" --json | jq -r '.[] | select(.attached) | .device' | sort)" != "$want" ]; then
		fail "$t: status does not list the $n guarded devices once each"
	else
		pass "$t: $((n + 1)) devices, $(sed -n 's/.*rounds=//p' "$out.still") rounds: unchanged, no NLM_F_DUMP_INTR; one detached between rounds, flagged; status lists each once"
	fi
	topo_down
}
