// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-netkit - make a netkit pair, for the cases that need one where the
 * system's iproute2 (Debian 12's 6.1) does not know the kind.
 *
 *	cg-netkit [--mode l2|l3] [--peer-netns PATH] NAME PEER
 *
 * NAME (the primary) is made in the current namespace, PEER in the
 * namespace PATH names (/run/netns/X; default: the current one), both
 * with the kernel's default policies (pass) and scrubbing. Mode l3 (the
 * kernel's default) has no link-layer header; l2 has Ethernet. Exits 0,
 * 1 when the kernel refuses (its error on stderr), 2 on bad usage, 3 when
 * the kernel has no netkit (EOPNOTSUPP: built without CONFIG_NETKIT).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>

#include "nl.h"

#define PROG "cg-netkit"

/* include/uapi/linux/if_link.h of 6.7 and later; Debian 12's headers are older */
#define CG_IFLA_NETKIT_PEER_INFO	1
#define CG_IFLA_NETKIT_MODE		5
#define CG_NETKIT_L2			0
#define CG_NETKIT_L3			1

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [--mode l2|l3] [--peer-netns PATH] NAME PEER\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlattr *linkinfo, *data, *peer;
	const char *nspath = NULL, *name, *pname;
	__u32 mode = CG_NETKIT_L3;
	struct cg_nl_msg m;
	int i, fd, nsfd = -1, err;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "l2"))
				mode = CG_NETKIT_L2;
			else if (!strcmp(argv[i], "l3"))
				mode = CG_NETKIT_L3;
			else
				usage();
		} else if (!strcmp(argv[i], "--peer-netns") && i + 1 < argc) {
			nspath = argv[++i];
		} else {
			usage();
		}
	}
	if (argc - i != 2)
		usage();
	name = argv[i];
	pname = argv[i + 1];
	if (strlen(name) >= 16 || strlen(pname) >= 16) {
		fprintf(stderr, PROG ": a device name has 15 characters at most\n");
		return 2;
	}
	if (nspath) {
		nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0) {
			fprintf(stderr, PROG ": cannot open %s: %s\n", nspath, strerror(errno));
			return 2;
		}
	}

	cg_nl_msg_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	cg_nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = cg_nl_put(&m, IFLA_LINKINFO, NULL, 0);
	cg_nl_put(&m, IFLA_INFO_KIND, "netkit", sizeof("netkit"));
	data = cg_nl_put(&m, IFLA_INFO_DATA, NULL, 0);
	cg_nl_put(&m, CG_IFLA_NETKIT_MODE, &mode, sizeof(mode));
	/* the peer: an ifinfomsg, then its own attributes, as veth's */
	peer = cg_nl_put(&m, CG_IFLA_NETKIT_PEER_INFO, &ifi, sizeof(ifi));
	cg_nl_put(&m, IFLA_IFNAME, pname, strlen(pname) + 1);
	if (nsfd >= 0 && !cg_nl_put(&m, IFLA_NET_NS_FD, &nsfd, sizeof(nsfd)))
		peer = NULL;
	if (!linkinfo || !data || !peer) {
		fprintf(stderr, PROG ": the request does not fit\n");
		return 2;
	}
	cg_nl_nest_end(&m, peer);
	cg_nl_nest_end(&m, data);
	cg_nl_nest_end(&m, linkinfo);

	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open a netlink socket: %s\n", strerror(-fd));
		return 1;
	}
	err = cg_nl_talk(fd, &m, NULL, NULL);
	close(fd);
	if (err) {
		fprintf(stderr, PROG ": cannot make netkit %s/%s: %s\n", name, pname, strerror(-err));
		return err == -EOPNOTSUPP ? 3 : 1;
	}
	return 0;
}
