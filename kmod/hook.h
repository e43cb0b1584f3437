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

#endif /* CG_HOOK_H */
