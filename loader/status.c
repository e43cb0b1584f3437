// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status.c - csum-guard status and probe, which only read.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "cli.h"
#include "json.h"
#include "link.h"
#include "log.h"
#include "netns.h"
#include "state.h"
#include "backends.h"
#include "kmod/origin.h"
#include "commands.h"
#include "report.h"
#include "repairs.h"
#include "syncookie.h"

/* the guards put back by watch or verify --heal, read once a status */
static struct cg_repairs cg_status_repairs;


/* "  ahead of the guard: ..." lines under a text row */
static void cg_print_ahead(const struct cg_ahead *a)
{
	char buf[4 * sizeof(a->item[0])];
	int i;

	for (i = 0; i < a->n && i < CG_AHEAD_MAX; i++)
		printf("  runs before the guard, which does not see what it redirects: %s\n",
		       cg_text_safe(a->item[i], buf, sizeof(buf)));
	if (a->n > CG_AHEAD_MAX)
		printf("  runs before the guard: %d more\n", a->n - CG_AHEAD_MAX);
}

/*
 * A kmod guard's "module_origin" and "module_signer": those of the file
 * modprobe resolves when the loaded module is its build, else null (an
 * upgrade put a new file in place that this kernel has not loaded yet, or
 * it cannot tell). Read once a status: modinfo runs a few times.
 */
static struct cg_kmod_origin cg_status_module;
static bool cg_status_module_read;	/* reset by each status */

static void cg_print_module_json(bool *first)
{
	const struct cg_kmod_origin *o = &cg_status_module;
	bool known;

	if (!cg_status_module_read) {
		cg_kmod_origin(&cg_status_module);
		cg_status_module_read = true;
	}
	known = *o->file && o->is_loaded > 0;
	cg_json_kv_str(first, "module_origin", known ? o->origin : NULL);
	cg_json_kv_str(first, "module_signer", known ? o->signer : NULL);
}

static void cg_print_status(const struct cg_query *a, const struct cg_report_row *r)
{
	const struct cg_status *st = &r->st;
	char dev[4 * IF_NAMESIZE + 1], ns[4 * PATH_MAX + 1], ino[24];
	const char *netns = cg_report_netns(r, ino, sizeof(ino));
	__u64 repairs = cg_repairs_of(&cg_status_repairs, r->netns_ino, r->ifindex);
	bool first = true;
	int i;

	if (!a->json) {
		printf("%s%s%s: ", cg_text_safe(r->dev, dev, sizeof(dev)), netns ? " netns " : "",
		       netns ? cg_text_safe(netns, ns, sizeof(ns)) : "");
		if (r->state == CG_ROW_COVERED || r->state == CG_ROW_EXCLUDED)
			printf("%s (%s%s%s)\n", r->state == CG_ROW_COVERED ?
			       "covered by the completion guard" : "excluded", r->kind ?: "",
			       r->kind ? ": " : "", r->why);
		else if (!st->attached && r->peer && r->peer_ino)
			printf("not guarded (%s, peer in netns %llu)\n", r->kind,
			       (unsigned long long)r->peer_ino);
		else if (!st->attached && r->peer)
			printf("not guarded (%s, peer in netns nsid %d)\n", r->kind, r->peer_nsid);
		else if (!st->attached)
			printf("not guarded%s%s%s\n", r->kind ? " (" : "", r->kind ?: "",
			       r->kind ? ")" : "");
		else
			printf("guarded by %s (%s%s), dropped %llu, dropped_unreadable %llu%s%s%s%s%s%s\n",
			       r->backend, st->mode, cg_opts_text(st),
			       (unsigned long long)st->dropped,
			       (unsigned long long)st->dropped_unreadable,
			       *st->prog_tag ? "; program " : "", st->prog_tag,
			       *st->loader ? ", attached by csum-guard " : "", st->loader,
			       *st->module_version ? "; module " : "", st->module_version);
		if (repairs)
			printf("  put back %llu time%s after it was taken off or changed\n",
			       (unsigned long long)repairs, repairs == 1 ? "" : "s");
		cg_print_ahead(&r->ahead);
		return;
	}
	putchar('{');
	cg_json_kv_str(&first, "device", r->dev);
	cg_json_kv_str(&first, "netns", netns);
	cg_json_kv_u64(&first, "netns_ino", r->netns_ino);
	cg_json_kv_u64(&first, "ifindex", r->ifindex);
	cg_json_kv_str(&first, "kind", r->kind);
	/* a container's link: where its peer, the container's end, lives */
	if (r->peer)
		cg_json_kv_u64(&first, "peer_netnsid", r->peer_nsid);
	else
		cg_json_kv_str(&first, "peer_netnsid", NULL);
	if (r->peer_ino)
		cg_json_kv_u64(&first, "peer_netns_ino", r->peer_ino);
	else
		cg_json_kv_str(&first, "peer_netns_ino", NULL);
	cg_json_kv_str(&first, "backend", r->backend);
	cg_json_kv_bool(&first, "guarded", st->attached);
	cg_json_kv_bool(&first, "attached", st->attached);
	/* guarded, covered (by the completion guard), excluded, unguarded */
	cg_json_kv_str(&first, "state", cg_row_state_name(r->state));
	cg_json_kv_str(&first, "state_reason", r->why);
	cg_json_kv_str(&first, "mode", st->attached ? st->mode : NULL);
	cg_json_kv_bool(&first, "egress", st->egress);
	cg_json_kv_bool(&first, "log_drops", st->log_drops);
	cg_json_kv_u64(&first, "dropped", st->dropped);
	cg_json_kv_u64(&first, "dropped_unreadable", st->dropped_unreadable);
	/* which code guards it: null where the backend has no such thing */
	cg_json_kv_u64(&first, "program_id", st->prog_id);
	cg_json_kv_str(&first, "program_tag", *st->prog_tag ? st->prog_tag : NULL);
	cg_json_kv_str(&first, "loader_version", *st->loader ? st->loader : NULL);
	cg_json_kv_str(&first, "object_sha256", *st->object_sha256 ? st->object_sha256 : NULL);
	cg_json_kv_bool(&first, "from_object", st->from_object);
	cg_json_kv_str(&first, "module_version", *st->module_version ? st->module_version : NULL);
	/* kmod: where the module that guards it came from, and who signed it */
	if (st->attached && r->backend && !strcmp(r->backend, "kmod"))
		cg_print_module_json(&first);
	/* what runs before the guard, and can send frames past it */
	if (st->attached) {
		fputs(",\"ahead\":[", stdout);
		for (i = 0; i < r->ahead.n && i < CG_AHEAD_MAX; i++) {
			if (i)
				putchar(',');
			cg_json_str(r->ahead.item[i]);
		}
		putchar(']');
		cg_json_kv_u64(&first, "ahead_count", r->ahead.n);
	}
	if (st->first_known)
		cg_json_kv_u64(&first, "reordered", st->reordered);
	cg_json_kv_u64(&first, "repairs", repairs);
	putchar('}');
}

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

