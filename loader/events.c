// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * events.c - the guards' drop events, read and written (see events.h).
 *
 * The bpf backend's guards share one ring buffer (bpf/ring.c); a reader
 * finds rings by their name among the host's maps. The module multicasts its events to a
 * generic netlink group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "events.h"
#include "json.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "nl.h"
#include "state.h"
#include "csum_guard.h"
#include "csum_guard_genl.h"

#define CG_EV_LINES	10	/* lines a second per device, then a count */
#define CG_EV_RINGS	64	/* rings read at once (one, but for races) */

/* ---- the reader ---- */

struct cg_evdev {
	__u64 ino;
	__u32 ifindex;
	char ifname[16];
	time_t window;		/* the second its lines count against */
	unsigned int lines, held;
};

struct cg_evns {
	__u64 ino;
	char label[NAME_MAX + 1];	/* its name, else its inode */
};

struct cg_events {
	bool json;
	__u64 own_ino;
	struct ring_buffer *rb;
	__u32 ring_id[CG_EV_RINGS];
	int ring_fd[CG_EV_RINGS], nrings;
	int gfd, family, group;		/* the module's group; -1, 0, 0: none */
	struct cg_evdev *devs;
	int ndevs, capdevs;
	struct cg_evns *ns;
	int nns, capns;
	time_t ns_scanned;
	__u32 last_map_id;		/* maps up to it looked at */
};

static struct cg_evns *cg_evns_add(struct cg_events *ev, __u64 ino)
{
	struct cg_evns *p;
	int i;

	for (i = 0; i < ev->nns; i++)
		if (ev->ns[i].ino == ino)
			return &ev->ns[i];
	if (ev->nns == ev->capns) {
		p = realloc(ev->ns, (ev->capns * 2 + 8) * sizeof(*p));
		if (!p)
			return NULL;
		ev->ns = p;
		ev->capns = ev->capns * 2 + 8;
	}
	p = &ev->ns[ev->nns++];
	p->ino = ino;
	snprintf(p->label, sizeof(p->label), "%llu", (unsigned long long)ino);
	return p;
}

static void cg_evns_found(const struct cg_netns_ref *r, void *arg)
{
	struct cg_evns *p = cg_evns_add(arg, r->ino);

	if (p && r->name)
		snprintf(p->label, sizeof(p->label), "%s", r->name);
}

/* A namespace as status names it: NULL for ours, its name, its inode */
static const char *cg_evns_label(struct cg_events *ev, __u64 ino)
{
	struct cg_evns *p = NULL;
	time_t now = time(NULL);
	int i;

	if (!ino || ino == ev->own_ino)
		return NULL;
	for (i = 0; i < ev->nns && !p; i++)
		if (ev->ns[i].ino == ino)
			p = &ev->ns[i];
	/* not known: look again, at most once a second */
	if (!p && now != ev->ns_scanned) {
		ev->ns_scanned = now;
		cg_netns_scan(cg_evns_found, ev);
		for (i = 0; i < ev->nns && !p; i++)
			if (ev->ns[i].ino == ino)
				p = &ev->ns[i];
	}
	if (!p)
		p = cg_evns_add(ev, ino);
	return p ? p->label : "?";
}

static struct cg_evdev *cg_evdev_of(struct cg_events *ev, const struct cg_drop_event *e)
{
	struct cg_evdev *d;
	int i;

	for (i = 0; i < ev->ndevs; i++)
		if (ev->devs[i].ino == e->netns_ino && ev->devs[i].ifindex == e->ifindex)
			return &ev->devs[i];
	if (ev->ndevs == ev->capdevs) {
		d = realloc(ev->devs, (ev->capdevs * 2 + 16) * sizeof(*d));
		if (!d)
			return NULL;
		ev->devs = d;
		ev->capdevs = ev->capdevs * 2 + 16;
	}
	d = &ev->devs[ev->ndevs++];
	memset(d, 0, sizeof(*d));
	d->ino = e->netns_ino;
	d->ifindex = e->ifindex;
	return d;
}

