/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * backend.h - the operations every csum-guard backend provides.
 *
 * main.c resolves the target (enters its network namespace, looks up the
 * ifindex) before it calls a backend, so every operation below runs inside
 * the target namespace and never switches namespaces itself.
 * All functions return 0 or a negative errno; none prints. Where the
 * errno alone would not tell the user why, attach and detach record the
 * reason in ack, for the command's one line.
 */
#ifndef CG_BACKEND_H
#define CG_BACKEND_H

#include <stdbool.h>
#include <linux/types.h>

#include "log.h"
#include "sha256.h"
#include "state.h"

/* bpf: how the program is attached; AUTO takes tcx where the kernel has it */
enum cg_attach_mode {
	CG_ATTACH_AUTO = 0,
	CG_ATTACH_TCX = 1,
	CG_ATTACH_CLSACT = 2,
};

struct cg_obj;

struct cg_attach_opts {
	bool log_drops;
	bool egress;		/* guard the device's egress as well */
	enum cg_attach_mode mode;	/* bpf only */
	/* bpf: the object to load instead of the built-in one, already
	 * verified by digest (attach --object --sha256); NULL: built in */
	const void *object;
	size_t object_size;
	unsigned char object_sha256[CG_SHA256_LEN];	/* object's, as verified */
	/* bpf: the built-in guard loaded ahead (cg_bpf_preload), pinned as
	 * the host's shared program by a fresh guard whose options it was
	 * loaded with, where the host has none yet; NULL: none */
	struct cg_obj *preloaded;
};

struct cg_status {
	bool attached;
	__u32 prog_id;		/* bpf: the running program, 0 otherwise */
	bool log_drops;
	bool egress;
	char mode[16];		/* "tcx", "clsact", "netfilter" */
	__u64 dropped;
	__u64 dropped_unreadable;
	/* which code guards it, for upgrades: */
	char prog_tag[17];	/* bpf: the running program's tag, hex; "" unknown */
	char loader[32];	/* bpf: the loader that attached it; "" unknown */
	char object_sha256[65];	/* bpf: its object's SHA-256, hex; "" unknown */
	bool from_object;	/* bpf: the object came from --object */
	char module_version[32]; /* kmod: the loaded module's version */
	/* kmod: is its hook the first netfilter hook of the device? */
	bool first_known;	/* the module says (CG_A_FIRST) */
	bool first_ingress;
	__u64 reordered;	/* times it moved back in front */
};

/* What probe found; each backend fills its own part. */
struct cg_probe {
	bool root;
	/* bpf */
	bool btf;
	bool kfunc;
	bool prog_loads;
	bool tcx;		/* tcx links (6.6+); clsact otherwise */
	char bpf_err[128];	/* why the bpf backend cannot run, "" if it can */
	char bpf_egress_err[128]; /* why it cannot guard egress, "" if it can */
	/* kmod */
	bool kmod_loaded;
	bool kmod_loadable;
	char kmod_err[256];	/* why the kmod backend cannot run, "" if it can */
	char kmod_egress_err[256]; /* why it cannot guard egress, "" if it can */
	char completion_err[256];	/* why the module's completion guard cannot
					 * be had here, "" if it can */
	bool completion_on;
};

/* The module's completion guard (host-wide): on, and what it refused */
struct cg_completion {
	bool on;
	/* the host's side: every namespace of the initial user namespace */
	__u64 dropped;
	__u64 dropped_unreadable;
	/* in namespaces any user can make, counted apart (older modules
	 * do not say: has_others false) */
	bool has_others;
	__u64 others;
};

/*
 * Read it (want -1; an unloaded module reads as off) or switch it (0 off,
 * 1 on, loading the module). 0, or -errno with the reason in ack.
 */
int cg_kmod_completion(int want, struct cg_completion *c, struct cg_ack *ack);
/* The kmod part of probe that says whether the host can have it
 * (completion_err, completion_on), without the egress probe's BTF walk. */
void cg_kmod_probe_completion_only(struct cg_probe *p);

struct cg_backend {
	const char *name;	/* "bpf", "kmod" */
	/* Fill this backend's part of *p; never fails, records reasons. */
	void (*probe)(struct cg_probe *p);
	/*
	 * What choosing this backend for an attach needs, loading nothing:
	 * what only a load can tell is taken as it will be for the attach's
	 * own load, whose failure sends the caller back to probe.
	 */
	void (*probe_quick)(struct cg_probe *p);
	/* Idempotent: attaching an attached device converges to opts. */
	int (*attach)(const struct cg_target *t, const struct cg_attach_opts *o,
		      struct cg_ack *ack);
	/* -ENOENT when this backend does not guard the device. */
	int (*detach)(const struct cg_target *t, struct cg_ack *ack);
	/*
	 * For detach of what is gone: remove the state left by guards of
	 * devices recorded under t->dev that no longer exist in the namespace
	 * entered (t->ifindex may be 0), or, with t->netns_ino 0, of the
	 * namespace recorded as t->netns, which no longer exists. How many
	 * guards it removed, or -errno.
	 */
	int (*forget)(const struct cg_target *t);
	/*
	 * Drop what guards whose device or namespace is gone left behind,
	 * in namespace ino (0: in every one); under the host lock. How many
	 * guards' state is left there. NULL: the backend keeps no such state.
	 */
	int (*prune)(__u64 ino);
	/* st->attached = false (and 0 returned) when not guarded. */
	int (*status)(const struct cg_target *t, struct cg_status *st);
	/* Up to max ifindexes this backend guards in the current namespace:
	 * how many, or -errno when it cannot tell (never 0 for that). */
	int (*list)(int *ifindexes, int max);
};

extern const struct cg_backend cg_backend_bpf;
extern const struct cg_backend cg_backend_kmod;

#endif /* CG_BACKEND_H */
