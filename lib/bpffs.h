/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_BPFFS_H
#define CG_BPFFS_H

#include <linux/types.h>

/* mkdir 0700; an existing directory is fine. 0 or -errno. */
int cg_mkdir(const char *path);
struct cg_ack;
/* /sys/fs/bpf is a bpffs that outlives us: 0, or -errno with ack's reason */
int cg_bpffs_ready(struct cg_ack *ack);
/* The one element of the array map pinned at path, created if missing. */
int cg_pin_array_put(const char *path, const char *name, const void *val, __u32 size);
/* Element key of the array map pinned at path. */
int cg_pin_array_get(const char *path, __u32 key, void *val);
/* The same, only from a map whose values are size bytes (0: unchecked):
 * -EPROTO for another size (a layout of another loader), so nothing
 * overruns val. */
int cg_pin_array_get_sized(const char *path, __u32 key, void *val, __u32 size);

/* The link pinned at path: the head of its info (type, id, prog_id; a tcx
 * or XDP link's ifindex, 0 once its device is gone). 0 or -errno. */
struct cg_tcx_link_info;
int cg_pin_link_info(const char *path, struct cg_tcx_link_info *info);
/* Detach the link pinned at path from its hook, if there is one; its pin
 * stays (the program goes once the pin does too). */
void cg_pin_link_detach(const char *path);

#endif /* CG_BPFFS_H */
