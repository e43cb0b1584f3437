// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * frame.c - the frames of csum-guard check (check.c says why they are
 * built so): written to the tap as the guest would, with a virtio_net_hdr
 * asking for the checksum, and counted by IPv4 id or IPv6 flow label where
 * they arrive, with what their source address became.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "topo.h"
#include "path.h"

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
int ck_send(const struct ck_topo *t, const struct ck_path *p, bool bad, int id)
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
void ck_capture(struct ck_topo *t, struct ck_obs *o, int until, long ms)
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
