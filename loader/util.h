/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_UTIL_H
#define CG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One line on stderr, prefixed "csum-guard: ". */
void cg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Bad usage: one line on stderr pointing at csum-guard help; returns 2. */
int cg_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress for humans, on stderr, unless --quiet. */
void cg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool cg_quiet;

/* netns.c: the target namespace, entered for the duration of a command. */
int cg_netns_open(const char *ns);		/* fd or -errno */
int cg_netns_enter(int fd);			/* 0 or -errno */
int cg_netns_restore(void);			/* back to where we started */
int cg_netns_ino(__u64 *ino);			/* of the current namespace */
int cg_netns_cookie(__u64 *cookie);		/* SO_NETNS_COOKIE */
/* main.c: enter the namespace named by --netns (NULL: stay); one line says why not. */
int cg_netns_join(const char *ns, const char *verb);

/* backend_bpf.c: bpffs, which the guards' pins must outlive us on. */
int cg_bpffs_ready(void);			/* 0, or -errno (-ENOTSUP: said why) */
int cg_pin_array_put(const char *path, const char *name, const void *val, __u32 size);
int cg_pin_array_get(const char *path, __u32 key, void *val);
/* Any tc filter on either side of ifindex's clsact? (cannot tell: yes) */
bool cg_clsact_has_filters(int ifindex);
/* Does this kernel have tcx links (6.6+)? */
bool cg_have_tcx(void);

#define CG_NETNS_RUN_DIR "/run/netns"		/* where `ip netns` names them */

/* One way to a network namespace, as cg_netns_scan() found it. */
struct cg_netns_ref {
	__u64 ino;		/* the namespace's inode */
	const char *path;	/* opens it: /run/netns/NAME or /proc/PID/ns/net */
	const char *name;	/* NAME, or NULL when found through a process */
	int pid;		/* the process, or 0 when named */
};
bool cg_netns_scan(void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg);

/* modprobe.c: modprobe -q [-n] MODULE; 0, -ENOENT (failed), -ENOEXEC (no modprobe) */
int cg_modprobe(const char *module, bool dry_run);

/* json.c: a small streaming writer for stdout. */
void cg_json_str(const char *s);		/* a quoted, escaped string */
void cg_json_kv_str(bool *first, const char *k, const char *v);	/* v NULL: null */
void cg_json_kv_u64(bool *first, const char *k, __u64 v);
void cg_json_kv_bool(bool *first, const char *k, bool v);

#endif /* CG_UTIL_H */
