/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netlink.h - the generic netlink control interface.
 */
#ifndef CG_NETLINK_H
#define CG_NETLINK_H

#include <linux/skbuff.h>

#include <csum_guard.h>

/* the family's multicast groups, by index */
enum { CG_NL_MCGRP_DROPS };

int cg_netlink_init(void);
/* Tell the listeners of CG_GENL_MCGRP_DROPS of a drop in net at dev (NULL:
 * not known), with CG_EV_* flags; within net's budget; any context. */
void cg_nl_drop_event(const struct sk_buff *skb, const struct net *net,
		      const struct net_device *dev,
		      const struct cg_fields *f, enum cg_verdict v, u8 flags);
void cg_netlink_uninit(void);

#endif /* CG_NETLINK_H */
