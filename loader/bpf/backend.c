// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * backend.c - the tc/eBPF backend.
 *
 * The program is attached at the ingress of one device, and with --egress
 * at its egress too (the same program and counters on both hooks), with tcx
 * links where the kernel has them (6.6+: cheaper dispatch, no qdisc) and
 * with a clsact qdisc + direct-action cls_bpf filters otherwise. The
 * program is the host's, verified once per kind of load and shared by
 * every device (shared.c: /sys/fs/bpf/csum_guard/shared/); it counts a
 * drop in the device's entry of the host's dev_counters. The rest lives
 * under one pin directory per device,
 *
 *	/sys/fs/bpf/csum_guard/<netns inode>/<ifindex>/
 *		meta         what attach did (mode, flags, ifindex, netns cookie)
 *		counters     per-CPU drop counters of the device's own: an older
 *		             csum-guard's program, or --object's, counts there
 *		link         tcx: the ingress link that keeps the program attached
 *		link_egress  tcx, --egress: the egress link
 *		prog         clsact: the program the filters run
 *
 * so that status and detach work from a later process. The netns cookie in
 * meta tells a reused namespace inode from the namespace attach saw, and
 * with the ifindex keys the device's entry in dev_counters. So an attach
 * of a device opens a pinned program, makes its entry and its pins and
 * links the program: no load, no verification. What only reads (status,
 * list, probe) is in query.c.
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
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "sha256.h"
#include "state.h"
#include "tc.h"
#include "guard.h"

/* tcx: link hook h, before any other tcx program there, and pin it. */
static int cg_attach_tcx(const char *dir, int ifindex, int prog_fd, enum cg_hook h)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .flags = CG_BPF_F_BEFORE);
	char path[PATH_MAX];
	int fd, err = 0;

	fd = bpf_link_create(prog_fd, ifindex, cg_hooks[h].tcx_type, &lopts);
	if (fd < 0)
		return -errno;
	cg_state_pin(path, sizeof(path), dir, cg_hooks[h].pin);
	unlink(path);	/* a link of a device gone, if anything */
	if (bpf_obj_pin(fd, path))
		err = -errno;
	close(fd);	/* on error the link goes with the fd */
	return err;
}

/* The guard's meta, written to its dir (where cg_clsact_make notes) */
struct cg_meta_at {
	const char *dir;
	struct cg_meta *m;
};

static int cg_meta_save(void *arg)
{
	struct cg_meta_at *at = arg;

	return cg_meta_write(at->dir, at->m);
}

/*
 * clsact: our filter on hook h, replacing what is at our handle (a leftover
 * of ours, or the program an update swaps out). Creates the qdisc if there
 * is none, noted in meta first (cg_clsact_make): detach destroys the qdisc
 * only if attach created it. Someone else's qdisc stays.
 */
static int cg_attach_clsact(const char *dir, int ifindex, int prog_fd,
			    struct cg_meta *m, enum cg_hook h)
{
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CG_TC_HANDLE,
		    .priority = CG_TC_PRIO, .flags = BPF_TC_F_REPLACE);
	struct cg_meta_at at = { .dir = dir, .m = m };
	struct cg_clsact_note note = { .flags = &m->flags, .created = CG_META_CREATED_CLSACT,
				       .save = cg_meta_save, .arg = &at };
	struct bpf_tc_hook hook;
	int err;

	err = cg_clsact_make(ifindex, &note);
	if (err)
		return err;
	cg_tc_hook_init(&hook, ifindex, h);
	opts.prog_fd = prog_fd;
	return bpf_tc_attach(&hook, &opts);
}

/*
 * clsact: pin the program the filters run, before they run it: a filter
 * running the pinned program is ours (cg_clsact_ours).
 */
static int cg_pin_prog(const char *dir, int prog_fd)
{
	char path[PATH_MAX];

	cg_state_pin(path, sizeof(path), dir, CG_PIN_PROG);
	unlink(path);
	return bpf_obj_pin(prog_fd, path) ? -errno : 0;
}

