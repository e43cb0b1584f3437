// SPDX-License-Identifier: GPL-2.0-only
/*
 * netlink.c - the generic netlink family CG_GENL_NAME.
 *
 * Every command acts on the network namespace of the requesting socket,
 * so the loader enters the target namespace before it opens its socket.
 * ATTACH and DETACH need CAP_NET_ADMIN over that namespace; GET and INFO
 * only read. Device replies (ATTACH, GET, each message of a GET dump) are
 * CG_CMD_GET messages with flat attributes: IFINDEX, IFNAME, FLAGS,
 * DROPPED and DROPPED_UNREADABLE. INFO answers with the ABI version, the
 * module version and the flags ATTACH can do on this kernel. Drops are
 * multicast to the group CG_GENL_MCGRP_DROPS (cg_nl_drop_event()).
 */
#include "complete.h"
#include "device.h"
#include "hook.h"
#include "netlink.h"
#include "netns.h"

#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <csum_guard_genl.h>

static struct genl_family cg_genl_family;

/* Requests carry only these; the others are reply-only and rejected. */
static const struct nla_policy cg_nl_policy[CG_A_MAX + 1] = {
	[CG_A_IFINDEX]	= { .type = NLA_U32 },
	[CG_A_FLAGS]	= { .type = NLA_U32 },
	[CG_A_COMPLETION] = { .type = NLA_U32 },
};

static int cg_nl_put_device(struct sk_buff *skb,
			    const struct cg_device_info *info)
{
	if (nla_put_u32(skb, CG_A_IFINDEX, info->ifindex) ||
	    nla_put_string(skb, CG_A_IFNAME, info->ifname) ||
	    nla_put_u32(skb, CG_A_FLAGS, info->flags) ||
	    nla_put_u64_64bit(skb, CG_A_DROPPED,
			      info->cnt[CG_CNT_DROPPED], CG_A_PAD) ||
	    nla_put_u64_64bit(skb, CG_A_DROPPED_UNREADABLE,
			      info->cnt[CG_CNT_DROPPED_UNREADABLE], CG_A_PAD) ||
	    nla_put_u32(skb, CG_A_FIRST, info->first) ||
	    nla_put_u64_64bit(skb, CG_A_REORDERED, info->reordered, CG_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static int cg_nl_reply_device(struct genl_info *info,
			      const struct cg_device_info *dinfo)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &cg_genl_family, 0, CG_CMD_GET);
	if (!hdr || cg_nl_put_device(skb, dinfo)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

static int cg_nl_ifindex(struct genl_info *info, int *ifindex)
{
	if (!info->attrs[CG_A_IFINDEX]) {
		GENL_SET_ERR_MSG(info, "Missing interface index");
		return -EINVAL;
	}
	*ifindex = nla_get_u32(info->attrs[CG_A_IFINDEX]);
	if (*ifindex <= 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CG_A_IFINDEX],
				    "Invalid interface index");
		return -EINVAL;
	}
	return 0;
}

/* Absent FLAGS means none: attaching converges to exactly what was asked. */
static int cg_nl_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct cg_device_info dinfo;
	int ifindex, ret;
	u32 flags = 0;

	ret = cg_nl_ifindex(info, &ifindex);
	if (ret)
		return ret;
	if (info->attrs[CG_A_FLAGS])
		flags = nla_get_u32(info->attrs[CG_A_FLAGS]);
	if (flags & ~CG_F_ALL) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CG_A_FLAGS],
				    "Unknown flags");
		return -EINVAL;
	}
	if (flags & ~CG_F_SUPPORTED) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CG_A_FLAGS],
				    "This kernel has no netfilter egress hook (CONFIG_NETFILTER_EGRESS, 5.16+)");
		return -EOPNOTSUPP;
	}
	ret = cg_device_attach(genl_info_net(info), ifindex, flags,
			       !netlink_capable(skb, CAP_NET_ADMIN), &dinfo,
			       info->extack);
	if (ret)
		return ret;
	return cg_nl_reply_device(info, &dinfo);
}

