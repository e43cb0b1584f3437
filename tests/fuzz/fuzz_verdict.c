// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_verdict.c - the drop decision (include/csum_guard.h) against an
 * oracle written here from the rule, not from the header's code.
 *
 * The input is a frame as the hooks see it, with the skb's fields in front:
 *
 *   byte 0      ip_summed (CHECKSUM_PARTIAL is 3; the rest pass unjudged)
 *   byte 1-2    skb->protocol, big endian
 *   byte 3-4    csum_start, big endian, from skb->head (the frame's byte 0)
 *   byte 5      network_header
 *   byte 6      mac_header
 *   byte 7..    the frame
 *
 * The walk is the backends' (as tests/unit.c's walk() does it): tags from
 * network_header (rewound to the end of the Ethernet header when it lies
 * past it), then the IPv4 IHL byte or the IPv6 next-header byte and the
 * extension headers, each read only while the decision wants it and only
 * where the frame has it.
 *
 * The rule the oracle implements: a packet that is not CHECKSUM_PARTIAL,
 * or whose protocol (behind the tags) is neither IPv4 nor IPv6, passes. Up
 * to four tags are stepped over; a fifth, or a tag cut short, fails closed.
 * IPv4: an unreadable first byte or an IHL below 5 fails closed; csum_start
 * inside the IHL*4 bytes of the header drops. IPv6: csum_start inside the
 * 40-byte fixed header drops, even unread; past it, every byte of the
 * extension headers is protected, up to the transport header; a chain that
 * cannot be followed to csum_start (unreadable, or longer than eight
 * headers) fails closed. Everything else passes. The two fast-path
 * predicates may only pass what the full decision passes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csum_guard.h"

/* what the rule says, from the frame alone */
static enum cg_verdict oracle(const uint8_t *p, size_t len, uint8_t summed, uint16_t proto,
			      uint32_t cs, uint32_t nh, uint32_t mac)
{
	uint32_t at, hdr_end, tags = 0;
	int i;

	if (summed != CG_CHECKSUM_PARTIAL)
		return CG_PASS;
	at = nh;
	if ((proto == 0x8100 || proto == 0x88a8) && nh > mac + 14)
		at = mac + 14;
	while (proto == 0x8100 || proto == 0x88a8) {
		if (tags == 4 || at + 4 > len)
			return CG_DROP_UNREADABLE;
		proto = p[at + 2] << 8 | p[at + 3];
		at += 4;
		tags++;
	}
	if (proto == 0x0800) {
		if (at >= len)
			return CG_DROP_UNREADABLE;
		if ((p[at] & 15) < 5)
			return CG_DROP_UNREADABLE;
		return cs < at + (p[at] & 15) * 4u ? CG_DROP : CG_PASS;
	}
	if (proto != 0x86dd)
		return CG_PASS;
	/* IPv6: the protected bytes run from at to hdr_end */
	hdr_end = at + 40;
	if (cs < hdr_end)
		return CG_DROP;
	if (at + 6 >= len)
		return CG_DROP_UNREADABLE;
	{
		uint8_t next = p[at + 6];

		for (i = 0;; i++) {
			int ext = next == 0 || next == 43 || next == 44 || next == 51 ||
				  next == 60 || next == 135 || next == 139 || next == 140;
			uint32_t size;

			if (!ext)
				return CG_PASS;		/* cs is at or past the transport header */
			if (i == 8 || hdr_end + 2 > len)
				return CG_DROP_UNREADABLE;
			if (next == 44)
				size = 8;
			else if (next == 51)
				size = (p[hdr_end + 1] + 2u) * 4;
			else
				size = (p[hdr_end + 1] + 1u) * 8;
			next = p[hdr_end];
			hdr_end += size;
			if (cs < hdr_end)
				return CG_DROP;
		}
	}
}

/* the backends' walk, with the header's functions */
static enum cg_verdict decide(const uint8_t *p, size_t len, struct cg_fields *f, uint32_t mac)
{
	int i;

	cg_vlan_rewind(f, mac);
	for (i = 0; i < CG_VLAN_MAX && cg_wants_vlan(f); i++) {
		if (f->network_header + f->l3_off + CG_VLAN_HLEN > len)
			break;
		cg_vlan_step(f, p + f->network_header + f->l3_off);
	}
	if (cg_wants_l3(f) && f->network_header + f->l3_off < len) {
		f->l3_readable = 1;
		f->ip_vhl = p[f->network_header + f->l3_off];
	}
	if (cg_wants_ip6(f) && f->network_header + f->l3_off + CG_IPV6_NEXTHDR_OFF < len)
		cg_ip6_start(f, p[f->network_header + f->l3_off + CG_IPV6_NEXTHDR_OFF]);
	for (i = 0; i < CG_IPV6_EXT_MAX && cg_wants_ext(f); i++) {
		if (f->network_header + f->l3_off + f->ip6_len + 2 > len)
			break;
		cg_ip6_step(f, p + f->network_header + f->l3_off + f->ip6_len);
	}
	return cg_verdict(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_fields f = {};
	enum cg_verdict got, want;
	uint32_t mac, l3;
	uint8_t *p;
	size_t len;

	if (size < 7)
		return 0;
	f.ip_summed = data[0];
	f.protocol = data[1] << 8 | data[2];
	f.csum_start = data[3] << 8 | data[4];
	f.network_header = data[5];
	mac = data[6];
	/* the frame in a buffer of its own size: a read past it is a bug */
	len = size - 7;
	p = malloc(len ? len : 1);
	if (!p)
		return 0;
	memcpy(p, data + 7, len);
	want = oracle(p, len, f.ip_summed, f.protocol, f.csum_start, f.network_header, mac);
	got = decide(p, len, &f, mac);
	if (got != want)
		abort();
	/* the fast paths pass nothing the decision drops */
	l3 = f.network_header + f.l3_off;
	if (f.ip_summed == CG_CHECKSUM_PARTIAL && f.protocol == CG_ETH_P_IP && f.l3_readable &&
	    cg_ip4_passes(f.csum_start, l3, f.ip_vhl) && got != CG_PASS)
		abort();
	if (f.ip_summed == CG_CHECKSUM_PARTIAL && f.protocol == CG_ETH_P_IPV6 && f.l3_readable &&
	    cg_ip6_passes(f.csum_start, l3, f.ip6_len, f.ip6_next) && got != CG_PASS)
		abort();
	free(p);
	return 0;
}
