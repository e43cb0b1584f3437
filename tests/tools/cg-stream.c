// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-stream.c - legitimate traffic whose every byte the receiver checks.
 *
 *   cg-stream --listen ADDR  [--port P] [--bytes N] [--ready-file F] [common]
 *   cg-stream --connect ADDR [--port P] --bytes N [common]
 *   cg-stream --listen ADDR  --udp --count N [--flows F] [--ready-file F] [common]
 *   cg-stream --connect ADDR --udp --count N [--flows F] [--size S] [common]
 *   common: [--netns NS] [--seed N] [--timeout S]
 *
 * TCP: the connector writes N bytes of a pseudo-random stream fixed by the
 * seed and closes; the listener accepts one connection, reads to EOF and
 * compares every byte with the same stream. It prints
 *
 *   tcp bytes=B seconds=S mbps=M bad=X first_bad=OFF|-
 *
 * (M in 10^6 bytes per second from the first byte to EOF).
 *
 * UDP: F flows, on ports P .. P+F-1, one socket each on either side. Each
 * datagram carries a header (magic, flow, sequence number, length) and a
 * payload drawn from the stream of (seed, flow, seq); its length, 16 to S
 * bytes, is drawn from the same. The listener checks each one and counts
 * losses, duplicates, bad datagrams and reordering; every few datagrams it
 * tells the sender how many it has received, and the sender keeps at most
 * --window datagrams per flow unacknowledged, so a slow receiver makes the
 * sender wait instead of overflowing its socket. It prints
 *
 *   udp flows=F datagrams=D bytes=B lost=L dup=U bad=X reordered=R seconds=S
 *
 * The connector prints "tcp sent=B ..." or "udp flows=F sent=D ...".
 * Both sides give up after --timeout seconds without progress.
 *
 * Exit codes: 0 all verified, 1 socket error or timeout, 2 bad arguments,
 * 3 the data did not verify (bad bytes, wrong length, lost, duplicated or
 * bad datagrams).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "util.h"

#define PROG		"cg-stream"

#define BUF_LEN		(256 * 1024)
#define CONNECT_TRIES	500		/* 10 ms apart */
#define MAX_FLOWS	64
#define UDP_HDR_LEN	16
#define UDP_MAX		65000
#define MAGIC_DATA	0x43475344	/* "CGSD" */
#define MAGIC_ACK	0x43475341	/* "CGSA" */
#define RCVBUF_BYTES	(4 * 1024 * 1024)
#define GOLDEN		0x9e3779b97f4a7c15ull

enum {
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_VERIFY = 3,
};

struct config {
	bool listen;
	const char *addr;
	const char *netns;
	const char *ready_file;
	unsigned long port;
	unsigned long seed;
	unsigned long timeout;
	bool udp;
	bool have_bytes;
	unsigned long long bytes;
	unsigned long count;
	unsigned long flows;
	unsigned long size;
	unsigned long window;
};

static uint8_t buf[BUF_LEN], want[BUF_LEN];

/* splitmix64's output function: a good 64-bit mix, cheap */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * len bytes at offset off of the stream of key: word i of the stream is
 * mix64(key + (i + 1) * GOLDEN), little-endian, so any slice can be made
 * without the bytes before it.
 */
