// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * report.c - status in the Prometheus text exposition format (0.0.4), for
 * node_exporter's textfile collector. HELP and TYPE come even without a
 * sample, so the file stays valid while nothing is guarded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

enum { CG_M_GUARDED, CG_M_DROPPED, CG_M_UNREADABLE, CG_M_INFO, CG_M_AHEAD };

static void cg_prom_labels(const struct cg_report_row *r, int m)
{
	char ns[24];
	const char *label = cg_report_netns(r, ns, sizeof(ns));

	fputs("{device=", stdout);
	cg_prom_str(r->dev);
	cg_prom_label("netns", label ?: "");
	cg_prom_label("backend", r->backend ?: "");
	if (m == CG_M_INFO) {
		/* which code guards it: what an upgrade changes */
		cg_prom_label("program_tag", r->st.prog_tag);
		cg_prom_label("loader_version", r->st.loader);
		cg_prom_label("object_sha256", r->st.object_sha256);
		cg_prom_label("module_version", r->st.module_version);
	} else {
		cg_prom_label("mode", r->st.mode);
	}
	if (m == CG_M_GUARDED)
		printf(",egress=\"%s\"", r->st.egress ? "true" : "false");
	putchar('}');
}

static const struct {
	const char *name;
	const char *type;
	const char *help;
} cg_metrics[] = {
	[CG_M_GUARDED] = { "csum_guard_guarded", "gauge",
		"1 for each device csum-guard guards, 0 for each guest-facing device it does not." },
	[CG_M_DROPPED] = { "csum_guard_dropped_total", "counter",
		"CHECKSUM_PARTIAL frames dropped: csum_start inside the IP header." },
	[CG_M_UNREADABLE] = { "csum_guard_dropped_unreadable_total", "counter",
		"CHECKSUM_PARTIAL frames dropped: IP header unreadable or IHL below 5." },
	[CG_M_INFO] = { "csum_guard_guard_info", "gauge",
		"1 for each guard: the program, loader and module that guard the device." },
	[CG_M_AHEAD] = { "csum_guard_ahead", "gauge",
		"Programs, filters and hooks that run before the guard on the device: what they redirect, it does not see." },
};

void cg_report_prometheus(const struct cg_report_row *rows, int n)
{
	unsigned int m;
	__u64 v;
	int i;

	fputs("# HELP csum_guard_build_info 1, labelled with the version of the csum-guard that wrote this.\n"
	      "# TYPE csum_guard_build_info gauge\n", stdout);
	printf("csum_guard_build_info{version=\"%s\",abi=\"%d\"} 1\n", CG_VERSION, CG_ABI_VERSION);
	for (m = 0; m < ARRAY_SIZE(cg_metrics); m++) {
		printf("# HELP %s %s\n# TYPE %s %s\n", cg_metrics[m].name, cg_metrics[m].help,
		       cg_metrics[m].name, cg_metrics[m].type);
		for (i = 0; i < n; i++) {
			/* an unguarded guest-facing device: guarded 0, to alert on */
			if (!rows[i].st.attached && m != CG_M_GUARDED)
				continue;
			v = m == CG_M_DROPPED ? rows[i].st.dropped :
			    m == CG_M_UNREADABLE ? rows[i].st.dropped_unreadable :
			    m == CG_M_AHEAD ? (__u64)rows[i].ahead.n : rows[i].st.attached;
			fputs(cg_metrics[m].name, stdout);
			cg_prom_labels(&rows[i], m);
			printf(" %llu\n", (unsigned long long)v);
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
