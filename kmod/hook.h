/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hook.h - the packet path.
 */
#ifndef CG_HOOK_H
#define CG_HOOK_H

#include <linux/netfilter.h>
#include <linux/skbuff.h>

unsigned int cg_hook(void *priv, struct sk_buff *skb,
		     const struct nf_hook_state *state);

#endif /* CG_HOOK_H */
