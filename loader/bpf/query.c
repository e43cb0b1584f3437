// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query.c - what the bpf backend reads without changing a guard: a
 * device's status and counters, the devices it guards in a namespace, the
 * probe of what the host offers, and the program a watcher loads ahead.
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

/*
 * A guard's counters: its entry in the host's dev_counters, its own pin
 * (an older loader's guard, --object's), or both (a guard taken over
 * from its pin: the pin's counts up to then, the entry's since).
 */
static int cg_counters_read(const char *dir, const struct cg_meta *m, struct cg_status *st)
{
	char path[PATH_MAX];
	__u64 *vals, sum[CG_CNT_MAX] = {};
	int ncpu, fd, i, err = 0;
	__u32 key;

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu ?: -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (m->flags & CG_META_DEVCNT) {
		err = cg_devcnt_sum(m, sum);
		if (err)
			goto out;
	}
	cg_state_pin(path, sizeof(path), dir, CG_PIN_COUNTERS);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (errno != ENOENT || !(m->flags & CG_META_DEVCNT))
			err = -errno;
		goto sum;
	}
	for (key = 0; key < CG_CNT_MAX; key++) {
		if (bpf_map_lookup_elem(fd, &key, vals)) {
			err = -errno;
			break;
		}
		for (i = 0; i < ncpu; i++)
			sum[key] += vals[i];
	}
	close(fd);
sum:
	st->dropped = sum[CG_CNT_DROPPED];
	st->dropped_unreadable = sum[CG_CNT_DROPPED_UNREADABLE];
out:
	free(vals);
	return err;
}

/* The running program's tag, and the origin where there is one */
static void cg_bpf_origin_status(const char *dir, const struct cg_meta *m, struct cg_status *st)
{
	__u8 tag[BPF_TAG_SIZE];
	struct cg_origin g;
	char hex[CG_SHA256_HEX + 1];
	int fd, i;

	fd = bpf_prog_get_fd_by_id(m->prog_id);
	if (fd >= 0) {
		if (!cg_prog_tag(fd, tag))
			for (i = 0; i < BPF_TAG_SIZE; i++)
				snprintf(st->prog_tag + 2 * i, 3, "%02x", tag[i]);
		close(fd);
	}
	if (cg_origin_read(dir, &g))
		return;
	snprintf(st->loader, sizeof(st->loader), "%s", g.loader);
	cg_sha256_hex(g.object_sha256, hex);
	snprintf(st->object_sha256, sizeof(st->object_sha256), "%s", hex);
}

int cg_bpf_status(const struct cg_target *t, struct cg_status *st)
{
	char dir[PATH_MAX];
	struct cg_meta m;
	__u64 cookie;
	int err;

	memset(st, 0, sizeof(*st));
	cg_state_dir(dir, sizeof(dir), CG_PIN_ROOT, t->netns_ino, t->ifindex);
	err = cg_meta_read(dir, &m);
	if (err)
		return err == -ENOENT ? 0 : err;
	/* a walk over a namespace's guards asked once for all of them */
	cookie = t->netns_cookie;
	err = cookie ? 0 : cg_netns_cookie(&cookie);
	if (err)
		return err;
	/*
	 * Attached while ingress runs a program of ours; egress as it is
	 * (a run killed half-way may have left it other than meta says).
	 */
	if (!cg_state_ours(dir, t, &m, cookie))
		return 0;
	st->attached = true;
	st->prog_id = m.prog_id;
	st->from_object = m.flags & CG_META_OBJECT;
	cg_bpf_origin_status(dir, &m, st);
	st->log_drops = m.flags & CG_F_LOG_DROPS;
	st->egress = cg_hook_prog(dir, t->ifindex, &m, CG_HOOK_EGRESS);
	snprintf(st->mode, sizeof(st->mode), "%s", cg_mode_name(m.mode));
	return cg_counters_read(dir, &m, st);
}

/*
 * The options recorded for the guard of t (its meta), whatever runs now:
 * what a hook that someone took off should have. -ENOENT: no guard's
 * state. Reads bpffs only, from any namespace.
 */
int cg_bpf_recorded(const struct cg_target *t, struct cg_recorded *r)
{
	char dir[PATH_MAX];
	struct cg_meta m;
	int err;

	cg_state_dir(dir, sizeof(dir), CG_PIN_ROOT, t->netns_ino, t->ifindex);
	err = cg_meta_read(dir, &m);
	if (err)
		return err;
	if (m.abi != CG_ABI_VERSION || m.ifindex != (__u32)t->ifindex)
		return -ENOENT;
	r->egress = m.flags & CG_F_EGRESS;
	r->log_drops = m.flags & CG_F_LOG_DROPS;
	r->from_object = m.flags & CG_META_OBJECT;
	/* a tcx link's program is read from its pin (any namespace will do):
	 * one updated to another program still reads as attached */
	r->swapped = m.mode == CG_MODE_TCX && !cg_state_settled(dir, t, &m);
	snprintf(r->mode, sizeof(r->mode), "%s", cg_mode_name(m.mode));
	return 0;
}

