# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 60-object.sh - attach --object PATH --sha256 HEX: the provisioner's contract.
#
# A wrong digest, an object of another ABI version and a file that is no
# BPF object each attach nothing and say why in one line; the right digest
# attaches; another object rolls the running program forward and the first
# one rolls it back, counters kept; the README's provisioner example runs
# as printed against a local file.

OBJ_ALT=$BLD/tests/guard-alt.bpf.o
OBJ_NEXT=$BLD/tests/guard-abi-next.bpf.o

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
	local t="object [$BACKEND]" obj=$BLD/csum_guard.bpf.o p0 p1 p2 p3 out

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

# Upgrades reach running guards. build/tests/csum-guard-next is this loader
# built as the next release would be: another version (VERSION+next) and
# another program (guard-alt's instructions). status says, for each guard,
# which code runs it (program id and tag, the loader that attached it and
# its object's SHA-256; for kmod the module's version, origin and
# signer). A plain attach by
# the next loader converges a guard to its program, atomically, counters
# and options kept; `upgrade` moves every guard of the host, those of
# other namespaces included, and keeps a guard from --object; the first
# loader's upgrade rolls back. kmod: the module's guards are kept, said so.
# "ORIGIN SIGNER" of the csum_guard.ko modprobe finds, by its directory
# and modinfo, when the loaded module is its build ("null null" otherwise)
kmod_origin_of_modinfo() {
	local ko

	ko=$(modinfo -n csum_guard 2>/dev/null)
	if [ -z "$ko" ] || [ "$(cat /sys/module/csum_guard/srcversion 2>/dev/null)" != \
	     "$(modinfo -F srcversion "$ko")" ] ||
	   [ "$(cat /sys/module/csum_guard/version 2>/dev/null)" != "$(modinfo -F version "$ko")" ]; then
		echo "null null"
		return
	fi
	case $ko in
	*/updates/csum-guard/*) echo "prebuilt $(modinfo -F signer "$ko")" ;;
	*/updates/dkms/*) echo "dkms $(modinfo -F signer "$ko")" ;;
	*) echo "other $(modinfo -F signer "$ko")" ;;
	esac
}

case_upgrade() {
	local t="upgrade [$BACKEND]" next=$BLD/tests/csum-guard-next ns=$CG_PFX-up ns2=$CG_PFX-up2
	local ver out j tag0 tag1 d egress=

	ver=$(cat "$TOP/VERSION")
	[ -x "$next" ] || { fail "$t: $next missing: run make"; return; }
	# (the module guards egress only where netfilter has an egress hook)
	[ "$BACKEND" = bpf ] && egress=--egress
	if ! { ip netns add $ns && ip netns add $ns2 &&
	       ip -n $ns tuntap add dev tap0 mode tap vnet_hdr && ip -n $ns link set tap0 up &&
	       ip -n $ns tuntap add dev tap1 mode tap vnet_hdr && ip -n $ns link set tap1 up &&
	       ip -n $ns2 tuntap add dev tap2 mode tap vnet_hdr; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null; ip netns del $ns2 2>/dev/null
		return
	fi
	expect_ok "attach tap0" "$CG" attach tap0 --netns $ns --backend "$BACKEND" --quiet &&
		expect_ok "attach tap1" "$CG" attach tap1 --netns $ns --backend "$BACKEND" $egress --log-drops --quiet &&
		expect_ok "attach tap2" "$CG" attach tap2 --netns $ns2 --backend "$BACKEND" --quiet
	ip netns exec $ns "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	j=$("$CG" status tap0 --netns $ns --json)
	if [ "$BACKEND" = kmod ]; then
		expect_eq "status's module_version ($j)" "$(cat /sys/module/csum_guard/version)" \
			"$(jq -r .module_version <<<"$j")"
		expect_eq "status's program_tag, loader_version" null \
			"$(jq -r '.program_tag, .loader_version' <<<"$j" | sort -u)"
		# (attach loaded it with modprobe: the file modinfo finds is its build)
		expect_match "status's module_origin" '^(dkms|prebuilt|other)$' "$(jq -r .module_origin <<<"$j")"
		expect_eq "status's module_origin and module_signer, by modinfo" "$(kmod_origin_of_modinfo)" \
			"$(jq -r '"\(.module_origin) \(.module_signer)"' <<<"$j")"
		out=$("$next" upgrade 2>&1)
		expect_eq "upgrade: exit status" 0 $?
		expect_eq "upgrade: guards kept ($(tr '\n' '|' <<<"$out"))" 3 \
			"$(grep -c "^csum-guard: kept tap[0-2] in netns .*: the loaded module (csum_guard $ver) guards it" <<<"$out")"
		expect_grep "upgrade: its count" "upgraded 0 guards to csum-guard $ver+next; 0 ran it already, 3 kept$" - <<<"$out"
		expect_eq "tap0's dropped after upgrade" 2 "$("$CG" status tap0 --netns $ns --json | jq -r .dropped)"
	else
		tag0=$(jq -r .program_tag <<<"$j")
		# the object's digest is that of build/csum_guard.bpf.o, which it embeds
		expect_match "status's program_tag" '^[0-9a-f]{16}$' "$tag0"
		expect_eq "status's loader_version" "$ver" "$(jq -r .loader_version <<<"$j")"
		expect_eq "status's object_sha256, build/csum_guard.bpf.o's" "$(obj_sha "$BLD/csum_guard.bpf.o")" \
			"$(jq -r .object_sha256 <<<"$j")"
		expect_eq "status's module_version" null "$(jq -r .module_version <<<"$j")"
		# a plain attach by the next loader: its program, counters kept
		out=$("$next" attach tap0 --netns $ns 2>&1)
		expect_eq "the next loader's attach: exit status" 0 $?
		expect_grep "the next loader's attach: what it said" \
			"updated the guard of tap0 in netns $ns (bpf, [a-z]*): csum-guard $ver's program replaced by csum-guard $ver+next's" - <<<"$out"
		j=$("$CG" status tap0 --netns $ns --json)
		tag1=$(jq -r .program_tag <<<"$j")
		expect_eq "after the next loader's attach: loader_version, dropped" "$ver+next 2" \
			"$(jq -r '"\(.loader_version) \(.dropped)"' <<<"$j")"
		expect_ne "after the next loader's attach: program_tag" "$tag0" "$tag1"
		# an --object guard in the other namespace stays
		expect_ok "attach --object" "$CG" attach tap2 --netns $ns2 --object "$OBJ_ALT" \
			--sha256 "$(obj_sha "$OBJ_ALT")" --quiet
		out=$("$next" upgrade 2>&1)
		expect_eq "upgrade: exit status" 0 $?
		expect_grep "upgrade: tap1" "^csum-guard: upgraded tap1 in netns $ns: csum-guard $ver's program replaced by csum-guard $ver+next's" - <<<"$out"
		expect_grep "upgrade: tap2" "^csum-guard: kept tap2 in netns $ns2: its program came from --object" - <<<"$out"
		expect_grep "upgrade: its count" "upgraded 1 guard to csum-guard $ver+next; 1 ran it already, 1 kept$" - <<<"$out"
		j=$("$CG" status tap1 --netns $ns --json)
		expect_eq "tap1: loader_version, program_tag, egress, log_drops" "$ver+next $tag1 true true" \
			"$(jq -r '"\(.loader_version) \(.program_tag) \(.egress) \(.log_drops)"' <<<"$j")"
		# still guarding, with the next program
		ip netns exec $ns "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1 2>/dev/null
		expect_eq "tap0's dropped" 3 "$("$CG" status tap0 --netns $ns --json | jq -r .dropped)"
		# Prometheus says which code guards each
		"$CG" status --prometheus >"$TMPD/up.prom"
		expect_grep "status --prometheus: tap1's guard_info" "^csum_guard_guard_info{device=\"tap1\",netns=\"$ns\",backend=\"bpf\",mode=\"[a-z]*\",program_tag=\"$tag1\",loader_version=\"$ver+next\"," "$TMPD/up.prom"
		# and back: the first loader rolls every guard back to its program
		out=$("$CG" upgrade 2>&1)
		expect_eq "the rollback: exit status" 0 $?
		for d in tap0 tap1; do
			expect_eq "rolled back: $d's loader_version, program_tag" "$ver $tag0" \
				"$("$CG" status $d --netns $ns --json | jq -r '"\(.loader_version) \(.program_tag)"')"
		done
	fi
	"$CG" detach --all --netns $ns --quiet
	"$CG" detach --all --netns $ns2 --quiet
	ip netns del $ns
	ip netns del $ns2
	if [ "$BACKEND" = kmod ]; then
		expect_verdict "$t" "status names the module ($ver); upgrade by $ver+next keeps the module's 3 guards and says so, counters kept"
	else
		expect_verdict "$t" "status names program, loader and object; $ver+next's attach converged tap0 (tag $tag0 -> $tag1, counters kept), its upgrade moved tap1 (egress, log-drops kept) and kept an --object guard in another namespace; guards drop; $ver's upgrade rolled back"
	fi
}
cg_case upgrade

# An upgrade from the layout before the host's shared program: there each
# guard loaded and pinned a program of its own (build/tests/csum-guard-prev,
# that commit's loader, built from git history). This loader's attach and
# upgrade move such guards onto the shared programs, counters and options
# kept, and what the old layout pinned goes with the guard.
case_upgrade_layout() {
	local t="upgrade-layout [$BACKEND]" prev=$BLD/tests/csum-guard-prev ns=$CG_PFX-ul
	local out j d id ids n0 n1 ver

	ver=$(cat "$TOP/VERSION")

	[ "$BACKEND" = bpf ] || { skip "$t: the module has no program of a guard's own"; return; }
	if [ ! -x "$prev" ]; then
		if [ -f "$prev.missing" ]; then
			skip "$t: no loader of the old layout: $(cat "$prev.missing")"
		else
			fail "$t: $prev missing: run make"
		fi
		return
	fi
	if ! { ip netns add $ns &&
	       ip -n $ns tuntap add dev tap0 mode tap vnet_hdr && ip -n $ns link set tap0 up &&
	       ip -n $ns tuntap add dev tap1 mode tap vnet_hdr && ip -n $ns link set tap1 up; }; then
		fail "$t: set-up"
		ip netns del $ns 2>/dev/null
		return
	fi
	n0=$(prog_count)
	expect_ok "the old loader's attach tap0" "$prev" attach tap0 --netns $ns --backend bpf --quiet &&
		expect_ok "the old loader's attach tap1" "$prev" attach tap1 --netns $ns --backend bpf \
			--egress --log-drops --quiet
	ip netns exec $ns "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	ip netns exec $ns "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --count 1 2>/dev/null
	# the old layout: a program of each guard's own, loaded by the old loader
	n1=$(($(prog_count) - n0))
	expect_eq "the old layout: shared pins" "" \
		"$(find /sys/fs/bpf/csum_guard/shared -mindepth 1 2>/dev/null | tr '\n' ' ')"
	expect_gt "the old layout: programs of the guards' own" 1 "$n1"
	expect_eq "the old layout: tap0's loader_version, dropped" "$ver~prev 2" \
		"$("$CG" status tap0 --netns $ns --json | jq -r '"\(.loader_version) \(.dropped)"')"
	# a plain attach by this loader moves tap0, its upgrade tap1
	out=$("$CG" attach tap0 --netns $ns --backend bpf 2>&1)
	expect_eq "attach: exit status ($out)" 0 $?
	out=$("$CG" upgrade 2>&1)
	expect_eq "upgrade: exit status" 0 $?
	expect_grep "upgrade: tap1" "^csum-guard: upgraded tap1 in netns $ns: " - <<<"$out"
	ids=" "
	for d in /sys/fs/bpf/csum_guard/shared/*; do
		id=$(bpftool prog show pinned "$d" -j 2>/dev/null | jq -r .id) && ids="$ids$id "
	done
	for d in "tap0 2 false false" "tap1 1 true true"; do
		set -- $d
		j=$("$CG" status $1 --netns $ns --json)
		expect_eq "$1: loader_version, dropped, egress, log_drops" "$ver $2 $3 $4" \
			"$(jq -r '"\(.loader_version) \(.dropped) \(.egress) \(.log_drops)"' <<<"$j")"
		expect_glob "$1: its program, one of the shared ones ($ids)" "* $(jq -r .program_id <<<"$j") *" "$ids"
	done
	# the old programs went: only the shared ones are left
	expect_counter "programs" 2 $n0 $(prog_count)
	# still guarding, each counting its own
	ip netns exec $ns "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 1 2>/dev/null
	ip netns exec $ns "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	out=$(for d in tap0 tap1; do "$CG" status $d --netns $ns --json | jq -r .dropped; done | paste -sd' ')
	expect_eq "tap0's and tap1's dropped" "3 3" "$out"
	expect_ok "detach --all --netns" "$CG" detach --all --netns $ns --quiet
	ip netns del $ns
	expect_counter "programs left" 0 $n0 $(prog_count)
	expect_eq "pins left" "" "$(pin_list | tr '\n' ' ')"
	expect_verdict "$t" "guards of the layout before the shared program ($n1 programs of their own, by $ver~prev) moved by attach and upgrade onto the 2 shared programs, counters, --egress and --log-drops kept; still dropping; nothing left after detach"
}
cg_case upgrade_layout
