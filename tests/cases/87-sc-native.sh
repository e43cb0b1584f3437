# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 87-sc-native.sh - which XDP mode the responder's auto takes on a veth,
# and what status says of it. Native XDP_TX on a veth reaches the peer
# only while the peer runs an XDP program of its own: auto takes native
# there, generic where the peer runs none, and status (text and --json's
# mode_why) says which and why. The topology and helpers are
# tests/lib/syncookie.sh's (sc_up, sc_on, sc_counters, connect): a client
# and a server namespace over a veth pair, the responder on the server's
# veth1, its peer veth0 in the client's namespace.

# sc_native_round TAG MODE WHY: the responder attached by auto is in MODE,
# its status (--json's mode_why and the text line) says WHY (a regular
# expression), and a connection through it completes with its SYN-ACK
# from the program (synack +1): the answer crossed the pair
sc_native_round() {
	local tag=$1 st c0 c1

	st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
	expect_eq "$tag: the mode auto took" "$2" "$(jq -r .mode <<<"$st")"
	expect_match "$tag: --json's mode_why" "$3" "$(jq -r .mode_why <<<"$st")"
	expect_match "$tag: the text status" "${3#^}" "$("$CG" syncookie status veth1 --netns "$SC_S")"
	c0=$(sc_counters)
	expect_connect "$tag: a connection" 10.9.0.2 || return
	c1=$(sc_counters)
	expect_counter "$tag: synack" 1 "${c0%% *}" "${c1%% *}"
}

case_syn_native() {
	local t="syn-native" native=yes st

	sc_up || { fail "$t: set-up"; return; }
	# the peer runs no XDP: auto takes generic
	expect_ok "attach, the peer without XDP" sc_on --ports $SC_PORT --set-sysctl &&
		sc_native_round "peer without XDP" xdp-generic "^generic XDP: native XDP_TX on a veth .*ran none"
	expect_ok "detach" sc_off
	# the peer runs an XDP program: auto takes native, and its answers reach the peer
	if ! ip -n "$SC_C" link set dev veth0 xdpdrv obj "$XDP_PASS_OBJ" sec xdp 2>"$TMPD/err"; then
		native="no native XDP on the client's veth here ($(head -1 "$TMPD/err"))"
	elif expect_ok "attach, the peer with XDP" sc_on --ports $SC_PORT --set-sysctl; then
		sc_native_round "peer with XDP" xdp "^native XDP: the veth's peer runs an XDP program"
		# the peer's program gone: status says the answers are lost
		ip -n "$SC_C" link set dev veth0 xdpdrv off
		st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
		expect_eq "the peer's XDP gone: the mode" xdp "$(jq -r .mode <<<"$st")"
		expect_match "the peer's XDP gone: mode_why" "runs no XDP program now.*lost" \
			"$(jq -r .mode_why <<<"$st")"
		expect_ok "detach" sc_off
	fi
	# asked for: said so, whatever the peer runs
	expect_ok "attach --mode xdp-generic" sc_on --ports $SC_PORT --mode xdp-generic --set-sysctl &&
		expect_eq "--mode xdp-generic: mode_why" "generic XDP, as --mode asked" \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .mode_why)"
	expect_ok "detach" sc_off
	if [ "$native" = yes ]; then
		expect_verdict "$t" "auto on a veth: generic XDP while the peer runs no XDP program, native once it runs one (a connection completed through each, SYN-ACK from the program); status --json's mode_why and the text say which and why, that native answers are lost once the peer's program is gone, and that an asked mode was asked"
	elif expect_clean; then
		skip "$t: the fallback to generic XDP held; $native"
		expect_reset
	else
		expect_verdict "$t" "-"
	fi
	sc_down
}
cg_kernel_case syn_native
