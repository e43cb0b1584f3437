// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ns.c - what the watcher sees of the host: every network namespace,
 * by name (/run/netns) or by process (/proc/PID/ns/net), and the matching
 * guest-facing devices of each (taps, macvtaps, tunnels: lib/link.h), from
 * a link dump and the events that follow (rtnl.c: two sockets for them
 * all). No descriptor is kept on a namespace: it is entered again by its
 * name or process, only when that still leads to the inode meant.
 * Namespaces of other user namespaces are counted, not watched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "json.h"
#include "link.h"
#include "log.h"
#include "netns.h"
#include "nl.h"
#include "notify.h"
#include "select.h"
#include "watch_int.h"

/* --- namespaces ------------------------------------------------------- */

/*
 * Enter ns by the way the last scan found to it (its name or a process),
 * only if that still leads to the inode meant: -ESTALE when it leads
 * elsewhere (the process gone and its PID reused), -errno. Our own
 * namespace is where we are: nothing to enter. cg_netns_return() after 0.
 */
static int cg_wns_open(const struct cg_wns *ns)
{
	struct stat st;
	int fd, err;

	fd = cg_netns_open(ns->own ? "/proc/self/ns/net" : ns->arg);
	if (fd < 0)
		return fd;
	err = fstat(fd, &st) ? -errno : st.st_ino != ns->ino ? -ESTALE : 0;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cg_wns_enter(const struct cg_wns *ns)
{
	int fd, err;

	if (ns->own)
		return 0;
	fd = cg_wns_open(ns);
	if (fd < 0)
		return fd;
	err = cg_netns_enter(fd);
	close(fd);
	return err;
}

static int cg_wskip_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = ((const struct cg_wskip *)b)->ino;

	return x < y ? -1 : x > y;
}

static struct cg_wskip *cg_wskip_find(struct cg_watch *w, __u64 ino)
{
	return w->nskip ? bsearch(&ino, w->skip, w->nskip, sizeof(*w->skip), cg_wskip_cmp) : NULL;
}

/* A namespace of another user namespace, counted and left (design.md:
 * "Namespaces of other user namespaces") */
static void cg_wskip_add(struct cg_watch *w, __u64 ino, __u32 uid)
{
	struct cg_wskip *a;
	int i;

	if (w->nskip == w->skipcap) {
		a = realloc(w->skip, (w->skipcap * 2 + 64) * sizeof(*a));
		if (!a)
			return;
		w->skip = a;
		w->skipcap = w->skipcap * 2 + 64;
	}
	for (i = w->nskip; i > 0 && w->skip[i - 1].ino > ino; i--)
		;
	memmove(&w->skip[i + 1], &w->skip[i], (w->nskip - i) * sizeof(*a));
	w->skip[i] = (struct cg_wskip){ .ino = ino, .uid = uid, .gen = w->gen };
	w->nskip++;
}

/* Those the last full scan did not see again: gone */
static void cg_wskip_prune(struct cg_watch *w)
{
	int i, n = 0;

	for (i = 0; i < w->nskip; i++)
		if (w->skip[i].gen == w->gen)
			w->skip[n++] = w->skip[i];
	w->nskip = n;
}

/* Said when their number has changed: how many are left, and whose most */
static void cg_wskip_say(struct cg_watch *w)
{
	__u32 uid = 0;
	int i, mine = 0, most = 0;

	if (w->nskip == w->nskip_said)
		return;
	w->nskip_said = w->nskip;
	for (i = 0; i < w->nskip; i++) {
		if (w->skip[i].uid == uid) {
			mine++;
		} else if (!mine) {
			uid = w->skip[i].uid;
			mine = 1;
		} else {
			mine--;	/* a majority vote: the owner of most, if one has most */
		}
	}
	for (i = 0; i < w->nskip; i++)
		most += w->skip[i].uid == uid;
	if (!w->nskip) {
		printf("no network namespace of another user namespace left\n");
	} else {
		printf("not watching %d network namespace%s of other user namespaces (%d of uid %u): "
		       "their devices reach the host only through links root made, guarded where "
		       "they land\n", w->nskip, w->nskip == 1 ? "" : "s", most, uid);
	}
	/* and in the unit's status, once ready (before, it names what fails) */
	if (w->ready) {
		char st[160];

		snprintf(st, sizeof(st), "STATUS=guarding every guest-facing device; not watching "
			 "%d network namespaces of other user namespaces", w->nskip);
		cg_notify(st);
	}
}

static struct cg_wns *cg_wns_find(struct cg_watch *w, __u64 ino)
{
	int i;

	for (i = 0; i < w->nns; i++)
		if (w->ns[i]->ino == ino)
			return w->ns[i];
	return NULL;
}

