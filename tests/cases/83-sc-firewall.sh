# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 83-sc-firewall.sh - the responder beside the host's input filter and
# firewall: the sources it answers, the rulesets it lives in.
# The namespaces, the helpers and the picture: tests/lib/syncookie.sh.

# sc_src_try SRC: SC_N SYNs from SRC (an address of the client) to the
# port, then one connection from it; "SYN-ACKs connect-rc"
sc_src_try() {
	local src=$1 addr l rc r

	addr=$([ "$src" = "${src#fd}" ] && echo 10.9.0.2 || echo fd09::2)
	rm -f "$TMPD/sc.ready"
	"$STREAM" --netns "$SC_S" --listen $addr --ready-file "$TMPD/sc.ready" --timeout 4 \
		>"$TMPD/sc.listen" 2>&1 &
	l=$!
	wait_ready "$TMPD/sc.ready"
	r=$(ip netns exec "$SC_C" "$SYN" --dev veth0 --dst-mac "$SC_MAC" --src $src --dst $addr \
		--port $SC_PORT --count $SC_N --wait $SC_WAIT)
	if [ $addr = 10.9.0.2 ]; then
		ip -n "$SC_C" route replace 10.9.0.0/24 dev veth0 src $src
	else
		ip -n "$SC_C" route replace fd09::/64 dev veth0 src $src metric 1
	fi
	# an allowed source connects in milliseconds; a rejected one's SYNs
	# are dropped and would be sent again for minutes
	timeout 2 "$STREAM" --netns "$SC_C" --connect $addr --bytes 100000 --timeout 2 \
		>"$TMPD/sc.conn" 2>&1
	rc=$?
	[ $rc = 0 ] || kill $l 2>/dev/null	# no connection will come
	wait $l 2>/dev/null
	echo "$(sed -n 's/.*synack=\([0-9]*\).*/\1/p' <<<"$r") $rc"
}

# attach --allow: the responder answers only the sources the operator
# allows, as the server's input filter does (which accepts the port from
# 10.9.0.1 and fd09::1 only, with `ct state invalid drop`). The client's
# second address, 10.9.0.3 / fd09::3, is rejected: with the responder (xdp,
# xdp-generic, tc, nft) as without it, it gets no SYN-ACK and no
# connection; the allowed source is answered by the program and connects.
case_syn_allow() {
	local t="syn-allow" m src acks c0 c1 k=0 rc want wrc

	sc_quick_guest_skip "$t" && return
	declare -A base

	sc_up && ip -n "$SC_C" addr add 10.9.0.3/24 dev veth0 && ip -n "$SC_C" addr add fd09::3/64 dev veth0 nodad &&
		ip netns exec "$SC_S" sysctl -qw net.ipv4.tcp_syncookies=2 &&
		ip netns exec "$SC_S" nft -f - <<-EOT || { fail "$t: set-up"; sc_down; return; }
		table inet fw {
			chain in {
				type filter hook input priority filter; policy accept;
				ct state invalid drop
				tcp dport $SC_PORT ip saddr 10.9.0.1 accept
				tcp dport $SC_PORT ip6 saddr fd09::1 accept
				tcp dport $SC_PORT drop
			}
		}
		EOT
	# without --allow, attach refuses: one line, exit 1, nothing made
	sc_on --ports $SC_PORT --set-sysctl 2>"$TMPD/err"
	rc=$?
	expect_eq "attach without --allow: exit status" 1 $rc
	expect_eq "attach without --allow: lines on stderr" 1 "$(wc -l <"$TMPD/err")"
	expect_grep "attach without --allow: the filter named" 'table inet fw filters input' "$TMPD/err"
	expect_eq "attach without --allow: pins made" "" \
		"$(find "/sys/fs/bpf/csum_guard_syncookie/$(stat -L -c %i "/run/netns/$SC_S")" 2>/dev/null)"
	for m in base xdp xdp-generic tc nft; do
		[ $m = nft ] && ! command -v nft >/dev/null && continue
		if ! sc_attach_mode $m "$SC_PORT --allow 10.9.0.1,fd09::1/128 --set-sysctl"; then
			[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
			unexpected "attach $m" "$(head -1 "$TMPD/err")"
			continue
		fi
		for src in 10.9.0.1 10.9.0.3 fd09::1 fd09::3; do
			# IPv6 SYNPROXY needs nft_compat and ip6t_SYNPROXY, which attach says
			[ $m = nft ] && [ "$src" != "${src#fd}" ] && [ "$("$CG" syncookie status veth1 \
				--netns "$SC_S" --json | jq -r .nft.ipv6)" != true ] && note "$t: nft: no IPv6 SYNPROXY" && continue
			[ $m = base ] || c0=$(sc_counters)
			set -- $(sc_src_try $src)
			acks=$1 rc=$2
			[ $m = base ] || c1=$(sc_counters)
			case $src in
			*.1|*::1) want=$SC_N; wrc=0 ;;
			*) want=0; wrc=x ;;
			esac
			if [ $m = base ]; then
				base[$src]="$acks $rc"
				# else not a case
				expect_eq "the stack alone, $src: SYN-ACKs" $want "$acks"
				if [ $wrc = 0 ]; then
					expect_eq "the stack alone, $src: connect's exit status" 0 $rc
				else
					expect_ne "the stack alone, $src: connect's exit status" 0 $rc
				fi
				continue
			fi
			set -- $c0 $c1
			if [ $wrc = 0 ]; then
				expect_eq "$m allowed $src: SYN-ACKs" $SC_N "$acks"
				expect_eq "$m allowed $src: connect's exit status" 0 $rc
				expect_gt "$m allowed $src: the program's synack" $((SC_N - 1)) $(($4 - $1))
			else
				expect_eq "$m rejected $src: SYN-ACKs" 0 "$acks"
				expect_ne "$m rejected $src: connect's exit status ($(tr '\n' ' ' <"$TMPD/sc.conn"))" 0 $rc
				expect_counter "$m rejected $src: the program's synack" 0 $1 $4
			fi
			k=$((k + 1))
		done
		sc_detach_mode $m
	done
	expect_verdict "$t" "attach without --allow refused (the input filter named); $k source x mode checks: --allow'ed sources answered by the program and connected; the source the input filter rejects got no SYN-ACK and no connection, as with the filter alone (IPv4, IPv6; xdp, xdp-generic, tc, nft)"
	sc_down
}
cg_kernel_case syn_allow

