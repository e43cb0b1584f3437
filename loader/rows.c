// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * rows.c - what every device is, for status, doctor, verify and the
 * metrics: a row per guard of every backend in every namespace, a row per
 * guest-facing device left unguarded, and each unguarded one classified
 * (excluded by the operator's choice or by whose namespace it is, or not).
 * Only reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link.h"
#include "netns.h"
#include "backends.h"
#include "report.h"

static struct cg_report_row *cg_row_add(struct cg_rows *rs)
{
	struct cg_report_row *p;

	if (rs->n == rs->cap) {
		p = realloc(rs->row, (rs->cap * 2 + 16) * sizeof(*p));
		if (!p)
			return NULL;
		rs->row = p;
		rs->cap = rs->cap * 2 + 16;
	}
	p = &rs->row[rs->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

/*
 * One namespace's status: its devices as one link dump gave them (their
 * kind and whether XDP runs there, so that no device costs a netlink
 * question of its own), then a row per guard, then one per guest-facing
 * device left unguarded.
 */
struct cg_ns_dev {
	int ifindex;
	int order;		/* in the dump */
	char name[IF_NAMESIZE];
	const struct cg_kind *kind;
	int peer_nsid;
	bool up, xdp, guarded;
};

struct cg_status_ns {
	struct cg_rows *rs;
	struct cg_ns_dev *dev;
	int ndev, cap;
	const char *netns;
	__u64 ino;
	/* nsid -> inode of the namespaces the pairs' peers are in */
	struct cg_nsid_ino { int nsid; __u64 ino; } *map;
	int nmap;
	bool mapped, map_all;
};

/*
 * Status's own namespace, where a container's link has its host end: each
 * namespace status can find, as an nsid of this one (one question each,
 * asked once, only if some device here has a peer elsewhere)
 */
static int cg_home_fd = -1;
static __u64 cg_home_ino;

static void cg_status_map_one(const struct cg_netns_ref *ref, void *arg)
{
	struct cg_status_ns *sn = arg;
	struct cg_nsid_ino *m;
	int fd, nsid, i;

	for (i = 0; i < sn->nmap; i++)
		if (sn->map[i].ino == ref->ino)
			return;
	fd = open(ref->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	nsid = cg_nsid_of(fd);
	close(fd);
	m = realloc(sn->map, (sn->nmap + 1) * sizeof(*m));
	if (!m)
		return;
	sn->map = m;
	sn->map[sn->nmap].nsid = nsid;
	sn->map[sn->nmap++].ino = ref->ino;
}

/* The inode of the namespace of nsid nsid, seen from sn's; 0: unknown.
 * From the namespace status was asked about (its own without --netns),
 * any namespace a scan finds; from the others of a host-wide listing,
 * status's own only (the host end of a container's link is there): a scan
 * from every namespace would cost the square of their number. */
static __u64 cg_status_peer_ino(struct cg_status_ns *sn, int nsid)
{
	int i;

	if (!sn->map_all) {
		if (cg_home_fd >= 0 && cg_nsid_of(cg_home_fd) == nsid)
			return cg_home_ino;
		return 0;
	}
	if (!sn->mapped) {
		sn->mapped = true;
		cg_netns_scan(cg_status_map_one, sn);
	}
	for (i = 0; i < sn->nmap; i++)
		if (sn->map[i].nsid == nsid)
			return sn->map[i].ino;
	return 0;
}

/* r's kind and, for a pair, its peer's namespace */
static void cg_status_kind(struct cg_status_ns *sn, struct cg_report_row *r,
			   const struct cg_ns_dev *d)
{
	r->kind = d->kind ? d->kind->kind : NULL;
	if (!d->kind || !d->kind->pair)
		return;
	r->peer = true;
	r->peer_nsid = d->peer_nsid;
	r->peer_ino = cg_status_peer_ino(sn, d->peer_nsid);
}

static int cg_status_link(const struct cg_link *l, void *arg)
{
	struct cg_status_ns *sn = arg;
	struct cg_ns_dev *d;

	if (sn->ndev == sn->cap) {
		d = realloc(sn->dev, (sn->cap * 2 + 16) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		sn->dev = d;
		sn->cap = sn->cap * 2 + 16;
	}
	d = &sn->dev[sn->ndev];
	memset(d, 0, sizeof(*d));
	d->ifindex = l->ifindex;
	d->order = sn->ndev++;
	snprintf(d->name, sizeof(d->name), "%s", l->name);
	d->kind = l->kind;
	d->peer_nsid = l->peer_nsid;
	d->up = l->up;
	d->xdp = l->xdp;
	return 0;
}

static int cg_ns_dev_by_index(const void *a, const void *b)
{
	const struct cg_ns_dev *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cg_ns_dev_by_order(const void *a, const void *b)
{
	const struct cg_ns_dev *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* The device ifindex of the dump, sorted by ifindex; NULL: not in it */
static struct cg_ns_dev *cg_ns_dev_find(struct cg_status_ns *sn, int ifindex)
{
	struct cg_ns_dev key = { .ifindex = ifindex, .order = -1 };
	int lo = 0, hi = sn->ndev;

	/* the first entry not below key: key's order is below any */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (cg_ns_dev_by_index(&sn->dev[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sn->ndev && sn->dev[lo].ifindex == ifindex ? &sn->dev[lo] : NULL;
}

/* One row per guard; a backend that cannot list is not "none guarded". */
static int cg_status_row(enum cg_choice c, const struct cg_target *t, int err, void *arg)
{
	struct cg_status_ns *sn = arg;
	struct cg_report_row *r;
	struct cg_ns_dev *d;

	if (!t)
		return err;
	r = cg_row_add(sn->rs);
	if (!r)
		return -ENOMEM;
	snprintf(r->dev, sizeof(r->dev), "%s", t->dev);
	if (cg_backends[c]->status(t, &r->st) || !r->st.attached) {
		sn->rs->n--;
		return 0;
	}
	d = cg_ns_dev_find(sn, t->ifindex);
	if (d) {
		d->guarded = true;
		cg_status_kind(sn, r, d);
	}
	r->netns = t->netns;
	r->netns_ino = t->netns_ino;
	r->ifindex = t->ifindex;
	r->backend = cg_choice_name(c);
	r->state = CG_ROW_GUARDED;
	cg_ahead_of_xdp(t->ifindex, r->backend, &r->st, d ? d->xdp : -1, &r->ahead);
	return 0;
}

/*
 * Is the current namespace another user namespace's (a user's `unshare
 * -rn`, a rootless container's)? watch leaves those alone
 * (doc/operations.md: "Namespaces of other user namespaces"), and so
 * their unguarded devices are excluded, not unguarded: a user cannot
 * raise the operator's alert by making taps of their own. Unknown: ours.
 */
static bool cg_status_other_userns(void)
{
	static __u64 own;
	__u32 uid;
	int fd, ret;

	if (!own && cg_userns_ino(&own))
		return false;
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ret = cg_netns_other_userns(fd, own, &uid);
	close(fd);
	return ret == 1;
}

/*
 * Every device a backend guards in the current namespace, ino, as netns,
 * and every guest-facing device it has unguarded: what an operator alerts
 * on. One that is down is not listed: it carries no frame (a tap made for
 * a VM not started yet, the fallback tunnels, gre0, tunl0, ..., a module
 * puts in every namespace).
 */
static int cg_status_here(struct cg_rows *rs, const char *netns, __u64 ino, bool map_all)
{
	struct cg_status_ns sn = { .rs = rs, .netns = netns, .ino = ino, .map_all = map_all };
	struct cg_report_row *r;
	struct cg_ns_dev *d;
	bool other;
	int i, n, err;

	err = cg_link_each(cg_status_link, &sn);
	if (err)
		goto out;
	other = cg_status_other_userns();
	/* a dump begun again lists a device again: its last entry holds */
	qsort(sn.dev, sn.ndev, sizeof(*sn.dev), cg_ns_dev_by_index);
	for (i = n = 0; i < sn.ndev; i++) {
		if (n && sn.dev[n - 1].ifindex == sn.dev[i].ifindex)
			n--;
		sn.dev[n++] = sn.dev[i];
	}
	sn.ndev = n;
	err = cg_each_guard_here(netns, ino, cg_status_row, &sn);
	if (err)
		goto out;
	qsort(sn.dev, sn.ndev, sizeof(*sn.dev), cg_ns_dev_by_order);
	for (i = 0; i < sn.ndev; i++) {
		d = &sn.dev[i];
		if (!d->kind || !d->up || d->guarded)
			continue;
		r = cg_row_add(rs);
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		snprintf(r->dev, sizeof(r->dev), "%s", d->name);
		r->netns = netns;
		r->netns_ino = ino;
		r->ifindex = d->ifindex;
		r->other_userns = other;
		cg_status_kind(&sn, r, d);
	}
out:
	free(sn.map);
	free(sn.dev);
	return err;
}

/* cg_state_each_netns(): each other namespace, as its label */
static int cg_status_ns(const char *label, __u64 ino, void *rs)
{
	return cg_status_here(rs, label, ino, false);
}

const char *cg_row_state_name(enum cg_row_state s)
{
	static const char *const names[] = {
		[CG_ROW_UNGUARDED] = "unguarded", [CG_ROW_GUARDED] = "guarded",
		[CG_ROW_COVERED] = "covered", [CG_ROW_EXCLUDED] = "excluded",
	};

	return names[s];
}

/* What watch leaves alone (cg_status_exclude()) */
static struct {
	const char *const *match;
	int nmatch;
	bool no_containers;
} cg_excl;

void cg_status_exclude(const char *const *match, int nmatch, bool no_containers)
{
	cg_excl.match = match;
	cg_excl.nmatch = nmatch;
	cg_excl.no_containers = no_containers;
}

/* "" if watch would guard r's device, else why not */
static const char *cg_status_excluded(const struct cg_report_row *r)
{
	char buf[256], *tok, *save;
	int i;

	if (r->peer && cg_excl.no_containers)
		return "--no-containers";
	for (i = 0; i < cg_excl.nmatch; i++) {
		/* each --match a glob or a comma-separated list of them */
		snprintf(buf, sizeof(buf), "%s", cg_excl.match[i]);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!fnmatch(tok, r->dev, 0))
				return "";
	}
	return cg_excl.nmatch ? "no --match glob names it" : "";
}

/*
 * The rows without a guard of their own: excluded, if watch leaves them
 * alone; covered, if frames enter the host through the device's egress
 * (a macvtap's), no backend can hook that here, and the module's
 * completion guard is on: what it refuses is what the device's own guard
 * would have dropped. Only a row that needs it, while the completion guard
 * is on, costs a probe.
 */
static void cg_status_classify(struct cg_rows *rs)
{
	const struct cg_kind *k;
	struct cg_report_row *r;
	struct cg_completion cc;
	struct cg_probe p;
	bool probed = false;
	int i;

	for (i = 0; i < rs->n; i++) {
		r = &rs->row[i];
		if (r->state != CG_ROW_UNGUARDED)
			continue;
		r->why = r->other_userns ? "its namespace is another user namespace's: watch leaves it, "
					    "and guards its links where they land" : cg_status_excluded(r);
		if (*r->why) {
			r->state = CG_ROW_EXCLUDED;
			continue;
		}
		r->why = NULL;
		k = r->kind ? cg_kind_find(r->kind) : NULL;
		if (!k || !k->egress)
			continue;
		if (!probed) {
			/* the completion guard off (or no module): nothing covers it,
			 * and no probe is needed to say so */
			if (cg_kmod_completion(-1, &cc, NULL) || !cc.on)
				memset(&p, 0, sizeof(p));
			else
				cg_probe_all(&p);
			probed = true;
		}
		if (p.completion_on && *p.kmod_egress_err && *p.bpf_egress_err) {
			r->state = CG_ROW_COVERED;
			r->why = "no hook of its own here: the kernel has no netfilter egress";
		}
	}
}

int cg_status_rows(const char *dev, const char *netns, struct cg_rows *rs, struct cg_ack *ack)
{
	struct cg_report_row *r;
	struct cg_target t;
	enum cg_choice c;
	char kind[CG_KIND_LEN];
	int err, nsid;

	if (cg_home_fd < 0) {
		cg_home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		cg_netns_ino(&cg_home_ino);
	}
	/*
	 * Without the host lock: status only reads, and checks what it reads
	 * against the kernel (a guard half-made or half-removed by a command
	 * running now is not listed), so a scrape never waits for attach.
	 */
	err = cg_target_resolve(&t, dev, netns, ack);
	if (err)
		return err;
	if (dev) {
		r = cg_row_add(rs);
		if (!r)
			return cg_ack_err(ack, -ENOMEM, "out of memory");
		c = cg_guarded_by(&t, &r->st);
		if (!cg_link_kind(t.ifindex, kind, sizeof(kind), &nsid) &&
		    cg_kind_facing(kind, nsid)) {
			r->kind = cg_kind_facing(kind, nsid)->kind;
			r->peer = cg_kind_facing(kind, nsid)->pair;
			r->peer_nsid = nsid;
			if (r->peer)
				cg_nsid_ino(nsid, &r->peer_ino);
		}
		snprintf(r->dev, sizeof(r->dev), "%s", dev);
		r->netns = netns;
		r->netns_ino = t.netns_ino;
		r->ifindex = t.ifindex;
		r->other_userns = cg_status_other_userns();
		r->backend = cg_choice_name(c);
		r->state = r->st.attached ? CG_ROW_GUARDED : CG_ROW_UNGUARDED;
		cg_ahead_of(t.ifindex, r->backend, &r->st, &r->ahead);
		cg_status_classify(rs);
		return 0;
	}
	err = cg_status_here(rs, netns, t.netns_ino, true);
	if (!err && !netns)
		err = cg_state_each_netns(NULL, cg_status_ns, rs, ack);
	if (!err)
		cg_status_classify(rs);
	return err;
}
