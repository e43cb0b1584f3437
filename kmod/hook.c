// SPDX-License-Identifier: GPL-2.0-only
/*
 * hook.c - the packet path: a netfilter NETDEV ingress (or egress) hook that
 * reads the fields cg_verdict() needs from the skb and drops what it
 * condemns.
 *
 * This file only parses; the decision itself is cg_verdict() from
 * include/csum_guard.h, shared with the BPF program and the unit tests.
 */
#include "device.h"
#include "hook.h"
#include "netlink.h"
#include "netns.h"

#include <linux/if_ether.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>

#include <csum_guard.h>

static void cg_hook_log(const struct sk_buff *skb,
			const struct nf_hook_state *state,
			const struct cg_fields *f, enum cg_verdict v)
{
	unsigned int ihl = f->l3_readable ? f->ip_vhl & 0x0f : 0;
	bool ingress = state->hook == NF_NETDEV_INGRESS;
	const struct net_device *dev = ingress ? state->in : state->out;
	const struct net *net = dev ? dev_net(dev) : NULL;
	int mac = cg_frame_start(skb, f);

	cg_nl_drop_event(skb, net, dev, f, v, ingress ? 0 : CG_EV_EGRESS);
	/*
	 * The kernel log's line of a drop (--log-drops), with a budget of its
	 * own, the device's namespace's side of it (netns.c): net_ratelimit()'s
	 * is shared by every networking message of the host, and a guest's or
	 * an unprivileged user's flood of bad frames must not silence them. The
	 * drop events (cg_nl_drop_event()) are the full record, with theirs.
	 */
	if (!cg_netns_log_ok(net))
		return;
	/* offsets from the start of the frame, as the drop events give them */
	pr_info("%s: dropped %s %s packet, %s: csum_start %u, IP header at %u%s, ihl %u\n",
		dev ? dev->name : "?", ingress ? "ingress" : "egress",
		f->protocol == CG_ETH_P_IPV6 ? "IPv6" :
		f->protocol == CG_ETH_P_IP ? "IPv4" : "VLAN",
		v == CG_DROP ? "checksum start inside the IP header" :
			       "IP header unreadable",
		f->csum_start - max(mac, 0), f->network_header + f->l3_off - max(mac, 0),
		mac < 0 ? " (from skb->head)" : "", ihl);
}

/*
 * The fields cg_verdict() needs, read from the skb as it is now, and the
 * verdict on them: for the hooks at a device and for the completion guard
 * at skb_checksum_help() alike. Offsets into the packet are from
 * skb->data (the network header at ingress, the MAC header at egress and
 * at completion), read with skb_header_pointer().
 */
enum cg_verdict cg_skb_verdict(const struct sk_buff *skb, struct cg_fields *f)
{
	int nh_off, i;

	memset(f, 0, sizeof(*f));
	f->csum_start = skb->csum_start;
	f->network_header = skb->network_header;
	f->protocol = ntohs(skb->protocol);
	f->ip_summed = skb->ip_summed;
	if (!cg_judged(f))
		return CG_PASS;

	/*
	 * QinQ and deeper: at ingress the kernel stripped one tag, others
	 * remain at network_header; at egress an AF_PACKET frame carries all
	 * its tags in front of network_header (cg_vlan_rewind()).
	 */
	if (cg_wants_vlan(f) && skb_mac_header_was_set(skb))
		cg_vlan_rewind(f, skb->mac_header);
	nh_off = (int)f->network_header - (int)skb_headroom(skb);
	for (i = 0; i < CG_VLAN_MAX && cg_wants_vlan(f); i++) {
		const u8 *tag;
		u8 buf[CG_VLAN_HLEN];

		tag = skb_header_pointer(skb, nh_off + f->l3_off, sizeof(buf), buf);
		if (!tag)
			break;
		cg_vlan_step(f, tag);
	}

	if (cg_wants_l3(f)) {
		const u8 *vhl;
		u8 buf;

		vhl = skb_header_pointer(skb, nh_off + f->l3_off, sizeof(buf), &buf);
		if (vhl) {
			f->l3_readable = 1;
			f->ip_vhl = *vhl;
		}
	}

	/* IPv6: the next header, then the extension headers it names */
	if (cg_wants_ip6(f)) {
		const u8 *next;
		u8 buf;

		next = skb_header_pointer(skb, nh_off + f->l3_off + CG_IPV6_NEXTHDR_OFF,
					  sizeof(buf), &buf);
		if (next)
			cg_ip6_start(f, *next);
	}
	for (i = 0; i < CG_IPV6_EXT_MAX && cg_wants_ext(f); i++) {
		const u8 *hdr;
		u8 buf[2];

		hdr = skb_header_pointer(skb, nh_off + f->l3_off + f->ip6_len, sizeof(buf), buf);
		if (!hdr)
			break;
		cg_ip6_step(f, hdr);
	}
	return cg_verdict(f);
}

unsigned int cg_hook(void *priv, struct sk_buff *skb,
		     const struct nf_hook_state *state)
{
	struct cg_device *cd = priv;
	struct cg_fields f;
	enum cg_verdict v;

	v = cg_skb_verdict(skb, &f);
	if (likely(v == CG_PASS))
		return NF_ACCEPT;

	if (WARN_ON_ONCE(CG_VERDICT_COUNTER(v) >= CG_CNT_MAX))
		return NF_DROP;
	this_cpu_inc(cd->counters->cnt[CG_VERDICT_COUNTER(v)]);
	if (READ_ONCE(cd->flags) & CG_F_LOG_DROPS)
		cg_hook_log(skb, state, &f, v);
	return NF_DROP;
}
