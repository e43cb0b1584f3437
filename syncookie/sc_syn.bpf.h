/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sc_syn.bpf.h - what the responder's programs (syncookie.bpf.c) share:
 * their constants, the read-only settings attach fills in, the maps, and
 * the helpers that read a SYN and the host: its options, whether it is
 * addressed to us, its listener, the kernel's MSS table. Included once, by
 * syncookie.bpf.c only.
 */
#ifndef SC_SYN_BPF_H
#define SC_SYN_BPF_H

#define TC_ACT_NEXT	(-1)	/* tcx: TCX_NEXT; clsact: next filter */
#define SC_TTL		64
#define SC_IP4_LEN	20
#define SC_IP6_LEN	40
#define SC_TH_MAX	60
#define SC_OPT_MAX	40
#define SC_IP_DF	0x4000
#define SC_IP_FRAG	0x3fff	/* MF and the offset */
#define TH_FIN		0x01
#define TH_SYN		0x02
#define TH_RST		0x04
#define TH_ACK		0x10
#define TH_ECE		0x40
#define TH_CWR		0x80
#define SC_TS_OPT_NOWS	0x0f	/* the cookie timestamp's bits: no window scale, */
#define SC_TS_OPT_SACK	0x10	/* SACK-permitted, */
#define SC_TS_OPT_ECN	0x20	/* ECN */
#define SC_TS_BITS	6
#define SC_SOCK_RCVBUF_LOCK 2

const volatile __u32 abi_version = SC_ABI_VERSION;
/*
 * offsetof(struct tcp_sock, rx_opt.user_mss) on this kernel, from its BTF
 * (attach.c), or 0: unknown, and the code that reads it is dead to the
 * verifier, so the program still loads where bpf_skc_to_tcp_sock (5.9) or
 * BTF is missing.
 */
const volatile __u32 sc_user_mss_off = 0;
/*
 * With it (or not at all): offsetof(struct tcp_sock, window_clamp) and the
 * bit offset of struct sock's sk_userlocks. A listener with either set
 * (TCP_WINDOW_CLAMP, SO_RCVBUF) gets a window scale of its own when the
 * kernel builds the connection from the cookie, which the program does not
 * work out: it offers no window scaling to those.
 */
const volatile __u32 sc_wclamp_off = 0;
const volatile __u32 sc_userlocks_bit = 0;
/*
 * With them, where the kernel has bpf_rdonly_cast (6.2+): the BTF id of
 * struct tcp_sock in its vmlinux, for syncookie_xdp and syncookie_tc,
 * which read the listener through that kfunc (inlined: no call, and none
 * of the listener's lines but those read) instead of bpf_skc_to_tcp_sock.
 * 0: the _h programs, which call the helper, are the ones attach loads (a
 * kfunc the kernel lacks may not appear in a program it is given at all).
 */
const volatile __u32 sc_tcp_sock_btf = 0;
extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym __weak;
/*
 * 1: the kernel has bpf_tcp_raw_gen_syncookie_ipv4/6 and
 * bpf_tcp_raw_check_syncookie_ipv4/6 (6.0+, attach probes them), used
 * where sc_conf says SC_OPT_RAW; 0: the code that calls them is dead to
 * the verifier, so the program still loads on 5.x.
 */
const volatile __u32 sc_raw = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_ports);
} sc_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sc_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_conf);
} sc_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, SC_ROUTES_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sc_route_key);
	__type(value, __u32);
} sc_routes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, SC_ROUTES_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sc_route4_key);
	__type(value, __u32);
} sc_routes4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SC_RTAB4_NODES);
	__type(key, __u32);
	__type(value, struct sc_rtab4_node);
} sc_rtab4 SEC(".maps");

/*
 * Per CPU: the kernel's clock for timestamps as this CPU last read it
 * (sc_clock_ms), and sc_options_ok's scratch (where each kind of option
 * is, by kind); the clock first, so that it shares a cache line with the
 * options Linux sends
 */
struct sc_scratch {
	__u64 jiffies;	/* when the clock was read: bpf_jiffies64() then */
	__u64 ms;	/* CLOCK_MONOTONIC in ms */
	__u8 pos[256];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_scratch);
} sc_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, SC_ALLOW_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sc_route_key);
	__type(value, __u32);
} sc_allow SEC(".maps");

/*
 * The SYN-ACK's TCP header, built on the stack for its checksum. Its
 * options in the kernel's order: MSS; SACK-permitted (or two NOPs) and the
 * timestamp; a NOP and the window scale. 24, 36 or 40 bytes of it are sent.
 */
