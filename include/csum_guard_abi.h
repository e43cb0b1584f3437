/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard_abi.h - what the loader, both backends and the tests agree on:
 * counter indices, object and pin names, the ABI version, and the generic
 * netlink interface of the kernel module.
 *
 * Bump CG_ABI_VERSION whenever anything below changes meaning. The loader
 * refuses a BPF object or a module that reports another version. Adding a
 * flag, a pin or an attribute is not a change of meaning: the module
 * rejects flags it does not know (EINVAL), and INFO tells the loader which
 * ones it takes, so ABI 1 modules and pins stay usable.
 */
#ifndef CSUM_GUARD_ABI_H
#define CSUM_GUARD_ABI_H

#define CG_ABI_VERSION		1

/* Per-CPU drop counters, the same indices in both backends. */
enum cg_counter {
	CG_CNT_DROPPED = 0,		/* csum_start inside the IP header */
	CG_CNT_DROPPED_UNREADABLE = 1,	/* IP header unreadable or IHL < 5 */
	CG_CNT_MAX,
};

/* cg_verdict() value -> counter index (CG_PASS has none) */
#define CG_VERDICT_COUNTER(v)	((v) - 1)

/* BPF backend */
#define CG_BPF_PROG_NAME	"csum_guard"
#define CG_BPF_MAP_COUNTERS	"counters"
#define CG_PIN_ROOT		"/sys/fs/bpf/csum_guard"
/* under CG_PIN_ROOT/<netns inode>/<ifindex>/ */
#define CG_PIN_LINK		"link"		/* tcx link, ingress */
#define CG_PIN_LINK_EGRESS	"link_egress"	/* tcx link, egress (CG_F_EGRESS) */
#define CG_PIN_PROG		"prog"		/* program (clsact attach) */
#define CG_PIN_COUNTERS		"counters"
#define CG_PIN_META		"meta"

/* Kernel-module backend: generic netlink family */
#define CG_GENL_NAME		"csum_guard"
#define CG_GENL_VERSION		1
#define CG_KMOD_NAME		"csum_guard"

/*
 * Every command acts on the network namespace of the requesting socket:
 * the loader enters the target namespace before it opens the socket.
 * ATTACH, DETACH need CAP_NET_ADMIN over that namespace. A device is
 * described by flat attributes: IFINDEX, IFNAME, FLAGS, DROPPED,
 * DROPPED_UNREADABLE.
 */
enum cg_genl_cmd {
	CG_CMD_UNSPEC,
	CG_CMD_ATTACH,		/* IFINDEX, [FLAGS] -> reply as GET */
	CG_CMD_DETACH,		/* IFINDEX */
	CG_CMD_GET,		/* IFINDEX -> one device; dump: one message each */
	CG_CMD_INFO,		/* -> ABI_VERSION, VERSION, [FLAGS] */
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
	__CG_A_MAX,
};
#define CG_A_MAX (__CG_A_MAX - 1)

#define CG_F_LOG_DROPS		(1U << 0)
/*
 * Guard the device's egress too: a second hook on its transmit path
 * (tcx/clsact egress, NF_NETDEV_EGRESS), for what the host itself sends
 * through it, e.g. from an AF_PACKET socket with PACKET_VNET_HDR.
 */
#define CG_F_EGRESS		(1U << 1)

#endif /* CSUM_GUARD_ABI_H */
