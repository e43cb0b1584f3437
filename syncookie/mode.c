// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * mode.c - what a device offers the responder's XDP (a veth's peer running
 * an XDP program of its own, which native XDP_TX on a veth needs), asked
 * of rtnetlink, and why a responder answers in the mode it does, in words
 * (attach chooses with it, status says it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "nl.h"
#include "sc.h"

/* What an RTM_GETLINK answer says of a device (sc_link_ask) */
struct sc_link_info {
	char kind[16];		/* IFLA_INFO_KIND, "" none */
	int link;		/* IFLA_LINK: a veth's peer's ifindex, 0 none */
	int link_nsid;		/* IFLA_LINK_NETNSID: the peer's namespace, -1 this one */
	__u32 xdp_drv;		/* IFLA_XDP_DRV_PROG_ID: its native XDP program, 0 none */
};

static int sc_link_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[IFLA_MAX + 1], *in[IFLA_INFO_MAX + 1], *x[IFLA_XDP_MAX + 1];
	struct sc_link_info *li = arg;
	const char *k;

	if (h->nlmsg_type != RTM_NEWLINK || !cg_nl_data(h, sizeof(struct ifinfomsg)))
		return 0;
	cg_nl_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX);
	li->link = cg_nla_uint(tb[IFLA_LINK]);
	if (tb[IFLA_LINK_NETNSID])
		li->link_nsid = (__s32)cg_nla_uint(tb[IFLA_LINK_NETNSID]);
	if (tb[IFLA_LINKINFO]) {
		cg_nl_parse_nested(tb[IFLA_LINKINFO], in, IFLA_INFO_MAX);
		k = cg_nla_str(in[IFLA_INFO_KIND]);
		if (k)
			snprintf(li->kind, sizeof(li->kind), "%s", k);
	}
	if (tb[IFLA_XDP]) {
		cg_nl_parse_nested(tb[IFLA_XDP], x, IFLA_XDP_MAX);
		li->xdp_drv = cg_nla_uint(x[IFLA_XDP_DRV_PROG_ID]);
	}
	return 0;
}

/* Device ifindex of the namespace whose nsid is nsid (-1: this one): 0 or -errno */
static int sc_link_ask(int ifindex, int nsid, struct sc_link_info *li)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct cg_nl_msg msg;
	__s32 target = nsid;
	int fd, err;

	memset(li, 0, sizeof(*li));
	li->link_nsid = -1;
	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return fd;
	cg_nl_msg_init(&msg, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	err = nsid >= 0 && !cg_nl_put(&msg, IFLA_TARGET_NETNSID, &target, sizeof(target)) ?
	      -EMSGSIZE : cg_nl_talk(fd, &msg, sc_link_cb, li);
	close(fd);
	return err;
}

/*
 * Native XDP's XDP_TX on a veth reaches the peer only while the peer runs
 * NAPI, which it does with a native XDP program of its own (on 6.18
 * measured: GRO alone was not enough): a responder whose answers vanish
 * would be worse than none. For device ifindex of the namespace entered:
 * 1 a veth whose peer (wherever it lives) runs native XDP, 0 one whose
 * peer does not, -ENOTTY no veth, other -errno: the peer cannot be read.
 */
int sc_veth_peer_xdp(int ifindex)
{
	struct sc_link_info li, peer;
	int err;

	err = sc_link_ask(ifindex, -1, &li);
	if (err)
		return err;
	if (strcmp(li.kind, "veth"))
		return -ENOTTY;
	if (!li.link)
		return -ENOENT;
	err = sc_link_ask(li.link, li.link_nsid, &peer);
	return err ? err : peer.xdp_drv != 0;
}

/*
 * Why the responder answers in its mode, in words (status): what attach
 * found, and for native XDP on a veth whether the peer still runs the XDP
 * program its XDP_TX needs
 */
void sc_mode_why(const struct sc_target *t, const struct sc_meta *m, char *buf, size_t n)
{
	bool asked = m->flags & SC_META_ASKED;
	const char *tc = m->mode == SC_TCX ? "tc (a tcx link)" : "tc (a clsact filter)";

	switch (m->mode) {
	case SC_XDP:
		if (sc_veth_peer_xdp(t->ifindex) == 0)
			snprintf(buf, n, "native XDP, but the veth's peer runs no XDP program now, "
				 "so its SYN-ACKs are lost: detach and attach again");
		else
			snprintf(buf, n, "%s", asked ? "native XDP, as --mode asked" :
				 m->flags & SC_META_PEER_XDP ? "native XDP: the veth's peer runs "
				 "an XDP program, which XDP_TX on a veth needs" :
				 "native XDP: the driver has it");
		break;
	case SC_XDP_GENERIC:
		snprintf(buf, n, "%s", asked ? "generic XDP, as --mode asked" :
			 m->flags & SC_META_PEER_NOXDP ? "generic XDP: native XDP_TX on a veth "
			 "reaches the peer only while the peer runs an XDP program, and it ran none" :
			 m->flags & SC_META_REFUSED ? "generic XDP: the driver refused native XDP" :
			 "generic XDP, auto's choice");
		break;
	case SC_TCX:
	case SC_CLSACT:
		snprintf(buf, n, "%s%s", tc, asked ? ", as --mode asked" :
			 m->flags & SC_META_REFUSED ? ": XDP did not attach" : ", auto's choice");
		break;
	default:
		snprintf(buf, n, "%s", asked ? "SYNPROXY through nft, as --mode asked" :
			 "SYNPROXY through nft: the program does not load here");
	}
}