static void stream_fill(uint8_t *p, uint64_t key, uint64_t off, size_t len)
{
	uint64_t i = off / 8, w;
	size_t skip = off % 8, n;

	/* the tail of a word, whole words, the head of a word */
	while (len) {
		w = htole64(mix64(key + (i + 1) * GOLDEN));
		n = 8 - skip < len ? 8 - skip : len;
		memcpy(p, (uint8_t *)&w + skip, n);
		p += n;
		len -= n;
		i++;
		for (; len >= 8; p += 8, len -= 8, i++) {
			w = htole64(mix64(key + (i + 1) * GOLDEN));
			memcpy(p, &w, 8);
		}
		skip = 0;
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static double seconds(uint64_t ns)
{
	return ns / 1e9;
}

/* Receive and send time out after the configured idle time */
static int set_timeouts(int fd, unsigned long s)
{
	struct timeval tv = { .tv_sec = s };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

static int ready(const struct config *c)
{
	int fd;

	if (!c->ready_file)
		return 0;
	fd = open(c->ready_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot create %s: %m\n", c->ready_file);
		return -1;
	}
	close(fd);
	return 0;
}

/* Wait for the one connection; the listening socket is closed either way */
static int accept_one(const struct config *c, int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int fd, n;

	n = poll(&pfd, 1, c->timeout * 1000);
	fd = n > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
	if (fd < 0)
		fprintf(stderr, PROG ": no connection within %lus%s%s\n", c->timeout,
			n > 0 ? ": " : "", n > 0 ? strerror(errno) : "");
	close(lfd);
	return fd;
}

/* Bytes of a that differ from b; *first gets the first such index */
static size_t count_bad(const uint8_t *a, const uint8_t *b, size_t len,
			size_t *first)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++) {
		if (a[i] == b[i])
			continue;
		if (!bad)
			*first = i;
		bad++;
	}
	return bad;
}

static int tcp_listen(const struct config *c)
{
	uint64_t off = 0, bad = 0, first_bad = UINT64_MAX, t0 = 0, t1;
	size_t first = 0;
	ssize_t n;
	int fd;

	fd = cgb_listen(SOCK_STREAM, c->addr, c->port);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot listen on %s port %lu: %s\n",
			c->addr, c->port, strerror(-fd));
		return EXIT_FAIL;
	}
	if (ready(c)) {
		close(fd);
		return EXIT_FAIL;
	}
	fd = accept_one(c, fd);
	if (fd < 0 || set_timeouts(fd, c->timeout))
		return EXIT_FAIL;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": read after %llu bytes: %m\n",
				(unsigned long long)off);
			close(fd);
			return EXIT_FAIL;
		}
		if (!n)
			break;
		if (!off)
			t0 = cgb_clock_ns(CLOCK_MONOTONIC);
		stream_fill(want, c->seed, off, n);
		if (memcmp(buf, want, n)) {
			bad += count_bad(buf, want, n, &first);
			if (first_bad == UINT64_MAX)
				first_bad = off + first;
		}
		off += n;
	}
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	close(fd);
	printf("tcp bytes=%llu seconds=%.3f mbps=%.1f bad=%llu first_bad=",
	       (unsigned long long)off, seconds(t1 - t0),
	       off && t1 > t0 ? off / 1e6 / seconds(t1 - t0) : 0,
	       (unsigned long long)bad);
	if (first_bad == UINT64_MAX)
		printf("-\n");
	else
		printf("%llu\n", (unsigned long long)first_bad);
	if (c->have_bytes && off != c->bytes) {
		fprintf(stderr, PROG ": received %llu bytes, want %llu\n",
			(unsigned long long)off, c->bytes);
		return EXIT_VERIFY;
	}
	return bad ? EXIT_VERIFY : 0;
}

static int tcp_connect(const struct config *c)
{
	uint64_t off = 0, t0;
	size_t len, done;
	ssize_t n;
	int fd;

	fd = cgb_connect(SOCK_STREAM, c->addr, c->port, CONNECT_TRIES);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot connect to %s port %lu: %s\n",
			c->addr, c->port, strerror(-fd));
		return EXIT_FAIL;
	}
	if (set_timeouts(fd, c->timeout)) {
		close(fd);
		return EXIT_FAIL;
	}
	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	while (off < c->bytes) {
		len = c->bytes - off < BUF_LEN ? c->bytes - off : BUF_LEN;
		stream_fill(buf, c->seed, off, len);
		for (done = 0; done < len; done += n) {
			n = write(fd, buf + done, len - done);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n < 0) {
				fprintf(stderr, PROG ": write after %llu bytes: %m\n",
					(unsigned long long)(off + done));
				close(fd);
				return EXIT_FAIL;
			}
		}
		off += len;
	}
	/* close() returns before the peer has read: its line is the result */
	close(fd);
	printf("tcp sent=%llu seconds=%.3f\n", (unsigned long long)off,
	       seconds(cgb_clock_ns(CLOCK_MONOTONIC) - t0));
	return 0;
}

/* --- UDP ----------------------------------------------------------- */

