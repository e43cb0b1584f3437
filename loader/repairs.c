// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * repairs.c - the count of guards put back (repairs.h). The file is text,
 * a line a count: "reason NAME N" and "device INO IFINDEX N"; a writer
 * takes flock() on it, reads, adds one and writes it again in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "macros.h"
#include "repairs.h"

static const char *const cg_repair_names[CG_REPAIR_MAX] = {
	[CG_REPAIR_QDISC] = "qdisc_deleted",
	[CG_REPAIR_FILTER] = "filter_deleted",
	[CG_REPAIR_PROGRAM] = "program_replaced",
	[CG_REPAIR_LINK] = "link_detached",
	[CG_REPAIR_MODULE] = "module_unloaded",
	[CG_REPAIR_HOOK] = "hook_gone",
	[CG_REPAIR_OPTIONS] = "options_changed",
};

const char *cg_repair_name(enum cg_repair_reason r)
{
	return r < CG_REPAIR_MAX ? cg_repair_names[r] : "unknown";
}

static const char *cg_repairs_path(void)
{
	const char *p = getenv("CSUM_GUARD_REPAIRS");

	return p && *p ? p : CG_REPAIRS_PATH;
}

/* The counts in f, from its start, into r; lines it does not know are left */
static void cg_repairs_parse(FILE *f, struct cg_repairs *r)
{
	char line[160], name[64];
	unsigned long long ino, n;
	int ifindex, i;

	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "reason %63s %llu", name, &n) == 2) {
			for (i = 0; i < CG_REPAIR_MAX; i++)
				if (!strcmp(name, cg_repair_names[i]))
					r->by_reason[i] = n;
		} else if (sscanf(line, "device %llu %d %llu", &ino, &ifindex, &n) == 3 &&
			   r->ndev < CG_REPAIRS_DEVS) {
			r->dev[r->ndev].ino = ino;
			r->dev[r->ndev].ifindex = ifindex;
			r->dev[r->ndev++].n = n;
		}
	}
}

int cg_repairs_read(struct cg_repairs *r)
{
	FILE *f = fopen(cg_repairs_path(), "re");

	memset(r, 0, sizeof(*r));
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	cg_repairs_parse(f, r);
	fclose(f);
	return 0;
}

__u64 cg_repairs_of(const struct cg_repairs *r, __u64 ino, int ifindex)
{
	int i;

	for (i = 0; i < r->ndev; i++)
		if (r->dev[i].ino == ino && r->dev[i].ifindex == ifindex)
			return r->dev[i].n;
	return 0;
}

int cg_repair_count(enum cg_repair_reason why, __u64 ino, int ifindex)
{
	static struct cg_repairs r;
	const char *path = cg_repairs_path();
	char dir[256], *slash;
	FILE *f;
	int fd, i, err = 0;

	if (why >= CG_REPAIR_MAX)
		return -EINVAL;
	/* the default's directory: /run is a tmpfs, made anew at boot */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r+");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	flock(fd, LOCK_EX);
	cg_repairs_parse(f, &r);
	r.by_reason[why]++;
	for (i = 0; i < r.ndev; i++)
		if (r.dev[i].ino == ino && r.dev[i].ifindex == ifindex)
			break;
	if (i == r.ndev && r.ndev < CG_REPAIRS_DEVS) {
		r.dev[i].ino = ino;
		r.dev[i].ifindex = ifindex;
		r.dev[i].n = 0;
		r.ndev++;
	}
	if (i < r.ndev)
		r.dev[i].n++;
	rewind(f);
	if (ftruncate(fd, 0))
		err = -errno;
	for (i = 0; i < CG_REPAIR_MAX; i++)
		fprintf(f, "reason %s %llu\n", cg_repair_names[i],
			(unsigned long long)r.by_reason[i]);
	for (i = 0; i < r.ndev; i++)
		fprintf(f, "device %llu %d %llu\n", (unsigned long long)r.dev[i].ino,
			r.dev[i].ifindex, (unsigned long long)r.dev[i].n);
	if (fflush(f) && !err)
		err = -errno;
	fclose(f);	/* and the lock with it */
	return err;
}
