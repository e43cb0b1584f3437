// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * report.c - status in the Prometheus text exposition format (0.0.4), for
 * node_exporter's textfile collector. HELP and TYPE come even without a
 * sample, so the file stays valid while nothing is guarded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "csum_guard_abi.h"
#include "json.h"
#include "macros.h"
#include "netns.h"
#include "repairs.h"
#include "report.h"

const char *cg_report_netns(const struct cg_report_row *r, char *buf, size_t n)
{
	return cg_netns_label(r->netns, r->netns_ino, buf, n);
}

/*
 * A label value: backslash, double quote and newline are escaped; other
 * control characters and bytes that are not UTF-8, which the format does not
 * allow, become U+FFFD, so that no device name invalidates the file.
 */
static void cg_prom_label(const char *name, const char *val)
{
	printf(",%s=", name);
	cg_prom_str(val);
}

/*
 * The devices' metric families. Every sample of them carries the same
 * labels, device, netns, backend and mode ("" where nothing of its own
 * guards it), and each family adds its own: guarded its state and egress,
 * dropped_total its reason (the completion guard's reasons), guard_info
 * which code guards the device.
 */
enum { CG_M_GUARDED, CG_M_EXCLUDED, CG_M_DROPPED, CG_M_INFO, CG_M_AHEAD };

static const struct {
	const char *name;
	const char *type;
	const char *help;
} cg_metrics[] = {
	[CG_M_GUARDED] = { "csum_guard_guarded", "gauge",
		"1 for each device csum-guard guards (state guarded) or the completion guard covers "
		"where its own hook cannot exist (state covered), 0 for each guest-facing device "
		"it does not (state unguarded)." },
	[CG_M_EXCLUDED] = { "csum_guard_excluded", "gauge",
		"1 for each guest-facing device left alone on purpose (--match, --no-containers, a namespace of another user namespace): "
		"never guarded, never alerted on." },
	[CG_M_DROPPED] = { "csum_guard_dropped_total", "counter",
		"CHECKSUM_PARTIAL frames a device's guard dropped, by reason: header (csum_start "
		"inside the IP headers), unreadable (IP header unreadable, IHL below 5)." },
	[CG_M_INFO] = { "csum_guard_guard_info", "gauge",
		"1 for each guard: the program, loader and module that guard the device." },
	[CG_M_AHEAD] = { "csum_guard_ahead", "gauge",
		"Programs, filters and hooks that run before the guard on the device: what they redirect, it does not see." },
};

static void cg_prom_sample(const struct cg_report_row *r, int m, const char *reason, __u64 v)
{
	char ns[24];
	const char *label = cg_report_netns(r, ns, sizeof(ns));
	bool own = r->state == CG_ROW_GUARDED;

	fputs(cg_metrics[m].name, stdout);
	fputs("{device=", stdout);
	cg_prom_str(r->dev);
	cg_prom_label("netns", label ?: "");
	cg_prom_label("backend", own ? r->backend ?: "" : r->state == CG_ROW_COVERED ? "kmod" : "");
	cg_prom_label("mode", own ? r->st.mode : r->state == CG_ROW_COVERED ? "completion" : "");
	if (m == CG_M_GUARDED) {
		printf(",state=\"%s\"", cg_row_state_name(r->state));
		printf(",egress=\"%s\"", r->st.egress ? "true" : "false");
	} else if (m == CG_M_DROPPED) {
		printf(",reason=\"%s\"", reason);
	} else if (m == CG_M_INFO) {
		/* which code guards it: what an upgrade changes */
		cg_prom_label("program_tag", r->st.prog_tag);
		cg_prom_label("loader_version", r->st.loader);
		cg_prom_label("object_sha256", r->st.object_sha256);
		cg_prom_label("module_version", r->st.module_version);
	}
	printf("} %llu\n", (unsigned long long)v);
}

void cg_report_prometheus(const struct cg_report_row *rows, int n)
{
	const struct cg_report_row *r;
	unsigned int m;
	int i;

	fputs("# HELP csum_guard_build_info 1, labelled with the version of the csum-guard that wrote this.\n"
	      "# TYPE csum_guard_build_info gauge\n", stdout);
	printf("csum_guard_build_info{version=\"%s\",abi=\"%d\"} 1\n", CG_VERSION, CG_ABI_VERSION);
	/* what a stale file or a failing scrape is told by */
	fputs("# HELP csum_guard_status_timestamp_seconds When csum-guard read what this says (Unix time).\n"
	      "# TYPE csum_guard_status_timestamp_seconds gauge\n", stdout);
	printf("csum_guard_status_timestamp_seconds %lld\n", (long long)time(NULL));
	for (m = 0; m < ARRAY_SIZE(cg_metrics); m++) {
		printf("# HELP %s %s\n# TYPE %s %s\n", cg_metrics[m].name, cg_metrics[m].help,
		       cg_metrics[m].name, cg_metrics[m].type);
		for (i = 0; i < n; i++) {
			r = &rows[i];
			if (m == CG_M_GUARDED && r->state != CG_ROW_EXCLUDED)
				cg_prom_sample(r, m, NULL, r->state != CG_ROW_UNGUARDED);
			else if (m == CG_M_EXCLUDED && r->state == CG_ROW_EXCLUDED)
				cg_prom_sample(r, m, NULL, 1);
			if (r->state != CG_ROW_GUARDED)
				continue;
			if (m == CG_M_DROPPED) {
				cg_prom_sample(r, m, "header", r->st.dropped);
				cg_prom_sample(r, m, "unreadable", r->st.dropped_unreadable);
			} else if (m == CG_M_INFO) {
				cg_prom_sample(r, m, NULL, 1);
			} else if (m == CG_M_AHEAD) {
				cg_prom_sample(r, m, NULL, r->ahead.n);
			}
		}
	}
}

void cg_report_prometheus_completion(const struct cg_completion *c, bool available)
{
	fputs("# HELP csum_guard_completion_available 1 where the kernel module's completion guard can be on "
	      "(the module loads and the kernel lets it hook skb_checksum_help()), 0 where it cannot.\n"
	      "# TYPE csum_guard_completion_available gauge\n", stdout);
	printf("csum_guard_completion_available %d\n", available);
	fputs("# HELP csum_guard_completion_enabled 1 while the kernel module's completion guard is on (host-wide).\n"
	      "# TYPE csum_guard_completion_enabled gauge\n", stdout);
	printf("csum_guard_completion_enabled %d\n", c->on);
	fputs("# HELP csum_guard_completion_refused_total Checksum completions refused at skb_checksum_help(), by reason.\n"
	      "# TYPE csum_guard_completion_refused_total counter\n", stdout);
	printf("csum_guard_completion_refused_total{reason=\"header\"} %llu\n",
	       (unsigned long long)c->dropped);
	printf("csum_guard_completion_refused_total{reason=\"unreadable\"} %llu\n",
	       (unsigned long long)c->dropped_unreadable);
}

void cg_report_prometheus_repairs(const struct cg_repairs *r)
{
	int i;

	fputs("# HELP csum_guard_repairs_total Guards put back by watch or verify --heal after they were taken off or changed, by reason.\n"
	      "# TYPE csum_guard_repairs_total counter\n", stdout);
	for (i = 0; i < CG_REPAIR_MAX; i++)
		printf("csum_guard_repairs_total{reason=\"%s\"} %llu\n", cg_repair_name(i),
		       (unsigned long long)r->by_reason[i]);
}
