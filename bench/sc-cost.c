// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * sc-cost.c - the SYN-cookie responder's own cost per SYN, from
 * BPF_PROG_TEST_RUN: no flood, no other CPU, no cache the flood evicts.
 *
 *   sc-cost --netns NS --dev DEV --dst-mac MAC --dst ADDR --port P
 *           --prog LABEL=PINNED [--prog ...] [--calls N] [--rounds N] [--cpu N]
 *
 * Each PINNED is an XDP program (pinned in bpffs: a responder attach made
 * and its detach left, with its maps, or xdp-pass for the floor). In NS,
 * each round runs every program N times on the same N SYN frames, frame by
 * frame, the programs in a random order for each frame, one frame per call (the responder
 * rewrites the frame it answers, so no call repeats one): random sources
 * in 198.18.0.0/15 (from a seed of the round), random ports, the options
 * Linux sends, to ADDR:P, for DEV's MAC (MAC), from MAC's peer, as if
 * received on DEV (ingress_ifindex). A responder must answer every one
 * (XDP_TX, a SYN-ACK of the same addresses); the floor passes them.
 *
 * Per call the kernel's figure (duration, with one repetition: the
 * program and one clock read, in ns). Prints one line per program and
 * round:
 *
 *   round=R prog=LABEL median_ns=M p10_ns=A p90_ns=B tx=T pass=P
 *
 * Exit codes: 0 done, 1 failed (a responder that did not answer, a test
 * run refused), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <bpf/bpf.h>

#include "util.h"
#include "synframe.h"

#define PROG		"sc-cost"
#define MAX_PROGS	8
#define FRAME_MAX	128

