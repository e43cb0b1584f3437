# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 56-check-modules.sh - check leaves the kernel's modules as it found them:
# what its paths loaded (tun, veth, iptables' targets, the queue) and
# nothing uses afterwards is unloaded, and it says which.

# modules_unused: the loaded modules nothing uses, one a line, sorted
modules_unused() { awk '$3 == 0 { print $1 }' /proc/modules | sort; }

case_check_modules() {
	local t="check-modules" before after new json m

	if [ ! -r /proc/modules ]; then
		skip "$t: this kernel loads no modules (no /proc/modules)"
		return
	fi
	before=$(awk '{ print $1 }' /proc/modules | sort)
	json=$("$CG" check --path tx,xtcsum,nfqueue,xtcsum6,nfqueue6 --json 2>"$TMPD/cm.err")
	jq -e '.unloaded | type == "array"' >/dev/null <<<"$json" ||
		{ fail "$t: no unloaded list: ${json:0:200}"; return; }
	after=$(awk '{ print $1 }' /proc/modules | sort)
	new=$(comm -13 <(echo "$before") <(echo "$after"))
	# what check loaded and left is in use by something else, or a failure
	for m in $new; do
		grep -qx "$m" <(modules_unused) && unexpected "$m(loaded, unused, left)"
	done
	for m in $(jq -r '.unloaded[]' <<<"$json"); do
		grep -qx "$m" <<<"$after" && unexpected "$m(said unloaded, still there)"
		grep -qx "$m" <<<"$before" && unexpected "$m(was there before, unloaded)"
	done
	expect_verdict "$t" "unloaded what it loaded ($(jq -r '.unloaded | join(" ")' <<<"$json")), nothing it found, nothing unused left"
}
cg_kernel_case check_modules
