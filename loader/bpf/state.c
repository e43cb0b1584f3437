// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * state.c - the bpf backend's state of one device on bpffs (see
 * backend.c for its layout): its meta, which hooks run a program of
 * ours, whether the state is ours and live, its removal, and the
 * host-wide prune of devices that are gone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "guard.h"

const struct cg_hook_desc cg_hooks[CG_HOOK_MAX] = {
	[CG_HOOK_INGRESS] = { CG_PIN_LINK, CG_BPF_TCX_INGRESS, BPF_TC_INGRESS },
	[CG_HOOK_EGRESS] = { CG_PIN_LINK_EGRESS, CG_BPF_TCX_EGRESS, BPF_TC_EGRESS },
};

const char *cg_mode_name(__u32 mode)
{
	return mode == CG_MODE_TCX ? "tcx" : mode == CG_MODE_CLSACT ? "clsact" : "?";
}

int cg_meta_read(const char *dir, struct cg_meta *m)
{
	char path[PATH_MAX];

	cg_state_pin(path, sizeof(path), dir, CG_PIN_META);
	return cg_pin_array_get(path, 0, m);
}

/*
 * Key 0 of the one-entry array map pinned at path, created and pinned
 * under name if it is not there yet: the state a guard keeps in bpffs.
 */

int cg_meta_write(const char *dir, const struct cg_meta *m)
{
	char path[PATH_MAX];

	cg_state_pin(path, sizeof(path), dir, CG_PIN_META);
	return cg_pin_array_put(path, "cg_meta", m, sizeof(*m));
}

/* Does the state guard this hook? */
static bool cg_meta_hooks(const struct cg_meta *m, enum cg_hook h)
{
	return h == CG_HOOK_INGRESS || (m->flags & CG_F_EGRESS);
}

/*
 * The device of the tcx link pinned for hook h, 0 once the device is gone;
 * -errno without a link, -EINVAL for a link that is not that hook's.
 * prog_id (if not NULL) gets the program the link runs.
 */
static int cg_tcx_link_ifindex(const char *dir, enum cg_hook h, __u32 *prog_id)
{
	struct cg_tcx_link_info info;
	char path[PATH_MAX];
	int err;

	cg_state_pin(path, sizeof(path), dir, cg_hooks[h].pin);
	err = cg_pin_link_info(path, &info);
	if (err)
		return err;
	if (info.type != CG_BPF_LINK_TYPE_TCX ||
	    (info.ifindex && info.attach_type != cg_hooks[h].tcx_type))
		return -EINVAL;
	if (prog_id)
		*prog_id = info.prog_id;
	return info.ifindex;
}

void cg_tc_hook_init(struct bpf_tc_hook *hook, int ifindex, enum cg_hook h)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = cg_hooks[h].tc_point;
}

/* The id of the program, map or link pinned at path, 0 if none. */
__u32 cg_pin_id(const char *path)
{
	/* each info has the id second */
	union {
		struct bpf_prog_info prog;
		struct bpf_map_info map;
		struct bpf_link_info link;
	} info = {};
	__u32 len = sizeof(info);
	int fd, ret;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	return ret ? 0 : info.prog.id;
}

/* The id of the object pinned as name in dir, 0 if none. */
static __u32 cg_pinned_id(const char *dir, const char *name)
{
	char path[PATH_MAX];

	cg_state_pin(path, sizeof(path), dir, name);
	return cg_pin_id(path);
}

/* Does program id use map map_id? */
static bool cg_prog_uses_map(__u32 id, __u32 map_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), maps[16], i;
	int fd, ret;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return false;
	info.nr_map_ids = ARRAY_SIZE(maps);
	info.map_ids = (__u64)(unsigned long)maps;
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (ret)
		return false;
	for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(maps); i++)
		if (maps[i] == map_id)
			return true;
	return false;
}

/*
 * Is program id, found at our clsact handle, ours? meta names it; or the
 * pin does (an update pins the new program before it swaps it in, and may
 * be killed before it rewrites meta); or it counts into our counters map
 * (an update killed between two pins and swaps left an older one).
 */
static bool cg_clsact_ours(const char *dir, const struct cg_meta *m, __u32 id)
{
	__u32 map_id;

	if (!id)
		return false;
	if (id == m->prog_id || id == cg_pinned_id(dir, CG_PIN_PROG))
		return true;
	map_id = cg_pinned_id(dir, CG_PIN_COUNTERS);
	if (map_id && cg_prog_uses_map(id, map_id))
		return true;
	/* or a guard program of the host's (it counts per device) */
	map_id = (m->flags & CG_META_DEVCNT) ? cg_devcnt_id() : 0;
	return map_id && cg_prog_uses_map(id, map_id);
}

