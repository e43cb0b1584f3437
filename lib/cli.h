/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cli.h - what every command line of csum-guard checks the same way: the
 * command tables (a command's usage, help and options declared once, parsed
 * and explained from there), the device operand, root.
 */
#ifndef CG_CLI_H
#define CG_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* The options every command spells the same way, for getopt_long() tables */
#define CG_OPT_NETNS	{ "netns", required_argument, NULL, 'n' }
#define CG_OPT_JSON	{ "json", no_argument, NULL, 'j' }
#define CG_OPT_QUIET	{ "quiet", no_argument, NULL, 'q' }
#define CG_OPT_END	{ NULL, 0, NULL, 0 }

/* An option, as getopt_long() takes it and its commands' help says it */
struct cg_opt {
	const char *name;	/* without the dashes */
	int val;		/* what getopt_long() returns for it */
	const char *arg;	/* its argument in help ("NS"); NULL: takes none */
	const char *help;	/* what it does, for CMD --help */
};

/*
 * A command of a command line: its name, its usage forms, what it does, and
 * which options of the line's table it takes. Adding a command or an option
 * is one entry here and one in the option table.
 */
struct cg_cmd {
	const char *name;		/* as typed after the program's name */
	const char *const *usage;	/* its forms, NULL-ended; '\n' continues one */
	const char *help;		/* what it does, for CMD --help */
	const char *opts;		/* the vals of the options it takes */
	/* args: what the line's parser filled; argc, argv: the whole line */
	int (*run)(void *args, int argc, char **argv);
};

/* One command line: csum-guard's, or csum-guard syncookie's */
struct cg_cli {
	const char *prog;		/* "csum-guard", "csum-guard syncookie" */
	const struct cg_opt *opts;	/* ends with a NULL name */
	const struct cg_cmd *cmds;	/* ends with a NULL name */
	const char *common;		/* options every command takes, for help */
};

/* The command named name, or NULL */
const struct cg_cmd *cg_cli_find(const struct cg_cli *cli, const char *name);

/*
 * getopt_long() over argv from index first, with every option of the
 * line's table: one of cmd's goes to set(val, optarg, ctx), which returns 0
 * or the exit status 2 with one line said; an option of other commands is
 * refused naming the commands it goes with. The operands are left at
 * argv[optind..argc). 0, or 2 with one line said.
 */
int cg_cli_parse(const struct cg_cli *cli, const struct cg_cmd *cmd, int argc, char **argv,
		 int first, int (*set)(int val, const char *arg, void *ctx), void *ctx);

/* A command's usage lines, the first with "Usage: " if first */
void cg_cli_usage_cmd(const struct cg_cli *cli, const struct cg_cmd *cmd, FILE *f, bool first);
/* One command's usage, what it does and its options: `PROG CMD --help` */
void cg_cli_help(const struct cg_cli *cli, const struct cg_cmd *cmd, FILE *f);

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

/*
 * The options both command lines handle alike, for their parsers' set():
 * --netns ('n', into *netns; refused empty) and --quiet ('q', cg_quiet).
 * 0 when val was one of them, 2 with one line said, -1 when it is the
 * caller's own.
 */
int cg_cli_shared_set(int val, const char *arg, const char **netns);

/* 0 as root; otherwise one line, "cannot VERB: must be run as root", and -EPERM */
int cg_cli_need_root(const char *verb);

#endif /* CG_CLI_H */
