// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-userns.c - many network namespaces as an unprivileged user makes
 * them (`unshare -rn`), some with a tap device of their own.
 *
 *   cg-userns --ns N [--tun M] [--prefix P] [--ready-file F]
 *
 * Forks N processes; each enters a new user namespace and a new network
 * namespace owned by it (it needs no privilege: run it as any user), the
 * first M of them make a tap there named P<i> (vnet_hdr; "cgu" by
 * default), held by its descriptor, and each then execs `sleep infinity`,
 * as a process that made its namespace with unshare(1) would. Once all are
 * there it prints "ready ns=N tun=M" and creates F, then waits for SIGTERM
 * or SIGINT, ends them all and exits 0.
 *
 * Exit codes: 0 done; 1 a namespace or tap could not be made (what and why
 * on stderr, the others ended); 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <linux/if_tun.h>

#include "util.h"

#define PROG "cg-userns"

/* In the child: its namespaces, its tap, then sleep; a failure is said on
 * the pipe as the errno's byte after 'E', with what failed */
static void child(int i, int tun, const char *prefix, int wfd)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	char msg[128];
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		snprintf(msg, sizeof(msg), "E%d unshare: %s", i, strerror(errno));
		goto fail;
	}
	if (i < tun) {
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s%d", prefix, i);
		/* kept across exec: the tap lives while sleep does */
		fd = open("/dev/net/tun", O_RDWR);
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
			snprintf(msg, sizeof(msg), "E%d tap %s: %s", i, ifr.ifr_name, strerror(errno));
			goto fail;
		}
	}
	if (write(wfd, "k", 1) != 1)
		_exit(1);
	close(wfd);
	execlp("sleep", "sleep", "infinity", (char *)NULL);
	_exit(1);
fail:
	if (write(wfd, msg, strlen(msg) + 1) < 0)
		_exit(1);
	_exit(1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ns", required_argument, NULL, 'n' },
		{ "tun", required_argument, NULL, 't' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "ready-file", required_argument, NULL, 'r' },
		{}
	};
	const char *prefix = "cgu", *ready = NULL;
	unsigned long n = 0, tun = 0, i, got = 0;
	char buf[4096];
	sigset_t sigs;
	pid_t *pids;
	int p[2], c, sig, ret = 0;
	ssize_t len;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = cgb_num(PROG, "--ns", optarg, 1, 100000); break;
		case 't': tun = cgb_num(PROG, "--tun", optarg, 0, 100000); break;
		case 'p': prefix = optarg; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (!n || tun > n || optind != argc || strlen(prefix) > 8) {
		fprintf(stderr, PROG ": usage: --ns N [--tun M<=N] [--prefix P (8 chars at most)] "
			"[--ready-file F]\n");
		return 2;
	}
	pids = calloc(n, sizeof(*pids));
	if (!pids || pipe(p)) {
		perror(PROG);
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			sigprocmask(SIG_UNBLOCK, &sigs, NULL);
			close(p[0]);
			child(i, tun, prefix, p[1]);
		}
		if (pids[i] < 0) {
			fprintf(stderr, PROG ": fork %lu: %s\n", i, strerror(errno));
			ret = 1;
			break;
		}
	}
	close(p[1]);
	/* a 'k' per child, or a failure's text */
	while (!ret && got < n && (len = read(p[0], buf, sizeof(buf) - 1)) > 0) {
		buf[len] = '\0';
		for (c = 0; c < len; c++) {
			if (buf[c] == 'k') {
				got++;
				continue;
			}
			fprintf(stderr, PROG ": namespace %s\n", buf + c + 1);
			ret = 1;
			break;
		}
	}
	if (!ret && got < n) {
		fprintf(stderr, PROG ": %lu of %lu namespaces made\n", got, n);
		ret = 1;
	}
	if (!ret) {
		printf("ready ns=%lu tun=%lu\n", n, tun);
		fflush(stdout);
		if (ready && close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644))) {
			perror(ready);
			ret = 1;
		}
	}
	if (!ret)
		sigwait(&sigs, &sig);
	for (i = 0; i < n && pids[i] > 0; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n && pids[i] > 0; i++)
		waitpid(pids[i], NULL, 0);
	return ret;
}
