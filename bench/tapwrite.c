// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tapwrite.c - the fastest honest guest: write one prebuilt frame into a
 * vnet_hdr tap COUNT times and report the time per write.
 *
 *	tapwrite --dev TAP [--netns NS] [--count N] [--warmup N] [--payload N]
 *		 [--kind partial|none|bad] [--cpu N] [--batch N]
 *
 * The frame is virtio_net_hdr + Ethernet + IPv4 + UDP, 10.0.0.2 -> 10.1.0.2,
 * sent to the tap's own MAC. Its kind sets the virtio_net_hdr:
 *
 *	partial  NEEDS_CSUM, csum_start at the UDP header (a guest with TX
 *		 checksum offload): CHECKSUM_PARTIAL, the guard judges it
 *	none     no flags, UDP checksum complete: the guard's early exit
 *	bad      NEEDS_CSUM, csum_start=20 (6 bytes into the IPv4 header):
 *		 the guard drops it
 *
 * The tap hands a written frame to netif_receive_skb() in the writer's own
 * context (tun_get_user -> tun_rx_batched, under local_bh_disable), so the
 * time per write covers the tc hook and everything up to the route lookup.
 * The writer is pinned to one CPU. It reports per packet the whole run's
 * CLOCK_MONOTONIC and thread CPU time, and the median of batches of N
 * writes (500, about a millisecond) timed one by one: on a shared machine
 * a batch during which another process had the CPU is an outlier there,
 * not a share of the figure.
 *
 * Output, one line, ns per packet: "packets=N wall_ns=W cpu_ns=C batch_ns=B".
 * Exit codes: 0 done, 1 set-up failed, 2 bad arguments, 3 write() failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#include "csum.h"

#include "util.h"

#define PROG		"tapwrite"
#define ETH_LEN		14
#define IP_LEN		20
#define UDP_LEN		8
#define MAX_PAYLOAD	1400
#define VNET_LEN	((int)sizeof(struct virtio_net_hdr))

enum kind { KIND_PARTIAL, KIND_NONE, KIND_BAD };

struct config {
	const char *dev;
	const char *netns;
	unsigned long count;
	unsigned long warmup;
	unsigned long payload;
	enum kind kind;
	int cpu;
	unsigned long batch;
};

static uint8_t buf[VNET_LEN + ETH_LEN + IP_LEN + UDP_LEN + MAX_PAYLOAD];

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --dev TAP [--netns NS] [--count N] [--warmup N]\n"
		"                [--payload N] [--kind partial|none|bad] [--cpu N] [--batch N]\n");
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* The frame after the virtio_net_hdr; returns its length. */
static size_t build_frame(const struct config *c, const uint8_t *dmac,
			  uint8_t *p)
{
	static const uint8_t smac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	uint8_t *ip = p + ETH_LEN, *udp = ip + IP_LEN;
	size_t udp_len = UDP_LEN + c->payload;
	uint32_t sum;
	size_t i;

	memcpy(p, dmac, 6);
	memcpy(p + 6, smac, 6);
	put16(p + 12, 0x0800);

	memset(ip, 0, IP_LEN);
	ip[0] = 0x45;
	put16(ip + 2, IP_LEN + udp_len);
	put16(ip + 4, 1);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, "10.0.0.2", ip + 12);
	inet_pton(AF_INET, "10.1.0.2", ip + 16);
	put16(ip + 10, ~csum_fold(csum_add(0, ip, IP_LEN)));

	put16(udp, 4000);
	put16(udp + 2, 5000);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);
	for (i = 0; i < c->payload; i++)
		udp[UDP_LEN + i] = i & 0xff;

	/* pseudo header */
	sum = csum_add(0, ip + 12, 8) + IPPROTO_UDP + udp_len;
	if (c->kind == KIND_NONE) {
		uint16_t csum = ~csum_fold(csum_add(sum, udp, udp_len));

		put16(udp + 6, csum ? csum : 0xffff);
	} else {
		/* offloaded: the guest leaves the folded pseudo-header sum */
		put16(udp + 6, csum_fold(sum));
	}
	return ETH_LEN + IP_LEN + udp_len;
}

static void build_vnet_hdr(const struct config *c, struct virtio_net_hdr *vh)
{
	memset(vh, 0, sizeof(*vh));
	if (c->kind == KIND_NONE)
		return;
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = c->kind == KIND_BAD ? 20 : ETH_LEN + IP_LEN;
	vh->csum_offset = 6;
}

