/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * syncookie.h - `csum-guard syncookie ...`: the SYN-cookie responder
 * (syncookie.bpf.c), or the kernel's SYNPROXY through nftables where the
 * kernel lacks bpf_tcp_gen_syncookie. argv as main() got it.
 */
#ifndef CG_SYNCOOKIE_H
#define CG_SYNCOOKIE_H

#include <stdio.h>

int cg_syncookie(int argc, char **argv);
/* The usage lines of its commands, under csum-guard's */
void cg_syncookie_usage(FILE *f);
/* syncookie [CMD] --help, argv from "syncookie" on; 0 once said */
int cg_syncookie_help(int argc, char **argv);
/* The host's SYN responders, for csum-guard doctor */
struct cg_sc_census {
	int answering;		/* answering SYNs as attached */
	int tables_gone;	/* whose nft tables are gone (flushed) */
	int outdated;		/* an older csum-guard's, answering */
};
int cg_syncookie_census(struct cg_sc_census *c);
/* status --prometheus: every SYN responder's metrics; 0 or -errno */
int cg_syncookie_prometheus(void);

#endif /* CG_SYNCOOKIE_H */
