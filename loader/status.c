// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status.c - csum-guard status and probe, which only read.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
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
