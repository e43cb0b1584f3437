// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * csum_guard.bpf.c - drop packets whose CHECKSUM_PARTIAL csum_start points
 * inside the IP header, at the tc hook of the device they enter on (and,
 * with --egress, leave through: the same program serves both hooks).
 *
 * __sk_buff does not expose ip_summed, csum_start or network_header, so the
 * program reaches the real struct sk_buff through bpf_cast_to_kern_ctx()
 * (a kfunc since 6.2) and reads them with CO-RE relocations. The decision
 * itself is cg_verdict() from include/csum_guard.h, shared with the kernel
 * module and the unit tests. Only drops are counted, so the pass path
 * touches no map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "csum_guard.h"
#include "csum_guard_abi.h"

#define TC_ACT_UNSPEC	(-1)	/* tcx: TCX_NEXT; clsact: next filter */
#define TC_ACT_SHOT	2
#define CG_MAC_UNSET	0xffff
#define CG_MAX_DIRECT_OFF 0x3fff

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* Set by the loader before load. */
const volatile bool log_drops = false;
/* Read by the loader from the object, which it refuses on a mismatch. */
const volatile __u32 abi_version = CG_ABI_VERSION;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CG_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Direct packet access serves every frame from a tap (virtio_net_hdr_to_skb()
 * leaves csum_start + csum_offset + 2 in the linear area, and csum_start is
 * at least 6 bytes past the Ethernet header); the helper call covers the
 * rare skb whose headers are not in the linear part, so such a packet is
 * judged rather than dropped as unreadable.
 */

/* The IPv4 version/IHL byte at offset off of the packet, or -1. Returned by
 * value, not through a pointer, so that the fields stay in registers. */
static __always_inline int read_vhl(struct __sk_buff *ctx, __u32 off)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p, vhl;

	/* A bound the verifier can see; beyond it, the helper judges. */
	if (off <= CG_MAX_DIRECT_OFF) {
		p = data + off;
		if ((void *)(p + 1) <= data_end)
			return *p;
	}
	if (bpf_skb_load_bytes(ctx, off, &vhl, 1))
		return -1;
	return vhl;
}

/* The 4-byte VLAN tag at offset off into tag; false if it is not there. */
static __always_inline bool read_tag(struct __sk_buff *ctx, __u32 off, __u8 *tag)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p;

	if (off <= CG_MAX_DIRECT_OFF) {
		p = data + off;
		if ((void *)(p + CG_VLAN_HLEN) <= data_end) {
			__builtin_memcpy(tag, p, CG_VLAN_HLEN);
			return true;
		}
	}
	return !bpf_skb_load_bytes(ctx, off, tag, CG_VLAN_HLEN);
}

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		*v += 1;
}

/*
 * Everything after the first test: read what the decision needs, step over
 * VLAN tags when the packet still carries some (tagged: a compile-time
 * constant, so the untagged path has no loop), decide, count the drop.
 */
static __always_inline int judge(struct __sk_buff *ctx, struct sk_buff *skb,
				 struct cg_fields f, const bool tagged)
{
	__u8 tag[CG_VLAN_HLEN];
	enum cg_verdict v;
	int vhl = -1, i;
	__u32 nh_off;
	__u16 mac;

	f.csum_start = skb->csum_start;
	f.network_header = skb->network_header;
	/*
	 * At the tc hook skb->data is at the MAC header: at ingress cls_bpf and
	 * tcx push it there, at egress __dev_queue_xmit() resets the MAC header
	 * to skb->data before the hooks run.
	 */
	mac = skb->mac_header;
	if (mac != CG_MAC_UNSET && f.network_header >= mac) {
		if (tagged)
			cg_vlan_rewind(&f, mac);
		nh_off = f.network_header - mac;
		if (tagged) {
			for (i = 0; i < CG_VLAN_MAX && cg_wants_vlan(&f); i++) {
				if (!read_tag(ctx, nh_off + f.l3_off, tag))
					break;
				cg_vlan_step(&f, tag);
			}
		}
		if (cg_wants_l3(&f))
			vhl = read_vhl(ctx, nh_off + f.l3_off);
	}
	f.l3_readable = vhl >= 0;
	f.ip_vhl = vhl;

	v = cg_verdict(&f);
	if (v == CG_PASS)
		return TC_ACT_UNSPEC;

	count(CG_VERDICT_COUNTER(v));
	if (log_drops)
		bpf_printk("csum_guard: drop ifindex=%u csum_start=%u network_header=%u vhl=0x%x",
			   ctx->ifindex, f.csum_start, f.network_header + f.l3_off, f.ip_vhl);
	return TC_ACT_SHOT;
}

/*
 * A CHECKSUM_PARTIAL frame that still carries VLAN tags at network_header
 * (QinQ: the kernel stripped only the outer one). Out of line, so that the
 * common path neither grows nor spills for it.
 */
static __noinline int judge_tagged(struct __sk_buff *ctx, __u32 protocol)
{
	struct cg_fields f = {
		.ip_summed = CG_CHECKSUM_PARTIAL,
		.protocol = protocol,
	};

	return judge(ctx, bpf_cast_to_kern_ctx(ctx), f, true);
}

SEC("tc")
int csum_guard(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct cg_fields f = {
		.ip_summed = BPF_CORE_READ_BITFIELD(skb, ip_summed),
		.protocol = bpf_ntohs(ctx->protocol),
	};

	/* The common case: not CHECKSUM_PARTIAL IP, nothing else to read. */
	if (!cg_judged(&f))
		return TC_ACT_UNSPEC;
	if (cg_is_vlan(f.protocol))
		return judge_tagged(ctx, f.protocol);
	return judge(ctx, skb, f, false);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
