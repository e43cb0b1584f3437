// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * object.c - the guard's object: the built-in one, through its typed
 * skeleton, or one given with --object, found by name in its BTF and
 * checked for our ABI; loaded with the options in its read-only data.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "sha256.h"
#include "state.h"
#include "tc.h"
#include "guard.h"
#include "csum_guard.skel.h"

void cg_obj_close(struct cg_obj *o)
{
	if (o->skel)
		csum_guard_bpf__destroy(o->skel);
	else
		bpf_object__close(o->obj);	/* NULL-safe */
	memset(o, 0, sizeof(*o));
}

/* The object built into this loader, from this very tree: typed access. */
static int cg_obj_open_builtin(struct cg_obj *o, char *why, size_t why_len)
{
	char msg[64];
	int err;

	memset(o, 0, sizeof(*o));
	o->skel = csum_guard_bpf__open();
	if (!o->skel) {
		err = -errno;
		libbpf_strerror(err, msg, sizeof(msg));
		snprintf(why, why_len, "cannot open the built-in object (%s)", msg);
		return err;
	}
	o->obj = o->skel->obj;
	o->prog = o->skel->progs.csum_guard;
	o->counters = o->skel->maps.counters;
	o->dev_counters = o->skel->maps.dev_counters;
	o->events = o->skel->maps.cg_events;
	o->log_drops = &o->skel->rodata->log_drops;
	return 0;
}

/*
 * A read-only global of the object, found by name in its BTF rather than at
 * an offset compiled into this loader: an object built from another tree
 * (attach --object) is read right or refused, never misread.
 */
static void *cg_rodata_var(struct bpf_object *obj, const char *name, __u32 want_size)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".rodata");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *var;
	char *data;
	size_t sz;
	int id, i;

	if (!map || !btf)
		return NULL;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	/* writable before load (libbpf 1.1 declares it const) */
	data = (char *)bpf_map__initial_value(map, &sz);
	if (id < 0 || !data)
		return NULL;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		var = btf__type_by_id(btf, vs->type);
		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->size != want_size || vs->offset + vs->size > sz)
			return NULL;
		return data + vs->offset;
	}
	return NULL;
}

/*
 * Open attach --object's bytes and check that they are a guard this loader
 * speaks to: the program and map by their ABI names, abi_version equal to
 * ours. Nothing is loaded into the kernel. why gets the reason of -ENOEXEC
 * (not a guard object) or -EPROTO (another ABI).
 */
static int cg_obj_open(struct cg_obj *o, const void *data, size_t size,
		       char *why, size_t why_len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "csum_guard");
	__u32 *abi;
	int err;

	memset(o, 0, sizeof(*o));
	o->obj = bpf_object__open_mem(data, size, &opts);
	if (!o->obj) {
		char msg[64];

		err = -errno;
		libbpf_strerror(err, msg, sizeof(msg));
		snprintf(why, why_len, "not a BPF object libbpf can open (%s)", msg);
		return -ENOEXEC;
	}
	o->prog = bpf_object__find_program_by_name(o->obj, CG_BPF_PROG_NAME);
	o->counters = bpf_object__find_map_by_name(o->obj, CG_BPF_MAP_COUNTERS);
	o->dev_counters = bpf_object__find_map_by_name(o->obj, CG_BPF_MAP_DEV_COUNTERS);
	o->events = bpf_object__find_map_by_name(o->obj, CG_BPF_MAP_EVENTS);
	abi = cg_rodata_var(o->obj, "abi_version", sizeof(*abi));
	o->log_drops = cg_rodata_var(o->obj, "log_drops", sizeof(bool));
	if (!o->prog || !o->counters || !abi || !o->log_drops) {
		snprintf(why, why_len, "not a csum-guard object (no %s)",
			 !o->prog ? "program " CG_BPF_PROG_NAME :
			 !o->counters ? "map " CG_BPF_MAP_COUNTERS :
			 !abi ? "abi_version" : "log_drops");
		cg_obj_close(o);
		return -ENOEXEC;
	}
	if (*abi != CG_ABI_VERSION) {
		snprintf(why, why_len, "its ABI version is %u, this loader speaks %u",
			 *abi, CG_ABI_VERSION);
		cg_obj_close(o);
		return -EPROTO;
	}
	return 0;
}

