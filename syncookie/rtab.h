/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * rtab.h - the IPv4 routes expanded into the program's table of 8-bit
 * strides (struct sc_rtab4_node, syncookie_abi.h): built here without a
 * kernel, so the unit tests hold it to the longest-prefix match it stands
 * for.
 */
#ifndef SC_RTAB_H
#define SC_RTAB_H

#include <stdbool.h>
#include <linux/types.h>

#include "syncookie_abi.h"

/* One IPv4 route: prefix (network order) of plen bits, and its answer */
struct sc_rtab4_route {
	__u32 addr;
	unsigned int plen;
	__u32 val;
};

/*
 * The table of the n routes into node[0..max): node[0] the root, node[i]
 * below it the node that slots name base + i - 1: what the longest of the
 * routes that holds an address answers, dflt where none does,
 * SC_RTAB4_TRIE below a slot that would have needed node[max]. Returns
 * the number of nodes used (at least 1). routes is sorted.
 */
int sc_rtab4_build(struct sc_rtab4_route *routes, int n, __u32 dflt,
		   struct sc_rtab4_node *node, int max, __u32 base);

/* What the program reads for addr (network order) in such a table of n nodes */
__u32 sc_rtab4_walk(const struct sc_rtab4_node *node, int n, __u32 base, __u32 addr);

#endif /* SC_RTAB_H */
