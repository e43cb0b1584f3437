// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * link.c - which devices face guests, and in which direction (link.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "macros.h"
#include "nl.h"
#include "link.h"

static const struct cg_kind cg_kinds[] = {
	{ "tun", false, "a tap receives what its guest writes" },
	{ "macvtap", true, "a macvtap transmits what its guest writes" },
	{ "ipvtap", true, "an ipvtap transmits what its guest writes" },
	{ "vxlan", false, "a tunnel receives what it decapsulates" },
	{ "geneve", false, "a tunnel receives what it decapsulates" },
	{ "bareudp", false, "a tunnel receives what it decapsulates" },
	{ "gre", false, "a tunnel receives what it decapsulates" },
	{ "gretap", false, "a tunnel receives what it decapsulates" },
	{ "ip6gre", false, "a tunnel receives what it decapsulates" },
	{ "ip6gretap", false, "a tunnel receives what it decapsulates" },
	{ "erspan", false, "a tunnel receives what it decapsulates" },
	{ "ip6erspan", false, "a tunnel receives what it decapsulates" },
	{ "ipip", false, "a tunnel receives what it decapsulates" },
	{ "sit", false, "a tunnel receives what it decapsulates" },
	{ "ip6tnl", false, "a tunnel receives what it decapsulates" },
};

const struct cg_kind *cg_kind_find(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < ARRAY_SIZE(cg_kinds); i++)
		if (!strcmp(cg_kinds[i].kind, kind))
			return &cg_kinds[i];
	return NULL;
}

const char *cg_kind_list(void)
{
	static char buf[256];
	size_t i, off = 0;

	if (*buf)
		return buf;
	for (i = 0; i < ARRAY_SIZE(cg_kinds) && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
				cg_kinds[i].kind);
	return buf;
}

struct cg_kind_ask {
	char *kind;
	size_t n;
};

static int cg_link_kind_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	struct cg_kind_ask *a = arg;
	const char *k;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return 0;
	cg_nl_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX);
	if (!tb[IFLA_LINKINFO])
		return 0;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	k = cg_nla_str(info[IFLA_INFO_KIND]);
	if (k)
		snprintf(a->kind, a->n, "%s", k);
	return 0;
}

int cg_link_kind(int ifindex, char *kind, size_t n)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct cg_kind_ask a = { kind, n };
	struct cg_nl_msg m;
	int fd, err;

	*kind = '\0';
	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return fd;
	cg_nl_msg_init(&m, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	err = cg_nl_talk(fd, &m, cg_link_kind_cb, &a);
	close(fd);
	return err;
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
	struct cg_link l = {};

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	l.ifindex = ifi->ifi_index;
	cg_nl_parse(h, sizeof(*ifi), tb, IFLA_MAX);
	l.name = cg_nla_str(tb[IFLA_IFNAME]);
	if (!l.name)
		return 0;
	if (tb[IFLA_LINKINFO]) {
		cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
		l.kind = cg_kind_find(cg_nla_str(info[IFLA_INFO_KIND]));
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
