// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * syncookie.bpf.c - answer TCP SYNs to protected ports with a SYN cookie
 * SYN-ACK straight from the device's receive hook, so that a SYN flood
 * never reaches the listener's request queue. The kernel issues the cookie:
 * a raw one (bpf_tcp_raw_gen_syncookie_ipv4/6, 6.0+) where the hand-off
 * tables give its ACK to SYNPROXY, which checks it and opens the connection
 * to the listener; else the listener's (bpf_tcp_gen_syncookie, 5.3+), whose
 * ACK the kernel's own cookie path takes. Either way the connection is the
 * stack's from then on.
 *
 * One parser serves two hooks: XDP (the frame goes back with XDP_TX) and
 * tc ingress (redirected to the same device's egress), each with a program
 * that reads the listener through bpf_rdonly_cast (6.2+) and one that
 * calls bpf_skc_to_tcp_sock (_h). Uapi structures only, no CO-RE (the one
 * kernel type id it needs comes in its read-only data): it loads on any
 * kernel with the helper (syncookie_ack only where its kfunc is,
 * attach.c).
 *
 * Its MSS is this host's (the device's MTU, and the listener's TCP_MAXSEG
 * as far as the cookie shows it); the cookie encodes the client's. Where
 * the SYN has a timestamp and something reads them back (sc_conf.opts:
 * SYNPROXY, for raw cookies; the kernel under tcp_timestamps 2, no secret
 * offset; or syncookie_ack, a third program on tc ingress, 6.9+), the
 * SYN-ACK carries a timestamp whose
 * low 6 bits hold the client's window scale, SACK-permitted and ECN as the
 * kernel's cookie_init_timestamp() writes them, with the window scale and
 * SACK-permitted options themselves; otherwise the MSS option alone, as
 * the kernel's own cookies for a client without timestamps (no window
 * scaling: a 64 KiB window). Anything that is not a well-formed SYN to a protected port,
 * addressed to this host the way its own stack would take it (sc_for_us),
 * or that the helper declines, passes untouched.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "syncookie_abi.h"
#include "sc_syn.bpf.h"
#include "sc_ack.bpf.h"

/*
 * Judge the frame. SC_ANSWER: it has become the SYN-ACK, to be cut to
 * *len bytes (never more than it had) and sent back. Otherwise it is
 * untouched. Counts every SYN to a protected port it does not answer.
 * ifindex: the device the frame came in on.
 *
 * One function of about 300 lines, on purpose: its parts share the packet
 * pointers and the bounds proved on them, and the verifiers of 5.10 to 7.2
 * take the code the compiler makes of it as one piece. Splitting it, even
 * into inlined helpers, moves registers and stack slots, and 6.1's verifier
 * has refused such a move before (see the asm below); a split is for a
 * change that boots every kernel line of make test-matrix.
 */
