// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * doctor.c - csum-guard doctor: is this host guarded, and if not, what to
 * do. It reads what probe, status and syncookie status read, and the files
 * the kernel and the packages leave (module signature enforcement,
 * lockdown, Secure Boot, the module for the running kernel, DKMS's state,
 * the watcher), and says one line a finding: ok, warn or fail, with what
 * to do for each that is not ok. It changes nothing.
 *
 * Exit status: 0 no finding failed (warnings allowed), 1 a finding
 * failed (a guest-facing device unguarded, no backend, a responder that
 * cannot answer), 2 bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "log.h"
#include "backends.h"
#include "kmod/kmod.h"
#include "commands.h"
#include "report.h"
#include "syncookie.h"

enum cg_dr_state { CG_DR_OK, CG_DR_WARN, CG_DR_FAIL };

struct cg_doctor {
	bool json;
	bool first;		/* no finding written yet (JSON) */
	int fails, warns;
};

/* One finding: what it is about, its state, what was found, what to do */
static void cg_dr(struct cg_doctor *d, const char *check, enum cg_dr_state s, const char *hint,
		  const char *fmt, ...)
{
	static const char *const word[] = { "ok", "warn", "fail" };
	char detail[512], safe[4 * sizeof(detail)];
	bool first = true;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	d->fails += s == CG_DR_FAIL;
	d->warns += s == CG_DR_WARN;
	if (!d->json) {
		printf("%-5s %s: %s\n", word[s], check, cg_text_safe(detail, safe, sizeof(safe)));
		if (hint && s != CG_DR_OK)
			printf("      -> %s\n", cg_text_safe(hint, safe, sizeof(safe)));
		return;
	}
	printf("%s{", d->first ? "" : ",");
	d->first = false;
	cg_json_kv_str(&first, "check", check);
	cg_json_kv_str(&first, "state", word[s]);
	cg_json_kv_str(&first, "detail", detail);
	cg_json_kv_str(&first, "hint", s != CG_DR_OK ? hint : NULL);
	putchar('}');
}

