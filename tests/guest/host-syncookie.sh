#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# tests/guest/host-syncookie.sh - a declared SYN-cookie responder on a
# booted Debian 12 host, through nftables reloads, a reboot and address
# changes; run by the host itself at the end of each boot
# (tests/guest/boot.sh: /cg/run)
#
#   netns cli (client)                        the host's own namespace
#   c0 10.9.0.1/24  --------------------------  s0 10.9.0.2/24 (responder)
#                                               listener 0.0.0.0:8080
#
# First boot: the csum-guard .deb and nftables (its .debs in /cg/debs) are
# installed; nftables.service is enabled with Debian's own
# /etc/nftables.conf (it begins with `flush ruleset`), a unit of the test
# makes the veth pair with the network (ordered as Debian's
# networking.service), another one runs the listener, and
# /etc/csum-guard/syncookie.conf declares s0; csum-guard-syncookie.service
# (the package's, enabled by it) is started. Then a) `nft flush ruleset`
# and b) `systemctl restart nftables`: each time a new connection through
# the responder (the listener's banner read back) within a second of the
# change, and the repair counted (status --json, Prometheus); the host
# reboots. Second boot: c) the responder attached by the unit, after
# nftables.service, answering before the first client, whose SYN the
# program answers; d) an address added under the running responder is
# answered by it, and once removed no longer; power off.
#
# /cg/params: LIMIT_MS (a connection within it after each change) and
# BREAK (non-empty: the follower is stopped before a, b and d, to see
# those checks fail). Results: PASS/FAIL lines in /cg/results (the last
# line of a finished run is "# [TAG] end"), commands' output in /cg/log.

set -u
C=/cg
D=/usr/local/lib/cg-sc
S=/var/lib/cg-sc
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C
LIMIT_MS=1000 BREAK=
. "$C/params"
TAG=debian$(. /etc/os-release && echo "$VERSION_ID")-syncookie
PORT=8080
mkdir -p "$S" "$D"

pass() { echo "PASS [$TAG] $*" >>"$S/results"; }
fail() { echo "FAIL [$TAG] $*" >>"$S/results"; }
note() { echo "# [$TAG] $*" >>"$S/results"; }
log() { echo "== $*" >>"$S/log"; }
run() { log "$*"; "$@" >>"$S/log" 2>&1; }

finish()
{
	note end
	cp "$S/results" "$C/results" 2>/dev/null
	cp "$S/log" "$C/log" 2>/dev/null
	sync
	systemctl poweroff --no-block
	exit 0
}

# the responder's status, and one of its fields (jq)
st() { csum-guard syncookie status s0 --json 2>>"$S/log"; }
stf() { st | jq -r "$1"; }

# try T0NS LIMIT_S [ADDR]: connect from the client to ADDR (10.9.0.2) and
# read the listener's banner, again and again until LIMIT_S seconds after
# T0NS (0: now, one try); prints "ok|fail MS TRIES [why]", MS since T0NS
try() { ip netns exec cli python3 "$D/client.py" "${3:-10.9.0.2}" "$PORT" "$1" "$2"; }

