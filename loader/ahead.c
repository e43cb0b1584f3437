// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ahead.c - what runs before a guard on the ingress of its device, and so
 * sees guest frames the guard has not judged yet: anything there that
 * redirects or duplicates a frame (XDP_REDIRECT, a tc redirect, an nftables
 * fwd or dup) sends it past the guard. The receive path runs, in order:
 *
 *   XDP (native or generic)
 *   tcx programs, in their order       <- the bpf guard in tcx mode, first
 *   clsact filters, by priority        <- the bpf guard in clsact mode, prio 1
 *   netfilter netdev ingress hooks     <- the module's hook, INT_MIN
 *
 * The module reports whether its hook is the first of the netfilter hooks
 * (an nftables chain at INT_MIN added after it runs first until the module
 * moves back in front, within a second).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>

#include "ahead.h"
#include "bpf/api.h"
#include "compat.h"
#include "macros.h"
#include "nl.h"

/* One more thing ahead (beyond CG_AHEAD_MAX: counted, not named). */
__attribute__((format(printf, 2, 3)))
static void cg_ahead_add(struct cg_ahead *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n < CG_AHEAD_MAX) {
		va_start(ap, fmt);
		vsnprintf(a->item[a->n], sizeof(a->item[a->n]), fmt, ap);
		va_end(ap);
	}
	a->n++;
}

/* " name" of program id, or "" */
static void cg_prog_name(__u32 id, char *buf, size_t n)
{
	struct bpf_prog_info pi = {};
	__u32 len = sizeof(pi);
	int fd = bpf_prog_get_fd_by_id(id);

	buf[0] = '\0';
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &pi, &len) && pi.name[0])
		snprintf(buf, n, " %s", pi.name);
	close(fd);
}

static int cg_ahead_xdp_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[IFLA_MAX + 1], *xdp[IFLA_XDP_MAX + 1];
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	static const char *const modes[] = {
		[XDP_ATTACHED_DRV] = "native", [XDP_ATTACHED_SKB] = "generic",
		[XDP_ATTACHED_HW] = "offloaded", [XDP_ATTACHED_MULTI] = "several modes",
	};
	struct cg_ahead *a = arg;
	char name[24];
	__u32 id;
	__u8 mode;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	cg_nl_parse(h, sizeof(*ifi), tb, IFLA_MAX);
	if (!tb[IFLA_XDP])
		return 0;
	cg_nl_parse_nested(tb[IFLA_XDP], xdp, IFLA_XDP_MAX);
	mode = cg_nla_uint(xdp[IFLA_XDP_ATTACHED]);
	if (mode == XDP_ATTACHED_NONE)
		return 0;
	id = cg_nla_uint(xdp[IFLA_XDP_PROG_ID]);
	if (!id)
		id = cg_nla_uint(xdp[mode == XDP_ATTACHED_SKB ? IFLA_XDP_SKB_PROG_ID :
				     mode == XDP_ATTACHED_HW ? IFLA_XDP_HW_PROG_ID :
				     IFLA_XDP_DRV_PROG_ID]);
	cg_prog_name(id, name, sizeof(name));
	cg_ahead_add(a, "xdp program %u%s (%s)", id, name,
		     mode < ARRAY_SIZE(modes) && modes[mode] ? modes[mode] : "attached");
	return 0;
}

static void cg_ahead_xdp(int ifindex, struct cg_ahead *a)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct cg_nl_msg m;
	int fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);

	if (fd < 0)
		return;
	cg_nl_msg_init(&m, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	cg_nl_talk(fd, &m, cg_ahead_xdp_cb, a);
	close(fd);
}

/* tcx programs on the ingress, in the order they run, up to ours (guard:
 * the bpf guard's program in tcx mode; 0: all of them run first) */
static void cg_ahead_tcx(int ifindex, __u32 guard, struct cg_ahead *a)
{
	__u32 ids[32], cnt = ARRAY_SIZE(ids), i;
	char name[24];

	if (bpf_prog_query(ifindex, CG_BPF_TCX_INGRESS, 0, NULL, ids, &cnt))
		return;		/* no tcx on this kernel, or nothing there */
	for (i = 0; i < cnt && i < ARRAY_SIZE(ids) && ids[i] != guard; i++) {
		cg_prog_name(ids[i], name, sizeof(name));
		cg_ahead_add(a, "tcx program %u%s", ids[i], name);
	}
}

struct cg_ahead_tc {
	struct cg_ahead *a;
	bool clsact_guard;	/* the bpf guard is a filter at CG_TC_PRIO */
};

static int cg_ahead_filter_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[TCA_MAX + 1];
	const struct tcmsg *tc = NLMSG_DATA(h);
	struct cg_ahead_tc *w = arg;
	const char *kind;
	__u32 prio;

	if (h->nlmsg_type != RTM_NEWTFILTER || h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
		return 0;
	cg_nl_parse(h, sizeof(*tc), tb, TCA_MAX);
	kind = cg_nla_str(tb[TCA_KIND]);
	/* a dump gives each filter, and a bare entry per priority and protocol */
	if (!tc->tcm_handle)
		return 0;
	prio = TC_H_MAJ(tc->tcm_info) >> 16;
	if (w->clsact_guard) {
		if (tc->tcm_handle == CG_TC_HANDLE && prio == CG_TC_PRIO)
			return 0;		/* the guard itself */
		if (prio > CG_TC_PRIO)
			return 0;		/* after it */
	}
	cg_ahead_add(w->a, "tc filter %s prio %u handle 0x%x", kind ? kind : "?", prio,
		     tc->tcm_handle);
	return 0;
}

static void cg_ahead_clsact(int ifindex, bool clsact_guard, struct cg_ahead *a)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			    .tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS) };
	struct cg_ahead_tc w = { .a = a, .clsact_guard = clsact_guard };
	struct cg_nl_msg m;
	int fd = cg_nl_socket(NETLINK_ROUTE, 0, 5);

	if (fd < 0)
		return;
	cg_nl_msg_init(&m, RTM_GETTFILTER, NLM_F_DUMP, &tc, sizeof(tc));
	cg_nl_talk(fd, &m, cg_ahead_filter_cb, &w);
	close(fd);
}

void cg_ahead_of(int ifindex, const char *backend, const struct cg_status *st,
		 struct cg_ahead *a)
{
	cg_ahead_of_xdp(ifindex, backend, st, -1, a);
}

void cg_ahead_of_xdp(int ifindex, const char *backend, const struct cg_status *st,
		     int xdp, struct cg_ahead *a)
{
	bool kmod = backend && !strcmp(backend, "kmod");
	bool tcx = !kmod && !strcmp(st->mode, "tcx");

	memset(a, 0, sizeof(*a));
	if (!st->attached)
		return;
	if (xdp)
		cg_ahead_xdp(ifindex, a);
	cg_ahead_tcx(ifindex, tcx ? st->prog_id : 0, a);
	if (!tcx)
		cg_ahead_clsact(ifindex, !kmod, a);
	if (kmod && st->first_known && !st->first_ingress)
		cg_ahead_add(a, "a netfilter hook registered after the guard at its priority "
			     "(such as an nftables netdev chain at -2147483648): the module "
			     "moves back in front within a second");
}
