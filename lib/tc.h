/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_TC_H
#define CG_TC_H

#include <stdbool.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

/* Any tc filter on either side of ifindex's clsact? (cannot tell: yes) */
bool cg_clsact_has_filters(int ifindex);
/* Has ifindex a clsact qdisc (or an ingress one) already? (cannot tell: yes) */
bool cg_clsact_exists(int ifindex);
/*
 * The clsact qdisc a guard creates where a device has none, and destroys
 * when it leaves, if nobody else uses it by then. "We created it" is the
 * bit created of the guard's *flags, which save(arg) writes to its state
 * (0 or -errno).
 */
struct cg_clsact_note {
	__u32 *flags;
	__u32 created;
	int (*save)(void *arg);
	void *arg;
};
/* A clsact on ifindex, its creation noted (the bit set and saved before,
 * cleared if another qdisc appeared meanwhile): 0, or -errno. */
int cg_clsact_make(int ifindex, const struct cg_clsact_note *n);
/* Destroy ifindex's clsact if created (the bit) and no filter is on it. */
void cg_clsact_drop(int ifindex, bool created);

/* Does this kernel have tcx links (6.6+)? */
bool cg_have_tcx(void);

/* The id of the BPF program fd refers to, 0 if it cannot tell. */
__u32 cg_prog_id(int fd);
/* The id of the program of the clsact filter at handle/prio on the given
 * side (BPF_TC_INGRESS or BPF_TC_EGRESS) of ifindex, 0 if none. */
__u32 cg_clsact_prog_id(int ifindex, enum bpf_tc_attach_point side, __u32 handle, __u32 prio);

#endif /* CG_TC_H */
