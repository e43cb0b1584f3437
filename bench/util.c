// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * util.c - helpers of the benchmark tools.
 *
 * Only the network namespace is entered, never the mount namespace, so
 * that bpffs pins made afterwards land on the host's /sys/fs/bpf (under
 * `ip netns exec` they would not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "../loader/util.h"	/* cg_netns_open() */

int cgb_netns_enter(const char *ns)
{
	int fd, err = 0;

	fd = cg_netns_open(ns);
	if (fd < 0)
		return fd;
	if (setns(fd, CLONE_NEWNET))
		err = -errno;
	close(fd);
	return err;
}

int cgb_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

unsigned long cgb_num(const char *prog, const char *flag, const char *arg,
		      unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad value for %s: '%s' (%lu..%lu)\n",
			prog, flag, arg, min, max);
		exit(2);
	}
	return v;
}
