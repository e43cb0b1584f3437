# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# guests.sh - sourced by tests/run.sh: the same suite inside guest kernels.
#
# For each kernel of $CG_GUESTS (names from tests/guest/kernels.list):
# fetch its image and headers into build/kernels, build and install the
# module with DKMS against those headers (tests/guest/dkms.sh: private
# DKMS trees, nothing system-wide), boot the kernel under QEMU with that
# module available to modprobe, run `tests/run.sh --here` inside, and fold
# its PASS/FAIL/SKIP lines into this run's, tagged with the kernel. Then,
# once, the release artifacts (tests/cases/dist.sh).

: "${CG_GUESTS:=deb6.1-vuln deb6.1-fixed deb6.12}"

# guest_prepare NAME: fetch the kernel, build the module; records KVER and
# the module directory for guest_boot. Failures are results.
guest_prepare() {
	local k=$1 moddir

	if ! eval "$("$TOP/tests/guest/fetch.sh" "$k" 2>"$TMPD/fetch-$k.log")" || [ -z "${KVER:-}" ]; then
		fail "[$k] fetch the kernel: $(tail -1 "$TMPD/fetch-$k.log")"
		return 1
	fi
	if ! moddir=$("$TOP/tests/guest/dkms.sh" "$k" 2>"$TMPD/dkms-$k.err"); then
		fail "[$k] dkms build/install for $KVER: $(cat "$TMPD/dkms-$k.err")"
		return 1
	fi
	pass "[$k] dkms add/build/install csum_guard for $KVER"
	echo "$moddir" >"$TMPD/moddir-$k"
}

# guest_boot NAME: the suite inside the guest, its output to a log.
guest_boot() {
	local k=$1 moddir srcv

	moddir=$(cat "$TMPD/moddir-$k")
	srcv=$(modinfo -F srcversion "$moddir"/csum_guard.ko*)
	"$TOP/tests/guest/run.sh" --kernel "$k" --timeout 1800 --modules-dir "$moddir" -- \
		env CG_MODULE_SRCVERSION="$srcv" CG_PFX=cgg "$TOP/tests/run.sh" --here \
		${only_case:+--case "$only_case"} ${only_backend:+--backend "$only_backend"} \
		>"$TMPD/guest-$k.log" 2>&1
	echo $? >"$TMPD/guest-$k.rc"
}

# guest_fold NAME: the guest's results become this run's, tagged.
guest_fold() {
	local k=$1 log=$TMPD/guest-$1.log r rest verdict=

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
		fail "[$k] the guest gave no verdict (exit $(cat "$TMPD/guest-$k.rc"): panic, oops, WARN or timeout); its last lines:"
		tail -15 "$log" | sed 's/^/#   /'
	fi
}

ready=()
for k in $CG_GUESTS; do
	guest_prepare "$k" && ready+=("$k")
done
# TCG runs a guest on one CPU: boot as many at once as there are CPUs.
note "booting ${ready[*]} under QEMU (TCG), $(nproc) at a time"
running=0
for k in "${ready[@]}"; do
	if [ $running -ge "$(nproc)" ]; then
		wait -n
		running=$((running - 1))
	fi
	guest_boot "$k" &
	running=$((running + 1))
done
wait
for k in "${ready[@]}"; do
	guest_fold "$k"
done

# Once, on the host, after the guests: it installs the .deb system-wide and
# boots a guest of its own (see tests/cases/dist.sh).
if [ -z "$only_case" ] || [[ dist_deb == *"$only_case"* ]]; then
	case_dist_deb
fi
if [ -z "$only_case" ] || [[ make_install == *"$only_case"* ]]; then
	case_make_install
fi