static __always_inline int sc_handle(void *ctx, void *data, void *data_end, __u32 ifindex,
				     __u32 *len, bool cast)
{
	__u32 thbuf[SC_TH_MAX / 4] = {};
	struct ethhdr *eth = data;
	struct iphdr *ip4 = data + ETH_HLEN;
	struct ipv6hdr *ip6 = data + ETH_HLEN;
	__u32 thlen, seglen, tlen, i, *w;
	__u64 hl;
	__u64 sum = 0;
	struct sc_conf *conf;
	struct bpf_sock *sk;
	struct sc_tcp t = {};
	struct sc_synopt so;
	struct sc_scratch *scr;
	__u8 *pos;
	__u32 zero = 0, adv, user_mss;
	bool ts_ok, ws_ok, sack_ok, ecn_ok, plain = false;
	__u64 ts;
	__u8 mac[ETH_ALEN];
	__s64 cookie;
	__u32 mss;
	bool v6;
	__u8 *th;

	if ((void *)(eth + 1) > data_end || (eth->h_dest[0] & 1) || (eth->h_source[0] & 1))
		return SC_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		v6 = false;
	else if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		v6 = true;
	else
		return SC_PASS;
	if (!v6) {
		th = (__u8 *)(ip4 + 1);
		/* options and fragments are left to the stack */
		if ((void *)th > data_end || ip4->ihl != 5 || ip4->protocol != IPPROTO_TCP ||
		    (ip4->frag_off & bpf_htons(SC_IP_FRAG)))
			return SC_PASS;
		/* neither from nor to multicast, broadcast or 0.0.0.0 */
		if ((bpf_ntohl(ip4->saddr) >> 28) >= 0xe || (bpf_ntohl(ip4->daddr) >> 28) >= 0xe ||
		    !ip4->saddr || !ip4->daddr)
			return SC_PASS;
	} else {
		th = (__u8 *)(ip6 + 1);
		/* extension headers are left to the stack */
		if ((void *)th > data_end || ip6->nexthdr != IPPROTO_TCP ||
		    ip6->saddr.s6_addr[0] == 0xff || ip6->daddr.s6_addr[0] == 0xff)
			return SC_PASS;
	}
	/* a SYN to a protected port, or none of our business */
	if ((void *)(th + 20) > data_end)
		return SC_PASS;
	if ((th[13] & (TH_SYN | TH_ACK)) != TH_SYN || !sc_port_protected(bpf_ntohs(*(__be16 *)(th + 2))))
		return SC_PASS;
	conf = bpf_map_lookup_elem(&sc_conf, &zero);
	if (!conf || !sc_for_us(conf, eth, ip4, v6, ifindex)) {
		sc_count(SC_CNT_FOREIGN);
		return SC_PASS;
	}

	thlen = (th[12] >> 4) * 4;
	if (!v6) {
		tlen = bpf_ntohs(ip4->tot_len);
		seglen = tlen - SC_IP4_LEN;
		tlen += ETH_HLEN;
		if (tlen < ETH_HLEN + SC_IP4_LEN)
			goto malformed;
		/* the IP header checksum */
		if (sc_fold(sc_ip4_sum(ip4)) != 0xffff)
			goto malformed;
		sum = (__u64)ip4->saddr + ip4->daddr + bpf_htonl((IPPROTO_TCP << 16) | (seglen & 0xffff));
	} else {
		seglen = bpf_ntohs(ip6->payload_len);
		tlen = ETH_HLEN + SC_IP6_LEN + seglen;
		w = (__u32 *)&ip6->saddr;
#pragma unroll
		for (i = 0; i < 8; i++)
			sum += w[i];
		sum += bpf_htonl(seglen) + bpf_htonl(IPPROTO_TCP);
	}
	if ((th[13] & (TH_FIN | TH_RST)) || thlen < 20 || seglen < thlen ||
	    tlen > (__u64)(data_end - data))
		goto malformed;
	if (seglen != thlen) {
		/* data on the SYN (Fast Open): the stack's */
		sc_count(SC_CNT_PASSED);
		return SC_PASS;
	}
	/* checksum the header, copying it for the helper, which wants
	 * exactly doff * 4 bytes it can see */
	w = (__u32 *)th;
#pragma unroll
	for (i = 0; i < SC_TH_MAX / 4; i++) {
		if (i * 4 < thlen) {
			if ((void *)(w + i + 1) > data_end)
				goto malformed;
			thbuf[i] = w[i];
			sum += w[i];
		}
	}
	scr = bpf_map_lookup_elem(&sc_scratch, &zero);
	if (!scr)
		goto passed;
	pos = scr->pos;
	if (sc_fold(sum) != 0xffff)
		goto malformed;
	if (!sc_options_linux(th, thlen, data_end, pos)) {
		pos[2] = pos[3] = pos[4] = pos[8] = 0;
		if (!sc_options_ok(th, thlen, data_end, pos))
			goto malformed;
	}
	sc_synopt(th, data_end, pos, &so);

	sk = sc_lookup(ctx, ip4, ip6, th, v6);
	if (!sk)
		goto passed;	/* closed: the stack resets it */
	/* a listener, and not one bound to loopback (the stack would never
	 * take a SYN from the wire for it) */
	if (sk->state != BPF_TCP_LISTEN ||
	    (!v6 && (bpf_ntohl(sk->src_ip4) >> 24) == 127) ||
	    (v6 && !(sk->src_ip6[0] | sk->src_ip6[1] | sk->src_ip6[2]) &&
	     sk->src_ip6[3] == bpf_htonl(1))) {
		bpf_sk_release(sk);
		goto passed;
	}
	/*
	 * The length in a register the verifier knows to be within [20, 60]
	 * (it is: checked above). 6.1 refuses a maybe-zero size, and loses a
	 * check made on another copy of a spilled value; bounded inside one
	 * asm block, every copy of it is bounded.
	 */
	hl = thlen;
	asm volatile("%0 &= 0x3c\n\tif %0 > 19 goto +1\n\t%0 = 20" : "+r"(hl));
	/* the listener's TCP_MAXSEG, and whether it keeps the default
	 * window, where this kernel lets us read them: a listener is a full
	 * TCP socket, its struct tcp_sock (cast: read as that, no call) */
	user_mss = 0;
	if (sc_user_mss_off && (!cast || sc_tcp_sock_btf)) {
		char *tp = cast ? (char *)bpf_rdonly_cast(sk, sc_tcp_sock_btf) :
				  (char *)bpf_skc_to_tcp_sock(sk);

		if (tp) {
			user_mss = *(__u16 *)(tp + sc_user_mss_off);
			if (sc_wclamp_off && sc_userlocks_bit)
				plain = !*(__u32 *)(tp + sc_wclamp_off) &&
					!((*(__u8 *)(tp + sc_userlocks_bit / 8) >>
					   (sc_userlocks_bit % 8)) & SC_SOCK_RCVBUF_LOCK);
		}
	}
	/*
	 * A raw cookie (SC_OPT_RAW) for SYNPROXY, of no listener and no
	 * sysctl; else the listener's, which the kernel issues only under
	 * tcp_syncookies 2 or a full SYN queue (-ENOENT otherwise)
	 */
	if (sc_raw && (conf->opts & SC_OPT_RAW))
		cookie = v6 ? bpf_tcp_raw_gen_syncookie_ipv6(ip6, (void *)thbuf, hl) :
			      bpf_tcp_raw_gen_syncookie_ipv4(ip4, (void *)thbuf, hl);
	else if (!v6)
		cookie = bpf_tcp_gen_syncookie(sk, ip4, SC_IP4_LEN, (void *)thbuf, hl);
	else
		cookie = bpf_tcp_gen_syncookie(sk, ip6, SC_IP6_LEN, (void *)thbuf, hl);
	bpf_sk_release(sk);
	if (cookie < 0)
		goto passed;
	mss = cookie >> 32;
	/*
	 * What we advertise, as the stack does: the device's MSS, clamped by
	 * the listener's TCP_MAXSEG. Where that cannot be read, the cookie
	 * shows it, coarsely: the helper clamps the client's MSS by it before
	 * quantising, so a cookie MSS below the client's own (no option: the
	 * kernel's default, 536 or 1220) is the listener's doing.
	 */
	adv = v6 ? conf->mss6 : conf->mss4;
	if (user_mss && user_mss < adv)
		adv = user_mss;
	else if (!sc_user_mss_off && mss < sc_mss_quantum(so.mss ?: (v6 ? 1220 : 536), v6) &&
		 mss < adv)
		adv = mss;

	/*
	 * The options, as the kernel's cookie_init_timestamp() and
	 * cookie_timestamp_decode() see them: only with a timestamp, each
	 * only where the SYN offers it and the namespace allows it; window
	 * scaling only to a listener whose scale is the default one; ECN
	 * (RFC 3168: ECE and CWR on a not-ECT SYN, no AccECN) where tcp_ecn
	 * is 1 or 2. What does not fit in the SYN's header is left out
	 * (window scaling first): the reply is built in its place.
	 */
	ts_ok = (conf->opts & (SC_OPT_TS | SC_OPT_ACK)) && so.ts;
	ws_ok = ts_ok && (conf->opts & SC_OPT_WS) && so.ws != 0xff && plain && thlen >= 40;
	sack_ok = ts_ok && (conf->opts & SC_OPT_SACK) && so.sack;
	ecn_ok = ts_ok && (conf->opts & SC_OPT_ECN) &&
		 (th[13] & (TH_ECE | TH_CWR)) == (TH_ECE | TH_CWR) && !(th[12] & 0x0f) &&
		 !(v6 ? (bpf_ntohl(*(__be32 *)ip6) >> 20) & 3 : ip4->tos & 3);
	if (thlen < 36)
		ts_ok = false;

	/* The reply, in place: addresses and ports swapped, seq the cookie. */
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	tlen = thlen > 20 ? 24 : 20;	/* no room, no MSS option: 536 */
	t.source = *(__be16 *)(th + 2);
	t.dest = *(__be16 *)th;
	t.seq = bpf_htonl((__u32)cookie);
	t.ack_seq = bpf_htonl(bpf_ntohl(*(__be32 *)(th + 4)) + 1);
	t.flags = TH_SYN | TH_ACK;
	/* well inside the window the listener gives the cookie socket */
	t.window = bpf_htons(mss * 10 > 65535 ? 65535 : mss * 10);
	t.opt[0] = 2;
	t.opt[1] = 4;
	*(__be16 *)&t.opt[2] = bpf_htons(adv);
	if (ts_ok) {
		__u32 bits = (ws_ok ? so.ws : SC_TS_OPT_NOWS) | (sack_ok ? SC_TS_OPT_SACK : 0) |
			     (ecn_ok ? SC_TS_OPT_ECN : 0);

		if (conf->opts & SC_OPT_TS) {
			/*
			 * The kernel's clock for timestamps (ms of
			 * CLOCK_MONOTONIC, with no offset under tcp_timestamps
			 * 2), its low bits the options; never ahead of the
			 * clock, or the client's PAWS would drop the
			 * connection's first segments
			 */
			__u64 now = sc_clock_ms(scr);

			ts = ((now >> SC_TS_BITS) << SC_TS_BITS) | bits;
			if (ts > now)
				ts -= 1 << SC_TS_BITS;
		} else {
			/* for syncookie_ack, which the kernel's clock follows */
			ts = (SC_TS_TAG(cookie) << SC_TS_TAG_SHIFT) |
			     (sc_mss_index(mss, v6) << SC_TS_MSS_SHIFT) | bits;
		}
		t.opt[4] = sack_ok ? 4 : 1;
		t.opt[5] = sack_ok ? 2 : 1;
		t.opt[6] = 8;
		t.opt[7] = 10;
		*(__be32 *)&t.opt[8] = bpf_htonl((__u32)ts);
		*(__be32 *)&t.opt[12] = bpf_htonl(so.tsval);
		tlen = 36;
		if (ws_ok) {
			t.opt[16] = 1;
			t.opt[17] = 3;
			t.opt[18] = 3;
			t.opt[19] = conf->wscale;
			tlen = 40;
		}
		if (ecn_ok)
			t.flags |= TH_ECE;
	}
	t.doff = (tlen / 4) << 4;
	if (!v6) {
		__be32 a = ip4->saddr;

		ip4->saddr = ip4->daddr;
		ip4->daddr = a;
		ip4->tos = 0;
		ip4->tot_len = bpf_htons(SC_IP4_LEN + tlen);
		ip4->id = 0;
		ip4->frag_off = bpf_htons(SC_IP_DF);
		ip4->ttl = SC_TTL;
		ip4->check = 0;
		ip4->check = ~sc_fold(sc_ip4_sum(ip4));
		sum = (__u64)ip4->saddr + ip4->daddr + bpf_htonl((IPPROTO_TCP << 16) | tlen);
		*len = ETH_HLEN + SC_IP4_LEN + tlen;
	} else {
		struct in6_addr a = ip6->saddr;

		ip6->saddr = ip6->daddr;
		ip6->daddr = a;
		*(__be32 *)ip6 = bpf_htonl(0x60000000);	/* no class, no flow label */
		ip6->payload_len = bpf_htons(tlen);
		ip6->hop_limit = SC_TTL;
		sum = bpf_htonl(tlen) + bpf_htonl(IPPROTO_TCP);
		w = (__u32 *)&ip6->saddr;
#pragma unroll
		for (i = 0; i < 8; i++)
			sum += w[i];
		*len = ETH_HLEN + SC_IP6_LEN + tlen;
	}
	w = (__u32 *)&t;
#pragma unroll
	for (i = 0; i < sizeof(t) / 4; i++)
		if (i * 4 < tlen)
			sum += w[i];
	t.check = ~sc_fold(sum);
	/* thlen >= tlen: the SYN's header has room for ours */
	__builtin_memcpy(th, &t, 20);
	if (tlen >= 24 && (void *)(th + 24) <= data_end)
		__builtin_memcpy(th + 20, &t.opt[0], 4);
	if (tlen >= 36 && (void *)(th + 36) <= data_end)
		__builtin_memcpy(th + 24, &t.opt[4], 12);
	if (tlen >= 40 && (void *)(th + 40) <= data_end)
		__builtin_memcpy(th + 36, &t.opt[16], 4);
	return SC_ANSWER;

malformed:
	sc_count(SC_CNT_MALFORMED);
passed:
	sc_count(SC_CNT_PASSED);
	return SC_PASS;
}

