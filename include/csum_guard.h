/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard.h - the drop decision, in one place.
 *
 * A sender that controls a virtio_net_hdr can hand the kernel an skb with
 * ip_summed == CHECKSUM_PARTIAL whose csum_start points inside the IP
 * header. Whoever later completes that checksum (skb_checksum_help() from IP
 * fragmentation, xfrm, nfqueue, xt_CHECKSUM, a transmit path without checksum
 * offload) folds the sum and writes it over the header. IPv6 has the same
 * hole on the transmit path: the sum lands on its addresses, or on an
 * extension header (a routing header's segments, a fragment's offset).
 *
 * cg_verdict() decides whether such a packet is dropped. It takes fields a
 * backend has already parsed (never an skb) so that the BPF program, the
 * kernel module and the userspace unit tests all run the very same code.
 *
 * Three environments include this file:
 *   - the kernel module (__KERNEL__),
 *   - the BPF program (__bpf__, with vmlinux.h included first),
 *   - userspace (tests and the loader).
 */
#ifndef CSUM_GUARD_H
#define CSUM_GUARD_H

#if defined(__KERNEL__)
#include <linux/types.h>
#elif defined(__bpf__)
/* vmlinux.h already defines __u8 .. __u64 and bool */
#else
#include <stdbool.h>
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/* Values of the kernel's ABI, stable since 2.6.19; the module asserts them. */
#define CG_ETH_P_IP		0x0800
#define CG_ETH_P_IPV6		0x86DD
#define CG_ETH_P_8021Q		0x8100
#define CG_ETH_P_8021AD		0x88A8
#define CG_VLAN_HLEN		4
#define CG_ETH_HLEN		14
#define CG_CHECKSUM_PARTIAL	3
#define CG_IPV4_MIN_IHL		5
#define CG_IPV6_HLEN		40
#define CG_IPV6_NEXTHDR_OFF	6	/* of the fixed header's next-header byte */
/* Next-header values of the extension headers (IANA), stable since RFC 2460 */
#define CG_IPPROTO_HOPOPTS	0
#define CG_IPPROTO_ROUTING	43
#define CG_IPPROTO_FRAGMENT	44
#define CG_IPPROTO_AH		51
#define CG_IPPROTO_DSTOPTS	60
#define CG_IPPROTO_MH		135
#define CG_IPPROTO_HIP		139
#define CG_IPPROTO_SHIM6	140
#define CG_IPV6_FRAG_HLEN	8

/*
 * VLAN tags still in the packet that a backend steps over. The kernel strips
 * one tag before the hooks run (skb_vlan_untag()), so a QinQ frame arrives
 * with its inner tag at network_header; a CHECKSUM_PARTIAL frame with more
 * than this many tags left fails closed.
 */
#define CG_VLAN_MAX		4

/*
 * IPv6 extension headers a backend steps over before the transport header.
 * A CHECKSUM_PARTIAL packet whose chain is longer (or cannot be read) and
 * whose csum_start lies past what was walked fails closed: no stack builds
 * such a packet with a checksum left to complete.
 */
#define CG_IPV6_EXT_MAX		8

/*
 * What a backend reads from one skb. Offsets are the kernel's own: counted
 * in bytes from skb->head, as skb->csum_start and skb->network_header are.
 */
struct cg_fields {
	__u32 csum_start;	/* skb->csum_start */
	__u32 network_header;	/* skb->network_header */
	__u16 protocol;		/* skb->protocol, host byte order; after
				 * cg_vlan_step(), the encapsulated type */
	__u8 ip_summed;		/* skb->ip_summed */
	__u8 l3_readable;	/* ip_vhl holds the first byte of the L3 header */
	__u8 ip_vhl;		/* IPv4 version/IHL byte (IPv6: unused) */
	__u8 l3_off;		/* bytes of VLAN tags between network_header
				 * and the L3 header (cg_vlan_step()) */
	__u8 ip6_next;		/* IPv6: the next header after ip6_len bytes */
	__u16 ip6_len;		/* IPv6: bytes of headers walked, from the L3
				 * header (cg_ip6_start(), cg_ip6_step()) */
};

enum cg_verdict {
	CG_PASS = 0,
	CG_DROP,		/* csum_start lies inside the IP header
				 * (IPv6: or an extension header) */
	CG_DROP_UNREADABLE,	/* the IP header cannot be read, IHL < 5, or
				 * an IPv6 chain was not walked to its end */
};

/*
 * Is this packet judged at all? Backends call this before they touch
 * anything else, so that the common case (not CHECKSUM_PARTIAL, not IP)
 * costs two compares. cg_verdict() starts with the same test, so a backend
 * that stops here gets exactly the verdict it would have got by parsing.
 */
