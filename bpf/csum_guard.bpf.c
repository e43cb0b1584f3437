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
 * touches no map. One loaded program serves every guarded device of the
 * host (the loader pins it once): a drop is counted in its device's entry
 * of the host's dev_counters.
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
/* The tests build variants with -D: another constant (another program of
 * our ABI), 0 (every read through the helper), another ABI version. */
#ifndef CG_MAX_DIRECT_OFF
#define CG_MAX_DIRECT_OFF 0x3fff
#endif
#ifndef CG_OBJ_ABI_VERSION
#define CG_OBJ_ABI_VERSION CG_ABI_VERSION
#endif

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* Set by the loader before load. */
const volatile bool log_drops = false;
/* Read by the loader from the object, which it refuses on a mismatch. */
const volatile __u32 abi_version = CG_OBJ_ABI_VERSION;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CG_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* The host's per-device counters (csum_guard_abi.h): the loader creates a
 * device's entry before it attaches; allocated by the loader, never here. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, CG_DEV_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cg_dev_key);
	__type(value, struct cg_dev_counters);
} dev_counters SEC(".maps");

/* Drops reported to the loader's readers (--log-drops): one ring buffer
 * for the host, which the loader gives every guard's program. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CG_EVENTS_BYTES);
} cg_events SEC(".maps");

/*
 * Direct packet access serves every frame from a tap (virtio_net_hdr_to_skb()
 * leaves csum_start + csum_offset + 2 in the linear area, and csum_start is
 * at least 6 bytes past the Ethernet header); the helper call covers the
 * rare skb whose headers are not in the linear part, so such a packet is
 * judged rather than dropped as unreadable.
 *
 * The layout is for the cost of the common paths. The entry program makes
 * no call after bpf_cast_to_kern_ctx() (which the verifier inlines) other
 * than one in tail position, so that only ctx lives in a callee-saved
 * register and the program needs no stack: the JIT then saves one register
 * instead of four and sets up no frame on every packet. Whatever needs the
 * stack or keeps values across a helper call (VLAN tags, the helper read,
 * counting and logging a drop) runs in out-of-line subprograms, on the rare
 * packets that need it.
 */

/* Do len bytes at offset off of the packet lie within direct reach? */
static __always_inline bool direct(struct __sk_buff *ctx, __u32 off, __u32 len, __u8 **p)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	/* A bound the verifier can see; beyond it, the helper reads. */
	if (off > CG_MAX_DIRECT_OFF || data + off + len > data_end)
		return false;
	*p = data + off;
	return true;
}

/* The IPv4 version/IHL byte at offset off of the packet, or -1. Returned by
 * value, not through a pointer, so that the fields stay in registers. */
static __always_inline int read_vhl(struct __sk_buff *ctx, __u32 off)
{
	__u8 *p, vhl;

	if (direct(ctx, off, 1, &p))
		return *p;
	if (bpf_skb_load_bytes(ctx, off, &vhl, 1))
		return -1;
	return vhl;
}

/* len bytes at offset off into buf (a VLAN tag, the first two bytes of an
 * IPv6 extension header); false if they are not there. */
static __always_inline bool read_bytes(struct __sk_buff *ctx, __u32 off, __u8 *buf, __u32 len)
{
	__u8 *p;

	if (direct(ctx, off, len, &p)) {
		__builtin_memcpy(buf, p, len);
		return true;
	}
	return !bpf_skb_load_bytes(ctx, off, buf, len);
}

/*
 * A drop event for the readers of the ring buffer, with what tells an
 * operator what was dropped: the device by namespace, index and name, the
 * offsets from the start of the frame. Out of line: only --log-drops
 * guards call it. A full ring loses the event, never the drop.
 */
