// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* state.c - the state protocol both guards share (see state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bpffs.h"
#include "json.h"
#include "log.h"
#include "netns.h"
#include "state.h"

int cg_lock_wait = -1;

int cg_lock_host(struct cg_ack *ack)
{
	int fd = open(CG_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600), err;
	struct timespec now, end, tick = { 0, 20 * 1000 * 1000 };

	if (fd < 0)
		goto fail;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;	/* held until exit */
	if (errno != EWOULDBLOCK)
		goto fail;
	if (cg_lock_wait < 0) {
		/* another command changes state now: say why we wait (not with --quiet) */
		cg_info("waiting for %s: another csum-guard command holds it", CG_LOCK_PATH);
		if (!flock(fd, LOCK_EX))
			return 0;
		goto fail;
	}
	if (cg_lock_wait)
		cg_info("waiting up to %d s for %s: another csum-guard command holds it",
			cg_lock_wait, CG_LOCK_PATH);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += cg_lock_wait;
	for (;;) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK)
			goto fail;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		nanosleep(&tick, NULL);
	}
	close(fd);
	return cg_ack_err(ack, -EBUSY, "another csum-guard command holds %s (gave up after --wait %d)",
			  CG_LOCK_PATH, cg_lock_wait);
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	return cg_ack_err(ack, err, "cannot take %s: %s", CG_LOCK_PATH, strerror(-err));
}

const char *cg_target_where(const struct cg_target *t, char *buf, size_t n)
{
	char dev[4 * IF_NAMESIZE + 1], ns[256];

	snprintf(buf, n, "%s%s%s", t->dev ? cg_text_safe(t->dev, dev, sizeof(dev)) :
		 "the namespace's devices", t->netns ? " in netns " : "",
		 t->netns ? cg_text_safe(t->netns, ns, sizeof(ns)) : "");
	return buf;
}

static int cg_target_resolve_flags(struct cg_target *t, const char *dev, const char *netns,
				   struct cg_ack *ack, bool gone_ok)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->dev = dev;
	t->netns = netns;
	/* -ENOENT: a namespace that is not there (gone, or never made) */
	err = cg_netns_join(netns, ack);
	if (err)
		return err;
	err = cg_netns_ino(&t->netns_ino);
	if (!err)
		err = cg_netns_cookie(&t->netns_cookie);
	if (err)
		return cg_ack_err(ack, err, "cannot identify its network namespace: %s",
				  strerror(-err));
	if (!dev)
		return 0;
	t->ifindex = if_nametoindex(dev);
	if (!t->ifindex) {
		err = -errno;
		if (gone_ok && err == -ENODEV)
			return err;
		return cg_ack_err(ack, err, "%s", err == -ENODEV ? "no such device" : strerror(-err));
	}
	return 0;
}

int cg_target_resolve(struct cg_target *t, const char *dev, const char *netns,
		      struct cg_ack *ack)
{
	return cg_target_resolve_flags(t, dev, netns, ack, false);
}

int cg_target_resolve_gone(struct cg_target *t, const char *dev, const char *netns,
			   struct cg_ack *ack)
{
	return cg_target_resolve_flags(t, dev, netns, ack, true);
}

int cg_state_names_put(const char *dir, const struct cg_target *t)
{
	struct cg_state_names n;
	char path[PATH_MAX];

	memset(&n, 0, sizeof(n));
	snprintf(n.dev, sizeof(n.dev), "%s", t->dev ?: "");
	snprintf(n.netns, sizeof(n.netns), "%s", t->netns ?: "");
	cg_state_pin(path, sizeof(path), dir, CG_PIN_NAMES);
	return cg_pin_array_put(path, "cg_names", &n, sizeof(n));
}

int cg_state_names_get(const char *dir, struct cg_state_names *n)
{
	char path[PATH_MAX];
	int err;

	cg_state_pin(path, sizeof(path), dir, CG_PIN_NAMES);
	err = cg_pin_array_get(path, 0, n);
	if (!err) {
		n->dev[sizeof(n->dev) - 1] = '\0';
		n->netns[sizeof(n->netns) - 1] = '\0';
	}
	return err;
}