/* *s becomes a copy of v; kept as it was when there is no memory for one */
static void cg_wns_str(char **s, const char *v)
{
	char *n = strdup(v);

	if (n) {
		free(*s);
		*s = n;
	}
}

void cg_wns_free(struct cg_wns *ns)
{
	free(ns->label);
	free(ns->arg);
	free(ns->devs);
	free(ns);
}

/*
 * A namespace seen for the first time at path (a name or a /proc path):
 * watched when it is of our user namespace (an id given, its links
 * dumped), counted in w->skip when it is of another. NULL when not watched.
 */
static struct cg_wns *cg_wns_add(struct cg_watch *w, __u64 ino, const char *path,
				 const char *label, bool named)
{
	char safe[4 * CG_LABEL_MAX];
	struct cg_wns *ns, **a;
	struct stat st;
	int fd, err, nsid = -1, i;
	__u32 uid = 0;

	fd = cg_netns_open(path);
	err = fd < 0 ? fd : fstat(fd, &st) ? -errno : st.st_ino != ino ? -ESTALE : 0;
	if (!err)
		err = cg_netns_other_userns(fd, w->own_userns, &uid);
	if (err == 1) {
		close(fd);
		cg_wskip_add(w, ino, uid);
		return NULL;
	}
	/* ours keeps what it has: an id only if someone gave it one */
	if (!err) {
		nsid = cg_wnsid(w, fd, ino != w->own_ino);
		/* another without an id would never be heard, nor listed */
		err = nsid >= 0 || (nsid == -1 && ino == w->own_ino) ? 0 : nsid == -1 ? -EPERM : nsid;
	}
	if (fd >= 0)
		close(fd);
	if (err < 0) {
		/* a process that just exited, or replaced under us, is no news:
		 * the next scan tries again */
		if (err != -ENOENT && err != -ESRCH && err != -ESTALE)
			printf("cannot watch netns %s: %s\n", cg_text_safe(label, safe, sizeof(safe)),
			       strerror(-err));
		return NULL;
	}

	a = realloc(w->ns, (w->nns + 1) * sizeof(*a));
	ns = calloc(1, sizeof(*ns));
	if (a)
		w->ns = a;
	if (ns) {
		cg_wns_str(&ns->label, label);
		cg_wns_str(&ns->arg, ino == w->own_ino ? "" : label);
	}
	if (!a || !ns || !ns->label || !ns->arg) {
		if (ns)
			cg_wns_free(ns);
		return NULL;
	}
	/* ids are unique among live namespaces: one that had it is gone */
	for (i = 0; i < w->nns; i++)
		if (nsid >= 0 && w->ns[i]->nsid == nsid)
			w->ns[i]->nsid = -2;
	w->ns[w->nns++] = ns;
	ns->ino = ino;
	ns->own = ino == w->own_ino;
	ns->named = named;
	ns->nsid = nsid;
	printf("watching netns %s\n", cg_text_safe(label, safe, sizeof(safe)));
	cg_wdump(w, ns);
	return ns;
}

/* ns is reached and logged by its name from now on */
static void cg_wns_name(struct cg_wns *ns, const char *name)
{
	char a[4 * CG_LABEL_MAX], b[4 * CG_LABEL_MAX];

	printf("netns %s: named %s\n", cg_text_safe(ns->label, a, sizeof(a)),
	       cg_text_safe(name, b, sizeof(b)));
	cg_wns_str(&ns->label, name);
	if (!ns->own)
		cg_wns_str(&ns->arg, name);
	ns->named = true;
}

/* One way to a namespace that cg_netns_scan() found: record it */
static void cg_wscan_one(const struct cg_netns_ref *r, void *arg)
{
	struct cg_watch *w = arg;
	struct cg_wns *ns = cg_wns_find(w, r->ino);
	struct cg_wskip *k;

	if (!ns && (k = cg_wskip_find(w, r->ino))) {
		k->gen = w->gen;
		return;
	}
	if (r->name) {
		if (!ns) {
			ns = cg_wns_add(w, r->ino, r->path, r->name, true);
			if (!ns)
				return;
		} else if (!ns->named_now && (!ns->named || strcmp(ns->label, r->name))) {
			/* it has a name now, or another one: the name reads better */
			cg_wns_name(ns, r->name);
		}
		ns->seen = ns->named_now = true;
		return;
	}
	if (!ns) {
		ns = cg_wns_add(w, r->ino, r->path, r->path, false);
		if (!ns)
			return;
	}
	ns->seen = true;
	if (!ns->pid_now)
		ns->pid_now = r->pid;
}

