/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cli.h - what every command line of csum-guard checks the same way: the
 * end of a getopt loop, the device operand, root.
 */
#ifndef CG_CLI_H
#define CG_CLI_H

#include <getopt.h>
#include <stdbool.h>

/* The options every command spells the same way, for getopt_long() tables */
#define CG_OPT_NETNS	{ "netns", required_argument, NULL, 'n' }
#define CG_OPT_JSON	{ "json", no_argument, NULL, 'j' }
#define CG_OPT_QUIET	{ "quiet", no_argument, NULL, 'q' }
#define CG_OPT_END	{ NULL, 0, NULL, 0 }

/* getopt_long() returned c for argv[optind - 1] (':' or '?'): one line, 2 */
int cg_cli_bad_option(int c, char **argv);

/*
 * The operands after the options: at most one device, and only where the
 * command takes one; a valid name where it needs one. what names the
 * command in messages ("attach", "syncookie detach"). 0, or 2 with one
 * line said.
 */
int cg_cli_device(int argc, char **argv, const char *what, bool takes_dev, bool needs_dev,
		  const char **dev);

/* Is dev a name a device could have? */
bool cg_cli_dev_valid(const char *dev);

/* 0 as root; otherwise one line, "cannot VERB: must be run as root", and -EPERM */
int cg_cli_need_root(const char *verb);

#endif /* CG_CLI_H */
