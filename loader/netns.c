// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * netns.c - enter a network namespace given by name (/run/netns/NAME, as
 * `ip netns` makes) or by path (/proc/PID/ns/net: VM namespaces are not
 * always named), and come back.
 *
 * Only the network namespace changes: bpffs pins live in the mount
 * namespace, which stays the caller's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "util.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static int cg_orig_netns = -1;

int cg_netns_open(const char *ns)
{
	char path[PATH_MAX];
	int fd, type;

	if (!*ns || !strcmp(ns, ".") || !strcmp(ns, ".."))
		return -EINVAL;
	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else if (snprintf(path, sizeof(path), "/run/netns/%s", ns) >= (int)sizeof(path))
		return -ENAMETOOLONG;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int cg_netns_enter(int fd)
{
	if (cg_orig_netns < 0) {
		cg_orig_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (cg_orig_netns < 0)
			return -errno;
	}
	if (setns(fd, CLONE_NEWNET))
		return -errno;
	return 0;
}

int cg_netns_restore(void)
{
	if (cg_orig_netns < 0)
		return 0;
	if (setns(cg_orig_netns, CLONE_NEWNET))
		return -errno;
	return 0;
}

int cg_netns_ino(__u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int cg_netns_cookie(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	close(fd);
	return err;
}
