// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ns.c - what the watcher sees of the host: every network namespace, by
 * name (/run/netns) or by process (/proc/PID/ns/net). No descriptor is kept
 * on a namespace, and no more than a 40-byte record while it holds no
 * device of ours: it is entered again by its name or process, only when
 * that still leads to the inode meant. Its devices: links.c. Namespaces of
 * other user namespaces are counted, not watched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "log.h"
#include "netns.h"
#include "notify.h"
#include "watch_int.h"

/* --- a namespace's record ---------------------------------------------- */

/* For the log: its name, else its process's path, else its inode */
const char *cg_wns_label(const struct cg_wns *ns, char *buf, size_t n)
{
	if (ns->name)
		return cg_text_safe(ns->name, buf, n);
	if (ns->pid)
		snprintf(buf, n, "/proc/%d/ns/net", ns->pid);
	else
		snprintf(buf, n, "%llu", (unsigned long long)ns->ino);
	return buf;
}

static void cg_wname_one(const struct cg_netns_ref *r, void *arg)
{
	struct cg_wns *ns = arg;

	if (!ns->name && r->name && r->ino == ns->ino)
		ns->name = strdup(r->name);
}

/* Its name kept (a device of ours is in it now): looked up again in
 * /run/netns, where the last scan saw one */
void cg_wns_keep_name(struct cg_wns *ns)
{
	if (ns->named && !ns->name)
		cg_netns_scan_named(cg_wname_one, ns);
}

/* Its way in, for attach --netns and cg_wns_open(): its name, else its
 * process's path; NULL for our own namespace */
const char *cg_wns_way(struct cg_wns *ns, char *buf, size_t n)
{
	if (ns->own)
		return NULL;
	cg_wns_keep_name(ns);
	if (ns->name)
		return ns->name;
	snprintf(buf, n, "/proc/%d/ns/net", ns->pid);
	return buf;
}

/*
 * Enter ns by the way the last scan found to it (its name or a process),
 * only if that still leads to the inode meant: -ESTALE when it leads
 * elsewhere (the process gone and its PID reused), -errno. Our own
 * namespace is where we are: nothing to enter. cg_netns_return() after 0.
 */