static int cg_nl_detach(struct sk_buff *skb, struct genl_info *info)
{
	int ifindex, ret;

	ret = cg_nl_ifindex(info, &ifindex);
	if (ret)
		return ret;
	ret = cg_device_detach(genl_info_net(info), ifindex);
	if (ret == -ENOENT)
		GENL_SET_ERR_MSG(info, "Device is not guarded");
	return ret;
}

static int cg_nl_get(struct sk_buff *skb, struct genl_info *info)
{
	struct cg_device_info dinfo;
	int ifindex, ret;

	ret = cg_nl_ifindex(info, &ifindex);
	if (ret)
		return ret;
	ret = cg_device_get(genl_info_net(info), ifindex, &dinfo);
	if (ret == -ENOENT)
		GENL_SET_ERR_MSG(info, "Device is not guarded");
	if (ret)
		return ret;
	return cg_nl_reply_device(info, &dinfo);
}

struct cg_nl_dump_ctx {
	struct sk_buff *skb;		/* the message being filled */
	struct netlink_callback *cb;
};

static int cg_nl_dump_one(const struct cg_device_info *dinfo, void *arg)
{
	struct cg_nl_dump_ctx *ctx = arg;
	struct sk_buff *skb = ctx->skb;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(ctx->cb->skb).portid,
			  ctx->cb->nlh->nlmsg_seq, &cg_genl_family,
			  NLM_F_MULTI, CG_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	/* NLM_F_DUMP_INTR when the list changed since the round before */
	genl_dump_check_consistent(ctx->cb, hdr);
	if (cg_nl_put_device(skb, dinfo)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * cb->args[0]: how many devices of this namespace earlier rounds sent.
 * A full message ends this round; the core calls again for the rest. A
 * device listed or unlisted between rounds moves positions: cb->seq, the
 * list's generation, marks the messages after it NLM_F_DUMP_INTR, and the
 * reader dumps again.
 */
static int cg_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cg_nl_dump_ctx ctx = { .skb = skb, .cb = cb };
	int ret;

	ret = cg_device_dump(sock_net(skb->sk), (unsigned long *)&cb->args[0], &cb->seq,
			     cg_nl_dump_one, &ctx);
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

static int cg_nl_info(struct sk_buff *skb, struct genl_info *info)
{
	struct cg_complete_info ci;
	struct sk_buff *msg;
	void *hdr;

	cg_complete_info(genl_info_net(info), &ci);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &cg_genl_family, 0, CG_CMD_INFO);
	if (!hdr ||
	    nla_put_u32(msg, CG_A_ABI_VERSION, CG_ABI_VERSION) ||
	    nla_put_string(msg, CG_A_VERSION, CG_VERSION) ||
	    nla_put_u32(msg, CG_A_FLAGS, CG_F_SUPPORTED) ||
	    (ci.available && nla_put_u32(msg, CG_A_COMPLETION, ci.on))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The completion guard, host-wide: switched with COMPLETION, by a caller
 * with CAP_NET_ADMIN in the initial user namespace; reported to anyone,
 * with the refusals of the caller's side (netns.c).
 */
static int cg_nl_completion(struct sk_buff *skb, struct genl_info *info)
{
	struct cg_complete_info ci;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (info->attrs[CG_A_COMPLETION]) {
		if (!netlink_capable(skb, CAP_NET_ADMIN))
			return -EPERM;
		ret = cg_complete_set(!!nla_get_u32(info->attrs[CG_A_COMPLETION]));
		if (ret)
			return ret;
	}
	cg_complete_info(genl_info_net(info), &ci);
	if (!ci.available)
		return -EOPNOTSUPP;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &cg_genl_family, 0, CG_CMD_COMPLETION);
	if (!hdr ||
	    nla_put_u32(msg, CG_A_COMPLETION, ci.on) ||
	    nla_put_u64_64bit(msg, CG_A_COMPLETION_DROPPED, ci.cnt[CG_CNT_DROPPED], CG_A_PAD) ||
	    nla_put_u64_64bit(msg, CG_A_COMPLETION_UNREADABLE,
			      ci.cnt[CG_CNT_DROPPED_UNREADABLE], CG_A_PAD) ||
	    nla_put_u64_64bit(msg, CG_A_COMPLETION_OTHERS,
			      ci.others[CG_CNT_DROPPED] + ci.others[CG_CNT_DROPPED_UNREADABLE],
			      CG_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_multicast_group cg_nl_mcgrps[] = {
	[CG_NL_MCGRP_DROPS] = { .name = CG_GENL_MCGRP_DROPS, CG_MCGRP_PERM },
};

/*
 * Drop events, to the listeners in the initial namespace: within the
 * budget of the namespace they happened in (netns.c; net_ratelimit()'s is
 * every networking message's), and nothing built while no one listens.
 * net NULL: not known, the host's budget. Any context: the hooks run in
 * softirq.
 */
void cg_nl_drop_event(const struct sk_buff *skb, const struct net *net,
		      const struct net_device *dev,
		      const struct cg_fields *f, enum cg_verdict v, u8 flags)
{
	struct cg_drop_event e = {};
	struct sk_buff *msg;
	void *hdr;
	int mac;

	if (!genl_has_listeners(&cg_genl_family, &init_net, CG_NL_MCGRP_DROPS) ||
	    !cg_netns_event_ok(net))
		return;
	mac = cg_frame_start(skb, f);
	if (mac < 0) {
		mac = 0;
		flags |= CG_EV_FROM_HEAD;
	}
	e.netns_ino = dev ? dev_net(dev)->ns.inum : 0;
	e.ifindex = dev ? dev->ifindex : 0;
	if (dev)
		strscpy(e.ifname, dev->name, sizeof(e.ifname));
	e.len = skb->len;
	e.csum_start = f->csum_start - mac;
	e.l3 = f->network_header + f->l3_off - mac;
	e.protocol = f->protocol;
	e.verdict = v;
	e.vhl = f->l3_readable ? f->ip_vhl : 0;
	e.flags = flags | CG_EV_KMOD;

	msg = genlmsg_new(nla_total_size(sizeof(e)), GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &cg_genl_family, 0, CG_CMD_DROP_EVENT);
	if (!hdr || nla_put(msg, CG_A_EVENT, sizeof(e), &e)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&cg_genl_family, &init_net, msg, 0, CG_NL_MCGRP_DROPS,
				GFP_ATOMIC);
}

static const struct genl_ops cg_nl_ops[] = {
	{
		.cmd = CG_CMD_ATTACH,
		.doit = cg_nl_attach,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CG_CMD_DETACH,
		.doit = cg_nl_detach,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CG_CMD_GET,
		.doit = cg_nl_get,
		.dumpit = cg_nl_dump,
	},
	{
		.cmd = CG_CMD_INFO,
		.doit = cg_nl_info,
	},
	{
		.cmd = CG_CMD_COMPLETION,
		.doit = cg_nl_completion,
	},
};

/*
 * The family-wide policy is what every kernel from 4.19 on understands;
 * kernels with strict validation (5.2 and later) also reject unknown
 * attributes and non-zero reserved header fields.
 */
static struct genl_family cg_genl_family __ro_after_init = {
	.name = CG_GENL_NAME,
	.version = CG_GENL_VERSION,
	.maxattr = CG_A_MAX,
	.policy = cg_nl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = cg_nl_ops,
	.n_ops = ARRAY_SIZE(cg_nl_ops),
	.mcgrps = cg_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(cg_nl_mcgrps),
};

int __init cg_netlink_init(void)
{
	return genl_register_family(&cg_genl_family);
}

void cg_netlink_uninit(void)
{
	genl_unregister_family(&cg_genl_family);
}