/* Put prog_fd on hook h, where nothing of ours is yet. */
static int cg_hook_attach(const char *dir, int ifindex, int prog_fd,
			  struct cg_meta *m, enum cg_hook h)
{
	if (m->mode == CG_MODE_TCX)
		return cg_attach_tcx(dir, ifindex, prog_fd, h);
	return cg_attach_clsact(dir, ifindex, prog_fd, m, h);
}

/* Hook h runs our program: make it run prog_fd instead, atomically. */
static int cg_hook_swap(const char *dir, int ifindex, int prog_fd,
			struct cg_meta *m, enum cg_hook h)
{
	char path[PATH_MAX];
	int link_fd, err;

	if (m->mode != CG_MODE_TCX)
		return cg_attach_clsact(dir, ifindex, prog_fd, m, h);
	cg_state_pin(path, sizeof(path), dir, cg_hooks[h].pin);
	link_fd = bpf_obj_get(path);
	if (link_fd < 0)
		return -errno;
	err = bpf_link_update(link_fd, prog_fd, NULL) ? -errno : 0;
	close(link_fd);
	return err;
}

/*
 * The program a fresh guard runs: the host's shared one for its kind of
 * load (verified once, shared.c), or one loaded from --object for this
 * device alone, its counters pinned with the state. *obj keeps what must
 * stay open until the pins and hooks hold it. An fd, or -errno.
 */
static int cg_fresh_prog(const struct cg_attach_opts *o, struct cg_meta *m, struct cg_obj *obj,
			 struct cg_ack *ack)
{
	char why[160];
	int err, fd;

	if (!o->object) {
		fd = cg_shared_prog(m->mode, o->log_drops, o->preloaded, why, sizeof(why));
		if (fd < 0)
			return cg_ack_err(ack, fd, "cannot load the BPF program: %s", why);
		m->flags |= CG_META_DEVCNT;
		return fd;
	}
	err = cg_load(obj, o, m->mode, -1, why, sizeof(why));
	if (!err)
		err = cg_devcnt_pin(obj);
	if (err)
		return cg_ack_err(ack, err, "cannot load the BPF program: %s", why);
	if (obj->dev_counters)
		m->flags |= CG_META_DEVCNT;
	fd = dup(bpf_program__fd(obj->prog));
	return fd < 0 ? -errno : fd;
}

/*
 * A shared program's guard pins counters of its own all the same, which
 * its program does not count in: what an older csum-guard, which knows no
 * dev_counters, reuses for the program it swaps in on `upgrade` or attach
 * (a roll back), so that it can converge the guard. The map is the
 * object's "counters", to the byte, as libbpf checks a reused map.
 */
static int cg_counters_pin_new(const char *path)
{
	int fd, err = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, CG_BPF_MAP_COUNTERS, sizeof(__u32),
			    sizeof(__u64), CG_CNT_MAX, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, path))
		err = -errno;
	close(fd);
	return err;
}

static int cg_attach_fresh(const struct cg_target *t, const char *dir,
			   const struct cg_attach_opts *o, __u64 cookie, struct cg_ack *ack)
{
	struct cg_obj obj = {};
	struct cg_meta m = {
		.abi = CG_ABI_VERSION,
		.flags = (o->log_drops ? CG_F_LOG_DROPS : 0) |
			 (o->egress ? CG_F_EGRESS : 0) |
			 (o->object ? CG_META_OBJECT : 0),
		.ifindex = t->ifindex,
		.netns_cookie = cookie,
	};
	char path[PATH_MAX];
	int prog_fd, err;

	m.mode = o->mode ?: (cg_have_tcx() ? CG_MODE_TCX : CG_MODE_CLSACT);
	prog_fd = cg_fresh_prog(o, &m, &obj, ack);
	if (prog_fd < 0) {
		cg_obj_close(&obj);
		return prog_fd;
	}
	m.prog_id = cg_prog_id(prog_fd);

	err = cg_state_mkdirs(CG_PIN_ROOT, dir);
	if (err)
		goto out;
	/* meta first: a run killed past this point is undone by the next */
	err = cg_meta_write(dir, &m);
	if (!err)
		err = cg_state_names_put(dir, t);
	if (!err) {
		struct cg_origin g;

		cg_origin_of(o, &g);
		err = cg_origin_write(dir, &g);
	}
	if (err)
		goto undo;
	/* the device's counters, zero (a device gone left none: detach took them) */
	if (m.flags & CG_META_DEVCNT)
		err = cg_devcnt_add(&m, true);
	if (!err) {
		cg_state_pin(path, sizeof(path), dir, CG_PIN_COUNTERS);
		err = o->object ? bpf_map__pin(obj.counters, path) : cg_counters_pin_new(path);
	}
	if (err)
		goto undo;
	if (m.mode == CG_MODE_CLSACT)
		err = cg_pin_prog(dir, prog_fd);
	if (!err)
		err = cg_hook_attach(dir, t->ifindex, prog_fd, &m, CG_HOOK_INGRESS);
	if (err == -EEXIST && m.mode == CG_MODE_TCX) {
		/* the device came from another namespace with its guard's link,
		 * which runs this very program: that guard goes first */
		cg_state_forget_followers(t, dir);
		err = cg_hook_attach(dir, t->ifindex, prog_fd, &m, CG_HOOK_INGRESS);
	}
	if (!err && o->egress)
		err = cg_hook_attach(dir, t->ifindex, prog_fd, &m, CG_HOOK_EGRESS);
	if (!err)
		goto out;
undo:
	cg_state_remove(dir, t->ifindex, &m);
out:
	close(prog_fd);
	cg_obj_close(&obj);
	return err;
}