/* The program of ours that hook h of ifindex runs, 0 if none. */
__u32 cg_hook_prog(const char *dir, int ifindex, const struct cg_meta *m,
		   enum cg_hook h)
{
	__u32 id = 0;

	if (m->mode == CG_MODE_TCX)
		return cg_tcx_link_ifindex(dir, h, &id) == ifindex && ifindex > 0 ? id : 0;
	if (m->mode != CG_MODE_CLSACT || ifindex <= 0)
		return 0;
	id = cg_clsact_prog_id(ifindex, cg_hooks[h].tc_point, CG_TC_HANDLE, CG_TC_PRIO);
	return cg_clsact_ours(dir, m, id) ? id : 0;
}

/*
 * Is the state in dir the guard of t, with its ingress hook running a
 * program of ours? Then an attach can converge it without losing the
 * counters, whatever else a killed run left.
 */
bool cg_state_ours(const char *dir, const struct cg_target *t,
		   const struct cg_meta *m, __u64 cookie)
{
	if (m->abi != CG_ABI_VERSION || m->netns_cookie != cookie ||
	    m->ifindex != (__u32)t->ifindex)
		return false;
	if (m->mode != CG_MODE_TCX && (m->mode != CG_MODE_CLSACT || !m->prog_id))
		return false;
	return cg_hook_prog(dir, t->ifindex, m, CG_HOOK_INGRESS);
}

/* Is the state in dir the guard of t, attached and running right now? */
bool cg_state_live(const char *dir, const struct cg_target *t,
		   const struct cg_meta *m, __u64 cookie)
{
	enum cg_hook h;

	if (!cg_state_ours(dir, t, m, cookie))
		return false;
	/*
	 * Every hook meta names runs the guard, and no other: a run killed
	 * halfway leaves one too few or too many, and the next attach
	 * converges it.
	 */
	for (h = CG_HOOK_INGRESS; h < CG_HOOK_MAX; h++)
		if (!!cg_hook_prog(dir, t->ifindex, m, h) != cg_meta_hooks(m, h))
			return false;
	return true;
}

/*
 * Does meta name the program that runs on every hook of a live state, and
 * (clsact) the one pinned? An update killed half-way leaves them apart.
 */
bool cg_state_settled(const char *dir, const struct cg_target *t,
		      const struct cg_meta *m)
{
	enum cg_hook h;

	for (h = CG_HOOK_INGRESS; h < CG_HOOK_MAX; h++)
		if (cg_meta_hooks(m, h) && cg_hook_prog(dir, t->ifindex, m, h) != m->prog_id)
			return false;
	return m->mode != CG_MODE_CLSACT || cg_pinned_id(dir, CG_PIN_PROG) == m->prog_id;
}

void cg_unpin_all(const char *dir)
{
	static const char *const names[] = {
		CG_PIN_LINK, CG_PIN_LINK_EGRESS, CG_PIN_PROG, CG_PIN_COUNTERS,
		CG_PIN_NAMES, CG_PIN_ORIGIN, CG_PIN_META,
	};

	char nsdir[PATH_MAX], *slash;

	cg_state_unpin(CG_PIN_ROOT, dir, names, ARRAY_SIZE(names));
	/* the last guard of its namespace: was it the host's last? */
	snprintf(nsdir, sizeof(nsdir), "%s", dir);
	slash = strrchr(nsdir, '/');
	if (slash)
		*slash = '\0';
	if (*dir && access(nsdir, F_OK))
		cg_shared_gc();
}

/*
 * Take the guard off hook h: a tcx link is detached and unpinned; a clsact
 * filter at our handle is deleted only if it runs a program of ours
 * (cg_clsact_ours), so that a filter someone put there since stays.
 * ifindex 0: the device is gone, and its filters with it.
 */
void cg_hook_detach(const char *dir, int ifindex, const struct cg_meta *m,
		    enum cg_hook h)
{
	char path[PATH_MAX];
	struct bpf_tc_hook hook;

	if (m->mode == CG_MODE_TCX) {
		cg_state_pin(path, sizeof(path), dir, cg_hooks[h].pin);
		cg_pin_link_detach(path);
		unlink(path);
	} else if (cg_hook_prog(dir, ifindex, m, h)) {
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CG_TC_HANDLE,
			    .priority = CG_TC_PRIO);

		cg_tc_hook_init(&hook, ifindex, h);
		bpf_tc_detach(&hook, &opts);
	}
}

/*
 * Undo what attach did, as far as it got: detach what is attached on
 * either hook (only the filters at our handle that still run our program),
 * destroy a clsact qdisc only if attach created it and nobody else uses
 * it, drop the pins. Only call this inside the namespace of the state.
 */
