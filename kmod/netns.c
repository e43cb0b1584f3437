// SPDX-License-Identifier: GPL-2.0-only
/*
 * netns.c - budgets and counts by network namespace.
 *
 * ATTACH and DETACH need CAP_NET_ADMIN over the namespace only
 * (GENL_UNS_ADMIN_PERM): any user who makes a user namespace and a network
 * namespace of their own may guard a tap there with LOG_DROPS and write bad
 * frames to it, or send frames to skb_checksum_help() through a device
 * without checksum offload. With one budget for the whole host, such a user
 * would spend the drop events and kernel log lines everyone else's drops
 * need, and move the host's count of completion refusals at will.
 *
 * So there are two sides. The host's: every namespace owned by the initial
 * user namespace (the host's own, and those root made: ip netns, rootful
 * containers), and drops whose namespace is not known. It has the budgets
 * the module always had: CG_EVENTS_BURST drop events a second, 10 log lines
 * of drops and 10 of refusals each 5 seconds, and the completion refusals
 * csum-guard completion reports. The unprivileged side: each namespace owned
 * by another user namespace has budgets of its own (CG_NS_*), and all of
 * them together one more, as large as the host's, which bounds what every
 * user together adds to the log and the events; its refusals are counted in
 * that namespace and in a total of them all, never in the host's. Nothing
 * on the unprivileged side takes from the host's side.
 */
#include "netns.h"

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <net/netns/generic.h>

/* the host's side, and the unprivileged side's in all */
#define CG_EVENTS_BURST		200	/* drop events a second */
#define CG_LOG_BURST		10	/* log lines each 5 s, drops; refusals */
/* each unprivileged namespace */
#define CG_NS_EVENTS_BURST	50
#define CG_NS_LOG_BURST		5

struct cg_budget {
	struct ratelimit_state events;	/* drop events (netlink.c) */
	struct ratelimit_state log;	/* log lines of drops (hook.c) */
	struct ratelimit_state complete_log;	/* of refusals (complete.c) */
};

#define CG_BUDGET_INIT(name, ev, lines) {					\
	.events = RATELIMIT_STATE_INIT(name.events, HZ, ev),			\
	.log = RATELIMIT_STATE_INIT(name.log, 5 * HZ, lines),			\
	.complete_log = RATELIMIT_STATE_INIT(name.complete_log, 5 * HZ, lines),	\
}

static struct cg_budget cg_host = CG_BUDGET_INIT(cg_host, CG_EVENTS_BURST, CG_LOG_BURST);
static struct cg_budget cg_users = CG_BUDGET_INIT(cg_users, CG_EVENTS_BURST, CG_LOG_BURST);

/* completion refusals: the host's side; every unprivileged namespace's */
struct cg_refusals {
	u64 cnt[CG_CNT_MAX];
};
static DEFINE_PER_CPU(struct cg_refusals, cg_host_refused);
static DEFINE_PER_CPU(struct cg_refusals, cg_users_refused);

/* what each namespace has; used only where it is unprivileged */
struct cg_netns {
	struct cg_budget budget;
	atomic64_t refused[CG_CNT_MAX];
};

static unsigned int cg_net_id __read_mostly;

static struct cg_netns *cg_netns(const struct net *net)
{
	return net_generic(net, cg_net_id);
}

static void cg_netns_rs_init(struct ratelimit_state *rs, int interval, int burst)
{
	ratelimit_state_init(rs, interval, burst);
	/* no "callbacks suppressed" line for each namespace's budget */
	ratelimit_set_flags(rs, RATELIMIT_MSG_ON_RELEASE);
}

static int __net_init cg_netns_net_init(struct net *net)
{
	struct cg_netns *ns = cg_netns(net);

	cg_netns_rs_init(&ns->budget.events, HZ, CG_NS_EVENTS_BURST);
	cg_netns_rs_init(&ns->budget.log, 5 * HZ, CG_NS_LOG_BURST);
	cg_netns_rs_init(&ns->budget.complete_log, 5 * HZ, CG_NS_LOG_BURST);
	return 0;
}

static struct pernet_operations cg_netns_ops = {
	.init = cg_netns_net_init,
	.id = &cg_net_id,
	.size = sizeof(struct cg_netns),
};

/* the namespace's own budget first: a namespace past it spends nothing of
 * the one every unprivileged namespace shares */
#define CG_BUDGET_OK(net, field)						\
	(cg_net_unprivileged(net) ?						\
	 __ratelimit(&cg_netns(net)->budget.field) && __ratelimit(&cg_users.field) : \
	 __ratelimit(&cg_host.field))

bool cg_netns_event_ok(const struct net *net)
{
	return CG_BUDGET_OK(net, events);
}

bool cg_netns_log_ok(const struct net *net)
{
	return CG_BUDGET_OK(net, log);
}

bool cg_netns_complete_log_ok(const struct net *net)
{
	return CG_BUDGET_OK(net, complete_log);
}

void cg_netns_refused(const struct net *net, enum cg_verdict v)
{
	unsigned int i = CG_VERDICT_COUNTER(v);

	if (WARN_ON_ONCE(i >= CG_CNT_MAX))
		return;
	if (!cg_net_unprivileged(net)) {
		this_cpu_inc(cg_host_refused.cnt[i]);
		return;
	}
	this_cpu_inc(cg_users_refused.cnt[i]);
	atomic64_inc(&cg_netns(net)->refused[i]);
}

static void cg_refusals_sum(const struct cg_refusals __percpu *pc, u64 sum[CG_CNT_MAX])
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < CG_CNT_MAX; i++)
			sum[i] += READ_ONCE(per_cpu_ptr(pc, cpu)->cnt[i]);
}

void cg_netns_refusals(const struct net *net, u64 cnt[CG_CNT_MAX])
{
	int i;

	memset(cnt, 0, sizeof(u64) * CG_CNT_MAX);
	if (!cg_net_unprivileged(net)) {
		cg_refusals_sum(&cg_host_refused, cnt);
		return;
	}
	for (i = 0; i < CG_CNT_MAX; i++)
		cnt[i] = atomic64_read(&cg_netns(net)->refused[i]);
}

void cg_netns_refusals_others(u64 cnt[CG_CNT_MAX])
{
	memset(cnt, 0, sizeof(u64) * CG_CNT_MAX);
	cg_refusals_sum(&cg_users_refused, cnt);
}

/* Before anything that reads a namespace's part; its init runs for every
 * namespace there is, and for each made later, before its devices. */
int cg_netns_init(void)
{
	return register_pernet_subsys(&cg_netns_ops);
}

/* After the hooks and the completion guard are gone: frees each part. */
void cg_netns_uninit(void)
{
	unregister_pernet_subsys(&cg_netns_ops);
}
