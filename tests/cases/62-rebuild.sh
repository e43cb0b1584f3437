# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 62-rebuild.sh - a loader of the same version with another program.

# A distribution's patched rebuild, a backported fix: csum-guard of this
# very VERSION built with another BPF object (build/tests/csum-guard-rebuild,
# guard-alt's instructions). Its attach, and its upgrade, move running
# guards onto its program, as for another version: the program decides,
# not the version string. This loader's upgrade moves them back.
#
#   netns $CG_PFX-rb: tap0 tap1 (both guarded by this loader first)
case_rebuild() {
	local t="rebuild [$BACKEND]" rb=$BLD/tests/csum-guard-rebuild ns=$CG_PFX-rb ver out j d
	local tag0 tag1 sha0 sha1

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the module's hooks run the loaded module's code, whichever loader asks"
		return
	fi
	[ -x "$rb" ] || { fail "$t: $rb missing: run make"; return; }
	ver=$(cat "$TOP/VERSION")
	sha0=$(sha256sum <"$BLD/csum_guard.bpf.o" | cut -d' ' -f1)
	sha1=$(sha256sum <"$BLD/tests/guard-alt.bpf.o" | cut -d' ' -f1)
	[ "$("$rb" --version)" = "$("$CG" --version)" ] || unexpected "premise" "versions-differ"
	if ! { ip netns add $ns &&
	       ip -n $ns tuntap add dev tap0 mode tap vnet_hdr && ip -n $ns link set tap0 up &&
	       ip -n $ns tuntap add dev tap1 mode tap vnet_hdr && ip -n $ns link set tap1 up &&
	       "$CG" attach tap0 --netns $ns --backend bpf --quiet &&
	       "$CG" attach tap1 --netns $ns --backend bpf --log-drops --quiet; }; then
		fail "$t: set-up"
		"$CG" detach --all --netns $ns --quiet 2>/dev/null
		ip netns del $ns 2>/dev/null
		return
	fi
	ip netns exec $ns "$INJECT" --dev tap0 --csum-start 20 --csum-offset 6 --count 2 2>/dev/null
	j=$("$CG" status tap0 --netns $ns --json)
	tag0=$(jq -r .program_tag <<<"$j")
	[ "$(jq -r '"\(.loader_version) \(.object_sha256)"' <<<"$j")" = "$ver $sha0" ] || unexpected "status" "$j"
	# the rebuild's attach: its program, counters kept
	out=$("$rb" attach tap0 --netns $ns 2>&1) || unexpected "attach-rc"
	grep -q "updated the guard of tap0 in netns $ns (bpf, [a-z]*): csum-guard $ver's program replaced by csum-guard $ver's" <<<"$out" ||
		unexpected "attach" "[$out]"
	j=$("$CG" status tap0 --netns $ns --json)
	tag1=$(jq -r .program_tag <<<"$j")
	[ "$tag1" != "$tag0" ] &&
		[ "$(jq -r '"\(.loader_version) \(.object_sha256) \(.dropped)"' <<<"$j")" = "$ver $sha1 2" ] ||
		unexpected "after-attach" "$j"
	# what the kernel runs there: the rebuild's program
	[ "$(kernel_hooks $ns tap0 | awk '$1 ~ /_ingress$/ { print $3 }')" = "$tag1" ] ||
		unexpected "kernel" "[$(kernel_hooks $ns tap0 | tr '\n' ' ')]"
	# the rebuild's upgrade: tap1 moves (log-drops kept), tap0 ran it already
	out=$("$rb" upgrade 2>&1) || unexpected "upgrade-rc"
	grep -q "^csum-guard: upgraded tap1 in netns $ns: csum-guard $ver's program replaced by csum-guard $ver's" <<<"$out" ||
		unexpected "upgrade" "[$(tr '\n' '|' <<<"$out")]"
	[ "$("$CG" status tap1 --netns $ns --json | jq -r '"\(.program_tag) \(.object_sha256) \(.log_drops)"')" = "$tag1 $sha1 true" ] ||
		unexpected "tap1" "$("$CG" status tap1 --netns $ns --json)"
	ip netns exec $ns "$INJECT" --dev tap1 --csum-start 20 --csum-offset 6 --count 1 2>/dev/null
	[ "$("$CG" status tap1 --netns $ns --json | jq -r .dropped)" = 1 ] || unexpected "tap1-drops"
	# and back: this loader's upgrade takes both to its program
	"$CG" upgrade >/dev/null 2>&1 || unexpected "back-rc"
	for d in tap0 tap1; do
		[ "$("$CG" status $d --netns $ns --json | jq -r '"\(.program_tag) \(.object_sha256)"')" = "$tag0 $sha0" ] ||
			unexpected "back" "$d"
	done
	"$CG" detach --all --netns $ns --quiet
	ip netns del $ns
	expect_verdict "$t" "csum-guard $ver with another program: its attach moved tap0 (tag $tag0 -> $tag1, counters kept), its upgrade tap1 (log-drops kept, dropping); this loader's upgrade moved both back"
}
cg_case rebuild
