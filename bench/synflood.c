// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * synflood.c - a SYN flood from random sources, as fast as it goes, and
 * how many SYN-ACKs come back.
 *
 *   synflood --netns NS --dev DEV --dst-mac MAC --dst ADDR --port P
 *            [--src-net A.B.0.0] [--seconds S] [--threads N] [--ts | --ack]
 *
 * N threads (default: one per CPU, each pinned) write SYN frames through
 * packet sockets (qdisc bypassed, sendmmsg batches) out of DEV: IPv4
 * sources random in A.B.0.0/15 (default 198.18.0.0/15, the benchmarking
 * range), random ports and sequence numbers, an MSS option (--ts: and
 * SACK-permitted, a timestamp and window scale, as Linux sends them),
 * checksums right. --ack: ACKs instead, as a client's answer to a
 * SYN-ACK of the responder's would look (a timestamp whose TSecr carries
 * the responder's tag for the acknowledged number, syncookie_abi.h), but
 * with cookies of no SYN-ACK: they take the ACK path up to the cookie
 * check, which refuses them. What comes back is counted by DEV's own receive counter (the
 * flood is the only traffic, and nothing else answers): no receiving
 * thread takes CPU from the answerer. Prints
 *
 *   sent=N received=M seconds=S sent_pps=X synack_pps=Y
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/types.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "util.h"
#include "synframe.h"
#include "syncookie_abi.h"

#define PROG	"synflood"
#define BATCH	64

struct cfg {
	const char *dev;
	struct syn_addr a;
	uint32_t src_net;	/* host order, /15 */
	unsigned int port, seconds, threads;
	int ifindex;
	enum syn_kind kind;
	bool ack;
};

static atomic_ullong total_sent;
static atomic_bool stop;

/* The device's received packets, through rtnetlink (this namespace's view). */
static long long rx_packets(const char *dev)
{
	struct ifaddrs *ifa, *i;
	long long n = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET && i->ifa_data &&
		    !strcmp(i->ifa_name, dev))
			n = ((struct rtnl_link_stats *)i->ifa_data)->rx_packets;
	freeifaddrs(ifa);
	return n;
}

/*
 * The SYN_TS frame in buf (from syn_frame) made into an ACK of ack: no
 * SYN, the timestamp's TSecr tagged as the responder tags its SYN-ACK's
 * TSval (MSS index 3, window scale 7, SACK), SACK-permitted and window
 * scale NOPs, the TCP checksum again. IPv4 only.
 */
static void ack_frame(uint8_t *buf, uint32_t ack, uint32_t tsval)
{
	uint8_t *ip = buf + 14, *th = ip + 20;
	uint32_t ecr = SC_TS_TAG(ack - 1) << SC_TS_TAG_SHIFT | 3 << SC_TS_MSS_SHIFT | 0x10 | 7;
	uint64_t sum;
	uint16_t c;

	th[13] = 0x10;
	th[8] = ack >> 24;
	th[9] = ack >> 16;
	th[10] = ack >> 8;
	th[11] = ack;
	th[24] = th[25] = 1;
	th[28] = tsval >> 24;
	th[29] = tsval >> 16;
	th[30] = tsval >> 8;
	th[31] = tsval;
	th[32] = ecr >> 24;
	th[33] = ecr >> 16;
	th[34] = ecr >> 8;
	th[35] = ecr;
	th[37] = th[38] = th[39] = 1;
	th[16] = th[17] = 0;
	sum = csum_add(csum_add(0, ip + 12, 8), (const uint8_t[]){ 0, 6, 0, 40 }, 4);
	c = ~csum_fold(csum_add(sum, th, 40));
	th[16] = c >> 8;
	th[17] = c;
}

