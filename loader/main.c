// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - the csum-guard command: one contract over both backends.
 *
 * The commands, their usage, help and options are the table below (cmd.c
 * holds their texts): `csum-guard --help` lists every command's usage,
 * `csum-guard CMD --help` says what CMD does and takes. One parser fills
 * struct cg_args from any command line; each command checks its operands.
 *
 * Exit status: 0 done (detaching an unguarded device is done), 1 failed,
 * 2 bad usage. Errors are one line on stderr; nothing is left half-made.
 * check (check/check.h): 0 fixed, 10 vulnerable, 11 cannot tell, 1 set-up
 * failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "cli.h"
#include "log.h"
#include "state.h"
#include "commands.h"
#include "check/check.h"
#include "syncookie.h"

static int cg_version(void)
{
	return cg_cli_find(&cg_cli, "version")->run(NULL, 0, NULL);
}

/* One option of any command into a (cg_cli_parse()'s set) */
static int cg_args_set(int val, const char *arg, void *ctx)
{
	struct cg_args *a = ctx;
	const char **m;
	char *end;
	long n;
	int ret = cg_cli_shared_set(val, arg, &a->netns);

	if (ret >= 0)
		return ret;
	switch (val) {
	case 'l':
		a->log_drops = true;
		break;
	case 'e':
		a->egress = true;
		break;
	case 'E':
		a->no_egress = true;
		break;
	case 'L':
		a->no_log_drops = true;
		break;
	case 'b':
		if (cg_parse_backend(arg, &a->backend))
			return cg_usage_err("unknown backend '%s' (auto, bpf or kmod)", arg);
		break;
	case 'm':
		if (!strcmp(arg, "tcx"))
			a->mode = CG_ATTACH_TCX;
		else if (!strcmp(arg, "clsact"))
			a->mode = CG_ATTACH_CLSACT;
		else
			return cg_usage_err("unknown mode '%s' (tcx or clsact)", arg);
		break;
	case 'j':
		a->json = true;
		break;
	case 'p':
		if (!cg_check_path_valid(arg))
			return cg_usage_err("unknown path in '%s' (" CG_CHECK_PATHS ")", arg);
		a->path = arg;
		break;
	case 'o':
		if (!*arg)
			return cg_usage_err("--object needs a path");
		a->object = arg;
		break;
	case 's':
		if (strlen(arg) != CG_SHA256_HEX ||
		    strspn(arg, "0123456789abcdefABCDEF") != CG_SHA256_HEX)
			return cg_usage_err("--sha256 needs 64 hex digits, not '%s'", arg);
		a->sha256 = arg;
		break;
	case 'P':
		a->prometheus = true;
		break;
	case 'A':
		a->all = true;
		break;
	case 'M':
		if (!*arg || strspn(arg, ",") == strlen(arg))
			return cg_usage_err("--match needs a glob");
		m = realloc(a->match, (a->nmatch + 1) * sizeof(*m));
		if (!m)
			return cg_usage_err("out of memory");
		a->match = m;
		a->match[a->nmatch++] = arg;
		break;
	case 'C':
		a->no_completion = true;
		break;
	case 'N':
		a->no_containers = true;
		break;
	case 'R':
		a->ready_on_failure = true;
		break;
	case 'H':
		a->heal = true;
		break;
	case 'T':
		if (!*arg || arg[strlen(arg) - 1] == '/')
			return cg_usage_err("--textfile needs a file's path");
		a->textfile = arg;
		break;
	case 'I':
		n = strtol(arg, &end, 10);
		if (end == arg || *end || n < 1 || n > 86400)
			return cg_usage_err("--textfile-interval needs seconds from 1 to 86400, not '%s'", arg);
		a->textfile_interval = n;
		break;
	}
	return 0;
}

/*
 * Options of the whole line, anywhere on it: --json also makes every error
 * a JSON object on stdout; --wait SECONDS bounds the wait for the host lock
 * (taken out here); --quiet and --json may stand before the command as well
 * as after it (--quiet is taken here, --json moves to the end of the line,
 * where the command's parser takes it: getopt_long permutes operands).
 * 0 with argc and argv updated, or the exit status 2 with one line said.
 */
static int cg_global_options(int *argcp, char ***argvp)
{
	int argc = *argcp, i;
	char **argv = *argvp;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *w = NULL;
		char *end;
		long v;
		int drop = 0;

		if (!strcmp(argv[i], "--json"))
			cg_json_errors = true;
		if (!strcmp(argv[i], "--wait")) {
			if (i + 1 >= argc)
				return cg_usage_err("--wait needs a number of seconds");
			w = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], "--wait=", 7)) {
			w = argv[i] + 7;
			drop = 1;
		}
		if (!drop)
			continue;
		errno = 0;
		v = strtol(w, &end, 10);
		if (!*w || *end || errno || v < 0 || v > 86400)
			return cg_usage_err("--wait needs whole seconds from 0 to 86400, not '%s'", w);
		cg_lock_wait = v;
		memmove(&argv[i], &argv[i + drop], (argc - i - drop + 1) * sizeof(*argv));
		argc -= drop;
		i--;
	}
	while (argc > 1) {
		char *o = argv[1];

		if (strcmp(o, "--quiet") && strcmp(o, "-q") && strcmp(o, "--json"))
			break;
		if (!strcmp(o, "--json") && argc > 2) {
			int end = argc;

			for (i = 2; i < argc; i++)
				if (!strcmp(argv[i], "--")) {
					end = i;
					break;
				}
			memmove(&argv[1], &argv[2], (end - 2) * sizeof(*argv));
			argv[end - 1] = o;
			if (!strcmp(argv[1], "--json"))
				break;	/* nothing but --json options: bad usage below */
			continue;
		}
		cg_quiet |= strcmp(o, "--json") != 0;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	*argcp = argc;
	*argvp = argv;
	return 0;
}

/*
 * --help and --version anywhere, as ip and bpftool take them: help for the
 * command named on the line (and the syncookie command named after it),
 * or for all of them. 1 if one was there and answered.
 */
static int cg_help_or_version(int argc, char **argv)
{
	const struct cg_cmd *cmd = NULL;
	int i, help = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))
			return !cg_version();
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	}
	if (!help)
		return 0;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--wait")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-') {
			cmd = cg_cli_find(&cg_cli, argv[i]);
			break;
		}
	}
	if (cmd && !strcmp(cmd->name, "syncookie") && !cg_syncookie_help(argc - i, argv + i))
		return 1;
	if (cmd && cmd->help)
		cg_cli_help(&cg_cli, cmd, stdout);
	else
		cg_cli_main_help(stdout);
	return 1;
}

int main(int argc, char **argv)
{
	const struct cg_cmd *cmd;
	struct cg_args a = {};
	int ret;

	if (cg_help_or_version(argc, argv))
		return 0;
	ret = cg_global_options(&argc, &argv);
	if (ret)
		return ret;
	if (argc < 2)
		return cg_usage_err("no command");
	cmd = cg_cli_find(&cg_cli, argv[1]);
	if (!cmd)
		return cg_usage_err("unknown command '%s'", argv[1]);
	cg_log_libbpf();
	if (!cmd->opts)		/* parses its own line (syncookie) */
		return cmd->run(NULL, argc, argv);
	a.cmd = cmd->name;
	ret = cg_cli_parse(&cg_cli, cmd, argc, argv, 2, cg_args_set, &a);
	if (ret)
		return ret;
	a.operands = argv + optind;
	a.noperands = argc - optind;
	ret = cmd->run(&a, argc, argv);
	free(a.match);
	return ret;
}
