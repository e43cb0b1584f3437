/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * watch_int.h - between the watcher's loop and decisions (watch.c) and its
 * view of the host (ns.c: namespaces found by name or process, the
 * tun/tap devices each has, kept current from link events).
 */
#ifndef CG_WATCH_INT_H
#define CG_WATCH_INT_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <time.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "select.h"

#define CG_SCAN_MS	2000	/* the rescan of every name and process: what no
				 * event told (a process that left a namespace
				 * without exec, events lost) */
#define CG_QUICK_MS	100	/* an `ip netns add` file before its bind mount */
#define CG_RETRY_MS	30000	/* a device that could not be guarded */
#define CG_RETRY_UNREADY_MS 5000	/* the same, while not ready */
#define CG_LOST_MAX	3	/* rescans for a namespace out of reach, then
				 * it is a device that could not be guarded */
#define CG_LABEL_MAX	(NAME_MAX + 32)
#define CG_PRUNE_MS	200	/* first prune of a forgotten namespace's state */
#define CG_PRUNE_TRIES	12	/* then again, at twice the wait each time */
#define CG_CHECK_MS	250	/* the look at guards no event tells of: tcx
				 * links, the module's hooks (heal.c) */
#define CG_TEXTFILE_S	15	/* --textfile-interval's default */

enum cg_wstate { CG_W_TODO, CG_W_DONE, CG_W_FAILED };

struct cg_wdev {
	int ifindex;
	char name[IF_NAMESIZE];
	enum cg_wstate state;
	__u64 retry_at;
	/* what guarded it when last seen (heal.c): put back as it was */
	enum cg_choice had_by;
	bool had_egress, had_log_drops;
	char had_mode[16];
	bool check;		/* a tc event of its own: look now */
	int hint;		/* what that event said (enum cg_repair_reason) */
	int deferred;		/* looks put off: a command held the host lock */
	int lost;		/* rescans asked for: its namespace out of reach */
};

/*
 * A namespace watched: 40 bytes, by value in cg_watch.ns (sorted by inode),
 * for a host's thousands of namespaces where most hold no device of ours
 * (a pod's holds the other end of its veth). Its name is kept only while
 * it holds a device (for the log, and as its way in); one without is
 * entered, rarely, by its process or a name looked up again in /run/netns.
 */
struct cg_wns {
	__u64 ino;
	struct cg_wdev *devs;		/* room for a power of two of them */
	char *name;			/* NULL: none, or not kept */
	int pid;			/* its first process; 0: none */
	int nsid;			/* its id in ours (rtnl.c); -1: ours, none */
	int ndevs;
	unsigned int own:1, named:1, seen:1, named_now:1, pid_now:1, dump:1,
		     listed:1;		/* its first link dump has ended */
};
#define CG_WNS_WAY_MAX	32		/* "/proc/PID/ns/net" */

/* A namespace owned by another user namespace (an `unshare -rn`): not
 * watched, only counted (ns.c); a few bytes each, sorted by inode */
struct cg_wskip {
	__u64 ino;
	__u32 uid;		/* the owner of its user namespace */
	__u32 gen;		/* the scan that last saw it */
};