static __always_inline int sc_xdp(struct xdp_md *ctx, bool cast)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 len;

	if (sc_handle(ctx, data, data_end, ctx->ingress_ifindex, &len, cast) != SC_ANSWER)
		return XDP_PASS;
	/* only ever shrinks, which fails only below an Ethernet header; a
	 * SYN-ACK as long as the SYN (Linux's 40-byte header) needs no cut */
	if (len != data_end - data && bpf_xdp_adjust_tail(ctx, (int)len - (int)(data_end - data)))
		return XDP_DROP;
	sc_count(SC_CNT_SYNACK);
	return XDP_TX;
}

/*
 * Each hook's program twice: the listener read through bpf_rdonly_cast
 * (sc_tcp_sock_btf), and through bpf_skc_to_tcp_sock (_h, for kernels
 * without the kfunc); attach loads one of them (load.c)
 */
SEC("xdp")
int syncookie_xdp(struct xdp_md *ctx)
{
	return sc_xdp(ctx, true);
}

SEC("xdp")
int syncookie_xdp_h(struct xdp_md *ctx)
{
	return sc_xdp(ctx, false);
}

/*
 * tc: the frame's data, a small frame not all in the linear part pulled in
 * once; false if that fails
 */
static __always_inline bool sc_tc_data(struct __sk_buff *skb, void **data, void **data_end)
{
	*data = (void *)(long)skb->data;
	*data_end = (void *)(long)skb->data_end;
	if (skb->len <= 256 && *data + skb->len > *data_end) {
		if (bpf_skb_pull_data(skb, skb->len))
			return false;
		*data = (void *)(long)skb->data;
		*data_end = (void *)(long)skb->data_end;
	}
	return true;
}