struct flow {
	int fd;
	uint32_t sent;		/* connector: datagrams written */
	uint32_t acked;		/* connector: datagrams the listener has */
	uint32_t received;	/* listener: distinct good datagrams */
	uint32_t next;		/* listener: the seq that would be in order */
	uint8_t *seen;		/* listener: one byte per seq */
	struct sockaddr_storage peer;
	socklen_t peer_len;
};

static struct flow flows[MAX_FLOWS];

static uint64_t dgram_key(const struct config *c, uint32_t flow, uint32_t seq)
{
	return mix64(c->seed ^ ((uint64_t)flow << 32 | seq));
}

/* Header and payload of datagram seq of flow; its length */
static size_t dgram_build(const struct config *c, uint8_t *p, uint32_t flow,
			  uint32_t seq)
{
	uint64_t key = dgram_key(c, flow, seq);
	size_t len = UDP_HDR_LEN + mix64(key) % (c->size - UDP_HDR_LEN + 1);

	put32(p, MAGIC_DATA);
	put32(p + 4, flow);
	put32(p + 8, seq);
	put32(p + 12, len);
	stream_fill(p + UDP_HDR_LEN, key, 0, len - UDP_HDR_LEN);
	return len;
}

static int udp_sockets(const struct config *c, bool listen)
{
	int rcvbuf = RCVBUF_BYTES;
	unsigned long i;
	int fd;

	for (i = 0; i < c->flows; i++) {
		if (listen)
			fd = cgb_listen(SOCK_DGRAM, c->addr, c->port + i);
		else
			fd = cgb_connect(SOCK_DGRAM, c->addr, c->port + i, 1);
		if (fd < 0) {
			fprintf(stderr, PROG ": cannot %s %s port %lu: %s\n",
				listen ? "bind to" : "connect to", c->addr,
				c->port + i, strerror(-fd));
			return -1;
		}
		/* Best effort: the window keeps the queue short anyway */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		flows[i].fd = fd;
		if (listen) {
			flows[i].seen = calloc(c->count ? c->count : 1, 1);
			if (!flows[i].seen) {
				fprintf(stderr, PROG ": out of memory\n");
				return -1;
			}
		}
	}
	return 0;
}

static void udp_close(const struct config *c)
{
	unsigned long i;

	for (i = 0; i < c->flows; i++) {
		if (flows[i].fd > 0)
			close(flows[i].fd);
		free(flows[i].seen);
	}
}

static unsigned long ack_every(const struct config *c)
{
	return c->window / 4 ? c->window / 4 : 1;
}

struct udp_stats {
	uint64_t datagrams, bytes, dup, bad, reordered;
};

/*
 * One datagram on flow f: check it, count it, and say how many this flow
 * has when it is time to.
 */
static void udp_take(const struct config *c, uint32_t f, const uint8_t *p,
		     size_t len, struct udp_stats *st)
{
	struct flow *fl = &flows[f];
	uint32_t seq = get32(p + 8);
	uint8_t ack[12];

	if (len < UDP_HDR_LEN || get32(p) != MAGIC_DATA || get32(p + 4) != f ||
	    seq >= c->count || get32(p + 12) != len ||
	    dgram_build(c, want, f, seq) != len || memcmp(p, want, len)) {
		st->bad++;
		return;
	}
	if (fl->seen[seq]) {
		st->dup++;
		return;
	}
	fl->seen[seq] = 1;
	if (seq != fl->next)
		st->reordered++;
	fl->next = seq + 1;
	fl->received++;
	st->datagrams++;
	st->bytes += len;
	if (fl->received % ack_every(c) && fl->received != c->count)
		return;
	put32(ack, MAGIC_ACK);
	put32(ack + 4, f);
	put32(ack + 8, fl->received);
	/* A lost ack is made good by the next one: it carries the total */
	sendto(fl->fd, ack, sizeof(ack), MSG_DONTWAIT,
	       (struct sockaddr *)&fl->peer, fl->peer_len);
}

