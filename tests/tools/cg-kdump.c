// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-kdump - the kernel module's device dump, read the slow way, to see
 * what the module says when its list changes between the rounds of a dump.
 *
 *	cg-kdump attach [--log-drops] IFINDEX...
 *					guard each device through the family
 *	cg-kdump dump [--detach-between IFINDEX]
 *
 * dump reads on a socket of its own with a 4 KiB buffer, so the kernel
 * fills one round of the dump (of 4 KiB at most) per read; with --detach-between it detaches IFINDEX (on a second socket)
 * after the first read, when two rounds have been filled and more are to
 * come. It prints "summary messages=N intr=0|1 rounds=N", intr telling
 * whether any message carried NLM_F_DUMP_INTR. Run inside the namespace.
 * attach needs no loader: a user in a user namespace of their own runs it
 * (the loader wants the host's lock and state); it stops at the first
 * device refused, with the reason (strerror) on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "nl.h"
#include "csum_guard_genl.h"

static int family_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];

	cg_nl_parse(nh, GENL_HDRLEN, tb, CTRL_ATTR_MAX);
	*(__u16 *)arg = cg_nla_uint(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

static void genl_init(struct cg_nl_msg *m, __u16 family, __u8 cmd, __u16 flags)
{
	struct genlmsghdr g = { .cmd = cmd, .version = CG_GENL_VERSION };

	cg_nl_msg_init(m, family, flags, &g, sizeof(g));
}

/* A socket of the module's family, its id in *family. */
static int genl_open(__u16 *family)
{
	struct cg_nl_msg m;
	int fd, err;

	fd = cg_nl_socket(NETLINK_GENERIC, 0, 10);
	if (fd < 0)
		return fd;
	genl_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	m.nh.nlmsg_type = GENL_ID_CTRL;
	cg_nl_put(&m, CTRL_ATTR_FAMILY_NAME, CG_GENL_NAME, sizeof(CG_GENL_NAME));
	*family = 0;
	err = cg_nl_talk(fd, &m, family_cb, family);
	if (err || !*family) {
		close(fd);
		return err ?: -ENOENT;
	}
	return fd;
}

static int dev_cmd(int fd, __u16 family, __u8 cmd, __u32 ifindex, __u32 flags)
{
	struct cg_nl_msg m;

	genl_init(&m, family, cmd, 0);
	cg_nl_put(&m, CG_A_IFINDEX, &ifindex, sizeof(ifindex));
	if (cmd == CG_CMD_ATTACH)
		cg_nl_put(&m, CG_A_FLAGS, &flags, sizeof(flags));
	return cg_nl_talk(fd, &m, NULL, NULL);
}

static int dump(__u16 family, __u32 detach)
{
	static __u32 seq = 1000;
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int msgs = 0, intr = 0, rounds = 0, done = 0, err;
	const struct nlmsghdr *nh;
	struct cg_nl_msg m;
	__u16 fam2;
	ssize_t n;
	int fd, fd2;

	/* a socket that has never read more than 4 KiB: the kernel sizes
	 * each round of a dump by the largest read the socket has made */
	fd = cg_nl_socket(NETLINK_GENERIC, 0, 10);
	if (fd < 0)
		return fd;
	genl_init(&m, family, CG_CMD_GET, NLM_F_DUMP);
	m.nh.nlmsg_seq = ++seq;
	if (sendto(fd, &m.nh, m.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	while (!done) {
		/* MSG_TRUNC: the length of the round, were it longer than buf */
		n = recv(fd, buf, sizeof(buf), MSG_TRUNC);
		if (n < 0)
			return -errno;
		if (n > (ssize_t)sizeof(buf))
			return -EMSGSIZE;
		rounds++;
		for (nh = (const void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = 1;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -EPROTO;
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			msgs++;
		}
		if (rounds == 1 && detach) {
			fd2 = genl_open(&fam2);
			if (fd2 < 0)
				return fd2;
			err = dev_cmd(fd2, fam2, CG_CMD_DETACH, detach, 0);
			close(fd2);
			if (err)
				return err;
		}
	}
	close(fd);
	printf("summary messages=%d intr=%d rounds=%d\n", msgs, intr, rounds);
	return 0;
}

int main(int argc, char **argv)
{
	__u32 detach = 0, flags = 0;
	__u16 family;
	int fd, i, err = 0;

	if (argc < 2 || (strcmp(argv[1], "attach") && strcmp(argv[1], "dump"))) {
		fprintf(stderr, "usage: cg-kdump attach [--log-drops] IFINDEX... | dump [--detach-between IFINDEX]\n");
		return 2;
	}
	fd = genl_open(&family);
	if (fd < 0) {
		fprintf(stderr, "cg-kdump: family %s: %s\n", CG_GENL_NAME, strerror(-fd));
		return 1;
	}
	if (!strcmp(argv[1], "attach")) {
		i = 2;
		if (i < argc && !strcmp(argv[i], "--log-drops")) {
			flags = CG_F_LOG_DROPS;
			i++;
		}
		for (; i < argc && !err; i++)
			err = dev_cmd(fd, family, CG_CMD_ATTACH, strtoul(argv[i], NULL, 10), flags);
	} else {
		if (argc == 4 && !strcmp(argv[2], "--detach-between"))
			detach = strtoul(argv[3], NULL, 10);
		err = dump(family, detach);
	}
	close(fd);
	if (err)
		fprintf(stderr, "cg-kdump %s: %s\n", argv[1], strerror(-err));
	return err ? 1 : 0;
}
