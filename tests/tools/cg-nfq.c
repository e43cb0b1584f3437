// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-nfq.c - accept every packet of one nfqueue, in copy-packet mode.
 *
 * Binds queue --queue of the current network namespace over raw netlink
 * (NETLINK_NETFILTER, no libnetfilter_queue), asks for whole packets
 * (NFQNL_COPY_PACKET) and answers NF_ACCEPT to each. Without the GSO flag
 * the kernel completes a CHECKSUM_PARTIAL packet's checksum before it copies
 * it to us: that is the completion site the tests exercise. Prints one line
 * per packet, as copied (so after that completion):
 *
 *   pkt id=N hook=N v4|v6 src=A dst=B len=N
 *
 * then one summary line:
 *
 *   summary packets=N sources=A[,B...]
 *
 * The idle timeout (--timeout) runs from the start and from each packet, so
 * the sender has to start within it once --ready-file exists. A packet still
 * queued when the tool exits is dropped by the kernel.
 *
 * Exit codes: 0 done, 1 netlink error (bind refused, a verdict refused,
 * receive queue overrun), 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>

#define PROG		"cg-nfq"

#include "capture.h"	/* uses PROG */

#define RX_BUF_LEN	(256 * 1024)
#define RCVBUF_BYTES	(8 * 1024 * 1024)
#define COPY_RANGE	0xffff
#define MAX_SOURCES	64

enum {
	EXIT_NETLINK = 1,
	EXIT_USAGE = 2,
};

struct config {
	unsigned int queue;
	bool have_queue;
	unsigned long count;	/* 0: no limit */
	unsigned long timeout;	/* idle ms, 0: none */
	unsigned long max_time;	/* total ms, 0: none */
	const char *ready_file;
};

struct state {
	int fd;
	uint32_t seq;
	unsigned long packets;
	char sources[MAX_SOURCES][INET6_ADDRSTRLEN];
	size_t nsources;
};

static volatile sig_atomic_t stop;

static void usage(void)
{
	printf("usage: " PROG " --queue N [options]\n"
	       "  --count N          stop after N packets\n"
	       "  --timeout MS       stop after MS without a packet (1000, 0: never)\n"
	       "  --max-time MS      stop after MS in total (0: never)\n"
	       "  --ready-file PATH  create PATH once the queue is bound\n");
}

enum {
	OPT_QUEUE = 256, OPT_COUNT, OPT_TIMEOUT, OPT_MAX_TIME, OPT_READY,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "queue",	required_argument, NULL, OPT_QUEUE },
	{ "count",	required_argument, NULL, OPT_COUNT },
	{ "timeout",	required_argument, NULL, OPT_TIMEOUT },
	{ "max-time",	required_argument, NULL, OPT_MAX_TIME },
	{ "ready-file",	required_argument, NULL, OPT_READY },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(struct config *c, int argc, char **argv)
{
	const char *word;
	int opt;

	memset(c, 0, sizeof(*c));
	c->timeout = 1000;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		word = argv[optind - 1];
		switch (opt) {
		case OPT_QUEUE:
			c->queue = parse_num("--queue", optarg, 65535);
			c->have_queue = true;
			break;
		case OPT_COUNT:
			c->count = parse_num("--count", optarg, 100000000);
			break;
		case OPT_TIMEOUT:
			c->timeout = parse_num("--timeout", optarg, 86400000);
			break;
		case OPT_MAX_TIME:
			c->max_time = parse_num("--max-time", optarg, 86400000);
			break;
		case OPT_READY:
			c->ready_file = optarg;
			break;
		case OPT_HELP:
			usage();
			exit(0);
		case ':':
			fprintf(stderr, PROG ": option %s needs a value\n", word);
			exit(EXIT_USAGE);
		default:
			fprintf(stderr, PROG ": unknown option %s\n", word);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		exit(EXIT_USAGE);
	}
	if (!c->have_queue) {
		fprintf(stderr, PROG ": --queue is required\n");
		exit(EXIT_USAGE);
	}
}

