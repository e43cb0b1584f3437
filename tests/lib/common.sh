# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# common.sh - what every test file shares: results, topology, injection.
#
# The reproduction topology (one pair of namespaces per test):
#
#   netns $VM                                       netns $FAR
#   +--------------------------------+              +---------------------+
#   | tap0  10.0.0.1/24  (vnet_hdr)  |              |                     |
#   |   cg-inject writes as the      |              |                     |
#   |   guest 10.0.0.2               |  veth pair   |                     |
#   | ip_forward=1    veth0 ---------+--------------+--- veth1            |
#   |                 10.1.0.1/24    |  MTU 576     |    10.1.0.2/24      |
#   |                                |              |    cg-sniff         |
#   +--------------------------------+              +---------------------+
#
# A frame the guest writes to tap0 is forwarded out of veth0. With MTU 576
# IP fragmentation completes its checksum; with TX checksum offload off on
# veth0 the transmit path does. Either writes the folded sum at csum_start.

# The built objects: build/, or CG_BUILD_DIR (an arm64 guest runs the
# cross-built tree, build/arm64: tests/guest/README.md).
BLD=${CG_BUILD_DIR:-$TOP/build}
CG=${CG:-$BLD/csum-guard}
INJECT=$BLD/tests/cg-inject
SNIFF=$BLD/tests/cg-sniff
NFQ=$BLD/tests/cg-nfq
STREAM=$BLD/tests/cg-stream
HOOKS=$BLD/tests/cg-hooks
SYN=$BLD/tests/sc-syn
KDUMP=$BLD/tests/cg-kdump
SDRECV=$BLD/tests/cg-sdrecv
GUEST_IP=10.0.0.2
FAR_IP=10.1.0.2
GUEST_IP6=fd00::2
GUEST_IP_VLAN=10.0.100.2	# behind tap0.100 (802.1Q)
GUEST_IP_QINQ=10.0.30.2		# behind tap0.200.300 (802.1ad 200, 802.1Q 300)
FAR_IP6=fd01::2
SNIFF_DST=$FAR_IP	# what the capture reports; a case may make it local

# One prefix per run, so that nothing here meets what others created.
CG_PFX=${CG_PFX:-cgt$$}
VM=$CG_PFX-vm
FAR=$CG_PFX-far
SC_C=$CG_PFX-sc		# the SYN-cookie cases' client and server (tests/lib/syncookie.sh)
SC_S=$CG_PFX-ss
SC_V=$CG_PFX-sv		# a guest behind the SYN-cookie server, which forwards to it
TMPD=${TMPD:-$(mktemp -d /tmp/cg-test.XXXXXX)}

# How deep the costly lifecycle cases go (tests/cases/70-faults.sh): quick
# (make test) kills the loader at the points where it changes state, within
# a budget; full (make test-matrix) at every point on the host, and in
# guests with a larger budget. Every other case is the same in both.
CG_DEPTH=${CG_DEPTH:-quick}
case $CG_DEPTH in
quick|full) ;;
*) echo "tests: CG_DEPTH is quick or full, not '$CG_DEPTH'" >&2; exit 2 ;;
esac

# How long a capture waits for the next packet. Guests run under TCG, where
# starting a process takes a good part of a second.
if [ -n "${CG_GUEST:-}" ]; then
	SNIFF_IDLE=${SNIFF_IDLE:-4000}
else
	SNIFF_IDLE=${SNIFF_IDLE:-500}
fi

# Every result of the run is a line of $RESULTS, whichever shell wrote it:
# the runner (the unit binary's lines, the guests' folded in), or a case
# (each runs in a subshell of its own). The counts are read back from
# there, never kept in a variable. A result's line breaks are spaces
# there, so that one result is one line.
RESULTS=$TMPD/results
: >"$RESULTS"
result() {
	local r="$1 $2"
	echo "$r"
	echo "${r//$'\n'/ }" >>"$RESULTS"
}
pass() { result PASS "$*"; }
fail() { result FAIL "$*"; }
skip() { result SKIP "$*"; }

# results_tally: n_pass, n_fail and n_skip, the results so far.
results_tally() {
	local r rest

	n_pass=0 n_fail=0 n_skip=0
	while read -r r rest; do
		case $r in
		PASS) n_pass=$((n_pass + 1)) ;;
		FAIL) n_fail=$((n_fail + 1)) ;;
		SKIP) n_skip=$((n_skip + 1)) ;;
		esac
	done <"$RESULTS"
}

