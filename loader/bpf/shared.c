// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * shared.c - what the bpf guards of a host share (see guard.h):
 * one verified program per kind of load, and the per-device counters that
 * keep each device's drops its own while they run the same program.
 *
 * Each is made crash-safe by its pin: a program or map is pinned whole, in
 * one call, or not at all (a loader killed before leaves nothing the
 * kernel keeps). Every writer holds the host lock; status only reads.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "log.h"
#include "macros.h"
#include "sha256.h"
#include "state.h"
#include "guard.h"

/* CG_PIN_SHARED/<sha>-<mode>[-log] of this loader's built-in object */
static void cg_shared_path(char *buf, size_t n, __u32 mode, bool log_drops)
{
	struct cg_attach_opts o = {};
	struct cg_origin g;
	char hex[CG_SHA256_HEX + 1];

	cg_origin_of(&o, &g);
	cg_sha256_hex(g.object_sha256, hex);
	hex[16] = '\0';
	snprintf(buf, n, "%s/%s-%s%s", CG_PIN_SHARED, hex, cg_mode_name(mode),
		 log_drops ? "-log" : "");
}

bool cg_shared_pinned(__u32 mode, bool log_drops)
{
	char path[PATH_MAX];

	cg_shared_path(path, sizeof(path), mode, log_drops);
	return !access(path, F_OK);
}

int cg_devcnt_fd(void)
{
	int fd = bpf_obj_get(CG_PIN_DEVCNT);

	return fd < 0 ? -errno : fd;
}

int cg_devcnt_pin(const struct cg_obj *o)
{
	int err;

	if (!o->dev_counters || !access(CG_PIN_DEVCNT, F_OK))
		return 0;
	err = cg_mkdir(CG_PIN_ROOT);
	if (!err)
		err = cg_mkdir(CG_PIN_SHARED);
	if (!err && bpf_obj_pin(bpf_map__fd(o->dev_counters), CG_PIN_DEVCNT) && errno != EEXIST)
		err = -errno;
	return err;
}

__u32 cg_devcnt_id(void)
{
	return cg_pin_id(CG_PIN_DEVCNT);
}

/* Does pre's loaded program count into the host's dev_counters? */
static bool cg_prog_uses_devcnt(const struct cg_obj *pre)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(pre->dev_counters), &info, &len))
		return false;
	return info.id && info.id == cg_devcnt_id();
}

/* Does the loaded program fd count into the host's pinned dev_counters? */
static bool cg_fd_uses_devcnt(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), maps[8], i, id = cg_devcnt_id();

	info.nr_map_ids = ARRAY_SIZE(maps);
	info.map_ids = (__u64)(unsigned long)maps;
	if (!id || bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(maps); i++)
		if (maps[i] == id)
			return true;
	return false;
}

/*
 * Remove the programs of other objects than ours (an older loader's, that
 * upgrade moved its guards off): a guard still running one holds it by its
 * link or its own pin, so this only stops new guards from taking it.
 */
