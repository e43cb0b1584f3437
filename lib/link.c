// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * link.c - which devices face guests, and in which direction (link.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include "macros.h"
#include "netns.h"
#include "nl.h"
#include "link.h"

static const struct cg_kind cg_kinds[] = {
	{ "tun", false, "a tap receives what its guest writes", false },
	{ "macvtap", true, "a macvtap transmits what its guest writes", false },
	{ "ipvtap", true, "an ipvtap transmits what its guest writes", false },
	{ "vxlan", false, "a tunnel receives what it decapsulates", false },
	{ "geneve", false, "a tunnel receives what it decapsulates", false },
	{ "bareudp", false, "a tunnel receives what it decapsulates", false },
	{ "gre", false, "a tunnel receives what it decapsulates", false },
	{ "gretap", false, "a tunnel receives what it decapsulates", false },
	{ "ip6gre", false, "a tunnel receives what it decapsulates", false },
	{ "ip6gretap", false, "a tunnel receives what it decapsulates", false },
	{ "erspan", false, "a tunnel receives what it decapsulates", false },
	{ "ip6erspan", false, "a tunnel receives what it decapsulates", false },
	{ "ipip", false, "a tunnel receives what it decapsulates", false },
	{ "sit", false, "a tunnel receives what it decapsulates", false },
	{ "ip6tnl", false, "a tunnel receives what it decapsulates", false },
	{ "veth", false, "a veth receives what its peer's namespace sends", true },
	{ "netkit", false, "a netkit device receives what its peer's namespace sends", true },
};

const struct cg_kind *cg_kind_find(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < ARRAY_SIZE(cg_kinds); i++)
		if (!strcmp(cg_kinds[i].kind, kind))
			return &cg_kinds[i];
	return NULL;
}

const struct cg_kind *cg_kind_facing(const char *kind, int peer_nsid)
{
	const struct cg_kind *k = cg_kind_find(kind);

	return k && (!k->pair || peer_nsid >= 0) ? k : NULL;
}

/* IFLA_LINK_NETNSID: the namespace of the device's link when it is
 * another one (a veth's peer, a tunnel's underlay); -1 without it */
static int cg_link_peer_nsid(const struct nlattr *tb[])
{
	const struct nlattr *a = tb[IFLA_LINK_NETNSID];

	if (!a || cg_nla_len(a) < (int)sizeof(__s32))
		return -1;
	return *(const __s32 *)cg_nla_data(a);
}

const char *cg_kind_list(void)
{
	static char buf[256];
	size_t i, off = 0;

	if (*buf)
		return buf;
	for (i = 0; i < ARRAY_SIZE(cg_kinds) && off < sizeof(buf); i++)
		if (!cg_kinds[i].pair)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? ", " : "",
					cg_kinds[i].kind);
	return buf;
}

struct cg_kind_ask {
	char *kind;
	size_t n;
	int peer_nsid;
};

static int cg_link_kind_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	struct cg_kind_ask *a = arg;
	const char *k;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return 0;
	cg_nl_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX);
	a->peer_nsid = cg_link_peer_nsid(tb);
	if (!tb[IFLA_LINKINFO])
		return 0;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	k = cg_nla_str(info[IFLA_INFO_KIND]);
	if (k)
		snprintf(a->kind, a->n, "%s", k);
	return 0;
}

int cg_link_kind(int ifindex, char *kind, size_t n, int *peer_nsid)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct cg_kind_ask a = { kind, n, -1 };
	struct cg_nl_msg m;
	int fd, err;

	*kind = '\0';
	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return fd;
	cg_nl_msg_init(&m, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	err = cg_nl_talk(fd, &m, cg_link_kind_cb, &a);
	close(fd);
	if (peer_nsid)
		*peer_nsid = a.peer_nsid;
	return err;
}

static int cg_nsid_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[NETNSA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWNSID || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtgenmsg)))
		return 0;
	cg_nl_parse(h, NLMSG_ALIGN(sizeof(struct rtgenmsg)), tb, NETNSA_MAX);
	if (tb[NETNSA_NSID] && cg_nla_len(tb[NETNSA_NSID]) >= (int)sizeof(__s32))
		*(int *)arg = *(const __s32 *)cg_nla_data(tb[NETNSA_NSID]);
	return 0;
}

int cg_nsid_of(int nsfd)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	__u32 v = nsfd;
	struct cg_nl_msg m;
	int fd, err, nsid = -1;

	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return fd;
	cg_nl_msg_init(&m, RTM_GETNSID, 0, &g, sizeof(g));
	cg_nl_put(&m, NETNSA_FD, &v, sizeof(v));
	err = cg_nl_talk(fd, &m, cg_nsid_cb, &nsid);
	close(fd);
	return err ? err : nsid;
}

struct cg_nsid_find {
	int nsid;
	__u64 ino, last;
};

static void cg_nsid_try(const struct cg_netns_ref *r, void *arg)
{
	struct cg_nsid_find *f = arg;
	int fd;

	/* a namespace has as many refs as processes: ask once in a row */
	if (f->ino || r->ino == f->last)
		return;
	f->last = r->ino;
	fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (cg_nsid_of(fd) == f->nsid)
		f->ino = r->ino;
	close(fd);
}

int cg_nsid_ino(int nsid, __u64 *ino)
{
	struct cg_nsid_find f = { .nsid = nsid };

	if (nsid < 0)
		return -ENOENT;
	cg_netns_scan(cg_nsid_try, &f);
	*ino = f.ino;
	return f.ino ? 0 : -ENOENT;
}

struct cg_link_walk {
	cg_link_fn fn;
	void *arg;
};

static int cg_link_each_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1], *xdp[IFLA_XDP_MAX + 1];
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct cg_link_walk *w = arg;
	struct cg_link l = { .peer_nsid = -1 };

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	l.ifindex = ifi->ifi_index;
	cg_nl_parse(h, sizeof(*ifi), tb, IFLA_MAX);
	l.name = cg_nla_str(tb[IFLA_IFNAME]);
	if (!l.name)
		return 0;
	l.peer_nsid = cg_link_peer_nsid(tb);
	if (tb[IFLA_LINKINFO]) {
		cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
		l.kind = cg_kind_facing(cg_nla_str(info[IFLA_INFO_KIND]), l.peer_nsid);
	}
	if (tb[IFLA_XDP]) {
		cg_nl_parse_nested(tb[IFLA_XDP], xdp, IFLA_XDP_MAX);
		l.xdp = cg_nla_uint(xdp[IFLA_XDP_ATTACHED]) != XDP_ATTACHED_NONE;
	}
	l.up = ifi->ifi_flags & IFF_UP;
	return w->fn(&l, w->arg);
}

int cg_link_each(cg_link_fn fn, void *arg)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct cg_link_walk w = { fn, arg };
	struct cg_nl_msg m;
	int fd, err, tries = 3;

	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return fd;
	do {
		cg_nl_msg_init(&m, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
		err = cg_nl_talk(fd, &m, cg_link_each_cb, &w);
	} while (err == -EAGAIN && --tries);
	close(fd);
	return err;
}