# failures_recap: the FAIL lines again, where the tail of a long log shows
# them (a CI that keeps the last lines), each cut to one screen line and
# behind "# ", so that nothing that counts results (the host reading a
# guest's lines) counts them twice.
failures_recap() {
	[ "$n_fail" = 0 ] && return
	echo "# the failures again:"
	grep '^FAIL ' "$RESULTS" | cut -c1-400 | sed 's/^/# /'
}

# One row per kernel from this run's results (guest results carry
# "[kernel]" first): what the kernel does with the bad frame on each path
# without the guard, which backends passed every case, the counts.
kernel_table() {
	local tags t rows r frag tx xtcsum nfqueue backends b np nf

	tags=$(awk '{ print ($2 ~ /^\[.*\]$/) ? $2 : "host" }' "$RESULTS" | awk '!seen[$0]++')
	printf '\n| kernel | IP fragmentation | transmit without offload | xt_CHECKSUM | nfqueue |'
	printf ' backends proven | passed | failed |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	for t in $tags; do
		if [ "$t" = host ]; then
			rows=$(grep -v '^[A-Z]* \[' "$RESULTS")
			r="host $(uname -r)"
		else
			rows=$(grep -F "$t" "$RESULTS")
			r=${t//[][]/}
		fi
		frag=$(path_verdict frag <<<"$rows")
		tx=$(path_verdict tx <<<"$rows")
		xtcsum=$(path_verdict xtcsum <<<"$rows")
		nfqueue=$(path_verdict nfqueue <<<"$rows")
		backends=
		for b in bpf kmod; do
			grep -q "^PASS.* \[$b\]" <<<"$rows" && ! grep -q "^FAIL.* \[$b\]" <<<"$rows" &&
				backends="$backends${backends:+, }$b"
		done
		np=$(grep -c '^PASS' <<<"$rows")
		nf=$(grep -c '^FAIL' <<<"$rows")
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$r" "$frag" "$tx" "$xtcsum" \
			"$nfqueue" "${backends:--}" "$np" "$nf"
	done
	echo
}

# The layers against the topologies, from this run's results: for each
# topology (the tap itself by its transmit-path row, then 12-topology.sh's,
# then 57-containers.sh's tx row and podman's)
# and each layer, the kernels whose case proved the bad frames stopped
# there, those where it failed, and why a layer is not one (n/a) or could
# not be tried (not run). The README's table is this table of a run.
topology_table() {
	printf '\n| topology | bpf guard on the device | kmod guard on the device | completion guard alone |\n'
	printf '|---|---|---|---|\n'
	awk -v host="host" '
	function add(k, v, tag) {
		if (!(k in cell)) cell[k] = ""
		if (index(cell[k], v " " tag ";")) return
		cell[k] = cell[k] v " " tag ";"
	}
	{
		tag = ($2 ~ /^\[.*\]$/) ? $2 : "[" host "]"
		gsub(/[][]/, "", tag)
		line = $0
		v = $1
		if (match(line, /(repro|topo|containers)\/[a-z0-9]+ \[(bpf|kmod)\]/)) {
			split(substr(line, RSTART, RLENGTH), w, /[\/ \[\]]+/)
			src = w[1]; topo = w[2]; be = w[3]
			rest = substr(line, RSTART + RLENGTH)
			if (src == "repro" && topo != "tx") next
			if (src == "repro") topo = "tap"
			# 57-containers.sh: its tx path, and the podman container
			if (src == "containers" && topo != "tx" && topo != "podman") next
			if (src == "containers" && topo == "tx") topo = "container"
			if (rest ~ /^ bad\/on:/)
				add(topo SUBSEP be, v, tag)
			else if (rest ~ /^ completion: no device guarded/ || rest ~ /^ completion: arrived=/)
				add(topo SUBSEP "comp", v, tag)
			else if (v == "SKIP" && rest ~ /^ bad\/on:/)
				add(topo SUBSEP be, v, tag)
			else if (v == "SKIP" && rest ~ /^: this kernel cannot make it/)
				add(topo SUBSEP be, "NODEV", tag)
			if (!(topo in seen)) { seen[topo] = 1; order[++n] = topo }
		} else if (match(line, /^[A-Z]+ (\[[^]]*\] )?completion \[kmod\]:/)) {
			add("tap" SUBSEP "comp", v, tag)
		}
	}
	function show(k,    parts, i, m, out, p, ok, bad, na, nd) {
		if (!(k in cell)) return "not run"
		m = split(cell[k], parts, ";")
		ok = bad = na = nd = ""
		for (i = 1; i < m; i++) {
			split(parts[i], p, " ")
			if (p[1] == "PASS") ok = ok (ok ? ", " : "") p[2]
			else if (p[1] == "FAIL") bad = bad (bad ? ", " : "") p[2]
			else if (p[1] == "SKIP") na = na (na ? ", " : "") p[2]
			else nd = nd (nd ? ", " : "") p[2]
		}
		out = ""
		if (ok) out = "stopped (" ok ")"
		if (bad) out = out (out ? "; " : "") "**FAILED** (" bad ")"
		if (na) out = out (out ? "; " : "") "n/a (" na ")"
		if (nd) out = out (out ? "; " : "") "no such device (" nd ")"
		return out
	}
	END {
		for (i = 1; i <= n; i++) {
			t = order[i]
			printf "| %s | %s | %s | %s |\n", t, show(t SUBSEP "bpf"), show(t SUBSEP "kmod"),
				show(t SUBSEP "comp")
		}
	}' "$RESULTS"
	echo
}

