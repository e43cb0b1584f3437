/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * journal.h - lines a service manager's journal can sort: where standard
 * output or standard error is the journal's stream (systemd sets
 * JOURNAL_STREAM to its device and inode), a line carries its priority,
 * so that `journalctl -p err` finds every failure, and watch's lines about
 * a device are journal entries of their own with the device and the
 * namespace as fields.
 */
#ifndef CG_JOURNAL_H
#define CG_JOURNAL_H

#include <stdbool.h>

/* syslog's priorities, as the journal takes them */
enum cg_prio {
	CG_PRIO_ERR = 3,
	CG_PRIO_WARNING = 4,
	CG_PRIO_INFO = 6,
};

/* Is fd the journal's stream (JOURNAL_STREAM names its device and inode)? */
bool cg_journal_stream(int fd);

/*
 * One line of a long-running command's log on stdout. Where stdout is the
 * journal's stream, it is sent to the journal's socket instead as an entry
 * with PRIORITY, MESSAGE, SYSLOG_IDENTIFIER=csum-guard and, when given,
 * CSUM_GUARD_DEVICE and CSUM_GUARD_NETNS; if that socket cannot be
 * written, the line goes to stdout with the "<N>" prefix the journal reads
 * as its priority. The socket is /run/systemd/journal/socket, or
 * $CSUM_GUARD_JOURNAL_SOCKET (a container's journal mounted elsewhere).
 */
void cg_log(enum cg_prio prio, const char *dev, const char *netns, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* CG_JOURNAL_H */
