// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * detach.c - csum-guard syncookie detach: one responder, or every one of
 * a namespace or of the host, and what responders of devices or
 * namespaces that are gone left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "cli.h"
#include "compat.h"
#include "json.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "sc.h"
#include "syncookie.skel.h"

/* cg_state_gone_netns(): a responder of a namespace that is gone */
static int sc_forget_dead(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct sc_target t = { .ino = ino, .ifindex = ifindex };

	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	/* whatever it hooked went with the namespace: only the pins are left */
	sc_remove(&t, NULL, false);
	return 0;
}

/* cg_state_gone_devs(): a responder of a device gone from our namespace */
static int sc_forget_gone(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct sc_target *t = arg;
	struct sc_meta m;

	t->ifindex = ifindex;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	/* in its namespace, which is ours now: its nft table and sysctl too */
	if (sc_map_get(t, SC_PIN_META, &m, 0))
		sc_remove(t, NULL, false);
	else
		sc_remove(t, &m, m.netns_cookie == t->cookie);
	return 0;
}

/*
 * Responders recorded under a's device that is gone from the namespace
 * entered (t as sc_resolve left it), or under a's namespace that is gone
 * (t->ino 0): removed, never touching a device that now has the name or
 * the ifindex. How many.
 */
static int sc_forget(const struct sc_args *a, struct sc_target *t)
{
	if (!t->ino)
		return cg_state_gone_netns(SC_PIN_ROOT, a->netns ?: "", a->dev, sc_forget_dead, NULL);
	return cg_state_gone_devs(SC_PIN_ROOT, t->ino, a->dev, sc_forget_gone, t);
}

int sc_detach(const struct sc_args *a)
{
	struct sc_target t;
	struct sc_meta m;
	bool live = false;
	int err, gone;

	if (cg_cli_need_root("detach"))
		return 1;
	err = sc_resolve(a, &t, "detach from", SC_LOCK | SC_GONE_OK);
	if (err && err != -ENODEV && err != -ENOENT)
		return 1;
	if (!err && !sc_map_get(&t, SC_PIN_META, &m, 0)) {
		live = sc_live(&t, &m) || sc_outdated(&t, &m);
		sc_remove(&t, &m, m.netns_cookie == t.cookie);
	}
	/* a device (or namespace) of that name that is gone, or was made again */
	gone = sc_forget(a, &t);
	/*
	 * and any other device gone from this namespace under its responder:
	 * so that the sysctl one of them set comes back with the last detach
	 * here, whatever name it is given
	 */
	if (t.ino) {
		struct sc_target g = { .ino = t.ino, .cookie = t.cookie };

		cg_state_gone_devs(SC_PIN_ROOT, t.ino, NULL, sc_forget_gone, &g);
	}
	if (live)
		cg_info("detached the SYN responder from %s", a->dev);
	if (gone && err == -ENOENT)
		cg_info("netns %s is gone: removed the state of %d responder%s it had", a->netns,
			gone, gone > 1 ? "s" : "");
	else if (gone)
		cg_info("%s is gone: removed the state of the responder it had", a->dev);
	if (!live && !gone)
		cg_info("%s is not answering SYNs", a->dev);
	return 0;
}

/* syncookie detach --all: every responder of a namespace, or of the host */
struct sc_all {
	const char *label;	/* the namespace being walked, NULL: ours */
	__u64 cookie;
	__u64 *seen;		/* the inodes of the namespaces walked */
	int nseen, n;
};

static int sc_detach_one(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct sc_all *d = arg;
	struct sc_target t = { .ino = ino, .cookie = d->cookie, .ifindex = ifindex };
	char name[IF_NAMESIZE] = "?", dev[4 * IF_NAMESIZE + 1], ns[4 * PATH_MAX + 1];
	struct sc_meta m;
	bool live = false;

	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	if_indextoname(ifindex, name);
	if (!sc_map_get(&t, SC_PIN_META, &m, 0)) {
		live = sc_live(&t, &m) || sc_outdated(&t, &m);
		sc_remove(&t, &m, m.netns_cookie == t.cookie);
	} else {
		sc_remove(&t, NULL, false);
	}
	if (live) {
		d->n++;
		cg_info("detached the SYN responder from %s%s%s", cg_text_safe(name, dev, sizeof(dev)),
			d->label ? " in netns " : "",
			d->label ? cg_text_safe(d->label, ns, sizeof(ns)) : "");
	}
	return 0;
}

/* A namespace's directory once its responders are gone (if empty) */
static void sc_rmdir_ns(__u64 ino)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%llu", SC_PIN_ROOT, (unsigned long long)ino);
	rmdir(dir);
}

/* In the namespace entered (ino; label NULL: ours) */
static int sc_detach_here(const char *label, __u64 ino, void *arg)
{
	struct sc_all *d = arg;
	__u64 *s = realloc(d->seen, (d->nseen + 1) * sizeof(*s));

	if (s) {
		d->seen = s;
		d->seen[d->nseen++] = ino;
	}
	d->label = label;
	if (cg_netns_cookie(&d->cookie))
		d->cookie = 0;
	cg_state_each_dev(SC_PIN_ROOT, ino, sc_detach_one, d);
	sc_rmdir_ns(ino);
	return 0;
}

/* The state of namespaces no longer on the host: only pins are left */
static int sc_detach_dead(__u64 ino, void *arg)
{
	struct sc_all *d = arg;
	int i;

	for (i = 0; i < d->nseen; i++)
		if (d->seen[i] == ino)
			return 0;
	cg_state_each_dev(SC_PIN_ROOT, ino, sc_forget_dead, NULL);
	sc_rmdir_ns(ino);
	return 0;
}

int sc_detach_all(const struct sc_args *a)
{
	struct sc_all d = {};
	struct sc_target t;
	struct cg_ack ack = {};
	char ns[4 * PATH_MAX + 1];
	int err;

	if (cg_cli_need_root("detach"))
		return 1;
	if (sc_resolve(a, &t, "detach from", SC_LOCK))
		return 1;
	sc_detach_here(a->netns, t.ino, &d);
	if (!a->netns) {
		err = cg_state_each_netns(SC_PIN_ROOT, sc_detach_here, &d, &ack);
		if (err) {
			cg_err("cannot detach from every namespace: %s", cg_ack_why(&ack, err));
			free(d.seen);
			return 1;
		}
		cg_state_each_ns(SC_PIN_ROOT, sc_detach_dead, &d);
	}
	free(d.seen);
	if (!d.n)
		cg_info("no device answering SYNs%s%s", a->netns ? " in netns " : "",
			a->netns ? cg_text_safe(a->netns, ns, sizeof(ns)) : "");
	else
		cg_info("detached %d SYN responder%s", d.n, d.n == 1 ? "" : "s");
	return 0;
}