path_verdict() {
	local rows
	rows=$(grep "repro/$1 .*bad/off")
	if grep -q 'kernel vulnerable' <<<"$rows"; then
		echo vulnerable
	elif grep -q 'kernel already fixed' <<<"$rows"; then
		echo fixed
	else
		echo -
	fi
}
note() { echo "# $*"; }

# host_results T K D LOG RC: what a booted host (tests/guest/boot.sh
# --share D, exit RC, its output in LOG) wrote to D/results, each PASS,
# FAIL and note as the case's own; a host that did not write its last
# line ("# [...] end") fails with its console's last lines. Its disk goes.
host_results() {
	local t=$1 k=$2 d=$3 log=$4 rc=$5 n=0 r rest

	if [ -f "$d/results" ]; then
		while read -r r rest; do
			case $r in
			PASS) pass "$t $rest"; n=$((n + 1)) ;;
			FAIL) fail "$t $rest"; n=$((n + 1)) ;;
			'#') note "$t $rest" ;;
			esac
		done <"$d/results"
	fi
	if [ "$rc" != 0 ] || ! tail -1 "$d/results" 2>/dev/null | grep -q '^# \[.*\] end$'; then
		fail "$t $k: the host did not finish (boot.sh exit $rc, $n results); its console's last lines:"
		{ tail -5 "$log"; tail -25 "$d/console.log"; tail -15 "$d/log" 2>/dev/null; } |
			sed 's/^/#   /'
	fi
	# the disk of a host that is done with
	rm -f "$d/disk.img"
}

# reliability WHAT: a figure for the README's Reliability section. Printed
# as a note ("# reliability: ..."), kept in the results so that the end of a
# full run can list them per kernel; guests' lines come back as notes
# "[kernel] reliability: ..." and are kept the same way.
reliability() {
	echo "# reliability: $*"
	echo "REL host $*" >>"$RESULTS"
}

reliability_table() {
	grep -q '^REL ' "$RESULTS" 2>/dev/null || return 0
	printf '\nreliability figures (kernel: figure)\n'
	awk '/^REL / { k = $2; $1 = $2 = ""; sub(/^  /, ""); printf "- %s: %s\n", k == "host" ? "host" : k, $0 }' "$RESULTS"
	echo
}

# The reproduction's table (make demo, and the end of a run): one row per
# frame and guard state that case_repro sent, "path frame guard arrived
# source counters result", a line each in $REPRO_ROWS, with "backend NAME"
# markers (tests/run.sh) between them: they become headings when more than
# one backend ran.
REPRO_ROWS=$TMPD/repro-rows
: >"$REPRO_ROWS"
repro_row() { echo "$*" >>"$REPRO_ROWS"; }

# Are there rows to print (not only markers)?
repro_rows() { grep -qv '^backend ' "$REPRO_ROWS"; }

