/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_MODPROBE_H
#define CG_MODPROBE_H

#include <stdbool.h>

/* modprobe -q [-n] MODULE: 0, -ENOENT (failed), -ENOEXEC (no modprobe) */
int cg_modprobe(const char *module, bool dry_run);

#endif /* CG_MODPROBE_H */
