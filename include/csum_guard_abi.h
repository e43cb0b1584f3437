/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard_abi.h - what the loader, both backends and the tests agree on:
 * the ABI version, counter indices, the guard's flags and the names in the
 * BPF object. The module's generic netlink interface is csum_guard_genl.h;
 * the loader's pins on bpffs are its own (loader/bpf/guard.h).
 *
 * Bump CG_ABI_VERSION whenever anything below, or in csum_guard_genl.h,
 * changes meaning. The loader
 * refuses a BPF object or a module that reports another version. Adding a
 * flag, a pin or an attribute is not a change of meaning: the module
 * rejects flags it does not know (EINVAL), and INFO tells the loader which
 * ones it takes, so ABI 1 modules and pins stay usable.
 */
#ifndef CSUM_GUARD_ABI_H
#define CSUM_GUARD_ABI_H

#ifndef __bpf__		/* vmlinux.h has the types there */
#include <linux/types.h>
#endif

#define CG_ABI_VERSION		1

/* Per-CPU drop counters, the same indices in both backends. */
enum cg_counter {
	CG_CNT_DROPPED = 0,		/* csum_start inside the IP header */
	CG_CNT_DROPPED_UNREADABLE = 1,	/* IP header unreadable or IHL < 5 */
	CG_CNT_MAX,
};

/* cg_verdict() value -> counter index (CG_PASS has none) */
#define CG_VERDICT_COUNTER(v)	((v) - 1)

/*
 * The host's per-device counters, one map for every guard's program (an
 * ABI 1 object may lack it, and then counts in its own "counters" only):
 * a per-CPU entry per guarded device, keyed by the cookie of the device's
 * network namespace and its ifindex, which the loader creates before it
 * attaches and deletes when it detaches. A program with this map counts a
 * drop in its device's entry, and in its own "counters" only where the
 * device has none. So one program serves every device of a host, and each
 * device's counts stay its own.
 */
#define CG_BPF_MAP_DEV_COUNTERS	"dev_counters"
#define CG_DEV_MAX		65536	/* guarded devices per host */

struct cg_dev_key {
	__u64 netns_cookie;	/* SO_NETNS_COOKIE of the device's namespace */
	__u32 ifindex;
	__u32 pad;		/* zero */
};

struct cg_dev_counters {
	__u64 cnt[CG_CNT_MAX];	/* by enum cg_counter */
};

/* The BPF object: the names the loader finds its program and map by */
#define CG_BPF_PROG_NAME	"csum_guard"
#define CG_BPF_MAP_COUNTERS	"counters"

/*
 * A drop, as the guards report it with --log-drops (and the completion guard
 * always) to whoever reads their events: the BPF program through a ring
 * buffer (CG_BPF_MAP_EVENTS, one per host, shared by every guard's program),
 * the module through its generic netlink group CG_GENL_MCGRP_DROPS
 * (csum_guard_genl.h). Offsets are from the start of the frame, its MAC
 * header (CG_EV_FROM_HEAD: there was none, they are from skb->head).
 */
#define CG_BPF_MAP_EVENTS	"cg_events"
#define CG_EVENTS_BYTES		(256 * 1024)	/* the ring buffer's size */

#define CG_EV_EGRESS		(1U << 0)	/* on the way out of the device */
#define CG_EV_COMPLETION	(1U << 1)	/* the completion guard refused it */
#define CG_EV_FROM_HEAD		(1U << 2)	/* offsets from skb->head */
#define CG_EV_KMOD		(1U << 3)	/* reported by the module */

struct cg_drop_event {
	__u64 netns_ino;	/* the device's network namespace (its inode) */
	__u32 ifindex;
	__u32 len;		/* the packet's length */
	__u16 csum_start;	/* where the checksum would have started */
	__u16 l3;		/* the IP header (after any VLAN tags) */
	__u16 protocol;		/* host order: 0x0800, 0x86dd, a VLAN TPID */
	__u8 verdict;		/* cg_verdict(): 1 dropped, 2 unreadable */
	__u8 vhl;		/* IPv4's version/IHL byte, 0 if not read */
	__u8 flags;		/* CG_EV_* */
	__u8 pad[3];
	char ifname[16];	/* IFNAMSIZ */
};

/* Flags of a guard: the attach options both backends take */
#define CG_F_LOG_DROPS		(1U << 0)
/*
 * Guard the device's egress too: a second hook on its transmit path
 * (tcx/clsact egress, NF_NETDEV_EGRESS), for what the host itself sends
 * through it, e.g. from an AF_PACKET socket with PACKET_VNET_HDR.
 */
#define CG_F_EGRESS		(1U << 1)

#endif /* CSUM_GUARD_ABI_H */
