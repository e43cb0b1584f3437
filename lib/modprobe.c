// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * modprobe.c - load a kernel module the way the system does, without a
 * shell: the kmod backend loads csum_guard, check loads tun. What modprobe
 * says on failure is kept: it is the kernel's reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "modprobe.h"
#include "spawn.h"

/*
 * Run argv (argv[0] found in PATH, then /usr/sbin and /sbin, lib/spawn.c)
 * with argv, the output of descriptor keep (1 or 2) into out (n bytes at
 * most, NUL-ended), the rest to /dev/null. Its exit status, 127 when it is
 * not found, or -errno.
 */
static int cg_run_tool(char *const argv[], int keep, char *out, size_t n)
{
	const struct cg_spawn sp = {
		.argv = (const char *const *)argv, .netns = -1,
		.out = keep == 1 ? out : NULL, .out_len = keep == 1 ? n : 0,
		.err = keep == 2 ? out : NULL, .err_len = keep == 2 ? n : 0,
	};
	int ret;

	if (out && n)
		*out = '\0';
	ret = cg_spawn(&sp);
	if (ret < 0)
		return ret == -EINTR ? -ECHILD : ret;
	return ret;
}

/* The last non-empty line of s, in place, without "modprobe: ERROR: " */
static void cg_last_line(char *s)
{
	char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(s, '\n');
	start = start ? start + 1 : s;
	if (!strncmp(start, "modprobe: ", 10))
		start += 10;
	if (!strncmp(start, "ERROR: ", 7) || !strncmp(start, "FATAL: ", 7))
		start += 7;
	memmove(s, start, strlen(start) + 1);
}

int cg_modprobe(const char *module, bool dry_run, char *why, size_t n)
{
	char *argv[5];
	int ret, i = 0;

	argv[i++] = "modprobe";
	/* -q would silence the kernel's reason as well: only where none comes */
	if (dry_run) {
		argv[i++] = "-q";
		argv[i++] = "-n";
	}
	argv[i++] = (char *)module;
	argv[i] = NULL;
	ret = cg_run_tool(argv, 2, why, n);
	if (ret < 0)
		return ret;
	if (why && n)
		cg_last_line(why);
	return ret == 127 ? -ENOEXEC : ret ? -ENOENT : 0;
}

int cg_modinfo(const char *module, const char *field, char *out, size_t n)
{
	char *argv[] = { "modinfo", "-F", (char *)field, (char *)module, NULL };
	char *nl;
	int ret;

	ret = cg_run_tool(argv, 1, out, n);
	if (ret < 0)
		return ret;
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return ret == 127 ? -ENOEXEC : ret ? -ENOENT : 0;
}

bool cg_module_live(const char *module)
{
	char path[128], st[16] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", module);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, st, sizeof(st) - 1);
	close(fd);
	return n > 0 && !strncmp(st, "live", 4);
}
