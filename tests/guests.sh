# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# guests.sh - sourced by tests/run.sh: the same suite inside guest kernels.
#
# For each kernel of $CG_GUESTS (names from tests/guest/kernels.list):
# fetch its image and headers into build/kernels, build and install the
# module with DKMS against those headers (tests/guest/dkms.sh: private
# DKMS trees, nothing system-wide), boot the kernel under QEMU with that
# module available to modprobe, run `tests/run.sh --here` inside, and fold
# its PASS/FAIL/SKIP lines into this run's, tagged with the kernel. Then,
# once, the release artifacts (tests/cases/90-dist.sh).
#
# An entry NAME runs every backend the kernel has in one boot; NAME:BACKEND
# boots it for that backend only. TCG runs a guest on one CPU, so a kernel
# with two backends split in two boots takes half the time on two CPUs.
# make test boots 6.12 for the bpf backend and the vulnerable 6.1 for the
# module: each backend on a guest kernel, the VLAN rows for both, within
# CI's time. The SYN-cookie cases, which are no backend's, run in the bpf
# boot (6.1's verifier takes about 20 s a load under TCG); make test-matrix
# boots every kernel with every backend, and runs them in each.
#
# guests_start puts all of it in the background, so that the host's own
# cases run meanwhile; guests_finish waits and folds the results in.

: "${CG_GUESTS:=deb6.12:bpf deb6.1-vuln:kmod}"

# guest_prepare NAME: fetch the kernel, build the module; records the module
# directory for guest_boot. It runs in the background: its results go to
# $TMPD/prepare.log as PASS/FAIL lines, folded in by guests_finish.
guest_prepare() {
	local k=$1 moddir KVER= HEADERS=

	if ! eval "$("$TOP/tests/guest/fetch.sh" "$k" 2>"$TMPD/fetch-$k.log")" || [ -z "${KVER:-}" ]; then
		echo "FAIL [$k] fetch the kernel: $(tail -1 "$TMPD/fetch-$k.log")"
		return 1
	fi
	if ! moddir=$("$TOP/tests/guest/dkms.sh" "$k" 2>"$TMPD/dkms-$k.err"); then
		echo "FAIL [$k] dkms build/install for $KVER: $(tr '\n' ' ' <"$TMPD/dkms-$k.err")"
		return 1
	fi
	echo "PASS [$k] dkms add/build/install csum_guard for $KVER"
	echo "$moddir" >"$TMPD/moddir-$k"
	# the module that holds skb_checksum_help() with IPMODIFY (completion_held),
	# built as the module is (7.x headers: in their release's root);
	# an arm64 kernel's kbuild tools are arm64 programs: none there, and the
	# case says SKIP
	case $k in *-arm64) return 0 ;; esac
	rm -rf "$BLD/hold/$k" && mkdir -p "$BLD/hold/$k" &&
		cp "$TOP"/tests/tools/cg-hold/cg_hold.c "$TOP"/tests/tools/cg-hold/Kbuild "$BLD/hold/$k/" &&
		"$TOP/tests/guest/dkms.sh" --kbuild "$k" "$BLD/hold/$k" >"$TMPD/hold-$k.log" 2>&1 ||
		echo "FAIL [$k] build tests/tools/cg-hold for $KVER: $(grep -m1 -i error "$TMPD/hold-$k.log")"
}

# guest_boot ENTRY: the suite inside the guest, its output to a log.
guest_boot() {
	local e=$1 k=${1%%:*} b= moddir srcv t0=$SECONDS bld t

	[ "$e" != "$k" ] && b=${e#*:}
	moddir=$(cat "$TMPD/moddir-$k")
	srcv=$(modinfo -F srcversion "$moddir"/csum_guard.ko*)
	# the full depth of make test-matrix takes longer than make test's quick
	# one; the quick 6.12 bpf boot took 1718 s of TCG in a5310d7's CI and
	# 1865 s in c632c2c's, and ran past 2400 s in 0b130d3's on a machine
	# busy with other runs: 3000 s leaves it room on a slower machine
	# an arm64 kernel (name ending in -arm64, kernels.list) runs the tree
	# cross-built for it (make all-arm64), in an arm64 root, under TCG
	# that emulates another architecture: give it twice the time
	case $k in
	*-arm64) bld=$TOP/build/arm64 t=2 ;;
	*) bld=$TOP/build t=1 ;;
	esac
	"$TOP/tests/guest/run.sh" --kernel "$k" --timeout $(($([ "$CG_DEPTH" = full ] && echo 5400 || echo 3000) * t)) \
		--modules-dir "$moddir" -- \
		env CG_MODULE_SRCVERSION="$srcv" CG_PFX=cgg CG_DEPTH="$CG_DEPTH" CG_BUILD_DIR="$bld" \
		"$TOP/tests/run.sh" --here \
		${only_case:+--case "$only_case"} ${b:+--backend "$b"} \
		${only_backend:+--backend "$only_backend"} >"$TMPD/guest-$e.log" 2>&1
	echo $? $((SECONDS - t0)) >"$TMPD/guest-$e.rc"
}

