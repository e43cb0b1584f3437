// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * spawn.c - run a program the guards need (nft, iptables, modprobe) with an
 * argument vector, never a shell, and a bounded wait.
 *
 * The program is looked up in PATH first, then in /usr/sbin and /sbin:
 * root's PATH under cron (/usr/bin:/bin) and some sudo setups has no sbin
 * directory, and every program we run lives there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "macros.h"
#include "spawn.h"

/* exec argv, from PATH or the sbin directories; returns only on failure */
static void cg_spawn_exec(const char *const *argv)
{
	static const char *const sbin[] = { "/usr/sbin", "/sbin" };
	char path[256];
	unsigned int i;
	int err;

	execvp(argv[0], (char *const *)argv);
	err = errno;
	for (i = 0; err == ENOENT && !strchr(argv[0], '/') && i < ARRAY_SIZE(sbin); i++) {
		snprintf(path, sizeof(path), "%s/%s", sbin[i], argv[0]);
		execv(path, (char *const *)argv);
	}
	dprintf(2, "exec: %s", strerror(err));
}

/* The child: its pipes in place, into the namespace, the program. */
static void cg_spawn_child(const struct cg_spawn *s, pid_t parent, int in, int out, int err)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (s->netns >= 0) {
		/* killed with us: it must not outlive the namespace's last fd */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || setns(s->netns, CLONE_NEWNET))
			_exit(CG_SPAWN_NOJOIN);
	}
	dup2(in >= 0 ? in : null, 0);
	dup2(out >= 0 ? out : null, 1);
	dup2(s->err_to_out && out >= 0 ? out : err >= 0 ? err : null, 2);
	cg_spawn_exec(s->argv);
	_exit(CG_SPAWN_NOTFOUND);
}

static long long cg_spawn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* One pipe to the child: fd (-1: closed), and what goes through it */
struct cg_spawn_pipe {
	int fd;
	char *buf;		/* read: kept here; write: sent from here */
	size_t len, done;	/* read: room (with the NUL), kept; write: size, sent */
};

/* Read what is there; false at EOF or error */
static bool cg_spawn_read(struct cg_spawn_pipe *p)
{
	char sink[512];
	bool keep = p->buf && p->done + 1 < p->len;
	ssize_t r;

	r = read(p->fd, keep ? p->buf + p->done : sink, keep ? p->len - 1 - p->done : sizeof(sink));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r <= 0)
		return false;
	if (keep)
		p->done += r;
	return true;
}

/* Write what fits; false once all is sent or the child stopped reading */
static bool cg_spawn_write(struct cg_spawn_pipe *p)
{
	ssize_t r = write(p->fd, p->buf + p->done, p->len - p->done);

	if (r < 0)
		return errno == EINTR || errno == EAGAIN;
	p->done += r;
	return p->done < p->len;
}

/*
 * Feed the child's stdin and read its stdout and stderr until they close,
 * then reap it, all before deadline; after that it is killed. Its status
 * as cg_spawn returns it.
 */
static int cg_spawn_wait(pid_t pid, struct cg_spawn_pipe *p, int n, long long deadline)
{
	struct pollfd fds[3];
	int i, k, st, left;
	pid_t r;

	for (;;) {
		for (i = k = 0; i < n; i++)
			if (p[i].fd >= 0)
				fds[k++] = (struct pollfd){ .fd = p[i].fd, .events = i ? POLLIN : POLLOUT };
		left = (int)(deadline - cg_spawn_now_ms());
		if (!k) {
			r = waitpid(pid, &st, WNOHANG);
			if (r == pid)
				break;
			if (r < 0 && errno != EINTR)
				return -errno;
			if (left <= 0)
				goto late;
			/* it closed its output and goes on: look again soon */
			usleep(5000);
			continue;
		}
		if (left <= 0)
			goto late;
		if (poll(fds, k, left) < 0 && errno != EINTR)
			return -errno;
		for (i = k = 0; i < n; i++) {
			if (p[i].fd < 0)
				continue;
			if (fds[k++].revents && !(i ? cg_spawn_read(&p[i]) : cg_spawn_write(&p[i]))) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -EINTR;
late:
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return -ETIMEDOUT;
}

int cg_spawn(const struct cg_spawn *s)
{
	/* the child's ends of stdin, stdout, stderr; ours in p */
	int theirs[3] = { -1, -1, -1 }, fds[2], i, ret;
	struct cg_spawn_pipe p[3] = {
		{ .fd = -1, .buf = (char *)s->in, .len = s->in ? strlen(s->in) : 0 },
		{ .fd = -1, .buf = s->out, .len = s->out_len },
		{ .fd = -1, .buf = s->err, .len = s->err_len },
	};
	bool want[3] = { s->in, s->out, s->err && !s->err_to_out };
	void (*was)(int);
	pid_t pid;

	if (s->out && s->out_len)
		s->out[0] = '\0';
	if (s->err && s->err_len)
		s->err[0] = '\0';
	for (i = 0; i < 3; i++) {
		if (!want[i])
			continue;
		if (pipe2(fds, O_CLOEXEC)) {
			ret = -errno;
			goto out;
		}
		/* fds[0] reads, fds[1] writes: the child reads stdin */
		p[i].fd = i ? fds[0] : fds[1];
		theirs[i] = i ? fds[1] : fds[0];
		fcntl(p[i].fd, F_SETFL, O_NONBLOCK);
	}
	pid = getpid();
	ret = fork();
	if (ret < 0) {
		ret = -errno;
		goto out;
	}
	if (!ret)
		cg_spawn_child(s, pid, theirs[0], theirs[1], theirs[2]);
	pid = ret;
	for (i = 0; i < 3; i++) {
		if (theirs[i] >= 0)
			close(theirs[i]);
		theirs[i] = -1;
	}
	/* a child that died early must not take us with it as we feed it */
	was = signal(SIGPIPE, SIG_IGN);
	ret = cg_spawn_wait(pid, p, 3, cg_spawn_now_ms() +
			    (s->timeout_ms > 0 ? s->timeout_ms : CG_SPAWN_TIMEOUT_MS));
	signal(SIGPIPE, was);
	for (i = 1; i < 3; i++)
		if (p[i].buf && p[i].len)
			p[i].buf[p[i].done] = '\0';
out:
	for (i = 0; i < 3; i++) {
		if (p[i].fd >= 0)
			close(p[i].fd);
		if (theirs[i] >= 0)
			close(theirs[i]);
	}
	return ret;
}
