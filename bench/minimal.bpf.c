// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * minimal.bpf.c - the anchor the guard's cost is held to: the simplest
 * correct guard for the common frame, written from the seed's description
 * and nothing more. IPv4 only, untagged only, the IHL byte by direct
 * packet access at data + 14, a per-CPU counter touched only on a drop.
 * Not shipped: bench/prog-cost.sh measures it beside the empty program and
 * the guard, to tell what the rule costs from what the guard adds (IPv6,
 * VLAN tags, the helper path for headers out of direct reach, egress).
 *
 * Built a second time with MINIMAL_TESTS, it also makes the three tests the
 * guard's IPv4 pass path runs beyond it, each for the guard's reason: the
 * protocol compared with IPv6 first (here the fixed header's rule, out of
 * line), the network header 14 bytes behind the MAC header (else the byte
 * at data + 14 is not the IHL: a tun's frames start at their IP header),
 * and an IHL below 5 dropped (fail closed). The gap between the two builds
 * is what those tests cost; the gap between that one and the guard, what
 * the guard adds beyond them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#define TC_ACT_UNSPEC	(-1)
#define TC_ACT_SHOT	2
#define CHECKSUM_PARTIAL_ 3
#define ETH_P_IP_	0x0800
#define ETH_P_IPV6_	0x86DD

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} minimal_drops SEC(".maps");

/* Count and drop: out of line, so the pass path needs no stack. */
static __noinline int minimal_drop(void)
{
	__u32 key = 0;
	__u64 *cnt = bpf_map_lookup_elem(&minimal_drops, &key);

	if (cnt)
		*cnt += 1;
	return TC_ACT_SHOT;
}

#ifdef MINIMAL_TESTS
/* IPv6: csum_start at or past the fixed header */
static __noinline int minimal_ipv6(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	if (skb->csum_start >= skb->network_header + 40)
		return TC_ACT_UNSPEC;
	return minimal_drop();
}
#endif

/* Each test as late as it can be, so that a frame reads no more than its
 * verdict needs: the cheapest this rule can be, the anchor's purpose. */
SEC("tc")
int cg_minimal(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	void *data, *data_end;
	__u8 *vhl;

	if (BPF_CORE_READ_BITFIELD(skb, ip_summed) != CHECKSUM_PARTIAL_)
		return TC_ACT_UNSPEC;
#ifdef MINIMAL_TESTS
	if (ctx->protocol == bpf_htons(ETH_P_IPV6_))
		return minimal_ipv6(ctx);
#endif
	if (ctx->protocol != bpf_htons(ETH_P_IP_))
		return TC_ACT_UNSPEC;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	vhl = data + 14;
	if ((void *)(vhl + 1) > data_end)
		return TC_ACT_UNSPEC;
#ifdef MINIMAL_TESTS
	if (skb->mac_header + 14 != skb->network_header)
		return TC_ACT_UNSPEC;
	if ((*vhl & 0x0f) < 5)
		return minimal_drop();
#endif
	if (skb->csum_start >= skb->network_header + (*vhl & 0x0f) * 4)
		return TC_ACT_UNSPEC;
	return minimal_drop();
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
