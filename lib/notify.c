// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * notify.c - the sd_notify(3) datagram: one AF_UNIX datagram of
 * newline-separated KEY=VALUE lines to the socket $NOTIFY_SOCKET names, a
 * path, or an abstract name when it starts with '@'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "notify.h"

int cg_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t sent;
	int fd, err;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sun,
		      offsetof(struct sockaddr_un, sun_path) + len);
	err = sent < 0 ? -errno : 1;
	close(fd);
	return err;
}
