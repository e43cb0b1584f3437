/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_MODPROBE_H
#define CG_MODPROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * modprobe [-q -n] MODULE: 0, -ENOENT (failed), -ENOEXEC (no modprobe).
 * why (may be NULL): on failure, modprobe's own last line without its
 * "modprobe: ERROR: " prefix, which carries the kernel's reason ("could
 * not insert 'csum_guard': Key was rejected by service"); "" if none.
 */
int cg_modprobe(const char *module, bool dry_run, char *why, size_t n);

/* modinfo -F FIELD MODULE's first line into out ("" if none): 0, or -errno */
int cg_modinfo(const char *module, const char *field, char *out, size_t n);

/*
 * Is MODULE loaded and live? Not while its exit runs (an rmmod: its hooks
 * and netlink family already gone, its /sys/module directory not yet, its
 * initstate "going"), nor while its init does.
 */
bool cg_module_live(const char *module);

#endif /* CG_MODPROBE_H */
