// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bpffs.c - the guards' state lives on the host's bpffs, which must outlive
 * the process that pins it: directories, small pinned array maps, and the
 * links that hold the guards on their hooks.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpffs.h"
#include "compat.h"
#include "log.h"

int cg_mkdir(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static bool cg_same_mntns_as_init(void)
{
	struct stat a, b;

	/* cannot tell (a /proc that hides init's, as under `ip netns exec`): no */
	if (stat("/proc/self/ns/mnt", &a) || stat("/proc/1/ns/mnt", &b))
		return false;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/*
 * Pins must outlive this process, so they go on the host's bpffs. Mount it
 * if nobody has, but never inside a private mount namespace (as under
 * `ip netns exec`): a bpffs mounted there dies with us, and a tcx link
 * pinned on it would vanish with the guard.
 */
int cg_bpffs_ready(struct cg_ack *ack)
{
	struct statfs sfs;

	if (!statfs("/sys/fs/bpf", &sfs) && sfs.f_type == BPF_FS_MAGIC)
		return 0;
	if (!cg_same_mntns_as_init())
		return cg_ack_err(ack, -ENOTSUP, "/sys/fs/bpf is not a bpffs in this mount namespace (under `ip netns exec`?): use --netns instead");
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return cg_ack_err(ack, -errno, "cannot mount a bpffs on /sys/fs/bpf: %s",
				  strerror(errno));
	return 0;
}

/* Element key of the array map pinned at path. */
int cg_pin_array_get(const char *path, __u32 key, void *val)
{
	return cg_pin_array_get_sized(path, key, val, 0);
}

int cg_pin_array_get_sized(const char *path, __u32 key, void *val, __u32 size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (size && bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	else if (size && info.value_size != size)
		err = -EPROTO;
	else if (bpf_map_lookup_elem(fd, &key, val))
		err = -errno;
	close(fd);
	return err;
}

int cg_pin_array_put(const char *path, const char *name, const void *val, __u32 size)
{
	__u32 key = 0;
	int fd, err = 0;

	fd = bpf_obj_get(path);
	if (fd < 0) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(key), size, 1, NULL);
		if (fd < 0)
			return -errno;
		if (bpf_obj_pin(fd, path)) {
			err = -errno;
			goto out;
		}
	}
	if (bpf_map_update_elem(fd, &key, val, BPF_ANY))
		err = -errno;
out:
	close(fd);
	return err;
}

int cg_pin_link_info(const char *path, struct cg_tcx_link_info *info)
{
	__u32 len = sizeof(*info);
	int fd, err = 0;

	memset(info, 0, sizeof(*info));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		err = -errno;
	close(fd);
	return err;
}

void cg_pin_link_detach(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		return;
	bpf_link_detach(fd);
	close(fd);
}
