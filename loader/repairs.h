/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * repairs.h - the guards put back after someone or something took them off
 * (watch, verify --heal), counted host-wide by reason and by device in one
 * small file that status reads: /run/csum-guard/repairs, or
 * $CSUM_GUARD_REPAIRS. It lives until reboot, as the guards' state does.
 */
#ifndef CG_REPAIRS_H
#define CG_REPAIRS_H

#include <linux/types.h>

#define CG_REPAIRS_PATH	"/run/csum-guard/repairs"

/* What was found taken off or changed; the `reason` label's values */
enum cg_repair_reason {
	CG_REPAIR_QDISC,	/* its clsact qdisc deleted */
	CG_REPAIR_FILTER,	/* its tc filter deleted */
	CG_REPAIR_PROGRAM,	/* another program in its place */
	CG_REPAIR_LINK,		/* its tcx link detached */
	CG_REPAIR_MODULE,	/* the kernel module unloaded */
	CG_REPAIR_HOOK,		/* the module's netfilter hook gone */
	CG_REPAIR_OPTIONS,	/* fewer options than it had (--egress, --log-drops) */
	CG_REPAIR_MAX,
};

const char *cg_repair_name(enum cg_repair_reason r);

/* One repair of device ifindex of namespace ino, added to the file under
 * its lock (several writers add up): 0 or -errno */
int cg_repair_count(enum cg_repair_reason r, __u64 ino, int ifindex);

#define CG_REPAIRS_DEVS	256	/* devices the file keeps a count of */

struct cg_repairs {
	__u64 by_reason[CG_REPAIR_MAX];
	struct {
		__u64 ino;
		int ifindex;
		__u64 n;
	} dev[CG_REPAIRS_DEVS];
	int ndev;
};

/* The file as it is (all zero where there is none): 0 or -errno */
int cg_repairs_read(struct cg_repairs *r);
/* Repairs of one device */
__u64 cg_repairs_of(const struct cg_repairs *r, __u64 ino, int ifindex);

#endif /* CG_REPAIRS_H */
