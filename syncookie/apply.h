/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * apply.h - what apply.c and follow.c share: the declared responders of
 * apply's file, and one attach of one of them in a child process.
 */
#ifndef CG_SC_APPLY_H
#define CG_SC_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "sc.h"

/* One responder as a line of the file declares it */
struct sc_decl {
	struct sc_args a;	/* dev and netns point into text */
	char *text;
	int line;
	__u64 repairs;		/* what the follower counted for it */
	long long heard;	/* when the follower heard the first event (monotonic ms) */
	bool missing;		/* its device or namespace is not there (said once) */
};

struct sc_decls {
	const char *file;
	struct sc_decl *d;
	int n;
};

/* The file, every line parsed first: 0, or 1 / 2 with one line said */
int sc_decls_read(struct sc_decls *ds, const char *file);
const char *sc_decl_where(const struct sc_decl *d, char *buf, size_t n);

/* sc_apply_run(): the child's exit status */
#define SC_APPLY_SAME		0	/* as declared already */
#define SC_APPLY_FAILED		1	/* said why */
#define SC_APPLY_CHANGED	3	/* attached, or updated */
#define SC_APPLY_REPAIRED	4	/* (a cause given) something undone put back */
#define SC_APPLY_MISSING	5	/* its device or namespace does not exist */
/* what the follower heard in a namespace, for sc_apply_run() */
#define SC_CAUSE_NFT		(1U << 0)	/* nftables changed */
#define SC_CAUSE_ADDR		(1U << 1)	/* an address: conf and routes read again */
#define SC_CAUSE_ROUTE		(1U << 2)	/* a route: the same */
#define SC_CAUSE_DEV		(1U << 3)	/* a device: attach again */
#define SC_CAUSE_NS		(1U << 4)	/* its namespace came, or events were lost */
const char *sc_cause_text(unsigned int causes);
/* Attach d in a child (causes: why the follower does, 0: apply itself) */
int sc_apply_run(struct sc_decl *d, unsigned int causes);

/* follow.c: keep them so until SIGTERM or SIGINT; 0, or 1 with one line said */
int sc_follow(struct sc_decls *ds);

#endif /* CG_SC_APPLY_H */
