/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard.h - the drop decision, in one place.
 *
 * A sender that controls a virtio_net_hdr can hand the kernel an skb with
 * ip_summed == CHECKSUM_PARTIAL whose csum_start points inside the IP
 * header. Whoever later completes that checksum (skb_checksum_help() from IP
 * fragmentation, xfrm, nfqueue, xt_CHECKSUM, a transmit path without checksum
 * offload) folds the sum and writes it over the header. IPv6 has the same
 * hole on the transmit path: the sum lands on its addresses.
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

/*
 * VLAN tags still in the packet that a backend steps over. The kernel strips
 * one tag before the hooks run (skb_vlan_untag()), so a QinQ frame arrives
 * with its inner tag at network_header; a CHECKSUM_PARTIAL frame with more
 * than this many tags left fails closed.
 */
#define CG_VLAN_MAX		4

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
};

enum cg_verdict {
	CG_PASS = 0,
	CG_DROP,		/* csum_start lies inside the IP header */
	CG_DROP_UNREADABLE,	/* the IP header cannot be read, or IHL < 5 */
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

/*
 * The decision. A legitimate CHECKSUM_PARTIAL packet has csum_start at its
 * transport header, at or past the end of the IP header, so the test never
 * matches good traffic. An IPv4 header that cannot be read, or whose IHL is
 * below 5, fails closed. For IPv6 the fixed 40-byte header (the addresses)
 * is protected; extension headers lie past it and are not parsed. Behind
 * VLAN tags the same holds for the inner header; tags the backend could not
 * step over fail closed, as a CHECKSUM_PARTIAL packet with a checksum inside
 * them or behind them is not one a well-behaved sender makes.
 */
static __always_inline enum cg_verdict cg_verdict(const struct cg_fields *f)
{
	__u32 l3 = f->network_header + f->l3_off;
	__u32 ihl;

	if (!cg_judged(f))
		return CG_PASS;
	if (f->protocol == CG_ETH_P_IPV6)
		return f->csum_start < l3 + CG_IPV6_HLEN ? CG_DROP : CG_PASS;
	if (f->protocol != CG_ETH_P_IP || !f->l3_readable)
		return CG_DROP_UNREADABLE;
	ihl = f->ip_vhl & 0x0f;
	if (ihl < CG_IPV4_MIN_IHL)
		return CG_DROP_UNREADABLE;
	if (f->csum_start < l3 + ihl * 4)
		return CG_DROP;
	return CG_PASS;
}

#endif /* CSUM_GUARD_H */
