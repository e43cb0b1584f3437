// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach-empty.c - put the empty program (or any one-program tc object) on
 * a device's ingress the two ways the guard can be attached, and take it
 * off again. The benchmarks use it for the floor they measure against.
 *
 *	attach-empty attach --netns NS --dev DEV --mode tcx|clsact --obj OBJ [--pin PATH] [--first]
 *	attach-empty detach --netns NS --dev DEV --mode tcx|clsact [--pin PATH]
 *	attach-empty list --netns NS --dev DEV
 *
 * tcx: the program is loaded with expected attach type BPF_TCX_INGRESS and
 * linked with bpf_link_create(); the link is pinned at PATH (required), which
 * keeps it after this process exits; detach detaches the link and unpins it.
 * The link goes after the device's other tcx programs, or before all of
 * them with --first (the guard itself always goes first).
 * clsact: a clsact qdisc (if there is none) and a direct-action filter at
 * handle 0xb1, priority 1; detach deletes the filter and the clsact qdisc
 * with it, so use it only on devices whose qdisc is yours (the benchmark's
 * own namespaces): a device left with an empty clsact qdisc is not "no hook".
 *
 * attach prints "prog_id=N", for kernel.bpf_stats_enabled readings; list
 * prints the ids of the device's tcx ingress programs in the order they run
 * (bpftool before 7.3 does not show tcx).
 * Exit codes: 0 done, 1 failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "util.h"

#define PROG		"attach-empty"
#define CGB_TC_HANDLE	0xb1
#define CGB_TC_PRIO	1

enum verb { VERB_ATTACH, VERB_DETACH, VERB_LIST };

struct config {
	enum verb verb;
	bool tcx;
	bool first;
	const char *netns;
	const char *dev;
	const char *obj;
	const char *pin;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " attach --netns NS --dev DEV --mode tcx|clsact --obj OBJ [--pin PATH] [--first]\n"
		"       " PROG " detach --netns NS --dev DEV --mode tcx|clsact [--pin PATH]\n"
		"       " PROG " list --netns NS --dev DEV\n"
		"  tcx needs --pin, where the link is pinned; --first is for tcx\n");
}

static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* Open and load the object's first program; the object or NULL. */
static struct bpf_object *load_prog(const struct config *c, int *prog_fd)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err;

	obj = bpf_object__open_file(c->obj, NULL);
	if (!obj) {
		fprintf(stderr, PROG ": cannot open %s: %s\n", c->obj, strerror(errno));
		return NULL;
	}
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, PROG ": %s has no program\n", c->obj);
		goto err_close;
	}
	if (c->tcx)
		bpf_program__set_expected_attach_type(prog, CG_BPF_TCX_INGRESS);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, PROG ": cannot load %s: %s\n", c->obj, strerror(-err));
		goto err_close;
	}
	*prog_fd = bpf_program__fd(prog);
	return obj;
err_close:
	bpf_object__close(obj);
	return NULL;
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static void tc_hook(struct bpf_tc_hook *hook, int ifindex, int where)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = where;
}

static int attach_tcx(const struct config *c, int ifindex, int prog_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .flags = c->first ? CG_BPF_F_BEFORE : 0);
	int fd, err = 0;

	fd = bpf_link_create(prog_fd, ifindex, CG_BPF_TCX_INGRESS, &opts);
	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, c->pin))
		err = -errno;
	close(fd);	/* on error the link goes with the fd */
	return err;
}

static int attach_clsact(int ifindex, int prog_fd)
{
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CGB_TC_HANDLE,
		    .priority = CGB_TC_PRIO, .prog_fd = prog_fd);
	struct bpf_tc_hook hook;
	int err;

	tc_hook(&hook, ifindex, BPF_TC_INGRESS);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	return bpf_tc_attach(&hook, &opts);
}

static int do_attach(const struct config *c, int ifindex)
{
	struct bpf_object *obj;
	int prog_fd, err;

	obj = load_prog(c, &prog_fd);
	if (!obj)
		return 1;
	err = c->tcx ? attach_tcx(c, ifindex, prog_fd) :
		       attach_clsact(ifindex, prog_fd);
	if (err) {
		fprintf(stderr, PROG ": cannot attach to %s in netns %s: %s\n",
			c->dev, c->netns, strerror(-err));
	} else {
		printf("prog_id=%u\n", prog_id(prog_fd));
	}
	bpf_object__close(obj);
	return err ? 1 : 0;
}