/*
 * The program an update swaps in: the host's shared one for the options
 * asked (*shared_fd), or --object's (in *obj), counting where the guard's
 * counters are. A guard that counted in its own counters pin (an older
 * loader's, or --object's) gets its entry in the host's dev_counters
 * first, and meta says so before any hook runs the new program: status
 * then adds the entry to the pin, which the old program stops counting in.
 */
static int cg_update_prog(const char *dir, const struct cg_attach_opts *o, struct cg_meta *m,
			  struct cg_obj *obj, int *shared_fd, struct cg_ack *ack)
{
	char path[PATH_MAX], why[160];
	int counters_fd, err;
	bool devcnt;

	if (!o->object) {
		*shared_fd = cg_shared_prog(m->mode, o->log_drops, NULL, why, sizeof(why));
		if (*shared_fd < 0)
			return cg_ack_err(ack, *shared_fd, "cannot load the BPF program: %s", why);
		devcnt = true;
	} else {
		/* its own counters: the pin's, where the guard has one */
		cg_state_pin(path, sizeof(path), dir, CG_PIN_COUNTERS);
		counters_fd = bpf_obj_get(path);
		err = cg_load(obj, o, m->mode, counters_fd, why, sizeof(why));
		if (counters_fd >= 0)
			close(counters_fd);
		if (err)
			return cg_ack_err(ack, err, "cannot load the BPF program: %s", why);
		if (counters_fd < 0)
			err = bpf_map__pin(obj->counters, path);
		if (!err)
			err = cg_devcnt_pin(obj);
		if (err)
			return cg_ack_err(ack, err, "cannot pin its counters: %s", strerror(-err));
		devcnt = obj->dev_counters;
	}
	if (!devcnt || (m->flags & CG_META_DEVCNT))
		return 0;
	err = cg_devcnt_add(m, false);
	if (!err) {
		m->flags |= CG_META_DEVCNT;
		err = cg_meta_write(dir, m);
	}
	return err;
}

/*
 * Attached, but with other options or another object: converge hook by
 * hook, keep the counters. Another log_drops needs another program (it is
 * read-only data), and so does an --object whose instructions differ from
 * the running program's (rolling forward or back); either is swapped in
 * atomically on each hook. Egress alone keeps the running program. A step
 * that fails undoes the ones before it, so the guard is left as it was.
 * force: a run killed half-way left hooks running other programs than
 * meta names (or one hook too few or too many): put one program with the
 * options asked for on every hook, meta's own if it is still there and
 * has them.
 */
static int cg_attach_update(const struct cg_target *t, const char *dir, struct cg_meta *m,
			    const struct cg_attach_opts *o, bool force, bool upgrade,
			    struct cg_ack *ack)
{
	bool egress_on = cg_hook_prog(dir, t->ifindex, m, CG_HOOK_EGRESS);
	bool relog = o->log_drops != !!(m->flags & CG_F_LOG_DROPS);
	bool reload = relog || o->object || force || upgrade;
	struct cg_origin g;
	bool clsact = m->mode == CG_MODE_CLSACT;
	__u8 old_tag[BPF_TAG_SIZE], new_tag[BPF_TAG_SIZE];
	int old_fd, prog_fd, shared_fd = -1, err = 0;
	struct cg_obj obj = {};

