// SPDX-License-Identifier: GPL-2.0-only
/*
 * compat-probe.c - feature probes, never built into the module.
 *
 * Kbuild compiles this file once per probe with -DCG_PROBE_<feature>
 * (syntax only) against the target kernel's headers; when it compiles,
 * the module is built with -DCG_HAVE_<feature>. See compat.h.
 */
#include <linux/netdevice.h>

void cg_probe(struct net_device *dev, void *t);

#if defined(CG_PROBE_NETDEV_HOLD)
void cg_probe(struct net_device *dev, void *t)
{
	netdev_hold(dev, (netdevice_tracker *)t, GFP_KERNEL);
	netdev_put(dev, (netdevice_tracker *)t);
}
#elif defined(CG_PROBE_DEV_HOLD_TRACK)
void cg_probe(struct net_device *dev, void *t)
{
	dev_hold_track(dev, (netdevice_tracker *)t, GFP_KERNEL);
	dev_put_track(dev, (netdevice_tracker *)t);
}
#elif defined(CG_PROBE_FTRACE_REGS)
#include <linux/ftrace.h>
void cg_probe(struct net_device *dev, void *t)
{
	struct pt_regs *regs = ftrace_get_regs((struct ftrace_regs *)t);

	(void)regs;
}
#elif defined(CG_PROBE_MCGRP_CAP_SYS_ADMIN)
#include <net/genetlink.h>
void cg_probe(struct net_device *dev, void *t)
{
	struct genl_multicast_group g = { .cap_sys_admin = 1 };

	(void)g;
}
#else
#error "no probe selected"
#endif
