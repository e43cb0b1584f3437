// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check.c - csum-guard check: does this kernel write a completed checksum
 * over the IPv4 header of a frame a guest handed it, on each completion
 * path?
 *
 * Per path, a throwaway topology in two anonymous network namespaces that
 * only this process's file descriptors hold, so the kernel removes all of
 * it (namespaces, tap, veth pair) when the process ends, however it ends:
 *
 *   netns "vm" (an fd)                              netns "far" (an fd)
 *   +-------------------------------+               +------------------+
 *   | tap0 10.0.0.1/24 (vnet_hdr)   |               |                  |
 *   |   we write as guest 10.0.0.2  |  veth pair    |                  |
 *   | ip_forward=1  veth0 ----------+---------------+-- veth1          |
 *   |               10.1.0.1/24     |               |   AF_PACKET      |
 *   +-------------------------------+               +------------------+
 *   frag: veth MTU 576, IP fragmentation completes the checksum
 *   tx:   veth0 without TX checksum offload, the transmit path does
 *
 * Per path: a good frame (csum_start at the UDP header) proves that the
 * topology forwards; then the bad frame (csum_start 20, inside the IPv4
 * header, csum_offset 6: the sum lands on the source address); then a good
 * one again, after which anything of the bad frame would have arrived.
 * The capture is raw because a corrupted header fails its checksum.
 *
 *   bad frame arrived, source rewritten         vulnerable
 *   nothing arrived (frag: IpFragFails grew),
 *   or the tap refused the frame                fixed
 *   anything else                               unknown, with the reason
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
#include "check_topo.h"
#include "netns.h"

static const char *const ck_names[] = {
	[CK_UNKNOWN] = "unknown", [CK_FIXED] = "fixed",
	[CK_VULNERABLE] = "vulnerable", [CK_ERROR] = "error",
};

static const struct ck_path ck_paths[] = {
	{ "frag", "IP fragmentation (forwarded onto a 576-byte MTU veth)", 576, false },
	{ "tx", "transmit without TX checksum offload (forwarded onto such a veth)", 1500, true },
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
 * virtio_net_hdr + Ethernet + IPv4 + UDP + payload, NEEDS_CSUM at
 * csum_start with csum_offset 6. As a guest does, the UDP checksum field
 * holds the folded pseudo-header sum; the IPv4 header checksum is valid.
 */
static size_t ck_build(const struct ck_topo *t, unsigned char *buf, int csum_start, int id)
{
	struct virtio_net_hdr *vh = (void *)buf;
	unsigned char *eth = buf + sizeof(*vh), *ip = eth + 14, *udp = ip + 20;
	size_t l4 = 8 + CK_PAYLOAD, i;
	__u32 sum;

	memset(buf, 0, sizeof(*vh) + CK_FRAME);
	/* the tap reads it in native order unless TUNSETVNETLE/BE said otherwise */
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = csum_start;
	vh->csum_offset = 6;

	memcpy(eth, t->tap_mac, 6);
	memcpy(eth + 6, ck_guest_mac, 6);
	ck_put16(eth + 12, ETH_P_IP);

	ip[0] = 0x45;
	ck_put16(ip + 2, 20 + l4);
	ck_put16(ip + 4, id);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, CK_GUEST, ip + 12);
	inet_pton(AF_INET, CK_FAR, ip + 16);
	ck_put16(ip + 10, ~ck_fold(ck_sum(0, ip, 20)) & 0xffff);

	ck_put16(udp, 4000);
	ck_put16(udp + 2, 5000);
	ck_put16(udp + 4, l4);
	for (i = 0; i < CK_PAYLOAD; i++)
		udp[8 + i] = i;
	sum = ck_sum(0, ip + 12, 8) + IPPROTO_UDP + l4;
	ck_put16(udp + 6, ck_fold(sum));
	return sizeof(*vh) + CK_FRAME;
}