	old_fd = bpf_prog_get_fd_by_id(m->prog_id);
	if (old_fd < 0 && !force)
		return -errno;
	prog_fd = old_fd;
	if (force && !relog && !o->object && !upgrade && old_fd >= 0) {
		/* meta's program, with the options asked for, is still there */
	} else if (reload) {
		/* another program: from which object? */
		if (!o->object && (m->flags & CG_META_OBJECT)) {
			err = cg_ack_err(ack, -EINVAL, relog ?
				"it runs a program from --object; give --object and --sha256 again to change --log-drops" :
				"it was left half-updated running a program from --object; give --object and --sha256 again to repair it");
			goto out;
		}
		err = cg_update_prog(dir, o, m, &obj, &shared_fd, ack);
		if (err)
			goto out;
		prog_fd = shared_fd >= 0 ? shared_fd : bpf_program__fd(obj.prog);
		/* the same program, or the same instructions again: nothing to
		 * swap unless the log changes */
		if (!relog && !force && (prog_fd == old_fd || cg_prog_id(prog_fd) == m->prog_id ||
		    (o->object && !cg_prog_tag(old_fd, old_tag) &&
		     !cg_prog_tag(prog_fd, new_tag) && !memcmp(old_tag, new_tag, BPF_TAG_SIZE)))) {
			reload = false;
			prog_fd = old_fd;
		}
	}

	/* the pin first: a filter running it is ours, whenever we are killed */
	if (clsact && reload) {
		err = cg_pin_prog(dir, prog_fd);
		if (err)
			goto out;
	}
	if (o->egress && !egress_on)
		err = cg_hook_attach(dir, t->ifindex, prog_fd, m, CG_HOOK_EGRESS);
	else if (o->egress && reload)
		err = cg_hook_swap(dir, t->ifindex, prog_fd, m, CG_HOOK_EGRESS);
	if (err)
		goto unpin;
	if (reload) {
		err = cg_hook_swap(dir, t->ifindex, prog_fd, m, CG_HOOK_INGRESS);
		if (err) {
			if (o->egress && !egress_on)
				cg_hook_detach(dir, t->ifindex, m, CG_HOOK_EGRESS);
			else if (o->egress && old_fd >= 0)
				cg_hook_swap(dir, t->ifindex, old_fd, m, CG_HOOK_EGRESS);
			goto unpin;
		}
	}
	if (egress_on && !o->egress)
		cg_hook_detach(dir, t->ifindex, m, CG_HOOK_EGRESS);

	m->prog_id = cg_prog_id(prog_fd);
	m->flags &= ~(CG_F_LOG_DROPS | CG_F_EGRESS | CG_META_OBJECT);
	m->flags |= (o->log_drops ? CG_F_LOG_DROPS : 0) | (o->egress ? CG_F_EGRESS : 0) |
		    (o->object ? CG_META_OBJECT : 0);
	err = cg_meta_write(dir, m);
	if (!err) {
		cg_origin_of(o, &g);
		err = cg_origin_write(dir, &g);
	}
	goto out;
unpin:
	if (clsact && reload && old_fd >= 0)
		cg_pin_prog(dir, old_fd);
out:
	if (old_fd >= 0)
		close(old_fd);
	if (shared_fd >= 0)
		close(shared_fd);
	cg_obj_close(&obj);
	return err;
}

/* Did this loader, with o's object, attach the guard of dir? */
static bool cg_origin_mine(const char *dir, const struct cg_attach_opts *o)
{
	struct cg_origin have, want;

	if (cg_origin_read(dir, &have))
		return false;
	cg_origin_of(o, &want);
	return !strcmp(have.loader, want.loader) &&
	       !memcmp(have.object_sha256, want.object_sha256, sizeof(want.object_sha256));
}

static int cg_bpf_attach(const struct cg_target *t, const struct cg_attach_opts *o,
			 struct cg_ack *ack)
{
	char dir[PATH_MAX];
	struct cg_meta m;
	__u64 cookie;
	int err;

