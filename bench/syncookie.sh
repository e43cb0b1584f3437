#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# syncookie.sh - the SYN-cookie responder under a flood, two ways:
#
# 1. Whole system: SYN-ACKs per second, the responder (`csum-guard
#    syncookie`) as attach makes it by default against the stack alone with
#    cookies forced (net.ipv4.tcp_syncookies=2), and against the responder
#    of $SC_BEFORE_REV in its own default; SYNs with timestamps, so all
#    answer with the full set of options, under tcp_timestamps=2 and 1. The
#    responder's default: raw cookies through its nft tables (6.0+, the
#    namespace at tcp_syncookies=1; SYNPROXY decodes the options under 1
#    and 2); where the kernel has no raw cookies, the listener's
#    (tcp_syncookies=2): under 2 only, or under 1 with --no-handoff where
#    the ACK program loads (6.9+). Its mode is auto's choice (status says
#    which, and why).
# 2. The program's own cost per packet, from kernel.bpf_stats_enabled (on
#    for those rounds only, then as it was): run_time_ns / run_cnt of each
#    of the responder's programs under a flood of SYNs (the SYN path) and
#    of ACKs (the ACK path: ACKs tagged as the responder tags its SYN-ACKs,
#    whose forged cookies the check refuses), this tree's responder and
#    the one of $SC_BEFORE_REV, both in native XDP, beside an XDP program
#    that does nothing (the floor: what the stats clock costs).
# 3. The same SYN path's cost without the flood: bench/sc-cost runs this
#    tree's syncookie_xdp, $SC_BEFORE_REV's and xdp-pass through
#    BPF_PROG_TEST_RUN, SYN frame by SYN frame, each frame through all
#    three in a random order (SC_TESTRUN_CALLS frames a round, 20000), as
#    each was attached by its own loader (pinned, then detached; which of
#    the two responders first alternates): the programs' own work,
#    without what the flood's other CPU and cache do to it.
#
#   netns $CLI (the flood)                     netns $SRV (the server)
#   veth0 10.9.0.1/24  ------------------------ veth1 10.9.0.2/24
#   bench/synflood: random sources in           a listener on port 5300,
#   198.18.0.0/15 to 10.9.0.2:5300,              route 198.18.0.0/15 via
#   counts what veth0 receives back             10.9.0.1 (neighbour fixed)
#
# veth0 runs xdp-pass all along (native XDP_TX toward it needs its NAPI);
# veth1 the responder, or xdp-pass for the stack alone, so the
# configurations differ only in who answers. Every configuration of both
# kinds is rotated within each of $RUNS rounds. SC_SECONDS (3) per rate
# run, SC_COST_SECONDS (2) per cost run.
set -u
# the responder to compare with: BEFORE_REV as given (make bench
# BEFORE_REV=...), else the one before the addressing checks and raw
# cookies arrived (dc7fc5e^): the listener's cookies, none of the checks
SC_BEFORE_REV=${SC_BEFORE_REV:-${BEFORE_REV:-0bed14e}}
. "$(dirname "$0")/lib.sh"

SC_SECONDS=${SC_SECONDS:-3}
SC_COST_SECONDS=${SC_COST_SECONDS:-2}
CLI=$PFX-cli
SRV=$PFX-srv
PORT=5300
XDP_PASS_OBJ=$BUILD/tests/xdp-pass.bpf.o
SC_BEFORE_CG=$BB/sc-before/csum-guard
SC_TESTRUN_CALLS=${SC_TESTRUN_CALLS:-20000}
SC_PINS=/sys/fs/bpf/$PFX-sc
LISTENER=
STATS0=$(sysctl -n kernel.bpf_stats_enabled)

cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$STATS0"
	if [ -e "/run/netns/$SRV" ]; then
		"$CG" syncookie detach veth1 --netns "$SRV" --quiet 2>/dev/null
		[ -x "$SC_BEFORE_CG" ] &&
			"$SC_BEFORE_CG" syncookie detach veth1 --netns "$SRV" --quiet 2>/dev/null
	fi
	netns_del "$CLI"
	netns_del "$SRV"
	rm -rf "$TMPD" "$SC_PINS"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for f in "$BB/synflood" "$BB/sc-cost" "$XDP_PASS_OBJ" "$BUILD/tests/cg-stream"; do
	[ -e "$f" ] || die "$f missing: run make all bench-tools"
done

# The loader of $SC_BEFORE_REV (its own Makefile and sources, from this
# checkout's history) into $SC_BEFORE_CG, once per revision; 1 and
# SC_BEFORE_WHY where it cannot (no history: an unpacked release).
SC_BEFORE_WHY=
sc_before_build() {
	local d=$BB/sc-before rev

	if ! rev=$(git -C "$TOP" rev-parse --verify -q "$SC_BEFORE_REV^{commit}"); then
		SC_BEFORE_WHY="revision $SC_BEFORE_REV is not in this tree's git history"
		return 1
	fi
	[ -x "$SC_BEFORE_CG" ] && [ "$(cat "$d/rev" 2>/dev/null)" = "$rev" ] && return 0
	rm -rf "$d" && mkdir -p "$d/src" || return 1
	if ! git -C "$TOP" archive "$rev" | tar -x -C "$d/src" ||
	   ! make -C "$d/src" -s BUILD=build build/csum-guard >"$d/build.log" 2>&1; then
		SC_BEFORE_WHY="cannot build the loader of $SC_BEFORE_REV (see ${d#"$TOP"/}/build.log)"
		return 1
	fi
	cp "$d/src/build/csum-guard" "$SC_BEFORE_CG" && echo "$rev" >"$d/rev" && rm -rf "$d/src"
}

topo_up() {
	ip netns add "$CLI" && ip netns add "$SRV" || return 1
	ip -n "$CLI" link set lo up
	ip -n "$SRV" link set lo up
	ip -n "$CLI" link add veth0 type veth peer name veth1 netns "$SRV" || return 1
	ip -n "$CLI" addr add 10.9.0.1/24 dev veth0
	ip -n "$SRV" addr add 10.9.0.2/24 dev veth1
	ip -n "$CLI" link set veth0 up
	ip -n "$SRV" link set veth1 up
	ip -n "$SRV" route add 198.18.0.0/15 via 10.9.0.1 || return 1
	ip -n "$SRV" neigh replace 10.9.0.1 dev veth1 nud permanent lladdr "$(mac "$CLI" veth0)"
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_timestamps=2 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.veth1.rp_filter=0 net.core.somaxconn=4096
	ip -n "$CLI" link set dev veth0 xdpdrv obj "$XDP_PASS_OBJ" sec xdp || return 1
}

mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p'; }

# The id of the XDP program on veth1, and of the program on the responder's
# pinned ACK link (0: none)
xdp_id() { ip -n "$SRV" -j link show veth1 | jq -r '.[0].xdp.prog.id // 0'; }
ack_id() {
	local p

	p=$SC_PIN_ROOT/$(stat -L -c %i "/run/netns/$SRV")/$(ip -n "$SRV" -j link show veth1 |
		jq -r '.[0].ifindex')/ack_link
	[ -e "$p" ] && bpftool -j link show pinned "$p" | jq -r '.prog_id // 0' || echo 0
}

