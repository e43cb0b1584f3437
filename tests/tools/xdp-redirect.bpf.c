// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdp-redirect.bpf.c - send every frame to the device in slot 0 of
 * cg_redirect_to: someone's XDP program on a guest-facing device, which
 * runs before any guard there (tests/cases/12-topology.sh, topo xdp). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cg_redirect_to SEC(".maps");

SEC("xdp")
int xdp_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&cg_redirect_to, 0, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