struct sc_tcp {
	__be16 source, dest;
	__be32 seq, ack_seq;
	__u8 doff;		/* data offset << 4 */
	__u8 flags;
	__be16 window, check, urg_ptr;
	__u8 opt[20];
};

/* What a SYN's options offer */
struct sc_synopt {
	__u32 mss;		/* 0: no MSS option */
	__u32 tsval;		/* with ts */
	__u32 ts, sack;
	__u32 ws;		/* its window scale (at most 14), 0xff: none */
};

enum { SC_PASS, SC_ANSWER };

static __always_inline void sc_count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&sc_counters, &idx);

	if (c)
		*c += 1;
}

static __always_inline __u16 sc_fold(__u64 s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s;
}

/*
 * CLOCK_MONOTONIC in ms, the clock of TCP timestamps, read once per tick
 * on each CPU: within a tick, what this CPU read at its first SYN of it
 * (jiffies, which the verifier inlines, tell), so never ahead of the clock
 * and about a tick behind it at most.
 */
static __always_inline __u64 sc_clock_ms(struct sc_scratch *c)
{
	__u64 j = bpf_jiffies64();

	if (c->jiffies != j) {
		c->ms = bpf_ktime_get_ns() / 1000000;
		c->jiffies = j;
	}
	return c->ms;
}

/* The 20-byte IPv4 header's sum, unfolded (no helper call: a few adds) */
static __always_inline __u64 sc_ip4_sum(const struct iphdr *ip4)
{
	const __u32 *w = (const __u32 *)ip4;

	return (__u64)w[0] + w[1] + w[2] + w[3] + w[4];
}

static __always_inline bool sc_port_protected(__u16 port)
{
	__u32 key = 0;
	struct sc_ports *p = bpf_map_lookup_elem(&sc_ports, &key);

	return p && (p->bits[(port >> 3) & 8191] & (1 << (port & 7)));
}

/*
 * v as the verifier can no longer tell it: z is 0, but read twice from the
 * packet. What the options offer is blurred so, or every combination of
 * options would be a path of its own through the rest of the program.
 */
static __always_inline __u32 sc_blur(__u32 v, __u32 z)
{
	asm volatile("%0 ^= %1" : "+r"(v) : "r"(z));
	return v;
}

/*
 * The options of the SYN end inside its header: every option but EOL and
 * NOP has a length byte of at least 2 that stays within thlen. The stack
 * tolerates worse; such a SYN is its to judge. The offset of the last
 * option of each kind goes to pos[kind], a per-CPU scratch map: no branch per kind in the loop, which the verifier walks once per
 * iteration (on 5.10 a branch per kind took it past 1M instructions). The
 * mask the compiler cannot drop keeps its states few: off never exceeds 60.
 */
static __always_inline bool sc_options_ok(__u8 *th, __u32 thlen, void *data_end, __u8 *pos)
{
	__u32 off = 20, i;
	__u8 *o;

#pragma clang loop unroll(disable)
	for (i = 0; i < SC_OPT_MAX; i++) {
		asm volatile("%0 &= 63" : "+r"(off));
		if (off >= thlen)
			return true;
		o = th + off;
		if ((void *)(o + 1) > data_end)
			return false;
		if (o[0] == 0)		/* EOL: the rest is padding */
			return true;
		if (o[0] == 1) {	/* NOP */
			off++;
			continue;
		}
		if ((void *)(o + 2) > data_end || o[1] < 2 || off + o[1] > thlen)
			return false;
		pos[o[0]] = off;
		off += o[1];
	}
	return true;
}

/*
 * The options as Linux lays them out in its SYNs (tcp_options_write):
 * MSS, SACK-permitted, timestamp, NOP, window scale, a 40-byte header.
 * Where they are so, what sc_options_ok would find, in pos, without its
 * loop: true. Else false, pos untouched.
 */
static __always_inline bool sc_options_linux(__u8 *th, __u32 thlen, void *data_end, __u8 *pos)
{
	if (thlen != 40 || (void *)(th + 40) > data_end ||
	    *(__u16 *)(th + 20) != bpf_htons(0x0204) ||
	    *(__u32 *)(th + 24) != bpf_htonl(0x0402080a) ||
	    (*(__u32 *)(th + 36) & bpf_htonl(0xffffff00)) != bpf_htonl(0x01030300))
		return false;
	pos[2] = 20;
	pos[3] = 37;
	pos[4] = 24;
	pos[8] = 26;
	return true;
}

/*
 * What the MSS, window scale, SACK-permitted and timestamp options found
 * by sc_options_ok (pos) offer, taken as tcp_parse_options() takes them:
 * each of its own length, the last of a kind.
 */