/* The first line of a small file, without its newline; "" if unreadable */
static const char *cg_dr_read(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (fgets(buf, n, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

/* Where the module for kernel kver is, in its module tree: 0 or -ENOENT */
static int cg_dr_module_file(const char *kver, char *path, size_t n)
{
	static const char *const where[] = { "updates/dkms", "updates", "extra", "kernel/extra" };
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };
	struct stat st;
	size_t i, j;

	for (i = 0; i < sizeof(where) / sizeof(*where); i++)
		for (j = 0; j < sizeof(ext) / sizeof(*ext); j++) {
			snprintf(path, n, "/lib/modules/%s/%s/csum_guard.ko%s", kver, where[i], ext[j]);
			if (!stat(path, &st))
				return 0;
		}
	return -ENOENT;
}

/* The kernel module: loaded, or there to load, and what may refuse it */
static void cg_dr_module(struct cg_doctor *d, const struct cg_probe *p, bool needed)
{
	char path[PATH_MAX], enforce[8], lockdown[96], hdr[PATH_MAX];
	enum cg_dr_state miss = needed ? CG_DR_FAIL : CG_DR_WARN;
	struct utsname u;
	struct stat st;
	int sb;

	uname(&u);
	if (access("/proc/modules", F_OK)) {
		cg_dr(d, "module", CG_DR_OK, NULL,
		      "this kernel (%s) loads no modules: the bpf backend is the only one", u.release);
		return;
	}
	cg_dr_read("/sys/module/module/parameters/sig_enforce", enforce, sizeof(enforce));
	cg_kmod_lockdown(lockdown, sizeof(lockdown));
	sb = cg_kmod_secure_boot();
	cg_dr(d, "module signatures", CG_DR_OK, NULL,
	      "signature enforcement %s, lockdown %s, Secure Boot %s",
	      *enforce ? (enforce[0] == 'Y' ? "on" : "off") : "unknown",
	      *lockdown ? lockdown : "unknown", sb == -1 ? "not an EFI boot" :
	      sb < 0 ? "unknown (efivarfs not mounted)" : sb ? "on" : "off");
	if (p->kmod_loaded) {
		cg_dr(d, "module", CG_DR_OK, NULL, "csum_guard is loaded");
		return;
	}
	if (cg_dr_module_file(u.release, path, sizeof(path))) {
		snprintf(hdr, sizeof(hdr), "/lib/modules/%s/build/Makefile", u.release);
		cg_dr(d, "module", miss, "install csum-guard-dkms and this kernel's headers "
		      "(linux-headers-$(uname -r)); DKMS builds the module for each kernel",
		      "no csum_guard module for the running kernel %s (kernel headers %s)",
		      u.release, stat(hdr, &st) ? "missing" : "present");
		return;
	}
	if ((enforce[0] == 'Y' || sb == 1 || (*lockdown && strcmp(lockdown, "none"))))
		cg_dr(d, "module", miss, "the module must be signed by a key the kernel trusts: "
		      "enroll the signing key (mokutil --import) or use the bpf backend",
		      "%s is there but signatures are enforced: %s", path,
		      *p->kmod_err ? p->kmod_err : "it loads only if signed by a trusted key");
	else
		cg_dr(d, "module", *p->kmod_err ? miss : CG_DR_OK, "see csum-guard probe",
		      "%s is there, not loaded%s%s", path, *p->kmod_err ? ": " : "",
		      p->kmod_err);
}

/* The watcher: is one running, and does the service manager start it */
static void cg_dr_watcher(struct cg_doctor *d)
{
	char path[PATH_MAX], cmd[256];
	struct dirent *e;
	bool running = false;
	ssize_t n;
	int fd;
	DIR *dp = opendir("/proc");

	while (dp && (e = readdir(dp)) && !running) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		if (n <= 0)
			continue;
		cmd[n] = '\0';
		/* argv[0] ending in csum-guard, then "watch" somewhere after */
		if (strlen(cmd) >= 10 && !strcmp(cmd + strlen(cmd) - 10, "csum-guard") &&
		    memmem(cmd, n, "\0watch", 6))
			running = true;
	}
	if (dp)
		closedir(dp);
	if (running)
		cg_dr(d, "watcher", CG_DR_OK, NULL, "csum-guard watch is running");
	else
		cg_dr(d, "watcher", CG_DR_WARN, "systemctl enable --now csum-guard-watch: it guards "
		      "every guest-facing device as it appears",
		      "no csum-guard watch runs: devices made from now on stay unguarded");
	if (!access("/run/systemd/system", F_OK) &&
	    access("/etc/systemd/system/multi-user.target.wants/csum-guard-watch.service", F_OK))
		cg_dr(d, "watcher at boot", CG_DR_WARN, "systemctl enable csum-guard-watch",
		      "csum-guard-watch.service is not enabled: after a reboot no guest is guarded "
		      "until someone attaches");
}

/* Every guest-facing device of the host, and what guards it */
static void cg_dr_devices(struct cg_doctor *d, bool completion)
{
	struct cg_rows rs = {};
	struct cg_ack ack = {};
	const struct cg_report_row *r;
	char ns[32], what[160], hint[256], drift[256];
	const char *label;
	int i, j, err, guarded = 0, other = 0;

	err = cg_status_rows(NULL, NULL, &rs, &ack);
	if (err) {
		cg_dr(d, "devices", CG_DR_FAIL, NULL, "cannot list them: %s", cg_ack_why(&ack, err));
		free(rs.row);
		return;
	}
	for (i = 0; i < rs.n; i++) {
		r = &rs.row[i];
		label = cg_report_netns(r, ns, sizeof(ns));
		snprintf(what, sizeof(what), "device %s%s%s%s%s%s", r->dev, label ? " netns " : "",
			 label ?: "", r->kind ? " (" : "", r->kind ?: "", r->kind ? ")" : "");
		if (r->state == CG_ROW_COVERED || r->state == CG_ROW_EXCLUDED) {
			cg_dr(d, what, CG_DR_OK, NULL, "%s: %s", cg_row_state_name(r->state),
			      r->why);
			other++;
			continue;
		}
		if (!r->st.attached) {
			snprintf(hint, sizeof(hint), "csum-guard attach %s%s%s, or run csum-guard watch",
				 r->dev, label ? " --netns " : "", label ?: "");
			cg_dr(d, what, completion ? CG_DR_WARN : CG_DR_FAIL, hint,
			      completion ? "no guard of its own; the completion guard refuses the "
			      "software completions it would meet" : "not guarded");
			continue;
		}
		guarded++;
		cg_dr(d, what, CG_DR_OK, NULL, "guarded by %s (%s%s), %llu dropped",
		      r->backend, r->st.mode, cg_opts_text(&r->st),
		      (unsigned long long)(r->st.dropped + r->st.dropped_unreadable));
		if (cg_verify_guard_drifted(r, drift, sizeof(drift)))
			cg_dr(d, what, CG_DR_WARN, "csum-guard verify --heal (the watcher puts it "
			      "back by itself)", "%s", drift);
		for (j = 0; j < r->ahead.n && j < CG_AHEAD_MAX; j++)
			cg_dr(d, what, CG_DR_WARN, "what runs ahead may redirect or change frames "
			      "before the guard sees them: check it is meant to",
			      "ahead of the guard: %s", r->ahead.item[j]);
	}
	if (!rs.n)
		cg_dr(d, "devices", CG_DR_OK, NULL, "no guest-facing device on this host");
	else
		cg_dr(d, "devices", CG_DR_OK, NULL, "%d of %d guest-facing devices guarded%s",
		      guarded, rs.n - other, other ? " (those covered or excluded aside)" : "");
	free(rs.row);
}

static void cg_dr_responders(struct cg_doctor *d)
{
	struct cg_sc_census c;
	int err = cg_syncookie_census(&c);

	if (err) {
		cg_dr(d, "SYN responders", CG_DR_FAIL, NULL, "cannot read them: %s", strerror(-err));
		return;
	}
	if (c.tables_gone)
		cg_dr(d, "SYN responders", CG_DR_FAIL, "csum-guard syncookie attach again makes "
		      "them (after an nftables reload)", "%d whose nft tables are gone", c.tables_gone);
	if (c.outdated)
		cg_dr(d, "SYN responders", CG_DR_WARN, "csum-guard syncookie attach again updates it",
		      "%d answering with an older csum-guard's program", c.outdated);
	if (!c.tables_gone && !c.outdated)
		cg_dr(d, "SYN responders", CG_DR_OK, NULL, "%d answering", c.answering);
}

int cg_cmd_doctor(const struct cg_args *a)
{
	struct cg_doctor d = { .json = a->json, .first = true };
	bool json = a->json;
	struct cg_completion cc = {};
	struct cg_probe p;
	enum cg_choice c;
	char why[256];
	bool completion;

	if (cg_cli_need_root("examine this host"))
		return 1;
	if (json)
		fputs("{\"checks\":[", stdout);
	cg_probe_all(&p);
	c = cg_select(&p, CG_CHOICE_NONE, why, sizeof(why));
	if (c == CG_CHOICE_NONE)
		cg_dr(&d, "backend", CG_DR_FAIL, "see csum-guard probe", "none can run: %s", why);
	else
		cg_dr(&d, "backend", CG_DR_OK, NULL, "%s: %s", cg_choice_name(c), why);
	cg_dr_module(&d, &p, c == CG_CHOICE_KMOD);
	completion = !cg_kmod_completion(-1, &cc, NULL) && cc.on;
	if (completion)
		cg_dr(&d, "completion guard", CG_DR_OK, NULL, "on, %llu refused",
		      (unsigned long long)(cc.dropped + cc.dropped_unreadable));
	else
		cg_dr(&d, "completion guard", *p.completion_err ? CG_DR_OK : CG_DR_WARN,
		      "csum-guard completion on", "off%s%s", *p.completion_err ? ": " : "",
		      p.completion_err);
	cg_dr_watcher(&d);
	cg_status_exclude(a->match, a->nmatch, a->no_containers);
	cg_dr_devices(&d, completion);
	cg_dr_responders(&d);
	if (json) {
		printf("],\"healthy\":%s,\"failed\":%d,\"warnings\":%d}\n", d.fails ? "false" : "true",
		       d.fails, d.warns);
	} else {
		printf("%s: %d failed, %d warnings\n",
		       d.fails ? "this host is NOT fully guarded" : "this host is guarded",
		       d.fails, d.warns);
	}
	return d.fails ? 1 : 0;
}