static int cg_wns_open(struct cg_wns *ns)
{
	char way[CG_WNS_WAY_MAX];
	struct stat st;
	int fd, err;

	fd = cg_netns_open(ns->own ? "/proc/self/ns/net" : cg_wns_way(ns, way, sizeof(way)));
	if (fd < 0)
		return fd;
	err = fstat(fd, &st) ? -errno : st.st_ino != ns->ino ? -ESTALE : 0;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cg_wns_enter(struct cg_wns *ns)
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

/* ns reached and logged by its name from now on (kept while it holds a
 * device of ours) */
static void cg_wns_name(struct cg_wns *ns, const char *name)
{
	char a[4 * CG_LABEL_MAX], b[4 * CG_LABEL_MAX];

	printf("netns %s: named %s\n", cg_wns_label(ns, a, sizeof(a)),
	       cg_text_safe(name, b, sizeof(b)));
	free(ns->name);
	ns->name = ns->ndevs ? strdup(name) : NULL;
	ns->named = true;
}

/*
 * w->ns and w->skip: records that begin with their namespace's inode,
 * sorted by it. One found by bsearch; one made in its place, zeroed but
 * for its inode, the array grown by step first where it is full (NULL
 * without memory). Records move: no pointer to one is kept across this.
 */
_Static_assert(offsetof(struct cg_wns, ino) == 0 && offsetof(struct cg_wskip, ino) == 0,
	       "the inode leads both records");

static int cg_wino_cmp(const void *key, const void *rec)
{
	__u64 x = *(const __u64 *)key, y = *(const __u64 *)rec;

	return x < y ? -1 : x > y;
}

static void *cg_wino_find(void *arr, int n, size_t size, __u64 ino)
{
	return n ? bsearch(&ino, arr, n, size, cg_wino_cmp) : NULL;
}

static void *cg_wino_insert(void *arr, int *n, int *cap, size_t size, int step, __u64 ino,
			    void **grown)
{
	char *a = arr;
	int i;

	if (*n == *cap) {
		a = realloc(arr, (*cap * 2 + step) * size);
		if (!a)
			return NULL;
		*grown = a;
		*cap = *cap * 2 + step;
	}
	for (i = *n; i > 0 && *(const __u64 *)(a + (i - 1) * size) > ino; i--)
		;
	memmove(a + (i + 1) * size, a + i * size, (*n - i) * size);
	(*n)++;
	memset(a + i * size, 0, size);
	*(__u64 *)(a + i * size) = ino;
	return a + i * size;
}

static struct cg_wns *cg_wns_find(struct cg_watch *w, __u64 ino)
{
	return cg_wino_find(w->ns, w->nns, sizeof(*w->ns), ino);
}

static struct cg_wns *cg_wns_insert(struct cg_watch *w, __u64 ino)
{
	void *grown = w->ns;
	struct cg_wns *ns;

	ns = cg_wino_insert(w->ns, &w->nns, &w->nscap, sizeof(*w->ns), 16, ino, &grown);
	w->ns = grown;
	return ns;
}

static void cg_wns_free(struct cg_wns *ns)
{
	free(ns->name);
	free(ns->devs);
}

void cg_wns_free_all(struct cg_watch *w)
{
	int i;

	for (i = 0; i < w->nns; i++)
		cg_wns_free(&w->ns[i]);
	free(w->ns);
	w->ns = NULL;
	w->nns = w->nscap = 0;
}

static struct cg_wskip *cg_wskip_find(struct cg_watch *w, __u64 ino)
{
	return cg_wino_find(w->skip, w->nskip, sizeof(*w->skip), ino);
}

/* A namespace of another user namespace, counted and left (design.md:
 * "Namespaces of other user namespaces") */
static void cg_wskip_add(struct cg_watch *w, __u64 ino, __u32 uid)
{
	void *grown = w->skip;
	struct cg_wskip *k;

	k = cg_wino_insert(w->skip, &w->nskip, &w->skipcap, sizeof(*w->skip), 64, ino, &grown);
	w->skip = grown;
	if (k) {
		k->uid = uid;
		k->gen = w->gen;
	}
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


/* --- finding them ------------------------------------------------------ */

/*
 * A namespace seen for the first time at path (its name, or a process's
 * path and pid): watched when it is of our user namespace (an id given,
 * its links dumped), counted in w->skip when it is of another. NULL when
 * not watched.
 */
static struct cg_wns *cg_wns_add(struct cg_watch *w, __u64 ino, const char *path,
				 const char *name, int pid)
{
	char safe[4 * CG_LABEL_MAX];
	const char *label = name ?: path;
	struct cg_wns *ns;
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
	ns = cg_wns_insert(w, ino);
	if (!ns)
		return NULL;
	/* ids are unique among live namespaces: one that had it is gone */
	for (i = 0; i < w->nns; i++)
		if (nsid >= 0 && w->ns[i].nsid == nsid && &w->ns[i] != ns)
			w->ns[i].nsid = -2;
	ns->own = ino == w->own_ino;
	ns->named = !!name;
	ns->pid = pid;
	ns->nsid = nsid;
	printf("watching netns %s\n", cg_text_safe(label, safe, sizeof(safe)));
	/* its name at hand while its first dump may find a device of ours */
	ns->name = name ? strdup(name) : NULL;
	cg_wdump(w, ns);
	if (!ns->ndevs) {
		free(ns->name);
		ns->name = NULL;
	}
	return ns;
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
	if (!ns) {
		ns = cg_wns_add(w, r->ino, r->path, r->name, r->name ? 0 : r->pid);
		if (!ns)
			return;
	}
	ns->seen = true;
	if (r->name) {
		/* it has a name now, or another one: the name reads better */
		if (!ns->named_now && (!ns->named || (ns->name && strcmp(ns->name, r->name))))
			cg_wns_name(ns, r->name);
		ns->named_now = true;
	} else if (!ns->pid_now) {
		ns->pid = r->pid;
		ns->pid_now = true;
	}
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
	int i, n;

	if (w->wd < 0)
		w->wd = inotify_add_watch(w->ifd, CG_NETNS_RUN_DIR, IN_CREATE | IN_DELETE |
					  IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
					  IN_MOVE_SELF | IN_ONLYDIR);
	for (i = 0; i < w->nns; i++)
		w->ns[i].seen = w->ns[i].named_now = w->ns[i].pid_now = false;
	w->gen++;
	pending = cg_netns_scan(cg_wscan_one, w);
	cg_wskip_prune(w);
	cg_wskip_say(w);

	for (i = n = 0; i < w->nns; i++) {
		ns = &w->ns[i];
		if (!ns->seen) {
			printf("forgot netns %s: no name or process left\n",
			       cg_wns_label(ns, safe, sizeof(safe)));
			cg_wgone_add(w, ns->ino);
			cg_wns_free(ns);
			continue;
		}
		/* its first process: its exit (the proc connector) may be the
		 * namespace's end */
		if (!ns->pid_now)
			ns->pid = 0;
		if (!ns->named_now) {
			ns->named = false;
			free(ns->name);
			ns->name = NULL;
		}
		/* an id freed (RTM_DELNSID) and the namespace still here: again */
		if (ns->nsid == -2) {
			int fd = cg_wns_open(ns);

			if (fd >= 0) {
				ns->nsid = cg_wnsid(w, fd, !ns->own);
				ns->dump = ns->nsid >= 0 || ns->own;
				close(fd);
			}
			if (!ns->ndevs) {
				free(ns->name);
				ns->name = NULL;
			}
		}
		w->ns[n++] = *ns;
	}
	w->nns = n;
	return pending;
}

/*
 * Between scans: a namespace that an event says may be new (a name bound
 * in /run/netns, a process that exec'd) is added at once, and its link
 * dump asked for, without a walk over every process. The next scan takes
 * it over as if it had found it.
 */
void cg_wfound(const struct cg_netns_ref *r, void *arg)
{
	struct cg_watch *w = arg;
	struct cg_wns *ns = cg_wns_find(w, r->ino);
	struct cg_wskip *k;

	/* known by a process only (found at its exec, before its name was
	 * bound): the name outlives the process */
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
	ns = cg_wns_add(w, r->ino, r->path, r->name, r->pid);
	if (ns)
		ns->seen = true;
}

/* The names of /run/netns only: true when one is not a namespace yet */
bool cg_wscan_named(struct cg_watch *w)
{
	return cg_netns_scan_named(cg_wfound, w);
}