struct subject {
	const char *label;
	int fd;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A SYN-ACK from dst:port back to the SYN's source, in place of the SYN in f */
static bool is_answer(const uint8_t *out, uint32_t len, const uint8_t *syn)
{
	const uint8_t *ip = out + 14, *th = ip + 20;

	return len >= 14 + 20 + 20 && out[12] == 0x08 && out[13] == 0 && ip[9] == 6 &&
	       !memcmp(ip + 12, syn + 14 + 16, 4) && !memcmp(ip + 16, syn + 14 + 12, 4) &&
	       !memcmp(th, syn + 34 + 2, 2) && !memcmp(th + 2, syn + 34, 2) &&
	       (th[13] & 0x3f) == 0x12;
}

/*
 * One test run of p on the frame f (len bytes) as received on ifindex:
 * its duration into *dur, *tx counted if it answered. -1: refused, or
 * neither passed nor answered with a SYN-ACK.
 */
static int run_one(const struct subject *p, const uint8_t *f, uint32_t len, int ifindex,
		   uint32_t *dur, unsigned long *tx)
{
	/* the frame is all packet: no metadata before it */
	struct xdp_md md = { .data_end = len, .ingress_ifindex = ifindex };
	uint8_t out[FRAME_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = len, .data_out = out,
		    .data_size_out = sizeof(out), .ctx_in = &md, .ctx_size_in = sizeof(md),
		    .repeat = 1);

	if (bpf_prog_test_run_opts(p->fd, &o)) {
		fprintf(stderr, PROG ": test run of %s: %s\n", p->label, strerror(errno));
		return -1;
	}
	*dur = o.duration;
	if (o.retval == XDP_TX && is_answer(out, o.data_size_out, f))
		(*tx)++;
	else if (o.retval != XDP_PASS) {
		fprintf(stderr, PROG ": %s returned %u (%u bytes), neither XDP_PASS nor a "
			"SYN-ACK with XDP_TX\n", p->label, o.retval, o.data_size_out);
		return -1;
	}
	return 0;
}

static int usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --netns NS --dev DEV --dst-mac MAC --dst ADDR --port P "
		"--prog LABEL=PINNED [--prog ...] [--calls N] [--rounds N] [--cpu N]\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "dst", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "prog", required_argument, NULL, 'P' },
		{ "calls", required_argument, NULL, 'c' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct subject s[MAX_PROGS];
	unsigned long calls = 20000, rounds = 9, port = 0;
	const char *netns = NULL, *dev = NULL;
	struct syn_addr a = { 0 };
	uint8_t (*frames)[FRAME_MAX] = NULL;
	uint32_t *flen = NULL, *dur[MAX_PROGS] = { NULL };
	unsigned long tx[MAX_PROGS];
	int opt, n = 0, cpu = -1, ifindex, r, k, ret = 1;
	bool mac = false, dst = false, oom;
	char *eq;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': netns = optarg; break;
		case 'd': dev = optarg; break;
		case 'm':
			mac = !cgb_mac_parse(optarg, a.dmac);
			if (!mac) {
				fprintf(stderr, PROG ": --dst-mac: not a MAC address: %s\n", optarg);
				return 2;
			}
			break;
		case 't':
			dst = inet_pton(AF_INET, optarg, a.dst) == 1;
			if (!dst) {
				fprintf(stderr, PROG ": --dst: not an IPv4 address: %s\n", optarg);
				return 2;
			}
			break;
		case 'p': port = cgb_num(PROG, "--port", optarg, 1, 65535); break;
		case 'P':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] || n == MAX_PROGS) {
				fprintf(stderr, PROG ": --prog: LABEL=PINNED, at most %d: %s\n",
					MAX_PROGS, optarg);
				return 2;
			}
			*eq = 0;
			s[n].label = optarg;
			s[n].fd = bpf_obj_get(eq + 1);
			if (s[n].fd < 0) {
				fprintf(stderr, PROG ": %s: %s\n", eq + 1, strerror(errno));
				return 1;
			}
			n++;
			break;
		case 'c': calls = cgb_num(PROG, "--calls", optarg, 1, 10000000); break;
		case 'r': rounds = cgb_num(PROG, "--rounds", optarg, 1, 1000); break;
		case 'C': cpu = cgb_num(PROG, "--cpu", optarg, 0, CPU_SETSIZE - 1); break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (!dev || !mac || !dst || !port || !n || optind < argc)
		return usage(stderr);
	if (netns && cgb_netns_enter(netns)) {
		fprintf(stderr, PROG ": cannot enter netns %s\n", netns);
		return 1;
	}
	ifindex = cgb_dev_mac(dev, a.smac);
	if (ifindex < 0) {
		fprintf(stderr, PROG ": %s: %s\n", dev, strerror(-ifindex));
		return 1;
	}
	/* from a unicast MAC that is not DEV's own: its peer's, as it were */
	a.smac[0] = (a.smac[0] & ~1) | 2;
	a.smac[5] ^= 1;
	if (cpu >= 0 && cgb_pin_cpu(cpu)) {
		fprintf(stderr, PROG ": cannot pin to CPU %d\n", cpu);
		return 1;
	}
	frames = calloc(calls, sizeof(*frames));
	flen = calloc(calls, sizeof(*flen));
	oom = !frames || !flen;
	for (k = 0; k < n; k++) {
		dur[k] = calloc(calls, sizeof(*dur[k]));
		oom |= !dur[k];
	}
	if (oom) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	for (r = 0; r <= (int)rounds; r++) {
		uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(r + 1) * 0x100000001b3ull;
		unsigned long c;

		for (c = 0; c < calls; c++) {
			uint64_t x = cgb_xorshift(&seed);
			uint32_t src = htonl(0xc6120000 | (x & 0x1ffff));

			memcpy(a.src, &src, 4);
			flen[c] = syn_frame(frames[c], &a, SYN_TS, 1024 + (x >> 17) % 64000, port,
					    x >> 32);
		}
		memset(tx, 0, sizeof(tx));
		/*
		 * frame by frame, every program in turn, so that what slows the
		 * machine down slows all alike; in a random order each time: a
		 * program runs tens of ns faster after a responder (the
		 * listener and the lookup's lines still warm) than after the
		 * floor, so a fixed order, even rotated, favours some
		 */
		for (c = 0; c < calls; c++) {
			int order[MAX_PROGS];

			for (k = 0; k < n; k++)
				order[k] = k;
			for (k = n - 1; k > 0; k--) {
				int i = cgb_xorshift(&seed) % (k + 1), t = order[k];

				order[k] = order[i];
				order[i] = t;
			}
			for (k = 0; k < n; k++) {
				int j = order[k];

				if (run_one(&s[j], frames[c], flen[c], ifindex, &dur[j][c], &tx[j]))
					goto out;
			}
		}
		/* round 0 warms every program up and is not reported */
		for (k = 0; r && k < n; k++) {
			uint32_t *d = dur[k];
			double sum = 0;

			qsort(d, calls, sizeof(*d), cmp_u32);
			for (c = calls / 20; c < calls - calls / 20; c++)
				sum += d[c];
			printf("round=%d prog=%s median_ns=%u tmean_ns=%.1f p10_ns=%u p90_ns=%u "
			       "tx=%lu pass=%lu\n", r, s[k].label, d[calls / 2],
			       sum / (calls - 2 * (calls / 20)), d[calls / 10], d[calls * 9 / 10],
			       tx[k], calls - tx[k]);
		}
		fflush(stdout);
	}
	ret = 0;
out:
	free(frames);
	free(flen);
	for (k = 0; k < n; k++)
		free(dur[k]);
	return ret;
}