/* --- netlink ------------------------------------------------------------ */

struct nlreq {
	struct nlmsghdr nlh;
	struct nfgenmsg nfg;
	char attrs[64];
};

static void nl_start(struct nlreq *r, uint16_t type, uint32_t seq,
		     uint16_t queue)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(sizeof(r->nfg));
	r->nlh.nlmsg_type = NFNL_SUBSYS_QUEUE << 8 | type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->nlh.nlmsg_seq = seq;
	r->nfg.nfgen_family = AF_UNSPEC;
	r->nfg.version = NFNETLINK_V0;
	r->nfg.res_id = htons(queue);
}

static void nl_put(struct nlreq *r, uint16_t type, const void *data,
		   size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int nl_send(struct state *s, struct nlreq *r)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (sendto(s->fd, r, r->nlh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/* Wait for the acknowledgement of request seq; 0 or its negative errno */
static int nl_ack(struct state *s, uint32_t seq)
{
	static char buf[8192];
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	ssize_t n;

	for (;;) {
		n = recv(s->fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_seq != seq)
				continue;
			e = NLMSG_DATA(nlh);
			return e->error;
		}
	}
}

static int configure(struct state *s, const struct config *c, const char *what,
		     struct nlreq *r)
{
	int err;

	err = nl_send(s, r);
	if (!err)
		err = nl_ack(s, r->nlh.nlmsg_seq);
	if (err)
		fprintf(stderr, PROG ": cannot %s queue %u: %s\n", what,
			c->queue, strerror(-err));
	return err;
}

/*
 * Bind the queue and ask for whole packets. No NFQA_CFG_F_GSO: without it
 * the kernel completes partial checksums before the copy.
 */
static int bind_queue(struct state *s, const struct config *c)
{
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
	struct nfqnl_msg_config_params params = {
		.copy_range = htonl(COPY_RANGE),
		.copy_mode = NFQNL_COPY_PACKET,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int rcvbuf = RCVBUF_BYTES;
	struct nlreq r;

	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, PROG ": cannot open a netfilter netlink socket: %s\n",
			strerror(errno));
		return -1;
	}
	/* Best effort: a burst must not overflow the socket */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	nl_start(&r, NFQNL_MSG_CONFIG, ++s->seq, c->queue);
	nl_put(&r, NFQA_CFG_CMD, &cmd, sizeof(cmd));
	if (configure(s, c, "bind", &r))
		return -1;
	nl_start(&r, NFQNL_MSG_CONFIG, ++s->seq, c->queue);
	nl_put(&r, NFQA_CFG_PARAMS, &params, sizeof(params));
	if (configure(s, c, "set copy-packet mode on", &r))
		return -1;
	return 0;
}

static int send_verdict(struct state *s, const struct config *c, uint32_t id)
{
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(NF_ACCEPT),
		.id = htonl(id),
	};
	struct nlreq r;

	nl_start(&r, NFQNL_MSG_VERDICT, ++s->seq, c->queue);
	nl_put(&r, NFQA_VERDICT_HDR, &vh, sizeof(vh));
	return nl_send(s, &r);
}

/* --- packets ------------------------------------------------------------ */

/* Remember the source address, in order of first appearance */
static void note_source(struct state *s, const char *addr)
{
	size_t i;

	for (i = 0; i < s->nsources; i++)
		if (!strcmp(s->sources[i], addr))
			return;
	if (s->nsources < MAX_SOURCES)
		snprintf(s->sources[s->nsources++], INET6_ADDRSTRLEN, "%s", addr);
}

