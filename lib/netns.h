/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * netns.h - the target network namespace, entered for the duration of a
 * command, and every namespace of the host, found by name or by process.
 */
#ifndef CG_NETNS_H
#define CG_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define CG_NETNS_RUN_DIR "/run/netns"		/* where `ip netns` names them */

/* fd or -errno; ns is NAME (/run/netns), a path, or an inode in decimal
 * (a process of that namespace is looked for; a name wins over an inode) */
int cg_netns_open(const char *ns);
int cg_netns_enter(int fd);			/* 0 or -errno */
int cg_netns_restore(void);			/* back to where we started */
/* Back to where we started, or exit(1) with one line said: nothing may run
 * in another namespace by accident. */
void cg_netns_return(void);
/* A new, unnamed namespace held by the returned fd only; we stay in ours. */
int cg_netns_new(void);				/* fd or -errno */
int cg_netns_ino(__u64 *ino);			/* of the current namespace */
/* The inode of our user namespace (a network namespace we enter leaves it
 * as it is) */
int cg_userns_ino(__u64 *ino);			/* 0 or -errno */
/*
 * Whose is the network namespace of nsfd: 0 when its user namespace is
 * own_userns (root made it, or a service of root's), 1 when it is another
 * (any user's `unshare -rn`, a rootless container: the owner's uid into
 * *uid, if the kernel says), or -errno.
 */
int cg_netns_other_userns(int nsfd, __u64 own_userns, __u32 *uid);
int cg_netns_cookie(__u64 *cookie);		/* SO_NETNS_COOKIE, 0 before 5.14 */
struct cg_ack;
/* Enter the namespace ns (NULL: stay); ack says why not. */
int cg_netns_join(const char *ns, struct cg_ack *ack);

/*
 * How output names a namespace given as netns (NULL: the caller's own) with
 * inode ino: netns itself when it is a name, else the inode in decimal
 * (into buf), never the /proc/PID/ns/net path that led to it this time.
 */
const char *cg_netns_label(const char *netns, __u64 ino, char *buf, size_t n);

/* One way to a network namespace, as cg_netns_scan() found it. */
struct cg_netns_ref {
	__u64 ino;		/* the namespace's inode */
	const char *path;	/* opens it: /run/netns/NAME or /proc/PID/ns/net */
	const char *name;	/* NAME, or NULL when found through a process */
	int pid;		/* the process, or 0 when named */
};
/* fn for each way to each namespace; true if some could not be looked at */
bool cg_netns_scan(void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg);
/* The same for the named ones only (/run/netns), without the walk over
 * every process */
bool cg_netns_scan_named(void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg);
/* The namespace of process pid, as a scan would find it: 0, or -errno
 * (no such process, or its namespace is not one a scan finds) */
int cg_netns_of_pid(int pid, void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg);

#endif /* CG_NETNS_H */