# responder_on WHICH CONFIG [ARGS]: attach the responder of this tree (new)
# or of $SC_BEFORE_REV (before) to veth1, in its default mode unless ARGS
# say otherwise, under the sysctls CONFIG wants; its status line to stderr
responder_on() {
	local which=$1 conf=$2 cg=$CG cookies=2 dec

	shift 2
	[ "$which" = before ] && cg=$SC_BEFORE_CG
	# raw cookies: tcp_syncookies=1; else the listener's, under 2
	[ "$which" = new ] && [ "$RAW" = true ] && cookies=1
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_timestamps=$([[ $conf == *1 ]] && echo 1 || echo 2) \
		net.ipv4.tcp_syncookies=$cookies
	"$cg" syncookie attach veth1 --netns "$SRV" --ports $PORT --quiet "$@" \
		$([ "$which" = new ] && [ "$RAW" != true ] && [ "$conf" = responder1 ] && echo --no-handoff) ||
		die "cannot attach the $which responder"
	if [ "$which" = new ] && [ "${conf#cost}" = "$conf" ]; then
		dec=$([ "$RAW" = true ] && echo synproxy || { [ "$conf" = responder1 ] && echo program; } || echo kernel)
		[ "$("$cg" syncookie status veth1 --netns "$SRV" --json | jq -r .options.decoder)" = "$dec" ] ||
			die "the options are not decoded by $dec: $("$cg" syncookie status veth1 --netns "$SRV")"
	fi
	"$cg" syncookie status veth1 --netns "$SRV" --json | jq -r .mode >>"$TMPD/mode-$which-$conf"
}

responder_off() {
	local cg=$CG

	[ "$1" = before ] && cg=$SC_BEFORE_CG
	"$cg" syncookie status veth1 --netns "$SRV" --json | jq -r .counters.synack >>"$TMPD/synack-$1"
	"$cg" syncookie detach veth1 --netns "$SRV" --quiet || die "cannot detach the $1 responder"
}

flood() {
	"$BB/synflood" --netns "$CLI" --dev veth0 --dst-mac "$(mac "$SRV" veth1)" \
		--dst 10.9.0.2 --port $PORT "$@" || die "synflood failed"
}

# rate_run ROUND CONFIG: "ROUND CONFIG synack_pps sent_pps" into rate.
# CONFIG: stack, responder, before (tcp_timestamps 2); stack1, responder1 (1)
rate_run() {
	local out

	case $2 in
	stack*) ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=2 \
			net.ipv4.tcp_timestamps=$([ "$2" = stack1 ] && echo 1 || echo 2)
		ip -n "$SRV" link set dev veth1 xdpdrv obj "$XDP_PASS_OBJ" sec xdp ||
			die "cannot attach xdp-pass" ;;
	responder*) responder_on new "$2" ;;
	before) responder_on before "$2" ;;
	esac
	out=$(flood --seconds "$SC_SECONDS" --ts)
	case $2 in
	stack*) ip -n "$SRV" link set dev veth1 xdpdrv off ;;
	responder*) responder_off new ;;
	before) responder_off before ;;
	esac
	echo "$1 $2 $(sed -n 's/.*sent_pps=\([0-9]*\) synack_pps=\([0-9]*\).*/\2 \1/p' <<<"$out")" >>"$TMPD/rate"
	note "syncookie: round $1 $2: $out"
}

# "run_time_ns run_cnt" of program id (0: "0 0")
pstats() {
	if [ "$1" = 0 ]; then echo "0 0"; else prog_stats "$1"; fi
}

