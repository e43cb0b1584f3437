/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_WATCH_H
#define CG_WATCH_H

/*
 * csum-guard watch [--match GLOB[,GLOB...]]... [--backend B] [--log-drops]
 * argv as main() got it (argv[1] is "watch"); returns the exit status.
 */
int cg_watch(int argc, char **argv);

#endif /* CG_WATCH_H */
