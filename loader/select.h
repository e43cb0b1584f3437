/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_SELECT_H
#define CG_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include "backend.h"

enum cg_choice {
	CG_CHOICE_NONE = 0,
	CG_CHOICE_BPF,
	CG_CHOICE_KMOD,
};

/* --backend: auto, bpf or kmod; -EINVAL for anything else */
int cg_parse_backend(const char *s, enum cg_choice *req);
const char *cg_choice_name(enum cg_choice c);

/*
 * Which backend serves this host, from what probe found and what the user
 * asked for (CG_CHOICE_NONE: auto). A pure function: why gets one line
 * saying why, whether a backend was chosen or not.
 */
enum cg_choice cg_select(const struct cg_probe *p, enum cg_choice req,
			 char *why, size_t n);

/*
 * Is a kernel of this machine (uname -m) and release (uname -r) known to
 * lack the function tracing with registers the completion guard hooks
 * with (DYNAMIC_FTRACE_WITH_REGS)? arm64 has had only WITH_ARGS since 6.2.
 * A pure function, for probe to say so before the module is loaded.
 */
bool cg_no_ftrace_regs(const char *machine, const char *release);

#endif /* CG_SELECT_H */
