// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * empty.bpf.c - the floor the guard is measured against: a tc program that
 * looks at nothing and lets every packet go on, exactly as the guard does
 * for a packet it passes. Whatever this costs is the hook, the dispatch and
 * (with kernel.bpf_stats_enabled) the accounting clock, not the guard.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_UNSPEC	(-1)	/* tcx: TCX_NEXT; clsact: next filter */

SEC("tc")
int cg_empty(struct __sk_buff *ctx)
{
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
