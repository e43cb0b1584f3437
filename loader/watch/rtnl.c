// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * rtnl.c - the watcher's two rtnetlink sockets, both in its own namespace,
 * however many namespaces it watches:
 *
 * - rtfd hears the link and tc events of every namespace that has an id
 *   (nsid) in ours: NETLINK_LISTEN_ALL_NSID hands each message with the id
 *   of the namespace it is about in a control message (none: ours). The
 *   kernel sends another namespace's events only where it has an id, so
 *   the watcher gives one (RTM_NEWNSID, as `ip netns set` does) to each
 *   namespace it watches, and to no other: a namespace it does not watch
 *   (another user namespace's, ns.c) fills no buffer of ours.
 * - qfd asks: a namespace's id, its links (a dump with
 *   IFLA_TARGET_NETNSID, answered at once, without entering it).
 *
 * So descriptors and socket buffers stay as they are with 1 or 5000
 * namespaces; what a namespace costs is its struct cg_wns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "json.h"
#include "nl.h"
#include "watch_int.h"

#ifndef NETLINK_LISTEN_ALL_NSID
#define NETLINK_LISTEN_ALL_NSID 8
#endif
#ifndef IFLA_TARGET_NETNSID
#define IFLA_TARGET_NETNSID 46
#endif

/* The sequence number of our questions: their answers never count as
 * events (ns.c: what a pair's early events make it ask again) */
#define CG_WQ_SEQ	0x63677761

int cg_wrtnl_open(struct cg_watch *w)
{
	unsigned int groups = RTMGRP_LINK | RTMGRP_TC | (1U << (RTNLGRP_NSID - 1));
	int one = 1, buf = 1 << 20;

	w->rtfd = cg_nl_socket(NETLINK_ROUTE, groups, 0);
	if (w->rtfd < 0)
		return w->rtfd;
	if (setsockopt(w->rtfd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one)))
		return -errno;
	setsockopt(w->rtfd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
	w->qfd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	return w->qfd < 0 ? w->qfd : 0;
}

void cg_wrtnl_close(struct cg_watch *w)
{
	if (w->rtfd >= 0)
		close(w->rtfd);
	if (w->qfd >= 0)
		close(w->qfd);
	w->rtfd = w->qfd = -1;
}

static int cg_wnsid_answer(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[NETNSA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWNSID)
		return 0;
	cg_nl_parse(h, sizeof(struct rtgenmsg), tb, NETNSA_MAX);
	if (tb[NETNSA_NSID] && cg_nla_len(tb[NETNSA_NSID]) >= (int)sizeof(__s32))
		*(int *)arg = *(const __s32 *)cg_nla_data(tb[NETNSA_NSID]);
	return 0;
}

/* The id in ours of the namespace of nsfd (RTM_GETNSID); -1: it has none */
static int cg_wnsid_get(struct cg_watch *w, int nsfd)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	__u32 fd = nsfd;
	struct cg_nl_msg m;
	int id = -1, err;

	cg_nl_msg_init(&m, RTM_GETNSID, 0, &g, sizeof(g));
	m.nh.nlmsg_seq = CG_WQ_SEQ;
	cg_nl_put(&m, NETNSA_FD, &fd, sizeof(fd));
	err = cg_nl_talk(w->qfd, &m, cg_wnsid_answer, &id);
	return err ? err : id;
}

/*
 * The namespace of nsfd's id in ours, with give given one of the kernel's
 * choice where it has none; -1 none (our own namespace has none, unless
 * someone gave it one: its events come with that id then); -errno.
 */
int cg_wnsid(struct cg_watch *w, int nsfd, bool give)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	__s32 any = -1;
	__u32 fd = nsfd;
	struct cg_nl_msg m;
	int id, err;

	id = cg_wnsid_get(w, nsfd);
	if (id != -1 || !give)
		return id;
	cg_nl_msg_init(&m, RTM_NEWNSID, 0, &g, sizeof(g));
	m.nh.nlmsg_seq = CG_WQ_SEQ;
	cg_nl_put(&m, NETNSA_FD, &fd, sizeof(fd));
	cg_nl_put(&m, NETNSA_NSID, &any, sizeof(any));
	err = cg_nl_talk(w->qfd, &m, NULL, NULL);
	/* another gave it one meanwhile: that one */
	if (err && err != -EEXIST)
		return err;
	id = cg_wnsid_get(w, nsfd);
	return id == -1 ? -ENOENT : id;
}

