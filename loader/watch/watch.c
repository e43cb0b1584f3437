// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * watch.c - csum-guard watch: guard every matching guest-facing device (tap,
 * macvtap, ipvtap, tunnels decapsulated on the host: lib/link.h) in every
 * network namespace of the host, those that appear later included.
 *
 *	csum-guard watch [--match GLOB[,GLOB...]]... [--backend B] [--log-drops]
 *
 * Namespaces come from /run/netns (watched with inotify) and from
 * /proc/PID/ns/net (VM namespaces are often unnamed: rescanned every 2 s),
 * one entry per namespace inode. Each gets an id in ours, so that the one
 * rtnetlink socket of the watcher hears its link events (rtnl.c), and a
 * link dump for the devices it has. Namespaces of other user namespaces
 * (an unprivileged `unshare -rn`) are counted and left (ns.c).
 *
 * A matching device is guarded by cg_attach() in a child process: each
 * attach runs alone under the lock, in the device's namespace, and no
 * failure stops the watch. One line per action goes to stdout.
 * SIGINT/SIGTERM end the watch with 0 and leave every guard in place: the
 * guards outlive the watcher by design (loop.c: the command and its loop).
 * Once every device there at the start is guarded (or, with
 * --ready-on-failure, has failed), it says ready, to systemd too (READY=1,
 * lib/notify.h): the unit is Type=notify, ordered before the VM managers.
 *
 * Nothing of ours keeps a namespace alive; it is dropped as soon as a scan
 * no longer finds it under a name or a process: at once when its name goes
 * (inotify), its first process exits (the proc connector) or its id is
 * freed (RTM_DELNSID), else within 2 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "cli.h"
#include "journal.h"
#include "json.h"
#include "link.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "notify.h"
#include "nl.h"
#include "backend.h"
#include "commands.h"
#include "select.h"
#include "ahead.h"
#include "bpf/api.h"
#include "events.h"
#include "watch.h"
#include "watch_int.h"


__u64 cg_wnow_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* --match takes a glob or a comma-separated list of them, and repeats. */
int cg_wadd_match(struct cg_watch *w, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok, **m;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		m = realloc(w->match, (w->nmatch + 1) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		w->match = m;
		w->match[w->nmatch++] = tok;
	}
	return 0;
}

bool cg_wmatch(const struct cg_watch *w, const char *name)
{
	int i;

	if (!w->nmatch)
		return true;
	for (i = 0; i < w->nmatch; i++)
		if (!fnmatch(w->match[i], name, 0))
			return true;
	return false;
}

/*
 * Which backend guards d now, from inside its namespace; NULL: none.
 * *gone: 1 the device is not there any more (its RTM_DELLINK may have been
 * lost, or its name is another device's), -1 its namespace cannot be
 * entered now (NULL: not known), else 0.
 * ahead (may be NULL): what runs before that guard there.
 */
const struct cg_backend *cg_wstatus(struct cg_wns *ns, struct cg_wdev *d,
				    struct cg_status *st, int *gone, struct cg_ahead *ahead)
{
	char name[IF_NAMESIZE], way[CG_WNS_WAY_MAX];
	struct cg_target t = {
		.dev = d->name,
		.netns = cg_wns_way(ns, way, sizeof(way)),
		.netns_ino = ns->ino,
		.ifindex = d->ifindex,
	};
	enum cg_choice c;

	*gone = 0;
	if (cg_wns_enter(ns)) {
		*gone = -1;
		return NULL;
	}
	*gone = !if_indextoname(d->ifindex, name) && (errno == ENXIO || errno == ENODEV);
	/* or its name is another device's now: deleted and made again before
	 * the events said so (that one is watch's as any new device) */
	if (!*gone) {
		unsigned int now = if_nametoindex(d->name);

		*gone = now && (int)now != d->ifindex;
	}
	c = cg_guarded_by(&t, st);
	if (ahead)
		cg_ahead_of(d->ifindex, cg_choice_name(c), st, ahead);
	cg_netns_return();
	return c == CG_CHOICE_NONE ? NULL : cg_backends[c];
}

/* "  warning: xdp program 42 ... runs before the guard ..." lines for d */
static void cg_wahead(const struct cg_ahead *a, const char *dev, const char *nsl)
{
	char buf[4 * sizeof(a->item[0])];
	int i;

	for (i = 0; i < a->n && i < CG_AHEAD_MAX; i++)
		cg_log(CG_PRIO_WARNING, dev, nsl, "warning: on %s netns %s, %s runs before the "
		       "guard: what it redirects or duplicates, the guard does not see", dev, nsl,
		       cg_text_safe(a->item[i], buf, sizeof(buf)));
}