static const char *cg_ev_proto(__u16 p)
{
	return p == CG_ETH_P_IP ? "IPv4" : p == CG_ETH_P_IPV6 ? "IPv6" : "VLAN";
}

/* "tap0 netns vm1: 7 more drops not logged" for a device's last second */
static void cg_ev_held(struct cg_events *ev, struct cg_evdev *d)
{
	char dev[4 * 16 + 1], nsb[4 * (NAME_MAX + 1) + 1];
	const char *ns = cg_evns_label(ev, d->ino);
	bool first = true;

	if (!d->held)
		return;
	if (ev->json) {
		putchar('{');
		cg_json_kv_str(&first, "device", d->ifname);
		cg_json_kv_str(&first, "netns", ns);
		cg_json_kv_u64(&first, "netns_ino", d->ino);
		cg_json_kv_u64(&first, "ifindex", d->ifindex);
		cg_json_kv_u64(&first, "not_logged", d->held);
		puts("}");
	} else {
		printf("drop: %s%s%s: %u more drops not logged (at most %d lines a second a device)\n",
		       cg_text_safe(d->ifname, dev, sizeof(dev)), ns ? " netns " : "",
		       ns ? cg_text_safe(ns, nsb, sizeof(nsb)) : "", d->held, CG_EV_LINES);
	}
	d->held = 0;
}

static void cg_ev_write(struct cg_events *ev, const struct cg_drop_event *in)
{
	char dev[4 * 16 + 1], nsb[4 * (NAME_MAX + 1) + 1], name[17];
	struct cg_drop_event e = *in;
	struct cg_evdev *d = cg_evdev_of(ev, &e);
	time_t now = time(NULL);
	const char *ns, *dir, *why;
	bool first = true;

	memcpy(name, e.ifname, 16);
	name[16] = '\0';
	if (d) {
		if (d->window != now) {
			cg_ev_held(ev, d);
			d->window = now;
			d->lines = 0;
		}
		snprintf(d->ifname, sizeof(d->ifname), "%s", name);
		if (d->lines >= CG_EV_LINES) {
			d->held++;
			return;
		}
		d->lines++;
	}
	ns = cg_evns_label(ev, e.netns_ino);
	dir = e.flags & CG_EV_COMPLETION ? "completion" :
	      e.flags & CG_EV_EGRESS ? "egress" : "ingress";
	why = e.verdict == CG_DROP ? "checksum start inside the IP headers" :
				     "IP headers unreadable";
	if (ev->json) {
		putchar('{');
		cg_json_kv_str(&first, "device", name);
		cg_json_kv_str(&first, "netns", ns);
		cg_json_kv_u64(&first, "netns_ino", e.netns_ino);
		cg_json_kv_u64(&first, "ifindex", e.ifindex);
		cg_json_kv_str(&first, "backend", e.flags & CG_EV_KMOD ? "kmod" : "bpf");
		cg_json_kv_str(&first, "where", dir);
		cg_json_kv_str(&first, "protocol", cg_ev_proto(e.protocol));
		cg_json_kv_str(&first, "reason", e.verdict == CG_DROP ? "csum_start" : "unreadable");
		cg_json_kv_u64(&first, "csum_start", e.csum_start);
		cg_json_kv_u64(&first, "ip_header", e.l3);
		cg_json_kv_str(&first, "offsets_from", e.flags & CG_EV_FROM_HEAD ? "head" : "frame");
		cg_json_kv_u64(&first, "ihl", e.vhl & 0x0f);
		cg_json_kv_u64(&first, "len", e.len);
		puts("}");
	} else {
		printf("drop: %s%s%s (%s, %s): %s %s packet of %u bytes, %s: csum_start %u, "
		       "IP header at %u%s, ihl %u\n",
		       cg_text_safe(name, dev, sizeof(dev)), ns ? " netns " : "",
		       ns ? cg_text_safe(ns, nsb, sizeof(nsb)) : "",
		       e.flags & CG_EV_KMOD ? "kmod" : "bpf", dir,
		       e.flags & CG_EV_COMPLETION ? "refused completion of an" : "dropped an",
		       cg_ev_proto(e.protocol), e.len, why, e.csum_start, e.l3,
		       e.flags & CG_EV_FROM_HEAD ? " (from skb->head)" : "", e.vhl & 0x0f);
	}
}

