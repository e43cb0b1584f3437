// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-sniff.c - report the IP packets that arrive on one interface.
 *
 * Runs in the far network namespace, reads every frame of --dev from an
 * AF_PACKET socket and prints one line per IPv4 or IPv6 packet addressed to
 * --dst (and of protocol --proto, if given):
 *
 *   pkt v4 src=A dst=B proto=N id=N frag_off=N mf=0|1 len=N csum_ok=0|1|-
 *   pkt v6 src=A dst=B nh=N len=N csum_ok=0|1|- [ext=HEX]
 *
 * then one summary line:
 *
 *   summary packets=N datagrams=N partial=N sources=A[,B...] exts=HEX[,HEX...]|-
 *
 * ext (exts: the distinct values, in order of first appearance) is the
 * bytes of the IPv6 extension headers, up to 64, in hex.
 *
 * partial counts the packets the kernel still marked CHECKSUM_PARTIAL when
 * the capture saw them: on a device's ingress that is the state the ingress
 * hooks (tc, netfilter) see next, on the same skb.
 *
 * frag_off is the fragment offset in bytes, len the IP packet length (IPv6:
 * 40 + payload length), nh the upper-layer protocol after any extension
 * headers. csum_ok is the L4 checksum verified over the whole datagram; it
 * is '-' for fragments, for packets whose L4 part is incomplete, for UDP
 * over IPv4 without a checksum, for protocols it does not know and for
 * packets the kernel still marks as partial (TP_STATUS_CSUMNOTREADY: their
 * checksum field holds the pseudo header sum, veth delivers them so).
 *
 * The idle timeout (--timeout) runs from the start and from each matching
 * packet, so the sender has to start within it once --ready-file exists.
 * Frames the interface sends (PACKET_OUTGOING) are skipped unless
 * --outgoing: on the far side of a veth everything arrives as incoming.
 *
 * Exit codes: 0 done, 1 socket or file error, 2 bad arguments.
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
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "csum.h"

#define PROG		"cg-sniff"

#include "capture.h"	/* uses PROG */

#define RX_BUF_LEN	(256 * 1024)
#define RCVBUF_BYTES	(8 * 1024 * 1024)
#define MAX_VLANS	8

enum {
	EXIT_SOCKET = 1,
	EXIT_USAGE = 2,
};

/* csum_ok values */
enum {
	CSUM_BAD = 0,
	CSUM_OK = 1,
	CSUM_UNKNOWN = -1,
};

struct config {
	const char *dev;
	int family;
	uint8_t dst[16];
	int proto;		/* -1: any */
	unsigned long count;	/* 0: no limit */
	unsigned long timeout;	/* idle ms, 0: none */
	unsigned long max_time;	/* total ms, 0: none */
	const char *ready_file;
	const char *bytes_out;
	bool outgoing;
};

/* One IP packet, as parsed from a frame */
struct ippkt {
	int family;
	const uint8_t *src;
	const uint8_t *dst;
	const uint8_t *l4;	/* start of the upper-layer header */
	size_t l4_len;		/* its length according to the IP header */
	bool l4_complete;	/* l4_len bytes were captured */
	unsigned int proto;
	unsigned int id;
	unsigned int frag_off;	/* bytes */
	bool mf;
	bool fragmented;
	unsigned int len;
	const uint8_t *ext;	/* IPv6: the extension headers */
	size_t ext_len;
};

#define EXT_SHOWN	64	/* bytes of extension headers reported */
#define EXTS_MAX	8

struct capture {
	unsigned long packets;
	unsigned long datagrams;
	unsigned long partial;
	char (*sources)[INET6_ADDRSTRLEN];
	size_t nsources;
	char exts[EXTS_MAX][2 * EXT_SHOWN + 1];
	size_t nexts;
	FILE *bytes_out;
};

static volatile sig_atomic_t stop;

static void usage(void)
{
	printf("usage: " PROG " --dev IF --dst ADDR [options]\n"
	       "  --proto N          only this IP protocol (IPv6: upper-layer)\n"
	       "  --count N          stop after N matching packets\n"
	       "  --timeout MS       stop after MS without a matching packet (1000, 0: never)\n"
	       "  --max-time MS      stop after MS in total (0: never)\n"
	       "  --ready-file PATH  create PATH once the socket is bound\n"
	       "  --bytes-out FILE   write the UDP payloads of unfragmented packets\n"
	       "  --outgoing         also report packets the interface sends\n");
}