static void cg_probe_print_module(void);

int cg_cmd_status(const struct cg_query *a)
{
	struct cg_rows rs = {};
	struct cg_ack ack = {};
	char where[128], nsl[4 * PATH_MAX + 1];
	int i, err, guarded = 0, by_kmod = 0;

	if (cg_cli_need_root("read status"))
		return 1;
	cg_status_module_read = false;
	cg_status_exclude(a->match, a->nmatch, a->no_containers);
	err = cg_status_rows(a->dev, a->netns, &rs, &ack);
	cg_repairs_read(&cg_status_repairs);	/* none readable: none said */
	if (err) {
		if (a->dev || a->netns)
			cg_err("cannot read status of %s: %s",
			       cg_target_where(&(struct cg_target){ .dev = a->dev, .netns = a->netns },
					       where, sizeof(where)),
			       cg_ack_why(&ack, err));
		else
			cg_err("cannot read status: %s", cg_ack_why(&ack, err));
		free(rs.row);
		return 1;
	}
	if (a->prometheus) {
		cg_report_prometheus(rs.row, rs.n);
		/* host-wide: with the whole host's listing only */
		if (!a->dev && !a->netns) {
			struct cg_completion cc;

			struct cg_probe p = {};

			if (cg_kmod_completion(-1, &cc, NULL))
				memset(&cc, 0, sizeof(cc));
			if (!cc.on)
				cg_kmod_probe_completion_only(&p);
			cg_report_prometheus_completion(&cc, cc.on || !*p.completion_err);
			cg_report_prometheus_repairs(&cg_status_repairs);
			/* and the SYN responders of every namespace */
			err = cg_syncookie_prometheus();
			if (err) {
				cg_err("cannot read the SYN responders' status: %s", strerror(-err));
				return 1;
			}
		}
	} else if (a->dev) {
		cg_print_status(a, &rs.row[0]);
		if (a->json)
			putchar('\n');
	} else if (a->json) {
		putchar('[');
		for (i = 0; i < rs.n; i++) {
			if (i)
				putchar(',');
			cg_print_status(a, &rs.row[i]);
		}
		puts("]");
	} else {
		for (i = 0; i < rs.n; i++) {
			cg_print_status(a, &rs.row[i]);
			guarded += rs.row[i].st.attached;
			by_kmod += rs.row[i].st.attached && rs.row[i].backend &&
				   !strcmp(rs.row[i].backend, "kmod");
		}
		if (!guarded)
			printf("no guarded devices%s%s\n", a->netns ? " in netns " : "",
			       a->netns ? cg_text_safe(a->netns, nsl, sizeof(nsl)) : "");
		/* which csum_guard.ko those guards run: prebuilt or DKMS */
		if (by_kmod)
			cg_probe_print_module();
	}
	free(rs.row);
	return 0;
}

