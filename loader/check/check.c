// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check.c - csum-guard check: does this kernel write a completed checksum
 * over the IP header of a frame a guest handed it, on each completion path?
 *
 * Per path, a throwaway topology in two anonymous network namespaces that
 * only this process's file descriptors hold, so the kernel removes all of
 * it (namespaces, tap, veth pair, rules) when the process ends, however it
 * ends:
 *
 *   netns "vm" (an fd)                              netns "far" (an fd)
 *   +-------------------------------+               +------------------+
 *   | tap0 10.0.0.1/24 fd00::1/64   |               |                  |
 *   |   we write as guest 10.0.0.2  |  veth pair    |                  |
 *   |   or fd00::2 (vnet_hdr)       |               |                  |
 *   | forwarding    veth0 ----------+---------------+-- veth1          |
 *   |          10.1.0.1 fd01::1     |               |   AF_PACKET      |
 *   +-------------------------------+               +------------------+
 *   frag:     veth MTU 576, IP fragmentation completes the checksum
 *   tx, tx6:  veth0 without TX checksum offload, the transmit path does
 *   xtcsum, xtcsum6: a CHECKSUM --checksum-fill rule in vm does
 *   nfqueue, nfqueue6: an NFQUEUE rule in vm; the kernel completes it before
 *             copying the packet to our reader (site.c)
 * (forwarded IPv6 is never fragmented: no frag6)
 *
 * Per path: a good frame (csum_start at the UDP header) proves that the
 * topology forwards; then the bad frame (csum_start 6 bytes into the IPv4
 * header, 8 into the IPv6 one, csum_offset 6: the sum lands on the source
 * address); then a good one again, after which anything of the bad frame
 * would have arrived. The netfilter paths keep MTU 1500 and the offload,
 * and send the bad frame once before the rule exists: it must arrive
 * untouched, or the rule would not be the only completion site. The
 * capture is raw because a corrupted header fails its checksum.
 *
 *   bad frame arrived (or was copied to the
 *   queue) with its source rewritten            vulnerable
 *   nothing arrived and the kernel counted it
 *   (IpFragFails, the rule's packets), or the
 *   tap refused the frame                       fixed
 *   anything else, or iptables or a target
 *   missing                                     unknown, with the reason
 *
 * The host's namespaces, devices and guards are never touched: a guard on
 * the host's taps is not in these namespaces and cannot change the result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>
#include <linux/virtio_net.h>

#include "json.h"
#include "log.h"
#include "macros.h"
#include "modprobe.h"
#include "nl.h"
#include "check.h"
#include "topo.h"
#include "netns.h"

static const char *const ck_names[] = {
	[CK_UNKNOWN] = "unknown", [CK_FIXED] = "fixed",
	[CK_VULNERABLE] = "vulnerable", [CK_ERROR] = "error",
};

/* In the order of the README's reproduction table */
static const struct ck_path ck_paths[] = {
	{ "frag", "IP fragmentation (forwarded onto a 576-byte MTU veth)", 576, false,
	  false, CK_SITE_NONE },
	{ "tx", "transmit without TX checksum offload (forwarded onto such a veth)", 1500,
	  true, false, CK_SITE_NONE },
	{ "tx6", "IPv6 transmit without TX checksum offload (forwarded onto such a veth)",
	  1500, true, true, CK_SITE_NONE },
	{ "xtcsum", "iptables -j CHECKSUM --checksum-fill in mangle POSTROUTING", 1500, false,
	  false, CK_SITE_XTCSUM },
	{ "nfqueue", "iptables -j NFQUEUE in FORWARD, read in copy-packet mode", 1500, false,
	  false, CK_SITE_NFQUEUE },
	{ "xtcsum6", "ip6tables -j CHECKSUM --checksum-fill in mangle POSTROUTING", 1500,
	  false, true, CK_SITE_XTCSUM },
	{ "nfqueue6", "ip6tables -j NFQUEUE in FORWARD, read in copy-packet mode", 1500, false,
	  true, CK_SITE_NFQUEUE },
};

/* What arrived at the far end, and what the queue's reader was given */
struct ck_obs {
	struct ck_seen wire[ID_N], queue[ID_N];
};

/* --- frames -------------------------------------------------------------- */

static __u32 ck_sum(__u32 sum, const unsigned char *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += p[0] << 8 | p[1];
	if (len)
		sum += p[0] << 8;
	return sum;
}

static __u16 ck_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void ck_put16(unsigned char *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/*
 * virtio_net_hdr + Ethernet + IPv4 or IPv6 + UDP + payload, NEEDS_CSUM at
 * csum_start with csum_offset 6. As a guest does, the UDP checksum field
 * holds the folded pseudo-header sum; the IPv4 header checksum is valid.
 * id goes into the IPv4 id or the IPv6 flow label. Returns the length.
 */
static size_t ck_build(const struct ck_topo *t, bool v6, unsigned char *buf, int csum_start,
		       int id)
{
	struct virtio_net_hdr *vh = (void *)buf;
	unsigned char *eth = buf + sizeof(*vh), *ip = eth + 14, *udp = ip + (v6 ? 40 : 20);
	size_t l4 = 8 + CK_PAYLOAD, i;
	__u32 sum;

	memset(buf, 0, sizeof(*vh) + CK_FRAME6);
	/* the tap reads it in native order unless TUNSETVNETLE/BE said otherwise */
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = csum_start;
	vh->csum_offset = 6;

	memcpy(eth, t->tap_mac, 6);
	memcpy(eth + 6, ck_guest_mac, 6);
	ck_put16(eth + 12, v6 ? ETH_P_IPV6 : ETH_P_IP);

	if (v6) {
		ip[0] = 0x60;
		ip[1] = (id >> 16) & 0x0f;
		ck_put16(ip + 2, id);
		ck_put16(ip + 4, l4);
		ip[6] = IPPROTO_UDP;
		ip[7] = 64;
		inet_pton(AF_INET6, CK_GUEST6, ip + 8);
		inet_pton(AF_INET6, CK_FAR6, ip + 24);
		sum = ck_sum(0, ip + 8, 32);
	} else {
		ip[0] = 0x45;
		ck_put16(ip + 2, 20 + l4);
		ck_put16(ip + 4, id);
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		inet_pton(AF_INET, CK_GUEST, ip + 12);
		inet_pton(AF_INET, CK_FAR, ip + 16);
		ck_put16(ip + 10, ~ck_fold(ck_sum(0, ip, 20)) & 0xffff);
		sum = ck_sum(0, ip + 12, 8);
	}

	ck_put16(udp, 4000);
	ck_put16(udp + 2, 5000);
	ck_put16(udp + 4, l4);
	for (i = 0; i < CK_PAYLOAD; i++)
		udp[8 + i] = i;
	ck_put16(udp + 6, ck_fold(sum + IPPROTO_UDP + l4));
	return sizeof(*vh) + (v6 ? CK_FRAME6 : CK_FRAME);
}

/* bad: csum_start inside the IP header, so the sum lands on the source
 * address (IPv4: 6 bytes in, at 12; IPv6: 8 bytes in, at 14); good: at UDP */
static int ck_send(const struct ck_topo *t, const struct ck_path *p, bool bad, int id)
{
	unsigned char buf[sizeof(struct virtio_net_hdr) + CK_FRAME6];
	int start = 14 + (bad ? (p->v6 ? 8 : 6) : (p->v6 ? 40 : 20));
	size_t len = ck_build(t, p->v6, buf, start, id);
	ssize_t n = write(t->tap, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static long ck_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One IP packet (or fragment) from its header: is it one of ours? */
static void ck_account_ip(const unsigned char *ip, size_t len, void *arg)
{
	struct ck_seen *seen = arg;
	unsigned char far[16], guest[16];
	unsigned int id, alen;
	const unsigned char *src, *dst;
	int family;

	if (len >= 40 && (ip[0] >> 4) == 6 && ip[6] == IPPROTO_UDP) {
		family = AF_INET6;
		alen = 16;
		src = ip + 8;
		dst = ip + 24;
		id = (ip[1] & 0x0f) << 16 | ip[2] << 8 | ip[3];
		inet_pton(family, CK_FAR6, far);
		inet_pton(family, CK_GUEST6, guest);
	} else if (len >= 20 && (ip[0] >> 4) == 4 && ip[9] == IPPROTO_UDP) {
		family = AF_INET;
		alen = 4;
		src = ip + 12;
		dst = ip + 16;
		id = ip[4] << 8 | ip[5];
		inet_pton(family, CK_FAR, far);
		inet_pton(family, CK_GUEST, guest);
	} else {
		return;
	}
	if (memcmp(dst, far, alen) || id < ID_GOOD || id >= ID_GOOD + ID_N)
		return;
	seen += id - ID_GOOD;
	seen->pkts++;
	if (memcmp(src, guest, alen)) {
		seen->rewritten = true;
		inet_ntop(family, src, seen->source, sizeof(seen->source));
	}
}

/* Capture until frame `until` has arrived or ms have passed; meanwhile
 * accept what the queue (if any) is given */
static void ck_capture(struct ck_topo *t, struct ck_obs *o, int until, long ms)
{
	long end = ck_now_ms() + ms, left;
	unsigned char f[2048];
	struct sockaddr_ll sll;
	socklen_t sl;
	struct pollfd pfd[2] = { { .fd = t->cap, .events = POLLIN },
				 { .fd = t->nfq, .events = POLLIN } };
	ssize_t n;

	while ((left = end - ck_now_ms()) > 0) {
		if (until && o->wire[until - ID_GOOD].pkts)
			return;
		if (poll(pfd, t->nfq >= 0 ? 2 : 1, left) <= 0)
			continue;
		if (t->nfq >= 0 && pfd[1].revents)
			ck_nfq_drain(t, ck_account_ip, o->queue);
		if (!pfd[0].revents)
			continue;
		sl = sizeof(sll);
		n = recvfrom(t->cap, f, sizeof(f), MSG_DONTWAIT, (struct sockaddr *)&sll, &sl);
		if (n <= 14 || sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((f[12] == 0x08 && f[13] == 0x00) || (f[12] == 0x86 && f[13] == 0xdd))
			ck_account_ip(f + 14, n - 14, o->wire);
	}
}

/* --- one path ------------------------------------------------------------ */

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

static void ck_run_path(const struct ck_path *p, struct ck_result *r)
{
	struct ck_topo t;

	memset(r, 0, sizeof(*r));
	ck_topo_init(&t);
	if (!ck_topo_up(&t, p, r))
		ck_judge(&t, p, r);
	ck_topo_down(&t);
}

/* --- the command --------------------------------------------------------- */

/* Is name in the comma-separated list? */
static bool ck_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Every item of the comma-separated list names a path */
bool cg_check_path_valid(const char *list)
{
	const char *p, *end;
	unsigned int i;

	for (p = list;; p = end + 1) {
		end = strchrnul(p, ',');
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (strlen(ck_paths[i].name) == (size_t)(end - p) &&
			    !strncmp(p, ck_paths[i].name, end - p))
				break;
		if (i == ARRAY_SIZE(ck_paths))
			return false;
		if (!*end)
			return true;
	}
}

static const char *ck_summary(int ret, bool all)
{
	switch (ret) {
	case CG_CHECK_VULNERABLE:
		return "this kernel corrupts the IP header of such frames: keep the guard";
	case CG_CHECK_FIXED:
		return all ? "every path tested drops such frames" :
			     "these paths drop such frames (the others were not tested)";
	case CG_CHECK_UNKNOWN:
		return "some path tested could not tell (see its reason): keep the guard";
	}
	return "the check could not be set up";
}

/* The paths' results, and the verdict, as text or JSON */
static void ck_print(const struct ck_result *res, const bool *ran, int nran, int ret,
		     const char *verdict, const char *unloaded, bool json)
{
	bool first = true;
	struct utsname u;
	unsigned int i;

	if (!json) {
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf("%s: %s: %s; %s\n", ck_paths[i].name, ck_names[res[i].v],
				       ck_paths[i].what, res[i].reason);
		fputs("tested:", stdout);
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf(" %s", ck_paths[i].name);
		if (nran < (int)ARRAY_SIZE(ck_paths)) {
			fputs("; not tested:", stdout);
			for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
				if (!ran[i])
					printf(" %s", ck_paths[i].name);
		}
		putchar('\n');
		if (*unloaded)
			printf("unloaded the modules it loaded: %s\n", unloaded);
		printf("verdict: %s: %s\n", verdict,
		       ck_summary(ret, nran == (int)ARRAY_SIZE(ck_paths)));
		return;
	}
	putchar('{');
	cg_json_kv_str(&first, "kernel", uname(&u) ? NULL : u.release);
	cg_json_kv_str(&first, "verdict", verdict);
	cg_json_kv_u64(&first, "exit", ret);
	for (i = 0; i < 2; i++) {
		unsigned int j;
		bool f = true;

		printf(",\"%s\":[", i ? "not_tested" : "tested");
		for (j = 0; j < ARRAY_SIZE(ck_paths); j++)
			if (ran[j] == !i) {
				if (!f)
					putchar(',');
				cg_json_str(ck_paths[j].name);
				f = false;
			}
		putchar(']');
	}
	printf(",\"unloaded\":[");
	for (i = 0, first = true; unloaded[i]; ) {
		size_t w = strcspn(unloaded + i, " ");

		printf("%s\"%.*s\"", first ? "" : ",", (int)w, unloaded + i);
		first = false;
		i += w + (unloaded[i + w] == ' ');
	}
	putchar(']');
	fputs(",\"paths\":[", stdout);
	first = true;
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		bool f = true;

		if (!ran[i])
			continue;
		if (!first)
			putchar(',');
		putchar('{');
		cg_json_kv_str(&f, "path", ck_paths[i].name);
		cg_json_kv_str(&f, "verdict", ck_names[res[i].v]);
		cg_json_kv_str(&f, "reason", res[i].reason);
		cg_json_kv_str(&f, "source", *res[i].source ? res[i].source : NULL);
		putchar('}');
		first = false;
	}
	puts("]}");
}

/*
 * Overall: vulnerable if any path corrupted the header (10); else failed if
 * any path could not be set up (1); fixed if every path dropped it (0);
 * else cannot tell (11). path: a comma-separated list, NULL for all.
 */
int cg_check(const char *path, bool json)
{
	struct ck_result res[ARRAY_SIZE(ck_paths)];
	bool ran[ARRAY_SIZE(ck_paths)] = {};
	int nvuln = 0, nfixed = 0, nerr = 0, nran = 0, ret;
	char unloaded[256];
	struct ck_mods mods;
	const char *verdict;
	unsigned int i;

	if (geteuid() != 0) {
		cg_err("cannot check: must be run as root");
		return 1;
	}
	ck_mods_snapshot(&mods);
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		if (path && !ck_listed(path, ck_paths[i].name))
			continue;
		ck_run_path(&ck_paths[i], &res[i]);
		ran[i] = true;
		nran++;
		nvuln += res[i].v == CK_VULNERABLE;
		nfixed += res[i].v == CK_FIXED;
		nerr += res[i].v == CK_ERROR;
		if (res[i].v == CK_ERROR)
			cg_err("cannot check the %s path: %s", ck_paths[i].name, res[i].reason);
	}

	/* what the paths loaded into the kernel goes as it came */
	ck_mods_unload_new(&mods, unloaded, sizeof(unloaded));
	if (nvuln) {
		ret = CG_CHECK_VULNERABLE;
		verdict = "vulnerable";
	} else if (nerr) {
		ret = 1;
		verdict = "error";
	} else if (nfixed == nran) {
		ret = CG_CHECK_FIXED;
		verdict = "fixed";
	} else {
		ret = CG_CHECK_UNKNOWN;
		verdict = "unknown";
	}

	ck_print(res, ran, nran, ret, verdict, unloaded, json);
	return ret;
}
