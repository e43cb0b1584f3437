// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * loop.c - csum-guard watch, the command: its set-up, the loop that scans,
 * guards (watch.c) and waits for the kernel's, inotify's and the proc
 * connector's news (ns.c), and its end, which leaves every guard in place.
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
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "cli.h"
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

/* The command line's options into w */
static int cg_wparse(const struct cg_args *a, struct cg_watch *w)
{
	int i;

	for (i = 0; i < a->nmatch; i++)
		if (cg_wadd_match(w, a->match[i]))
			return cg_usage_err("out of memory");
	w->backend = a->backend;
	w->log_drops = a->log_drops;
	w->no_completion = a->no_completion;
	w->no_containers = a->no_containers;
	w->ready_on_failure = a->ready_on_failure;
	w->textfile = a->textfile;
	w->textfile_interval = a->textfile_interval ?: CG_TEXTFILE_S;
	return 0;
}

/* --textfile's directory: one we can write in, or one line and 1 */
static int cg_wtextfile_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *why = NULL;
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? (slash == path ? "/" : path) : ".");
	if (stat(dir, &st))
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	else if (access(dir, W_OK | X_OK))
		why = strerror(errno);
	if (why) {
		cg_err("cannot watch: --textfile %s: %s: %s", path, dir, why);
		return 1;
	}
	return 0;
}

/* A watcher that could guard nothing says so and fails, not logs on. */
static bool cg_wcan_guard(const struct cg_watch *w)
{
	struct cg_probe p;
	char why[256];

	cg_probe_all(&p);
	if (cg_select(&p, w->backend, why, sizeof(why)) != CG_CHOICE_NONE)
		return true;
	cg_err("cannot watch: %s", why);
	return false;
}

/*
 * Descriptors up to the hard limit, a backstop: the watcher holds the same
 * few however many namespaces the host has (rtnl.c), but an attach's child
 * and the libraries must never want for one. The unit sets LimitNOFILE
 * as well; a limit that cannot be raised is said and lived with.
 */
static void cg_wnofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		printf("cannot raise the descriptor limit to %llu: %s\n",
		       (unsigned long long)rl.rlim_max, strerror(errno));
}

/* When the loop looks again: the full scan, the names, the quick period */
struct cg_wtimes {
	__u64 next_scan, next_named, quick_until, ev_refresh, next_textfile;
};

/* Everything the loop polls, set up; 0, or 1 with one line said */
static int cg_wstart(struct cg_watch *w, struct cg_events **drops)
{
	struct stat st;
	sigset_t sigs;
	int i, err;

	if (geteuid() != 0) {
		cg_err("cannot watch: must be run as root");
		return 1;
	}
	if (w->textfile && cg_wtextfile_dir(w->textfile))
		return 1;
	if (!cg_wcan_guard(w))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	cg_wnofile();
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	w->sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->sfd < 0 || w->ifd < 0 || stat("/proc/self/ns/net", &st)) {
		cg_err("cannot watch: %s", strerror(errno));
		return 1;
	}
	w->own_ino = st.st_ino;
	err = cg_userns_ino(&w->own_userns);
	if (err) {
		cg_err("cannot watch: %s", strerror(-err));
		return 1;
	}
	err = cg_wrtnl_open(w);
	if (err) {
		cg_err("cannot watch: cannot hear the namespaces' link events: %s", strerror(-err));
		return 1;
	}
	w->cfd = cg_wproc_open();
	w->want_preload = w->backend != CG_CHOICE_KMOD;
	/* a mount here changes it: the bind mount that makes a name a namespace */
	w->mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	/* --log-drops: the guards' drop events into this log */
	if (w->log_drops && !(*drops = cg_events_open(false))) {
		cg_err("cannot watch: cannot read drop events: %s", strerror(errno));
		return 1;
	}
	printf("watching guest-facing devices (%s%s)", cg_kind_list(),
	       w->no_containers ? "; not veth, netkit: --no-containers" :
	       "; veth, netkit: where the peer is in another namespace");
	for (i = 0; i < w->nmatch; i++)
		printf("%s%s", i ? "," : " matching ", w->match[i]);
	printf(" (backend %s%s)\n", cg_choice_name(w->backend) ?: "auto",
	       w->log_drops ? ", log-drops" : "");
	if (w->textfile)
		printf("writing %s every %d s\n", w->textfile, w->textfile_interval);
	cg_wcompletion(w);
	if (w->cfd < 0)
		printf("unnamed namespaces are found by a rescan every %d s: no proc connector: %s\n",
		       CG_SCAN_MS / 1000, strerror(-w->cfd));
	return 0;
}

/*
 * The fds of one round into pfd (CG_WPOLL_MAX): signals, inotify, the proc
 * connector, mountinfo, every namespace's events (rtnl.c), then the drop
 * events'. How many: the same however many namespaces there are.
 */
#define CG_WPOLL_MAX	7
static int cg_wpollset(struct cg_watch *w, struct cg_events *drops, struct pollfd *pfd)
{
	struct pollfd evfd[2];
	int i, n = 5, nev;

	pfd[0] = (struct pollfd){ .fd = w->sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = w->ifd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = w->cfd, .events = POLLIN };
	pfd[3] = (struct pollfd){ .fd = w->mfd, .events = POLLPRI };
	pfd[4] = (struct pollfd){ .fd = w->rtfd, .events = POLLIN };
	/* the drop events' fds come last, and are read every round */
	nev = drops ? cg_events_pollfds(drops, evfd) : 0;
	for (i = 0; i < nev; i++)
		pfd[n++] = evfd[i];
	return n;
}

