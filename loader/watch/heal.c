// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * heal.c - a guard the watcher made, or found, that someone takes off or
 * changes is put back as it was: its backend, mode and options.
 *
 * Where the kernel tells (a clsact guard: RTM_DELQDISC, RTM_DELTFILTER and
 * RTM_NEWTFILTER of its namespace, RTNLGRP_TC, on the watcher's one socket:
 * rtnl.c), the device is looked at once those events are read. Where it does not (a tcx link
 * detached or updated to another program, the module unloaded or its
 * netfilter hook gone), every CG_CHECK_MS: those guards only, one status
 * read each. What was put back
 * is logged (warning), counted by reason (repairs.h: status shows it) and
 * said again when it cannot be (error; then tried as any failed device).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <linux/rtnetlink.h>

#include "journal.h"
#include "log.h"
#include "modprobe.h"
#include "csum_guard_genl.h"
#include "backend.h"
#include "backends.h"
#include "select.h"
#include "repairs.h"
#include "bpf/api.h"
#include "watch_int.h"

#define CG_DEFER_MAX		4	/* CG_CHECK_MS each: then put back all the same */

/*
 * Is a command changing a guard now (the host lock held)? What it does
 * half-way (an attach --no-egress takes the hook off before its meta says
 * so) must not read as a drift: the look waits for it, a while at most.
 */
static bool cg_wlock_busy(void)
{
	int fd = open(CG_LOCK_PATH, O_RDONLY | O_CLOEXEC);
	bool busy;

	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);	/* and the shared lock with it */
	return busy;
}

/* What guards d now, kept for the day it is taken off */
void cg_whad(struct cg_wdev *d, const struct cg_backend *b, const struct cg_status *st)
{
	d->had_by = !b ? CG_CHOICE_NONE : b == cg_backends[CG_CHOICE_KMOD] ? CG_CHOICE_KMOD :
		    CG_CHOICE_BPF;
	d->had_egress = st->egress;
	d->had_log_drops = st->log_drops;
	snprintf(d->had_mode, sizeof(d->had_mode), "%s", st->mode);
}

/* A tc event of ns: a guarded device it is about is looked at next */
void cg_wtc_event(struct cg_wns *ns, const struct nlmsghdr *h)
{
	const struct tcmsg *tc = NLMSG_DATA(h);
	int hint, i;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
		return;
	hint = h->nlmsg_type == RTM_DELQDISC ? CG_REPAIR_QDISC :
	       h->nlmsg_type == RTM_DELTFILTER ? CG_REPAIR_FILTER : CG_REPAIR_PROGRAM;
	for (i = 0; i < ns->ndevs; i++) {
		struct cg_wdev *d = &ns->devs[i];

		if (d->ifindex != tc->tcm_ifindex || d->state != CG_W_DONE)
			continue;
		/* the qdisc's deletion says most, a filter's more than a new one */
		if (!d->check || hint < d->hint)
			d->hint = hint;
		d->check = true;
	}
}

/* Why d's guard is gone, from the event if one told, else from what it
 * was; mod_gone: the module was not loaded when this round began (the
 * first device put back loads it again for the others) */
static enum cg_repair_reason cg_wgone_why(const struct cg_wdev *d, int hint, bool mod_gone)
{
	if (hint >= 0 && hint < CG_REPAIR_MAX)
		return hint;
	if (d->had_by == CG_CHOICE_KMOD)
		return mod_gone ? CG_REPAIR_MODULE : CG_REPAIR_HOOK;
	if (!strcmp(d->had_mode, "tcx"))
		return CG_REPAIR_LINK;
	return CG_REPAIR_FILTER;
}

/*
 * Look at d, and put its guard back if it is off or has lost an option
 * its meta records. False when d went away and was forgotten.
 */