static __always_inline void sc_synopt(__u8 *th, void *data_end, const __u8 *pos,
				      struct sc_synopt *so)
{
	__u32 z = *(volatile __u8 *)(th + 12) ^ *(volatile __u8 *)(th + 12);
	__u32 mss = 0, ws = 0xff, sack = 0, ts = 0, tsval = 0;
	__u8 *o;

	o = th + (pos[2] & 63);
	if (pos[2] && (void *)(o + 4) <= data_end && o[0] == 2 && o[1] == 4)
		mss = (o[2] << 8) | o[3];
	o = th + (pos[3] & 63);
	if (pos[3] && (void *)(o + 3) <= data_end && o[0] == 3 && o[1] == 3)
		ws = o[2] > 14 ? 14 : o[2];
	o = th + (pos[4] & 63);
	if (pos[4] && (void *)(o + 2) <= data_end && o[0] == 4 && o[1] == 2)
		sack = 1;
	o = th + (pos[8] & 63);
	if (pos[8] && (void *)(o + 10) <= data_end && o[0] == 8 && o[1] == 10) {
		ts = 1;
		tsval = ((__u32)o[2] << 24) | ((__u32)o[3] << 16) | ((__u32)o[4] << 8) | o[5];
	}
	so->mss = sc_blur(mss, z);
	so->ws = sc_blur(ws, z);
	so->sack = sc_blur(sack, z);
	so->ts = sc_blur(ts, z);
	so->tsval = tsval;
}

/* The value of the longest prefix of trie (routes or allow) that holds a 16-byte address, or 0 */
static __always_inline __u32 sc_lpm(void *trie, const void *addr)
{
	struct sc_route_key k = { .prefixlen = 128 };
	__u32 *v;

	__builtin_memcpy(k.addr, addr, 16);
	v = bpf_map_lookup_elem(trie, &k);
	return v ? *v : 0;
}

/* an IPv4 address as the tries keep it: ::ffff:a.b.c.d */
static __always_inline __u32 sc_lpm4(void *trie, __be32 a)
{
	__u32 m[4] = { 0, 0, bpf_htonl(0xffff), a };

	return sc_lpm(trie, m);
}

/*
 * sc_lpm4(&sc_routes, a), from the IPv4 trie's shorter keys where it has
 * a match (always one of at least /96 in sc_routes, so the longest there)
 */
static __always_inline __u32 sc_route4_trie(__be32 a)
{
	struct sc_route4_key k = { .prefixlen = 32, .addr = a };
	__u32 *v = bpf_map_lookup_elem(&sc_routes4, &k);

	return v ? *v : sc_lpm4(&sc_routes, a);
}

/*
 * The same from sc_rtab4 (syncookie_abi.h): the root (node 0), then a
 * node per byte of the address until a slot answers; the tries where the
 * table says so. A loop, and a function of its own (both ends of a SYN
 * call it), not copies: the program runs from a cold instruction cache
 * often enough that its size shows.
 */
static __noinline __u32 sc_route4(__be32 a)
{
	const __u8 *b = (const __u8 *)&a;
	struct sc_rtab4_node *n;
	__u32 k = 0, v = SC_RTAB4_CHILD, i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 4 && (v & SC_RTAB4_KIND) == SC_RTAB4_CHILD; i++) {
		k = v & ~SC_RTAB4_KIND;
		n = bpf_map_lookup_elem(&sc_rtab4, &k);
		v = n ? n->slot[b[i & 3]] : SC_RTAB4_TRIE;
	}
	if ((v & SC_RTAB4_KIND) == SC_RTAB4_CHILD || v == SC_RTAB4_TRIE)
		return sc_route4_trie(a);
	return v;
}

/*
 * Would this host's own stack take the SYN as addressed to it, and be able
 * to answer? The frame is for the device's MAC; the destination is an
 * address of the host (so not another host's, forwarded, nor a subnet
 * broadcast, nor loopback); the source is a unicast address that is not
 * the host's own, not loopback, unspecified, multicast or IPv4-mapped, with
 * a route back through the device the SYN came in on, and (attach --allow)
 * one of the sources the operator allows. Routes and addresses
 * are attach's snapshot of the namespace (bpf_fib_lookup cannot tell: it
 * answers FWD_DISABLED wherever forwarding is off, and NOT_FWDED alike
 * for local, broadcast and unroutable destinations).
 */
