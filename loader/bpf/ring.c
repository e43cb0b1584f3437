// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ring.c - the drop events' ring the bpf guards of a host share.
 *
 * The loader hands each program it loads the ring of a guard already
 * there, found through that guard's pinned link or program, so the ring
 * lives exactly as long as a guard does and nothing else is pinned.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "compat.h"
#include "guard.h"
#include "macros.h"
#include "state.h"
#include "csum_guard.h"

/* The ring buffer among the maps of a program: a new fd, or -ENOENT. */
static int cg_ring_of_prog(int prog_fd, __u32 *ring_id)
{
	__u32 ids[16], len, i;
	struct bpf_prog_info pi = {};
	struct bpf_map_info mi;
	int fd;

	pi.nr_map_ids = ARRAY_SIZE(ids);
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		return -errno;
	for (i = 0; i < pi.nr_map_ids && i < ARRAY_SIZE(ids); i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(fd, &mi, &len) && mi.type == BPF_MAP_TYPE_RINGBUF &&
		    mi.max_entries == CG_EVENTS_BYTES && !strcmp(mi.name, CG_BPF_MAP_EVENTS)) {
			if (ring_id)
				*ring_id = mi.id;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/* The program of the guard whose pins are in dir: an fd, or -errno. */
static int cg_prog_of_dir(const char *dir)
{
	static const char *const links[] = { CG_PIN_LINK, CG_PIN_LINK_EGRESS };
	struct cg_tcx_link_info li;
	char path[PATH_MAX];
	int fd, i;

	for (i = 0; i < (int)ARRAY_SIZE(links); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, links[i]);
		if (cg_pin_link_info(path, &li))
			continue;
		fd = bpf_prog_get_fd_by_id(li.prog_id);
		if (fd >= 0)
			return fd;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, CG_PIN_PROG);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/* The first guard's ring, in a walk over the guards on bpffs */
static int cg_ring_dev(const char *dir, __u64 ino, int ifindex, void *arg)
{
	int prog, fd, *found = arg;

	prog = cg_prog_of_dir(dir);
	if (prog < 0)
		return 0;
	fd = cg_ring_of_prog(prog, NULL);
	close(prog);
	if (fd < 0)
		return 0;
	*found = fd;
	return 1;
}

static int cg_ring_ns(__u64 ino, void *arg)
{
	return cg_state_each_dev(CG_PIN_ROOT, ino, cg_ring_dev, arg);
}

int cg_events_ring_fd(void)
{
	int fd = -ENOENT;

	cg_state_each_ns(CG_PIN_ROOT, cg_ring_ns, &fd);
	return fd;
}