	err = cg_bpffs_ready(ack);
	if (err)
		return err;
	err = cg_netns_cookie(&cookie);
	if (err)
		return err;
	/* this namespace's leftovers only: an attach costs the same on any host */
	cg_prune(t->netns_ino);
	cg_state_dir(dir, sizeof(dir), CG_PIN_ROOT, t->netns_ino, t->ifindex);

	err = cg_meta_read(dir, &m);
	if (!err && cg_state_ours(dir, t, &m, cookie)) {
		bool settled, upgrade;

		if (o->mode && o->mode != m.mode)
			return cg_ack_err(ack, -EBUSY,
					  "already guarded through %s; detach it first to change the mode",
					  cg_mode_name(m.mode));
		/*
		 * Done if the options match and meta names the programs in
		 * place. A run killed half-way leaves a hook too few or too
		 * many, or running another program than meta names: apply
		 * the options asked for again, keeping the counters.
		 */
		settled = cg_state_live(dir, t, &m, cookie) && cg_state_settled(dir, t, &m);
		/* the names detach looks for when the device is gone */
		cg_state_names_refresh(dir, t);
		/*
		 * Another loader's program (an older csum-guard, or one
		 * killed before it wrote the origin) converges to ours; one
		 * from --object stays, the provisioner's choice.
		 */
		upgrade = !o->object && !(m.flags & CG_META_OBJECT) && !cg_origin_mine(dir, o);
		if (!!(m.flags & CG_F_LOG_DROPS) == o->log_drops &&
		    !!(m.flags & CG_F_EGRESS) == o->egress && !o->object && settled && !upgrade)
			return 0;
		return cg_attach_update(t, dir, &m, o, !settled, upgrade, ack);
	}
	/* stale (device or namespace reused) or half-made: start over */
	cg_state_remove(dir, t->ifindex, err ? NULL : &m);
	err = cg_attach_fresh(t, dir, o, cookie, ack);
	if (!err && !cg_meta_read(dir, &m) && m.mode == CG_MODE_TCX)
		cg_state_forget_followers(t, dir);
	return err;
}

static int cg_bpf_detach(const struct cg_target *t, struct cg_ack *ack)
{
	char dir[PATH_MAX];
	struct cg_meta m;
	__u64 cookie;
	bool live;
	int err;

	cg_state_dir(dir, sizeof(dir), CG_PIN_ROOT, t->netns_ino, t->ifindex);
	err = cg_meta_read(dir, &m);
	if (err) {
		/* a run killed before meta, or after unlinking it, left directories */
		if (err == -ENOENT)
			cg_unpin_all(dir);
		return err;
	}
	err = cg_netns_cookie(&cookie);
	if (err)
		return err;
	live = cg_state_ours(dir, t, &m, cookie);
	/* a stale state of another namespace is not ours to undo here */
	cg_state_remove(dir, m.netns_cookie == cookie ? t->ifindex : 0, &m);
	cg_prune(t->netns_ino);
	return live ? 0 : -ENOENT;
}

static int cg_bpf_forget_one(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct cg_meta m;
	bool have = !cg_meta_read(dir, &m);

	/* the device is gone, and its filters with it: ifindex 0 */
	cg_state_remove(dir, 0, have ? &m : NULL);
	return 0;
}

static int cg_bpf_forget(const struct cg_target *t)
{
	if (!t->netns_ino)
		return cg_state_gone_netns(CG_PIN_ROOT, t->netns ?: "", t->dev,
					   cg_bpf_forget_one, NULL);
	if (!t->dev)
		return 0;
	return cg_state_gone_devs(CG_PIN_ROOT, t->netns_ino, t->dev, cg_bpf_forget_one, NULL);
}

const struct cg_backend cg_backend_bpf = {
	.name = "bpf",
	.probe = cg_bpf_probe_all,
	.probe_quick = cg_bpf_probe_quick,
	.attach = cg_bpf_attach,
	.detach = cg_bpf_detach,
	.forget = cg_bpf_forget,
	.prune = cg_prune,
	.status = cg_bpf_status,
	.list = cg_bpf_list,
};