static __noinline void report(struct __sk_buff *ctx, __u32 v, __u32 csum_start, __u32 l3,
			      __u32 vhl)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct cg_drop_event *e;
	struct net_device *dev;
	__u32 mac;

	e = bpf_ringbuf_reserve(&cg_events, sizeof(*e), 0);
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	mac = skb->mac_header;
	if (mac == CG_MAC_UNSET || mac > csum_start || mac > l3) {
		mac = 0;
		e->flags |= CG_EV_FROM_HEAD;
	}
	if (!BPF_CORE_READ_BITFIELD_PROBED(skb, tc_at_ingress))
		e->flags |= CG_EV_EGRESS;
	dev = skb->dev;
	e->netns_ino = BPF_CORE_READ(dev, nd_net.net, ns.inum);
	bpf_probe_read_kernel_str(e->ifname, sizeof(e->ifname), dev->name);
	e->ifindex = ctx->ifindex;
	e->len = ctx->len;
	e->csum_start = csum_start - mac;
	e->l3 = l3 - mac;
	e->protocol = bpf_ntohs(ctx->protocol);
	e->verdict = v;
	e->vhl = vhl;
	bpf_ringbuf_submit(e, 0);
}

/*
 * Count a drop, report it when asked, drop. Out of line, and called only in
 * tail position, so that the pass path needs neither the stack nor more
 * than one callee-saved register.
 */
static __noinline int drop(struct __sk_buff *ctx, enum cg_verdict v, __u32 csum_start,
			   __u32 l3, int vhl)
{
	__u32 idx = CG_VERDICT_COUNTER(v);
	struct cg_dev_key key = {};
	struct cg_dev_counters *dc;
	struct sk_buff *skb;
	__u64 *cnt;

	/* the report first: then no argument has to outlive a call */
	if (log_drops)
		report(ctx, v, csum_start, l3, vhl < 0 ? 0 : vhl & 0xff);
	/* the device's own entry in the host's counters, where it has one */
	skb = bpf_cast_to_kern_ctx(ctx);
	key.netns_cookie = BPF_CORE_READ(skb, dev, nd_net.net, net_cookie);
	key.ifindex = ctx->ifindex;
	dc = bpf_map_lookup_elem(&dev_counters, &key);
	if (dc && idx < CG_CNT_MAX) {
		dc->cnt[idx] += 1;
		return TC_ACT_SHOT;
	}
	cnt = bpf_map_lookup_elem(&counters, &idx);
	if (cnt)
		*cnt += 1;
	return TC_ACT_SHOT;
}

/* The verdict on fields read in full; what the program returns for it.
 * vhl: IPv4's version/IHL byte, -1 if unread (IPv6: its caller read what
 * it needed into f). */
static __always_inline int act(struct __sk_buff *ctx, struct cg_fields *f, int vhl)
{
	enum cg_verdict v;

	if (f->protocol == CG_ETH_P_IP) {
		f->l3_readable = vhl >= 0;
		f->ip_vhl = vhl;
	}
	v = cg_verdict(f);
	if (v == CG_PASS)
		return TC_ACT_UNSPEC;
	return drop(ctx, v, f->csum_start, f->network_header + f->l3_off, vhl);
}

/*
 * skb->mac_header, where skb->data is at the tc hook: at ingress cls_bpf and
 * tcx push it there, at egress __dev_queue_xmit() resets the MAC header to
 * skb->data before the hooks run. False if it is unset or lies past
 * network_header: the L3 header is then not readable, and the packet is
 * dropped as unreadable. No packet reaches that at a tc hook (both hooks
 * set the MAC header first), so no test sends one: it fails closed should
 * a kernel ever hand the program such an skb.
 */
static __always_inline bool mac_header(struct sk_buff *skb, __u32 network_header, __u32 *mac)
{
	*mac = skb->mac_header;
	return *mac != CG_MAC_UNSET && network_header >= *mac;
}

/*
 * The long way, for every CHECKSUM_PARTIAL frame the fast paths below leave
 * to it: VLAN tags still at network_header (QinQ: the kernel stripped only
 * the outer one), a network header not right behind an Ethernet header (L3
 * devices, an unset MAC header), an IP header direct access cannot reach,
 * IPv6 extension headers, a protocol that is not IP at all. Step over the
 * tags and the extension headers, read through the helper where needed,
 * decide.
 */