int cg_bpf_object_check(const void *data, size_t size, char *why, size_t why_len)
{
	struct cg_obj o;
	int err = cg_obj_open(&o, data, size, why, why_len);

	cg_obj_close(&o);
	return err;
}

/* map is to be fd, if fd is a map (>= 0); fd is closed. */
static int cg_map_reuse(struct bpf_map *map, int fd)
{
	int err;

	if (fd < 0)
		return 0;
	err = bpf_map__reuse_fd(map, fd);
	close(fd);
	return err;
}

/*
 * Open, set up and load a guard program; counters_fd >= 0 reuses a map.
 * why says what failed.
 */
int cg_load(struct cg_obj *o, const struct cg_attach_opts *opts, __u32 mode,
	    int counters_fd, char *why, size_t why_len)
{
	int err;

	err = opts->object ? cg_obj_open(o, opts->object, opts->object_size, why, why_len) :
			     cg_obj_open_builtin(o, why, why_len);
	if (err)
		return err;
	*o->log_drops = opts->log_drops;
	if (opts->log_drops && !o->events) {
		snprintf(why, why_len, "the object has no map %s for --log-drops to report to",
			 CG_BPF_MAP_EVENTS);
		cg_obj_close(o);
		return -ENOEXEC;
	}
	if (mode == CG_MODE_TCX)
		bpf_program__set_expected_attach_type(o->prog, CG_BPF_TCX_INGRESS);
	if (counters_fd >= 0) {
		err = bpf_map__reuse_fd(o->counters, counters_fd);
		if (err)
			goto fail;
	}
	/* one map of counters for the host's devices, one ring for the
	 * host: the ones there are, if any (shared.c, ring.c) */
	if (o->dev_counters)
		err = cg_map_reuse(o->dev_counters, cg_devcnt_fd());
	if (!err && o->events)
		err = cg_map_reuse(o->events, cg_events_ring_fd());
	if (err)
		goto fail;
	err = bpf_object__load(o->obj);
	if (err)
		goto fail;
	o->mode = mode;
	o->log = opts->log_drops;
	return 0;
fail:
	snprintf(why, why_len, "%s", strerror(-err));
	cg_obj_close(o);
	return err;
}

/* The kernel's tag of a loaded program: a hash of its instructions. */
int cg_prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

void cg_origin_of(const struct cg_attach_opts *o, struct cg_origin *g)
{
	static __u8 builtin[32];
	static bool have;
	const void *data;
	size_t size;

	memset(g, 0, sizeof(*g));
	snprintf(g->loader, sizeof(g->loader), "%s", CG_VERSION);
	if (o->object) {
		/* verified against --sha256 when it was read: not hashed again */
		memcpy(g->object_sha256, o->object_sha256, sizeof(g->object_sha256));
		return;
	}
	if (!have) {
		data = csum_guard_bpf__elf_bytes(&size);
		cg_sha256(data, size, builtin);
		have = true;
	}
	memcpy(g->object_sha256, builtin, sizeof(builtin));
}

int cg_origin_read(const char *dir, struct cg_origin *g)
{
	char path[PATH_MAX];
	int err;

	cg_state_pin(path, sizeof(path), dir, CG_PIN_ORIGIN);
	err = cg_pin_array_get_sized(path, 0, g, sizeof(*g));
	if (!err)
		g->loader[sizeof(g->loader) - 1] = 0;
	return err;
}

int cg_origin_write(const char *dir, const struct cg_origin *g)
{
	char path[PATH_MAX];

	cg_state_pin(path, sizeof(path), dir, CG_PIN_ORIGIN);
	return cg_pin_array_put(path, "cg_origin", g, sizeof(*g));
}
