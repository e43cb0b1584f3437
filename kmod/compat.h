/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compat.h - everything that differs between the kernels csum_guard builds
 * for (4.19 and later with the netfilter netdev ingress hook), in one place.
 *
 * A shim is chosen by what the target kernel has, not by its version
 * number, so that distribution kernels with backports get the right one:
 *   - macros are tested with #ifdef here;
 *   - functions and types cannot be, so Kbuild test-compiles the snippets
 *     of compat-probe.c against the target kernel's headers, with the
 *     flags kbuild uses for this module, and passes -DCG_HAVE_<feature>
 *     for each snippet that compiles. A probe that fails for any reason
 *     selects the oldest, always available fallback.
 */
#ifndef CG_KMOD_COMPAT_H
#define CG_KMOD_COMPAT_H

#include <linux/netdevice.h>
#include <net/genetlink.h>

#if !IS_ENABLED(CONFIG_NETFILTER_INGRESS)
#error "csum_guard needs a kernel built with CONFIG_NETFILTER_INGRESS"
#endif

/*
 * The netdev egress hook (NF_NETDEV_EGRESS, 5.16+) exists only where the
 * kernel is built with CONFIG_NETFILTER_EGRESS: registering it elsewhere
 * WARNs, and older kernels lack the enum value. A Kconfig symbol is a
 * macro, so it is tested here; without it ATTACH refuses CG_F_EGRESS.
 */
#if IS_ENABLED(CONFIG_NETFILTER_EGRESS)
#define CG_HAVE_NF_EGRESS 1
#endif

/*
 * GENL_UNS_ADMIN_PERM checks CAP_NET_ADMIN over the user namespace that
 * owns the socket's network namespace. Without it only the initial user
 * namespace can be asked, which is stricter, never looser.
 */
#ifndef GENL_UNS_ADMIN_PERM
#define GENL_UNS_ADMIN_PERM GENL_ADMIN_PERM
#endif

/*
 * Who may join the drop events' multicast group: CAP_NET_ADMIN where the
 * kernel has GENL_MCAST_CAP_NET_ADMIN (6.8, and backports), else
 * CAP_SYS_ADMIN where it has the older cap_sys_admin bit (probed), else
 * anyone in the initial network namespace (the events name devices and
 * offsets, nothing of the packets' contents).
 */
#if defined(GENL_MCAST_CAP_NET_ADMIN)
#define CG_MCGRP_PERM .flags = GENL_MCAST_CAP_NET_ADMIN,
#elif defined(CG_HAVE_MCGRP_CAP_SYS_ADMIN)
#define CG_MCGRP_PERM .cap_sys_admin = 1,
#else
#define CG_MCGRP_PERM
#endif

/*
 * Netdevice reference tracking: netdev_hold()/netdev_put(), called
 * dev_hold_track()/dev_put_track() when it first appeared, plain untracked
 * dev_hold()/dev_put() before that.
 */
#if defined(CG_HAVE_NETDEV_HOLD)
typedef netdevice_tracker cg_netdev_tracker;

static inline void cg_netdev_hold(struct net_device *dev, cg_netdev_tracker *t)
{
	netdev_hold(dev, t, GFP_KERNEL);
}

static inline void cg_netdev_put(struct net_device *dev, cg_netdev_tracker *t)
{
	netdev_put(dev, t);
}
#elif defined(CG_HAVE_DEV_HOLD_TRACK)
typedef netdevice_tracker cg_netdev_tracker;

static inline void cg_netdev_hold(struct net_device *dev, cg_netdev_tracker *t)
{
	dev_hold_track(dev, t, GFP_KERNEL);
}

static inline void cg_netdev_put(struct net_device *dev, cg_netdev_tracker *t)
{
	dev_put_track(dev, t);
}
#else
typedef struct {} cg_netdev_tracker;

static inline void cg_netdev_hold(struct net_device *dev, cg_netdev_tracker *t)
{
	dev_hold(dev);
}

static inline void cg_netdev_put(struct net_device *dev, cg_netdev_tracker *t)
{
	dev_put(dev);
}
#endif

/*
 * The completion guard redirects skb_checksum_help() from an ftrace
 * handler, which needs the registers saved (DYNAMIC_FTRACE_WITH_REGS) and
 * the function's first argument and return address in them. The handler
 * is handed struct ftrace_regs since 5.11, struct pt_regs before.
 */
#if IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define CG_HAVE_COMPLETION 1
#include <linux/ftrace.h>
#if defined(CG_HAVE_FTRACE_REGS)
typedef struct ftrace_regs cg_ftrace_regs;

static inline struct pt_regs *cg_ftrace_get_regs(cg_ftrace_regs *fregs)
{
	return ftrace_get_regs(fregs);
}
#else
typedef struct pt_regs cg_ftrace_regs;

static inline struct pt_regs *cg_ftrace_get_regs(cg_ftrace_regs *regs)
{
	return regs;
}
#endif
#endif

#endif /* CG_KMOD_COMPAT_H */