enum {
	OPT_DEV = 256, OPT_DST, OPT_PROTO, OPT_COUNT, OPT_TIMEOUT, OPT_MAX_TIME,
	OPT_READY, OPT_BYTES_OUT, OPT_OUTGOING, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "dev",	required_argument, NULL, OPT_DEV },
	{ "dst",	required_argument, NULL, OPT_DST },
	{ "proto",	required_argument, NULL, OPT_PROTO },
	{ "count",	required_argument, NULL, OPT_COUNT },
	{ "timeout",	required_argument, NULL, OPT_TIMEOUT },
	{ "max-time",	required_argument, NULL, OPT_MAX_TIME },
	{ "ready-file",	required_argument, NULL, OPT_READY },
	{ "bytes-out",	required_argument, NULL, OPT_BYTES_OUT },
	{ "outgoing",	no_argument,	   NULL, OPT_OUTGOING },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void parse_dst(struct config *c, const char *s)
{
	if (inet_pton(AF_INET, s, c->dst) == 1)
		c->family = AF_INET;
	else if (inet_pton(AF_INET6, s, c->dst) == 1)
		c->family = AF_INET6;
	else
		bad_arg("--dst", s);
}

/* One option into the config; word is the option as typed, for errors */
static void apply_opt(struct config *c, int opt, const char *arg,
		      const char *word)
{
	switch (opt) {
	case OPT_DEV:
		if (!*arg || strlen(arg) >= IFNAMSIZ)
			bad_arg("--dev", arg);
		c->dev = arg;
		break;
	case OPT_DST:
		parse_dst(c, arg);
		break;
	case OPT_PROTO:
		c->proto = parse_num("--proto", arg, 255);
		break;
	case OPT_COUNT:
		c->count = parse_num("--count", arg, 100000000);
		break;
	case OPT_TIMEOUT:
		c->timeout = parse_num("--timeout", arg, 86400000);
		break;
	case OPT_MAX_TIME:
		c->max_time = parse_num("--max-time", arg, 86400000);
		break;
	case OPT_READY:
		c->ready_file = arg;
		break;
	case OPT_BYTES_OUT:
		c->bytes_out = arg;
		break;
	case OPT_OUTGOING:
		c->outgoing = true;
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

static void parse_args(struct config *c, int argc, char **argv)
{
	int opt;

	memset(c, 0, sizeof(*c));
	c->proto = -1;
	c->timeout = 1000;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", long_opts, NULL)) != -1)
		apply_opt(c, opt, optarg, argv[optind - 1]);
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		exit(EXIT_USAGE);
	}
	if (!c->dev || !c->family) {
		fprintf(stderr, PROG ": --dev and --dst are required\n");
		exit(EXIT_USAGE);
	}
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)p[0] << 8 | p[1];
}

static uint64_t pseudo_sum(const struct ippkt *ip, size_t len)
{
	size_t alen = ip->family == AF_INET6 ? 16 : 4;
	uint64_t sum;

	sum = csum_add(0, ip->src, alen);
	sum = csum_add(sum, ip->dst, alen);
	return sum + ip->proto + (len & 0xffff) + (len >> 16);
}

/* Length of the UDP datagram, or 0 when its length field is inconsistent */
static size_t udp_len(const struct ippkt *ip)
{
	size_t len;

	if (ip->l4_len < 8)
		return 0;
	len = get16(ip->l4 + 4);
	if (len < 8 || len > ip->l4_len)
		return 0;
	return len;
}

/*
 * Verify the L4 checksum of a complete, unfragmented packet: a correct
 * packet sums to 0xffff including its checksum field.
 */
