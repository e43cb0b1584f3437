// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdp-pass.bpf.c - pass every frame; attached to a veth, it turns on the
 * NAPI that native XDP_TX from its peer needs. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
