/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_WATCH_H
#define CG_WATCH_H

struct cg_args;

/*
 * csum-guard watch, with the options the command line gave (--match,
 * --backend, --log-drops, --no-completion); returns the exit status.
 */
int cg_watch(const struct cg_args *a);

#endif /* CG_WATCH_H */