static int detach_tcx(const struct config *c)
{
	int fd, err = 0;

	fd = bpf_obj_get(c->pin);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (bpf_link_detach(fd) && errno != ENOLINK)
		err = -errno;
	close(fd);
	if (unlink(c->pin) && !err)
		err = -errno;
	return err;
}

static int detach_clsact(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = CGB_TC_HANDLE,
		    .priority = CGB_TC_PRIO);
	struct bpf_tc_hook hook;
	int err;

	tc_hook(&hook, ifindex, BPF_TC_INGRESS);
	err = bpf_tc_detach(&hook, &opts);
	if (err && err != -ENOENT && err != -EINVAL)
		return err;
	/* both attach points: deletes the clsact qdisc itself */
	tc_hook(&hook, ifindex, BPF_TC_INGRESS | BPF_TC_EGRESS);
	err = bpf_tc_hook_destroy(&hook);
	return err == -ENOENT || err == -EINVAL ? 0 : err;
}

static int do_detach(const struct config *c, int ifindex)
{
	int err;

	err = c->tcx ? detach_tcx(c) : detach_clsact(ifindex);
	if (err) {
		fprintf(stderr, PROG ": cannot detach from %s in netns %s: %s\n",
			c->dev, c->netns, strerror(-err));
		return 1;
	}
	return 0;
}

/* The tcx ingress programs of ifindex, in the order they run. */
static int do_list(const struct config *c, int ifindex)
{
	__u32 ids[64], cnt = 64, i;

	if (bpf_prog_query(ifindex, CG_BPF_TCX_INGRESS, 0, NULL, ids, &cnt)) {
		fprintf(stderr, PROG ": cannot list the tcx programs of %s in netns %s: %s\n",
			c->dev, c->netns, strerror(errno));
		return 1;
	}
	for (i = 0; i < cnt; i++)
		printf("%s%u", i ? " " : "", ids[i]);
	printf("\n");
	return 0;
}

static void parse_args(struct config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "obj", required_argument, NULL, 'o' },
		{ "pin", required_argument, NULL, 'p' },
		{ "first", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *mode = NULL;
	int opt;

	memset(c, 0, sizeof(*c));
	if (argc < 2) {
		usage(stderr);
		exit(2);
	}
	if (!strcmp(argv[1], "attach")) {
		c->verb = VERB_ATTACH;
	} else if (!strcmp(argv[1], "detach")) {
		c->verb = VERB_DETACH;
	} else if (!strcmp(argv[1], "list")) {
		c->verb = VERB_LIST;
	} else {
		usage(strcmp(argv[1], "--help") ? stderr : stdout);
		exit(strcmp(argv[1], "--help") ? 2 : 0);
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			c->netns = optarg;
			break;
		case 'd':
			c->dev = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'o':
			c->obj = optarg;
			break;
		case 'p':
			c->pin = optarg;
			break;
		case 'f':
			c->first = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (c->verb == VERB_LIST) {
		if (!c->netns || !c->dev || mode || c->obj || c->pin || c->first ||
		    optind < argc) {
			usage(stderr);
			exit(2);
		}
		return;
	}
	if (!mode || (strcmp(mode, "tcx") && strcmp(mode, "clsact"))) {
		fprintf(stderr, PROG ": --mode tcx or --mode clsact is required\n");
		exit(2);
	}
	c->tcx = !strcmp(mode, "tcx");
	if (!c->netns || !c->dev || (c->verb == VERB_ATTACH && !c->obj) ||
	    (c->tcx && !c->pin) || (c->first && (!c->tcx || c->verb != VERB_ATTACH)) ||
	    optind < argc) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct config c;
	int ifindex, err;

	parse_args(&c, argc, argv);
	libbpf_set_print(print_warnings);
	err = cgb_netns_enter(c.netns);
	if (err) {
		fprintf(stderr, PROG ": cannot enter netns %s: %s\n", c.netns, strerror(-err));
		return 1;
	}
	ifindex = if_nametoindex(c.dev);
	if (!ifindex) {
		fprintf(stderr, PROG ": cannot find %s in netns %s: %s\n",
			c.dev, c.netns, strerror(errno));
		return 1;
	}
	switch (c.verb) {
	case VERB_ATTACH:
		return do_attach(&c, ifindex);
	case VERB_DETACH:
		return do_detach(&c, ifindex);
	default:
		return do_list(&c, ifindex);
	}
}