# cost_run ROUND CONFIG: "ROUND CONFIG xdp_ns ack_ns" into cost, ns per run
# of each program under the flood (ack_ns 0: no ACK program).
# CONFIG: floor (xdp-pass), syn-new, syn-before, ack-new, ack-before
cost_run() {
	local x a x0 xc0 a0 ac0 x1 xc1 a1 ac1 out what=${2#*-} path=${2%%-*}

	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_timestamps=2
	if [ "$2" = floor ]; then
		ip -n "$SRV" link set dev veth1 xdpdrv obj "$XDP_PASS_OBJ" sec xdp ||
			die "cannot attach xdp-pass"
	else
		responder_on "$what" "cost-$path" --mode xdp
	fi
	x=$(xdp_id)
	a=$([ "$2" = floor ] && echo 0 || ack_id)
	sysctl -qw kernel.bpf_stats_enabled=1
	read -r x0 xc0 <<<"$(pstats "$x")"
	read -r a0 ac0 <<<"$(pstats "$a")"
	out=$(flood --seconds "$SC_COST_SECONDS" $([ "$path" = ack ] && echo --ack || echo --ts))
	read -r x1 xc1 <<<"$(pstats "$x")"
	read -r a1 ac1 <<<"$(pstats "$a")"
	sysctl -qw kernel.bpf_stats_enabled="$STATS0"
	if [ "$2" = floor ]; then
		ip -n "$SRV" link set dev veth1 xdpdrv off
	else
		responder_off "$what"
	fi
	[ $((xc1 - xc0)) -gt 0 ] || die "round $1 $2: the XDP program never ran"
	echo "$1 $2 $(awk -v t=$((x1 - x0)) -v c=$((xc1 - xc0)) -v at=$((a1 - a0)) -v ac=$((ac1 - ac0)) \
		'BEGIN { printf "%.1f %.1f", t / c, ac ? at / ac : 0 }')" >>"$TMPD/cost"
	note "syncookie: round $1 $2: xdp $x $((xc1 - xc0)) runs, ack $a $((ac1 - ac0)) runs: $out"
}

# testrun_pin WHICH: the XDP program of the responder of this tree (new)
# or of $SC_BEFORE_REV (before), as its attach made it (maps filled),
# pinned as $SC_PINS/WHICH, the responder then detached
testrun_pin() {
	local id

	responder_on "$1" cost-syn --mode xdp
	id=$(xdp_id)
	bpftool prog pin id "$id" "$SC_PINS/$1" || die "cannot pin the $1 responder's program"
	responder_off "$1"
}

# testrun ROUND: "ROUND PROG tmean_ns median_ns answered" of bench/sc-cost
# into testrun. Each round attaches the programs afresh: where their maps
# and code land decides which cache lines they share with each other and
# with the kernel, which moves one program's figure by tens of ns from one
# attach to the next; the rounds' median evens that out.
testrun() {
	local args=(--prog floor="$SC_PINS/floor" --prog new="$SC_PINS/new")

	mkdir -p "$SC_PINS" || die "cannot make $SC_PINS"
	bpftool prog load "$XDP_PASS_OBJ" "$SC_PINS/floor" type xdp || die "cannot load xdp-pass"
	# which is loaded first alternates: the last one loaded runs faster
	# by up to 20 ns (sc-cost's programs tried as three copies of one)
	[ -n "$BEFORE" ] && [ $(($1 % 2)) = 0 ] && testrun_pin before
	testrun_pin new
	[ -n "$BEFORE" ] && [ $(($1 % 2)) = 1 ] && testrun_pin before
	[ -n "$BEFORE" ] && args+=(--prog before="$SC_PINS/before")
	# the listener's cookies of $SC_BEFORE_REV want 2; raw ones no sysctl
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=2 net.ipv4.tcp_timestamps=2
	"$BB/sc-cost" --netns "$SRV" --dev veth1 --dst-mac "$(mac "$SRV" veth1)" --dst 10.9.0.2 \
		--port $PORT --calls "$SC_TESTRUN_CALLS" --rounds 1 --cpu 0 "${args[@]}" \
		>"$TMPD/testrun.out" || die "sc-cost failed"
	sed -n 's/^round=1 prog=\([a-z]*\) median_ns=\([0-9]*\) tmean_ns=\([0-9.]*\) .*tx=\([0-9]*\) .*/'"$1"' \1 \3 \2 \4/p' \
		"$TMPD/testrun.out" >>"$TMPD/testrun"
	awk -v calls="$SC_TESTRUN_CALLS" '$2 != "floor" && $5 != calls { bad = 1 } END { exit bad }' \
		"$TMPD/testrun" || die "a responder did not answer every SYN of the test runs"
	rm -rf "$SC_PINS"
}

topo_up || die "cannot build the veth topology"
rm -f "$TMPD/ready"
"$BUILD/tests/cg-stream" --netns "$SRV" --listen 10.9.0.2 --port $PORT --timeout 3600 \
	--ready-file "$TMPD/ready" >/dev/null 2>&1 &
LISTENER=$!
for i in $(seq 100); do [ -e "$TMPD/ready" ] && break; sleep 0.05; done

SC_PIN_ROOT=$(sed -n 's/^#define SC_PIN_ROOT[[:space:]]*"\(.*\)"/\1/p' "$TOP/syncookie/syncookie_abi.h")
RATES="stack responder"
COSTS="floor syn-new ack-new"
probe=$("$CG" syncookie probe --json)
RAW=$(jq -r .raw_cookies <<<"$probe")
command -v nft >/dev/null || RAW=false
[ "$RAW" = true ] || [ "$(jq -r .ack_program <<<"$probe")" = true ] &&
	RATES="$RATES stack1 responder1"
BEFORE=
if sc_before_build; then
	BEFORE=1
	RATES="$RATES before"
	COSTS="$COSTS syn-before ack-before"
else
	note "syncookie: no responder of $SC_BEFORE_REV: $SC_BEFORE_WHY"
fi
# SC_CONFIGS: a subset of the configurations, for a short run
ALLCONF=$(printf '%s\n' $RATES $COSTS | grep -Fx -f <(printf '%s\n' ${SC_CONFIGS:-$RATES $COSTS}))
t0=$(date +%s)
for ((r = 1; r <= RUNS; r++)); do
	testrun "$r"
done
for ((r = 1; r <= RUNS; r++)); do
	for c in $(rotate "$r" $ALLCONF); do
		case $c in
		floor|syn-*|ack-*) cost_run "$r" "$c" ;;
		*) rate_run "$r" "$c" ;;
		esac
	done