static int check_l4(const struct ippkt *ip)
{
	bool v6 = ip->family == AF_INET6;
	size_t len = ip->l4_len;
	uint64_t sum;

	switch (ip->proto) {
	case IPPROTO_UDP:
		len = udp_len(ip);
		if (!len)
			return CSUM_BAD;
		/* Zero means "no checksum", which only IPv4 allows */
		if (!get16(ip->l4 + 6))
			return v6 ? CSUM_BAD : CSUM_UNKNOWN;
		sum = pseudo_sum(ip, len);
		break;
	case IPPROTO_TCP:
		if (len < 20)
			return CSUM_BAD;
		sum = pseudo_sum(ip, len);
		break;
	case IPPROTO_ICMP:
		if (v6 || len < 8)
			return CSUM_UNKNOWN;
		sum = 0;
		break;
	case IPPROTO_ICMPV6:
		if (!v6 || len < 8)
			return CSUM_UNKNOWN;
		sum = pseudo_sum(ip, len);
		break;
	default:
		return CSUM_UNKNOWN;
	}
	return csum_fold(csum_add(sum, ip->l4, len)) == 0xffff ? CSUM_OK : CSUM_BAD;
}

/* An IPv4 header at p, avail bytes captured; false if it is not one */
static bool parse_ipv4(const uint8_t *p, size_t avail, struct ippkt *ip)
{
	size_t hl, tot;
	uint16_t frag;

	if (avail < 20 || p[0] >> 4 != 4)
		return false;
	hl = (p[0] & 0xf) * 4;
	if (hl < 20 || hl > avail)
		return false;
	tot = get16(p + 2);
	frag = get16(p + 6);
	ip->family = AF_INET;
	ip->len = tot;
	ip->id = get16(p + 4);
	ip->mf = frag & 0x2000;
	ip->frag_off = (frag & 0x1fff) * 8;
	ip->fragmented = ip->mf || ip->frag_off;
	ip->proto = p[9];
	ip->src = p + 12;
	ip->dst = p + 16;
	ip->l4 = p + hl;
	ip->l4_len = tot > hl ? tot - hl : 0;
	ip->l4_complete = tot >= hl && tot <= avail;
	return true;
}

static bool ipv6_ext_hdr(unsigned int nh)
{
	return nh == 0 || nh == 43 || nh == 60;	/* hop-by-hop, routing, dest */
}

/*
 * An IPv6 header at p. Walks the extension headers that precede the
 * upper-layer one; a fragment header makes the packet a fragment.
 */
static bool parse_ipv6(const uint8_t *p, size_t avail, struct ippkt *ip)
{
	size_t end, off = 40;
	unsigned int nh;
	uint16_t frag;

	if (avail < 40 || p[0] >> 4 != 6)
		return false;
	ip->family = AF_INET6;
	ip->len = 40 + get16(p + 4);
	ip->src = p + 8;
	ip->dst = p + 24;
	end = ip->len < avail ? ip->len : avail;
	nh = p[6];
	while ((ipv6_ext_hdr(nh) || nh == 44) && off + 8 <= end) {
		if (nh == 44) {
			frag = get16(p + off + 2);
			ip->frag_off = frag & 0xfff8;
			ip->mf = frag & 1;
			ip->fragmented = true;
			nh = p[off];
			off += 8;
			continue;
		}
		nh = p[off];
		off += (p[off + 1] + 1) * 8;
	}
	ip->proto = nh;
	ip->ext = p + 40;
	ip->ext_len = off > end ? end - 40 : off - 40;
	ip->l4 = p + off;
	ip->l4_len = ip->len > off ? ip->len - off : 0;
	ip->l4_complete = ip->len >= off && ip->len <= avail;
	return true;
}

/*
 * Find the IP packet in a frame: skip the Ethernet header and any 802.1Q or
 * 802.1ad tags still in the data (the kernel may already have moved the
 * outer one to the metadata). Devices without a link-layer header (hatype
 * other than Ethernet or loopback) start at the network header.
 */
static bool parse_frame(const uint8_t *p, size_t len, unsigned int hatype,
			uint16_t sll_proto, struct ippkt *ip)
{
	uint16_t type = sll_proto;
	size_t off = 0;
	int tags = 0;

	memset(ip, 0, sizeof(*ip));
	if (hatype == ARPHRD_ETHER || hatype == ARPHRD_LOOPBACK) {
		if (len < ETH_HLEN)
			return false;
		type = get16(p + 12);
		off = ETH_HLEN;
		while ((type == ETH_P_8021Q || type == ETH_P_8021AD) &&
		       tags++ < MAX_VLANS) {
			if (len < off + 4)
				return false;
			type = get16(p + off + 2);
			off += 4;
		}
	}
	if (type == ETH_P_IP)
		return parse_ipv4(p + off, len - off, ip);
	if (type == ETH_P_IPV6)
		return parse_ipv6(p + off, len - off, ip);
	return false;
}

