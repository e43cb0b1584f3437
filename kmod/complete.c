// SPDX-License-Identifier: GPL-2.0-only
/*
 * complete.c - the completion guard: refuse to complete a CHECKSUM_PARTIAL
 * checksum whose start lies inside the packet's IP headers, at
 * skb_checksum_help() itself, the software completion that IP
 * fragmentation, the transmit path of a device without checksum offload,
 * nfqueue, xt_CHECKSUM, xfrm and the bridge share.
 *
 * The ingress hooks judge a frame where it enters through a guarded
 * device; this judges it where the header would be written, whatever
 * devices, tunnels or redirects it crossed on the way: a frame a tunnel
 * decapsulated, one a macvtap transmitted, one a tc redirect took before
 * any netfilter hook. The rule is the same shared cg_verdict(), on the
 * headers the skb has at completion.
 *
 * How: an ftrace ops with IPMODIFY on skb_checksum_help(), as livepatch
 * redirects a function. For a packet the rule condemns, the handler points
 * the return of the ftrace trampoline at cg_complete_refuse(), a function
 * of the same signature that returns -EINVAL: skb_checksum_help() never
 * runs for it, and its caller drops the skb on the error as it does for
 * any failed completion (xt_CHECKSUM ignores the error: the header stays as
 * it was). Every other packet runs skb_checksum_help() untouched. No
 * instruction is patched but the ftrace site, no return stub is needed,
 * and unregistering the ops waits for handlers in flight.
 *
 * It costs nothing on packets whose checksum is completed in hardware or
 * never needs completing: only skb_checksum_help() calls reach it.
 */
#include "complete.h"
#include "compat.h"
#include "netlink.h"
#include "netns.h"
#include "hook.h"

#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include <csum_guard.h>

#ifdef CG_HAVE_COMPLETION

static DEFINE_MUTEX(cg_complete_lock);
static bool cg_complete_on;

/* Called instead of skb_checksum_help() for a condemned packet. */
static noinline int cg_complete_refuse(struct sk_buff *skb)
{
	return -EINVAL;
}

/*
 * The namespace a refusal is counted and budgeted in (netns.c): its
 * device's, else its socket's (a rule of the namespace's own firewall can
 * complete a checksum before the packet has a device), else the host's.
 */
static const struct net *cg_complete_net(const struct sk_buff *skb)
{
	if (skb->dev)
		return dev_net(skb->dev);
	if (skb->sk)
		return sock_net(skb->sk);
	return NULL;
}

static void notrace cg_complete_ftrace(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *op, cg_ftrace_regs *fregs)
{
	struct pt_regs *regs = cg_ftrace_get_regs(fregs);
	const struct sk_buff *skb;
	const struct net *net;
	struct cg_fields f;
	enum cg_verdict v;
	int mac;

	if (!regs)
		return;
	skb = (const struct sk_buff *)regs_get_kernel_argument(regs, 0);
	if (likely(skb->ip_summed != CHECKSUM_PARTIAL))
		return;
	/* the same reading of the same headers as at a device */
	v = cg_skb_verdict(skb, &f);
	if (likely(v == CG_PASS))
		return;
	net = cg_complete_net(skb);
	cg_netns_refused(net, v);
	cg_nl_drop_event(skb, net, skb->dev, &f, v, CG_EV_COMPLETION);
	mac = cg_frame_start(skb, &f);
	/* its kernel log lines: a budget of their own (see hook.c) */
	if (cg_netns_complete_log_ok(net))
		pr_info("completion refused for a %s packet on %s: %s: csum_start %u, IP header at %u%s\n",
			f.protocol == CG_ETH_P_IPV6 ? "IPv6" :
			f.protocol == CG_ETH_P_IP ? "IPv4" : "VLAN",
			skb->dev ? skb->dev->name : "?",
			v == CG_DROP ? "checksum start inside the IP header" :
				       "IP header unreadable",
			f.csum_start - max(mac, 0), f.network_header + f.l3_off - max(mac, 0),
			mac < 0 ? " (from skb->head)" : "");
	instruction_pointer_set(regs, (unsigned long)cg_complete_refuse);
}

static struct ftrace_ops cg_complete_ops = {
	.func = cg_complete_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

int cg_complete_set(bool on)
{
	unsigned long ip = (unsigned long)skb_checksum_help;
	int ret = 0;

	mutex_lock(&cg_complete_lock);
	if (on == cg_complete_on)
		goto out;
	if (on) {
		ret = ftrace_set_filter_ip(&cg_complete_ops, ip, 0, 0);
		if (ret)
			goto out;
		ret = register_ftrace_function(&cg_complete_ops);
		if (ret) {
			if (ret == -EBUSY)
				pr_warn("completion guard not on: another ftrace user with IPMODIFY (a live patch?) holds skb_checksum_help()\n");
			ftrace_set_filter_ip(&cg_complete_ops, ip, 1, 0);
			goto out;
		}
	} else {
		/* waits for handlers in flight */
		ret = unregister_ftrace_function(&cg_complete_ops);
		if (ret) {
			/*
			 * Still registered, maybe: an empty filter would have
			 * it trace every function. It stays as it is, on.
			 */
			pr_warn("completion guard stays on: unregister_ftrace_function: %d\n", ret);
			goto out;
		}
		ftrace_set_filter_ip(&cg_complete_ops, ip, 1, 0);
	}
	cg_complete_on = on;
	pr_info("completion guard %s\n", on ? "on" : "off");
out:
	mutex_unlock(&cg_complete_lock);
	return ret;
}

void cg_complete_info(const struct net *net, struct cg_complete_info *info)
{
	memset(info, 0, sizeof(*info));
	info->available = true;
	info->on = READ_ONCE(cg_complete_on);
	cg_netns_refusals(net, info->cnt);
	cg_netns_refusals_others(info->others);
}

/*
 * On unload. Switching off removes skb_checksum_help() from the filter,
 * its last entry: ftrace then puts the shared empty hash in the filter's
 * place and frees the filter's own (ftrace_free_filter() would do no more,
 * and 5.10 does not export it to modules). Should the ops stay
 * registered, the module must not go, its handler would run from freed
 * text: that cannot be refused here, so it is said as loudly as the
 * kernel allows.
 */
void cg_complete_uninit(void)
{
	if (cg_complete_set(false))
		WARN_ONCE(1, "csum_guard: the completion guard's ftrace ops is still registered\n");
}

#else /* !CG_HAVE_COMPLETION */

int cg_complete_set(bool on)
{
	return on ? -EOPNOTSUPP : 0;
}

void cg_complete_info(const struct net *net, struct cg_complete_info *info)
{
	memset(info, 0, sizeof(*info));
}

void cg_complete_uninit(void)
{
}

#endif