/*
 * The csum_guard.ko this kernel loads: prebuilt (csum-guard-modules) or
 * built by DKMS, its version and signer, and whether it is the one loaded
 */
static void cg_probe_print_module(void)
{
	struct cg_kmod_origin o;

	cg_kmod_origin(&o);
	if (!*o.file) {
		printf("module file: none\n");
		return;
	}
	printf("module file: %s, version %s, %s%s%s, %s (%s)\n", o.origin,
	       *o.version ? o.version : "?", *o.signer ? "signed by '" : "unsigned",
	       o.signer, *o.signer ? "'" : "",
	       o.is_loaded > 0 ? "loaded" : o.is_loaded == 0 ? "another build is loaded" : "not loaded",
	       o.file);
}

int cg_cmd_probe(const struct cg_query *a)
{
	struct cg_kmod_origin o;
	enum cg_choice c;
	struct cg_probe p;
	char why[256];
	bool first = true;

	cg_probe_all(&p);
	c = cg_select(&p, CG_CHOICE_NONE, why, sizeof(why));
	if (!a->json) {
		printf("root: %s\nbtf: %s\nbpf_cast_to_kern_ctx: %s\ntc program loads: %s\n"
		       "tcx: %s\nkmod loaded: %s\nkmod loadable: %s\n"
		       "egress, bpf: %s\negress, kmod: %s\ncompletion guard: %s\nbackend: %s\nreason: %s\n",
		       p.root ? "yes" : "no", p.btf ? "yes" : "no", p.kfunc ? "yes" : "no",
		       p.prog_loads ? "yes" : "no", p.tcx ? "yes" : "no",
		       p.kmod_loaded ? "yes" : "no", p.kmod_loadable ? "yes" : "no",
		       *p.bpf_egress_err ? p.bpf_egress_err : "yes",
		       *p.kmod_egress_err ? p.kmod_egress_err : "yes",
		       *p.completion_err ? p.completion_err : p.completion_on ? "yes, on" : "yes",
		       cg_choice_name(c) ?: "none", why);
		cg_probe_print_module();
		return c == CG_CHOICE_NONE;
	}
	putchar('{');
	cg_json_kv_bool(&first, "root", p.root);
	cg_json_kv_bool(&first, "btf", p.btf);
	cg_json_kv_bool(&first, "kfunc", p.kfunc);
	cg_json_kv_bool(&first, "prog_loads", p.prog_loads);
	cg_json_kv_bool(&first, "tcx", p.tcx);
	cg_json_kv_bool(&first, "kmod_loaded", p.kmod_loaded);
	cg_json_kv_bool(&first, "kmod_loadable", p.kmod_loadable);
	cg_json_kv_str(&first, "bpf_unavailable", *p.bpf_err ? p.bpf_err : NULL);
	cg_json_kv_str(&first, "kmod_unavailable", *p.kmod_err ? p.kmod_err : NULL);
	cg_json_kv_str(&first, "bpf_egress_unavailable", *p.bpf_egress_err ? p.bpf_egress_err : NULL);
	cg_json_kv_str(&first, "kmod_egress_unavailable", *p.kmod_egress_err ? p.kmod_egress_err : NULL);
	cg_json_kv_str(&first, "completion_unavailable", *p.completion_err ? p.completion_err : NULL);
	cg_json_kv_bool(&first, "completion", p.completion_on);
	cg_json_kv_str(&first, "backend", cg_choice_name(c));
	cg_json_kv_str(&first, "reason", why);
	cg_kmod_origin(&o);
	cg_json_kv_str(&first, "module_file", *o.file ? o.file : NULL);
	cg_json_kv_str(&first, "module_origin", o.origin);
	cg_json_kv_str(&first, "module_file_version", *o.version ? o.version : NULL);
	cg_json_kv_str(&first, "module_signer", *o.file ? o.signer : NULL);
	cg_json_kv_str(&first, "module_file_loaded", o.is_loaded < 0 ? NULL : o.is_loaded ? "yes" : "no");
	puts("}");
	return c == CG_CHOICE_NONE;
}