static bool matches(const struct config *c, const struct ippkt *ip)
{
	size_t alen = c->family == AF_INET6 ? 16 : 4;

	if (ip->family != c->family || memcmp(ip->dst, c->dst, alen))
		return false;
	return c->proto < 0 || (unsigned int)c->proto == ip->proto;
}

/* Remember the source address, in order of first appearance */
static int note_source(struct capture *cap, const char *addr)
{
	size_t i;
	void *n;

	for (i = 0; i < cap->nsources; i++)
		if (!strcmp(cap->sources[i], addr))
			return 0;
	n = realloc(cap->sources, (cap->nsources + 1) * sizeof(*cap->sources));
	if (!n)
		return -ENOMEM;
	cap->sources = n;
	snprintf(cap->sources[cap->nsources++], INET6_ADDRSTRLEN, "%s", addr);
	return 0;
}

/* The UDP payload of an unfragmented datagram, for byte-exact checks */
static int save_payload(struct capture *cap, const struct ippkt *ip)
{
	size_t len;

	if (!cap->bytes_out || ip->fragmented || ip->proto != IPPROTO_UDP ||
	    !ip->l4_complete)
		return 0;
	len = udp_len(ip);
	if (len <= 8)
		return 0;
	if (fwrite(ip->l4 + 8, 1, len - 8, cap->bytes_out) != len - 8)
		return -EIO;
	return 0;
}

/* The extension headers in hex, and among the distinct ones seen */
static void note_ext(struct capture *cap, const struct ippkt *ip, char *hex)
{
	size_t i, n = ip->ext_len < EXT_SHOWN ? ip->ext_len : EXT_SHOWN;

	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", ip->ext[i]);
	hex[2 * n] = '\0';
	if (!n)
		return;
	for (i = 0; i < cap->nexts; i++)
		if (!strcmp(cap->exts[i], hex))
			return;
	if (cap->nexts < EXTS_MAX)
		strcpy(cap->exts[cap->nexts++], hex);
}

static int report(struct capture *cap, const struct ippkt *ip, bool partial)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ok[4] = "-";
	char ext[2 * EXT_SHOWN + 1];
	int csum = CSUM_UNKNOWN;

	inet_ntop(ip->family, ip->src, src, sizeof(src));
	inet_ntop(ip->family, ip->dst, dst, sizeof(dst));
	if (!ip->fragmented && ip->l4_complete && !partial)
		csum = check_l4(ip);
	if (csum != CSUM_UNKNOWN)
		snprintf(ok, sizeof(ok), "%d", csum);
	if (ip->family == AF_INET)
		printf("pkt v4 src=%s dst=%s proto=%u id=%u frag_off=%u mf=%d len=%u csum_ok=%s\n",
		       src, dst, ip->proto, ip->id, ip->frag_off, ip->mf,
		       ip->len, ok);
	else {
		note_ext(cap, ip, ext);
		printf("pkt v6 src=%s dst=%s nh=%u len=%u csum_ok=%s%s%s\n",
		       src, dst, ip->proto, ip->len, ok, *ext ? " ext=" : "", ext);
	}
	cap->packets++;
	if (partial)
		cap->partial++;
	if (!ip->frag_off)
		cap->datagrams++;
	if (note_source(cap, src))
		return -ENOMEM;
	return save_payload(cap, ip);
}

/* Is the kernel still to complete this packet's checksum? */
static bool csum_not_ready(struct msghdr *msg)
{
	struct tpacket_auxdata *aux;
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_PACKET ||
		    cm->cmsg_type != PACKET_AUXDATA ||
		    cm->cmsg_len < CMSG_LEN(sizeof(*aux)))
			continue;
		aux = (struct tpacket_auxdata *)CMSG_DATA(cm);
		return aux->tp_status & TP_STATUS_CSUMNOTREADY;
	}
	return false;
}

/*
 * Read one frame; returns 1 if it matched, 0 if not, -EAGAIN when the
 * queue is empty, another negative errno on failure.
 */