static int udp_listen(const struct config *c)
{
	struct pollfd pfd[MAX_FLOWS];
	struct udp_stats st = { 0 };
	uint64_t t0 = 0, t1, want_all = (uint64_t)c->count * c->flows;
	unsigned long i;
	struct flow *fl;
	ssize_t n;
	int ret = EXIT_FAIL;

	if (udp_sockets(c, true) || ready(c))
		goto out;
	for (i = 0; i < c->flows; i++)
		pfd[i] = (struct pollfd){ .fd = flows[i].fd, .events = POLLIN };
	while (st.datagrams < want_all) {
		n = poll(pfd, c->flows, c->timeout * 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": poll: %m\n");
			goto out;
		}
		if (!n)
			break;		/* idle: what is missing is lost */
		for (i = 0; i < c->flows; i++) {
			fl = &flows[i];
			if (!(pfd[i].revents & POLLIN))
				continue;
			for (;;) {
				fl->peer_len = sizeof(fl->peer);
				n = recvfrom(fl->fd, buf, sizeof(buf), MSG_DONTWAIT,
					     (struct sockaddr *)&fl->peer, &fl->peer_len);
				if (n < 0)
					break;
				if (!t0)
					t0 = cgb_clock_ns(CLOCK_MONOTONIC);
				udp_take(c, i, buf, n, &st);
			}
			if (errno != EAGAIN && errno != EINTR) {
				fprintf(stderr, PROG ": recvfrom port %lu: %m\n",
					c->port + i);
				goto out;
			}
		}
	}
	t1 = cgb_clock_ns(CLOCK_MONOTONIC);
	printf("udp flows=%lu datagrams=%llu bytes=%llu lost=%llu dup=%llu bad=%llu "
	       "reordered=%llu seconds=%.3f\n", c->flows,
	       (unsigned long long)st.datagrams, (unsigned long long)st.bytes,
	       (unsigned long long)(want_all - st.datagrams),
	       (unsigned long long)st.dup, (unsigned long long)st.bad,
	       (unsigned long long)st.reordered, t0 ? seconds(t1 - t0) : 0);
	ret = st.datagrams == want_all && !st.dup && !st.bad ? 0 : EXIT_VERIFY;
out:
	udp_close(c);
	return ret;
}