static bool cg_wheal_one(struct cg_watch *w, struct cg_wns *ns, struct cg_wdev *d,
			 bool mod_gone)
{
	struct cg_target t = { .netns_ino = ns->ino, .ifindex = d->ifindex };
	char why[1024], dev[4 * IF_NAMESIZE + 1], nsl[4 * CG_LABEL_MAX];
	int hint = d->check ? d->hint : -1;
	const struct cg_backend *b;
	enum cg_repair_reason r;
	struct cg_recorded rd = {};
	bool rec;
	struct cg_status st;
	__u64 t0 = cg_wnow_ms();
	int err, gone;

	d->check = false;
	b = cg_wstatus(ns, d, &st, &gone, NULL);
	if (gone > 0) {
		cg_wdev_del(ns, d);
		return false;
	}
	if (gone < 0) {
		/* its namespace out of reach now: not known, no repair; a scan
		 * finds the way to it again */
		w->rescan = true;
		return true;
	}
	rec = !cg_bpf_recorded(&t, &rd);
	if (b && b == cg_backends[CG_CHOICE_BPF] && rec && rd.swapped) {
		r = CG_REPAIR_PROGRAM;	/* its tcx link updated to another program */
	} else if (b && b == cg_backends[CG_CHOICE_BPF] && rec && rd.egress && !st.egress) {
		r = CG_REPAIR_OPTIONS;	/* its egress hook taken off */
	} else if (b) {
		cg_whad(d, b, &st);	/* as it is: an operator's change stays */
		d->deferred = 0;
		return true;
	} else {
		r = cg_wgone_why(d, hint, mod_gone);
	}
	if (d->deferred < CG_DEFER_MAX && cg_wlock_busy()) {
		d->deferred++;
		d->check = true;	/* looked at again next round */
		d->hint = hint >= 0 ? hint : CG_REPAIR_MAX;
		return true;
	}
	d->deferred = 0;
	if (rec && d->had_by != CG_CHOICE_KMOD) {
		d->had_egress = rd.egress;
		d->had_log_drops = rd.log_drops;
	}
	cg_text_safe(d->name, dev, sizeof(dev));
	cg_wns_label(ns, nsl, sizeof(nsl));
	cg_log(CG_PRIO_WARNING, dev, nsl, "guard of %s netns %s taken off (%s): putting it back",
	       dev, nsl, cg_repair_name(r));
	err = cg_wspawn(w, ns, d, why, sizeof(why));
	if (err == -ESTALE) {
		/* its name is another device's now (deleted and made again, or
		 * moved): not a repair; that device is watch's like any new one */
		cg_log(CG_PRIO_INFO, dev, nsl, "%s netns %s is another device now: %s", dev, nsl, why);
		cg_wdev_del(ns, d);
		return false;
	}
	if (!err) {
		b = cg_wstatus(ns, d, &st, &gone, NULL);
		if (b && (st.egress || !d->had_egress) &&
		    (b != cg_backends[CG_CHOICE_BPF] || cg_bpf_recorded(&t, &rd) || !rd.swapped)) {
			cg_log(CG_PRIO_WARNING, dev, nsl, "put back the guard of %s netns %s (%s, %s%s) "
			       "after %s, in %llu ms", dev, nsl, b->name, st.mode, cg_opts_text(&st),
			       cg_repair_name(r), (unsigned long long)(cg_wnow_ms() - t0));
			err = cg_repair_count(r, ns->ino, d->ifindex);
			if (err)
				cg_log(CG_PRIO_ERR, dev, nsl, "cannot count the repair of %s netns %s: %s",
				       dev, nsl, strerror(-err));
			cg_whad(d, b, &st);
			return true;
		}
		snprintf(why, sizeof(why), "attach succeeded, yet the device reads %s",
			 b ? "without its egress guard" : "unguarded");
	}
	cg_log(CG_PRIO_ERR, dev, nsl, "cannot put back the guard of %s netns %s: %s", dev, nsl, why);
	d->state = CG_W_FAILED;
	d->retry_at = cg_wnow_ms() + 1000;
	return true;
}

/* Guards an event named, and every CG_CHECK_MS those no event tells of */
void cg_wheal_all(struct cg_watch *w)
{
	__u64 now = cg_wnow_ms();
	bool periodic = now >= w->next_check;
	bool mod_gone = !cg_module_live(CG_KMOD_NAME);
	struct cg_wdev *d;
	int i, j;

	if (periodic)
		w->next_check = now + CG_CHECK_MS;
	for (i = 0; i < w->nns; i++) {
		for (j = 0; j < w->ns[i].ndevs; j++) {
			d = &w->ns[i].devs[j];
			if (d->state != CG_W_DONE)
				continue;
			if (!d->check && !(periodic && (d->had_by == CG_CHOICE_KMOD ||
							 !strcmp(d->had_mode, "tcx"))))
				continue;
			if (!cg_wheal_one(w, &w->ns[i], d, mod_gone))
				j--;	/* the last one moved into its place */
		}
	}
}
