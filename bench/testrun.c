// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * testrun.c - BPF_PROG_TEST_RUN of the guard against the empty program.
 *
 *	testrun --guard OBJ --empty OBJ [--before OBJ] [--runs N] [--repeat N] [--cpu N]
 *
 * Loads the first program of each object (--before: the guard as it was
 * before an optimisation, for a before/after), then runs each on the same
 * 64-byte Ethernet + IPv4 + UDP packet, repeat times per call, in an order
 * rotated from one run to the next. The kernel builds that skb
 * with ip_summed == CHECKSUM_NONE, so this measures only the guard's
 * not-partial path (its early exit, on ip_summed alone).
 *
 * Per call it reports the kernel's own figure (duration: the mean ns per
 * repetition, truncated to an integer, with time spent rescheduled left
 * out) and the wall time of the call divided by repeat (CLOCK_MONOTONIC,
 * sub-ns resolution, one syscall of overhead spread over repeat runs).
 *
 * Output, one line per call: "run=R prog=guard|empty|before duration_ns=D wall_ns=W".
 * Exit codes: 0 done, 1 failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util.h"

#define PROG		"testrun"
#define PKT_LEN		64
#define TC_ACT_UNSPEC	(-1)

struct subject {
	const char *name;
	const char *path;
	struct bpf_object *obj;
	int fd;
};

/* Ethernet, IPv4 10.0.0.2 -> 10.1.0.2 (header checksum valid), UDP, 22 bytes */
static const uint8_t pkt[PKT_LEN] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
	0x08, 0x00,
	0x45, 0x00, 0x00, 0x32, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00,
	0x0a, 0x00, 0x00, 0x02, 0x0a, 0x01, 0x00, 0x02,
	0x0f, 0xa0, 0x13, 0x88, 0x00, 0x1e, 0x00, 0x00,
};

static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int load(struct subject *s)
{
	struct bpf_program *prog;
	int err;

	s->obj = bpf_object__open_file(s->path, NULL);
	if (!s->obj) {
		err = -errno;
		fprintf(stderr, PROG ": cannot open %s: %s\n", s->path, strerror(-err));
		return err;
	}
	err = bpf_object__load(s->obj);
	if (err) {
		fprintf(stderr, PROG ": cannot load %s: %s\n", s->path, strerror(-err));
		return err;
	}
	prog = bpf_object__next_program(s->obj, NULL);
	if (!prog) {
		fprintf(stderr, PROG ": %s has no program\n", s->path);
		return -ENOENT;
	}
	s->fd = bpf_program__fd(prog);
	return 0;
}

/* The IPv4 header checksum, so the packet is one a stack would accept. */
static void finish_packet(uint8_t *p)
{
	uint32_t sum = 0;
	int i;

	for (i = 14; i < 34; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	p[24] = ~sum >> 8;
	p[25] = ~sum;
}

static int run_one(const struct subject *s, const uint8_t *data, __u32 repeat,
		   int run)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = data,
		    .data_size_in = PKT_LEN, .repeat = repeat);
	uint64_t t0, t1;
	int err;

	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	err = bpf_prog_test_run_opts(s->fd, &o);
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	if (err) {
		fprintf(stderr, PROG ": test run of %s: %s\n", s->name, strerror(errno));
		return -1;
	}
	if ((int)o.retval != TC_ACT_UNSPEC) {
		fprintf(stderr, PROG ": %s returned %d, not TC_ACT_UNSPEC\n",
			s->name, (int)o.retval);
		return -1;
	}
	if (run > 0)
		printf("run=%d prog=%s duration_ns=%u wall_ns=%.3f\n", run, s->name,
		       o.duration, (double)(t1 - t0) / repeat);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --guard OBJ --empty OBJ [--before OBJ] [--runs N] [--repeat N] [--cpu N]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "guard", required_argument, NULL, 'g' },
		{ "empty", required_argument, NULL, 'e' },
		{ "before", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct subject s[3] = {
		{ .name = "empty", .fd = -1 },
		{ .name = "guard", .fd = -1 },
		{ .name = "before", .fd = -1 },
	};
	unsigned long runs = 9, repeat = 1000000;
	uint8_t data[PKT_LEN];
	int opt, cpu = -1, n = 2, r, i, err, ret = 1;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			s[1].path = optarg;
			break;
		case 'e':
			s[0].path = optarg;
			break;
		case 'b':
			s[2].path = optarg;
			break;
		case 'r':
			runs = cgb_num(PROG, "--runs", optarg, 1, 1000);
			break;
		case 'R':
			repeat = cgb_num(PROG, "--repeat", optarg, 1, UINT32_MAX);
			break;
		case 'C':
			cpu = cgb_num(PROG, "--cpu", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!s[0].path || !s[1].path || optind < argc) {
		usage(stderr);
		return 2;
	}
	libbpf_set_print(print_warnings);
	err = cgb_pin_cpu(cpu);
	if (err) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", cpu, strerror(-err));
		return 1;
	}
	memcpy(data, pkt, sizeof(data));
	finish_packet(data);
	if (s[2].path)
		n = 3;
	for (i = 0; i < n; i++) {
		if (load(&s[i]))
			goto cleanup;
	}

	/* warm each up (not reported), then rotate who goes first */
	for (i = 0; i < n; i++) {
		if (run_one(&s[i], data, repeat / 10 + 1, 0))
			goto cleanup;
	}
	for (r = 1; r <= (int)runs; r++) {
		for (i = 0; i < n; i++) {
			if (run_one(&s[(r + i) % n], data, repeat, r))
				goto cleanup;
		}
	}
	ret = 0;
cleanup:
	for (i = 0; i < n; i++)
		bpf_object__close(s[i].obj);
	return ret;
}
