# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 85-syncookie-apply.sh - csum-guard syncookie apply: responders declared in
# a file, made so, and (--follow) kept so. The topology and helpers are
# tests/lib/syncookie.sh's (sc_up, sc_on, connect, inject ...), plus a second veth
# pair inside the server's namespace for a responder attached by hand:
#
#   netns $SC_C (client)                      netns $SC_S (server)
#   veth0 10.9.0.1/24 fd09::1/64  --------  veth1 10.9.0.2/24 fd09::2/64
#                                            vh0 -- vh1 (hand-made responder on vh0)

# sca_json DEV: status --json of DEV in the server's namespace
sca_json() { "$CG" syncookie status "$1" --netns "$SC_S" --json; }

# sca_conf FILE LINE...: a declaration, with a comment and a blank line
sca_conf() {
	local f=$1

	shift
	{
		echo "# the server's responders"
		echo
		printf '%s\n' "$@"
	} >"$f"
}

# What the responders of the server's namespace are made of: pins, the
# programs hooked there (by id: one loaded again shows), nft tables,
# sysctl. sc_snapshot's host-wide program count would see other runs'.
sca_snapshot() {
	{
		find /sys/fs/bpf/csum_guard_syncookie 2>/dev/null | sort
		ip netns exec "$SC_S" bpftool net show 2>/dev/null
		ip netns exec "$SC_S" nft list tables 2>/dev/null
		ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies
	} | md5sum
}

# A file with a bad line is refused as FILE:LINE, nothing applied; apply
# attaches what it declares (a real connection through it, answered by the
# program), a second apply changes nothing and says so, a responder
# attached by hand is left alone, and one the file no longer lists is
# detached.
case_syn_apply() {
	local t="syn-apply" conf=$TMPD/sc-apply.conf before rc s

	sc_up || { fail "$t: set-up"; return; }
	ip -n "$SC_S" link add vh0 type veth peer name vh1 &&
		ip -n "$SC_S" link set vh0 up && ip -n "$SC_S" link set vh1 up ||
		{ fail "$t: set-up (vh0)"; sc_down; return; }
	before=$(sca_snapshot)
	# a bad line after a good one: neither applied
	sca_conf "$conf" "veth1 --netns $SC_S --ports $SC_PORT --set-sysctl" \
		"veth1 --netns $SC_S --ports $SC_PORT --mode warp"
	"$CG" syncookie apply --config "$conf" >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMPD/err")" = 1 ] && [ ! -s "$TMPD/out" ] &&
		grep -q "^csum-guard: $conf:4: unknown mode 'warp'" "$TMPD/err" ||
		unexpected "bad line" "rc $rc, $(head -2 "$TMPD/err" | tr '\n' ' ')"
	sca_conf "$conf" "veth1 --netns $SC_S --ports $SC_PORT --set-sysctl" \
		"veth1 --netns $SC_S --ports $SC_CLOSED"
	"$CG" syncookie apply --config "$conf" 2>"$TMPD/err" && unexpected "a device declared twice was taken"
	grep -q ":4: veth1 in netns $SC_S is declared already on line 3" "$TMPD/err" ||
		unexpected "declared twice" "$(head -1 "$TMPD/err")"
	[ "$(sca_snapshot)" = "$before" ] || unexpected "a refused file changed state"
	# one responder by hand, not declared
	"$CG" syncookie attach vh0 --netns "$SC_S" --ports $SC_CLOSED --set-sysctl --quiet ||
		unexpected "attach vh0 by hand"
	sca_conf "$conf" "veth1 --netns $SC_S --ports $SC_PORT --set-sysctl   # the web server"
	"$CG" syncookie apply --config "$conf" 2>"$TMPD/err" || unexpected "apply" "$(head -1 "$TMPD/err")"
	s=$(sca_json veth1)
	[ "$(jq -r '"\(.attached) \(.declared) \(.ports)"' <<<"$s")" = "true true [$SC_PORT]" ] ||
		unexpected "after apply" "$s"
	connect 10.9.0.2 || unexpected "no connection through the applied responder"
	[ "$(sca_json veth1 | jq -r '.counters.synack')" -ge 1 ] || unexpected "the program answered no SYN"
	s=$(sca_snapshot)
	"$CG" syncookie apply --config "$conf" 2>"$TMPD/err" || unexpected "apply again failed"
	grep -q 'nothing to change' "$TMPD/err" || unexpected "apply again" "$(tail -1 "$TMPD/err")"
	[ "$(sca_snapshot)" = "$s" ] || unexpected "apply again changed state"
	[ "$(sca_json vh0 | jq -r '"\(.attached) \(.declared)"')" = "true false" ] ||
		unexpected "the hand-made responder" "$(sca_json vh0)"
	# no longer declared: detached; the hand-made one stays
	sca_conf "$conf"
	"$CG" syncookie apply --config "$conf" 2>"$TMPD/err" || unexpected "apply of none failed"
	grep -q "detached the SYN responder from veth1 in netns $SC_S: no longer declared" "$TMPD/err" ||
		unexpected "undeclared" "$(head -1 "$TMPD/err")"
	[ "$(sca_json veth1 | jq -r .attached)" = false ] || unexpected "veth1 still attached"
	[ "$(sca_json vh0 | jq -r .attached)" = true ] || unexpected "the hand-made responder went"
	"$CG" syncookie detach vh0 --netns "$SC_S" --quiet
	ip -n "$SC_S" link del vh0
	[ "$(sca_snapshot)" = "$before" ] || unexpected "state left after detach"
	expect_verdict "$t" "a bad line refused as FILE:LINE with nothing applied, apply attaches (a connection through it), again changes nothing and says so, a hand-made responder stays, an undeclared one is detached"
	sc_down
}
cg_kernel_case syn_apply

