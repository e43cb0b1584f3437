// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-sdrecv - the service manager's end of sd_notify(3), for the tests:
 * bind an AF_UNIX datagram socket at PATH and print each message that
 * arrives as one line (its newlines as spaces), prefixed with the seconds
 * since start, until one holds READY=1 (exit 0) or SECONDS pass (exit 1).
 *
 *	cg-sdrecv PATH SECONDS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[4096];
	double t0, left;
	ssize_t n;
	int fd, i;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sun.sun_path) || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: cg-sdrecv PATH SECONDS\n");
		return 2;
	}
	strcpy(sun.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		fprintf(stderr, "cg-sdrecv: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now();
	while ((left = atof(argv[2]) - (now() - t0)) > 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			continue;
		buf[n] = 0;
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		printf("%.3f %s\n", now() - t0, buf);
		if (!strncmp(buf, "READY=1", 7) || strstr(buf, " READY=1"))
			return 0;
	}
	return 1;
}