struct cg_bpf_listing {
	int *ifindexes;
	int max, n;
	__u64 cookie;
};

static int cg_bpf_list_one(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct cg_bpf_listing *l = arg;
	struct cg_target t = { .netns_ino = ino, .ifindex = ifindex };
	struct cg_meta m;

	if (!cg_meta_read(dir, &m) && cg_state_ours(dir, &t, &m, l->cookie))
		l->ifindexes[l->n++] = ifindex;
	return l->n == l->max;
}

/*
 * The ifindexes this backend guards in the current namespace. Read-only:
 * state whose device or namespace is gone is skipped here, and removed by
 * the next attach or detach in its namespace, or by detach --all, upgrade
 * or watch (cg_prune).
 */
int cg_bpf_list(int *ifindexes, int max)
{
	struct cg_bpf_listing l = { .ifindexes = ifindexes, .max = max };
	__u64 ino;
	int err;

	if (max <= 0)
		return 0;
	err = cg_netns_ino(&ino);
	if (!err)
		err = cg_netns_cookie(&l.cookie);
	if (err)
		return err;
	cg_state_each_dev(CG_PIN_ROOT, ino, cg_bpf_list_one, &l);
	return l.n;
}

static void cg_bpf_probe(struct cg_probe *p)
{
	struct cg_attach_opts opts = {};
	struct cg_obj obj = {};
	char why[96];
	struct btf *btf;
	int err;

	p->btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	if (!p->btf) {
		snprintf(p->bpf_err, sizeof(p->bpf_err), "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return;
	}
	btf = btf__load_vmlinux_btf();
	if (btf) {
		p->kfunc = btf__find_by_name_kind(btf, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0;
		btf__free(btf);
	}
	if (!p->kfunc) {
		snprintf(p->bpf_err, sizeof(p->bpf_err),
			 "kernel BTF has no bpf_cast_to_kern_ctx (kernel older than 6.2)");
		return;
	}
	if (!p->root) {
		snprintf(p->bpf_err, sizeof(p->bpf_err), "not root");
		return;
	}
	p->tcx = cg_have_tcx();
	err = cg_load(&obj, &opts, p->tcx ? CG_MODE_TCX : CG_MODE_CLSACT, -1, why, sizeof(why));
	p->prog_loads = !err;
	if (err)
		snprintf(p->bpf_err, sizeof(p->bpf_err), "the tc program does not load: %s", why);
	cg_obj_close(&obj);
}

struct cg_obj *cg_bpf_preload(bool log_drops)
{
	struct cg_attach_opts opts = { .log_drops = log_drops };
	__u32 mode = cg_have_tcx() ? CG_MODE_TCX : CG_MODE_CLSACT;
	struct cg_obj *o;
	char why[128];

	/* the host's shared program is there: attach opens it, loads nothing */
	if (cg_shared_pinned(mode, log_drops))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (o && cg_load(o, &opts, mode, -1, why, sizeof(why))) {
		free(o);
		o = NULL;
	}
	return o;
}

void cg_bpf_preload_free(struct cg_obj *o)
{
	if (!o)
		return;
	cg_obj_close(o);
	free(o);
}

__u32 cg_bpf_preload_id(const struct cg_obj *o)
{
	return o && o->prog ? cg_prog_id(bpf_program__fd(o->prog)) : 0;
}

/*
 * The part of probe an attach needs: kernel BTF, root and which hook. The
 * kfunc lookup and the test load each cost a parse of the kernel's BTF (and
 * the load a verification) that the attach's own load repeats: that load
 * tells instead, and a failure of it sends cg_attach() to the full probe.
 */
void cg_bpf_probe_quick(struct cg_probe *p)
{
	p->btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	if (!p->btf) {
		snprintf(p->bpf_err, sizeof(p->bpf_err), "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return;
	}
	if (!p->root) {
		snprintf(p->bpf_err, sizeof(p->bpf_err), "not root");
		return;
	}
	p->kfunc = p->prog_loads = true;	/* as the attach's load will tell */
	p->tcx = cg_have_tcx();
}

/* Egress is a hook of the same kind wherever ingress is (tcx and clsact). */
void cg_bpf_probe_all(struct cg_probe *p)
{
	cg_bpf_probe(p);
	if (*p->bpf_err)
		snprintf(p->bpf_egress_err, sizeof(p->bpf_egress_err), "%s", p->bpf_err);
}

