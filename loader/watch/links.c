// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * links.c - the devices of each namespace watched that watch guards: the
 * guest-facing kinds (lib/link.h) that --match matches, kept current from
 * a link dump (rtnl.c) and the link events that follow. What a pair
 * (veth, netkit) says too early, or not at all, is asked for again.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "link.h"
#include "nl.h"
#include "watch_int.h"

static struct cg_wdev *cg_wdev_find(struct cg_wns *ns, int ifindex)
{
	int i;

	for (i = 0; i < ns->ndevs; i++)
		if (ns->devs[i].ifindex == ifindex)
			return &ns->devs[i];
	return NULL;
}

/* d forgotten; the last of ns's takes its room and its name with it */
void cg_wdev_del(struct cg_wns *ns, struct cg_wdev *d)
{
	*d = ns->devs[--ns->ndevs];
	if (!ns->ndevs) {
		free(ns->devs);
		ns->devs = NULL;
		free(ns->name);
		ns->name = NULL;
	}
}

/* Room for one more device of ns: doubled when full (no count of it kept:
 * ndevs a power of two, or none yet), with its name kept from the first */
static struct cg_wdev *cg_wdev_new(struct cg_wns *ns)
{
	struct cg_wdev *a;
	int n = ns->ndevs;

	if (!n || !(n & (n - 1))) {
		a = realloc(ns->devs, (n ? n * 2 : 2) * sizeof(*a));
		if (!a)
			return NULL;
		ns->devs = a;
	}
	if (!n)
		cg_wns_keep_name(ns);
	return &ns->devs[ns->ndevs++];
}

/* IFLA_LINKINFO / IFLA_INFO_KIND: one of the kinds guests' frames enter
 * the host through (lib/link.h); a veth or netkit device only when its
 * peer is in another namespace (IFLA_LINK_NETNSID), and not with
 * --no-containers */
static const struct cg_kind *cg_is_guest_facing(const struct cg_watch *w,
						const struct nlattr *const *tb)
{
	const struct nlattr *info[IFLA_INFO_MAX + 1];
	const struct cg_kind *k;
	int nsid = -1;

	if (!tb[IFLA_LINKINFO])
		return NULL;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	if (tb[IFLA_LINK_NETNSID] && cg_nla_len(tb[IFLA_LINK_NETNSID]) >= (int)sizeof(__s32))
		nsid = *(const __s32 *)cg_nla_data(tb[IFLA_LINK_NETNSID]);
	k = cg_kind_facing(cg_nla_str(info[IFLA_INFO_KIND]), nsid);
	return k && k->pair && w->no_containers ? NULL : k;
}

/* The sequence number of the watcher's questions (rtnl.c): what answers
 * them is as it is now, never a pair's early event */
#define CG_WASK_SEQ	0x63677761

/* Ask again for ns's links (its device ifindex is the one meant): a dump
 * of that namespace before the next round's work (rtnl.c) */
static void cg_wask(struct cg_wns *ns, int ifindex)
{
	if (ifindex > 0)
		ns->dump = true;
}

static bool cg_wis_pair(const struct nlattr *const *tb)
{
	const struct nlattr *info[IFLA_INFO_MAX + 1];
	const struct cg_kind *k;

	if (!tb[IFLA_LINKINFO])
		return false;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	k = cg_kind_find(cg_nla_str(info[IFLA_INFO_KIND]));
	return k && k->pair;
}

/*
 * What the kernel says of a pair too early, or not at all:
 * - one end moved out of ns (RTM_DELLINK with IFLA_NEW_NETNSID): its peer,
 *   left here, now joins two namespaces, and nothing is said of the peer;
 * - a pair made with its peer in another namespace (`ip link add ... peer
 *   netns X`): the peer's RTM_NEWLINK comes before the two are joined, with
 *   no peer (IFLA_LINK 0), and nothing more while it stays as it is.
 * Ask for the device then; an answer to such a question is not asked again.
 */
static void cg_wpair_event(struct cg_wns *ns, const struct nlmsghdr *h,
			   const struct nlattr *const *tb)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int link = tb[IFLA_LINK] ? (int)cg_nla_uint(tb[IFLA_LINK]) : 0;

	if (h->nlmsg_seq == CG_WASK_SEQ || !cg_wis_pair(tb))
		return;
	if (h->nlmsg_type == RTM_DELLINK && tb[IFLA_NEW_NETNSID])
		cg_wask(ns, link);
	else if (h->nlmsg_type == RTM_NEWLINK && link <= 0 && !tb[IFLA_LINK_NETNSID])
		cg_wask(ns, ifi->ifi_index);
}

void cg_wlink(struct cg_watch *w, struct cg_wns *ns, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct nlattr *tb[IFLA_MAX + 1];
	const char *name;
	struct cg_wdev *d;
	bool facing, match;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	cg_nl_parse(h, sizeof(*ifi), tb, IFLA_MAX);
	name = cg_nla_str(tb[IFLA_IFNAME]);
	facing = cg_is_guest_facing(w, tb);
	d = cg_wdev_find(ns, ifi->ifi_index);
	if (h->nlmsg_type == RTM_DELLINK) {
		if (d)
			cg_wdev_del(ns, d);
		if (!w->no_containers)
			cg_wpair_event(ns, h, tb);
		return;
	}
	if (!name || strlen(name) >= IF_NAMESIZE)
		return;
	if (!facing && !w->no_containers)
		cg_wpair_event(ns, h, tb);
	match = facing && cg_wmatch(w, name);
	if (!d) {
		if (!match)
			return;
		d = cg_wdev_new(ns);
		if (!d)
			return;
		memset(d, 0, sizeof(*d));
		d->ifindex = ifi->ifi_index;
		snprintf(d->name, sizeof(d->name), "%s", name);
		d->state = CG_W_TODO;
		return;
	}
	if (!strcmp(d->name, name))
		return;
	/* renamed: a guard stays with its device; a failed one is tried anew */
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (d->state == CG_W_DONE)
		return;
	if (match)
		d->state = CG_W_TODO;
	else
		cg_wdev_del(ns, d);
}