# until jq's $1 over the status is over $2, at most $3 tenths of a second
wait_over()
{
	i=0
	while [ $i -lt "$3" ]; do
		[ "$(stf "$1")" -gt "$2" ] 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# the follower's repair lines of this boot
repair_lines() { journalctl -b -u csum-guard-syncookie -o cat 2>/dev/null | grep 'repaired the SYN'; }

prom_repairs() { csum-guard status --prometheus 2>/dev/null | sed -n 's/^csum_guard_syncookie_repairs_total{device="s0",netns="[^"]*"} \([0-9]*\)$/\1/p'; }

# after CHANGE (the command, run now): a new connection through the
# responder, the repair counted in status and in Prometheus. In time: the
# connection within LIMIT_MS of the change or, where attach's own nft
# commands take longer (a TCG host: seconds), the follower's part of its
# repair (event to attach, and after: its log line says both) within
# 300 ms and the connection within a second of the repair.
after_change()
{
	what=$1
	shift
	r0=$(stf .repairs)
	s0=$(stf .counters.synack)
	n0=$(repair_lines | wc -l)
	t0=$(date +%s%N)
	"$@" >>"$S/log" 2>&1
	out=$(try "$t0" 15)
	log "after $what: $out"
	if wait_over .repairs "$r0" 100; then
		pass "$what: the repair counted (repairs $r0 -> $(stf .repairs), Prometheus $(prom_repairs))"
	else
		fail "$what: no repair counted: $(st)"
	fi
	i=0
	while [ "$(repair_lines | wc -l)" -le "$n0" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	l=$(repair_lines | sed -n "$((n0 + 1))p")
	note "$what: the follower: ${l:-no repair line}"
	rms=$(echo "$l" | sed -n 's/.*, \([0-9]*\) ms after the change.*/\1/p')
	ams=$(echo "$l" | sed -n 's/.* ms after the change, \([0-9]*\) of them attach.s).*/\1/p')
	set -- $out
	ms=${2:-99999}
	if [ "$1" != ok ]; then
		fail "$what: no connection through the responder within 15 s: $out"
	elif [ "$ms" -le "$LIMIT_MS" ]; then
		pass "$what: a new connection through the responder $ms ms after it (try $3)"
	elif [ -n "$rms" ] && [ $((rms - ams)) -le 300 ] && [ "$ms" -le $((rms + 1000)) ]; then
		pass "$what: a new connection through the responder $ms ms after it (try $3): the repair $rms ms after it, $ams of them attach's nft commands, the follower's own $((rms - ams)) ms"
	else
		fail "$what: a connection only $ms ms after it (over $LIMIT_MS; the repair: ${rms:-none} ms, attach's ${ams:-?})"
	fi
	[ "$(stf .counters.synack)" -gt "$s0" ] || fail "$what: the program answered no SYN: $(st)"
}

# --- first boot ---------------------------------------------------------
first_boot()
{
	note "$(. /etc/os-release; echo "$PRETTY_NAME") ($(cat /etc/debian_version)), kernel $(uname -r)"
	cp "$C/client.py" "$D/client.py" || fail "cannot copy the client"
	if run dpkg -i "$C"/debs/*.deb; then
		pass "dpkg -i $(cd "$C/debs" && ls | tr '\n' ' ')"
	else
		fail "dpkg -i failed: $(tail -3 "$S/log" | tr '\n' ' ')"
		finish
	fi
	head -3 /etc/nftables.conf | grep -qx 'flush ruleset' ||
		fail "Debian's /etc/nftables.conf does not flush the ruleset: $(head -3 /etc/nftables.conf | tr '\n' ' ')"
	[ "$(systemctl is-enabled csum-guard-syncookie.service)" = enabled ] ||
		fail "the package did not enable csum-guard-syncookie.service"
	# the client's namespace and the veth pair, made as the network is
	cat >"$D/net" <<-'EOF'
	#!/bin/sh
	set -e
	ip netns add cli
	ip link add s0 type veth peer name c0 netns cli
	ip addr add 10.9.0.2/24 dev s0
	ip link set s0 up
	ip -n cli addr add 10.9.0.1/24 dev c0
	ip -n cli link set c0 up
	ip -n cli link set lo up
	# the frames the program sees carry their checksums
	ip netns exec cli ethtool -K c0 tx off >/dev/null
	EOF
	cat >/etc/systemd/system/cg-net.service <<-EOF
	[Unit]
	Description=csum-guard test: the client's namespace and s0
	DefaultDependencies=no
	After=local-fs.target network-pre.target
	Before=network.target network-online.target
	Wants=network.target

	[Service]
	Type=oneshot
	RemainAfterExit=yes
	ExecStart=/bin/sh $D/net

	[Install]
	WantedBy=multi-user.target
	EOF
	cat >/etc/systemd/system/cg-listen.service <<-EOF
	[Unit]
	Description=csum-guard test: a listener on port $PORT
	After=cg-net.service

	[Service]
	ExecStart=/usr/bin/python3 $D/client.py --listen $PORT

	[Install]
	WantedBy=multi-user.target
	EOF
	mkdir -p /etc/csum-guard
	printf '# the test host\ns0 --ports %s --set-sysctl\n' "$PORT" >/etc/csum-guard/syncookie.conf
	run systemctl daemon-reload
	run systemctl enable nftables.service cg-net.service cg-listen.service
	run systemctl start nftables.service cg-net.service cg-listen.service
	run systemctl start csum-guard-syncookie.service
	if [ "$(stf '"\(.attached) \(.answering) \(.tables) \(.declared)"')" = "true true ok true" ]; then
		pass "the unit attached the declared responder ($(stf '"mode \(.mode), cookies \(.cookies)"'))"
	else
		fail "the unit did not attach s0: $(st) $(journalctl -u csum-guard-syncookie -o cat | tail -3 | tr '\n' ' ')"
		finish
	fi
	out=$(try 0 0)
	case $out in
	ok*) pass "a connection through the responder" ;;
	*) fail "no connection through the responder: $out" ;;
	esac
	[ -n "$BREAK" ] && run systemctl stop csum-guard-syncookie.service
	after_change "nft flush ruleset" nft flush ruleset
	after_change "systemctl restart nftables" systemctl restart nftables.service
	nft list tables >>"$S/log" 2>&1
	nft list tables | grep -q '^table inet filter$' ||
		fail "nftables.conf's own table is not there after the restart"
	echo reboot >"$S/stage"
	note "rebooting"
	cp "$S/results" "$C/results" 2>/dev/null
	sync
	systemctl reboot --no-block
	exit 0
}

# --- second boot --------------------------------------------------------
# systemctl show's monotonic timestamp PROPERTY of UNIT (microseconds)
mono() { systemctl show -P "$2" "$1"; }

second_boot()
{
	note "booted again: $(uname -r)"
	# c) before any client: attached by the unit, after nftables.service
	[ "$(systemctl is-active csum-guard-syncookie.service)" = active ] ||
		fail "csum-guard-syncookie.service is not active: $(systemctl is-active csum-guard-syncookie.service)"
	nx=$(mono nftables.service ExecMainExitTimestampMonotonic)
	sc=$(mono csum-guard-syncookie.service ExecMainStartTimestampMonotonic)
	if [ "${nx:-0}" -gt 0 ] && [ "${sc:-0}" -gt "$nx" ]; then
		pass "at boot nftables.service ran (and exited) $(((sc - nx) / 1000)) ms before the follower started"
	else
		fail "at boot: nftables.service exited at $nx us, the follower started at $sc us"
	fi
	nft list tables >>"$S/log" 2>&1
	nft list tables | grep -q '^table inet filter$' ||
		fail "nftables.conf's table is not there: nftables.service did not run"
	s=$(st)
	log "status before the first client: $s"
	if [ "$(echo "$s" | jq -r '"\(.attached) \(.answering) \(.tables) \(.counters.synack)"')" = "true true ok 0" ]; then
		pass "before the first client: attached, answering, its tables there, no SYN answered yet"
	else
		fail "before the first client: $s"
	fi
	out=$(try 0 0)
	log "first client: $out"
	n=$(stf .counters.synack)
	if [ "${out%% *}" = ok ] && [ "$n" = 1 ]; then
		pass "the first client after the boot connected, its SYN answered by the program (synack 0 -> 1)"
	else
		fail "the first client after the boot: $out, synack $n"
	fi
	journalctl -b -u csum-guard-syncookie -o short-monotonic >>"$S/log" 2>&1
	# d) an address added under the running responder, then removed; the
	# client reaches it by a permanent neighbour entry, answered or not
	[ -n "$BREAK" ] && run systemctl stop csum-guard-syncookie.service
	mac=$(cat /sys/class/net/s0/address)
	run ip -n cli neigh replace 10.9.0.3 lladdr "$mac" dev c0 nud permanent
	r0=$(stf .repairs)
	run ip addr add 10.9.0.3/24 dev s0
	wait_over .repairs "$r0" 50 || fail "the added address: no repair counted"
	n=$(stf .counters.synack)
	out=$(try 0 0 10.9.0.3)
	log "to the added address: $out"
	if [ "${out%% *}" = ok ] && [ "$(stf .counters.synack)" = $((n + 1)) ]; then
		pass "an address added under the running responder: answered by it, connected"
	else
		fail "the added address: $out, synack $n -> $(stf .counters.synack)"
	fi
	r0=$(stf .repairs)
	run ip addr del 10.9.0.3/24 dev s0
	wait_over .repairs "$r0" 50 || fail "the removed address: no repair counted"
	n=$(stf .counters.synack)
	out=$(try 0 0 10.9.0.3)
	log "to the removed address: $out"
	if [ "${out%% *}" = fail ] && [ "$(stf .counters.synack)" = "$n" ]; then
		pass "the address removed: no longer answered (synack stays $n, no connection)"
	else
		fail "the removed address still answered: $out, synack $n -> $(stf .counters.synack)"
	fi
	note "the follower this boot: $(journalctl -b -u csum-guard-syncookie -o cat | grep -c 'repaired the SYN') repair lines"
	journalctl -b -u csum-guard-syncookie -o cat | grep 'repaired the SYN' | sed 's/^/# /' >>"$S/results"
	finish
}

case $(cat "$S/stage" 2>/dev/null) in
'') first_boot ;;
reboot) second_boot ;;
*) fail "unknown stage $(cat "$S/stage")"; finish ;;
esac
