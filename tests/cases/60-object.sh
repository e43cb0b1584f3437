# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 60-object.sh - attach --object PATH --sha256 HEX: the provisioner's contract.
#
# A wrong digest, an object of another ABI version and a file that is no
# BPF object each attach nothing and say why in one line; the right digest
# attaches; another object rolls the running program forward and the first
# one rolls it back, counters kept; the README's provisioner example runs
# as printed against a local file.

OBJ_ALT=$TOP/build/tests/guard-alt.bpf.o
OBJ_NEXT=$TOP/build/tests/guard-abi-next.bpf.o

obj_sha() { sha256sum "$1" | cut -c1-64; }

# The id of the program on tap0's tcx ingress link, from the loader's pins
obj_prog() {
	local ino ifx

	ino=$(stat -L -c %i "/run/netns/$VM")
	ifx=$(ip -n "$VM" -o link show tap0 | cut -d: -f1)
	bpftool link show pinned "/sys/fs/bpf/csum_guard/$ino/$ifx/link" -j 2>/dev/null | jq -r .prog_id
}

obj_refused() {
	local t=$1 what=$2 before after err rc
	shift 2

	before=$(state_snapshot)
	err=$("$CG" attach tap0 --netns "$VM" "$@" 2>&1 >/dev/null)
	rc=$?
	after=$(state_snapshot)
	if [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && [ "$before" = "$after" ] &&
	   grep -q "$what" <<<"$err"; then
		pass "$t: refused in one line, nothing changed: $err"
	else
		fail "$t: exit $rc, changed=$([ "$before" = "$after" ] && echo no || echo yes): $err"
	fi
}

case_object() {
	local t="object [$BACKEND]" obj=$TOP/build/csum_guard.bpf.o p0 p1 p2 p3 out

	[ "$BACKEND" = bpf ] || { skip "$t: objects are the bpf backend's"; return; }
	[ -r "$OBJ_ALT" ] && [ -r "$OBJ_NEXT" ] || { fail "$t: test objects missing: run make"; return; }
	topo_up --mtu 1500 || { fail "$t: set-up"; topo_down; return; }

	obj_refused "$t wrong digest" "has SHA-256" --object "$obj" --sha256 "$(obj_sha "$OBJ_ALT")"
	obj_refused "$t other ABI" "ABI version is 2" --object "$OBJ_NEXT" --sha256 "$(obj_sha "$OBJ_NEXT")"
	obj_refused "$t not an object" "not a BPF object" --object /bin/true --sha256 "$(obj_sha /bin/true)"

	if ! guard_on --object "$obj" --sha256 "$(obj_sha "$obj")"; then
		fail "$t: attach with the right digest failed"
		topo_down
		return
	fi
	ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2
	p0=$(obj_prog)
	guard_on --object "$obj" --sha256 "$(obj_sha "$obj")"
	p1=$(obj_prog)
	out=$("$CG" attach tap0 --netns "$VM" --object "$OBJ_ALT" --sha256 "$(obj_sha "$OBJ_ALT")" 2>&1)
	p2=$(obj_prog)
	ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1
	set -- $(guard_counters)
	if [ -n "$p0" ] && [ "$p0" = "$p1" ] && [ "$p2" != "$p1" ] && [ "$1" = 3 ] &&
	   grep -q 'program replaced' <<<"$out"; then
		pass "$t: right digest attaches (prog $p0), the same object again changes nothing, another rolls forward (prog $p2) and keeps counting: dropped=$1"
	else
		fail "$t: progs $p0 -> $p1 -> $p2, dropped=$1 (want 3): $out"
	fi

	obj_refused "$t options of an object's guard" "give --object" --log-drops
	guard_on --object "$obj" --sha256 "$(obj_sha "$obj")"
	p3=$(obj_prog)
	ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1
	set -- $(guard_counters)
	if [ "$p3" != "$p2" ] && [ "$1" = 4 ]; then
		pass "$t: rolled back by repinning (prog $p3), counters kept: dropped=$1"
	else
		fail "$t: roll back: prog $p2 -> $p3, dropped=$1 (want 4)"
	fi
	obj_half_update "$t" "$obj"
	guard_off
	obj_provisioner "$t"
	topo_down
}
cg_case object

# obj_half_update T OBJ: an update to another object killed right after
# the link took the new program: meta names a program that no longer
# exists. A plain attach cannot know which bytes to load, so it asks for
# --object again and leaves the guard dropping; --object repairs it.
obj_half_update() {
	local t="$1 half-updated" obj=$2 ref=$TMPD/obj.ref out=$TMPD/obj.out k err rc p
	local alt=(--object "$OBJ_ALT" --sha256 "$(obj_sha "$OBJ_ALT")")

	command -v strace >/dev/null || { skip "$t: strace missing"; return; }
	if [ -z "$(obj_prog)" ]; then
		# only where the probe says this kernel has no tcx
		if [ "$("$CG" probe --json | jq -r .tcx)" = true ]; then
			fail "$t: the probe says tcx, but the guard is not on a tcx link"
		else
			skip "$t: this kernel has no tcx links (the probe says so)"
		fi
		return
	fi
	strace -f -qq -o "$ref" -e trace=bpf "$CG" attach tap0 --netns "$VM" --quiet "${alt[@]}"
	guard_on --object "$obj" --sha256 "$(obj_sha "$obj")"
	# the bpf call after the link update, counted within its process
	k=$(awk '$2 ~ /^bpf\(/ { n[$1]++ } $2 ~ /^bpf\(BPF_LINK_UPDATE/ { p = $1; next }
		 p != "" && $1 == p && $2 ~ /^bpf\(/ { print n[p]; exit }' "$ref")
	[ -n "$k" ] || { fail "$t: no link update in the reference run"; return; }
	# (strace dies of the signal it injected: keep bash from reporting it)
	(strace -f -qq -o "$out" -e trace=bpf -e inject=bpf:signal=KILL:when="$k" \
		"$CG" attach tap0 --netns "$VM" --quiet "${alt[@]}"; true) >/dev/null 2>&1
	grep -q 'killed by SIGKILL' "$out" || { fail "$t: the kill after the link update missed"; return; }
	err=$("$CG" attach tap0 --netns "$VM" --quiet 2>&1)
	rc=$?
	ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1
	set -- $(guard_counters)
	if [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q 'give --object and --sha256 again to repair' <<<"$err" &&
	   [ "$1" = 5 ]; then
		pass "$t: a plain attach asks for the object in one line and the guard keeps dropping (dropped=$1): $err"
	else
		fail "$t: plain attach exit $rc, dropped=$1 (want 5): $err"
	fi
	guard_on "${alt[@]}" || { fail "$t: attach --object did not repair it"; return; }
	p=$(obj_prog)
	ip netns exec "$VM" "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1
	set -- $(guard_counters)
	# repaired: meta names the running program, so a plain attach is a no-op
	err=$("$CG" attach tap0 --netns "$VM" --quiet 2>&1)
	rc=$?
	if [ "$1" = 6 ] && [ "$3" = true ] && [ -n "$p" ] && [ $rc = 0 ] && [ "$(obj_prog)" = "$p" ]; then
		pass "$t: attach --object repairs it in place (prog $p), counters kept (dropped=$1), a plain attach is then a no-op"
	else
		fail "$t: after the repair: prog $p -> $(obj_prog), dropped=$1, plain attach exit $rc: $err"
	fi
}

# The README's provisioner example, as printed, against build/dist.
obj_provisioner() {
	local t="$1 README provisioner example" script=$TMPD/provision.sh dist=$TOP/build/dist out

	if [ ! -r "$dist/csum_guard.bpf.o.sha256" ]; then
		# make test builds it; a run of the cases alone may not have
		if [ $mode = all ]; then
			fail "$t: no build/dist, which make test builds"
		else
			skip "$t: no build/dist (make dist)"
		fi
		return
	fi
	awk '/^<!-- provisioner example -->$/ { on = 1; next }
	     on && /^```/ { if (code) exit; code = 1; next }
	     on && code' "$TOP/README.md" >"$script"
	if [ ! -s "$script" ]; then
		fail "$t: not found in README.md"
		return
	fi
	out=$(cd "$TMPD" && env RELEASE_URL="file://$dist" VERSION="$(cat "$TOP/VERSION")" \
		SHA256="$(cut -c1-64 "$dist/csum_guard.bpf.o.sha256")" STATE_DIR="$TMPD/provision" \
		NETNS="$VM" DEV=tap0 PATH="$(dirname "$CG"):$PATH" bash -e "$script" 2>&1)
	if [ $? = 0 ] && "$CG" status tap0 --netns "$VM" --json | jq -e .attached >/dev/null; then
		pass "$t: downloaded, verified and attached: $(tail -1 <<<"$out")"
	else
		fail "$t: $(tail -3 <<<"$out" | tr '\n' ' ')"
	fi
	guard_off
}
