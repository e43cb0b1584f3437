# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 86-lib-shared.sh - what both guards take from lib/, seen from outside:
# the programs they run (nft, iptables, modprobe) are found where the
# system keeps them, whatever PATH the caller has.
#
# Uses the responder's topology of tests/lib/syncookie.sh (sc_up).

# root's PATH under cron: no sbin directory
CRON_PATH=/usr/bin:/bin

# cron_sc VERB [ARG...]: csum-guard syncookie VERB veth1 of the server, run
# with cron's PATH
cron_sc() {
	local verb=$1
	shift
	env PATH=$CRON_PATH "$CG" syncookie "$verb" veth1 --netns "$SC_S" --quiet "$@"
}

# The responder run from cron: with PATH=/usr/bin:/bin, where nft (in
# /usr/sbin) is not found by name, nft mode still attaches, its tables are
# in the kernel and SYNPROXY answers a real connection through them;
# tc mode gets its nft tables too (not "missing"); detach, run the same
# way, leaves no table.
case_lib_cron_path() {
	local t="lib-cron-path" m st v0 nft

	nft=$(command -v nft) || { skip "$t: no nft"; return; }
	if env PATH=$CRON_PATH sh -c 'command -v nft' >/dev/null; then
		skip "$t: nft is in $CRON_PATH here ($nft): that PATH cannot hide it"
		return
	fi
	for m in nft tc; do
		sc_up || { unexpected "set-up"; break; }
		if ! cron_sc attach --ports $SC_PORT --mode $m --set-sysctl 2>"$TMPD/err"; then
			unexpected "$m" "attach under PATH=$CRON_PATH: $(head -1 "$TMPD/err")"
			sc_down
			continue
		fi
		st=$("$CG" syncookie status veth1 --netns "$SC_S" --json)
		[ "$(jq -r '"\(.mode) \(.tables)"' <<<"$st")" = "$m ok" ] ||
			unexpected "$m" "status mode, tables: $(jq -r '"\(.mode) \(.tables)"' <<<"$st")"
		ip netns exec "$SC_S" nft list tables | grep -q . ||
			unexpected "$m" "no nft table in the kernel"
		if [ $m = nft ]; then
			v0=$(synproxy_valid)
			connect 10.9.0.2 || unexpected "$m" "transfer failed"
			[ $(($(synproxy_valid) - v0)) -ge 1 ] ||
				unexpected "$m" "SYNPROXY validated no cookie (+$(($(synproxy_valid) - v0)))"
		fi
		cron_sc detach 2>"$TMPD/err" ||
			unexpected "$m" "detach under PATH=$CRON_PATH: $(head -1 "$TMPD/err")"
		[ -z "$(ip netns exec "$SC_S" nft list tables)" ] || unexpected "$m" "tables left after detach"
		sc_down
	done
	expect_verdict "$t" "under PATH=$CRON_PATH ($nft not in it) nft mode attached, its tables in the kernel, a connection's cookie validated by SYNPROXY; tc mode has its tables; detach left none"
}
cg_kernel_case lib_cron_path
