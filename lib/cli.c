// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* cli.c - the command-line checks every command shares (see cli.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"

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

int cg_cli_need_root(const char *verb)
{
	if (geteuid() == 0)
		return 0;
	cg_err("cannot %s: must be run as root", verb);
	return -EPERM;
}
