// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * netns.c - enter a network namespace given by name (/run/netns/NAME, as
 * `ip netns` makes), by path (/proc/PID/ns/net: VM namespaces are not
 * always named) or by inode (what status reports for an unnamed one), and
 * come back.
 *
 * Only the network namespace changes: bpffs pins live in the mount
 * namespace, which stays the caller's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "log.h"
#include "netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static int cg_orig_netns = -1;

static bool cg_netns_fd_is(int fd, __u64 ino)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == ino;
}

struct cg_netns_find {
	__u64 ino;
	char path[PATH_MAX];
};

static void cg_netns_find_ino(const struct cg_netns_ref *r, void *arg)
{
	struct cg_netns_find *f = arg;

	if (r->ino == f->ino && !f->path[0])
		snprintf(f->path, sizeof(f->path), "%s", r->path);
}

int cg_netns_open(const char *ns)
{
	struct cg_netns_find f = {};
	char path[PATH_MAX], *end;
	int fd, type;

	if (!*ns || !strcmp(ns, ".") || !strcmp(ns, ".."))
		return -EINVAL;
	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else if (snprintf(path, sizeof(path), "/run/netns/%s", ns) >= (int)sizeof(path))
		return -ENAMETOOLONG;

	/* O_NONBLOCK: a FIFO under that path must not hang us; nsfs ignores it */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT && !strchr(ns, '/') && isdigit((unsigned char)*ns)) {
		/* no such name: an inode, as status reports an unnamed namespace */
		errno = 0;
		f.ino = strtoull(ns, &end, 10);
		if (*end || errno || !f.ino)
			return -ENOENT;
		cg_netns_scan(cg_netns_find_ino, &f);
		if (!f.path[0])
			return -ENOENT;
		fd = open(f.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		/* the process left between the scan and the open, or another came */
		if (fd >= 0 && !cg_netns_fd_is(fd, f.ino)) {
			close(fd);
			return -ENOENT;
		}
	}
	if (fd < 0)
		return -errno;
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Remember where we started, once, before the first move. */
static int cg_netns_save(void)
{
	if (cg_orig_netns < 0) {
		cg_orig_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (cg_orig_netns < 0)
			return -errno;
	}
	return 0;
}

int cg_netns_enter(int fd)
{
	int err = cg_netns_save();

	if (err)
		return err;
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

void cg_netns_return(void)
{
	if (cg_netns_restore()) {
		cg_err("cannot return to the original network namespace: %s", strerror(errno));
		exit(1);
	}
}

int cg_netns_new(void)
{
	int fd = cg_netns_save();

	if (fd)
		return fd;
	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	cg_netns_return();
	return fd;
}

int cg_netns_ino(__u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int cg_userns_ino(__u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/user", &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int cg_netns_other_userns(int nsfd, __u64 own_userns, __u32 *uid)
{
	struct stat st;
	uid_t u = 0;
	int fd, ret;

	fd = ioctl(nsfd, NS_GET_USERNS);
	if (fd < 0)
		return errno == EPERM ? 1 : -errno;	/* above ours: not ours */
	ret = fstat(fd, &st) ? -errno : st.st_ino == own_userns ? 0 : 1;
	if (ret == 1 && !ioctl(fd, NS_GET_OWNER_UID, &u))
		*uid = u;
	close(fd);
	return ret;
}

/*
 * The cookie of the current network namespace, or 0 before 5.14, which has
 * no SO_NETNS_COOKIE: there the inode alone names a namespace in our state
 * (only the SYN-cookie guard runs on such kernels; the bpf backend needs
 * 6.2).
 */
int cg_netns_cookie(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len)) {
		err = -errno;
		if (err == -ENOPROTOOPT) {
			*cookie = 0;
			err = 0;
		}
	}
	close(fd);
	return err;
}

bool cg_netns_scan_named(void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct cg_netns_ref r;
	struct dirent *de;
	bool pending = false;
	struct stat st, self;
	DIR *d;

	if (stat("/proc/self/ns/net", &self))
		return false;
	d = opendir(CG_NETNS_RUN_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) || st.st_dev != self.st_dev) {
			pending = true;
			continue;
		}
		snprintf(path, sizeof(path), CG_NETNS_RUN_DIR "/%s", de->d_name);
		r = (struct cg_netns_ref){ .ino = st.st_ino, .path = path, .name = de->d_name };
		fn(&r, arg);
	}
	if (d)
		closedir(d);
	return pending;
}

int cg_netns_of_pid(int pid, void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct stat st, self;

	if (stat("/proc/self/ns/net", &self))
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (stat(path, &st))
		return -errno;
	if (st.st_dev != self.st_dev)
		return -EINVAL;
	fn(&(struct cg_netns_ref){ .ino = st.st_ino, .path = path, .pid = pid }, arg);
	return 0;
}

/*
 * Every network namespace the host can lead us to: each entry of
 * /run/netns that is one (named), then each /proc/PID/ns/net. The same
 * namespace comes up once per name and process: callers deduplicate by
 * inode. Returns true when a /run/netns entry is not a namespace yet
 * (`ip netns add` creates the file, then bind-mounts the namespace on it).
 */
bool cg_netns_scan(void (*fn)(const struct cg_netns_ref *r, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct cg_netns_ref r;
	struct dirent *de;
	bool pending;
	struct stat st, self;
	DIR *d;
	int pid;

	if (stat("/proc/self/ns/net", &self))
		return false;
	pending = cg_netns_scan_named(fn, arg);

	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%d/ns/net", pid);
		if (fstatat(dirfd(d), path, &st, 0) || st.st_dev != self.st_dev)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		r = (struct cg_netns_ref){ .ino = st.st_ino, .path = path, .pid = pid };
		fn(&r, arg);
	}
	if (d)
		closedir(d);
	return pending;
}

const char *cg_netns_label(const char *netns, __u64 ino, char *buf, size_t n)
{
	if (!netns || !strchr(netns, '/'))
		return netns;
	snprintf(buf, n, "%llu", (unsigned long long)ino);
	return buf;
}

/* Enter the namespace named by --netns (NULL: stay); ack says why not. */
int cg_netns_join(const char *ns, struct cg_ack *ack)
{
	int fd, err;

	if (!ns)
		return 0;
	fd = cg_netns_open(ns);
	if (fd < 0)
		return cg_ack_err(ack, fd, "%s",
				  fd == -EINVAL ? "not a network namespace" :
				  fd == -ENOENT ? "no such network namespace" : strerror(-fd));
	err = cg_netns_enter(fd);
	close(fd);
	if (err)
		return cg_ack_err(ack, err, "cannot enter its network namespace: %s",
				  strerror(-err));
	return 0;
}
