// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-hooks.c - the BPF programs the kernel runs on a device's tcx hooks,
 * asked of the kernel (BPF_PROG_QUERY), not of any loader's pins or notes.
 * Debian 12's bpftool (7.1) does not show tcx; tc shows clsact filters.
 *
 *	cg-hooks DEV
 *	cg-hooks --netns-cookie
 *
 * Run it in DEV's network namespace. --netns-cookie prints the cookie of
 * the namespace it runs in (SO_NETNS_COOKIE): the key, with an ifindex, of
 * a device's counters in the host's dev_counters map. Prints, in the order they run, one
 * line per program:
 *
 *	tcx_ingress ID TAG NAME
 *	tcx_egress ID TAG NAME
 *
 * Exit codes: 0 done (no line: no tcx program), 1 the kernel would not
 * answer, 2 bad usage, 3 this kernel has no tcx (before 6.6).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/types.h>

#include <bpf/bpf.h>

#include "../../lib/compat.h"

static int show(int ifindex, enum bpf_attach_type type, const char *what)
{
	__u32 ids[64], cnt = 64, i, j;
	struct bpf_prog_info info;
	__u32 len;
	int fd;

	if (bpf_prog_query(ifindex, type, 0, NULL, ids, &cnt))
		return -errno;
	for (i = 0; i < cnt; i++) {
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			return -errno;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			return -errno;
		}
		close(fd);
		printf("%s %u ", what, ids[i]);
		for (j = 0; j < sizeof(info.tag); j++)
			printf("%02x", info.tag[j]);
		printf(" %s\n", info.name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex, err;

	if (argc != 2) {
		fprintf(stderr, "usage: cg-hooks DEV | --netns-cookie\n");
		return 2;
	}
	if (!strcmp(argv[1], "--netns-cookie")) {
		__u64 cookie;
		socklen_t clen = sizeof(cookie);
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		if (s < 0 || getsockopt(s, SOL_SOCKET, 71 /* SO_NETNS_COOKIE */, &cookie, &clen)) {
			fprintf(stderr, "cg-hooks: no netns cookie: %s\n", strerror(errno));
			return 1;
		}
		printf("%llu\n", (unsigned long long)cookie);
		return 0;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "cg-hooks: no device %s here: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = show(ifindex, CG_BPF_TCX_INGRESS, "tcx_ingress");
	if (!err)
		err = show(ifindex, CG_BPF_TCX_EGRESS, "tcx_egress");
	if (err == -EINVAL)
		return 3;
	if (err) {
		fprintf(stderr, "cg-hooks: cannot query the tcx programs of %s: %s\n",
			argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
