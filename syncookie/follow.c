// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * follow.c - csum-guard syncookie apply --follow: after apply, stay and
 * keep the declared responders as declared. In each namespace that has
 * one, two netlink sockets made there (a socket stays in the namespace it
 * was made in) hear what can undo a responder: nftables' changes
 * (NFNLGRP_NFTABLES: a flushed ruleset, `systemctl restart nftables`),
 * and rtnetlink's links, addresses and routes (a device that comes back,
 * an address its snapshot lacks or still has). Events are gathered for
 * SC_SETTLE_MS, then each responder of that namespace is attached again
 * (apply.c: in a child; a repair is logged and counted there). A named
 * namespace that is missing, or was made again under its name, is looked
 * for once a second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "netns.h"
#include "sc.h"
#include "apply.h"

#define SC_SETTLE_MS	30	/* a burst of events (a ruleset reload) is one */
#define SC_LOOK_MS	1000	/* missing namespaces and devices looked for */

/* The sockets of one namespace and what they heard */
struct sc_watch {
	const char *netns;	/* as declared, NULL: ours */
	int rt, nf;		/* -1: not open (the namespace is missing) */
	__u64 ino;
	unsigned int causes;	/* heard since the last repair (SC_CAUSE_*) */
	long long since;	/* when the first of them came, in ms */
};

static volatile sig_atomic_t sc_stop;

static void sc_on_signal(int sig)
{
	sc_stop = 1;
}

static long long sc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sc_watch_close(struct sc_watch *w)
{
	if (w->rt >= 0)
		close(w->rt);
	if (w->nf >= 0)
		close(w->nf);
	w->rt = w->nf = -1;
}

/* The inode of the namespace netns names now, 0 if none */
static __u64 sc_ns_ino(const char *netns)
{
	char path[512];
	struct stat st;

	if (!netns)
		return 0;
	if (strchr(netns, '/'))
		snprintf(path, sizeof(path), "%s", netns);
	else
		snprintf(path, sizeof(path), "%s/%s", CG_NETNS_RUN_DIR, netns);
	return stat(path, &st) ? 0 : st.st_ino;
}

/* Both sockets, made in w's namespace; 0 or -errno */
static int sc_watch_open(struct sc_watch *w)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK }, nf = sa;
	int grp = NFNLGRP_NFTABLES, fd, err = 0;

	if (w->netns) {
		fd = cg_netns_open(w->netns);
		if (fd < 0)
			return fd;
		err = cg_netns_enter(fd);
		close(fd);
		if (err)
			return err;
	}
	if (cg_netns_ino(&w->ino))
		w->ino = 0;
	w->rt = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	w->nf = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_NETFILTER);
	sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
		       RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
	/* bound, the nft socket too: an unbound one has port 0, which the
	 * kernel's own notifications are sent as, and excluded from */
	if (w->rt < 0 || w->nf < 0 || bind(w->rt, (struct sockaddr *)&sa, sizeof(sa)) ||
	    bind(w->nf, (struct sockaddr *)&nf, sizeof(nf)) ||
	    setsockopt(w->nf, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		err = -errno;
	if (w->netns)
		cg_netns_return();
	if (err)
		sc_watch_close(w);
	return err;
}

/* Everything queued on fd: what it was about (SC_CAUSE_*, 0: nothing) */
static unsigned int sc_drain(int fd, bool nft)
{
	static char buf[16384] __attribute__((aligned(4)));
	unsigned int causes = 0;
	struct nlmsghdr *h;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (n < 0) {
			/* ENOBUFS: events were lost; look again all the same */
			if (errno == ENOBUFS)
				causes |= SC_CAUSE_NS;
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			break;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (nft) {
				causes |= SC_CAUSE_NFT;
				continue;
			}
			switch (h->nlmsg_type) {
			case RTM_NEWLINK:
			case RTM_DELLINK:
				causes |= SC_CAUSE_DEV;
				break;
			case RTM_NEWADDR:
			case RTM_DELADDR:
				causes |= SC_CAUSE_ADDR;
				break;
			case RTM_NEWROUTE:
			case RTM_DELROUTE:
				causes |= SC_CAUSE_ROUTE;
				break;
			}
		}
	}
	return causes;
}