print_table() {
	local r heads
	heads=$(grep -c '^backend ' "$REPRO_ROWS")
	printf '\n%-8s %-5s %-6s %-8s %-16s %-9s %s\n' path frame guard arrived source counters result
	while read -r r; do
		set -- $r
		if [ "$1" = backend ]; then
			[ "$heads" -gt 1 ] && echo "-- $2"
			continue
		fi
		# distinct corrupted sources (they depend on the IP ID): first, +more
		local more=$(($(tr ',' '\n' <<<"$5" | wc -l) - 1))
		[ $more -gt 0 ] && set -- "$1" "$2" "$3" "$4" "${5%%,*}(+$more)" "$6" "$7"
		printf '%-8s %-5s %-6s %-8s %-16s %-9s %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7"
	done <"$REPRO_ROWS"
	echo
}

# --- topology ---------------------------------------------------------

# netns_new NS...: namespaces of their own, each with its loopback up.
netns_new() {
	local ns

	for ns; do
		ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
	done
}

# veth_pair NS_A DEV_A NS_B DEV_B [--mtu N] [ADDR_A ADDR_B]...: a veth pair
# joining two namespaces that exist, DEV_A in NS_A and DEV_B in NS_B, each
# pair of addresses given on its two ends (an IPv6 one without DAD), both
# ends up. The one link of every two-namespace topology of the suite
# (topo_up, vol_up in tests/cases/35-traffic.sh, sc_up and syn_forward's
# guest in tests/lib/syncookie.sh and tests/cases/80-sc-answer.sh).
veth_pair() {
	local na=$1 da=$2 nb=$3 db=$4 mtu=()

	shift 4
	if [ "${1:-}" = --mtu ]; then
		mtu=(mtu "$2")
		shift 2
	fi
	ip -n "$na" link add "$da" "${mtu[@]}" type veth peer name "$db" "${mtu[@]}" netns "$nb" || return 1
	while [ $# -ge 2 ]; do
		ip -n "$na" addr add "$1" dev "$da" $([[ $1 == *:* ]] && echo nodad) &&
			ip -n "$nb" addr add "$2" dev "$db" $([[ $2 == *:* ]] && echo nodad) || return 1
		shift 2
	done
	ip -n "$na" link set "$da" up && ip -n "$nb" link set "$db" up
}

# topo_up [--tx-csum-off] [--mtu N] [--ipv6] [--vlan] [--qinq]
# Returns 3 when the kernel cannot make VLAN devices (why: $TMPD/vlan.err).
#   --vlan: the guest also lives on tap0.100 (802.1Q), 10.0.100.0/24
#   --qinq: and on tap0.200.300 (802.1ad 200, then 802.1Q 300), 10.0.30.0/24
topo_up() {
	local mtu=576 txoff=0 v6=0 vlan=0 qinq=0

	while [ $# -gt 0 ]; do
		case $1 in
		--tx-csum-off) txoff=1 ;;
		--mtu) mtu=$2; shift ;;
		--ipv6) v6=1 ;;
		--vlan) vlan=1 ;;
		--qinq) qinq=1 ;;
		esac
		shift
	done
	topo_down
	# without udev nobody made /dev/net/tun: loading tun does
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	netns_new "$VM" "$FAR" || return 1
	ip -n "$VM" tuntap add dev tap0 mode tap vnet_hdr || return 1
	ip -n "$VM" addr add 10.0.0.1/24 dev tap0
	ip -n "$VM" link set tap0 up
	veth_pair "$VM" veth0 "$FAR" veth1 --mtu "$mtu" 10.1.0.1/24 $FAR_IP/24 || return 1
	ip netns exec "$VM" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.tap0.rp_filter=0
	ip -n "$VM" neigh replace $FAR_IP dev veth0 nud permanent \
		lladdr "$(ip -n "$FAR" -o link show veth1 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')"
	if [ $v6 = 1 ]; then
		ip netns exec "$VM" sysctl -qw net.ipv6.conf.all.forwarding=1
		ip -n "$VM" addr add fd00::1/64 dev tap0 nodad
		ip -n "$VM" addr add fd01::1/64 dev veth0 nodad
		ip -n "$FAR" addr add $FAR_IP6/64 dev veth1 nodad
		ip -n "$VM" -6 neigh replace $FAR_IP6 dev veth0 nud permanent \
			lladdr "$(ip -n "$FAR" -o link show veth1 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')"
	fi
	if [ $vlan = 1 ]; then
		ip -n "$VM" link add link tap0 name tap0.100 type vlan id 100 2>"$TMPD/vlan.err" || return 3
		ip -n "$VM" addr add 10.0.100.1/24 dev tap0.100
		ip -n "$VM" link set tap0.100 up
	fi
	if [ $qinq = 1 ]; then
		ip -n "$VM" link add link tap0 name tap0.200 type vlan proto 802.1ad id 200 \
			2>"$TMPD/vlan.err" || return 3
		ip -n "$VM" link add link tap0.200 name tap0.200.300 type vlan id 300 || return 1
		ip -n "$VM" addr add 10.0.30.1/24 dev tap0.200.300
		ip -n "$VM" link set tap0.200 up
		ip -n "$VM" link set tap0.200.300 up
	fi
	if [ $txoff = 1 ]; then
		ip netns exec "$VM" ethtool -K veth0 tx off >/dev/null 2>&1 || return 1
	fi
}

