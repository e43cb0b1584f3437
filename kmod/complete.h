/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * complete.h - the completion guard at skb_checksum_help() (complete.c).
 */
#ifndef CG_COMPLETE_H
#define CG_COMPLETE_H

#include "device.h"

#include <net/net_namespace.h>

struct cg_complete_info {
	bool available;		/* this kernel lets the module have it */
	bool on;
	/* refusals counted where the reader is (netns.c): the host's side's
	 * for a namespace of the initial user namespace, else its own */
	u64 cnt[CG_CNT_MAX];
	u64 others[CG_CNT_MAX];	/* in every unprivileged namespace */
};

/* Switch it on or off, host-wide: 0, or -EOPNOTSUPP where unavailable, or
 * ftrace's error (another IPMODIFY user, a live patch, holds the function). */
int cg_complete_set(bool on);
/* Its state, and the refusals a reader in net is told of */
void cg_complete_info(const struct net *net, struct cg_complete_info *info);
/* Off, waiting for handlers in flight; before the module goes. */
void cg_complete_uninit(void);

#endif /* CG_COMPLETE_H */
