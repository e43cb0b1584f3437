/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * backends.h - the table of backends (backend.h's struct cg_backend, one
 * per choice of select.h) and the questions every command asks of all of
 * them at once (backends.c).
 */
#ifndef CG_BACKENDS_H
#define CG_BACKENDS_H

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

#endif /* CG_BACKENDS_H */
