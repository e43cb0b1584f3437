// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * modprobe.c - load a kernel module the way the system does, without a
 * shell: the kmod backend loads csum_guard, check loads tun. What modprobe
 * says on failure is kept: it is the kernel's reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "macros.h"
#include "modprobe.h"

/*
 * Run tool (from /sbin, /usr/sbin, /bin or PATH) with argv, the output of
 * descriptor keep (1 or 2) into out (n bytes at most, NUL-ended), the rest
 * to /dev/null. Its exit status, 127 when it is not found, or -errno.
 */
static int cg_run_tool(const char *tool, char *const argv[], int keep, char *out, size_t n)
{
	static const char *const dirs[] = { "/sbin/", "/usr/sbin/", "/bin/" };
	char path[64];
	int status, fd, pfd[2] = { -1, -1 };
	size_t len = 0;
	ssize_t got;
	unsigned int i;
	pid_t pid;

	if (out && n)
		*out = '\0';
	if (out && n && pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		if (pfd[0] >= 0) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -errno;
	}
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (pfd[1] >= 0)
			dup2(pfd[1], keep);
		for (i = 0; i < ARRAY_SIZE(dirs); i++) {
			snprintf(path, sizeof(path), "%s%s", dirs[i], tool);
			execv(path, argv);
		}
		execvp(tool, argv);
		_exit(127);
	}
	if (pfd[0] >= 0) {
		close(pfd[1]);
		for (;;) {
			got = read(pfd[0], out + len, n - 1 - len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			len += got;
			if (len == n - 1) {
				/* keep the last of it: the reason comes at the end */
				memmove(out, out + len / 2, len - len / 2);
				len -= len / 2;
			}
		}
		out[len] = '\0';
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return WEXITSTATUS(status);
}

/* The last non-empty line of s, in place, without "modprobe: ERROR: " */
static void cg_last_line(char *s)
{
	char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(s, '\n');
	start = start ? start + 1 : s;
	if (!strncmp(start, "modprobe: ", 10))
		start += 10;
	if (!strncmp(start, "ERROR: ", 7) || !strncmp(start, "FATAL: ", 7))
		start += 7;
	memmove(s, start, strlen(start) + 1);
}

int cg_modprobe(const char *module, bool dry_run, char *why, size_t n)
{
	char *argv[5];
	int ret, i = 0;

	argv[i++] = "modprobe";
	/* -q would silence the kernel's reason as well: only where none comes */
	if (dry_run) {
		argv[i++] = "-q";
		argv[i++] = "-n";
	}
	argv[i++] = (char *)module;
	argv[i] = NULL;
	ret = cg_run_tool("modprobe", argv, 2, why, n);
	if (ret < 0)
		return ret;
	if (why && n)
		cg_last_line(why);
	return ret == 127 ? -ENOEXEC : ret ? -ENOENT : 0;
}

int cg_modinfo(const char *module, const char *field, char *out, size_t n)
{
	char *argv[] = { "modinfo", "-F", (char *)field, (char *)module, NULL };
	char *nl;
	int ret;

	ret = cg_run_tool("modinfo", argv, 1, out, n);
	if (ret < 0)
		return ret;
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return ret == 127 ? -ENOEXEC : ret ? -ENOENT : 0;
}
