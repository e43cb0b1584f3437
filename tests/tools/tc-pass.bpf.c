// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* tc-pass.bpf.c - a tc program that lets every frame on: another's program
 * on a guarded device, for what status says runs before the guard. No
 * kfunc, so it loads on every kernel the suite boots. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int tc_pass(struct __sk_buff *ctx)
{
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
