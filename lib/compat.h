/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * compat.h - kernel ABI values newer than the uapi headers some build hosts
 * ship (Debian 12: libbpf 1.1, whose headers predate tcx). The kernel ABI
 * is stable, so the values are safe to name here; whether the running
 * kernel has them is probed at run time, never assumed.
 */
#ifndef CG_LIB_COMPAT_H
#define CG_LIB_COMPAT_H

#include <linux/bpf.h>

/* enum bpf_attach_type, kernel 6.6 */
#define CG_BPF_TCX_INGRESS	46
#define CG_BPF_TCX_EGRESS	47
/* enum bpf_link_type, kernel 6.6 */
#define CG_BPF_LINK_TYPE_TCX	11
/* mprog attach flag: place the program before all others */
#define CG_BPF_F_BEFORE		(1U << 3)

/* The head of struct bpf_link_info as a tcx link fills it. */
struct cg_tcx_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;		/* the union is 8-byte aligned */
	__u32 ifindex;		/* 0 once the device is gone */
	__u32 attach_type;
	__u8 rest[64];		/* the kernel may fill more of the union */
};

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

#endif /* CG_LIB_COMPAT_H */
