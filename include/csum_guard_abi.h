/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csum_guard_abi.h - what the loader, both backends and the tests agree on:
 * the ABI version, counter indices, the guard's flags and the names in the
 * BPF object. The module's generic netlink interface is csum_guard_genl.h;
 * the loader's pins on bpffs are its own (loader/bpf_guard.h).
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

#define CG_ABI_VERSION		1

/* Per-CPU drop counters, the same indices in both backends. */
enum cg_counter {
	CG_CNT_DROPPED = 0,		/* csum_start inside the IP header */
	CG_CNT_DROPPED_UNREADABLE = 1,	/* IP header unreadable or IHL < 5 */
	CG_CNT_MAX,
};

/* cg_verdict() value -> counter index (CG_PASS has none) */
#define CG_VERDICT_COUNTER(v)	((v) - 1)

/* The BPF object: the names the loader finds its program and map by */
#define CG_BPF_PROG_NAME	"csum_guard"
#define CG_BPF_MAP_COUNTERS	"counters"

/* Flags of a guard: the attach options both backends take */
#define CG_F_LOG_DROPS		(1U << 0)
/*
 * Guard the device's egress too: a second hook on its transmit path
 * (tcx/clsact egress, NF_NETDEV_EGRESS), for what the host itself sends
 * through it, e.g. from an AF_PACKET socket with PACKET_VNET_HDR.
 */
#define CG_F_EGRESS		(1U << 1)

#endif /* CSUM_GUARD_ABI_H */