/* A namespace forgotten: what its guards left is pruned from CG_PRUNE_MS on */
static void cg_wgone_add(struct cg_watch *w, __u64 ino)
{
	__u64 *a = realloc(w->gone, (w->ngone + 1) * sizeof(*a));

	if (!a)
		return;
	w->gone = a;
	w->gone[w->ngone++] = ino;
	w->prune_tries = CG_PRUNE_TRIES;
	w->prune_wait = CG_PRUNE_MS;
	w->prune_at = cg_wnow_ms() + w->prune_wait;
}

/*
 * Every namespace with a name or a process, by inode. Returns true when an
 * entry of /run/netns is not a namespace yet.
 */
bool cg_wscan(struct cg_watch *w)
{
	char safe[4 * CG_LABEL_MAX];
	struct cg_wns *ns;
	bool pending;
	int i;

	if (w->wd < 0)
		w->wd = inotify_add_watch(w->ifd, CG_NETNS_RUN_DIR, IN_CREATE | IN_DELETE |
					  IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
					  IN_MOVE_SELF | IN_ONLYDIR);
	for (i = 0; i < w->nns; i++) {
		w->ns[i]->seen = w->ns[i]->named_now = false;
		w->ns[i]->pid_now = 0;
	}
	w->gen++;
	pending = cg_netns_scan(cg_wscan_one, w);
	cg_wskip_prune(w);
	cg_wskip_say(w);

	for (i = 0; i < w->nns; i++) {
		ns = w->ns[i];
		if (!ns->seen) {
			printf("forgot netns %s: no name or process left\n",
			       cg_text_safe(ns->label, safe, sizeof(safe)));
			cg_wgone_add(w, ns->ino);
			cg_wns_free(ns);
			w->ns[i--] = w->ns[--w->nns];
			continue;
		}
		if (!ns->named_now) {
			ns->named = false;
			if (!ns->own) {
				char path[32];

				snprintf(path, sizeof(path), "/proc/%d/ns/net", ns->pid_now);
				cg_wns_str(&ns->arg, path);
			}
		}
		/* its first process: its exit (the proc connector) may be the
		 * namespace's end */
		ns->pid = ns->pid_now;
		/* an id freed (RTM_DELNSID) and the namespace still here: again */
		if (ns->nsid == -2) {
			int fd = cg_wns_open(ns);

			if (fd >= 0) {
				ns->nsid = cg_wnsid(w, fd, !ns->own);
				ns->dump = ns->nsid >= 0 || ns->own;
				close(fd);
			}
		}
	}
	return pending;
}

/*
 * Between scans: a namespace that an event says may be new (a name bound
 * in /run/netns, a process that exec'd) is added at once, and its link
 * dump asked for, without a walk over every process. The next scan takes
 * it over as if it had found it.
 */
static void cg_wfound(const struct cg_netns_ref *r, void *arg)
{
	struct cg_watch *w = arg;
	struct cg_wns *ns = cg_wns_find(w, r->ino);
	struct cg_wskip *k;

	/* known by a process only (found at its exec, before its name was
	 * bound): the name outlives the process, and reads better */
	if (ns && r->name && !ns->named && !ns->own) {
		cg_wns_name(ns, r->name);
		return;
	}
	if (ns)
		return;
	if ((k = cg_wskip_find(w, r->ino))) {
		k->gen = w->gen;
		return;
	}
	ns = cg_wns_add(w, r->ino, r->path, r->name ?: r->path, r->name);
	if (!ns || !r->pid)
		return;
	ns->seen = true;
	ns->pid = ns->pid_now = r->pid;
}

/* The names of /run/netns only: true when one is not a namespace yet */
bool cg_wscan_named(struct cg_watch *w)
{
	return cg_netns_scan_named(cg_wfound, w);
}

/*
 * The proc connector: an event for each exec on the host. A VM's or a
 * container's process enters its namespace (unshare, setns) and then
 * execs, so an exec is when an unnamed namespace can first be seen: its
 * process's namespace is looked at then, one stat, instead of waiting for
 * the rescan of every process.
 */
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
		if (w->ns[i]->pid == pid)
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

/* --- devices ---------------------------------------------------------- */

static struct cg_wdev *cg_wdev_find(struct cg_wns *ns, int ifindex)
{
	int i;

	for (i = 0; i < ns->ndevs; i++)
		if (ns->devs[i].ifindex == ifindex)
			return &ns->devs[i];
	return NULL;
}

void cg_wdev_del(struct cg_wns *ns, struct cg_wdev *d)
{
	*d = ns->devs[--ns->ndevs];
}

/* IFLA_LINKINFO / IFLA_INFO_KIND: one of the kinds guests' frames enter
 * the host through (lib/link.h); a veth or netkit device only when its
 * peer is in another namespace (IFLA_LINK_NETNSID), and not with
 * --no-containers */
