/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard_genl.h - the kernel module's generic netlink interface, which
 * the loader's kmod backend speaks. Versioned with the rest of the ABI
 * (csum_guard_abi.h): INFO reports CG_ABI_VERSION, and the flags ATTACH
 * takes on this kernel.
 */
#ifndef CSUM_GUARD_GENL_H
#define CSUM_GUARD_GENL_H

#include "csum_guard_abi.h"

/* The family, and the module that registers it */
#define CG_GENL_NAME		"csum_guard"
#define CG_GENL_VERSION		1
#define CG_KMOD_NAME		"csum_guard"
/*
 * The multicast group of drop events: one CG_CMD_DROP_EVENT message with a
 * CG_A_EVENT (struct cg_drop_event) per drop of a --log-drops guard and per
 * completion refused, rate-limited, sent to listeners in the initial
 * network namespace only (joining needs CAP_NET_ADMIN where the kernel can
 * check it). A module without the group predates drop events.
 */
#define CG_GENL_MCGRP_DROPS	"drops"

/*
 * Every command but COMPLETION acts on the network namespace of the
 * requesting socket: the loader enters the target namespace before it
 * opens the socket. COMPLETION is host-wide; the refusals it reports are
 * those of the host's side, every namespace owned by the initial user
 * namespace, to a reader there, and a namespace's own to a reader in a
 * namespace any user could make (owned by another user namespace);
 * COMPLETION_OTHERS is the sum of all of those.
 * ATTACH, DETACH need CAP_NET_ADMIN over that namespace. A device is
 * described by flat attributes: IFINDEX, IFNAME, FLAGS, DROPPED,
 * DROPPED_UNREADABLE.
 */
enum cg_genl_cmd {
	CG_CMD_UNSPEC,
	CG_CMD_ATTACH,		/* IFINDEX, [FLAGS] -> reply as GET */
	CG_CMD_DETACH,		/* IFINDEX */
	CG_CMD_GET,		/* IFINDEX -> one device; dump: one message each */
	CG_CMD_INFO,		/* -> ABI_VERSION, VERSION, [FLAGS],
				 * [COMPLETION]: present where the module
				 * can have the completion guard */
	CG_CMD_COMPLETION,	/* [COMPLETION] to switch it (needs
				 * CAP_NET_ADMIN in the initial user
				 * namespace: it is host-wide) -> COMPLETION,
				 * COMPLETION_DROPPED, _UNREADABLE,
				 * [COMPLETION_OTHERS] */
	CG_CMD_DROP_EVENT,	/* multicast only: EVENT */
	__CG_CMD_MAX,
};
#define CG_CMD_MAX (__CG_CMD_MAX - 1)

enum cg_genl_attr {
	CG_A_UNSPEC,
	CG_A_IFINDEX,		/* u32 */
	CG_A_IFNAME,		/* string, replies only */
	CG_A_FLAGS,		/* u32, CG_F_*; in INFO: the flags ATTACH
				 * takes on this kernel (absent: LOG_DROPS) */
	CG_A_DROPPED,		/* u64, sum over CPUs */
	CG_A_DROPPED_UNREADABLE,/* u64, sum over CPUs */
	CG_A_ABI_VERSION,	/* u32 */
	CG_A_VERSION,		/* string: module version */
	CG_A_PAD,
	CG_A_COMPLETION,	/* u32: the completion guard is on (1) or off */
	CG_A_COMPLETION_DROPPED,	/* u64: completions it refused, csum_start
					 * inside the IP headers */
	CG_A_COMPLETION_UNREADABLE,	/* u64: ... headers unreadable */
	CG_A_EVENT,		/* binary: struct cg_drop_event */
	CG_A_FIRST,		/* u32, CG_FIRST_*: which of the device's
				 * hooks run before every other netfilter
				 * hook of that device (absent: not known) */
	CG_A_REORDERED,		/* u64: times the module got back in front
				 * of a hook registered after it */
	CG_A_COMPLETION_OTHERS,	/* u64: completions refused in namespaces
				 * not owned by the initial user namespace,
				 * both reasons (counted there, not in
				 * COMPLETION_DROPPED or _UNREADABLE) */
	__CG_A_MAX,
};
#define CG_A_MAX (__CG_A_MAX - 1)

#define CG_FIRST_INGRESS	(1U << 0)
#define CG_FIRST_EGRESS		(1U << 1)

#endif /* CSUM_GUARD_GENL_H */
