// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * path.c - the verdict on one path of csum-guard check: in the topology
 * topo.c builds for it, the good frame first (does it forward at all?),
 * for the netfilter sites the control without the rule and then the rule,
 * then the bad frame and a good one behind it, and what the kernel
 * counted meanwhile; the verdicts are check.c's table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topo.h"
#include "path.h"

static void ck_say(struct ck_result *r, enum ck_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ck_say(struct ck_result *r, enum ck_verdict v, const char *fmt, ...)
{
	va_list ap;

	r->v = v;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* The bad frame, then a good one behind it: once that is in, so is anything
 * of the bad one. 0, or why the tap would not take the bad one. */
static int ck_probe(struct ck_topo *t, const struct ck_path *p, struct ck_obs *o, int bad,
		    int after)
{
	int err = ck_send(t, p, true, bad);

	if (err)
		return err;
	err = ck_send(t, p, false, after);
	ck_capture(t, o, err ? 0 : after, CK_WAIT_MS);
	ck_capture(t, o, 0, CK_GRACE_MS);
	return 0;
}

/*
 * The netfilter sites: first the control, the bad frame before the rule
 * exists, which nothing completes (MTU 1500, offload on) and so must arrive
 * untouched; then the rule (and for nfqueue the queue's reader). 0 when
 * the site is in place, else r says why not.
 */
static int ck_site_ready(struct ck_topo *t, const struct ck_path *p, struct ck_obs *o,
			 struct ck_result *r)
{
	struct ck_seen *bad = &o->wire[ID_CTRL - ID_GOOD];
	char why[200];
	int err;

	err = ck_probe(t, p, o, ID_CTRL, ID_CTRL_AFTER);
	if (err == -EINVAL) {
		ck_say(r, CK_FIXED, "the tap refuses the bad frame (write: %s)", strerror(-err));
		return -1;
	}
	if (err) {
		ck_say(r, CK_UNKNOWN, "writing the bad frame failed: %s", strerror(-err));
		return -1;
	}
	if (!o->wire[ID_CTRL_AFTER - ID_GOOD].pkts || !bad->pkts || bad->rewritten) {
		ck_say(r, CK_UNKNOWN, "without the rule the bad frame %s%s: %s",
		       bad->rewritten ? "arrived with source " :
		       bad->pkts ? "or the good one after it did not arrive" : "did not arrive",
		       bad->rewritten ? bad->source : "",
		       "the rule would not be the only completion site");
		return -1;
	}
	if ((p->site == CK_SITE_NFQUEUE && ck_nfq_bind(t, why, sizeof(why))) ||
	    ck_site_up(t, p, why, sizeof(why))) {
		ck_say(r, CK_UNKNOWN, "%s", why);
		return -1;
	}
	return 0;
}

static void ck_judge(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
{
	struct ck_obs o = {};
	struct ck_seen *good = &o.wire[0], *bad = &o.wire[ID_BAD - ID_GOOD];
	struct ck_seen *after = &o.wire[ID_AFTER - ID_GOOD];
	struct ck_seen *qbad = &o.queue[ID_BAD - ID_GOOD];
	const char *rule = p->site == CK_SITE_XTCSUM ? "CHECKSUM" : "NFQUEUE";
	long long ff0, ff1, td0, td1, h0 = -1, h1 = -1;
	int err, i;

	/*
	 * The good frame: does this topology forward at all? Right after
	 * set-up veth0 now and then drops the first frame, so send it again
	 * at growing intervals (50 ms .. 1.6 s, about 3 s in all).
	 */
	for (i = 0; i < 6 && !good->pkts; i++) {
		err = ck_send(t, p, false, ID_GOOD);
		if (err) {
			ck_say(r, CK_UNKNOWN, "the tap refused the good frame: %s", strerror(-err));
			return;
		}
		ck_capture(t, &o, ID_GOOD, 50L << i);
	}
	if (!good->pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame did not arrive: %s",
		       "the test topology does not forward here");
		return;
	}
	if (good->rewritten) {
		ck_say(r, CK_UNKNOWN, "the good frame arrived with source %s, not %s",
		       good->source, p->v6 ? CK_GUEST6 : CK_GUEST);
		return;
	}
	if (p->site != CK_SITE_NONE) {
		if (ck_site_ready(t, p, &o, r))
			return;
		h0 = ck_site_hits(t, p);
	}

	ff0 = ck_snmp_ip(t->snmp, "FragFails");
	td0 = ck_tx_dropped(t->netdev, "veth0");
	err = ck_probe(t, p, &o, ID_BAD, ID_AFTER);
	if (err == -EINVAL) {
		ck_say(r, CK_FIXED, "the tap refuses the bad frame (write: %s)", strerror(-err));
		return;
	}
	if (err) {
		ck_say(r, CK_UNKNOWN, "writing the bad frame failed: %s", strerror(-err));
		return;
	}
	ff1 = ck_snmp_ip(t->snmp, "FragFails");
	td1 = ck_tx_dropped(t->netdev, "veth0");
	if (p->site != CK_SITE_NONE)
		h1 = ck_site_hits(t, p);

	if (bad->rewritten || qbad->rewritten) {
		struct ck_seen *s = bad->rewritten ? bad : qbad;

		snprintf(r->source, sizeof(r->source), "%s", s->source);
		ck_say(r, CK_VULNERABLE, "the bad frame %s with source %s rewritten to %s",
		       bad->rewritten ? "arrived" : "was copied to the queue",
		       p->v6 ? CK_GUEST6 : CK_GUEST, s->source);
	} else if (bad->pkts) {
		ck_say(r, CK_UNKNOWN, "the bad frame arrived unchanged: %s",
		       "this path did not complete its checksum");
	} else if (!after->pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame sent after the bad one did not arrive");
	} else if (p->site != CK_SITE_NONE) {
		/* the rule matched the bad frame and the one after it; only one got out */
		if (h0 < 0 || h1 < 0)
			ck_say(r, CK_UNKNOWN, "the bad frame did not arrive, %s %s rule",
			       "but cannot read the counter of the", rule);
		else if (h1 - h0 < 2 || qbad->pkts)
			ck_say(r, CK_UNKNOWN, "the bad frame did not arrive, but the %s rule "
			       "matched %lld%s", rule, h1 - h0,
			       qbad->pkts ? " and the queue got a copy" : "");
		else
			ck_say(r, CK_FIXED, "the kernel dropped the bad frame (the %s rule "
			       "matched it and the good one after it, +%lld; only that one "
			       "arrived)", rule, h1 - h0);
	} else if (!p->tx_csum_off && ff0 >= 0 && ff1 > ff0) {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (IpFragFails +%lld)",
		       ff1 - ff0);
	} else if (!p->tx_csum_off) {
		ck_say(r, CK_UNKNOWN, "the bad frame did not arrive, %s",
		       "but IpFragFails did not count it");
	} else if (td0 >= 0 && td1 > td0) {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (veth0 tx_dropped +%lld)",
		       td1 - td0);
	} else {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (%s)",
		       "no drop counter of veth0 moved");
	}
}

void ck_run_path(const struct ck_path *p, struct ck_result *r)
{
	struct ck_topo t;

	memset(r, 0, sizeof(*r));
	ck_topo_init(&t);
	if (!ck_topo_up(&t, p, r))
		ck_judge(&t, p, r);
	ck_topo_down(&t);
}