# sc_fw KIND: the server's firewall, each of the two that drop an ACK
# conntrack saw no SYN for, both accepting the port from 10.9.0.1 and
# fd09::1 only: ctinv, `ct state invalid drop` with
# nf_conntrack_tcp_loose=0 (the hardened host); ipt, iptables (on
# nftables) `! --syn -m conntrack --ctstate NEW -j DROP` with the default
# loose=1.
sc_fw() {
	case $1 in
	ctinv)
		ip netns exec "$SC_S" nft -f - <<-EOT || return 1
		table inet fw {
			chain in {
				type filter hook input priority filter; policy accept;
				ct state invalid counter drop
				tcp dport $SC_PORT ip saddr 10.9.0.1 accept
				tcp dport $SC_PORT ip6 saddr fd09::1 accept
				tcp dport $SC_PORT drop
			}
		}
		EOT
		ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
		;;
	ipt)
		local v s
		for v in "iptables 10.9.0.1" "ip6tables fd09::1"; do
			set -- $v
			ip netns exec "$SC_S" $1 -A INPUT -p tcp ! --syn -m conntrack --ctstate NEW -j DROP &&
				ip netns exec "$SC_S" $1 -A INPUT -p tcp --dport $SC_PORT ! -s $2 -j DROP || return 1
		done
		;;
	esac
}

# sc_sysctls: the server's tcp_syncookies and nf_conntrack_tcp_loose
sc_sysctls() {
	ip netns exec "$SC_S" sysctl -n net.ipv4.tcp_syncookies net.netfilter.nf_conntrack_tcp_loose \
		2>/dev/null | paste -sd, -
}