/* Attach to d in a child process (cg_attach_child()) */
int cg_wspawn(struct cg_watch *w, struct cg_wns *ns, struct cg_wdev *d, char *why, size_t n)
{
	char way[CG_WNS_WAY_MAX];
	/* a guard put back (heal.c) gets what it had: backend, mode, options */
	struct cg_attach_req r = {
		.dev = d->name, .netns = cg_wns_way(ns, way, sizeof(way)),
		.backend = d->had_by != CG_CHOICE_NONE ? d->had_by : w->backend,
		.opts = { .log_drops = w->log_drops || d->had_log_drops, .egress = d->had_egress,
			  .mode = !strcmp(d->had_mode, "tcx") ? CG_ATTACH_TCX :
				  !strcmp(d->had_mode, "clsact") ? CG_ATTACH_CLSACT : CG_ATTACH_AUTO,
			  .preloaded = w->preload },
		.netns_ino = ns->ino,
		.ifindex = d->ifindex,
	};

	return cg_attach_child(&r, why, n);
}

/*
 * The guard loaded and verified ahead, so that a device that appears waits
 * for no verification: its attach (in a child) takes this copy. Loaded once
 * the devices due are done; a host where it does not load (the module's)
 * goes without, and so does one whose guards' shared program is pinned
 * (every attach opens that one).
 */
void cg_wpreload(struct cg_watch *w)
{
	if (w->preload || !w->want_preload)
		return;
	w->preload = cg_bpf_preload(w->log_drops);
	if (!w->preload)
		w->want_preload = false;
}

void cg_wpreload_drop(struct cg_watch *w)
{
	cg_bpf_preload_free(w->preload);
	w->preload = NULL;
}

/* Returns false when d went away and was forgotten. */
static bool cg_wguard(struct cg_watch *w, struct cg_wns *ns, struct cg_wdev *d)
{
	const char *want = cg_choice_name(w->backend);
	const struct cg_backend *b;
	struct cg_status st;
	struct cg_ahead ahead;
	char why[1024], dev[4 * IF_NAMESIZE + 1], nsl[4 * CG_LABEL_MAX];
	bool fresh;
	int err, gone;

	cg_text_safe(d->name, dev, sizeof(dev));
	cg_wns_label(ns, nsl, sizeof(nsl));
	b = cg_wstatus(ns, d, &st, &gone, &ahead);
	if (gone > 0) {
		cg_wdev_del(ns, d);
		return false;
	}
	/*
	 * The way to its namespace leads nowhere now (the process it was
	 * found by exited; the namespace may have a name by now, or another
	 * process): found again by a scan at once, then tried again. Said
	 * only when the scans keep finding no way in.
	 */
	if (gone < 0 && d->lost < CG_LOST_MAX) {
		d->lost++;
		d->state = CG_W_FAILED;
		d->retry_at = cg_wnow_ms();
		w->rescan = true;
		return true;
	}
	d->lost = 0;
	/* a guard with more than we ask (--egress, --log-drops) is left as it is */
	if (b && (!want || !strcmp(want, b->name)) && (st.log_drops || !w->log_drops)) {
		cg_log(CG_PRIO_INFO, dev, nsl, "already guarded %s netns %s (%s, %s%s)", dev, nsl,
		       b->name, st.mode, cg_opts_text(&st));
		cg_wahead(&ahead, dev, nsl);
		cg_whad(d, b, &st);
		d->state = CG_W_DONE;
		return true;
	}
	fresh = !b;
	err = cg_wspawn(w, ns, d, why, sizeof(why));
	if (!err) {
		b = cg_wstatus(ns, d, &st, &gone, &ahead);
		/* a fresh guard took the program loaded ahead: load another later */
		if (fresh && b && st.prog_id == cg_bpf_preload_id(w->preload))
			cg_wpreload_drop(w);
		if (b) {
			cg_log(CG_PRIO_INFO, dev, nsl, "guarded %s netns %s (%s, %s%s)", dev, nsl,
			       b->name, st.mode, cg_opts_text(&st));
			cg_wahead(&ahead, dev, nsl);
			cg_whad(d, b, &st);
			d->state = CG_W_DONE;
			return true;
		}
		snprintf(why, sizeof(why), "attach succeeded, yet the device reads unguarded");
	}
	/* it may have been attached and taken off again: not to be trusted */
	if (fresh)
		cg_wpreload_drop(w);
	cg_log(CG_PRIO_ERR, dev, nsl, "cannot guard %s netns %s: %s", dev, nsl, why);
	d->state = CG_W_FAILED;
	d->retry_at = cg_wnow_ms() + (err == -ESTALE ? CG_SCAN_MS :
				      w->ready ? CG_RETRY_MS : CG_RETRY_UNREADY_MS);
	return true;
}

/*
 * What the guards of the namespaces forgotten lately left (a tcx link's
 * pins, once the kernel has freed its device), dropped in a child under
 * the host lock: those namespaces only, never a walk over the host. True
 * when nothing of theirs is left.
 */
