// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * textfile.c - watch --textfile: what status --prometheus says, and when
 * the watcher last scanned the host, written every --textfile-interval
 * seconds for node_exporter's textfile collector. The collector may read
 * the file at any moment: a new file is written beside it (same directory,
 * a name it does not read, mode 0644), synced and renamed over it, so it
 * reads the old file or the new one, never half of one. A write that
 * fails leaves the last file, whose csum_guard_status_timestamp_seconds
 * then ages: what the stale-file alert looks at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "log.h"
#include "commands.h"
#include "report.h"
#include "watch_int.h"

/* In a child, so that status's namespace walk never disturbs the loop's:
 * 0 once PATH is replaced, else 1 with the reason on stderr */
static int cg_wtextfile_child(const struct cg_watch *w)
{
	struct cg_query q = { .prometheus = true, .nmatch = w->nmatch,
			      .match = (const char *const *)w->match,
			      .no_containers = w->no_containers };
	size_t n = strlen(w->textfile) + 8;
	char *tmp = malloc(n);
	int fd;

	if (!tmp)
		return 1;
	snprintf(tmp, n, "%s.XXXXXX", w->textfile);
	fd = mkstemp(tmp);
	if (fd < 0) {
		cg_err("cannot write %s: %s", w->textfile, strerror(errno));
		return 1;
	}
	if (fchmod(fd, 0644) || dup2(fd, STDOUT_FILENO) < 0) {
		cg_err("cannot write %s: %s", tmp, strerror(errno));
		goto fail;
	}
	close(fd);
	if (cg_cmd_status(&q))
		goto fail;
	printf("# HELP csum_guard_watch_last_scan_timestamp_seconds When csum-guard watch last "
	       "looked at every namespace of the host (Unix time): it looks every %d s.\n"
	       "# TYPE csum_guard_watch_last_scan_timestamp_seconds gauge\n"
	       "csum_guard_watch_last_scan_timestamp_seconds %lld\n",
	       CG_SCAN_MS / 1000, (long long)w->last_scan);
	if (fflush(stdout) || fsync(STDOUT_FILENO)) {
		cg_err("cannot write %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (rename(tmp, w->textfile)) {
		cg_err("cannot rename %s to %s: %s", tmp, w->textfile, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	return 1;
}

/* Write the file now; a failure is said once, until a write succeeds */
void cg_wtextfile(struct cg_watch *w)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		_exit(cg_wtextfile_child(w));
	if (pid < 0) {
		status = 1;
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		if (w->textfile_failed)
			printf("%s written again\n", w->textfile);
		w->textfile_failed = false;
	} else if (!w->textfile_failed) {
		cg_err("cannot write %s: its last content stays (the error above says why); "
		       "trying again every %d s", w->textfile, w->textfile_interval);
		w->textfile_failed = true;
	}
}