static void *sender(void *arg)
{
	const struct cfg *c = arg;
	static _Thread_local uint8_t frames[BATCH][128];
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP), .sll_ifindex = c->ifindex,
	};
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t seed = (uint64_t)(uintptr_t)&seed ^ cgb_clock_ns(CLOCK_MONOTONIC);
	struct syn_addr a = c->a;
	int fd, one = 1, i, n;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror(PROG ": packet socket");
		exit(1);
	}
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	memset(msgs, 0, sizeof(msgs));
	while (!stop) {
		for (i = 0; i < BATCH; i++) {
			uint64_t r = cgb_xorshift(&seed);
			uint32_t src = htonl(c->src_net | (r & 0x1ffff));

			memcpy(a.src, &src, 4);
			iov[i].iov_base = frames[i];
			iov[i].iov_len = syn_frame(frames[i], &a, c->kind, 1024 + (r >> 17) % 64000,
						   c->port, r >> 32);
			if (c->ack)
				ack_frame(frames[i], cgb_xorshift(&seed), r >> 32);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		n = sendmmsg(fd, msgs, BATCH, 0);
		if (n > 0)
			total_sent += n;
		else if (errno != ENOBUFS && errno != EAGAIN)
			break;
	}
	close(fd);
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: " PROG " --netns NS --dev DEV --dst-mac MAC --dst ADDR --port P "
		"[--src-net A.B.0.0] [--seconds S] [--threads N] [--ts | --ack]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "dst", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "src-net", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 'T' },
		{ "ts", no_argument, NULL, 'O' },
		{ "ack", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct cfg c = { .port = 0, .seconds = 3, .src_net = 0xc6120000 };
	const char *netns = NULL;
	pthread_t th[64];
	long long rx0, rx1;
	uint64_t t0, t1;
	struct in_addr sn;
	bool mac = false;
	unsigned int i;
	int opt;

	c.threads = sysconf(_SC_NPROCESSORS_ONLN);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': netns = optarg; break;
		case 'd': c.dev = optarg; break;
		case 'm':
			mac = !cgb_mac_parse(optarg, c.a.dmac);
			break;
		case 't':
			if (inet_pton(AF_INET, optarg, c.a.dst) != 1)
				return usage();
			break;
		case 'p': c.port = cgb_num(PROG, "--port", optarg, 1, 65535); break;
		case 's':
			if (inet_pton(AF_INET, optarg, &sn) != 1)
				return usage();
			c.src_net = ntohl(sn.s_addr) & ~0x1ffffu;
			break;
		case 'S': c.seconds = cgb_num(PROG, "--seconds", optarg, 1, 3600); break;
		case 'T': c.threads = cgb_num(PROG, "--threads", optarg, 1, 64); break;
		case 'O': c.kind = SYN_TS; break;
		case 'A': c.kind = SYN_TS; c.ack = true; break;
		default: return usage();
		}
	}
	if (!c.dev || !mac || !c.port || !c.a.dst[0])
		return usage();
	if (netns && cgb_netns_enter(netns)) {
		fprintf(stderr, PROG ": cannot enter netns %s\n", netns);
		return 1;
	}
	c.ifindex = cgb_dev_mac(c.dev, c.a.smac);
	if (c.ifindex < 0) {
		fprintf(stderr, PROG ": %s: %s\n", c.dev, strerror(-c.ifindex));
		return 1;
	}

	rx0 = rx_packets(c.dev);
	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < c.threads; i++) {
		if (pthread_create(&th[i], NULL, sender, &c)) {
			fprintf(stderr, PROG ": pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < c.threads; i++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(i % sysconf(_SC_NPROCESSORS_ONLN), &set);
		pthread_setaffinity_np(th[i], sizeof(set), &set);
	}
	sleep(c.seconds);
	stop = true;
	for (i = 0; i < c.threads; i++)
		pthread_join(th[i], NULL);
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	usleep(200000);	/* what is still in flight comes back */
	rx1 = rx_packets(c.dev);
	if (rx0 < 0 || rx1 < 0) {
		fprintf(stderr, PROG ": cannot read %s's counters\n", c.dev);
		return 1;
	}
	printf("sent=%llu received=%lld seconds=%.3f sent_pps=%.0f synack_pps=%.0f\n",
	       (unsigned long long)total_sent, rx1 - rx0, (t1 - t0) / 1e9,
	       total_sent / ((t1 - t0) / 1e9), (rx1 - rx0) / ((t1 - t0) / 1e9));
	return 0;
}
