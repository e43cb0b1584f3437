/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_SPAWN_H
#define CG_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

#define CG_SPAWN_NOJOIN		126	/* the child could not join the namespace */
#define CG_SPAWN_NOTFOUND	127	/* the child could not run the program */
#define CG_SPAWN_TIMEOUT_MS	60000	/* the wait when timeout_ms is 0 */

/* A program to run, and what goes in and out of it (cg_spawn) */
struct cg_spawn {
	const char *const *argv;	/* argv[0]: found in PATH, then in /usr/sbin, /sbin */
	int netns;			/* a network namespace to run in, joined by the
					 * child, which then dies with us; -1: ours */
	const char *in;			/* its stdin; NULL: /dev/null */
	char *out;			/* up to out_len - 1 bytes of its stdout, NUL-terminated */
	size_t out_len;			/* (NULL: /dev/null, as for err) */
	char *err;			/* up to err_len - 1 bytes of its stderr */
	size_t err_len;
	bool err_to_out;		/* its stderr goes with its stdout, into out */
	int timeout_ms;			/* killed after this long; 0: CG_SPAWN_TIMEOUT_MS */
};

/*
 * Run s->argv without a shell and wait for it, at most s->timeout_ms. Its
 * exit status (CG_SPAWN_NOJOIN, CG_SPAWN_NOTFOUND: see above; the child
 * says "exec: REASON" on its stderr), -ETIMEDOUT when it was killed for
 * taking too long, -EINTR when a signal ended it, or -errno.
 */
int cg_spawn(const struct cg_spawn *s);

#endif /* CG_SPAWN_H */
