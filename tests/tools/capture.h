/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * capture.h - what the capturing tools (cg-sniff, cg-nfq) share: numeric
 * options, a ready file for the test to wait on, and the idle / overall
 * deadlines of their poll loops. The including file defines PROG, its name
 * for messages; bad usage exits 2, as in both tools.
 */
#ifndef CG_TOOLS_CAPTURE_H
#define CG_TOOLS_CAPTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void __attribute__((noreturn)) bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": bad value for %s: '%s'\n", opt, val);
	exit(2);
}

/* A decimal (or 0x hex) number up to max, or exit 2 */
static inline unsigned long parse_num(const char *opt, const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max)
		bad_arg(opt, s);
	return v;
}

static inline int create_ready_file(const char *path)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Milliseconds poll() may wait: the nearer of timeout after the last packet
 * and max_time after the start (0: no such limit), -1 for none.
 */
static inline int wait_ms(uint64_t timeout, uint64_t max_time, uint64_t start,
			  uint64_t last)
{
	uint64_t now = now_ms(), deadline = UINT64_MAX;

	if (timeout)
		deadline = last + timeout;
	if (max_time && start + max_time < deadline)
		deadline = start + max_time;
	if (deadline == UINT64_MAX)
		return -1;
	return deadline > now ? (int)(deadline - now) : 0;
}

#endif /* CG_TOOLS_CAPTURE_H */