static __always_inline bool cg_is_vlan(__u16 protocol)
{
	return protocol == CG_ETH_P_8021Q || protocol == CG_ETH_P_8021AD;
}

static __always_inline bool cg_judged(const struct cg_fields *f)
{
	return f->ip_summed == CG_CHECKSUM_PARTIAL &&
	       (f->protocol == CG_ETH_P_IP || f->protocol == CG_ETH_P_IPV6 ||
		cg_is_vlan(f->protocol));
}

/*
 * Does the backend have a VLAN tag to step over? It reads the 4-byte tag at
 * network_header + l3_off and hands it to cg_vlan_step(), at most
 * CG_VLAN_MAX times; a tag it cannot read ends the walk, and the verdict
 * fails closed on a protocol that is still a VLAN type.
 */
static __always_inline bool cg_wants_vlan(const struct cg_fields *f)
{
	return f->ip_summed == CG_CHECKSUM_PARTIAL && cg_is_vlan(f->protocol);
}

/*
 * Where the walk over the tags starts: at network_header, except where that
 * already lies past the Ethernet header (mac_header, the same units). At
 * ingress the kernel leaves network_header at the first tag still in the
 * packet, right behind the Ethernet header. At egress a frame from an
 * AF_PACKET socket has network_header past all its in-band tags
 * (packet_parse_headers()) while skb->protocol still names the outer one:
 * stepping from there would take the IP header for a tag. Backends call
 * this once, before the first cg_vlan_step().
 */
static __always_inline void cg_vlan_rewind(struct cg_fields *f, __u32 mac_header)
{
	if (cg_wants_vlan(f) && f->network_header > mac_header + CG_ETH_HLEN)
		f->network_header = mac_header + CG_ETH_HLEN;
}

/* tag: TCI (2 bytes) then the encapsulated type, network byte order */
static __always_inline void cg_vlan_step(struct cg_fields *f, const __u8 *tag)
{
	f->protocol = (__u16)(tag[2] << 8 | tag[3]);
	f->l3_off += CG_VLAN_HLEN;
}

/*
 * Does the decision read the L3 header (ip_vhl, at network_header + l3_off)?
 * Only for IPv4.
 */
static __always_inline bool cg_wants_l3(const struct cg_fields *f)
{
	return f->ip_summed == CG_CHECKSUM_PARTIAL &&
	       f->protocol == CG_ETH_P_IP;
}

static __always_inline bool cg_ipv6_is_ext(__u8 nexthdr)
{
	return nexthdr == CG_IPPROTO_HOPOPTS || nexthdr == CG_IPPROTO_ROUTING ||
	       nexthdr == CG_IPPROTO_FRAGMENT || nexthdr == CG_IPPROTO_AH ||
	       nexthdr == CG_IPPROTO_DSTOPTS || nexthdr == CG_IPPROTO_MH ||
	       nexthdr == CG_IPPROTO_HIP || nexthdr == CG_IPPROTO_SHIM6;
}

/*
 * IPv6: does the decision read the fixed header's next-header byte (at
 * network_header + l3_off + CG_IPV6_NEXTHDR_OFF)? Only when csum_start lies
 * at or past the fixed header: before it the packet drops unread.
 */
static __always_inline bool cg_wants_ip6(const struct cg_fields *f)
{
	return f->ip_summed == CG_CHECKSUM_PARTIAL && f->protocol == CG_ETH_P_IPV6 &&
	       f->csum_start >= f->network_header + f->l3_off + CG_IPV6_HLEN;
}

/* The next-header byte the backend read. */
static __always_inline void cg_ip6_start(struct cg_fields *f, __u8 nexthdr)
{
	f->l3_readable = 1;
	f->ip6_next = nexthdr;
	f->ip6_len = CG_IPV6_HLEN;
}

/*
 * Is there an extension header to step over? The backend reads its first
 * two bytes at network_header + l3_off + ip6_len and hands them to
 * cg_ip6_step(), at most CG_IPV6_EXT_MAX times; a header it cannot read
 * ends the walk. Only while csum_start lies at or past it: a csum_start
 * before it already drops. The common packet (TCP or UDP right after the
 * fixed header) wants none.
 */
static __always_inline bool cg_wants_ext(const struct cg_fields *f)
{
	return f->l3_readable && f->protocol == CG_ETH_P_IPV6 && cg_ipv6_is_ext(f->ip6_next) &&
	       f->csum_start >= f->network_header + f->l3_off + f->ip6_len;
}

