/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * complete.h - the completion guard at skb_checksum_help() (complete.c).
 */
#ifndef CG_COMPLETE_H
#define CG_COMPLETE_H

#include "device.h"

struct cg_complete_info {
	bool available;		/* this kernel lets the module have it */
	bool on;
	u64 cnt[CG_CNT_MAX];	/* refusals, summed over CPUs */
};

/* Switch it on or off, host-wide: 0, or -EOPNOTSUPP where unavailable, or
 * ftrace's error (another IPMODIFY user, a live patch, holds the function). */
int cg_complete_set(bool on);
void cg_complete_info(struct cg_complete_info *info);
/* Off, waiting for handlers in flight; before the module goes. */
void cg_complete_uninit(void);

#endif /* CG_COMPLETE_H */
