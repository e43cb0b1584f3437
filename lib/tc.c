// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tc.c - what both guards ask of tc before they attach or detach: is
 * there a clsact qdisc, does it hold filters, does the kernel have tcx;
 * and the clsact qdisc they create and destroy.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "nl.h"
#include "tc.h"

/* Is nh one of the tc objects a dump was asked for? */
typedef bool (*cg_tc_match)(const struct nlmsghdr *nh, int ifindex);

struct cg_tc_dump {
	cg_tc_match match;
	int ifindex;
	bool found;
};

static int cg_tc_dump_each(const struct nlmsghdr *nh, void *arg)
{
	struct cg_tc_dump *d = arg;

	d->found = d->found || d->match(nh, d->ifindex);
	return 0;
}

/*
 * Dump the tc objects of one kind (RTM_GETQDISC or RTM_GETTFILTER) of
 * ifindex under parent: does match() hold for one of them? true also when
 * we cannot tell.
 */
static bool cg_tc_dump_any(__u16 type, int ifindex, __u32 parent, cg_tc_match match)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent };
	struct cg_tc_dump d = { .match = match, .ifindex = ifindex };
	struct cg_nl_msg m;
	int fd, err;

	fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (fd < 0)
		return true;
	cg_nl_msg_init(&m, type, NLM_F_DUMP, &tc, sizeof(tc));
	err = cg_nl_talk(fd, &m, cg_tc_dump_each, &d);
	close(fd);
	return err || d.found;
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

/*
 * The order is the crash-safe one: "we created it" is noted before the
 * qdisc is created. A run killed between the two leaves a note for a
 * qdisc that may not exist, which cg_clsact_drop tolerates (destroying
 * nothing fails quietly; a qdisc someone made since stays once it holds a
 * filter). The other order would leave, in the same window, a qdisc we
 * made and nobody noted: never destroyed, left on the device for good.
 */
int cg_clsact_make(int ifindex, const struct cg_clsact_note *n)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	int err;

	if (cg_clsact_exists(ifindex))
		return 0;
	if (!(*n->flags & n->created)) {
		*n->flags |= n->created;
		err = n->save(n->arg);
		if (err)
			return err;
	}
	err = bpf_tc_hook_create(&hook);
	if (err == -EEXIST) {	/* someone made one meanwhile: theirs */
		*n->flags &= ~n->created;
		err = n->save(n->arg);
	}
	return err;
}

void cg_clsact_drop(int ifindex, bool created)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

	if (created && ifindex > 0 && !cg_clsact_has_filters(ifindex))
		bpf_tc_hook_destroy(&hook);
}

bool cg_have_tcx(void)
{
	__u32 cnt = 0;

	/* lo is ifindex 1 in every namespace; -EINVAL before 6.6 */
	return !bpf_prog_query(1, CG_BPF_TCX_INGRESS, 0, NULL, NULL, &cnt);
}

__u32 cg_prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

__u32 cg_clsact_prog_id(int ifindex, enum bpf_tc_attach_point side, __u32 handle, __u32 prio)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = side);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = handle, .priority = prio);

	if (bpf_tc_query(&hook, &opts))
		return 0;
	return opts.prog_id;
}
