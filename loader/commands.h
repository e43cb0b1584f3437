/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * commands.h - what main.c's commands share: the backend table, which
 * backend guards a device, what the host offers; and the read-only
 * commands of status.c.
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
/* ", egress, log-drops": the options a guard has, for messages */
const char *cg_opts_text(const struct cg_status *st);

/* What status and probe were asked */
struct cg_query {
	const char *dev;	/* NULL: every guarded device */
	const char *netns;	/* NULL: every namespace (status without DEV) */
	bool json;
	bool prometheus;
};
int cg_cmd_status(const struct cg_query *a);
int cg_cmd_probe(const struct cg_query *a);

#endif /* CG_COMMANDS_H */
