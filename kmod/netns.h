/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netns.h - what each network namespace has of its own: the budgets of its
 * drop events and kernel log lines, its completion refusals (netns.c).
 */
#ifndef CG_NETNS_H
#define CG_NETNS_H

#include <linux/types.h>
#include <net/net_namespace.h>

#include <csum_guard.h>
#include <csum_guard_abi.h>

/*
 * A namespace owned by a user namespace other than the host's: its owner
 * may be any user (unshare -U -r -n), who gets CAP_NET_ADMIN over it and
 * so may attach the guard there and feed it frames.
 */
static inline bool cg_net_unprivileged(const struct net *net)
{
	return net && net->user_ns != &init_user_ns;
}

/* The budgets, one token each: may this drop of net send an event, log a
 * line; may this completion refusal log one. Any context. */
bool cg_netns_event_ok(const struct net *net);
bool cg_netns_log_ok(const struct net *net);
bool cg_netns_complete_log_ok(const struct net *net);

/* A completion refusal with verdict v in net (NULL: not known): counted in
 * the host's count, or in an unprivileged namespace's own. Any context. */
void cg_netns_refused(const struct net *net, enum cg_verdict v);
/* The refusals a reader in net is told of: the host's where net is the
 * host's user namespace's, else that namespace's own. */
void cg_netns_refusals(const struct net *net, u64 cnt[CG_CNT_MAX]);
/* Refusals in every unprivileged namespace together, since load. */
void cg_netns_refusals_others(u64 cnt[CG_CNT_MAX]);

int cg_netns_init(void);
void cg_netns_uninit(void);

#endif /* CG_NETNS_H */