/* Attach again every responder of w's namespace */
static void sc_watch_repair(struct sc_decls *ds, struct sc_watch *w)
{
	char where[512];
	int i, r;

	for (i = 0; i < ds->n; i++) {
		struct sc_decl *d = &ds->d[i];

		if (strcmp(d->a.netns ?: "", w->netns ?: ""))
			continue;
		d->heard = w->since;	/* the child says how long since */
		r = sc_apply_run(d, w->causes);
		if (r == SC_APPLY_REPAIRED)
			d->repairs++;
		if (r == SC_APPLY_MISSING && !d->missing)
			cg_info("%s is not there: attached when it comes", sc_decl_where(d, where,
											sizeof(where)));
		d->missing = r == SC_APPLY_MISSING;
	}
	w->causes = 0;
}

/* Missing namespaces, and those made again under their name */
static void sc_watch_look(struct sc_watch *w)
{
	bool was = w->rt >= 0;
	__u64 ino;

	if (was) {
		/* ours, or given by inode: it cannot be made again */
		if (!w->netns || !w->netns[strspn(w->netns, "0123456789")])
			return;
		ino = sc_ns_ino(w->netns);
		if (!ino || ino == w->ino)
			return;
	}
	sc_watch_close(w);
	if (sc_watch_open(w))
		return;
	w->causes |= SC_CAUSE_NS;
	w->since = sc_now_ms() - SC_SETTLE_MS;
}

int sc_follow(struct sc_decls *ds)
{
	struct sigaction sa = { .sa_handler = sc_on_signal };
	struct pollfd *pfd = NULL;
	struct sc_watch *w = NULL;
	long long now, looked;
	int nw = 0, i, j, n, err;

	/* one watch per namespace declared */
	for (i = 0; i < ds->n; i++) {
		for (j = 0; j < nw && strcmp(w[j].netns ?: "", ds->d[i].a.netns ?: ""); j++)
			;
		if (j < nw)
			continue;
		w = realloc(w, (nw + 1) * sizeof(*w));
		if (!w) {
			cg_err("cannot follow: out of memory");
			return 1;
		}
		w[nw] = (struct sc_watch){ .netns = ds->d[i].a.netns, .rt = -1, .nf = -1 };
		err = sc_watch_open(&w[nw]);
		if (err && !w[nw].netns) {
			cg_err("cannot follow: netlink: %s", strerror(-err));
			free(w);
			return 1;
		}
		if (err)
			cg_info("netns %s is not there: followed when it comes", w[nw].netns);
		nw++;
	}
	pfd = calloc(2 * nw + 1, sizeof(*pfd));
	if (!pfd && nw) {
		cg_err("cannot follow: out of memory");
		free(w);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cg_info("following %d responder%s in %d namespace%s", ds->n, ds->n == 1 ? "" : "s", nw,
		nw == 1 ? "" : "s");
	looked = sc_now_ms();
	while (!sc_stop) {
		bool settling = false;

		for (i = 0; i < nw; i++) {
			pfd[2 * i] = (struct pollfd){ .fd = w[i].rt, .events = POLLIN };
			pfd[2 * i + 1] = (struct pollfd){ .fd = w[i].nf, .events = POLLIN };
			settling |= w[i].causes != 0;
		}
		n = poll(pfd, 2 * nw, settling ? SC_SETTLE_MS / 2 : SC_LOOK_MS);
		if (n < 0 && errno != EINTR) {
			cg_err("cannot follow: poll: %s", strerror(errno));
			break;
		}
		now = sc_now_ms();
		for (i = 0; n > 0 && i < nw; i++) {
			unsigned int c = 0;

			if (pfd[2 * i].revents)
				c |= sc_drain(w[i].rt, false);
			if (pfd[2 * i + 1].revents)
				c |= sc_drain(w[i].nf, true);
			if (c && !w[i].causes)
				w[i].since = now;
			w[i].causes |= c;
		}
		for (i = 0; i < nw; i++)
			if (w[i].causes && now - w[i].since >= SC_SETTLE_MS)
				sc_watch_repair(ds, &w[i]);
		if (now - looked >= SC_LOOK_MS) {
			looked = now;
			for (i = 0; i < nw; i++) {
				sc_watch_look(&w[i]);
				/* a device not there yet: its link event may have come
				 * before the namespace's sockets did */
				for (j = 0; j < ds->n && !w[i].causes; j++)
					if (ds->d[j].missing &&
					    !strcmp(ds->d[j].a.netns ?: "", w[i].netns ?: "")) {
						w[i].causes |= SC_CAUSE_DEV;
						w[i].since = now - SC_SETTLE_MS;
					}
			}
		}
	}
	for (i = 0; i < nw; i++)
		sc_watch_close(&w[i]);
	free(pfd);
	free(w);
	cg_info("no longer following: the responders stay as they are");
	return 0;
}