/* hdr: an extension header's next-header and length bytes */
static __always_inline void cg_ip6_step(struct cg_fields *f, const __u8 *hdr)
{
	__u32 len;

	if (f->ip6_next == CG_IPPROTO_FRAGMENT)
		len = CG_IPV6_FRAG_HLEN;		/* its second byte is reserved */
	else if (f->ip6_next == CG_IPPROTO_AH)
		len = ((__u32)hdr[1] + 2) * 4;		/* RFC 4302: in 4-byte words */
	else
		len = ((__u32)hdr[1] + 1) * 8;		/* RFC 8200 */
	f->ip6_next = hdr[0];
	f->ip6_len += len;
}

/*
 * The two ends of the decision, for a header the backend has read.
 * cg_verdict() ends in cg_ip4_verdict() or cg_ip6_verdict(); each is built
 * on a pass predicate, cg_ip4_passes() or cg_ip6_passes(), which a
 * backend's fast path may call alone on the common frames (untagged IPv4,
 * and IPv6 with TCP or UDP right behind the fixed header) once it knows
 * what cg_judged(), cg_wants_l3() or cg_wants_ip6() would say: a frame the
 * predicate passes is one cg_verdict() passes, and every other frame goes
 * the long way to cg_verdict(). The fast path then keeps nothing for the
 * drop side.
 *
 * IPv4: l3 is where the header starts, vhl its version/IHL byte. An IHL
 * below 5 fails closed; csum_start must lie at or past the header's end.
 */
static __always_inline bool cg_ip4_passes(__u32 csum_start, __u32 l3, __u8 vhl)
{
	__u32 ihl = vhl & 0x0f;

	return ihl >= CG_IPV4_MIN_IHL && csum_start >= l3 + ihl * 4;
}

static __always_inline enum cg_verdict cg_ip4_verdict(__u32 csum_start, __u32 l3, __u8 vhl)
{
	if (cg_ip4_passes(csum_start, l3, vhl))
		return CG_PASS;
	if ((vhl & 0x0f) < CG_IPV4_MIN_IHL)
		return CG_DROP_UNREADABLE;
	return CG_DROP;
}

/*
 * IPv6: ip6_len bytes of headers walked from l3 (40: the fixed header
 * alone), ip6_next the next header after them. csum_start must lie at or
 * past them, and the walk must have reached the transport header.
 */
static __always_inline bool cg_ip6_passes(__u32 csum_start, __u32 l3, __u32 ip6_len,
					  __u8 ip6_next)
{
	return csum_start >= l3 + ip6_len && !cg_ipv6_is_ext(ip6_next);
}

static __always_inline enum cg_verdict cg_ip6_verdict(__u32 csum_start, __u32 l3, __u32 ip6_len,
						      __u8 ip6_next)
{
	if (cg_ip6_passes(csum_start, l3, ip6_len, ip6_next))
		return CG_PASS;
	if (csum_start < l3 + ip6_len)
		return CG_DROP;		/* the fixed header, or an extension header */
	return CG_DROP_UNREADABLE;	/* the walk did not get to its end */
}

/*
 * The decision. A legitimate CHECKSUM_PARTIAL packet has csum_start at its
 * transport header, at or past the end of the IP header, so the test never
 * matches good traffic. An IPv4 header that cannot be read, or whose IHL is
 * below 5, fails closed. For IPv6 the fixed 40-byte header (the addresses)
 * and the extension headers after it are protected: csum_start must lie at
 * or past the transport header; a chain the backend could not walk to its
 * end (too long, or unreadable) fails closed if csum_start lies past the
 * part walked. Behind VLAN tags the same holds for the inner header; tags
 * the backend could not step over fail closed, as a CHECKSUM_PARTIAL packet
 * with a checksum inside them or behind them is not one a well-behaved
 * sender makes.
 */
static __always_inline enum cg_verdict cg_verdict(const struct cg_fields *f)
{
	__u32 l3 = f->network_header + f->l3_off;

	if (!cg_judged(f))
		return CG_PASS;
	if (f->protocol == CG_ETH_P_IPV6) {
		if (f->csum_start < l3 + CG_IPV6_HLEN)
			return CG_DROP;
		if (!f->l3_readable)
			return CG_DROP_UNREADABLE;
		return cg_ip6_verdict(f->csum_start, l3, f->ip6_len, f->ip6_next);
	}
	if (f->protocol != CG_ETH_P_IP || !f->l3_readable)
		return CG_DROP_UNREADABLE;
	return cg_ip4_verdict(f->csum_start, l3, f->ip_vhl);
}

#endif /* CSUM_GUARD_H */
