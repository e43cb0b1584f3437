/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * state.h - the state protocol both guards share. Every command that
 * changes state holds one host lock. Each guarded device has a directory
 * on the host's bpffs, ROOT/<netns inode>/<ifindex>/, whose pins outlive
 * the process that made them; a later command finds the guard there. A
 * command acts on one target: a device (or none) in a network namespace
 * that it enters for the rest of its run.
 */
#ifndef CG_STATE_H
#define CG_STATE_H

#include <stddef.h>
#include <linux/types.h>

#define CG_LOCK_PATH	"/run/csum-guard.lock"

struct cg_ack;

/*
 * The host lock, held until exit: 0, or -errno with the reason in ack.
 * Held by another command: waited for as long as it takes (one line said),
 * or cg_lock_wait seconds at most (--wait SECONDS; 0: not at all), -EBUSY.
 */
int cg_lock_host(struct cg_ack *ack);
extern int cg_lock_wait;

struct cg_target {
	const char *dev;	/* device name as the user gave it, NULL: none */
	const char *netns;	/* namespace as the user gave it, NULL: ours */
	__u64 netns_ino;	/* inode of the target namespace */
	__u64 netns_cookie;	/* its cookie, 0 where the kernel has none */
	int ifindex;		/* resolved in the target namespace, 0: none */
};

/*
 * Enter netns (NULL: stay), identify it and find dev there (NULL: only the
 * namespace). On failure ack says why, for "cannot VERB DEV in netns NS: why".
 */
int cg_target_resolve(struct cg_target *t, const char *dev, const char *netns,
		      struct cg_ack *ack);
/*
 * The same, for a command that also acts on what is gone: a device that
 * does not exist (-ENODEV, with the namespace entered) or a namespace (a
 * name or a path) that does not (-ENOENT) are returned without a word.
 */
int cg_target_resolve_gone(struct cg_target *t, const char *dev, const char *netns,
			   struct cg_ack *ack);
/* "DEV in netns NS", or "DEV" in our own */
const char *cg_target_where(const struct cg_target *t, char *buf, size_t n);

/* root/<ino>/<ifindex>; empty if it does not fit */
void cg_state_dir(char *buf, size_t n, const char *root, __u64 ino, int ifindex);
/* dir/name; empty if it does not fit, so it names nothing else */
void cg_state_pin(char *buf, size_t n, const char *dir, const char *name);
/* root, the namespace directory and dir, each 0700: 0 or -errno */
int cg_state_mkdirs(const char *root, const char *dir);
/* Unlink dir/NAME for each name, then remove dir, its namespace directory
 * and root, each if it is left empty. */
void cg_state_unpin(const char *root, const char *dir, const char *const *names,
		    unsigned int n);

/*
 * The names a guard was attached under, pinned beside its meta (pin
 * CG_PIN_NAMES): what detach of a device, or of a namespace, that is gone
 * looks for. netns is as the user gave it, "" for the loader's own.
 */
#define CG_PIN_NAMES	"names"

struct cg_state_names {
	char dev[16];		/* IF_NAMESIZE */
	char netns[112];
};

int cg_state_names_put(const char *dir, const struct cg_target *t);
int cg_state_names_get(const char *dir, struct cg_state_names *n);
/* Put t's names where they differ from those pinned, or none are (a device
 * renamed since attach, a guard made by an older loader). */
void cg_state_names_refresh(const char *dir, const struct cg_target *t);

/* Called for one device directory: dir, its namespace's inode, the
 * device's ifindex. Nonzero stops the walk. */
typedef int (*cg_state_fn)(const char *dir, __u64 ino, int ifindex, void *arg);

/* fn for each device directory of namespace ino under root: fn's first
 * nonzero return, or 0. */
int cg_state_each_dev(const char *root, __u64 ino, cg_state_fn fn, void *arg);
/* fn for each namespace directory (its inode) under root: fn's first
 * nonzero return, or 0. */
int cg_state_each_ns(const char *root, int (*fn)(__u64 ino, void *arg), void *arg);

/*
 * fn for each device directory of namespace ino under root recorded under
 * the name dev whose device no longer exists here (whatever has the name
 * now): what detach of a device that is gone removes. The caller is in
 * that namespace. How many fn was called for (it returns 0).
 */
int cg_state_gone_devs(const char *root, __u64 ino, const char *dev, cg_state_fn fn, void *arg);

/*
 * fn for each device directory under root recorded under namespace name
 * netns (and device dev, NULL: any) whose namespace no longer exists on the
 * host: what detach of a namespace that is gone removes. How many fn was
 * called for (it returns 0).
 */
int cg_state_gone_netns(const char *root, const char *netns, const char *dev,
			cg_state_fn fn, void *arg);

/*
 * The head of each guard's meta, the one element of its pinned meta array
 * map: what attach did, for the commands that come later. Spelled once;
 * each guard's struct adds its own tail. It is the layout on bpffs of
 * running guards: change it only with the ABI version.
 */
#define CG_META_HEAD							\
	__u32 abi;							\
	__u32 mode;		/* how the program is attached */	\
	__u32 flags;							\
	__u32 ifindex;							\
	__u64 netns_cookie;	/* tells a reused namespace inode apart */ \
	__u32 prog_id

/*
 * fn(label, ino, arg) in every network namespace of the host but ours that
 * has a directory under root (root NULL: every one), with that namespace
 * entered; label is its name where it has one, else /proc/PID/ns/net. A
 * namespace that vanished since the scan is skipped. Stops at fn's first
 * error; -EIO (with ack's reason) if it cannot return to our namespace.
 */
int cg_state_each_netns(const char *root, int (*fn)(const char *label, __u64 ino, void *arg),
			void *arg, struct cg_ack *ack);

#endif /* CG_STATE_H */