struct cg_watch {
	char **match;
	int nmatch;
	enum cg_choice backend;
	bool log_drops;
	bool no_completion;	/* --no-completion */
	bool no_containers;	/* --no-containers: no veth, no netkit */
	bool ready_on_failure;	/* --ready-on-failure */
	const char *textfile;	/* --textfile: NULL none */
	int textfile_interval;	/* --textfile-interval, seconds */
	bool textfile_failed;	/* its last write failed, and that was said */
	time_t last_scan;	/* the last full scan's end (Unix time) */
	int unready;		/* the failures last said while not ready */
	__u64 own_ino, own_userns;
	int sfd, ifd, wd;
	int rtfd;		/* every namespace's link and tc events (rtnl.c) */
	int qfd;		/* our questions: nsids, dumps */
	bool rescan;		/* a namespace's first process exited, or the
				 * way to one leads nowhere now */
	struct cg_wskip *skip;	/* namespaces of other user namespaces */
	int nskip, skipcap, nskip_said;
	__u32 gen;
	int cfd;		/* the proc connector: each exec, -1: none */
	/* the guard loaded ahead, for the next fresh attach (its child's
	 * copy is what it attaches); loaded again once one has taken it */
	struct cg_obj *preload;
	bool want_preload;
	int mfd;		/* /proc/self/mountinfo: `ip netns add`'s bind mount */
	bool ready;		/* READY=1 sent to the service manager */
	struct cg_wns *ns;	/* by inode */
	int nns, nscap;
	/* namespaces forgotten: what their guards left is pruned once the
	 * kernel has freed their devices, a while after their last process
	 * and our socket let go (tried at prune_at, CG_PRUNE_TRIES times) */
	__u64 *gone;
	int ngone, prune_tries;
	__u64 prune_at, prune_wait;
	__u64 next_check;	/* CG_CHECK_MS */
};

/* watch.c: matching, guarding, pruning, readiness */
__u64 cg_wnow_ms(void);
bool cg_wmatch(const struct cg_watch *w, const char *name);
int cg_wadd_match(struct cg_watch *w, const char *arg);
void cg_wpreload(struct cg_watch *w);
void cg_wpreload_drop(struct cg_watch *w);
bool cg_wprune_once(struct cg_watch *w);
void cg_wprune(struct cg_watch *w);
void cg_wwork(struct cg_watch *w);
void cg_wready(struct cg_watch *w);
void cg_wcompletion(const struct cg_watch *w);
struct cg_ahead;
struct cg_backend;
struct cg_status;
int cg_wspawn(struct cg_watch *w, struct cg_wns *ns, struct cg_wdev *d, char *why, size_t n);
/* *gone: 1 d is gone (or its name another device's), -1 its namespace
 * cannot be entered now (NULL returned: not known), else 0 */
const struct cg_backend *cg_wstatus(struct cg_wns *ns, struct cg_wdev *d, struct cg_status *st,
				    int *gone, struct cg_ahead *ahead);

/* heal.c: guards taken off or changed, seen and put back */
void cg_whad(struct cg_wdev *d, const struct cg_backend *b, const struct cg_status *st);
void cg_wtc_event(struct cg_wns *ns, const struct nlmsghdr *h);
void cg_wheal_all(struct cg_watch *w);

/* textfile.c: --textfile written now */
void cg_wtextfile(struct cg_watch *w);

/* rtnl.c: one socket for every namespace's events, one for questions */
int cg_wrtnl_open(struct cg_watch *w);
void cg_wrtnl_close(struct cg_watch *w);
int cg_wnsid(struct cg_watch *w, int nsfd, bool give);
void cg_wdump(struct cg_watch *w, struct cg_wns *ns);
void cg_wdump_due(struct cg_watch *w);
void cg_wrtnl_read(struct cg_watch *w);

/* ns.c: the namespaces */
int cg_wns_enter(struct cg_wns *ns);
const char *cg_wns_label(const struct cg_wns *ns, char *buf, size_t n);
const char *cg_wns_way(struct cg_wns *ns, char *buf, size_t n);
void cg_wns_keep_name(struct cg_wns *ns);
void cg_wns_free_all(struct cg_watch *w);
bool cg_wscan(struct cg_watch *w);
bool cg_wscan_named(struct cg_watch *w);
struct cg_netns_ref;
void cg_wfound(const struct cg_netns_ref *r, void *arg);

/* proc.c: the proc connector */
int cg_wproc_open(void);
bool cg_wproc_read(struct cg_watch *w);

/* links.c: the devices of each namespace */
void cg_wlink(struct cg_watch *w, struct cg_wns *ns, const struct nlmsghdr *h);
void cg_wdev_del(struct cg_wns *ns, struct cg_wdev *d);

#endif /* CG_WATCH_INT_H */
