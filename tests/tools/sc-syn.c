// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * sc-syn.c - send TCP SYNs, well-formed or broken, out of a device through
 * a packet socket, and count what comes back.
 *
 *   sc-syn --dev DEV --dst-mac MAC --src ADDR --dst ADDR --port P
 *          [--kind good|csum|doff|doff-long|opt|ipcsum|ts] [--count N] [--wait MS]
 *          [--vlan ID] [--mss]
 *
 * Each SYN has its own source port. Replies are TCP segments from dst to
 * src on one of those ports; the result line is
 *
 *   sent=N synack=A rst=R other=O
 *
 * with " mss=M" after it under --mss: the MSS option of the last SYN-ACK
 * (0: none came, or it had none). --vlan ID tags each SYN with 802.1Q ID.
 *
 * (the host's own stack may answer a SYN-ACK of a port it never opened
 * with a RST: that is its business, not counted here). Exit 0 when all
 * were sent, 1 on a socket error, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "synframe.h"
#include "util.h"

#define PROG "sc-syn"

static int usage(void)
{
	fprintf(stderr, "usage: " PROG " --dev DEV --dst-mac MAC --src ADDR --dst ADDR --port P "
		"[--kind good|csum|doff|doff-long|opt|ipcsum|ts] [--count N] [--wait MS] [--vlan ID] [--mss]\n");
	return 2;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "kind", required_argument, NULL, 'k' },
		{ "count", required_argument, NULL, 'c' },
		{ "wait", required_argument, NULL, 'w' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "mss", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = NULL, *src = NULL, *dst = NULL;
	unsigned int count = 1, wait_ms = 500, port = 0, sent = 0, synack = 0, rst = 0, other = 0;
	unsigned int vlan = 0, mss = 0;
	bool show_mss = false;
	enum syn_kind kind = SYN_GOOD;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct syn_addr a = {};
	uint16_t base, sp, dp;
	uint8_t buf[2048];
	struct ifreq ifr = {};
	bool have_mac = false;
	long deadline;
	int c, fd, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'm':
			if (cgb_mac_parse(optarg, a.dmac))
				return usage();
			have_mac = true;
			break;
		case 's': src = optarg; break;
		case 't': dst = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'k':
			for (kind = 0; kind < SYN_KIND_MAX && strcmp(optarg, syn_kind_names[kind]); kind++)
				;
			if (kind == SYN_KIND_MAX)
				return usage();
			break;
		case 'c': count = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 'v': vlan = atoi(optarg); if (vlan < 1 || vlan > 4094) return usage(); break;
		case 'M': show_mss = true; break;
		default: return usage();
		}
	}
	if (!dev || !src || !dst || !have_mac || port < 1 || port > 65535 || !count || count > 10000)
		return usage();
	a.v6 = strchr(dst, ':');
	if (inet_pton(a.v6 ? AF_INET6 : AF_INET, src, a.src) != 1 ||
	    inet_pton(a.v6 ? AF_INET6 : AF_INET, dst, a.dst) != 1 || (a.v6 && kind == SYN_IPCSUM))
		return usage();

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		perror(PROG ": socket");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(dev);
	if (!sll.sll_ifindex || ioctl(fd, SIOCGIFHWADDR, &ifr) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, PROG ": %s: %s\n", dev, strerror(errno));
		return 1;
	}
	memcpy(a.smac, ifr.ifr_hwaddr.sa_data, 6);
	srand(getpid() ^ now_ms());
	base = 20000 + rand() % 30000;
	for (i = 0; i < (int)count; i++) {
		size_t len = syn_frame(buf, &a, kind, base + i, port, rand());

		if (vlan) {	/* the tag between the MACs and the type */
			memmove(buf + 16, buf + 12, len - 12);
			buf[12] = 0x81;
			buf[13] = 0x00;
			buf[14] = vlan >> 8;
			buf[15] = vlan;
			len += 4;
		}

		if (send(fd, buf, len, 0) != (ssize_t)len) {
			perror(PROG ": send");
			return 1;
		}
		sent++;
	}
	deadline = now_ms() + wait_ms;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		long left = deadline - now_ms();
		ssize_t n;
		int flags;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		flags = syn_reply(buf, n, &a, &sp, &dp);
		if (flags < 0 || sp != port || dp < base || dp >= base + count)
			continue;
		if ((flags & 0x12) == 0x12) {
			synack++;
			mss = syn_reply_mss(buf, n, &a);
		}
		else if (flags & 0x04)
			rst++;
		else
			other++;
	}
	printf("sent=%u synack=%u rst=%u other=%u", sent, synack, rst, other);
	if (show_mss)
		printf(" mss=%u", mss);
	putchar('\n');
	return 0;
}
