// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-hooks.c - the BPF programs the kernel runs on a device's tcx hooks,
 * asked of the kernel (BPF_PROG_QUERY), not of any loader's pins or notes.
 * Debian 12's bpftool (7.1) does not show tcx; tc shows clsact filters.
 *
 *	cg-hooks DEV
 *	cg-hooks --netns-cookie
 *	cg-hooks --hold DEV first|last OBJ
 *	cg-hooks --swap LINK_PIN OBJ
 *
 * Run it in DEV's network namespace. --netns-cookie prints the cookie of
 * the namespace it runs in (SO_NETNS_COOKIE): the key, with an ifindex, of
 * a device's counters in the host's dev_counters map. --hold puts the first
 * program of OBJ on DEV's tcx ingress, before or after every program there,
 * prints "holding ID" and keeps its link until SIGTERM or SIGINT: another's
 * tcx program, for what status says runs before the guard. --swap updates
 * the tcx link pinned at LINK_PIN to run the first program of OBJ instead
 * (BPF_LINK_UPDATE: the link stays, its program changes) and prints
 * "swapped to ID". Prints, in the order they run, one
 * line per program:
 *
 *	tcx_ingress ID TAG NAME
 *	tcx_egress ID TAG NAME
 *
 * Exit codes: 0 done (no line: no tcx program), 1 the kernel would not
 * answer, 2 bad usage, 3 this kernel has no tcx (before 6.6).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../lib/compat.h"

/* mprog attach flag: place the program after all others (kernel 6.6) */
#define CG_BPF_F_AFTER		(1U << 4)

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

/* OBJ's first program, loaded for a tcx ingress hook; NULL said */
static struct bpf_object *load(const char *path, struct bpf_program **prog)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);

	*prog = obj ? bpf_object__next_program(obj, NULL) : NULL;
	if (!*prog) {
		fprintf(stderr, "cg-hooks: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	bpf_program__set_expected_attach_type(*prog, CG_BPF_TCX_INGRESS);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "cg-hooks: cannot load %s: %s\n", path, strerror(errno));
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

/* The link pinned at pin runs OBJ's first program from now on */
static int swap(const char *pin, const char *path)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int fd, err = 0;

	fd = bpf_obj_get(pin);
	if (fd < 0) {
		fprintf(stderr, "cg-hooks: no link pinned at %s: %s\n", pin, strerror(errno));
		return 1;
	}
	obj = load(path, &prog);
	if (!obj) {
		close(fd);
		return 1;
	}
	if (bpf_link_update(fd, bpf_program__fd(prog), NULL)) {
		fprintf(stderr, "cg-hooks: cannot update the link at %s: %s\n", pin, strerror(errno));
		err = 1;
	} else {
		bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len);
		printf("swapped to %u\n", info.id);
	}
	close(fd);
	bpf_object__close(obj);	/* the link holds the program */
	return err;
}

/* OBJ's first program on DEV's tcx ingress, first or last, until a signal */
static int hold(const char *dev, const char *where, const char *path)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int ifindex, fd, sig;
	sigset_t set;

	if (!strcmp(where, "first"))
		lo.flags = CG_BPF_F_BEFORE;
	else if (!strcmp(where, "last"))
		lo.flags = CG_BPF_F_AFTER;
	else
		return 2;
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "cg-hooks: no device %s here: %s\n", dev, strerror(errno));
		return 1;
	}
	obj = load(path, &prog);
	if (!obj)
		return 1;
	fd = bpf_link_create(bpf_program__fd(prog), ifindex, CG_BPF_TCX_INGRESS, &lo);
	if (fd < 0) {
		fprintf(stderr, "cg-hooks: cannot link %s on %s: %s\n", path, dev, strerror(errno));
		return errno == EINVAL ? 3 : 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len);
	printf("holding %u\n", info.id);
	fflush(stdout);
	sigwait(&set, &sig);
	close(fd);
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex, err;

	if (argc == 5 && !strcmp(argv[1], "--hold")) {
		err = hold(argv[2], argv[3], argv[4]);
		if (err == 2)
			fprintf(stderr, "usage: cg-hooks --hold DEV first|last OBJ\n");
		return err;
	}
	if (argc == 4 && !strcmp(argv[1], "--swap"))
		return swap(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: cg-hooks DEV | --netns-cookie | --hold DEV first|last OBJ | "
			"--swap LINK_PIN OBJ\n");
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