void cg_state_remove(const char *dir, int ifindex, const struct cg_meta *m)
{
	enum cg_hook h;

	for (h = CG_HOOK_INGRESS; m && h < CG_HOOK_MAX; h++)
		cg_hook_detach(dir, ifindex, m, h);
	if (m && m->mode == CG_MODE_CLSACT)
		cg_clsact_drop(ifindex, m->flags & CG_META_CREATED_CLSACT);
	/* no hook of the device counts in its entry any more */
	if (m)
		cg_devcnt_del(m);
	cg_unpin_all(dir);
}

/*
 * A tcx link stays on its device when the device moves to another
 * namespace, and so does the guard whose pins are in the namespace it
 * left: found there, by its link, once this namespace's guard runs first
 * on the device, and removed, so that the device has one guard, the one
 * its namespace's status shows (and counts drops in). Both run the same
 * shared program, which the kernel runs once per hook: the new guard's
 * link can only be made once the follower's is gone (EEXIST), and the
 * links tell them apart.
 */
struct cg_follower {
	const char *dir;	/* the new guard's, kept */
	__u32 link_id;		/* another link of a csum_guard program on the device */
};

static int cg_follower_dev(const char *dir, __u64 ino, int ifindex, void *arg)
{
	const struct cg_follower *f = arg;
	struct cg_meta m;

	if (!strcmp(dir, f->dir) || cg_meta_read(dir, &m) || m.mode != CG_MODE_TCX ||
	    cg_pinned_id(dir, CG_PIN_LINK) != f->link_id)
		return 0;
	cg_state_remove(dir, 0, &m);	/* ifindex 0: not in this namespace */
	return 1;
}

static int cg_follower_ns(__u64 ino, void *arg)
{
	return cg_state_each_dev(CG_PIN_ROOT, ino, cg_follower_dev, arg);
}

/* BPF_PROG_QUERY of a tcx hook with its links' ids (libbpf 1.3's opts) */
struct cg_tcx_query {
	__u32 target_ifindex;
	__u32 attach_type;
	__u32 query_flags;
	__u32 attach_flags;
	__u64 prog_ids;
	__u32 count;
	__u32 pad;
	__u64 prog_attach_flags;
	__u64 link_ids;
	__u64 link_attach_flags;
	__u64 revision;
};

void cg_state_forget_followers(const struct cg_target *t, const char *dir)
{
	struct cg_follower f = { .dir = dir };
	__u32 ids[16], links[16], i, mylink;
	struct cg_tcx_query q = {
		.target_ifindex = t->ifindex, .attach_type = CG_BPF_TCX_INGRESS,
		.prog_ids = (unsigned long)ids, .count = ARRAY_SIZE(ids),
		.link_ids = (unsigned long)links,
	};
	struct bpf_prog_info pi;
	__u32 len;
	int fd;

	if (syscall(__NR_bpf, BPF_PROG_QUERY, &q, sizeof(q)) || !q.count)
		return;
	mylink = cg_pinned_id(dir, CG_PIN_LINK);
	for (i = 0; i < q.count && i < ARRAY_SIZE(ids); i++) {
		if (!links[i] || links[i] == mylink)
			continue;
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&pi, 0, sizeof(pi));
		len = sizeof(pi);
		if (!bpf_obj_get_info_by_fd(fd, &pi, &len) && !strcmp(pi.name, CG_BPF_PROG_NAME)) {
			f.link_id = links[i];
			cg_state_each_ns(CG_PIN_ROOT, cg_follower_ns, &f);
		}
		close(fd);
	}
}

/*
 * Drop the state of tcx links whose device is gone (deleted, or its
 * namespace destroyed). A clsact filter goes with its device by itself;
 * its pins are dropped the next time its namespace inode is seen with
 * another cookie.
 */
static int cg_prune_dev(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct cg_meta m;
	int *left = arg;

	if (!cg_meta_read(dir, &m) && m.mode == CG_MODE_TCX &&
	    cg_tcx_link_ifindex(dir, CG_HOOK_INGRESS, NULL) == 0)
		cg_state_remove(dir, 0, &m);
	else
		(*left)++;
	return 0;
}

static int cg_prune_ns(__u64 ino, void *arg)
{
	char nsdir[PATH_MAX];

	cg_state_each_dev(CG_PIN_ROOT, ino, cg_prune_dev, arg);
	snprintf(nsdir, sizeof(nsdir), "%s/%llu", CG_PIN_ROOT, (unsigned long long)ino);
	rmdir(nsdir);	/* if empty */
	return 0;
}

int cg_prune(__u64 ino)
{
	int left = 0;

	if (ino)
		cg_prune_ns(ino, &left);
	else
		cg_state_each_ns(CG_PIN_ROOT, cg_prune_ns, &left);
	return left;
}
