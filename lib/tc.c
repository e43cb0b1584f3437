// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tc.c - what both guards ask of tc before they attach or detach: is
 * there a clsact qdisc, does it hold filters, does the kernel have tcx.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>

#include "compat.h"
#include "tc.h"

/* Is nh one of the tc objects a dump was asked for? */
typedef bool (*cg_tc_match)(const struct nlmsghdr *nh, int ifindex);

/*
 * Dump the tc objects of one kind (RTM_GETQDISC or RTM_GETTFILTER) of
 * ifindex under parent: does match() hold for one of them? true also when
 * we cannot tell.
 */
static bool cg_tc_dump_any(__u16 type, int ifindex, __u32 parent, cg_tc_match match)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req;
	char buf[8192];
	bool found = false, done = false;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return true;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 1;
	req.tc.tcm_family = AF_UNSPEC;
	req.tc.tcm_ifindex = ifindex;
	req.tc.tcm_parent = parent;
	if (send(fd, &req, sizeof(req), 0) < 0)
		found = done = true;
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n <= 0) {
			found = true;
			break;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR)
				done = true;
			else if (match(nh, ifindex))
				found = true;
		}
	}
	close(fd);
	return found;
}

static bool cg_is_filter(const struct nlmsghdr *nh, int ifindex)
{
	return nh->nlmsg_type == RTM_NEWTFILTER;
}

/* clsact and ingress both sit at TC_H_CLSACT: either way, there is one */
static bool cg_is_clsact(const struct nlmsghdr *nh, int ifindex)
{
	const struct tcmsg *tc = NLMSG_DATA(nh);

	return nh->nlmsg_type == RTM_NEWQDISC && nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*tc)) &&
	       tc->tcm_ifindex == ifindex && tc->tcm_parent == TC_H_CLSACT;
}

/*
 * Does the clsact qdisc of ifindex hold any filter, on either side? Asked
 * before destroying a clsact that attach created: once others have added
 * filters to it, it is theirs too, and it stays.
 */
bool cg_clsact_has_filters(int ifindex)
{
	return cg_tc_dump_any(RTM_GETTFILTER, ifindex,
			      TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), cg_is_filter) ||
	       cg_tc_dump_any(RTM_GETTFILTER, ifindex,
			      TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS), cg_is_filter);
}

/* Has ifindex a clsact qdisc (or an ingress one) already? */
bool cg_clsact_exists(int ifindex)
{
	return cg_tc_dump_any(RTM_GETQDISC, ifindex, 0, cg_is_clsact);
}

bool cg_have_tcx(void)
{
	__u32 cnt = 0;

	/* lo is ifindex 1 in every namespace; -EINVAL before 6.6 */
	return !bpf_prog_query(1, CG_BPF_TCX_INGRESS, 0, NULL, NULL, &cnt);
}
