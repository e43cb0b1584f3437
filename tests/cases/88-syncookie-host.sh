# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 88-syncookie-host.sh - the declared SYN-cookie responder on a booted
# Debian 12 host: csum-guard-syncookie.service with Debian's own
# /etc/nftables.conf and nftables.service, through `nft flush ruleset`,
# `systemctl restart nftables`, a reboot and an address added and removed
# (tests/guest/host-syncookie.sh, run by the host at the end of each boot)
#
# Host case (cg_host_case), once per run, make test-matrix only (two boots
# of a Debian host under TCG: minutes):
#   syncookie_host   the csum-guard .deb of make dist and nftables
#                    installed on the bare Debian 12 host of deb6.1-fixed
#                    (hostroot.sh --bare), a veth pair to a client
#                    namespace inside it, a listener, the responder
#                    declared in /etc/csum-guard/syncookie.conf
#
# CG_SC_HOST_BREAK=1 stops the follower before the flush, the restart and
# the address changes: those checks must then fail.

# syncookie_host_debs DIR: nftables and ethtool for a Debian 12 host
# without them (what its minbase root lacks of them), from the archive
syncookie_host_debs() {
	mkdir -p "$1" && (cd "$1" && apt-get -q download nftables libnftables1 libnftnl11 libjansson4 ethtool)
}

case_syncookie_host() {
	local k=$1 t="syncookie-host" d ver rc t0=$SECONDS

	d=$TOP/build/hosts/syncookie-$k

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $k: boots a Debian 12 host twice (minutes): make test-matrix runs it"
		return
	fi
	ver=$(cat "$TOP/VERSION")
	rm -rf "$d" && mkdir -p "$d/debs"
	[ -f "$BLD/dist/csum-guard_${ver}_amd64.deb" ] ||
		{ fail "$t $k: no build/dist/csum-guard_${ver}_amd64.deb (make dist)"; return; }
	if ! syncookie_host_debs "$d/debs" >"$TMPD/syncookie-host.log" 2>&1; then
		fail "$t $k: cannot download nftables' .debs: $(tail -1 "$TMPD/syncookie-host.log")"
		return
	fi
	cp "$BLD/dist/csum-guard_${ver}_amd64.deb" "$d/debs/" &&
		cp "$TOP/tests/guest/host-syncookie.sh" "$d/run" &&
		cp "$TOP/tests/guest/host-syncookie-client.py" "$d/client.py" &&
		printf 'LIMIT_MS=%s\nBREAK=%s\n' "${CG_SC_HOST_LIMIT_MS:-1000}" "${CG_SC_HOST_BREAK:-}" >"$d/params" ||
		{ fail "$t $k: cannot prepare the share"; return; }
	"$TOP/tests/guest/boot.sh" --bare "$k" --share "$d" --timeout 1500 >"$TMPD/syncookie-host.log" 2>&1
	rc=$?
	note "$t $k: the host's two boots took $((SECONDS - t0)) s (exit $rc)"
	host_results "$t" "$k" "$d" "$TMPD/syncookie-host.log" $rc
}
cg_host_case --after-guests syncookie_host deb6.1-fixed