void cg_state_names_refresh(const char *dir, const struct cg_target *t)
{
	struct cg_state_names n;

	if (cg_state_names_get(dir, &n) || strcmp(n.dev, t->dev ?: "") ||
	    strcmp(n.netns, t->netns ?: ""))
		cg_state_names_put(dir, t);
}

int cg_state_each_dev(const char *root, __u64 ino, cg_state_fn fn, void *arg)
{
	char nsdir[PATH_MAX], dir[PATH_MAX + 256];
	struct dirent *de;
	int ret = 0, ifindex;
	DIR *d;

	snprintf(nsdir, sizeof(nsdir), "%s/%llu", root, (unsigned long long)ino);
	d = opendir(nsdir);
	while (!ret && d && (de = readdir(d))) {
		ifindex = atoi(de->d_name);
		if (ifindex <= 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", nsdir, de->d_name);
		ret = fn(dir, ino, ifindex, arg);
	}
	if (d)
		closedir(d);
	return ret;
}

int cg_state_each_ns(const char *root, int (*fn)(__u64 ino, void *arg), void *arg)
{
	struct dirent *de;
	int ret = 0;
	__u64 ino;
	DIR *r;

	r = opendir(root);
	while (!ret && r && (de = readdir(r))) {
		ino = strtoull(de->d_name, NULL, 10);
		if (!ino)
			continue;
		ret = fn(ino, arg);
	}
	if (r)
		closedir(r);
	return ret;
}

/* What the walks over the state of what is gone look for, and found */
struct cg_gone {
	const char *root;
	const char *netns;	/* NULL: any namespace */
	const char *dev;	/* NULL: any device */
	bool dev_gone;		/* only devices no longer in our namespace */
	__u64 *live;		/* the inodes of the host's namespaces */
	int n_live;
	cg_state_fn fn;
	void *arg;
	int cnt;
};

static int cg_gone_dev(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct cg_gone *g = arg;
	struct cg_state_names n;
	char name[IF_NAMESIZE];

	if (g->dev_gone && if_indextoname(ifindex, name))
		return 0;	/* a device that is still there */
	if (cg_state_names_get(dir, &n) || (g->dev && strcmp(n.dev, g->dev)) ||
	    (g->netns && strcmp(n.netns, g->netns)))
		return 0;
	g->cnt++;
	return g->fn(dir, ino, ifindex, g->arg);
}

int cg_state_gone_devs(const char *root, __u64 ino, const char *dev, cg_state_fn fn, void *arg)
{
	struct cg_gone g = { .dev = dev, .dev_gone = true, .fn = fn, .arg = arg };

	cg_state_each_dev(root, ino, cg_gone_dev, &g);
	return g.cnt;
}

static void cg_live_add(const struct cg_netns_ref *ref, void *arg)
{
	struct cg_gone *g = arg;
	__u64 *ino = realloc(g->live, (g->n_live + 1) * sizeof(*ino));

	if (ino) {
		g->live = ino;
		g->live[g->n_live++] = ref->ino;
	}
}

static int cg_gone_ns(__u64 ino, void *arg)
{
	struct cg_gone *g = arg;
	int i;

	for (i = 0; i < g->n_live; i++)
		if (g->live[i] == ino)
			return 0;	/* a namespace that is still there */
	return cg_state_each_dev(g->root, ino, cg_gone_dev, g);
}

int cg_state_gone_netns(const char *root, const char *netns, const char *dev,
			cg_state_fn fn, void *arg)
{
	struct cg_gone g = { .root = root, .netns = netns, .dev = dev, .fn = fn, .arg = arg };
	__u64 self;

	if (cg_netns_ino(&self))
		return 0;
	cg_live_add(&(struct cg_netns_ref){ .ino = self }, &g);
	cg_netns_scan(cg_live_add, &g);
	cg_state_each_ns(root, cg_gone_ns, &g);
	free(g.live);
	return g.cnt;
}

void cg_state_dir(char *buf, size_t n, const char *root, __u64 ino, int ifindex)
{
	if (snprintf(buf, n, "%s/%llu/%d", root, (unsigned long long)ino, ifindex) >= (int)n)
		buf[0] = '\0';
}

void cg_state_pin(char *buf, size_t n, const char *dir, const char *name)
{
	/* an over-long path names nothing rather than something else */
	if (snprintf(buf, n, "%s/%s", dir, name) >= (int)n)
		buf[0] = '\0';
}

/* the namespace directory of a device directory */
static void cg_state_nsdir(char *buf, size_t n, const char *dir)
{
	char *slash;

	snprintf(buf, n, "%s", dir);
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

int cg_state_mkdirs(const char *root, const char *dir)
{
	char nsdir[PATH_MAX];
	int err;

	if (!*dir)
		return -ENAMETOOLONG;
	cg_state_nsdir(nsdir, sizeof(nsdir), dir);
	err = cg_mkdir(root);
	if (!err)
		err = cg_mkdir(nsdir);
	if (!err)
		err = cg_mkdir(dir);
	return err;
}

void cg_state_unpin(const char *root, const char *dir, const char *const *names,
		    unsigned int n)
{
	char path[PATH_MAX];
	unsigned int i;

	if (!*dir)
		return;
	for (i = 0; i < n; i++) {
		cg_state_pin(path, sizeof(path), dir, names[i]);
		if (*path)
			unlink(path);
	}
	rmdir(dir);
	/* the namespace directory goes with its last device, the root with the last namespace */
	cg_state_nsdir(path, sizeof(path), dir);
	rmdir(path);
	rmdir(root);
}

/* The host's namespaces other than ours, once each: by name when they have one. */
struct cg_nsent {
	__u64 ino;
	int order;		/* as found: names first, then processes */
	char *label;
};

struct cg_nslist {
	const char *root;
	__u64 self;
	struct cg_nsent *e;
	int n, cap;
};

static void cg_nslist_add(const struct cg_netns_ref *ref, void *arg)
{
	struct cg_nslist *l = arg;
	char dir[PATH_MAX];
	struct cg_nsent *e;

	if (ref->ino == l->self)
		return;
	if (l->root) {
		snprintf(dir, sizeof(dir), "%s/%llu", l->root, (unsigned long long)ref->ino);
		if (access(dir, F_OK))
			return;
	}
	if (l->n == l->cap) {
		e = realloc(l->e, (l->cap * 2 + 64) * sizeof(*e));
		if (!e)
			return;
		l->e = e;
		l->cap = l->cap * 2 + 64;
	}
	e = &l->e[l->n];
	e->label = strdup(ref->name ?: ref->path);
	if (!e->label)
		return;
	e->ino = ref->ino;
	e->order = l->n++;
}

static int cg_nsent_by_ino(const void *a, const void *b)
{
	const struct cg_nsent *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cg_nsent_by_order(const void *a, const void *b)
{
	const struct cg_nsent *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Each namespace once, under the first way found to it, in the order found:
 * a sort, not a search per way (a host has a process or more per VM). */
static void cg_nslist_dedup(struct cg_nslist *l)
{
	int i, n = 0;

	qsort(l->e, l->n, sizeof(*l->e), cg_nsent_by_ino);
	for (i = 0; i < l->n; i++) {
		if (n && l->e[n - 1].ino == l->e[i].ino) {
			free(l->e[i].label);
			continue;
		}
		l->e[n++] = l->e[i];
	}
	l->n = n;
	qsort(l->e, l->n, sizeof(*l->e), cg_nsent_by_order);
}

int cg_state_each_netns(const char *root, int (*fn)(const char *label, __u64 ino, void *arg),
			void *arg, struct cg_ack *ack)
{
	struct cg_nslist l = { .root = root };
	__u64 ino;
	int i, fd, err;

	err = cg_netns_ino(&l.self);
	if (err)
		return err;
	cg_netns_scan(cg_nslist_add, &l);
	cg_nslist_dedup(&l);
	for (i = 0; i < l.n && !err; i++) {
		fd = cg_netns_open(l.e[i].label);
		if (fd < 0)
			continue;
		/* a /proc/PID that now leads elsewhere is not the namespace found */
		if (!cg_netns_enter(fd) && !cg_netns_ino(&ino) && ino == l.e[i].ino)
			err = fn(l.e[i].label, ino, arg);
		close(fd);
		if (cg_netns_restore())
			err = cg_ack_err(ack, -EIO, "cannot return to our network namespace");
	}
	/* the labels stay until exit: callers keep pointers to them */
	free(l.e);
	return err;
}
