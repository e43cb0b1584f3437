/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hook.h - the packet path.
 */
#ifndef CG_HOOK_H
#define CG_HOOK_H

#include <linux/netfilter.h>
#include <linux/skbuff.h>

#include <csum_guard.h>

unsigned int cg_hook(void *priv, struct sk_buff *skb,
		     const struct nf_hook_state *state);
/* Read the fields the decision needs from skb into f, and decide. */
enum cg_verdict cg_skb_verdict(const struct sk_buff *skb, struct cg_fields *f);

/*
 * Where the frame starts, for offsets a person reads (the kernel log, drop
 * events): its MAC header, or -1 when it has none before csum_start and the
 * IP header (offsets are then from skb->head).
 */
static inline int cg_frame_start(const struct sk_buff *skb, const struct cg_fields *f)
{
	if (skb_mac_header_was_set(skb) && skb->mac_header <= f->csum_start &&
	    skb->mac_header <= f->network_header + f->l3_off)
		return skb->mac_header;
	return -1;
}

#endif /* CG_HOOK_H */
