// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * modprobe.c - load a kernel module the way the system does, without a
 * shell: the kmod backend loads csum_guard, check loads tun.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>

#include "macros.h"
#include "modprobe.h"

int cg_modprobe(const char *module, bool dry_run)
{
	static const char *const paths[] = { "/sbin/modprobe", "/usr/sbin/modprobe", "/bin/modprobe" };
	char *argv[5];
	int status, fd, n = 0;
	unsigned int i;
	pid_t pid;

	argv[n++] = "modprobe";
	argv[n++] = "-q";
	if (dry_run)
		argv[n++] = "-n";
	argv[n++] = (char *)module;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (i = 0; i < ARRAY_SIZE(paths); i++)
			execv(paths[i], argv);
		execvp("modprobe", argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return WEXITSTATUS(status) == 127 ? -ENOEXEC : WEXITSTATUS(status) ? -ENOENT : 0;
}