static void report(struct state *s, uint32_t id, unsigned int hook,
		   const uint8_t *p, size_t len)
{
	char src[INET6_ADDRSTRLEN] = "-", dst[INET6_ADDRSTRLEN] = "-";
	const char *v = "?";

	if (len >= 20 && p[0] >> 4 == 4) {
		v = "v4";
		inet_ntop(AF_INET, p + 12, src, sizeof(src));
		inet_ntop(AF_INET, p + 16, dst, sizeof(dst));
	} else if (len >= 40 && p[0] >> 4 == 6) {
		v = "v6";
		inet_ntop(AF_INET6, p + 8, src, sizeof(src));
		inet_ntop(AF_INET6, p + 24, dst, sizeof(dst));
	}
	printf("pkt id=%u hook=%u %s src=%s dst=%s len=%zu\n", id, hook, v,
	       src, dst, len);
	s->packets++;
	note_source(s, src);
}

/* One NFQNL_MSG_PACKET: report it and accept it; 0 or a negative errno */
static int on_packet(struct state *s, const struct config *c,
		     struct nlmsghdr *nlh)
{
	struct nfqnl_msg_packet_hdr *ph = NULL;
	const uint8_t *payload = NULL;
	size_t plen = 0;
	struct nlattr *a;
	int len;

	len = nlh->nlmsg_len - NLMSG_SPACE(sizeof(struct nfgenmsg));
	a = (struct nlattr *)((char *)NLMSG_DATA(nlh) + NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NFQA_PACKET_HDR:
			if (a->nla_len >= NLA_HDRLEN + sizeof(*ph))
				ph = (void *)((char *)a + NLA_HDRLEN);
			break;
		case NFQA_PAYLOAD:
			payload = (uint8_t *)a + NLA_HDRLEN;
			plen = a->nla_len - NLA_HDRLEN;
			break;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	if (!ph)
		return 0;
	report(s, ntohl(ph->packet_id), ph->hook, payload, plen);
	return send_verdict(s, c, ntohl(ph->packet_id));
}

/* Drain the socket; 0, -EAGAIN when empty, or a negative errno */
static int read_msgs(struct state *s, const struct config *c)
{
	static uint8_t buf[RX_BUF_LEN];
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	ssize_t n;
	int err;

	n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n);
	     nlh = NLMSG_NEXT(nlh, n)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			e = NLMSG_DATA(nlh);
			if (e->error) {
				fprintf(stderr, PROG ": the kernel refused a verdict: %s\n",
					strerror(-e->error));
				return e->error;
			}
			continue;
		}
		if (nlh->nlmsg_type != (NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET))
			continue;
		err = on_packet(s, c, nlh);
		if (err)
			return err;
	}
	return 0;
}

/* Accept packets until a limit is reached; 0 or a negative errno */
static int run(struct state *s, const struct config *c)
{
	uint64_t start = now_ms(), last = start;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	unsigned long before;
	int timeout, err;

	while (!stop && !(c->count && s->packets >= c->count)) {
		timeout = wait_ms(c->timeout, c->max_time, start, last);
		if (!timeout)
			break;
		if (poll(&pfd, 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (;;) {
			before = s->packets;
			err = read_msgs(s, c);
			if (err == -EAGAIN)
				break;
			if (err < 0)
				return err;
			if (s->packets != before)
				last = now_ms();
		}
	}
	return 0;
}

static void print_summary(const struct state *s)
{
	size_t i;

	printf("summary packets=%lu sources=", s->packets);
	for (i = 0; i < s->nsources; i++)
		printf("%s%s", i ? "," : "", s->sources[i]);
	printf("%s\n", s->nsources ? "" : "-");
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct state s = { .fd = -1 };
	struct config cfg;
	int err, ret = EXIT_NETLINK;

	parse_args(&cfg, argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
	if (bind_queue(&s, &cfg))
		goto out;
	if (cfg.ready_file && create_ready_file(cfg.ready_file))
		goto out;
	err = run(&s, &cfg);
	print_summary(&s);
	if (err) {
		fprintf(stderr, PROG ": reading queue %u: %s\n", cfg.queue,
			strerror(-err));
		goto out;
	}
	ret = 0;
out:
	if (s.fd >= 0)
		close(s.fd);
	return ret;
}
