/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netlink.h - the generic netlink control interface.
 */
#ifndef CG_NETLINK_H
#define CG_NETLINK_H

int cg_netlink_init(void);
void cg_netlink_uninit(void);

#endif /* CG_NETLINK_H */
