// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * modules.c - what check leaves of the kernel's modules: the reproduction
 * loads some (tun, veth, the iptables targets, nfnetlink_queue) as it
 * builds its paths; afterwards check unloads those that were not loaded
 * before it and that nothing uses, newest first, as rmmod would.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "topo.h"

/* The names /proc/modules lists, newest first, one string each in *names */
static int ck_mods_read(char (**names)[64])
{
	char line[512], (*v)[64] = NULL, (*nv)[64];
	int n = 0;
	FILE *f = fopen("/proc/modules", "re");

	*names = NULL;
	if (!f)
		return -1;	/* no module support: nothing to do */
	while (fgets(line, sizeof(line), f)) {
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		sscanf(line, "%63s", v[n++]);
	}
	fclose(f);
	*names = v;
	return n;
}

int ck_mods_snapshot(struct ck_mods *m)
{
	m->n = ck_mods_read(&m->name);
	return m->n < 0 ? -1 : 0;
}

static bool ck_mods_has(const struct ck_mods *m, const char *name)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->name[i], name))
			return true;
	return false;
}

int ck_mods_unload_new(struct ck_mods *before, char *done, size_t len)
{
	char (*now)[64];
	int i, n, pass, unloaded = 0;
	size_t used = 0;

	done[0] = '\0';
	if (before->n < 0)
		return 0;
	/*
	 * A module freed in one pass may free those it used in the next, and
	 * the namespaces the paths made go in the kernel's own time, holding
	 * theirs until then: passes until none of ours is left, 3 s at most.
	 */
	for (pass = 0; pass < 30; pass++) {
		int left = 0;

		n = ck_mods_read(&now);
		for (i = 0; i < n; i++) {
			if (ck_mods_has(before, now[i]))
				continue;
			if (syscall(SYS_delete_module, now[i], O_NONBLOCK)) {
				left++;		/* in use: maybe by a namespace going */
				continue;
			}
			unloaded++;
			if (used < len)
				used += snprintf(done + used, len - used, "%s%s", used ? " " : "", now[i]);
		}
		free(now);
		if (!left)
			break;
		usleep(100 * 1000);
	}
	free(before->name);
	before->name = NULL;
	return unloaded;
}
