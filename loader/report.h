/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include <net/if.h>
#include <stdbool.h>
#include <linux/types.h>

#include "ahead.h"
#include "backend.h"

/*
 * What a row's device is to status: guarded by a guard of its own; covered
 * by the module's completion guard where its own hook cannot exist (a
 * macvtap's egress on a kernel without netfilter egress); left alone on
 * purpose (--match, --no-containers); or unguarded, to alert on.
 */
enum cg_row_state { CG_ROW_UNGUARDED, CG_ROW_GUARDED, CG_ROW_COVERED, CG_ROW_EXCLUDED };
const char *cg_row_state_name(enum cg_row_state s);

/* One device as status reports it. */
struct cg_report_row {
	char dev[IF_NAMESIZE];
	const char *netns;	/* name, /proc/PID/ns/net, or NULL: the caller's */
	__u64 netns_ino;
	int ifindex;
	const char *backend;	/* "bpf", "kmod", NULL when unguarded */
	const char *kind;	/* a guest-facing kind (lib/link.h), or NULL */
	bool peer;		/* a pair (veth, netkit) whose peer is elsewhere: */
	int peer_nsid;		/* its namespace's nsid, seen from the row's */
	__u64 peer_ino;		/* and inode, 0: not named */
	struct cg_status st;
	struct cg_ahead ahead;	/* what runs before the guard */
	enum cg_row_state state;
	const char *why;	/* covered, excluded: by what, in words */
	bool other_userns;	/* its namespace is another user namespace's */
};

/* Rows, as status collects them */
struct cg_rows {
	struct cg_report_row *row;
	int n, cap;
};

/*
 * status.c: the rows of dev (in netns), or without dev of every guarded
 * and every unguarded guest-facing device of netns, or without either of
 * the whole host; added to rs (free rs->row). 0, or -errno with the reason
 * in ack.
 */
struct cg_ack;
/*
 * The devices watch leaves alone, for status to mark excluded rather than
 * unguarded: those no glob of match names (none: every name), and with
 * no_containers veth and netkit devices. Until called, none.
 */
void cg_status_exclude(const char *const *match, int nmatch, bool no_containers);
int cg_status_rows(const char *dev, const char *netns, struct cg_rows *rs, struct cg_ack *ack);

/*
 * The name a row's namespace is reported by (JSON, text, Prometheus): its
 * name, else its inode in decimal (which --netns takes too), never the
 * /proc/PID/ns/net path that led to it this time: a series or a key must
 * not move when that process exits. NULL for the caller's own namespace.
 */
const char *cg_report_netns(const struct cg_report_row *r, char *buf, size_t n);

/* report.c: the rows in the Prometheus text exposition format, on stdout,
 * with the time they were read (csum_guard_status_timestamp_seconds). */
void cg_report_prometheus(const struct cg_report_row *rows, int n);
/* The completion guard's metrics (host-wide): after the devices'; available:
 * it can be on here (it is, or nothing keeps it from being switched on) */
void cg_report_prometheus_completion(const struct cg_completion *c, bool available);

/* The guards put back, by reason (host-wide: repairs.h) */
struct cg_repairs;
void cg_report_prometheus_repairs(const struct cg_repairs *r);

#endif /* CG_REPORT_H */