/* Attach a queue to the existing, up tap; returns the fd or exits 1. */
static int open_tap(const struct config *c, uint8_t *mac)
{
	int fd, sz = VNET_LEN;
	struct ifreq ifr;

	if (!if_nametoindex(c->dev)) {
		fprintf(stderr, PROG ": cannot find %s: %s\n", c->dev, strerror(errno));
		exit(1);
	}
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open /dev/net/tun: %s\n", strerror(errno));
		exit(1);
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->dev);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) ||
	    ioctl(fd, TUNSETVNETHDRSZ, &sz) ||
	    ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, PROG ": cannot attach to %s: %s\n", c->dev, strerror(errno));
		exit(1);
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return fd;
}

static int write_frames(int fd, const uint8_t *p, size_t len, unsigned long n)
{
	unsigned long i;
	ssize_t w;

	for (i = 0; i < n; i++) {
		w = write(fd, p, len);
		if (w != (ssize_t)len) {
			fprintf(stderr, PROG ": write: %s\n",
				w < 0 ? strerror(errno) : "short write");
			return -1;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The measured run: count frames in batches, each batch timed on its own.
 * Fills the whole run's wall and CPU time and the median batch, per packet.
 */
static int timed_run(const struct config *c, int fd, const uint8_t *p,
		     size_t len, double *wall, double *cpu, double *batch)
{
	unsigned long nb = (c->count + c->batch - 1) / c->batch, i, n;
	uint64_t t0, t1, c0, c1, b0, b1, *per;
	int err = 0;

	per = calloc(nb, sizeof(*per));
	if (!per)
		return -1;
	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	c0 = cgb_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	b0 = t0;
	for (i = 0; i < nb; i++) {
		n = i == nb - 1 ? c->count - i * c->batch : c->batch;
		err = write_frames(fd, p, len, n);
		if (err)
			break;
		b1 = cgb_clock_ns(CLOCK_MONOTONIC);
		/* in ns per 1000 packets, so a short last batch compares */
		per[i] = (b1 - b0) * 1000 / n;
		b0 = b1;
	}
	c1 = cgb_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	if (!err) {
		qsort(per, nb, sizeof(*per), cmp_u64);
		*batch = (nb % 2 ? per[nb / 2] : (per[nb / 2 - 1] + per[nb / 2]) / 2) / 1000.0;
		*wall = (double)(t1 - t0) / c->count;
		*cpu = (double)(c1 - c0) / c->count;
	}
	free(per);
	return err;
}

static enum kind parse_kind(const char *arg)
{
	if (!strcmp(arg, "partial"))
		return KIND_PARTIAL;
	if (!strcmp(arg, "none"))
		return KIND_NONE;
	if (!strcmp(arg, "bad"))
		return KIND_BAD;
	fprintf(stderr, PROG ": unknown kind '%s' (partial, none or bad)\n", arg);
	exit(2);
}

static void parse_args(struct config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "netns", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, 'c' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "payload", required_argument, NULL, 'p' },
		{ "kind", required_argument, NULL, 'k' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "batch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt;

	*c = (struct config){ .count = 1000000, .warmup = 10000, .payload = 64,
			      .kind = KIND_PARTIAL, .cpu = -1, .batch = 500 };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->dev = optarg;
			break;
		case 'n':
			c->netns = optarg;
			break;
		case 'c':
			c->count = cgb_num(PROG, "--count", optarg, 1, 1UL << 40);
			break;
		case 'w':
			c->warmup = cgb_num(PROG, "--warmup", optarg, 0, 1UL << 40);
			break;
		case 'p':
			c->payload = cgb_num(PROG, "--payload", optarg, 0, MAX_PAYLOAD);
			break;
		case 'k':
			c->kind = parse_kind(optarg);
			break;
		case 'C':
			c->cpu = cgb_num(PROG, "--cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'b':
			c->batch = cgb_num(PROG, "--batch", optarg, 1, 1UL << 40);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (!c->dev || optind < argc) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	double wall, cpu, batch;
	struct config c;
	uint8_t mac[6];
	size_t len;
	int fd, err;

	parse_args(&c, argc, argv);
	if (c.netns) {
		err = cgb_netns_enter(c.netns);
		if (err) {
			fprintf(stderr, PROG ": cannot enter netns %s: %s\n", c.netns, strerror(-err));
			return 1;
		}
	}
	err = cgb_pin_cpu(c.cpu);
	if (err) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", c.cpu, strerror(-err));
		return 1;
	}
	fd = open_tap(&c, mac);
	build_vnet_hdr(&c, (struct virtio_net_hdr *)buf);
	len = VNET_LEN + build_frame(&c, mac, buf + VNET_LEN);

	if (write_frames(fd, buf, len, c.warmup))
		return 3;
	if (timed_run(&c, fd, buf, len, &wall, &cpu, &batch))
		return 3;
	close(fd);

	printf("packets=%lu wall_ns=%.2f cpu_ns=%.2f batch_ns=%.2f\n", c.count,
	       wall, cpu, batch);
	return 0;
}
