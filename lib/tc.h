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
 * when it leaves, if nobody else uses it by then. note(arg, created) keeps
 * "we created it" in the guard's own state (0 or -errno): true before the
 * qdisc is created, false when another turned out to be there.
 */
typedef int (*cg_clsact_note)(void *arg, bool created);
/* A clsact on ifindex: 0, or -errno. noted: the state says so already. */
int cg_clsact_make(int ifindex, bool noted, cg_clsact_note note, void *arg);
/* Destroy ifindex's clsact if created (noted) and no filter is on it. */
void cg_clsact_drop(int ifindex, bool created);

/* Does this kernel have tcx links (6.6+)? */
bool cg_have_tcx(void);

/* The id of the BPF program fd refers to, 0 if it cannot tell. */
__u32 cg_prog_id(int fd);
/* The id of the program of the clsact filter at handle/prio on the given
 * side (BPF_TC_INGRESS or BPF_TC_EGRESS) of ifindex, 0 if none. */
__u32 cg_clsact_prog_id(int ifindex, enum bpf_tc_attach_point side, __u32 handle, __u32 prio);

#endif /* CG_TC_H */