static __always_inline int sc_tc(struct __sk_buff *skb, bool cast)
{
	void *data, *data_end;
	__u32 len;

	if (!sc_tc_data(skb, &data, &data_end))
		return TC_ACT_NEXT;
	/*
	 * A tagged frame is the stack's (as XDP, which sees the tag in the
	 * frame, leaves it): tc has the tag in the skb, not in the frame, and
	 * an answer would go back tagged for a VLAN the host may not have.
	 */
	if (skb->vlan_present)
		return TC_ACT_NEXT;
	if (sc_handle(skb, data, data_end, skb->ifindex, &len, cast) != SC_ANSWER)
		return TC_ACT_NEXT;
	/* the SYN is gone either way: a failed cut drops it, the client retries */
	if (len != skb->len && bpf_skb_change_tail(skb, len, 0))
		return TC_ACT_SHOT;
	sc_count(SC_CNT_SYNACK);
	return bpf_redirect(skb->ifindex, 0);
}

SEC("tc")
int syncookie_tc(struct __sk_buff *skb)
{
	return sc_tc(skb, true);
}

SEC("tc")
int syncookie_tc_h(struct __sk_buff *skb)
{
	return sc_tc(skb, false);
}

/*
 * The returning ACK of a SYN-ACK of ours, where the kernel's own cookie
 * path would not take it with its options: their TSecr carries our tag for
 * the cookie, the MSS and the options (SC_OPT_ACK); with raw cookies
 * (SC_OPT_RAW: normally SYNPROXY's, through the hand-off tables, which run
 * after this program and take the ACK anyway; this is for when they are
 * gone) also an ACK without timestamps, whose MSS no echo tells: the
 * smallest of the kernel's table, never more than the client offered. The
 * kernel checks the cookie (bpf_tcp_raw_check_syncookie_ipv4/6, or
 * bpf_tcp_check_syncookie, the check its own path makes) and, for a
 * listener, takes a request socket with those options (as far as the
 * namespace still allows them: sc_ack_attrs), which its cookie path turns
 * into the connection. Only an ACK addressed as sc_for_us wants a SYN is
 * looked at: one the host forwards, or from a source it would not answer,
 * is never given a local listener's socket. Anything else goes on untouched: the
 * stack's established and request sockets, other cookies (the kernel's
 * own, under its own offset), bad cookies (the stack resets them). A good
 * cookie the kernel will not make a connection of is dropped: its own
 * cookie path would refuse a raw one, and read the options from our
 * timestamp under its secret offset, wrongly.
 */
