/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * commands.h - what main.c's commands share: the backend table, which
 * backend guards a device, what the host offers; the commands that change
 * a guard (attach.c) and those that only read (status.c).
 */
#ifndef CG_COMMANDS_H
#define CG_COMMANDS_H

#include <stdbool.h>

#include "backend.h"
#include "select.h"

/* One backend per choice (select.h) */
extern const struct cg_backend *const cg_backends[CG_CHOICE_KMOD + 1];

/* Which backend guards t now, with its status; CG_CHOICE_NONE: none. */
enum cg_choice cg_guarded_by(const struct cg_target *t, struct cg_status *st);
/* What every backend finds on this host. */
void cg_probe_all(struct cg_probe *p);
/* What choosing among the backends want allows needs, loading nothing
 * (struct cg_backend's probe_quick): for attach, which probes in full
 * only when the backend chosen so fails. */
void cg_probe_quick(struct cg_probe *p, enum cg_choice want);
/* ", egress, log-drops": the options a guard has, for messages */
const char *cg_opts_text(const struct cg_status *st);

/* What attach was asked, by its command or by watch for a device it found */
struct cg_attach_req {
	const char *dev;
	const char *netns;	/* NULL: ours */
	enum cg_choice backend;	/* NONE: the one guarding it, else the probe's pick */
	struct cg_attach_opts opts;
	const char *object_path;	/* attach --object, for messages */
};

/* What attach found and left */
struct cg_attach_result {
	enum cg_choice was_by;	/* the backend that guarded it before; NONE */
	enum cg_choice by;	/* the backend that guards it now */
	struct cg_status was, now;
	int ifindex;		/* the device's, in the namespace entered */
	const struct cg_kind *kind;	/* a guest-facing kind (lib/link.h), or NULL */
};

/*
 * Attach as asked, under the host lock (held until exit), saying nothing:
 * 0, or -errno with the reason in ack, worded to follow "cannot attach to
 * DEV in netns NS: ". It returns in the device's namespace.
 */
int cg_attach(const struct cg_attach_req *r, struct cg_attach_result *res, struct cg_ack *ack);
/* The commands: exit status 0 or 1, with one line said on failure. */
int cg_cmd_attach(struct cg_attach_req *r, const char *sha256);
int cg_cmd_detach(const char *dev, const char *netns);
/* detach --all: every guard of netns, or of every namespace (NULL) */
int cg_cmd_detach_all(const char *netns);
/* upgrade: every guard of the host to this loader's program, options kept */
int cg_cmd_upgrade(void);

/* The most devices a backend lists in one namespace */
#define CG_MAX_LIST	4096

/*
 * fn(c, t, 0, arg) for each device backend c guards in the namespace
 * entered (ino; label as the user names it, NULL for ours), t naming it
 * ("?" when it has no name); fn(c, NULL, -errno, arg) for a backend that
 * cannot list its guards there. fn's first nonzero return ends the walk
 * and is returned.
 */
typedef int (*cg_guard_fn)(enum cg_choice c, const struct cg_target *t, int err, void *arg);
int cg_each_guard_here(const char *label, __u64 ino, cg_guard_fn fn, void *arg);

/* What status and probe were asked */
struct cg_query {
	const char *dev;	/* NULL: every guarded device */
	const char *netns;	/* NULL: every namespace (status without DEV) */
	bool json;
	bool prometheus;
};
int cg_cmd_status(const struct cg_query *a);
/* csum-guard completion on|off|status: exit status 0, 1 or 2 */
int cg_cmd_completion(int argc, char **argv);
int cg_cmd_probe(const struct cg_query *a);

#endif /* CG_COMMANDS_H */
