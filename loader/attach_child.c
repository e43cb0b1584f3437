// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach_child.c - cg_attach() in a child process, for the commands that
 * attach many devices in one run (watch, verify --heal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "log.h"
#include "commands.h"

int cg_attach_child(const struct cg_attach_req *r, char *why, size_t n)
{
	struct cg_attach_result res;
	struct cg_ack ack = {};
	int fds[2], status, len = 0;
	sigset_t none;
	ssize_t got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(why, n, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		int err;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(fds[0]);
		err = cg_attach(r, &res, &ack);
		if (err) {
			const char *m = cg_ack_why(&ack, err);

			if (write(fds[1], m, strlen(m)) < 0)
				_exit(2);
		}
		_exit(err == -ESTALE ? 3 : err ? 1 : 0);
	}
	close(fds[1]);
	for (;;) {
		got = read(fds[0], why + len, n - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (size_t)(len += got) == n - 1)
			break;
	}
	why[len] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* its path names another namespace now: the next scan finds its new one */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		return -ESTALE;
	if (!len) {
		if (WIFEXITED(status))
			snprintf(why, n, "attach exited with status %d", WEXITSTATUS(status));
		else
			snprintf(why, n, "attach killed by signal %d", WTERMSIG(status));
	}
	return -1;
}