/* (A little over 100 lines for the same reason as sc_handle: one path the
 * verifier has seen as it is, on 6.9 to 6.18.) */
SEC("tc")
int syncookie_ack(struct __sk_buff *skb)
{
	struct bpf_tcp_req_attrs attrs = {};
	struct ipv6hdr *ip6;
	struct ethhdr *eth;
	struct iphdr *ip4;
	void *data, *data_end;
	struct sc_conf *conf;
	struct sc_scratch *scr;
	struct bpf_sock *sk;
	struct tcp_sock *tp;
	__u32 zero = 0, thlen, tsval = 0, tsecr = 0, iplen;
	__u8 *th, *pos, *o;
	bool v6, raw, ts = false;
	long bad;
	int ret;

	if (!sc_tc_data(skb, &data, &data_end))
		return TC_ACT_NEXT;
	eth = data;
	ip4 = data + ETH_HLEN;
	ip6 = data + ETH_HLEN;
	if (skb->vlan_present || (void *)(eth + 1) > data_end)
		return TC_ACT_NEXT;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		v6 = false;
		iplen = SC_IP4_LEN;
		th = (__u8 *)(ip4 + 1);
		if ((void *)th > data_end || ip4->ihl != 5 || ip4->protocol != IPPROTO_TCP ||
		    (ip4->frag_off & bpf_htons(SC_IP_FRAG)))
			return TC_ACT_NEXT;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		v6 = true;
		iplen = SC_IP6_LEN;
		th = (__u8 *)(ip6 + 1);
		if ((void *)th > data_end || ip6->nexthdr != IPPROTO_TCP)
			return TC_ACT_NEXT;
	} else {
		return TC_ACT_NEXT;
	}
	/* an ACK (no SYN, no RST) to a protected port, while we tag or issue raw cookies */
	if ((void *)(th + 20) > data_end || (th[13] & (TH_SYN | TH_RST | TH_ACK)) != TH_ACK ||
	    !sc_port_protected(bpf_ntohs(*(__be16 *)(th + 2))))
		return TC_ACT_NEXT;
	conf = bpf_map_lookup_elem(&sc_conf, &zero);
	scr = bpf_map_lookup_elem(&sc_scratch, &zero);
	if (!conf || !(conf->opts & (SC_OPT_ACK | SC_OPT_RAW)) || !scr)
		return TC_ACT_NEXT;
	pos = scr->pos;
	/* addressed to this host as its SYNs must be (sc_for_us): not forwarded through it */
	if (!sc_for_us(conf, eth, ip4, v6, skb->ifindex))
		return TC_ACT_NEXT;
	raw = sc_raw && (conf->opts & SC_OPT_RAW);
	thlen = (th[12] >> 4) * 4;
	pos[8] = 0;
	if (thlen >= 32 && sc_options_ok(th, thlen, data_end, pos) && pos[8]) {
		o = th + (pos[8] & 63);
		if ((void *)(o + 10) > data_end || o[0] != 8 || o[1] != 10)
			return TC_ACT_NEXT;
		tsval = ((__u32)o[2] << 24) | ((__u32)o[3] << 16) | ((__u32)o[4] << 8) | o[5];
		tsecr = ((__u32)o[6] << 24) | ((__u32)o[7] << 16) | ((__u32)o[8] << 8) | o[9];
		if (tsecr >> SC_TS_TAG_SHIFT != SC_TS_TAG(bpf_ntohl(*(__be32 *)(th + 8)) - 1))
			return TC_ACT_NEXT;
		ts = true;
	} else if (!raw) {
		return TC_ACT_NEXT;	/* no timestamp: the kernel's path takes its cookie */
	}

	sk = sc_lookup(skb, ip4, ip6, th, v6);
	if (!sk)
		return TC_ACT_NEXT;
	/* a connection or request of the stack's own: its segment */
	if (sk->state != BPF_TCP_LISTEN)
		goto next;
	if (raw)
		bad = v6 ? bpf_tcp_raw_check_syncookie_ipv6(ip6, (void *)th) :
			   bpf_tcp_raw_check_syncookie_ipv4(ip4, (void *)th);
	else
		bad = bpf_tcp_check_syncookie(sk, v6 ? (void *)ip6 : (void *)ip4, iplen,
					      (void *)th, 20);
	if (bad)
		goto next;	/* not a cookie of this host's now: the stack resets it */
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		goto refused;
	if (!sc_ack_attrs(conf, ts, tsval, tsecr, v6, &attrs))
		goto refused;
	ret = bpf_sk_assign_tcp_reqsk(skb, (struct sc_kernel_sock *)tp, &attrs, sizeof(attrs));
	bpf_sk_release(sk);
	if (ret) {
		sc_count(SC_CNT_ACK_REFUSED);
		return TC_ACT_SHOT;
	}
	sc_count(SC_CNT_ACK);
	return TC_ACT_NEXT;
refused:
	bpf_sk_release(sk);
	sc_count(SC_CNT_ACK_REFUSED);
	return TC_ACT_SHOT;
next:
	bpf_sk_release(sk);
	return TC_ACT_NEXT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