static int read_frame(int fd, const struct config *c, struct capture *cap)
{
	static uint8_t buf[RX_BUF_LEN];
	char cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct sockaddr_ll sll;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_name = &sll, .msg_namelen = sizeof(sll),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct ippkt ip;
	ssize_t n;
	int err;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (sll.sll_pkttype == PACKET_OUTGOING && !c->outgoing)
		return 0;
	if (!parse_frame(buf, n, sll.sll_hatype, ntohs(sll.sll_protocol), &ip) ||
	    !matches(c, &ip))
		return 0;
	err = report(cap, &ip, csum_not_ready(&msg));
	return err ? err : 1;
}

/*
 * The socket starts with protocol 0 so that it queues nothing until bind()
 * has tied it to the one interface; then ETH_P_ALL takes every frame of it,
 * whatever its packet type.
 */
static int open_socket(const struct config *c)
{
	struct sockaddr_ll sll;
	int fd, one = 1, rcvbuf = RCVBUF_BYTES;
	unsigned int ifindex;

	ifindex = if_nametoindex(c->dev);
	if (!ifindex) {
		fprintf(stderr, PROG ": cannot find %s: %s\n", c->dev,
			strerror(ENODEV));
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0)
		goto fail_close;
	/* Best effort: a burst must not overflow the queue */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto fail_close;
	return fd;

fail_close:
	close(fd);
fail:
	fprintf(stderr, PROG ": cannot open a packet socket on %s: %s\n",
		c->dev, strerror(errno));
	return -1;
}

/* Read matching packets until a limit is reached; 0 or a negative errno */
static int capture(int fd, const struct config *c, struct capture *cap)
{
	uint64_t start = now_ms(), last = start;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int timeout, err;

	while (!stop && !(c->count && cap->packets >= c->count)) {
		timeout = wait_ms(c->timeout, c->max_time, start, last);
		if (!timeout)
			break;
		if (poll(&pfd, 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (!(c->count && cap->packets >= c->count)) {
			err = read_frame(fd, c, cap);
			if (err == -EAGAIN)
				break;
			if (err < 0)
				return err;
			if (err)
				last = now_ms();
		}
	}
	return 0;
}

static void print_summary(const struct capture *cap)
{
	size_t i;

	printf("summary packets=%lu datagrams=%lu partial=%lu sources=", cap->packets,
	       cap->datagrams, cap->partial);
	for (i = 0; i < cap->nsources; i++)
		printf("%s%s", i ? "," : "", cap->sources[i]);
	printf("%s exts=", cap->nsources ? "" : "-");
	for (i = 0; i < cap->nexts; i++)
		printf("%s%s", i ? "," : "", cap->exts[i]);
	printf("%s\n", cap->nexts ? "" : "-");
}

/* A dropped frame may have been a matching one: say so on stderr */
static void warn_drops(int fd, const char *dev)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0 &&
	    st.tp_drops)
		fprintf(stderr, PROG ": %s: the socket dropped %u frames\n",
			dev, st.tp_drops);
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
	struct capture cap = { 0 };
	struct config cfg;
	int fd, err, ret = EXIT_SOCKET;

	parse_args(&cfg, argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
	if (cfg.bytes_out) {
		cap.bytes_out = fopen(cfg.bytes_out, "wbe");
		if (!cap.bytes_out) {
			fprintf(stderr, PROG ": cannot create %s: %s\n",
				cfg.bytes_out, strerror(errno));
			return EXIT_SOCKET;
		}
	}
	fd = open_socket(&cfg);
	if (fd < 0)
		goto out_file;
	if (cfg.ready_file && create_ready_file(cfg.ready_file))
		goto out_close;
	err = capture(fd, &cfg, &cap);
	print_summary(&cap);
	warn_drops(fd, cfg.dev);
	if (err) {
		fprintf(stderr, PROG ": reading from %s: %s\n", cfg.dev,
			strerror(-err));
		goto out_close;
	}
	ret = 0;
out_close:
	close(fd);
out_file:
	if (cap.bytes_out && fclose(cap.bytes_out) && !ret) {
		fprintf(stderr, PROG ": writing %s: %s\n", cfg.bytes_out,
			strerror(errno));
		ret = EXIT_SOCKET;
	}
	free(cap.sources);
	return ret;
}
