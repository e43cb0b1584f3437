// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * rtab.c - the IPv4 routes expanded into 8-bit strides (rtab.h): each
 * route, shortest first (then the lowest address: where nodes run out,
 * the highest routes are the tries'), fills the slots its prefix covers in the node of
 * its last byte, the nodes above made as needed, each new node starting as
 * a copy of the slot it hangs from. A longer route, coming later, always
 * lands below or beside a shorter one, never under a slot it must not
 * touch: a slot's node only ever holds routes longer than the slot.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "rtab.h"

static int sc_rtab4_cmp(const void *p, const void *q)
{
	const struct sc_rtab4_route *x = p, *y = q;
	__u32 a = ntohl(x->addr), b = ntohl(y->addr);

	/* shortest first; then by address, so that one set of routes
	 * makes one table whatever order they were read in */
	if (x->plen != y->plen)
		return (x->plen > y->plen) - (x->plen < y->plen);
	return (a > b) - (a < b);
}

static bool sc_rtab4_is_node(__u32 v)
{
	return (v & SC_RTAB4_KIND) == SC_RTAB4_CHILD;
}

int sc_rtab4_build(struct sc_rtab4_route *routes, int n, __u32 dflt,
		   struct sc_rtab4_node *node, int max, __u32 base)
{
	int used = 1, i, s;

	for (s = 0; s < 256; s++)
		node[0].slot[s] = dflt;
	qsort(routes, n, sizeof(*routes), sc_rtab4_cmp);
	for (i = 0; i < n; i++) {
		const __u8 *b = (const __u8 *)&routes[i].addr;
		unsigned int plen = routes[i].plen > 32 ? 32 : routes[i].plen, level = 0, bits;
		struct sc_rtab4_node *at = &node[0];
		__u32 *slot;
		int first, count;

		/* down to the node of the prefix's last byte */
		for (; plen > 8 * (level + 1); level++) {
			slot = &at->slot[b[level]];
			if (*slot == SC_RTAB4_TRIE)
				break;
			if (!sc_rtab4_is_node(*slot)) {
				if (used == max) {
					*slot = SC_RTAB4_TRIE;
					break;
				}
				for (s = 0; s < 256; s++)
					node[used].slot[s] = *slot;
				*slot = SC_RTAB4_CHILD | (base + used++ - 1);
			}
			at = &node[(*slot & ~SC_RTAB4_KIND) - base + 1];
		}
		if (plen > 8 * (level + 1))
			continue;	/* the tries answer below that slot */
		bits = plen - 8 * level;
		first = bits ? b[level] & (0xff << (8 - bits)) & 0xff : 0;
		count = 1 << (8 - bits);
		for (s = first; s < first + count; s++)
			if (at->slot[s] != SC_RTAB4_TRIE && !sc_rtab4_is_node(at->slot[s]))
				at->slot[s] = routes[i].val;
	}
	return used;
}

__u32 sc_rtab4_walk(const struct sc_rtab4_node *node, int n, __u32 base, __u32 addr)
{
	const __u8 *b = (const __u8 *)&addr;
	__u32 v = node[0].slot[b[0]];
	int level;

	for (level = 1; level < 4 && sc_rtab4_is_node(v); level++) {
		__u32 i = (v & ~SC_RTAB4_KIND) - base + 1;

		if (i >= (__u32)n)
			return SC_RTAB4_TRIE;
		v = node[i].slot[b[level]];
	}
	return sc_rtab4_is_node(v) ? SC_RTAB4_TRIE : v;
}
