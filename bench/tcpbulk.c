// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tcpbulk.c - one TCP connection, as fast as it goes, counted.
 *
 *	tcpbulk server [--netns NS] [--addr A] [--port P] [--cpu N] [--timeout S]
 *	tcpbulk client [--netns NS] --addr A [--port P] (--seconds S | --mib N) [--cpu N]
 *
 * The server accepts one connection, reads until EOF and prints
 * "bytes=B seconds=S mbps=M" (M in 10^6 bytes per second, from its first
 * byte to EOF). The client connects (retrying while the server is not yet
 * listening), writes for S seconds or N MiB, then closes, and prints the
 * same line for its side. A is IPv4 or IPv6 (the server's default:
 * 0.0.0.0). Exit codes: 0 done, 1 failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "util.h"

#define PROG		"tcpbulk"
#define BUF_LEN		(256 * 1024)
#define CONNECT_TRIES	300	/* 10 ms apart */

struct config {
	bool server;
	const char *netns;
	const char *addr;
	unsigned long port;
	unsigned long seconds;
	unsigned long mib;
	unsigned long timeout;
	int cpu;
};

static char buf[BUF_LEN];

static void report(uint64_t bytes, uint64_t ns)
{
	double s = ns / 1e9;

	printf("bytes=%llu seconds=%.3f mbps=%.1f\n", (unsigned long long)bytes,
	       s, s > 0 ? bytes / 1e6 / s : 0);
}

static int do_server(const struct config *c)
{
	const char *addr = c->addr ? c->addr : "0.0.0.0";
	uint64_t bytes = 0, t0 = 0, t1;
	int lfd, fd;
	ssize_t n;

	lfd = cgb_listen(SOCK_STREAM, addr, c->port);
	if (lfd < 0) {
		fprintf(stderr, PROG ": cannot listen on %s port %lu: %s\n", addr,
			c->port, strerror(-lfd));
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		fprintf(stderr, PROG ": accept: %s\n", strerror(errno));
		return 1;
	}
	close(lfd);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": read: %s\n", strerror(errno));
			return 1;
		}
		if (!n)
			break;
		if (!bytes)
			t0 = cgb_clock_ns(CLOCK_MONOTONIC);
		bytes += n;
	}
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	close(fd);
	report(bytes, bytes ? t1 - t0 : 0);
	return 0;
}

static int do_client(const struct config *c)
{
	uint64_t bytes = 0, limit, t0, now, end;
	unsigned long i;
	ssize_t n;
	int fd;

	fd = cgb_connect(SOCK_STREAM, c->addr, c->port, CONNECT_TRIES);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot connect to %s port %lu: %s\n", c->addr,
			c->port, strerror(-fd));
		return 1;
	}
	limit = c->mib ? (uint64_t)c->mib << 20 : UINT64_MAX;
	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	end = c->seconds ? t0 + c->seconds * 1000000000ull : UINT64_MAX;
	now = t0;
	for (i = 0; bytes < limit; i++) {
		/* the clock is cheap, but not free: look every 16 writes */
		if (!(i & 15)) {
			now = cgb_clock_ns(CLOCK_MONOTONIC);
			if (now >= end)
				break;
		}
		n = write(fd, buf, limit - bytes < BUF_LEN ? limit - bytes : BUF_LEN);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": write: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
		bytes += n;
	}
	close(fd);
	now = cgb_clock_ns(CLOCK_MONOTONIC);
	report(bytes, now - t0);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " server [--netns NS] [--addr A] [--port P] [--cpu N] [--timeout S]\n"
		"       " PROG " client [--netns NS] --addr A [--port P] (--seconds S | --mib N) [--cpu N]\n");
}

static void parse_args(struct config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt;

	*c = (struct config){ .port = 5201, .timeout = 120, .cpu = -1 };
	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		usage(stderr);
		exit(2);
	}
	c->server = !strcmp(argv[1], "server");
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			c->netns = optarg;
			break;
		case 'a':
			c->addr = optarg;
			break;
		case 'p':
			c->port = cgb_num(PROG, "--port", optarg, 1, 65535);
			break;
		case 's':
			c->seconds = cgb_num(PROG, "--seconds", optarg, 1, 3600);
			break;
		case 'm':
			c->mib = cgb_num(PROG, "--mib", optarg, 1, 1UL << 30);
			break;
		case 'C':
			c->cpu = cgb_num(PROG, "--cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 't':
			c->timeout = cgb_num(PROG, "--timeout", optarg, 1, 86400);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc ||
	    (!c->server && (!c->addr || !!c->seconds == !!c->mib))) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct config c;
	int err;

	parse_args(&c, argc, argv);
	if (c.netns) {
		err = cgb_netns_enter(c.netns);
		if (err) {
			fprintf(stderr, PROG ": cannot enter netns %s: %s\n", c.netns,
				strerror(-err));
			return 1;
		}
	}
	err = cgb_pin_cpu(c.cpu);
	if (err) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", c.cpu, strerror(-err));
		return 1;
	}
	/* never hang a benchmark: SIGALRM ends a stuck run */
	alarm(c.server ? c.timeout : c.timeout + c.seconds);
	return c.server ? do_server(&c) : do_client(&c);
}