# sca_repaired N CAUSE: the follower's log has more than N repair lines,
# the last after CAUSE, within lim (its own measure) and lim2 (ours); one
# for another cause, or too late, is recorded (unexpected)
sca_repaired() {
	local end=$((SECONDS + lim2)) l ms

	while [ "$(grep -c 'repaired the SYN' "$log")" -le "$1" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
	l=$(grep 'repaired the SYN' "$log" | tail -1)
	ms=$(sed -n 's/.*, \([0-9]*\) ms after the change.*/\1/p' <<<"$l")
	grep -q "after $2" <<<"$l" && [ "${ms:-99999}" -le $((lim * 1000)) ] && return
	unexpected "repaired too late or for another cause" "$l"
	return 1
}

# sca_inject_from SRC: SC_N good SYNs to the server from SRC, sent from the
# client's veth0; prints the reply counts
sca_inject_from() {
	ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src "$1" --dst 10.9.0.2 \
		--port $SC_PORT --kind good --count $SC_N --wait $SC_WAIT
}

sca_tables_ok() { [ "$(sca_json veth1 | jq -r .tables)" = ok ]; }
sca_repairs_over() { [ "$(sca_json veth1 | jq -r .repairs)" -gt "$1" ]; }

# apply --follow: after `nft flush ruleset` in the server's namespace the
# tables are back within a second, a new connection goes through SYNPROXY,
# the repair is logged and counted (status --json and --prometheus); an
# address added under the running responder is answered by it, and once
# removed no longer; so is a source a route added under it leads back to. With the follower gone, a flush leaves status and
# Prometheus saying whether it can still answer (raw cookies without the
# ACK program cannot).
case_syn_follow() {
	local t="syn-follow" conf=$TMPD/sc-follow.conf log=$TMPD/sc-follow.log fpid r0 v0 s
	local lim=$([ -n "${CG_GUEST:-}" ] && echo 5 || echo 1) c0 c1 r want lpid ms am n l
	local lim2=$([ -n "${CG_GUEST:-}" ] && echo 30 || echo 10)

	command -v nft >/dev/null || { skip "$t: no nft"; return; }
	sc_up || { fail "$t: set-up"; return; }
	sca_conf "$conf" "veth1 --netns $SC_S --ports $SC_PORT --set-sysctl"
	"$CG" syncookie apply --config "$conf" --follow >"$log" 2>&1 &
	fpid=$!
	watch_line "$log" '^csum-guard: following 1 responder' 60 || unexpected "the follower did not start: $(head -3 "$log")"
	sca_tables_ok || unexpected "not attached: $(sca_json veth1)"
	r0=$(sca_json veth1 | jq -r .repairs)
	ip netns exec "$SC_S" nft flush ruleset
	# the follower says how long after the change it repaired (its repair
	# line): within a second; status itself may take longer on a loaded host
	watch_line "$log" "after an nftables change: its nft tables made again \(repair [0-9]+, [0-9]+ ms" $lim2 ||
		unexpected "no repair line after nft flush ruleset"
	l=$(grep 'after an nftables change: its nft tables made again' "$log" | tail -1)
	ms=$(sed -n 's/.*(repair [0-9]*, \([0-9]*\) ms after the change.*/\1/p' <<<"$l")
	am=$(sed -n 's/.* ms after the change, \([0-9]*\) of them attach.s).*/\1/p' <<<"$l")
	# within a second; on a host so loaded that attach alone takes longer,
	# the follower's own part (event to attach, and after) within 300 ms
	[ "${ms:-99999}" -le $((lim * 1000)) ] || [ $((${ms:-99999} - ${am:-0})) -le 300 ] ||
		unexpected "tables made again ${ms:-?} ms after the flush (attach ${am:-?} ms of them): over ${lim}s"
	sca_tables_ok || unexpected "tables not back: $(sca_json veth1)"
	sca_repairs_over "$r0" || unexpected "repair not counted: $(sca_json veth1)"
	v0=$(synproxy_valid)
	connect 10.9.0.2 || unexpected "no connection after the flush"
	[ $(($(synproxy_valid) - v0)) = 1 ] || unexpected "cookie_valid +$(($(synproxy_valid) - v0)) after the flush"
	"$CG" status --prometheus >"$TMPD/prom" 2>&1
	grep -Eq "^csum_guard_syncookie_repairs_total\{device=\"veth1\",netns=\"$SC_S\"\} [1-9]" "$TMPD/prom" ||
		unexpected "prometheus: $(grep repairs_total "$TMPD/prom" | tail -1)"
	# an address added under it: answered; removed: not (a listener on
	# every address: the program answers only what the stack would)
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen :: --port $SC_PORT --ready-file "$TMPD/sc.ready" \
		--timeout 120 >/dev/null 2>&1 &
	lpid=$!
	wait_ready "$TMPD/sc.ready"
	n=$(grep -c 'repaired the SYN' "$log")
	ip -n "$SC_S" addr add 10.9.0.3/24 dev veth1
	sca_repaired "$n" "an address change" || unexpected "an added address not taken in"
	c0=$(sc_counters)
	r=$(inject $SC_PORT good 10.9.0.3)
	c1=$(sc_counters)
	set -- $c0 $c1
	[ $(($4 - $1)) = $SC_N ] || unexpected "the added address: $r, program synack +$(($4 - $1))"
	n=$(grep -c 'repaired the SYN' "$log")
	ip -n "$SC_S" addr del 10.9.0.3/24 dev veth1
	sca_repaired "$n" "an address change" || unexpected "a removed address not taken out"
	c0=$(sc_counters)
	r=$(inject $SC_PORT good 10.9.0.3)
	c1=$(sc_counters)
	set -- $c0 $c1
	[ $(($4 - $1)) = 0 ] || unexpected "the removed address still answered: $r, program synack +$(($4 - $1))"
	# a route added under it: a source it leads back through the device is
	# answered (no default route here: without it, no way back); deleted:
	# no longer
	n=$(grep -c 'repaired the SYN' "$log")
	ip -n "$SC_S" route add 10.20.0.0/24 via 10.9.0.1 dev veth1
	sca_repaired "$n" "a route change" || unexpected "an added route not taken in"
	c0=$(sc_counters)
	r=$(sca_inject_from 10.20.0.5)
	c1=$(sc_counters)
	set -- $c0 $c1
	[ $(($4 - $1)) = $SC_N ] || unexpected "a source the added route leads back to: $r, program synack +$(($4 - $1))"
	n=$(grep -c 'repaired the SYN' "$log")
	ip -n "$SC_S" route del 10.20.0.0/24 via 10.9.0.1 dev veth1
	sca_repaired "$n" "a route change" || unexpected "a deleted route not taken out"
	c0=$(sc_counters)
	r=$(sca_inject_from 10.20.0.5)
	c1=$(sc_counters)
	set -- $c0 $c1
	[ $(($4 - $1)) = 0 ] || unexpected "the deleted route's source still answered: $r, program synack +$(($4 - $1))"
	# the device gone and made again (a new ifindex): attached afresh
	n=$(grep -c 'repaired the SYN' "$log")
	ip -n "$SC_C" link del veth0
	ip -n "$SC_C" link add veth0 type veth peer name veth1 netns "$SC_S" &&
		ip -n "$SC_C" addr add 10.9.0.1/24 dev veth0 && ip -n "$SC_S" addr add 10.9.0.2/24 dev veth1 &&
		ip -n "$SC_C" addr add fd09::1/64 dev veth0 nodad && ip -n "$SC_S" addr add fd09::2/64 dev veth1 nodad &&
		ip -n "$SC_C" link set veth0 up && ip -n "$SC_S" link set veth1 up &&
		ip netns exec "$SC_C" ethtool -K veth0 tx off >/dev/null 2>&1 ||
		unexpected "cannot make the veth pair again"
	SC_MAC=$(link_mac "$SC_S" veth1)
	watch_line "$log" "after a device change: attached again" $lim2 ||
		unexpected "the device made again was not attached: $(tail -1 "$log")"
	watch_line "$log" "after a device change: attached again" 0 &&
		[ "$(grep -c 'repaired the SYN' "$log")" -gt "$n" ] || unexpected "no repair for the device"
	c0=$(sc_counters)
	r=$(inject $SC_PORT good)
	c1=$(sc_counters)
	set -- $c0 $c1
	[ $(($4 - $1)) = $SC_N ] || unexpected "the device made again: $r, program synack +$(($4 - $1))"
	kill "$fpid" "$lpid"
	wait "$fpid" "$lpid" 2>/dev/null
	grep -q 'no longer following' "$log" || unexpected "the follower did not stop on SIGTERM"
	# without the follower: what status says with the tables gone
	ip netns exec "$SC_S" nft flush ruleset
	s=$(sca_json veth1)
	want=true
	[ "$(jq -r .cookies <<<"$s")" = raw ] && [ "$(jq -r .ack_program <<<"$s")" = false ] && want=false
	[ "$(jq -r '"\(.tables) \(.answering)"' <<<"$s")" = "gone $want" ] ||
		unexpected "status after a flush, no follower ($want expected): $s"
	"$CG" status --prometheus 2>/dev/null |
		grep -Eq "^csum_guard_syncookie_answering\{device=\"veth1\",netns=\"$SC_S\",.*tables=\"gone\".* $([ $want = true ] && echo 1 || echo 0)\$" ||
		unexpected "prometheus answering after a flush: $("$CG" status --prometheus 2>/dev/null | grep '^csum_guard_syncookie_answering' | tail -1)"
	sc_off
	sc_down
	expect_clean || sed 's/^/# follower: /' "$log"
	expect_verdict "$t" "nft flush ruleset repaired ${ms} ms after it (${am} ms of them attach's; a connection through SYNPROXY, repair logged and counted in status and Prometheus); an added address answered, a removed one not, a source an added route leads back to answered, once deleted not, each within ${lim}s; the device made again attached afresh and answering; unfollowed flush: answering $want"
}
cg_kernel_case syn_follow

# A host without iptables' extensions (Debian's minbase, no iptables
# package): nft lists the ip6 table's xtables SYNPROXY rule as nothing and
# names the target on its stderr. attach still sees its tables whole
# (it once took them for gone and failed "not answering after attach").
# Here the extensions' directory is hidden under a tmpfs for the loader's
# commands alone; the connections are the kernel's, IPv4 and IPv6.
case_syn_no_xt() {
	local t="syn-no-xt" xt s

	xt=$(dirname "$(ls /usr/lib/*/xtables/libxt_SYNPROXY.so 2>/dev/null | head -1)")
	[ "$xt" != . ] || { skip "$t: no libxt_SYNPROXY.so here: the other cases run without it"; return; }
	command -v nft >/dev/null || { skip "$t: no nft"; return; }
	sc_up || { fail "$t: set-up"; return; }
	# cg_noxt ARGS: the loader with the extensions hidden
	cg_noxt() { unshare -m --propagation private sh -c 'mount -t tmpfs cg-noxt "$1" && shift && exec "$@"' _ "$xt" "$CG" "$@"; }
	cg_noxt syncookie attach veth1 --netns "$SC_S" --ports $SC_PORT --quiet 2>"$TMPD/err" ||
		unexpected "attach" "$(head -1 "$TMPD/err")"
	s=$(cg_noxt syncookie status veth1 --netns "$SC_S" --json)
	[ "$(jq -r '"\(.tables) \(.answering) \(.nft.ipv6)"' <<<"$s")" = "ok true true" ] ||
		unexpected "status without the extensions" "$s"
	# what nft says there, so that the case shows it ran where it should
	cg_noxt nft --version >/dev/null 2>&1 || unexpected "nft does not run under the tmpfs"
	ip netns exec "$SC_S" unshare -m --propagation private sh -c \
		'mount -t tmpfs cg-noxt "$1" && nft list table ip6 "$2"' _ "$xt" \
		"csum_guard_syncookie_$(ip -n "$SC_S" -o link show veth1 | cut -d: -f1)" 2>&1 >/dev/null |
		grep -q 'target SYNPROXY not found' || unexpected "nft still read the extension"
	connect 10.9.0.2 || unexpected "no IPv4 connection"
	connect fd09::2 || unexpected "no IPv6 connection (the xtables SYNPROXY)"
	[ "$(sca_json veth1 | jq -r .counters.synack)" -ge 2 ] || unexpected "the program answered $(sca_json veth1 | jq -r .counters.synack) SYNs"
	sc_off
	sc_down
	unset -f cg_noxt
	expect_verdict "$t" "without iptables' extensions attach sees its ip6 table's SYNPROXY (nft: target not found), status tables ok and answering, IPv4 and IPv6 connect through it"
}
cg_kernel_case syn_no_xt
