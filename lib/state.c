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
#include <unistd.h>

#include "bpffs.h"
#include "log.h"
#include "netns.h"
#include "state.h"

int cg_lock_host(void)
{
	int fd = open(CG_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600), err;

	if (fd < 0 || flock(fd, LOCK_EX)) {
		err = -errno;	/* before the message can change errno */
		cg_err("cannot take %s: %s", CG_LOCK_PATH, strerror(-err));
		return err;
	}
	return 0;	/* held until exit */
}

const char *cg_target_where(const struct cg_target *t, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", t->dev ?: "the namespace's devices",
		 t->netns ? " in netns " : "", t->netns ?: "");
	return buf;
}

static int cg_target_resolve_flags(struct cg_target *t, const char *dev, const char *netns,
				   const char *verb, bool gone_ok)
{
	char where[IF_NAMESIZE + PATH_MAX];
	int err, fd;

	memset(t, 0, sizeof(*t));
	t->dev = dev;
	t->netns = netns;
	if (gone_ok && netns && !strchr(netns, '/')) {
		/* a name that is not there: gone, or never made */
		fd = cg_netns_open(netns);
		if (fd == -ENOENT)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	err = cg_netns_join(netns, verb);
	if (err)
		return err;
	err = cg_netns_ino(&t->netns_ino);
	if (!err)
		err = cg_netns_cookie(&t->netns_cookie);
	if (err) {
		cg_err("cannot %s %s: cannot identify its network namespace: %s", verb,
		       cg_target_where(t, where, sizeof(where)), strerror(-err));
		return err;
	}
	if (!dev)
		return 0;
	t->ifindex = if_nametoindex(dev);
	if (!t->ifindex) {
		err = -errno;
		if (gone_ok && err == -ENODEV)
			return err;
		cg_err("cannot %s %s: %s", verb, cg_target_where(t, where, sizeof(where)),
		       err == -ENODEV ? "No such device" : strerror(-err));
		return err;
	}
	return 0;
}

int cg_target_resolve(struct cg_target *t, const char *dev, const char *netns,
		      const char *verb)
{
	return cg_target_resolve_flags(t, dev, netns, verb, false);
}

int cg_target_resolve_gone(struct cg_target *t, const char *dev, const char *netns,
			   const char *verb)
{
	return cg_target_resolve_flags(t, dev, netns, verb, true);
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

int cg_state_gone_devs(const char *root, __u64 ino, const char *dev, cg_state_fn fn, void *arg)
{
	char nsdir[PATH_MAX], dir[PATH_MAX + 256], name[IF_NAMESIZE];
	struct cg_state_names n;
	struct dirent *de;
	int cnt = 0, ifindex;
	DIR *d;

	snprintf(nsdir, sizeof(nsdir), "%s/%llu", root, (unsigned long long)ino);
	d = opendir(nsdir);
	while (d && (de = readdir(d))) {
		ifindex = atoi(de->d_name);
		if (ifindex <= 0 || if_indextoname(ifindex, name))
			continue;	/* not a device, or one that is still there */
		snprintf(dir, sizeof(dir), "%s/%s", nsdir, de->d_name);
		if (cg_state_names_get(dir, &n) || strcmp(n.dev, dev))
			continue;
		fn(dir, ino, ifindex, arg);
		cnt++;
	}
	if (d)
		closedir(d);
	return cnt;
}

/* the inodes of the host's network namespaces, as cg_netns_scan() finds them */
struct cg_live {
	__u64 *ino;
	int n;
};

static void cg_live_add(const struct cg_netns_ref *ref, void *arg)
{
	struct cg_live *l = arg;
	__u64 *ino = realloc(l->ino, (l->n + 1) * sizeof(*ino));

	if (ino) {
		l->ino = ino;
		l->ino[l->n++] = ref->ino;
	}
}

int cg_state_gone_netns(const char *root, const char *netns, const char *dev,
			cg_state_fn fn, void *arg)
{
	char nsdir[PATH_MAX], dir[PATH_MAX + 256];
	struct cg_live live = {};
	struct dirent *ns, *de;
	struct cg_state_names n;
	DIR *r, *d;
	__u64 ino, self;
	int i, cnt = 0;

	if (cg_netns_ino(&self))
		return 0;
	cg_live_add(&(struct cg_netns_ref){ .ino = self }, &live);
	cg_netns_scan(cg_live_add, &live);
	r = opendir(root);
	while (r && (ns = readdir(r))) {
		ino = strtoull(ns->d_name, NULL, 10);
		if (!ino)
			continue;
		for (i = 0; i < live.n && live.ino[i] != ino; i++)
			;
		if (i < live.n)
			continue;	/* a namespace that is still there */
		snprintf(nsdir, sizeof(nsdir), "%s/%s", root, ns->d_name);
		d = opendir(nsdir);
		while (d && (de = readdir(d))) {
			if (atoi(de->d_name) <= 0)
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", nsdir, de->d_name);
			if (cg_state_names_get(dir, &n) || strcmp(n.netns, netns) ||
			    (dev && strcmp(n.dev, dev)))
				continue;
			fn(dir, ino, atoi(de->d_name), arg);
			cnt++;
		}
		if (d)
			closedir(d);
	}
	if (r)
		closedir(r);
	free(live.ino);
	return cnt;
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
struct cg_nslist {
	const char *root;
	__u64 self;
	__u64 *ino;
	char **label;
	int n;
};

static void cg_nslist_add(const struct cg_netns_ref *ref, void *arg)
{
	struct cg_nslist *l = arg;
	char dir[PATH_MAX];
	char **label;
	__u64 *ino;
	int i;

	if (ref->ino == l->self)
		return;
	if (l->root) {
		snprintf(dir, sizeof(dir), "%s/%llu", l->root, (unsigned long long)ref->ino);
		if (access(dir, F_OK))
			return;
	}
	for (i = 0; i < l->n; i++)
		if (l->ino[i] == ref->ino)
			return;
	ino = realloc(l->ino, (l->n + 1) * sizeof(*ino));
	if (ino)
		l->ino = ino;
	label = realloc(l->label, (l->n + 1) * sizeof(*label));
	if (label)
		l->label = label;
	if (!ino || !label || !(l->label[l->n] = strdup(ref->name ?: ref->path)))
		return;
	l->ino[l->n++] = ref->ino;
}

int cg_state_each_netns(const char *root, int (*fn)(const char *label, __u64 ino, void *arg),
			void *arg)
{
	struct cg_nslist l = { .root = root };
	__u64 ino;
	int i, fd, err;

	err = cg_netns_ino(&l.self);
	if (err)
		return err;
	cg_netns_scan(cg_nslist_add, &l);
	for (i = 0; i < l.n && !err; i++) {
		fd = cg_netns_open(l.label[i]);
		if (fd < 0)
			continue;
		/* a /proc/PID that now leads elsewhere is not the namespace found */
		if (!cg_netns_enter(fd) && !cg_netns_ino(&ino) && ino == l.ino[i])
			err = fn(l.label[i], ino, arg);
		close(fd);
		if (cg_netns_restore()) {
			cg_err("cannot return to our network namespace");
			err = -EIO;
		}
	}
	free(l.ino);
	/* the labels stay until exit: callers keep pointers to them */
	free(l.label);
	return err;
}
