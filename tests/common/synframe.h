/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * synframe.h - TCP SYN frames, well-formed or broken on purpose, for the
 * tools that send them (tests/tools/sc-syn, bench/synflood), and the test
 * of a frame for the SYN-ACK or RST that answers one.
 */
#ifndef CG_TOOLS_SYNFRAME_H
#define CG_TOOLS_SYNFRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include "csum.h"

enum syn_kind {
	SYN_GOOD,	/* MSS option, checksums right */
	SYN_CSUM,	/* TCP checksum wrong */
	SYN_DOFF,	/* data offset 4 (< 5) */
	SYN_DOFF_LONG,	/* data offset 15, but the segment has 24 bytes */
	SYN_OPT,	/* a timestamp option whose length runs past the header */
	SYN_IPCSUM,	/* IPv4 header checksum wrong (IPv4 only) */
	SYN_TS,		/* as Linux sends it: MSS, SACK-permitted, timestamp, window scale 7 */
	SYN_KIND_MAX,
};

static const char *const syn_kind_names[SYN_KIND_MAX] = {
	"good", "csum", "doff", "doff-long", "opt", "ipcsum", "ts",
};

struct syn_addr {
	bool v6;
	uint8_t src[16], dst[16];	/* IPv4: the first 4 bytes */
	uint8_t smac[6], dmac[6];
};

/* The frame of a SYN of kind from sport to dport into buf (128 bytes); its length. */
static inline size_t syn_frame(uint8_t *buf, const struct syn_addr *a, enum syn_kind kind,
			       uint16_t sport, uint16_t dport, uint32_t seq)
{
	size_t l3 = a->v6 ? 40 : 20, thlen = kind == SYN_OPT ? 28 : kind == SYN_TS ? 40 : 24;
	uint8_t *ip = buf + 14, *th = ip + l3;
	uint64_t sum;
	uint16_t c;

	memset(buf, 0, 14 + l3 + thlen);
	memcpy(buf, a->dmac, 6);
	memcpy(buf + 6, a->smac, 6);
	buf[12] = a->v6 ? 0x86 : 0x08;
	buf[13] = a->v6 ? 0xdd : 0x00;
	if (a->v6) {
		ip[0] = 0x60;
		ip[4] = thlen >> 8;
		ip[5] = thlen;
		ip[6] = 6;
		ip[7] = 64;
		memcpy(ip + 8, a->src, 16);
		memcpy(ip + 24, a->dst, 16);
	} else {
		ip[0] = 0x45;
		ip[2] = (20 + thlen) >> 8;
		ip[3] = 20 + thlen;
		ip[6] = 0x40;	/* DF */
		ip[8] = 64;
		ip[9] = 6;
		memcpy(ip + 12, a->src, 4);
		memcpy(ip + 16, a->dst, 4);
		c = ~csum_fold(csum_add(0, ip, 20));
		if (kind == SYN_IPCSUM)
			c ^= 0x0101;
		ip[10] = c >> 8;
		ip[11] = c;
	}
	th[0] = sport >> 8;
	th[1] = sport;
	th[2] = dport >> 8;
	th[3] = dport;
	th[4] = seq >> 24;
	th[5] = seq >> 16;
	th[6] = seq >> 8;
	th[7] = seq;
	th[12] = (kind == SYN_DOFF ? 4 : kind == SYN_DOFF_LONG ? 15 : thlen / 4) << 4;
	th[13] = 0x02;		/* SYN */
	th[14] = 0xfa;		/* window 64240 */
	th[15] = 0xf0;
	th[20] = 2;		/* MSS 1460 */
	th[21] = 4;
	th[22] = 1460 >> 8;
	th[23] = 1460 & 0xff;
	if (kind == SYN_OPT) {
		th[24] = 1;	/* NOP, NOP, then TS (10 bytes) with 2 left */
		th[25] = 1;
		th[26] = 8;
		th[27] = 10;
	}
	if (kind == SYN_TS) {
		th[24] = 4;	/* SACK-permitted, TS (TSval the seq, TSecr 0), NOP, WS 7 */
		th[25] = 2;
		th[26] = 8;
		th[27] = 10;
		memcpy(th + 28, th + 4, 4);
		th[36] = 1;
		th[37] = 3;
		th[38] = 3;
		th[39] = 7;
	}
	if (a->v6)
		sum = csum_add(csum_add(0, ip + 8, 32), (const uint8_t[]){ 0, 0, 0, thlen, 0, 0, 0, 6 }, 8);
	else
		sum = csum_add(csum_add(0, ip + 12, 8), (const uint8_t[]){ 0, 6, 0, thlen }, 4);
	c = ~csum_fold(csum_add(sum, th, thlen));
	if (kind == SYN_CSUM)
		c ^= 0x0101;
	th[16] = c >> 8;
	th[17] = c;
	return 14 + l3 + thlen;
}

/*
 * Is frame (len bytes) TCP from dst to src (any ports)? Then its flags, the
 * source port in *port and the destination port in *dport; else -1.
 */
static inline int syn_reply(const uint8_t *f, size_t len, const struct syn_addr *a,
			    uint16_t *sport, uint16_t *dport)
{
	size_t l3 = a->v6 ? 40 : 20;
	const uint8_t *ip = f + 14, *th = ip + l3;

	if (len < 14 + l3 + 20 || f[12] != (a->v6 ? 0x86 : 0x08) || f[13] != (a->v6 ? 0xdd : 0x00))
		return -1;
	if (a->v6 ? (ip[6] != 6 || memcmp(ip + 8, a->dst, 16) || memcmp(ip + 24, a->src, 16)) :
		    (ip[0] != 0x45 || ip[9] != 6 || memcmp(ip + 12, a->dst, 4) ||
		     memcmp(ip + 16, a->src, 4)))
		return -1;
	*sport = th[0] << 8 | th[1];
	*dport = th[2] << 8 | th[3];
	return th[13];
}

/* The MSS option of a reply syn_reply() took (len bytes), or 0 */
static inline unsigned int syn_reply_mss(const uint8_t *f, size_t len, const struct syn_addr *a)
{
	const uint8_t *th = f + 14 + (a->v6 ? 40 : 20);
	size_t thlen = (th[12] >> 4) * 4, off = 20;

	if (th + thlen > f + len)
		return 0;
	while (off + 1 < thlen && th[off]) {
		if (th[off] == 1) {
			off++;
			continue;
		}
		if (th[off + 1] < 2 || off + th[off + 1] > thlen)
			return 0;
		if (th[off] == 2 && th[off + 1] == 4)
			return th[off + 2] << 8 | th[off + 3];
		off += th[off + 1];
	}
	return 0;
}

#endif /* CG_TOOLS_SYNFRAME_H */
