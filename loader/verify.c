// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * verify.c - csum-guard verify [--netns NS] [--heal] [--json]: for
 * provisioners and timers, is every guest-facing device guarded as it was
 * meant to be? It reads what status reads and names each drift:
 *
 *   unguarded	a guest-facing device nothing guards (its bpf guard's state
 *		there without its hook, or the module not loaded, said too);
 *   options	a bpf guard running without the egress hook its meta records;
 *   replaced	a bpf guard's tcx link updated to run another program;
 *   outdated	a bpf guard attached by another csum-guard than this one
 *		(upgrade would move it; a program from --object is left).
 *
 * Exit status 0 when nothing drifted (or --heal put everything back), 1
 * otherwise. --heal attaches each again, in a child as watch does, with
 * what was recorded (backend, mode, options); a guard put back is counted
 * as watch counts its repairs (repairs.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "log.h"
#include "modprobe.h"
#include "csum_guard_genl.h"
#include "backends.h"
#include "commands.h"
#include "repairs.h"
#include "report.h"
#include "select.h"
#include "bpf/api.h"

enum cg_drift { CG_DRIFT_NONE, CG_DRIFT_UNGUARDED, CG_DRIFT_OPTIONS, CG_DRIFT_REPLACED,
		CG_DRIFT_OUTDATED };

static const char *const cg_drift_names[] = {
	[CG_DRIFT_UNGUARDED] = "unguarded",
	[CG_DRIFT_OPTIONS] = "options",
	[CG_DRIFT_REPLACED] = "replaced",
	[CG_DRIFT_OUTDATED] = "outdated",
};

/* What drifted on row r, in words into why; what the heal attaches with into req */
static enum cg_drift cg_verify_row(const struct cg_report_row *r, bool kmod_gone,
				   struct cg_attach_req *req, enum cg_repair_reason *reason,
				   char *why, size_t n)
{
	struct cg_target t = { .netns_ino = r->netns_ino, .ifindex = r->ifindex };
	const struct cg_status *st = &r->st;
	struct cg_recorded rd = {};
	bool rec;

	if (r->state == CG_ROW_COVERED || r->state == CG_ROW_EXCLUDED)
		return CG_DRIFT_NONE;	/* nothing of its own was meant to guard it */
	rec = !cg_bpf_recorded(&t, &rd);
	req->opts.egress = rec ? rd.egress : st->egress;
	req->opts.log_drops = rec ? rd.log_drops : st->log_drops;
	if (!st->attached) {
		*reason = CG_REPAIR_MAX;	/* a device never guarded: not a repair */
		if (rec && !rd.from_object) {
			req->backend = CG_CHOICE_BPF;
			req->opts.mode = !strcmp(rd.mode, "tcx") ? CG_ATTACH_TCX : CG_ATTACH_CLSACT;
			*reason = req->opts.mode == CG_ATTACH_TCX ? CG_REPAIR_LINK : CG_REPAIR_FILTER;
			snprintf(why, n, "not guarded: its bpf guard (%s%s) is recorded, its hook is gone",
				 rd.mode, rd.egress ? ", egress" : "");
		} else if (rec) {
			snprintf(why, n, "not guarded: its bpf guard from --object is recorded, its hook "
				 "is gone (attach --object puts it back)");
			return CG_DRIFT_UNGUARDED;
		} else if (kmod_gone) {
			/* what its guards had went with it: put back with none */
			*reason = CG_REPAIR_MODULE;
			snprintf(why, n, "not guarded: the module csum_guard is not loaded (its guards' "
				 "options went with it)");
		} else {
			snprintf(why, n, "not guarded%s%s%s", r->kind ? " (" : "", r->kind ?: "",
				 r->kind ? ")" : "");
		}
		return CG_DRIFT_UNGUARDED;
	}
	if (strcmp(r->backend, "bpf"))
		return CG_DRIFT_NONE;
	req->backend = CG_CHOICE_BPF;
	if (rec && rd.swapped) {
		*reason = CG_REPAIR_PROGRAM;
		snprintf(why, n, "program replaced: its tcx link runs another program than the "
			 "guard it was attached with");
		return CG_DRIFT_REPLACED;
	}
	if (rec && rd.egress && !st->egress) {
		*reason = CG_REPAIR_OPTIONS;
		snprintf(why, n, "guarded with other options than recorded: egress recorded, its "
			 "egress hook is gone");
		return CG_DRIFT_OPTIONS;
	}
	if (!st->from_object && strcmp(st->loader, CG_VERSION)) {
		*reason = CG_REPAIR_MAX;
		snprintf(why, n, "program outdated: attached by csum-guard %s, this is %s",
			 *st->loader ? st->loader : "(unknown)", CG_VERSION);
		return CG_DRIFT_OUTDATED;
	}
	return CG_DRIFT_NONE;
}

bool cg_verify_guard_drifted(const struct cg_report_row *r, char *why, size_t n)
{
	struct cg_attach_req req = {};
	enum cg_repair_reason reason;

	return r->st.attached && cg_verify_row(r, false, &req, &reason, why, n) != CG_DRIFT_NONE;
}

/* One row's drift, found before any heal: an attach prunes what it takes
 * for leftovers in its namespace, a hook-less guard's record among them */
struct cg_vdrift {
	enum cg_drift d;
	enum cg_repair_reason reason;
	struct cg_attach_req req;
	char why[256];
};

/* Would an attach here take the module? (its absence then is a drift) */
static bool cg_verify_kmod_gone(void)
{
	struct cg_probe p;
	char why[256];

	if (cg_module_live(CG_KMOD_NAME))
		return false;
	cg_probe_all(&p);
	return cg_select(&p, CG_CHOICE_NONE, why, sizeof(why)) == CG_CHOICE_KMOD;
}

static void cg_verify_say(const struct cg_report_row *r, const struct cg_vdrift *v, bool heal,
			  bool ok, const char *herr, bool json, bool *first)
{
	char dev[4 * IF_NAMESIZE + 1], nsl[4 * PATH_MAX + 1], ino[24];
	const char *nsname = cg_report_netns(r, ino, sizeof(ino));
	bool f = true;

	if (json) {
		if (!*first)
			putchar(',');
		*first = false;
		putchar('{');
		cg_json_kv_str(&f, "device", r->dev);
		cg_json_kv_str(&f, "netns", nsname);
		cg_json_kv_u64(&f, "netns_ino", r->netns_ino);
		cg_json_kv_str(&f, "drift", cg_drift_names[v->d]);
		cg_json_kv_str(&f, "why", v->why);
		cg_json_kv_bool(&f, "healed", ok);
		if (heal && !ok)
			cg_json_kv_str(&f, "heal_error", herr);
		putchar('}');
		return;
	}
	cg_text_safe(r->dev, dev, sizeof(dev));
	cg_text_safe(nsname ?: "", nsl, sizeof(nsl));
	printf("%s: %s%s%s: %s\n", heal ? (ok ? "healed" : "cannot heal") : "drift", dev,
	       nsname ? " netns " : "", nsl, v->why);
	if (heal && !ok)
		printf("  %s\n", cg_text_safe(herr, nsl, sizeof(nsl)));
}

int cg_cmd_verify(const char *netns, bool heal, bool json)
{
	struct cg_vdrift *v = NULL;
	struct cg_rows rs = {};
	struct cg_ack ack = {};
	char herr[512];
	bool kmod_gone, first = true, ok;
	int i, err, drifts = 0, healed = 0, guards = 0;

	if (cg_cli_need_root("verify"))
		return 1;
	err = cg_status_rows(NULL, netns, &rs, &ack);
	if (!err && rs.n && !(v = calloc(rs.n, sizeof(*v))))
		err = cg_ack_err(&ack, -ENOMEM, "out of memory");
	if (err) {
		cg_err("cannot verify: %s", cg_ack_why(&ack, err));
		free(rs.row);
		return 1;
	}
	kmod_gone = cg_verify_kmod_gone();
	for (i = 0; i < rs.n; i++) {
		const struct cg_report_row *r = &rs.row[i];

		guards += r->st.attached;
		v[i].req = (struct cg_attach_req){
			.dev = r->dev, .netns = r->netns, .netns_ino = r->netns_ino,
		};
		v[i].reason = CG_REPAIR_MAX;
		v[i].d = cg_verify_row(r, kmod_gone, &v[i].req, &v[i].reason, v[i].why,
				       sizeof(v[i].why));
	}
	if (json)
		fputs("{\"drifts\":[", stdout);
	for (i = 0; i < rs.n; i++) {
		if (v[i].d == CG_DRIFT_NONE)
			continue;
		drifts++;
		herr[0] = '\0';
		ok = heal && !cg_attach_child(&v[i].req, herr, sizeof(herr));
		if (ok) {
			healed++;
			if (v[i].reason < CG_REPAIR_MAX)
				cg_repair_count(v[i].reason, rs.row[i].netns_ino, rs.row[i].ifindex);
		}
		cg_verify_say(&rs.row[i], &v[i], heal, ok, herr, json, &first);
	}
	if (json) {
		printf("],\"devices\":%d,\"guarded\":%d,\"drifted\":%d,\"healed\":%d,\"ok\":%s}\n",
		       rs.n, guards, drifts, healed, drifts == healed ? "true" : "false");
	} else if (!drifts) {
		cg_info("verified %d device%s, %d guarded: nothing drifted", rs.n,
			rs.n == 1 ? "" : "s", guards);
	} else if (heal) {
		cg_info("%d drifted, %d healed", drifts, healed);
	} else {
		cg_info("%d drifted (verify --heal puts them back)", drifts);
	}
	free(v);
	free(rs.row);
	return drifts == healed ? 0 : 1;
}