struct cg_wdump_arg {
	struct cg_watch *w;
	struct cg_wns *ns;
};

static int cg_wdump_one(const struct nlmsghdr *h, void *arg)
{
	struct cg_wdump_arg *a = arg;

	if (h->nlmsg_type == RTM_NEWLINK)
		cg_wlink(a->w, a->ns, h);
	return 0;
}

/* Every link of ns, now: a dump through its id (ours: none needed) */
void cg_wdump(struct cg_watch *w, struct cg_wns *ns)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct cg_wdump_arg a = { w, ns };
	__s32 id = ns->nsid;
	struct cg_nl_msg m;
	int err, tries = 3;

	if (!ns->own && ns->nsid < 0)
		return;		/* no way to it now: the next scan gives one */
	do {
		cg_nl_msg_init(&m, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
		m.nh.nlmsg_seq = CG_WQ_SEQ;
		if (!ns->own)
			cg_nl_put(&m, IFLA_TARGET_NETNSID, &id, sizeof(id));
		err = cg_nl_talk(w->qfd, &m, cg_wdump_one, &a);
	} while (err == -EAGAIN && --tries);
	ns->dump = err != 0;
	if (!err)
		ns->listed = true;
}

/* The dumps asked for (a lost event, a pair's early event, a new id) */
void cg_wdump_due(struct cg_watch *w)
{
	int i;

	for (i = 0; i < w->nns; i++)
		if (w->ns[i].dump)
			cg_wdump(w, &w->ns[i]);
}

static struct cg_wns *cg_wns_by_nsid(struct cg_watch *w, int nsid)
{
	int i;

	for (i = 0; i < w->nns; i++)
		if (w->ns[i].nsid == nsid && (nsid >= 0 || w->ns[i].own))
			return &w->ns[i];
	return NULL;
}

/* The id of a namespace gone is free again: no event is its any more,
 * and the scan that follows forgets it */
static void cg_wnsid_del(struct cg_watch *w, const struct nlmsghdr *h)
{
	const struct nlattr *tb[NETNSA_MAX + 1];
	struct cg_wns *ns;
	int id;

	cg_nl_parse(h, sizeof(struct rtgenmsg), tb, NETNSA_MAX);
	if (!tb[NETNSA_NSID] || cg_nla_len(tb[NETNSA_NSID]) < (int)sizeof(__s32))
		return;
	id = *(const __s32 *)cg_nla_data(tb[NETNSA_NSID]);
	ns = id >= 0 ? cg_wns_by_nsid(w, id) : NULL;
	if (ns) {
		ns->nsid = -2;
		w->rescan = true;
	}
}

/* Every event waiting on rtfd, each to the namespace its id names */
void cg_wrtnl_read(struct cg_watch *w)
{
	static char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	char cbuf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8)));
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct sockaddr_nl from;
	struct msghdr msg = { .msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	struct nlmsghdr *h;
	struct cg_wns *ns;
	int i, j, nsid;
	ssize_t n;

	for (;;) {
		msg.msg_namelen = sizeof(from);
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		n = recvmsg(w->rtfd, &msg, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			/* events were lost: every namespace dumped again, and
			 * every guard looked at */
			for (i = 0; i < w->nns; i++) {
				w->ns[i].dump = true;
				for (j = 0; j < w->ns[i].ndevs; j++)
					w->ns[i].devs[j].check = w->ns[i].devs[j].state == CG_W_DONE;
			}
			continue;
		}
		if (n < 0) {
			if (errno != EAGAIN)
				printf("cannot read link events: %s\n", strerror(errno));
			return;
		}
		/* only the kernel speaks here */
		if (msg.msg_namelen < sizeof(from) || from.nl_pid != 0)
			continue;
		nsid = -1;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_NETLINK && c->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&nsid, CMSG_DATA(c), sizeof(int));
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == RTM_DELNSID) {
				if (nsid == -1)		/* an id of ours freed */
					cg_wnsid_del(w, h);
				continue;
			}
			ns = cg_wns_by_nsid(w, nsid);
			if (!ns)
				continue;	/* a namespace not watched (yet) */
			if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK)
				cg_wlink(w, ns, h);
			else if (h->nlmsg_type == RTM_DELQDISC || h->nlmsg_type == RTM_DELTFILTER ||
				 h->nlmsg_type == RTM_NEWTFILTER)
				cg_wtc_event(ns, h);
		}
	}
}