topo_down() {
	ip netns del "$VM" 2>/dev/null
	ip netns del "$FAR" 2>/dev/null
	true
}

sc_down() {
	ip netns del "$SC_C" 2>/dev/null
	ip netns del "$SC_S" 2>/dev/null
	ip netns del "$SC_V" 2>/dev/null
	true
}

# link_mac NS DEV: DEV's MAC address
link_mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p'; }

# --- traffic ----------------------------------------------------------

# inject_sniff OUT [cg-inject args...]: capture on veth1 while the guest
# writes to $INJECT_DEV (tap0); OUT gets the sniffer's lines, $inject_rc
# the injector's status.
inject_sniff() {
	local out=$1 ready=$TMPD/ready.$$ pid i
	shift
	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst "$SNIFF_DST" --timeout $SNIFF_IDLE \
		--max-time $((SNIFF_IDLE * 20)) --ready-file "$ready" >"$out" 2>&1 &
	pid=$!
	wait_ready "$ready"
	ip netns exec "$VM" "$INJECT" --dev "${INJECT_DEV:-tap0}" "$@" 2>"$out.inject"
	inject_rc=$?
	wait $pid
	rm -f "$ready"
}

# wait_ready FILE: until the sniffer says it listens (10 s at most).
wait_ready() {
	local i
	for i in $(seq 1000); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	return 1
}

# Fields of the sniffer's summary line.
sniff_datagrams() { sed -n 's/^summary .*datagrams=\([0-9]*\).*/\1/p' "$1"; }
sniff_sources() { sed -n 's/^summary .*sources=\([^ ]*\).*/\1/p' "$1"; }

# --- what the suite may leave ------------------------------------------
# Counted or listed before and after: by the runner's leak check, and by
# the cases that must leave nothing.

# The csum_guard and syncookie programs the kernel holds.
prog_count() { bpftool prog show 2>/dev/null | grep -c 'name csum_guard'; }
sc_progs() { bpftool prog show 2>/dev/null | grep -c 'name syncookie_'; }

# The pins of both guards. Guards the host had before the suite (an
# operator's) are not leaks: the runner compares with the start.
# The guarded devices status lists (it lists the unguarded guest-facing ones
# too): status ARGS --json, filtered.
guarded_json() { "$CG" status "$@" --json | jq -c 'map(select(.attached))'; }

pin_list() { find /sys/fs/bpf/csum_guard /sys/fs/bpf/csum_guard_syncookie 2>/dev/null | sort; }

# What is installed that csum-guard could have made: a snapshot to compare.
state_snapshot() {
	{
		ls -R /sys/fs/bpf/csum_guard 2>/dev/null
		bpftool prog show 2>/dev/null | grep -c 'name csum_guard'
		[ -d /sys/module/csum_guard ] && "$CG" status --netns "$VM" --json 2>/dev/null
		tc qdisc show dev tap0 2>/dev/null
		ip netns exec "$VM" tc qdisc show dev tap0 2>/dev/null
	} | md5sum
}

# --- the guard --------------------------------------------------------

# --- what the kernel runs (bpf) ----------------------------------------
# Assertions about a running guard read these, never the loader's pins or
# metadata: a loader that only says it did something must fail.