static int cg_ev_ring_cb(void *ctx, void *data, size_t size)
{
	struct cg_drop_event e = {};

	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	cg_ev_write(ctx, &e);
	return 0;
}

/* Read ring fd (map id) too; nonzero if it was not taken (fd is the caller's). */
static int cg_ring_add(struct cg_events *ev, int fd, __u32 id)
{
	int i;

	for (i = 0; i < ev->nrings; i++)
		if (ev->ring_id[i] == id)
			return 1;
	if (ev->nrings == CG_EV_RINGS)
		return 1;
	if (!ev->rb) {
		ev->rb = ring_buffer__new(fd, cg_ev_ring_cb, ev, NULL);
		if (!ev->rb)
			return 1;
	} else if (ring_buffer__add(ev->rb, fd, cg_ev_ring_cb, ev)) {
		return 1;
	}
	ev->ring_id[ev->nrings] = id;
	ev->ring_fd[ev->nrings++] = fd;
	return 0;
}

/* CTRL_CMD_GETFAMILY's answer: the family's id and the drops group's */
static int cg_ev_family_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *grp[CTRL_ATTR_MCAST_GRP_MAX + 1], *a;
	struct cg_events *ev = arg;
	const char *name;
	int rem;

	cg_nl_parse(nh, GENL_HDRLEN, tb, CTRL_ATTR_MAX);
	ev->family = cg_nla_uint(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	a = cg_nla_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	rem = cg_nla_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	for (; rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len), a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		cg_nl_parse_nested(a, grp, CTRL_ATTR_MCAST_GRP_MAX);
		name = cg_nla_str(grp[CTRL_ATTR_MCAST_GRP_NAME]);
		if (name && !strcmp(name, CG_GENL_MCGRP_DROPS))
			ev->group = cg_nla_uint(grp[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 0;
}

/* Join the module's group, again if the module was loaded anew since. */
static void cg_ev_join(struct cg_events *ev)
{
	struct cg_nl_msg m;
	struct genlmsghdr g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 };
	int fd, old = ev->group;

	fd = cg_nl_socket(NETLINK_GENERIC, 0, 2);
	if (fd < 0)
		return;
	ev->family = 0;
	ev->group = 0;
	cg_nl_msg_init(&m, GENL_ID_CTRL, 0, &g, sizeof(g));
	cg_nl_put(&m, CTRL_ATTR_FAMILY_NAME, CG_GENL_NAME, sizeof(CG_GENL_NAME));
	cg_nl_talk(fd, &m, cg_ev_family_cb, ev);
	close(fd);
	if (ev->group == old && ev->gfd >= 0)
		return;
	if (ev->gfd >= 0)
		close(ev->gfd);
	ev->gfd = -1;
	if (!ev->group)
		return;
	ev->gfd = cg_nl_socket(NETLINK_GENERIC, 0, 0);
	if (ev->gfd >= 0 && setsockopt(ev->gfd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				       &ev->group, sizeof(ev->group))) {
		close(ev->gfd);
		ev->gfd = -1;
	}
}

static void cg_ev_read_group(struct cg_events *ev)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlattr *tb[CG_A_MAX + 1];
	const struct genlmsghdr *g;
	const struct nlmsghdr *nh;
	struct cg_drop_event e;
	ssize_t len;

	for (;;) {
		len = cg_nl_recv(ev->gfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len == -ENOBUFS)
			continue;	/* the socket overran: those events are lost */
		if (len <= 0)
			return;
		for (nh = (void *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type != ev->family ||
			    nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
				continue;
			g = NLMSG_DATA(nh);
			if (g->cmd != CG_CMD_DROP_EVENT)
				continue;
			cg_nl_parse(nh, GENL_HDRLEN, tb, CG_A_MAX);
			if (!tb[CG_A_EVENT])
				continue;
			memset(&e, 0, sizeof(e));
			memcpy(&e, cg_nla_data(tb[CG_A_EVENT]),
			       cg_nla_len(tb[CG_A_EVENT]) < (int)sizeof(e) ?
			       (size_t)cg_nla_len(tb[CG_A_EVENT]) : sizeof(e));
			cg_ev_write(ev, &e);
		}
	}
}

struct cg_events *cg_events_open(bool json)
{
	struct cg_events *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->json = json;
	ev->gfd = -1;
	cg_netns_ino(&ev->own_ino);
	cg_events_refresh(ev);
	return ev;
}

void cg_events_close(struct cg_events *ev)
{
	int i;

	if (!ev)
		return;
	ring_buffer__free(ev->rb);
	for (i = 0; i < ev->nrings; i++)
		close(ev->ring_fd[i]);
	if (ev->gfd >= 0)
		close(ev->gfd);
	free(ev->devs);
	free(ev->ns);
	free(ev);
}

/*
 * A reader finds rings by name among the maps made since it last looked
 * (map ids only grow): its cost does not grow with the guards, and a ring
 * is read from the moment it exists, before any guard is pinned.
 */
void cg_events_refresh(struct cg_events *ev)
{
	struct bpf_map_info mi;
	__u32 id = ev->last_map_id, len;
	int fd;

	while (!bpf_map_get_next_id(id, &id)) {
		ev->last_map_id = id;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (bpf_obj_get_info_by_fd(fd, &mi, &len) || mi.type != BPF_MAP_TYPE_RINGBUF ||
		    mi.max_entries != CG_EVENTS_BYTES || strcmp(mi.name, CG_BPF_MAP_EVENTS) ||
		    cg_ring_add(ev, fd, id))
			close(fd);
	}
	cg_ev_join(ev);
}

int cg_events_pollfds(const struct cg_events *ev, struct pollfd *p)
{
	int n = 0;

	if (ev->rb)
		p[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(ev->rb), .events = POLLIN };
	if (ev->gfd >= 0)
		p[n++] = (struct pollfd){ .fd = ev->gfd, .events = POLLIN };
	return n;
}

void cg_events_read(struct cg_events *ev)
{
	time_t now = time(NULL);
	int i;

	if (ev->rb)
		ring_buffer__consume(ev->rb);
	if (ev->gfd >= 0)
		cg_ev_read_group(ev);
	/* what the limit held back in a second that is over */
	for (i = 0; i < ev->ndevs; i++)
		if (ev->devs[i].held && ev->devs[i].window != now)
			cg_ev_held(ev, &ev->devs[i]);
	fflush(stdout);
}

const char *cg_events_sources(const struct cg_events *ev, char *buf, size_t n)
{
	snprintf(buf, n, "%d ring buffer%s of the bpf backend, %s", ev->nrings,
		 ev->nrings == 1 ? "" : "s",
		 ev->gfd >= 0 ? "the module's drop events" :
		 ev->family ? "not the module's: it predates drop events" :
		 "not the module's: it is not loaded");
	return buf;
}

/*
 * csum-guard events [--json]: every drop event of the host until SIGINT or
 * SIGTERM. Guards attached later are found within a second.
 */
int cg_cmd_events(bool json)
{
	struct signalfd_siginfo si;
	struct pollfd p[3];
	struct cg_events *ev;
	char src[160];
	sigset_t sigs;
	int n;

	if (cg_cli_need_root("read drop events"))
		return 1;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	p[0] = (struct pollfd){ .fd = signalfd(-1, &sigs, SFD_CLOEXEC), .events = POLLIN };
	ev = cg_events_open(json);
	if (!ev || p[0].fd < 0) {
		cg_err("cannot read drop events: %s", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cg_info("reading drop events: %s", cg_events_sources(ev, src, sizeof(src)));
	for (;;) {
		n = 1 + cg_events_pollfds(ev, p + 1);
		if (poll(p, n, 1000) < 0 && errno != EINTR) {
			cg_err("cannot read drop events: poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents && read(p[0].fd, &si, sizeof(si)) == sizeof(si))
			break;
		cg_events_read(ev);
		cg_events_refresh(ev);
	}
	cg_events_read(ev);
	cg_events_close(ev);
	return 0;
}