static const struct cg_kind *cg_is_guest_facing(const struct cg_watch *w,
						const struct nlattr *const *tb)
{
	const struct nlattr *info[IFLA_INFO_MAX + 1];
	const struct cg_kind *k;
	int nsid = -1;

	if (!tb[IFLA_LINKINFO])
		return NULL;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	if (tb[IFLA_LINK_NETNSID] && cg_nla_len(tb[IFLA_LINK_NETNSID]) >= (int)sizeof(__s32))
		nsid = *(const __s32 *)cg_nla_data(tb[IFLA_LINK_NETNSID]);
	k = cg_kind_facing(cg_nla_str(info[IFLA_INFO_KIND]), nsid);
	return k && k->pair && w->no_containers ? NULL : k;
}

/* The sequence number of the watcher's questions (rtnl.c): what answers
 * them is as it is now, never a pair's early event */
#define CG_WASK_SEQ	0x63677761

/* Ask again for ns's links (its device ifindex is the one meant): a dump
 * of that namespace before the next round's work (rtnl.c) */
static void cg_wask(struct cg_wns *ns, int ifindex)
{
	if (ifindex > 0)
		ns->dump = true;
}

static bool cg_wis_pair(const struct nlattr *const *tb)
{
	const struct nlattr *info[IFLA_INFO_MAX + 1];
	const struct cg_kind *k;

	if (!tb[IFLA_LINKINFO])
		return false;
	cg_nl_parse_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	k = cg_kind_find(cg_nla_str(info[IFLA_INFO_KIND]));
	return k && k->pair;
}

/*
 * What the kernel says of a pair too early, or not at all:
 * - one end moved out of ns (RTM_DELLINK with IFLA_NEW_NETNSID): its peer,
 *   left here, now joins two namespaces, and nothing is said of the peer;
 * - a pair made with its peer in another namespace (`ip link add ... peer
 *   netns X`): the peer's RTM_NEWLINK comes before the two are joined, with
 *   no peer (IFLA_LINK 0), and nothing more while it stays as it is.
 * Ask for the device then; an answer to such a question is not asked again.
 */
static void cg_wpair_event(struct cg_wns *ns, const struct nlmsghdr *h,
			   const struct nlattr *const *tb)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int link = tb[IFLA_LINK] ? (int)cg_nla_uint(tb[IFLA_LINK]) : 0;

	if (h->nlmsg_seq == CG_WASK_SEQ || !cg_wis_pair(tb))
		return;
	if (h->nlmsg_type == RTM_DELLINK && tb[IFLA_NEW_NETNSID])
		cg_wask(ns, link);
	else if (h->nlmsg_type == RTM_NEWLINK && link <= 0 && !tb[IFLA_LINK_NETNSID])
		cg_wask(ns, ifi->ifi_index);
}

void cg_wlink(struct cg_watch *w, struct cg_wns *ns, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct nlattr *tb[IFLA_MAX + 1];
	const char *name;
	struct cg_wdev *d, *a;
	bool facing, match;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	cg_nl_parse(h, sizeof(*ifi), tb, IFLA_MAX);
	name = cg_nla_str(tb[IFLA_IFNAME]);
	facing = cg_is_guest_facing(w, tb);
	d = cg_wdev_find(ns, ifi->ifi_index);
	if (h->nlmsg_type == RTM_DELLINK) {
		if (d)
			cg_wdev_del(ns, d);
		if (!w->no_containers)
			cg_wpair_event(ns, h, tb);
		return;
	}
	if (!name || strlen(name) >= IF_NAMESIZE)
		return;
	if (!facing && !w->no_containers)
		cg_wpair_event(ns, h, tb);
	match = facing && cg_wmatch(w, name);
	if (!d) {
		if (!match)
			return;
		if (ns->ndevs == ns->cap) {
			a = realloc(ns->devs, (ns->cap * 2 + 4) * sizeof(*a));
			if (!a)
				return;
			ns->devs = a;
			ns->cap = ns->cap * 2 + 4;
		}
		d = &ns->devs[ns->ndevs++];
		memset(d, 0, sizeof(*d));
		d->ifindex = ifi->ifi_index;
		snprintf(d->name, sizeof(d->name), "%s", name);
		d->state = CG_W_TODO;
		return;
	}
	if (!strcmp(d->name, name))
		return;
	/* renamed: a guard stays with its device; a failed one is tried anew */
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (d->state == CG_W_DONE)
		return;
	if (match)
		d->state = CG_W_TODO;
	else
		cg_wdev_del(ns, d);
}
