// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - csum_guard: drop packets whose checksum start lies inside the
 * IPv4 or IPv6 header, at the ingress (and, if asked, the egress) of chosen
 * devices, before any code path can complete the checksum over the header;
 * and, switched on host-wide, refuse that completion at skb_checksum_help()
 * itself, whatever path the packet took (complete.c).
 */
#include "complete.h"
#include "device.h"
#include "netlink.h"
#include "netns.h"

#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/module.h>
#include <linux/skbuff.h>

#include <csum_guard.h>
#include <csum_guard_genl.h>

/* include/csum_guard.h copies these values of the kernel's ABI */
static void __init cg_check_abi(void)
{
	BUILD_BUG_ON(CG_ETH_P_IP != ETH_P_IP);
	BUILD_BUG_ON(CG_CHECKSUM_PARTIAL != CHECKSUM_PARTIAL);
	BUILD_BUG_ON(CG_VERDICT_COUNTER(CG_DROP) != CG_CNT_DROPPED);
	BUILD_BUG_ON(CG_VERDICT_COUNTER(CG_DROP_UNREADABLE) !=
		     CG_CNT_DROPPED_UNREADABLE);
}

static int __init cg_mod_init(void)
{
	int ret;

	cg_check_abi();

	ret = cg_netns_init();
	if (ret)
		return ret;
	ret = cg_device_init();
	if (ret)
		goto err_device;
	ret = cg_netlink_init();
	if (ret)
		goto err_netlink;

	pr_info("csum-guard %s loaded, ABI %d\n", CG_VERSION, CG_ABI_VERSION);
	return 0;

err_netlink:
	cg_device_uninit();
err_device:
	cg_netns_uninit();
	return ret;
}

/* Netlink first, so that nothing can attach while the hooks go away. */
static void __exit cg_mod_exit(void)
{
	cg_netlink_uninit();
	cg_complete_uninit();
	cg_device_uninit();
	cg_netns_uninit();
}

module_init(cg_mod_init);
module_exit(cg_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Drop packets whose checksum start lies inside the IPv4 or IPv6 header");
MODULE_VERSION(CG_VERSION);
MODULE_ALIAS_GENL_FAMILY(CG_GENL_NAME);
