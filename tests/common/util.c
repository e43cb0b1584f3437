// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * util.c - helpers of the benchmark tools (bench/), and of tests/tools/cg-stream.
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
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>

#include "util.h"
#include "../../lib/netns.h"

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

int cgb_sockaddr(const char *addr, unsigned long port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	return -EINVAL;
}

int cgb_listen(int type, const char *addr, unsigned long port)
{
	struct sockaddr_storage ss;
	int fd, len, one = 1;

	len = cgb_sockaddr(addr, port, &ss);
	if (len < 0)
		return len;
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 1))) {
		len = -errno;
		close(fd);
		return len;
	}
	return fd;
}

int cgb_connect(int type, const char *addr, unsigned long port, unsigned int tries)
{
	struct sockaddr_storage ss;
	int fd, len, err = -ECONNREFUSED;
	unsigned int i;

	len = cgb_sockaddr(addr, port, &ss);
	if (len < 0)
		return len;
	for (i = 0; i < tries; i++) {
		if (i)
			usleep(10000);
		fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (!connect(fd, (struct sockaddr *)&ss, len))
			return fd;
		err = -errno;
		close(fd);
		if (err != -ECONNREFUSED)
			break;
	}
	return err;
}

int cgb_dev_mac(const char *dev, uint8_t *mac)
{
	struct ifreq ifr = { 0 };
	int ifindex = if_nametoindex(dev), fd, err = 0;

	if (!ifindex)
		return -errno;
	if (strlen(dev) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return ifindex;
}