static __noinline int judge_slow(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct cg_fields f = {
		.ip_summed = CG_CHECKSUM_PARTIAL,
		.protocol = bpf_ntohs(ctx->protocol),
	};
	__u8 tag[CG_VLAN_HLEN];
	__u32 mac, nh_off;
	int vhl = -1, i;

	/* Not IP at all: nothing else to read. */
	if (!cg_judged(&f))
		return TC_ACT_UNSPEC;
	f.csum_start = skb->csum_start;
	f.network_header = skb->network_header;
	if (mac_header(skb, f.network_header, &mac)) {
		cg_vlan_rewind(&f, mac);
		nh_off = f.network_header - mac;
		for (i = 0; i < CG_VLAN_MAX && cg_wants_vlan(&f); i++) {
			if (!read_bytes(ctx, nh_off + f.l3_off, tag, CG_VLAN_HLEN))
				break;
			cg_vlan_step(&f, tag);
		}
		if (cg_wants_l3(&f))
			vhl = read_vhl(ctx, nh_off + f.l3_off);
		if (cg_wants_ip6(&f)) {
			vhl = read_vhl(ctx, nh_off + f.l3_off + CG_IPV6_NEXTHDR_OFF);
			if (vhl >= 0)
				cg_ip6_start(&f, vhl);
		}
		for (i = 0; i < CG_IPV6_EXT_MAX && cg_wants_ext(&f); i++) {
			if (!read_bytes(ctx, nh_off + f.l3_off + f.ip6_len, tag, 2))
				break;
			cg_ip6_step(&f, tag);
		}
	}
	return act(ctx, &f, vhl);
}

/*
 * The fast paths serve the frames nearly every guest sends: untagged IPv4,
 * and IPv6 with TCP or UDP right behind its fixed header, the network header
 * right behind the Ethernet header, where skb->data (the MAC header, at
 * either hook) plus 14 reaches it directly. They read what the pass test
 * needs, in the order it needs it, and pass what cg_ip4_passes() or
 * cg_ip6_passes() passes; every other frame, the ones to drop among them,
 * goes the long way, whose cg_verdict() ends in the same tests. So the pass
 * path keeps nothing alive for a drop and makes no call. The helper-path
 * test build (CG_MAX_DIRECT_OFF 0) leaves every frame to judge_slow().
 */
#define CG_FAST_PATHS (CG_MAX_DIRECT_OFF >= CG_ETH_HLEN + CG_IPV6_HLEN)

SEC("tc")
int csum_guard(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	void *data, *data_end;
	__u32 proto, nh;
	__u8 *b;

	/* The most common case: not CHECKSUM_PARTIAL, nothing else to read. */
	if (BPF_CORE_READ_BITFIELD(skb, ip_summed) != CG_CHECKSUM_PARTIAL)
		return TC_ACT_UNSPEC;
	if (!CG_FAST_PATHS)
		return judge_slow(ctx);
	proto = ctx->protocol;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	nh = skb->network_header;
	if (proto == bpf_htons(CG_ETH_P_IP)) {
		/* IPv4: the version/IHL byte decides */
		b = data + CG_ETH_HLEN;
		if ((void *)(b + 1) <= data_end && skb->mac_header + CG_ETH_HLEN == nh &&
		    cg_ip4_passes(skb->csum_start, nh, *b))
			return TC_ACT_UNSPEC;
	} else if (proto == bpf_htons(CG_ETH_P_IPV6)) {
		/* IPv6: the fixed header's next-header byte */
		b = data + CG_ETH_HLEN + CG_IPV6_NEXTHDR_OFF;
		if ((void *)(b + 1) <= data_end && skb->mac_header + CG_ETH_HLEN == nh &&
		    cg_ip6_passes(skb->csum_start, nh, CG_IPV6_HLEN, *b))
			return TC_ACT_UNSPEC;
	}
	return judge_slow(ctx);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
