/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_CHECK_H
#define CG_CHECK_H

#include <stdbool.h>

/* Exit codes of `csum-guard check` (1 and 2 are main.c's failed and usage) */
enum {
	CG_CHECK_FIXED = 0,		/* every path tested dropped the bad frame */
	CG_CHECK_VULNERABLE = 10,	/* some path corrupted the IP header */
	CG_CHECK_UNKNOWN = 11,		/* neither, and no set-up error */
};

/* The paths check knows, for usage and errors */
#define CG_CHECK_PATHS "frag|tx|tx6|xtcsum|nfqueue|xtcsum6|nfqueue6"

/*
 * check.c: the self-test. path is a comma-separated list of the paths above,
 * or NULL for all; returns one of the codes above, or 1 when the test itself
 * could not be set up.
 */
int cg_check(const char *path, bool json);
bool cg_check_path_valid(const char *path);

#endif /* CG_CHECK_H */
