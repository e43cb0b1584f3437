/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * log.h - what the user reads: one line per error, progress unless quiet,
 * usage errors with the exit status they carry, and libbpf kept quiet.
 */
#ifndef CG_LOG_H
#define CG_LOG_H

#include <stdbool.h>

#define CG_EXIT_USAGE	2

/* One line on stderr, prefixed "csum-guard: ". */
void cg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Bad usage: one line on stderr pointing at csum-guard help; returns 2. */
int cg_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress for humans, on stderr, unless --quiet. */
void cg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool cg_quiet;
/* Has cg_err() said anything yet? A caller then adds no line of its own. */
bool cg_log_reported(void);
/* libbpf says nothing, but its warnings with CSUM_GUARD_DEBUG set. */
void cg_log_libbpf(void);

#endif /* CG_LOG_H */
