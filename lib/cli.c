// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* cli.c - the command-line checks every command shares (see cli.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"

const struct cg_cmd *cg_cli_find(const struct cg_cli *cli, const char *name)
{
	const struct cg_cmd *c;

	for (c = cli->cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static const struct cg_opt *cg_cli_opt(const struct cg_cli *cli, int val)
{
	const struct cg_opt *o;

	for (o = cli->opts; o->name; o++)
		if (o->val == val)
			return o;
	return NULL;
}

/* "--all goes with detach", "--json goes with status, probe and check" */
static int cg_cli_goes_with(const struct cg_cli *cli, const struct cg_opt *o)
{
	const char *sub = strchr(cli->prog, ' ');	/* "syncookie" of its commands */
	const struct cg_cmd *c;
	char with[256] = "";
	size_t len = 0;
	int n = 0, i = 0;

	for (c = cli->cmds; c->name; c++)
		n += c->opts && strchr(c->opts, o->val);
	for (c = cli->cmds; c->name; c++) {
		if (!c->opts || !strchr(c->opts, o->val))
			continue;
		i++;
		len += snprintf(with + len, len < sizeof(with) ? sizeof(with) - len : 0, "%s%s%s%s",
				i == 1 ? "" : i == n ? " and " : ", ", sub ? sub + 1 : "",
				sub ? " " : "", c->name);
		if (len >= sizeof(with))
			break;
	}
	return cg_usage_err("--%s goes with %s", o->name, with);
}

int cg_cli_parse(const struct cg_cli *cli, const struct cg_cmd *cmd, int argc, char **argv,
		 int first, int (*set)(int val, const char *arg, void *ctx), void *ctx)
{
	struct option *lo;
	const struct cg_opt *o;
	int n = 0, c, ret = 0;

	for (o = cli->opts; o->name; o++)
		n++;
	lo = calloc(n + 1, sizeof(*lo));
	if (!lo)
		return cg_usage_err("out of memory");
	for (n = 0, o = cli->opts; o->name; o++, n++)
		lo[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					 NULL, o->val };
	opterr = 0;
	optind = first;
	while (!ret && (c = getopt_long(argc, argv, ":q", lo, NULL)) != -1) {
		o = c == ':' || c == '?' ? NULL : cg_cli_opt(cli, c);
		if (!o)
			ret = cg_cli_bad_option(c, argv);
		else if (!cmd->opts || !strchr(cmd->opts, c))
			ret = cg_cli_goes_with(cli, o);
		else
			ret = set(c, optarg, ctx);
	}
	free(lo);
	return ret;
}

/* One usage form: continuation lines indented under the first's operands */
static void cg_cli_form(FILE *f, const char *lead, const char *prog, const char *name,
			const char *form)
{
	int indent = (int)(strlen(lead) + strlen(prog) + strlen(name) + 2);
	const char *nl;

	fprintf(f, "%s%s %s", lead, prog, name);
	while (form) {
		nl = strchr(form, '\n');
		fprintf(f, "%s%.*s\n", *form ? " " : "",
			nl ? (int)(nl - form) : (int)strlen(form), form);
		form = nl ? nl + 1 : NULL;
		if (form)
			fprintf(f, "%*s", indent - 1, "");
	}
}

void cg_cli_usage_cmd(const struct cg_cli *cli, const struct cg_cmd *cmd, FILE *f, bool first)
{
	const char *const *u;

	for (u = cmd->usage; *u; u++) {
		cg_cli_form(f, first ? "Usage: " : "       ", cli->prog, cmd->name, *u);
		first = false;
	}
}

/* text in words on lines of at most width columns, the first starting at
 * column col, the next at indent */
static void cg_cli_wrap(FILE *f, const char *text, int col, int indent, int width)
{
	const char *w = text;
	int n;

	while (*w) {
		n = (int)strcspn(w, " ");
		if (col > indent && col + 1 + n > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col < indent) {
			fprintf(f, "%*s", indent - col, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", n, w);
		col += n;
		w += n;
		w += strspn(w, " ");
	}
	fputc('\n', f);
}

void cg_cli_help(const struct cg_cli *cli, const struct cg_cmd *cmd, FILE *f)
{
	const char *const *u;
	const struct cg_opt *o;
	const char *v;
	char head[64];

	for (u = cmd->usage; *u; u++)
		cg_cli_form(f, u == cmd->usage ? "Usage: " : "       ", cli->prog, cmd->name, *u);
	fprintf(f, "\n%s", cmd->help);
	if (cmd->opts && *cmd->opts) {
		fputs("\nOptions:\n", f);
		for (v = cmd->opts; *v; v++) {
			o = cg_cli_opt(cli, *v);
			if (!o)
				continue;
			snprintf(head, sizeof(head), "--%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
			fprintf(f, "  %-22s%s", head, strlen(head) > 21 ? "\n" : "");
			cg_cli_wrap(f, o->help, strlen(head) > 21 ? 0 : 24, 24, 79);
		}
	}
	if (cli->common)
		fprintf(f, "\n%s", cli->common);
}

int cg_cli_bad_option(int c, char **argv)
{
	if (c == ':')
		return cg_usage_err("%s needs an argument", argv[optind - 1]);
	return cg_usage_err("unknown option '%s'", argv[optind - 1]);
}

/* What the kernel takes as a device name (dev_valid_name()) */
bool cg_cli_dev_valid(const char *dev)
{
	const char *c;

	if (!*dev || strlen(dev) >= IFNAMSIZ || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return false;
	for (c = dev; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return false;
	return true;
}

int cg_cli_device(int argc, char **argv, const char *what, bool takes_dev, bool needs_dev,
		  const char **dev)
{
	*dev = NULL;
	if (optind < argc) {
		if (!takes_dev)
			return cg_usage_err("%s takes no device", what);
		*dev = argv[optind++];
	}
	if (optind < argc)
		return cg_usage_err("unexpected argument '%s'", argv[optind]);
	if (!*dev && needs_dev)
		return cg_usage_err("%s needs a device", what);
	if (*dev && !cg_cli_dev_valid(*dev))
		return cg_usage_err("'%s' is not a valid device name", *dev);
	return 0;
}

int cg_cli_shared_set(int val, const char *arg, const char **netns)
{
	switch (val) {
	case 'n':
		if (!*arg)
			return cg_usage_err("--netns needs a name or a path");
		*netns = arg;
		return 0;
	case 'q':
		cg_quiet = true;
		return 0;
	}
	return -1;
}

int cg_cli_need_root(const char *verb)
{
	if (geteuid() == 0)
		return 0;
	cg_err("cannot %s: must be run as root", verb);
	return -EPERM;
}