static void cg_shared_forget_others(const char *keep_prefix)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	d = opendir(CG_PIN_SHARED);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "dev_counters") ||
		    !strncmp(de->d_name, keep_prefix, strlen(keep_prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", CG_PIN_SHARED, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

int cg_shared_prog(__u32 mode, bool log_drops, struct cg_obj *pre, char *why, size_t why_len)
{
	struct cg_attach_opts o = { .log_drops = log_drops };
	char path[PATH_MAX], prefix[32], *dash;
	struct cg_obj obj = {};
	int fd, err;

	cg_shared_path(path, sizeof(path), mode, log_drops);
	fd = bpf_obj_get(path);
	if (fd >= 0 && cg_fd_uses_devcnt(fd))
		return fd;
	if (fd >= 0) {
		/* a run killed while it removed the shared pins left this one
		 * without the map it counts in: load anew */
		close(fd);
		unlink(path);
	} else if (errno != ENOENT) {
		err = -errno;
		snprintf(why, why_len, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	/*
	 * The first guard of its kind on this host: verify it, once (or
	 * take the copy a watcher verified ahead, if it counts into the
	 * host's dev_counters: it was loaded when there were none, or
	 * reused them).
	 */
	if (pre && pre->prog && pre->mode == mode && pre->log == log_drops &&
	    pre->dev_counters && (access(CG_PIN_DEVCNT, F_OK) || cg_prog_uses_devcnt(pre))) {
		obj = *pre;
		memset(pre, 0, sizeof(*pre));
	} else {
		err = cg_load(&obj, &o, mode, -1, why, why_len);
		if (err)
			return err;
	}
	err = cg_devcnt_pin(&obj);
	if (err) {
		snprintf(why, why_len, "cannot pin %s: %s", CG_PIN_DEVCNT, strerror(-err));
		goto out;
	}
	snprintf(prefix, sizeof(prefix), "%s", strrchr(path, '/') + 1);
	dash = strchr(prefix, '-');
	if (dash)
		dash[1] = '\0';
	cg_shared_forget_others(prefix);
	if (bpf_obj_pin(bpf_program__fd(obj.prog), path)) {
		err = -errno;
		snprintf(why, why_len, "cannot pin %s: %s", path, strerror(-err));
		goto out;
	}
	fd = dup(bpf_program__fd(obj.prog));
	err = fd < 0 ? -errno : fd;
out:
	cg_obj_close(&obj);
	return err;
}

/* One zeroed value of the per-CPU map: the CPUs' slots side by side */
static void *cg_devcnt_zero(size_t *size)
{
	int ncpu = libbpf_num_possible_cpus();

	if (ncpu <= 0)
		return NULL;
	*size = ncpu * sizeof(struct cg_dev_counters);
	return calloc(ncpu, sizeof(struct cg_dev_counters));
}

static void cg_devcnt_key(const struct cg_meta *m, struct cg_dev_key *k)
{
	memset(k, 0, sizeof(*k));
	k->netns_cookie = m->netns_cookie;
	k->ifindex = m->ifindex;
}

int cg_devcnt_add(const struct cg_meta *m, bool fresh)
{
	struct cg_dev_key k;
	size_t size;
	void *zero = cg_devcnt_zero(&size);
	int fd, err = 0;

	if (!zero)
		return -ENOMEM;
	fd = cg_devcnt_fd();
	if (fd < 0) {
		free(zero);
		return fd;
	}
	cg_devcnt_key(m, &k);
	if (bpf_map_update_elem(fd, &k, zero, fresh ? BPF_ANY : BPF_NOEXIST) &&
	    errno != EEXIST)
		err = -errno;
	close(fd);
	free(zero);
	return err;
}

void cg_devcnt_del(const struct cg_meta *m)
{
	struct cg_dev_key k;
	int fd;

	if (!(m->flags & CG_META_DEVCNT))
		return;
	fd = cg_devcnt_fd();
	if (fd < 0)
		return;
	cg_devcnt_key(m, &k);
	bpf_map_delete_elem(fd, &k);
	close(fd);
}

int cg_devcnt_sum(const struct cg_meta *m, __u64 *sum)
{
	struct cg_dev_counters *v;
	struct cg_dev_key k;
	size_t size;
	int fd, i, j, ncpu, err = 0;

	v = cg_devcnt_zero(&size);
	if (!v)
		return -ENOMEM;
	ncpu = size / sizeof(*v);
	fd = cg_devcnt_fd();
	if (fd < 0) {
		free(v);
		return fd;
	}
	cg_devcnt_key(m, &k);
	if (bpf_map_lookup_elem(fd, &k, v))
		err = -errno;
	for (i = 0; !err && i < ncpu; i++)
		for (j = 0; j < CG_CNT_MAX; j++)
			sum[j] += v[i].cnt[j];
	close(fd);
	free(v);
	return err;
}

/*
 * The last guard of the host went (the namespaces' directories are gone):
 * its shared programs and counters go too, so that a host without guards
 * holds nothing of ours.
 */
void cg_shared_gc(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	d = opendir(CG_PIN_ROOT);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (strtoull(de->d_name, NULL, 10)) {
			closedir(d);
			return;		/* a namespace's guards are left */
		}
	closedir(d);
	/* the programs first, the map they count in last (cg_shared_prog) */
	d = opendir(CG_PIN_SHARED);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "dev_counters"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", CG_PIN_SHARED, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	unlink(CG_PIN_DEVCNT);
	rmdir(CG_PIN_SHARED);
	rmdir(CG_PIN_ROOT);
}
