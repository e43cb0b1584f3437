// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * proc.c - the proc connector: an event for each exec and exit on the
 * host. A VM's or a container's process enters its namespace (unshare,
 * setns) and then execs, so an exec is when an unnamed namespace can first
 * be seen (ns.c: one stat, not a walk over every process); the exit of a
 * namespace's first process may be the namespace's end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "netns.h"
#include "nl.h"
#include "watch_int.h"

int cg_wproc_open(void)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(__u32))] __attribute__((aligned(NLMSG_ALIGNTO))) = {};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nh);
	__u32 op = PROC_CN_MCAST_LISTEN;
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	sa.nl_pid = 0;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nh->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, nh, nh->nlmsg_len, 0) < 0)
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/* A process exited: the first of a namespace's? Then is the namespace
 * gone too? The next round rescans. */
static void cg_wexit(struct cg_watch *w, int pid)
{
	int i;

	for (i = 0; i < w->nns; i++)
		if (w->ns[i].pid == pid)
			w->rescan = true;
}

/* Each exec since the last read; true when events were lost (a rescan
 * then finds what they would have told) */
bool cg_wproc_read(struct cg_watch *w)
{
	static char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct proc_event *ev;
	const struct cn_msg *cn;
	struct nlmsghdr *h;
	bool lost = false;
	ssize_t n;

	for (;;) {
		n = cg_nl_recv(w->cfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (n == -EINTR)
				continue;
			if (n == -ENOBUFS) {
				lost = true;
				continue;
			}
			return lost;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)))
				continue;
			cn = NLMSG_DATA(h);
			ev = (const struct proc_event *)cn->data;
			if (ev->what == PROC_EVENT_EXEC)
				cg_netns_of_pid(ev->event_data.exec.process_tgid, cg_wfound, w);
			else if (ev->what == PROC_EVENT_EXIT &&
				 ev->event_data.exit.process_pid == ev->event_data.exit.process_tgid)
				cg_wexit(w, ev->event_data.exit.process_tgid);
		}
	}
}