static int ck_send(const struct ck_topo *t, int csum_start, int id)
{
	unsigned char buf[sizeof(struct virtio_net_hdr) + CK_FRAME];
	size_t len = ck_build(t, buf, csum_start, id);
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

/* One captured frame: is it an IPv4 packet (or fragment) of ours? */
static void ck_account(const unsigned char *f, size_t len, struct ck_seen *seen)
{
	const unsigned char *ip = f + 14;
	struct in_addr far, guest;
	unsigned int id;

	if (len < 14 + 20 || f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4 ||
	    ip[9] != IPPROTO_UDP)
		return;
	inet_pton(AF_INET, CK_FAR, &far);
	inet_pton(AF_INET, CK_GUEST, &guest);
	if (memcmp(ip + 16, &far, 4))
		return;
	id = ip[4] << 8 | ip[5];
	if (id < ID_GOOD || id >= ID_GOOD + ID_N)
		return;
	seen += id - ID_GOOD;
	seen->pkts++;
	if (memcmp(ip + 12, &guest, 4)) {
		seen->rewritten = true;
		inet_ntop(AF_INET, ip + 12, seen->source, sizeof(seen->source));
	}
}

/* Capture until frame `until` has been seen or ms have passed */
static void ck_capture(const struct ck_topo *t, struct ck_seen *seen, int until, long ms)
{
	long end = ck_now_ms() + ms, left;
	unsigned char f[2048];
	struct sockaddr_ll sll;
	socklen_t sl;
	struct pollfd pfd = { .fd = t->cap, .events = POLLIN };
	ssize_t n;

	while ((left = end - ck_now_ms()) > 0) {
		if (until && seen[until - ID_GOOD].pkts)
			return;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		sl = sizeof(sll);
		n = recvfrom(t->cap, f, sizeof(f), MSG_DONTWAIT, (struct sockaddr *)&sll, &sl);
		if (n <= 0 || sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		ck_account(f, n, seen);
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

static void ck_judge(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
{
	struct ck_seen seen[ID_N] = {};
	long long ff0, ff1, td0, td1;
	int err, i;

	/*
	 * The good frame: does this topology forward at all? Right after
	 * set-up veth0 now and then drops the first frame, so send it again
	 * at growing intervals (50 ms .. 1.6 s, about 3 s in all).
	 */
	for (i = 0; i < 6 && !seen[0].pkts; i++) {
		err = ck_send(t, 14 + 20, ID_GOOD);
		if (err) {
			ck_say(r, CK_UNKNOWN, "the tap refused the good frame: %s", strerror(-err));
			return;
		}
		ck_capture(t, seen, ID_GOOD, 50L << i);
	}
	if (!seen[0].pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame did not arrive: %s",
		       "the test topology does not forward here");
		return;
	}
	if (seen[0].rewritten) {
		ck_say(r, CK_UNKNOWN, "the good frame arrived with source %s, not " CK_GUEST,
		       seen[0].source);
		return;
	}

	ff0 = ck_snmp_ip(t->snmp, "FragFails");
	td0 = ck_tx_dropped(t->netdev, "veth0");
	err = ck_send(t, 14 + 6, ID_BAD);
	if (err == -EINVAL) {
		ck_say(r, CK_FIXED, "the tap refuses the bad frame (write: %s)", strerror(-err));
		return;
	}
	if (err) {
		ck_say(r, CK_UNKNOWN, "writing the bad frame failed: %s", strerror(-err));
		return;
	}
	/* a good frame behind it: once that is in, so is anything of the bad one */
	err = ck_send(t, 14 + 20, ID_AFTER);
	ck_capture(t, seen, err ? 0 : ID_AFTER, CK_WAIT_MS);
	ck_capture(t, seen, 0, CK_GRACE_MS);
	ff1 = ck_snmp_ip(t->snmp, "FragFails");
	td1 = ck_tx_dropped(t->netdev, "veth0");

	if (seen[1].rewritten) {
		snprintf(r->source, sizeof(r->source), "%s", seen[1].source);
		ck_say(r, CK_VULNERABLE, "the bad frame arrived with source %s rewritten to %s",
		       CK_GUEST, seen[1].source);
	} else if (seen[1].pkts) {
		ck_say(r, CK_UNKNOWN, "the bad frame arrived unchanged: %s",
		       "this path did not complete its checksum");
	} else if (err || !seen[2].pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame sent after the bad one did not arrive");
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

bool cg_check_path_valid(const char *path)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
		if (!strcmp(path, ck_paths[i].name))
			return true;
	return false;
}

static const char *ck_summary(int ret, const char *path)
{
	switch (ret) {
	case CG_CHECK_VULNERABLE:
		return "this kernel corrupts the IPv4 header of such frames: keep the guard";
	case CG_CHECK_FIXED:
		return path ? "this path drops such frames (other paths were not tested)" :
			      "every path tested drops such frames";
	case CG_CHECK_UNKNOWN:
		return "cannot tell from what arrived";
	}
	return "the check could not be set up";
}

/*
 * Overall: vulnerable if any path corrupted the header (10); else failed if
 * any path could not be set up (1); fixed if every path dropped it (0);
 * else cannot tell (11).
 */
int cg_check(const char *path, bool json)
{
	struct ck_result res[ARRAY_SIZE(ck_paths)];
	bool ran[ARRAY_SIZE(ck_paths)] = {}, first = true;
	int nvuln = 0, nfixed = 0, nerr = 0, nran = 0, ret;
	const char *verdict;
	struct utsname u;
	unsigned int i;

	if (geteuid() != 0) {
		cg_err("cannot check: must be run as root");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		if (path && strcmp(path, ck_paths[i].name))
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

	if (!json) {
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf("%s: %s: %s; %s\n", ck_paths[i].name, ck_names[res[i].v],
				       ck_paths[i].what, res[i].reason);
		printf("verdict: %s: %s\n", verdict, ck_summary(ret, path));
		return ret;
	}
	putchar('{');
	cg_json_kv_str(&first, "kernel", uname(&u) ? NULL : u.release);
	cg_json_kv_str(&first, "verdict", verdict);
	cg_json_kv_u64(&first, "exit", ret);
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
	return ret;
}
