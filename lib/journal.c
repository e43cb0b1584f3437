// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* journal.c - lines a service manager's journal can sort (see journal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"

bool cg_journal_stream(int fd)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(fd, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* KEY=VALUE\n into buf at *len; values made one safe line */
static void cg_journal_field(char *buf, size_t size, size_t *len, const char *key,
			     const char *val)
{
	char safe[1024];

	if (!val || *len >= size)
		return;
	*len += snprintf(buf + *len, size - *len, "%s=%s\n", key,
			 cg_text_safe(val, safe, sizeof(safe)));
}

/* The entry to the journal's socket: 0, or -1 where it cannot be sent */
static int cg_journal_send(enum cg_prio prio, const char *dev, const char *netns,
			   const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("CSUM_GUARD_JOURNAL_SOCKET") ?: "/run/systemd/journal/socket";
	char buf[4096], p[4];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	snprintf(p, sizeof(p), "%d", prio);
	cg_journal_field(buf, sizeof(buf), &len, "PRIORITY", p);
	cg_journal_field(buf, sizeof(buf), &len, "SYSLOG_IDENTIFIER", "csum-guard");
	cg_journal_field(buf, sizeof(buf), &len, "CSUM_GUARD_DEVICE", dev);
	cg_journal_field(buf, sizeof(buf), &len, "CSUM_GUARD_NETNS", netns);
	cg_journal_field(buf, sizeof(buf), &len, "MESSAGE", msg);
	if (len >= sizeof(buf))
		return -1;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = sendto(fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

void cg_log(enum cg_prio prio, const char *dev, const char *netns, const char *fmt, ...)
{
	static int journal = -1;	/* stdout is the journal's stream: 0 or 1 */
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (journal < 0)
		journal = cg_journal_stream(STDOUT_FILENO);
	if (journal && !cg_journal_send(prio, dev, netns, msg))
		return;
	if (journal)
		printf("<%d>%s\n", prio, msg);
	else
		printf("%s\n", msg);
}