/* Read the acks waiting on every flow; 0 or -errno */
static int udp_acks(const struct config *c)
{
	unsigned long i;
	uint8_t ack[16];
	uint32_t got;
	ssize_t n;

	for (i = 0; i < c->flows; i++) {
		while ((n = recv(flows[i].fd, ack, sizeof(ack), MSG_DONTWAIT)) >= 0) {
			if (n != 12 || get32(ack) != MAGIC_ACK || get32(ack + 4) != i)
				continue;
			got = get32(ack + 8);
			if (got > flows[i].acked && got <= flows[i].sent)
				flows[i].acked = got;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return 0;
}

static int udp_connect(const struct config *c)
{
	struct pollfd pfd[MAX_FLOWS];
	uint64_t t0, bytes = 0, sent = 0;
	unsigned long i, burst;
	bool waiting, done;
	struct flow *fl;
	size_t len;
	int ret = EXIT_FAIL, n, err;

	if (udp_sockets(c, false))
		goto out;
	for (i = 0; i < c->flows; i++)
		pfd[i] = (struct pollfd){ .fd = flows[i].fd, .events = POLLIN };
	t0 = cgb_clock_ns(CLOCK_MONOTONIC);
	for (;;) {
		/* A few datagrams of each flow in turn, as far as its window goes */
		done = true;
		waiting = true;
		for (i = 0; i < c->flows; i++) {
			fl = &flows[i];
			for (burst = 0; burst < 8 && fl->sent < c->count &&
			     fl->sent - fl->acked < c->window; burst++) {
				len = dgram_build(c, buf, i, fl->sent);
				if (send(fl->fd, buf, len, 0) != (ssize_t)len) {
					fprintf(stderr, PROG ": send on flow %lu: %m\n", i);
					goto out;
				}
				fl->sent++;
				sent++;
				bytes += len;
			}
			if (fl->sent < c->count && fl->sent - fl->acked < c->window)
				waiting = false;
			if (fl->acked < c->count)
				done = false;
		}
		if (done)
			break;
		/* Nothing more may go until an ack comes: wait for one */
		n = poll(pfd, c->flows, waiting ? c->timeout * 1000 : 0);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %m\n");
			goto out;
		}
		if (!n && waiting) {
			fprintf(stderr, PROG ": no ack for %lus:", c->timeout);
			for (i = 0; i < c->flows; i++)
				fprintf(stderr, " flow %lu sent %u acked %u%s", i,
					flows[i].sent, flows[i].acked,
					i + 1 < c->flows ? "," : "\n");
			goto out;
		}
		err = udp_acks(c);
		if (err) {
			fprintf(stderr, PROG ": reading acks: %s\n", strerror(-err));
			goto out;
		}
	}
	printf("udp flows=%lu sent=%llu bytes=%llu seconds=%.3f\n", c->flows,
	       (unsigned long long)sent, (unsigned long long)bytes,
	       seconds(cgb_clock_ns(CLOCK_MONOTONIC) - t0));
	ret = 0;
out:
	udp_close(c);
	return ret;
}

/* --- command line -------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --listen ADDR | --connect ADDR [options]\n"
		"  --port P         TCP port, or the first UDP port (5300)\n"
		"  --bytes N        TCP: bytes to send; the listener wants exactly N\n"
		"  --udp            UDP flows instead of one TCP connection\n"
		"  --count N        UDP: datagrams per flow\n"
		"  --flows N        UDP: flows, on ports P..P+N-1 (4)\n"
		"  --size N         UDP: largest datagram, 16..%d bytes (1400)\n"
		"  --window N       UDP: datagrams in flight per flow (64)\n"
		"  --seed N         seed of the pseudo-random data (1)\n"
		"  --netns NS       enter this network namespace first\n"
		"  --ready-file F   listener: create F once listening\n"
		"  --timeout S      give up after S seconds without progress (30)\n",
		UDP_MAX);
}

static void parse_args(struct config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "connect", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "udp", no_argument, NULL, 'u' },
		{ "count", required_argument, NULL, 'n' },
		{ "flows", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 'S' },
		{ "netns", required_argument, NULL, 'N' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt, roles = 0;

	*c = (struct config){ .port = 5300, .seed = 1, .timeout = 30,
			      .flows = 4, .size = 1400, .window = 64 };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
		case 'c':
			c->listen = opt == 'l';
			c->addr = optarg;
			roles++;
			break;
		case 'p':
			c->port = cgb_num(PROG, "--port", optarg, 1, 65535);
			break;
		case 'b':
			c->bytes = cgb_num(PROG, "--bytes", optarg, 0, 1ul << 40);
			c->have_bytes = true;
			break;
		case 'u':
			c->udp = true;
			break;
		case 'n':
			c->count = cgb_num(PROG, "--count", optarg, 1, 10000000);
			break;
		case 'f':
			c->flows = cgb_num(PROG, "--flows", optarg, 1, MAX_FLOWS);
			break;
		case 's':
			c->size = cgb_num(PROG, "--size", optarg, UDP_HDR_LEN, UDP_MAX);
			break;
		case 'w':
			c->window = cgb_num(PROG, "--window", optarg, 1, 100000);
			break;
		case 'S':
			c->seed = cgb_num(PROG, "--seed", optarg, 0, ~0ul);
			break;
		case 'N':
			c->netns = optarg;
			break;
		case 'r':
			c->ready_file = optarg;
			break;
		case 't':
			c->timeout = cgb_num(PROG, "--timeout", optarg, 1, 3600);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc || roles != 1 || (c->udp && !c->count) ||
	    (!c->udp && !c->listen && !c->have_bytes) ||
	    c->port + (c->udp ? c->flows : 1) > 65536) {
		usage(stderr);
		exit(EXIT_USAGE);
	}
}

int main(int argc, char **argv)
{
	struct config c;
	int err;

	parse_args(&c, argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (c.netns) {
		err = cgb_netns_enter(c.netns);
		if (err) {
			fprintf(stderr, PROG ": cannot enter netns %s: %s\n", c.netns,
				strerror(-err));
			return EXIT_FAIL;
		}
	}
	if (c.udp)
		return c.listen ? udp_listen(&c) : udp_connect(&c);
	return c.listen ? tcp_listen(&c) : tcp_connect(&c);
}
