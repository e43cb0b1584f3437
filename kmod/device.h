/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * device.h - the guarded devices.
 */
#ifndef CG_DEVICE_H
#define CG_DEVICE_H

#include "compat.h"

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rcupdate.h>
#include <net/netlink.h>

#include <csum_guard_abi.h>

/* The flags ATTACH knows, and those it can do on this kernel */
#define CG_F_ALL (CG_F_LOG_DROPS | CG_F_EGRESS)
#ifdef CG_HAVE_NF_EGRESS
#define CG_F_SUPPORTED CG_F_ALL
#else
#define CG_F_SUPPORTED CG_F_LOG_DROPS
#endif

/*
 * Drop counters, one set per CPU; only the packet path of that CPU writes
 * them. Readers sum every possible CPU. (A 64-bit read is a single load on
 * the 64-bit architectures this targets; a 32-bit one could see a torn
 * value while a counter carries, which a later read corrects.)
 */
struct cg_counters {
	u64 cnt[CG_CNT_MAX];
};

/* Add every possible CPU's counters of pc to sum. */
void cg_counters_sum(const struct cg_counters __percpu *pc, u64 sum[CG_CNT_MAX]);

/*
 * One guarded device: a netfilter NETDEV ingress hook, and with CG_F_EGRESS
 * an egress hook too, whose priv is this struct. It is created by
 * cg_device_attach() and destroyed by
 * cg_device_detach(), by NETDEV_UNREGISTER (device deleted, moved to
 * another namespace, or its namespace dismantled) or at module exit; it is
 * freed one RCU grace period after its hook is gone.
 */
struct cg_device {
	struct list_head list;		/* cg_devices, under cg_devices_lock */
	struct net_device *dev;		/* held while the entry exists */
	cg_netdev_tracker dev_tracker;
	/*
	 * Each hook has two ops, one registered (cur): to get back in
	 * front of a hook registered since at the same priority, the other
	 * is registered, then this one unregistered (cg_device_first_work).
	 */
	struct nf_hook_ops ops[2];
	struct nf_hook_ops egress_ops[2];	/* registered iff flags & CG_F_EGRESS */
	u8 cur, egress_cur;
	u64 reordered;			/* times it got back in front */
	struct cg_counters __percpu *counters;
	u32 flags;			/* CG_F_*; READ_ONCE on the packet path */
	int ifindex;
	char ifname[IFNAMSIZ];		/* follows NETDEV_CHANGENAME */
	struct rcu_head rcu;
};

/* What netlink reports about one device: a snapshot */
struct cg_device_info {
	int ifindex;
	u32 flags;
	u32 first;			/* CG_FIRST_*: its hooks run first */
	u64 reordered;
	char ifname[IFNAMSIZ];
	u64 cnt[CG_CNT_MAX];
};

typedef int (*cg_device_dump_fn)(const struct cg_device_info *info, void *arg);

int cg_device_attach(struct net *net, int ifindex, u32 flags, bool bounded,
		     struct cg_device_info *info,
		     struct netlink_ext_ack *extack);
int cg_device_detach(struct net *net, int ifindex);
int cg_device_get(struct net *net, int ifindex, struct cg_device_info *info);
int cg_device_dump(struct net *net, unsigned long *pos, unsigned int *gen,
		   cg_device_dump_fn fn, void *arg);

int cg_device_init(void);
void cg_device_uninit(void);

#endif /* CG_DEVICE_H */
