// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * modprobe.c - load a kernel module the way the system does, without a
 * shell: the kmod backend loads csum_guard, check loads tun.
 */
#include <errno.h>

#include "modprobe.h"
#include "spawn.h"

int cg_modprobe(const char *module, bool dry_run)
{
	const char *argv[5];
	struct cg_spawn s = { .argv = argv, .netns = -1 };
	int n = 0, ret;

	argv[n++] = "modprobe";
	argv[n++] = "-q";
	if (dry_run)
		argv[n++] = "-n";
	argv[n++] = module;
	argv[n] = NULL;
	ret = cg_spawn(&s);
	if (ret < 0)
		return ret == -EINTR ? -ECHILD : ret;
	return ret == CG_SPAWN_NOTFOUND ? -ENOEXEC : ret ? -ENOENT : 0;
}
