/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum.h - the Internet checksum, for the tools that write frames
 * (cg-inject, bench/tapwrite) and the one that checks them (cg-sniff).
 */
#ifndef CG_TOOLS_CSUM_H
#define CG_TOOLS_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Ones' complement sum of big-endian 16-bit words, not folded */
static inline uint64_t csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static inline uint16_t csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

#endif /* CG_TOOLS_CSUM_H */