/* inotify on the names' directory: a name gone lets the full scan drop
 * its namespace; a name new has the names alone looked at */
static void cg_winotify(struct cg_watch *w, struct cg_wtimes *tm)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	bool gone = false;
	ssize_t len;
	__u64 now;
	int i;

	while ((len = read(w->ifd, ev, sizeof(ev))) > 0) {
		for (i = 0; i < len; i += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)(ev + i);
			if (e->mask & IN_IGNORED)
				w->wd = -1;	/* the directory went */
			gone |= e->mask & (IN_DELETE | IN_MOVED_FROM | IN_IGNORED |
					   IN_DELETE_SELF | IN_MOVE_SELF);
		}
	}
	now = cg_wnow_ms();
	if (gone)
		tm->next_scan = now;
	tm->next_named = now;
	tm->quick_until = now + CG_SCAN_MS;
}

/* What a round's poll found, handled */
static void cg_wevents(struct cg_watch *w, struct cg_events *drops, struct cg_wtimes *tm,
		       const struct pollfd *pfd)
{
	if (pfd[1].revents)
		cg_winotify(w, tm);
	if (pfd[3].revents & (POLLPRI | POLLERR))
		tm->next_named = cg_wnow_ms();
	if (pfd[2].revents && cg_wproc_read(w)) {
		printf("proc connector events lost: rescanning every process\n");
		tm->next_scan = cg_wnow_ms();
	}
	if (pfd[4].revents)
		cg_wrtnl_read(w);
	/* a namespace's first process exited, or its id was freed: is the
	 * namespace gone too? */
	if (w->rescan) {
		w->rescan = false;
		tm->next_scan = cg_wnow_ms();
	}
	if (drops) {
		cg_events_read(drops);
		if (cg_wnow_ms() >= tm->ev_refresh) {
			cg_events_refresh(drops);
			tm->ev_refresh = cg_wnow_ms() + 1000;
		}
	}
}

/* Stopped by signo: what the guards of namespaces forgotten just now left
 * (1 s at most), then everything the loop held */
static void cg_wstop(struct cg_watch *w, struct cg_events *drops, int signo)
{
	int i;

	if (drops) {
		cg_events_read(drops);
		cg_events_close(drops);
	}
	for (i = 0; w->ngone && i < 5; i++) {
		if (i)
			nanosleep(&(struct timespec){ 0, CG_PRUNE_MS * 1000000L }, NULL);
		if (cg_wprune_once(w))
			break;
	}
	printf("stopped on %s; the guards stay in place\n", signo == SIGINT ? "SIGINT" : "SIGTERM");
	cg_wns_free_all(w);
	free(w->skip);
	free(w->gone);
	cg_wrtnl_close(w);
	cg_wpreload_drop(w);
	if (w->cfd >= 0)
		close(w->cfd);
	if (w->mfd >= 0)
		close(w->mfd);
}

int cg_watch(const struct cg_args *a)
{
	struct cg_watch w = { .sfd = -1, .ifd = -1, .wd = -1, .cfd = -1, .mfd = -1,
			      .rtfd = -1, .qfd = -1 };
	struct cg_wtimes tm = {};
	struct signalfd_siginfo si;
	struct pollfd pfd[CG_WPOLL_MAX];
	struct cg_events *drops = NULL;
	__u64 now, wake;
	int n, ret;
	bool pending, scanned;

	ret = cg_wparse(a, &w) ?: cg_wstart(&w, &drops);
	if (ret)
		return ret;
	for (;;) {
		now = cg_wnow_ms();
		scanned = true;
		if (now >= tm.next_scan) {
			pending = cg_wscan(&w);
			tm.next_scan = now + CG_SCAN_MS;
			w.last_scan = time(NULL);
		} else if (tm.next_named && now >= tm.next_named) {
			pending = cg_wscan_named(&w);
		} else {
			scanned = false;
		}
		/* a name not bound yet: its mount tells, else look again soon */
		if (scanned)
			tm.next_named = pending && now < tm.quick_until ? now + CG_QUICK_MS : 0;
		cg_wdump_due(&w);
		cg_wwork(&w);
		cg_wheal_all(&w);
		/* before ready: the VM managers that wait for it find it loaded */
		cg_wpreload(&w);
		cg_wready(&w);
		cg_wprune(&w);
		/* after the work: the file says what this round did */
		if (w.textfile && cg_wnow_ms() >= tm.next_textfile) {
			cg_wtextfile(&w);
			tm.next_textfile = cg_wnow_ms() + w.textfile_interval * 1000ULL;
		}

		n = cg_wpollset(&w, drops, pfd);
		now = cg_wnow_ms();
		wake = tm.next_named && tm.next_named < tm.next_scan ? tm.next_named : tm.next_scan;
		if (w.ngone && w.prune_at < wake)
			wake = w.prune_at;
		if (w.next_check < wake)
			wake = w.next_check;
		if (w.textfile && tm.next_textfile < wake)
			wake = tm.next_textfile;
		/* a way to a namespace led nowhere: scan before sleeping */
		if (w.rescan)
			wake = now;
		ret = poll(pfd, n, wake > now ? (int)(wake - now) : 0);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			cg_err("cannot watch: poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents && read(w.sfd, &si, sizeof(si)) == sizeof(si))
			break;
		cg_wevents(&w, drops, &tm, pfd);
	}
	cg_wstop(&w, drops, si.ssi_signo);
	return 0;
}