bool cg_wprune_once(struct cg_watch *w)
{
	struct cg_ack ack = {};
	enum cg_choice c;
	int i, left = 0, status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		if (cg_lock_host(&ack))
			_exit(2);
		for (i = 0; i < w->ngone; i++)
			for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++)
				if (cg_backends[c]->prune)
					left += cg_backends[c]->prune(w->gone[i]);
		_exit(left ? 1 : 0);
	}
	if (pid < 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * Prune when it is due; while something is left (a namespace still being
 * torn down, or one alive without a name or process), again later, at
 * twice the wait, CG_PRUNE_TRIES times at most.
 */
void cg_wprune(struct cg_watch *w)
{
	if (!w->ngone || cg_wnow_ms() < w->prune_at)
		return;
	if (cg_wprune_once(w) || --w->prune_tries <= 0) {
		w->ngone = 0;
		return;
	}
	w->prune_wait *= 2;
	w->prune_at = cg_wnow_ms() + w->prune_wait;
}

static bool cg_wsignalled(struct cg_watch *w)
{
	struct pollfd p = { .fd = w->sfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* Guard what is due; stop early when a signal is waiting. */
void cg_wwork(struct cg_watch *w)
{
	struct cg_wdev *d;
	int i, j;

	for (i = 0; i < w->nns; i++) {
		for (j = 0; j < w->ns[i].ndevs; j++) {
			d = &w->ns[i].devs[j];
			if (d->state == CG_W_DONE ||
			    (d->state == CG_W_FAILED && cg_wnow_ms() < d->retry_at))
				continue;
			if (cg_wsignalled(w))
				return;
			if (!cg_wguard(w, &w->ns[i], d))
				j--;	/* the last one moved into its place */
		}
	}
}

/*
 * The failures that keep the watcher from being ready, named: one line to
 * the log and the service manager's STATUS=, again only when their
 * number changes.
 */
static void cg_wunready(struct cg_watch *w, int failed)
{
	char names[512], buf[4 * CG_LABEL_MAX], dev[4 * IF_NAMESIZE + 1];
	size_t len = 0;
	int i, j, shown = 0;

	if (failed == w->unready)
		return;
	w->unready = failed;
	names[0] = '\0';
	for (i = 0; i < w->nns; i++)
		for (j = 0; j < w->ns[i].ndevs; j++) {
			if (w->ns[i].devs[j].state != CG_W_FAILED)
				continue;
			if (len < sizeof(names) - 1 && shown < 8) {
				len += snprintf(names + len, sizeof(names) - len, "%s%s netns %s",
						shown ? ", " : "",
						cg_text_safe(w->ns[i].devs[j].name, dev, sizeof(dev)),
						cg_wns_label(&w->ns[i], buf, sizeof(buf)));
				if (len >= sizeof(names))
					len = sizeof(names) - 1;
			}
			shown++;
		}
	printf("not ready: %d device%s not guarded (%s%s); trying again every %d s "
	       "(--ready-on-failure to be ready all the same)\n", failed, failed == 1 ? "" : "s",
	       names, shown > 8 ? ", ..." : "", CG_RETRY_UNREADY_MS / 1000);
	snprintf(buf, sizeof(buf), "STATUS=not ready: %d device%s not guarded (%s%s)",
		 failed, failed == 1 ? "" : "s", names, shown > 8 ? ", ..." : "");
	cg_notify(buf);
}

/*
 * Ready once every namespace's first link dump has ended and each device it
 * listed has been guarded: a unit of Type=notify then counts as started,
 * and the VM managers ordered after it start no guest before that. A
 * device that failed keeps it from ready (fail closed: it is tried again,
 * and named) unless --ready-on-failure lets a host prefer availability.
 */
void cg_wready(struct cg_watch *w)
{
	int i, j, guarded = 0, failed = 0, err;

	if (w->ready)
		return;
	for (i = 0; i < w->nns; i++) {
		if (!w->ns[i].listed)
			return;
		for (j = 0; j < w->ns[i].ndevs; j++) {
			switch (w->ns[i].devs[j].state) {
			case CG_W_TODO:
				return;
			case CG_W_DONE:
				guarded++;
				break;
			case CG_W_FAILED:
				failed++;
				break;
			}
		}
	}
	if (failed && !w->ready_on_failure) {
		cg_wunready(w, failed);
		return;
	}
	w->ready = true;
	printf("ready: %d guarded, %d failed, in %d network namespaces\n",
	       guarded, failed, w->nns);
	err = cg_notify(failed ? "READY=1\nSTATUS=ready, with devices left unguarded (--ready-on-failure)" :
			"READY=1\nSTATUS=guarding every guest-facing device");
	if (err < 0)
		cg_log(CG_PRIO_ERR, NULL, NULL, "cannot tell the service manager we are ready: %s",
		       strerror(-err));
}

/*
 * The module's completion guard covers what no device's guard sees (a
 * frame a tunnel decapsulated, one a macvtap transmitted, one a tc redirect
 * took first): on wherever the module can load, unless --no-completion or
 * --backend bpf asked for the BPF guard alone. A host that cannot have it
 * is said once and watched all the same.
 */
void cg_wcompletion(const struct cg_watch *w)
{
	struct cg_completion c;
	struct cg_ack ack = {};
	struct cg_probe p = {};

	if (w->no_completion || w->backend == CG_CHOICE_BPF)
		return;
	cg_kmod_probe_completion_only(&p);
	if (*p.completion_err) {
		printf("completion guard unavailable: %s\n", p.completion_err);
		return;
	}
	if (cg_kmod_completion(1, &c, &ack))
		printf("completion guard unavailable: %s\n", cg_ack_why(&ack, -EOPNOTSUPP));
	else
		printf("completion guard on\n");
}