# kernel_hooks NS DEV: the csum_guard programs on DEV's hooks, one
# "HOOK ID TAG" a line (HOOK: tcx_ingress, tcx_egress, clsact_ingress,
# clsact_egress): tcx from the kernel itself (cg-hooks), clsact from tc.
kernel_hooks() {
	local d

	ip netns exec "$1" "$HOOKS" "$2" | awk '$4 == "csum_guard" { print $1, $2, $3 }'
	for d in ingress egress; do
		ip netns exec "$1" tc filter show dev "$2" $d |
			sed -n "s/.* id \([0-9]*\) name csum_guard tag \([0-9a-f]*\).*/clsact_$d \1 \2/p"
	done
}

# kernel_guard NS DEV: kernel_hooks, each line with the log_drops its
# program runs with
kernel_guard() {
	local h id tag

	kernel_hooks "$1" "$2" | while read -r h id tag; do
		echo "$h $id $tag $(prog_log_drops "$id")"
	done
}

# guard_map_id NS DEV NAME: the id of map NAME of the program that runs on
# DEV's ingress, as the kernel holds it
guard_map_id() {
	local m id

	id=$(kernel_hooks "$1" "$2" | awk '$1 ~ /_ingress$/ { print $2; exit }')
	for m in $(bpftool prog show id "$id" | sed -n 's/.*map_ids \([0-9,]*\).*/\1/p' | tr , ' '); do
		bpftool map show id "$m" | grep -q " name $3 " && echo "$m"
	done
}

# prog_log_drops ID: the log_drops constant in the read-only data of
# program ID, as the kernel holds it
prog_log_drops() {
	local m
	for m in $(bpftool prog show id "$1" | sed -n 's/.*map_ids \([0-9,]*\).*/\1/p' | tr , ' '); do
		bpftool map dump id "$m" 2>/dev/null | sed -n 's/.*"log_drops": \([a-z]*\).*/\1/p'
	done
}

# Why this backend cannot guard egress here, from the loader's probe
# (empty: it can, and a case must then fail if it does not).
egress_unavailable() {
	"$CG" probe --json | jq -r ".${BACKEND}_egress_unavailable // empty"
}

# The runner's check, once per kernel, not per backend: auto picks the
# backend this kernel can run, for the right reason. What the kernel offers
# is read here without the loader (bpftool over BTF, modprobe), then
# compared with the loader's choice ($PROBE, tests/run.sh).
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

# events_start FILE: `csum-guard events --json` into FILE (and FILE.err)
# until events_stop; returns once it reads.
CG_EVENTS_MAP=cg_events
events_start() {
	local i
	"$CG" events --json >"$1" 2>"$1.err" &
	EVENTS_PID=$!
	for i in $(seq 100); do
		grep -q '^csum-guard: reading drop events' "$1.err" && return 0
		kill -0 $EVENTS_PID 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
events_stop() {
	[ -n "${EVENTS_PID:-}" ] || return 0
	kill -TERM "$EVENTS_PID" 2>/dev/null
	wait "$EVENTS_PID" 2>/dev/null
	EVENTS_PID=
}

guard_on() { "$CG" attach tap0 --netns "$VM" --backend "$BACKEND" --quiet "$@"; }
guard_off() { "$CG" detach tap0 --netns "$VM" --quiet; }

# "dropped dropped_unreadable attached" of the guard on DEV (tap0)
guard_counters() {
	"$CG" status "${1:-tap0}" --netns "$VM" --json |
		jq -r '"\(.dropped) \(.dropped_unreadable) \(.attached)"'
}

# seen_on TABLE DEV: an nftables netdev ingress chain on DEV in $VM, at
# priority 0, behind the guard (tc and the module's netfilter hook at
# INT_MIN both run first), counting in counter "seen" what the guard
# passed. Prints nft's error and fails where the kernel has no such chain.
seen_on() {
	ip netns exec "$VM" nft -f - 2>&1 <<-EOF
		table netdev $1 {
			counter seen { }
			chain in {
				type filter hook ingress device $2 priority 0;
				counter name seen
			}
		}
		EOF
}

# seen_count TABLE: the packets that counter "seen" of seen_on's TABLE counted
seen_count() {
	ip netns exec "$VM" nft -j list counter netdev "$1" seen |
		jq -r '.nftables[] | select(.counter) | .counter.packets'
}

# IpFragFails of the VM namespace: the kernel's own drop of a bad frame.
frag_fails() {
	ip netns exec "$VM" awk '/^Ip:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "FragFails") c = i; h = 1 } else print $c }' /proc/net/snmp
}