# guest_fold ENTRY: the guest's results become this run's, tagged with
# the kernel's name (the two boots of a split kernel are one kernel).
guest_fold() {
	local e=$1 k=${1%%:*} log=$TMPD/guest-$1.log r rest verdict= rc secs

	read -r rc secs <"$TMPD/guest-$e.rc"
	note "[$k] boot of $e: ${secs} s"
	while read -r r rest; do
		case $r in
		PASS) pass "[$k] $rest" ;;
		FAIL) fail "[$k] $rest" ;;
		SKIP) skip "[$k] $rest" ;;
		'#')
			note "[$k] $rest"
			[[ "$rest" == reliability:* ]] && echo "REL [$k] ${rest#reliability: }" >>"$RESULTS"
			;;
		*) [[ "$r $rest" =~ ^[0-9]+\ passed ]] && verdict="$r $rest" ;;
		esac
	done <"$log"
	if [ -z "$verdict" ]; then
		fail "[$k] the guest ($e) gave no verdict (exit $rc: panic, oops, WARN or timeout); its last lines:"
		tail -15 "$log" | sed 's/^/#   /'
	fi
}

# An entry's boot, or a wrong entry: a result, not a silent skip.
guest_entry_ok() {
	local k=${1%%:*}

	if [ "$1" != "$k" ] && [ "${1#*:}" != bpf ] && [ "${1#*:}" != kmod ]; then
		echo "FAIL [$k] CG_GUESTS entry $1: the backend after ':' is bpf or kmod"
		return 1
	fi
	[ -n "$only_backend" ] && [ "$1" != "$k" ] && [ "${1#*:}" != "$only_backend" ] && return 1
	return 0
}

# All of it, in the background: prepare each kernel (one at a time: DKMS
# builds take both CPUs), then boot the entries, as many at once as there
# are CPUs. The entries that boot are listed in $TMPD/guests.ready.
guests_run() {
	local e k entries=() running=0

	for e in $CG_GUESTS; do
		guest_entry_ok "$e" || continue
		k=${e%%:*}
		if [ ! -f "$TMPD/moddir-$k" ] && [ ! -f "$TMPD/failed-$k" ]; then
			guest_prepare "$k" || touch "$TMPD/failed-$k"
		fi
		[ -f "$TMPD/moddir-$k" ] && entries+=("$e")
	done >>"$TMPD/prepare.log"
	# the split kernels first: they take longest, the rest fills in
	printf '%s\n' "${entries[@]}" | grep : >"$TMPD/guests.ready"
	printf '%s\n' "${entries[@]}" | grep -v : | grep . >>"$TMPD/guests.ready"
	while read -r e; do
		if [ $running -ge "$(nproc)" ]; then
			wait -n
			running=$((running - 1))
		fi
		guest_boot "$e" &
		running=$((running + 1))
	done <"$TMPD/guests.ready"
	wait
}

guests_start() {
	: >"$TMPD/prepare.log"
	note "guests ${CG_GUESTS} start in the background under QEMU (TCG), $(nproc) at a time"
	guests_run </dev/null >"$TMPD/guests.out" 2>&1 &
	GUESTS_PID=$!
}

# The artifacts' checks first (they run on the host), then the guests.
guests_finish() {
	local r rest e c

	# The host cases (cg_host_case), once, on the host: dist_deb installs
	# the .deb system-wide and boots a guest of its own (see
	# tests/cases/90-dist.sh).
	for c in "${CG_HOST_CASES[@]}"; do
		cg_after_guests "$c" && continue
		cg_selected "$c" && cg_run "$c" host
	done
	note "waiting for the guests"
	wait "$GUESTS_PID"
	[ -s "$TMPD/guests.out" ] && sed 's/^/# guests: /' "$TMPD/guests.out"
	while read -r r rest; do
		case $r in
		PASS) pass "$rest" ;;
		FAIL) fail "$rest" ;;
		esac
	done <"$TMPD/prepare.log"
	while read -r e; do
		guest_fold "$e"
	done <"$TMPD/guests.ready"
	for c in "${CG_HOST_CASES[@]}"; do
		cg_after_guests "$c" || continue
		cg_selected "$c" && cg_run "$c" host
	done
}
