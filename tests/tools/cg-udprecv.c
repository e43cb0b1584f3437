// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-udprecv.c - the far end of cg-inject's UDP frames, on the host itself.
 *
 *   cg-udprecv --port P --count N [--bind ADDR] [--payload LEN]
 *              [--timeout S] [--ready-file F]
 *
 * Binds a UDP socket to ADDR:P (IPv4, 0.0.0.0 by default), then receives
 * until N datagrams have arrived or nothing has for S seconds (5), and
 * checks each one against cg-inject's payload: LEN bytes (1000), byte i
 * being i & 0xff. Creates F once the socket is bound. Prints
 *
 *   udp received=R intact=I bad=B
 *
 * Exit codes: 0 N datagrams arrived, all intact; 1 socket error; 2 bad
 * arguments; 3 fewer than N arrived, or one was not intact.
 *
 * It has no dependency beyond libc, so that it links statically and runs
 * in the older Debian roots of tests/guest/hostroot.sh.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define PROG "cg-udprecv"

static unsigned long num(const char *opt, const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || *s == '-') {
		fprintf(stderr, PROG ": bad value for %s: '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static bool intact(const unsigned char *p, size_t len, size_t want)
{
	size_t i;

	if (len != want)
		return false;
	for (i = 0; i < len; i++)
		if (p[i] != (i & 0xff))
			return false;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "bind", required_argument, NULL, 'b' },
		{ "payload", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ready-file", required_argument, NULL, 'r' },
		{}
	};
	unsigned long port = 0, count = 0, payload = 1000, timeout = 5;
	unsigned long received = 0, good = 0;
	const char *ready = NULL;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static unsigned char buf[65536];
	struct pollfd pfd;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': port = num("--port", optarg, 65535); break;
		case 'c': count = num("--count", optarg, 1000000); break;
		case 'l': payload = num("--payload", optarg, 65507); break;
		case 't': timeout = num("--timeout", optarg, 3600); break;
		case 'r': ready = optarg; break;
		case 'b':
			if (inet_pton(AF_INET, optarg, &sin.sin_addr) != 1) {
				fprintf(stderr, PROG ": bad value for --bind: '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: " PROG " --port P --count N [--bind ADDR] "
				"[--payload LEN] [--timeout S] [--ready-file F]\n");
			return 2;
		}
	}
	if (optind != argc || !port || !count) {
		fprintf(stderr, PROG ": --port and --count are needed (and nothing else)\n");
		return 2;
	}
	sin.sin_port = htons(port);

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, PROG ": socket on port %lu: %s\n", port, strerror(errno));
		return 1;
	}
	if (ready) {
		int r = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (r < 0) {
			fprintf(stderr, PROG ": %s: %s\n", ready, strerror(errno));
			return 1;
		}
		close(r);
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (received < count) {
		ssize_t n;
		int p = poll(&pfd, 1, (int)timeout * 1000);

		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		if (!p)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recv: %s\n", strerror(errno));
			return 1;
		}
		received++;
		good += intact(buf, (size_t)n, payload);
	}
	printf("udp received=%lu intact=%lu bad=%lu\n", received, good, received - good);
	return received == count && good == count ? 0 : 3;
}