# The responder's contract with the host firewall (issue 26): under each
# firewall of sc_fw, loaded before and after the responder (its tables'
# input chains sit at priority filter - 10, whatever the load order), the
# allowed sources (10.9.0.1, fd09::1) get SYN-ACKs and connect, through
# the program (xdp, xdp-generic, tc: the returning ACK goes to SYNPROXY,
# which opens the connection through conntrack) or SYNPROXY itself (nft);
# the rejected ones (10.9.0.3, fd09::3) get neither, as with the firewall
# alone (base). Every sysctl is back after each detach.
case_syn_firewall() {
	local t="syn-firewall" fw order m src r k=0 sys0 sys1

	sc_quick_guest_skip "$t" && return
	for fw in ctinv ipt; do
		for order in before after; do
			sc_up && ip -n "$SC_C" addr add 10.9.0.3/24 dev veth0 &&
				ip -n "$SC_C" addr add fd09::3/64 dev veth0 nodad ||
				{ unexpected "set-up" "$fw/$order: the namespaces"; break 2; }
			# iptables' tables and conntrack first, so the sysctl exists
			[ $order = before ] && { sc_fw $fw || { unexpected "$fw" "the firewall refused"; break 2; }; }
			for m in base xdp xdp-generic tc nft; do
				[ $m = nft ] && ! command -v nft >/dev/null && continue
				[ $order = after ] && [ $m = base ] && continue
				sys0=$(sc_sysctls)
				if ! sc_attach_mode $m "$SC_PORT --allow 10.9.0.1,fd09::1/128 --set-sysctl"; then
					[ $m = xdp ] && { note "$t: no native XDP here: $(head -1 "$TMPD/err")"; continue; }
					unexpected "$fw/$order: attach $m" "$(head -1 "$TMPD/err")"
					continue
				fi
				if [ $order = after ]; then
					sc_fw $fw || unexpected "$fw" "the firewall refused after $m"
				fi
				for src in 10.9.0.1 10.9.0.3 fd09::1 fd09::3; do
					r=$(sc_src_try $src)
					# allowed: every SYN answered, connected; rejected:
					# no SYN-ACK, and connect fails (exit 1 or more)
					case $src in
					*.1|*::1) expect_eq "$fw/$order $m $src: SYN-ACKs, connect's exit status" \
						"$SC_N 0" "$r" ;;
					*) expect_glob "$fw/$order $m $src: SYN-ACKs, connect's exit status" \
						"0 [1-9]*" "$r" ;;
					esac
					k=$((k + 1))
				done
				sc_detach_mode $m
				if [ $order = after ]; then
					# the firewall goes with the responder, as it came
					ip netns exec "$SC_S" nft flush ruleset
					ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1 2>/dev/null
				fi
				sys1=$(sc_sysctls)
				expect_eq "$fw/$order $m: the sysctls after detach" "$sys0" "$sys1"
			done
			sc_down
		done
	done
	expect_verdict "$t" "$k source x mode x firewall checks: under ct state invalid drop with nf_conntrack_tcp_loose=0 and under iptables ! --syn NEW DROP, loaded before and after the responder, allowed sources got SYN-ACKs and connected, rejected ones neither, as with the firewall alone (IPv4, IPv6; xdp, xdp-generic, tc, nft); sysctls back after each detach"
}
cg_kernel_case syn_firewall

# A ruleset flushed under a running responder (nft flush ruleset): status
# says its tables are gone, attach run again makes them and connections
# go through SYNPROXY again; detach without that attach puts every sysctl
# back (nf_conntrack_tcp_loose, which nft mode sets, included) and leaves
# no table.
case_syn_flush() {
	local t="syn-flush" m sys0 st addr v0

	command -v nft >/dev/null || { skip "$t: no nft"; return; }
	for m in xdp-generic tc nft; do
		sc_up || { unexpected "set-up" "the namespaces"; break; }
		ip netns exec "$SC_S" sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1 2>/dev/null
		sys0=$(sc_sysctls)
		expect_ok "attach $m" sc_on --ports $SC_PORT --mode $m --set-sysctl || { sc_down; continue; }
		ip netns exec "$SC_S" nft flush ruleset
		st=$("$CG" syncookie status veth1 --netns "$SC_S")
		case $m in
		nft) expect_grep "$m: status after the flush" 'not answering SYNs: its nft tables are gone' - <<<"$st" ;;
		*) expect_grep "$m: status after the flush" "answering SYNs ($m).*its nft tables are gone" - <<<"$st" ;;
		esac
		expect_eq "$m: status --json's tables after the flush" gone \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)"
		# attach again, as before (the sysctl it set still holds)
		expect_ok "$m: attach again" sc_on --ports $SC_PORT --mode $m
		expect_eq "$m: status --json's tables after attach again ($("$CG" syncookie status veth1 --netns "$SC_S"))" ok \
			"$("$CG" syncookie status veth1 --netns "$SC_S" --json | jq -r .tables)"
		for addr in 10.9.0.2 fd09::2; do
			v0=$(synproxy_valid)
			expect_connect "$m $addr, after attach again" $addr
			expect_counter "$m $addr: cookie_valid after attach again" 1 $v0 $(synproxy_valid)
		done
		# flushed again, then detached: every sysctl back, no table
		ip netns exec "$SC_S" nft flush ruleset
		expect_ok "$m: detach" sc_off
		expect_eq "$m: the sysctls after detach" "$sys0" "$(sc_sysctls)"
		expect_eq "$m: the tables left" "" "$(ip netns exec "$SC_S" nft list tables)"
		sc_down
	done
	expect_verdict "$t" "xdp-generic, tc, nft: after nft flush ruleset status says the tables are gone, attach again makes them and IPv4 and IPv6 connect through SYNPROXY; flushed and detached, every sysctl is back and no table left"
}
cg_kernel_case syn_flush