done
elapsed=$(($(date +%s) - t0))

if [ "$RAW" = true ]; then
	cookies="raw cookies, nft tables, tcp_syncookies=1"
	cookies1=$cookies
else
	cookies="the listener's cookies, nft tables, tcp_syncookies=2"
	cookies1="the listener's cookies, --no-handoff (the ACK program's timestamps), tcp_syncookies=2"
fi
# the modes auto chose, as status said them: "xdp-generic" or "xdp 9, xdp-generic 0"
modes() { sort "$TMPD/mode-$1-$2" 2>/dev/null | uniq -c | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $2 (NR > 1 || $1 != '"$RUNS"' ? " (" $1 "x)" : "") }'; }
# mmm FILE CONFIG [N]: "median (min–max)" of the Nth value, D decimals
mmm() {
	local m lo hi
	read -r m lo hi <<<"$(col "$1" "$2" "${3:-1}" | stats3)"
	echo "$(fmt "${D:-0}" "$m") | $(fmt "${D:-0}" "$lo")–$(fmt "${D:-0}" "$hi") | $(fmt "${D:-0}" "$(sub "$hi" "$lo")")"
}
# per round, A's Nth value over (or minus) B's: "median | min–max"
perround() {
	local op=$1 m lo hi
	shift
	read -r m lo hi <<<"$(awk -v a="$2" -v b="$3" -v n="${4:-1}" -v op="$op" '
		$2 == a { va[$1] = $(2 + n) }
		$2 == b { vb[$1] = $(2 + n) }
		END { for (r in va) if (r in vb && (op == "-" || vb[r])) printf "%.3f\n", op == "-" ? va[r] - vb[r] : va[r] / vb[r] }' "$1" | stats3)"
	echo "**$(fmt "${D:-2}" "$m")** | $(fmt "${D:-2}" "$lo")–$(fmt "${D:-2}" "$hi")"
}
# ACK path: the sum of both programs per round
awk '$2 ~ /^(ack|syn)-|^floor$/ { print $1, $2, $3 + $4 }' "$TMPD/cost" >"$TMPD/costsum"
RUN="bench/syncookie.sh (what \`make bench ONLY=syncookie\` runs) at $(tree_rev), $(date -u '+%Y-%m-%d %H:%M') UTC, $RUNS rounds"
{
	echo "## The SYN-cookie responder under a flood"
	echo
	echo "Run: $RUN, ${elapsed}s."
	echo
	echo "### The program's own cost per packet (kernel.bpf_stats_enabled)"
	echo
	echo "ns per run (run_time_ns / run_cnt over ${SC_COST_SECONDS}s of flood), native XDP on veth1, tcp_timestamps=2;" \
		"median, min–max and spread (max − min) over the $RUNS rounds; \"floor\" is xdp-pass, a program" \
		"that does nothing, on the same hook: what the stats clock costs."
	echo
	echo "| path | program | ns/run (median) | min–max | spread |"
	echo "|---|---|---:|---:|---:|"
	D=1
	echo "| any | floor (xdp-pass) | $(mmm "$TMPD/cost" floor) |"
	echo "| SYN | this tree ($cookies), syncookie_xdp | $(mmm "$TMPD/cost" syn-new) |"
	[ -n "$BEFORE" ] && echo "| SYN | $SC_BEFORE_REV (the listener's cookies), syncookie_xdp | $(mmm "$TMPD/cost" syn-before) |"
	echo "| ACK | this tree, syncookie_xdp | $(mmm "$TMPD/cost" ack-new) |"
	echo "| ACK | this tree, syncookie_ack | $(mmm "$TMPD/cost" ack-new 2) |"
	echo "| ACK | this tree, both | $(mmm "$TMPD/costsum" ack-new) |"
	[ -n "$BEFORE" ] && echo "| ACK | $SC_BEFORE_REV, syncookie_xdp (it has no ACK program) | $(mmm "$TMPD/cost" ack-before) |"
	echo
	echo "| per round, ns | median | min–max |"
	echo "|---|---:|---:|"
	D=1
	echo "| SYN: this tree − floor | $(perround - "$TMPD/cost" syn-new floor) |"
	if [ -n "$BEFORE" ]; then
		echo "| SYN: $SC_BEFORE_REV − floor | $(perround - "$TMPD/cost" syn-before floor) |"
		echo "| SYN: this tree − $SC_BEFORE_REV | $(perround - "$TMPD/cost" syn-new syn-before) |"
		echo "| ACK: this tree (both programs) − $SC_BEFORE_REV | $(perround - "$TMPD/costsum" ack-new ack-before) |"
	fi
	echo
	echo "### The same, without the flood (BPF_PROG_TEST_RUN)"
	echo
	echo "ns per SYN (the kernel's duration of a test run of one frame: the program and one clock" \
		"read), mean of each round's middle 90 % over $SC_TESTRUN_CALLS SYN frames, each frame" \
		"through every program in a random order, as received on veth1 (random sources in" \
		"198.18.0.0/15, the options Linux sends, to the listener), every program attached afresh" \
		"each round, the two responders in alternating order;" \
		"median, min–max and spread over the $RUNS rounds. Every responder answered every frame."
	echo
	echo "| program | ns/SYN (median) | min–max | spread |"
	echo "|---|---:|---:|---:|"
	D=1
	echo "| floor (xdp-pass) | $(mmm "$TMPD/testrun" floor) |"
	echo "| this tree ($cookies) | $(mmm "$TMPD/testrun" new) |"
	[ -n "$BEFORE" ] && echo "| $SC_BEFORE_REV (the listener's cookies) | $(mmm "$TMPD/testrun" before) |"
	echo
	echo "| per round, ns | median | min–max |"
	echo "|---|---:|---:|"
	echo "| this tree − floor | $(perround - "$TMPD/testrun" new floor) |"
	if [ -n "$BEFORE" ]; then
		echo "| $SC_BEFORE_REV − floor | $(perround - "$TMPD/testrun" before floor) |"
		echo "| this tree − $SC_BEFORE_REV (goal ≤ 0) | $(perround - "$TMPD/testrun" new before) |"
	fi
	echo
	D=2
	echo "### SYN-ACKs per second, the whole system"
	echo
	echo "| configuration | mode (auto's choice) | SYN-ACK/s (median) | min–max | spread | SYNs offered/s (median) |"
	echo "|---|---|---:|---:|---:|---:|"
	for c in $RATES; do
		case $c in
		stack) label="stack alone, tcp_syncookies=2, tcp_timestamps=2"; m="xdp-pass" ;;
		responder) label="responder, tcp_timestamps=2, $cookies"; m=$(modes new "$c") ;;
		stack1) label="stack alone, tcp_syncookies=2, tcp_timestamps=1"; m="xdp-pass" ;;
		responder1) label="responder, tcp_timestamps=1, $cookies1"; m=$(modes new "$c") ;;
		before) label="responder of $SC_BEFORE_REV, tcp_timestamps=2, the listener's cookies, tcp_syncookies=2"
			m=$(modes before "$c") ;;
		esac
		read -r o _ <<<"$(col "$TMPD/rate" "$c" 2 | stats3)"
		echo "| $label | $m | $(D=0 mmm "$TMPD/rate" "$c") | $(fmt 0 "$o") |"
	done
	echo
	echo "| ratio | of medians | per round: median | min–max |"
	echo "|---|---:|---:|---:|"
	ratio_row() {
		local a b
		read -r a _ <<<"$(col "$TMPD/rate" "$2" | stats3)"
		read -r b _ <<<"$(col "$TMPD/rate" "$3" | stats3)"
		echo "| $1 | **$(ratio "$a" "$b")** | $(perround / "$TMPD/rate" "$2" "$3") |"
	}
	ratio_row "responder / stack, tcp_timestamps=2 (goal ≥ 1.5)" responder stack
	[[ " $RATES " == *" responder1 "* ]] && ratio_row "responder / stack, tcp_timestamps=1" responder1 stack1
	[ -n "$BEFORE" ] && ratio_row "$SC_BEFORE_REV's responder / stack, tcp_timestamps=2" before stack
	echo
	echo "The responders' own synack counters over their rate runs: this tree's" \
		"$(cat "$TMPD"/synack-new 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')$([ -n "$BEFORE" ] && echo ", $SC_BEFORE_REV's $(cat "$TMPD"/synack-before 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')")."
	echo
	echo "Method: \`bench/synflood\` in one netns writes SYN frames (random sources in" \
		"198.18.0.0/15, random ports; options as Linux sends them: MSS, SACK-permitted," \
		"timestamp, window scale) through packet sockets, one thread per" \
		"CPU, into a veth whose peer, in the server's netns, has a" \
		"listener on port $PORT, tcp_timestamps and tcp_syncookies as each row says" \
		"(so all answer with timestamp, SACK-permitted and window scale:" \
		"40-byte TCP headers); the SYN-ACKs that come back are" \
		"counted by veth0's receive counter (the flood is its only traffic). veth0" \
		"runs xdp-pass; veth1 the responder, attached with" \
		"\`csum-guard syncookie attach veth1 --ports $PORT\` (the mode auto's, as the" \
		"table says; \`--mode xdp\` for the cost rounds), or xdp-pass. The ACK flood" \
		"(\`synflood --ack\`) sends ACKs whose timestamp echo carries the responder's tag" \
		"for their acknowledgement number, so the ACK program takes each as far as the" \
		"cookie check, which refuses the forged cookie. The flood and" \
		"both stacks share this machine's CPUs (a veth runs its peer's receive on the" \
		"sending CPU), so the rates are what the whole box answers, and move with whatever" \
		"else runs on it; the per-packet costs do not count what the flood costs." \
		"Every configuration of both tables is rotated within each round."
	echo
	machine_line
	echo
	echo "<details><summary>Per-run data (round configuration synack/s offered/s; round configuration xdp-ns/run ack-ns/run)</summary>"
	echo
	echo '```'
	cat "$TMPD/rate"
	cat "$TMPD/cost"
	echo "# test runs: round program tmean-ns median-ns answered"
	cat "$TMPD/testrun"
	echo '```'
	echo "</details>"
} | write_result syncookie