static __always_inline bool sc_for_us(const struct sc_conf *c, const struct ethhdr *eth,
				      const void *ip, bool v6, __u32 ifindex)
{
	const struct iphdr *ip4 = ip;
	const struct ipv6hdr *ip6 = ip;

	if (*(__u32 *)eth->h_dest != *(__u32 *)c->mac ||
	    *(__u16 *)(eth->h_dest + 4) != *(__u16 *)(c->mac + 4))
		return false;
	if (!v6) {
		__u32 s = bpf_ntohl(ip4->saddr), d = bpf_ntohl(ip4->daddr);

		/* 0/8, 127/8, multicast, class E and broadcast, either end */
		if ((s >> 24) == 0 || (s >> 24) == 127 || (s >> 28) >= 0xe ||
		    (d >> 24) == 0 || (d >> 24) == 127 || (d >> 28) >= 0xe || s == d)
			return false;
		return (ip4->daddr == c->local4[0] || ip4->daddr == c->local4[1] ||
			sc_route4(ip4->daddr) == SC_ROUTE_LOCAL) &&
		       sc_route4(ip4->saddr) == ifindex &&
		       (!c->allow || sc_lpm4(&sc_allow, ip4->saddr));
	}
	{
		const __u32 *s = ip6->saddr.s6_addr32, *d = ip6->daddr.s6_addr32;

		/* ::, ::1 and ::ffff:0:0/96 as a source; :: and ::1 as a destination */
		if (!(s[0] | s[1]) && (!s[2] || s[2] == bpf_htonl(0xffff)))
			return false;
		if (!(d[0] | d[1] | d[2]) && (!d[3] || d[3] == bpf_htonl(1)))
			return false;
		if (ip6->saddr.s6_addr[0] == 0xff || ip6->daddr.s6_addr[0] == 0xff ||
		    (s[0] == d[0] && s[1] == d[1] && s[2] == d[2] && s[3] == d[3]))
			return false;
		return sc_lpm(&sc_routes, &ip6->daddr) == SC_ROUTE_LOCAL &&
		       sc_lpm(&sc_routes, &ip6->saddr) == ifindex &&
		       (!c->allow || sc_lpm(&sc_allow, &ip6->saddr));
	}
}

/*
 * The socket the segment is for, as the stack would find it (an
 * established or request socket first, else a listener), referenced;
 * NULL if none.
 */
static __always_inline struct bpf_sock *sc_lookup(void *ctx, const struct iphdr *ip4,
						  const struct ipv6hdr *ip6, const __u8 *th, bool v6)
{
	struct bpf_sock_tuple tuple = {};

	if (!v6) {
		tuple.ipv4.saddr = ip4->saddr;
		tuple.ipv4.daddr = ip4->daddr;
		tuple.ipv4.sport = *(__be16 *)th;
		tuple.ipv4.dport = *(__be16 *)(th + 2);
		return bpf_skc_lookup_tcp(ctx, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	}
	__builtin_memcpy(tuple.ipv6.saddr, &ip6->saddr, 16);
	__builtin_memcpy(tuple.ipv6.daddr, &ip6->daddr, 16);
	tuple.ipv6.sport = *(__be16 *)th;
	tuple.ipv6.dport = *(__be16 *)(th + 2);
	return bpf_skc_lookup_tcp(ctx, &tuple, sizeof(tuple.ipv6), BPF_F_CURRENT_NETNS, 0);
}

/* The MSS a cookie carries for mss (the kernel's tables, v4 and v6) */
static __always_inline __u32 sc_mss_quantum(__u32 mss, bool v6)
{
	if (!v6)
		return mss >= 1460 ? 1460 : mss >= 1440 ? 1440 : mss >= 1300 ? 1300 : 536;
	return mss >= 8940 ? 8940 : mss >= 1440 ? 1440 : mss >= 1420 ? 1420 : 1220;
}

/*
 * A quantised MSS as 2 bits of the timestamp (SC_OPT_ACK) and back: the
 * largest entry of the tables above not over it, so that what comes back
 * never exceeds what the client offered.
 */
static __always_inline __u32 sc_mss_index(__u32 mss, bool v6)
{
	if (!v6)
		return mss >= 1460 ? 3 : mss >= 1440 ? 2 : mss >= 1300 ? 1 : 0;
	return mss >= 8940 ? 3 : mss >= 1440 ? 2 : mss >= 1420 ? 1 : 0;
}

static __always_inline __u16 sc_mss_of(__u32 idx, bool v6)
{
	if (!v6)
		return idx == 3 ? 1460 : idx == 2 ? 1440 : idx == 1 ? 1300 : 536;
	return idx == 3 ? 8940 : idx == 2 ? 1440 : idx == 1 ? 1420 : 1220;
}

#endif /* SC_SYN_BPF_H */
