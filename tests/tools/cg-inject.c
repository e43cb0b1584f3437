// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cg-inject.c - play a guest that controls its virtio_net_hdr.
 *
 * Attaches to an existing tap (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR) and writes
 * COUNT frames: virtio_net_hdr + Ethernet + [VLAN tags] + IPv4 or IPv6 +
 * UDP (or TCP for TCP GSO) + a fixed payload pattern. Every field the guard
 * cares about (csum_start, csum_offset, IHL, total length, GSO) can be set
 * from the command line, so the tests can send both legitimate offloaded
 * packets and the bad ones.
 *
 * The tap must exist already (ip tuntap add dev tap0 mode tap vnet_hdr) and
 * the tool must run in its network namespace. TUNSETIFF on a name that does
 * not exist would create a transient tap, so the name is looked up first.
 *
 * With --sweep CLASS it instead writes, from one process, every vector of a
 * fixed set (IHLs, csum_starts, offsets, odd lengths, other ethertypes,
 * VLAN tags) whose verdict, as predicted from the frame bytes by its own
 * oracle, is CLASS; see "the sweep" below.
 *
 * A macvtap or ipvtap --dev is written through its character device,
 * /dev/tapIFINDEX (made from sysfs where no udev made it): the frames then
 * leave through the device's transmit path, as a libvirt "direct" guest's do.
 *
 * With --encap vxlan|geneve|gre|ipip the frame built as above becomes the
 * inner frame of that encapsulation (gre and ipip carry it from the IP
 * header on; ipip of IPv6 is sit), sent from --outer-src to --outer-dst:
 * a guest talking to a tunnel endpoint on the host. --csum-start still
 * counts from the outer Ethernet header.
 *
 * With --packet the same virtio_net_hdr + frame goes to an AF_PACKET socket
 * with PACKET_VNET_HDR bound to --dev instead: a sender on the host itself,
 * whose frames leave through the device's transmit path and never enter
 * it. --qdisc-bypass sets PACKET_QDISC_BYPASS on that socket.
 *
 * Exit codes: 0 all frames written, 1 set-up failed (no such tap, tap down,
 * ioctl error), 2 bad arguments, 3 write() failed (the kernel refused the
 * frame; with --sweep only an error other than EINVAL), 4 --packet only:
 * every frame was taken, but the transmit path dropped some (ENOBUFS: a tc
 * or netfilter egress hook, a full queue).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#include "csum.h"

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif

#define PROG		"cg-inject"

#define ETH_HDR_LEN	14
#define VLAN_TAG_LEN	4
#define IPV4_HDR_LEN	20
#define IPV6_HDR_LEN	40
#define UDP_HDR_LEN	8
#define TCP_HDR_LEN	20
#define MAX_VLANS	8
#define MAX_VNET_SZ	64
#define MAX_EXT6	10
#define MAX_FRAME	(ETH_HDR_LEN + MAX_VLANS * VLAN_TAG_LEN + 70000)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86dd
#define TPID_8021Q	0x8100
#define TPID_8021AD	0x88a8

enum {
	EXIT_SETUP = 1,
	EXIT_USAGE = 2,
	EXIT_WRITE = 3,
	EXIT_TX_DROP = 4,
};

/* What the command line asked for */
struct config {
	const char *dev;
	unsigned long count;
	unsigned long payload;
	const char *src;
	const char *dst;
	uint8_t dmac[6];
	bool have_dmac;
	uint8_t smac[6];
	long csum_start;	/* -1: start of the L4 header */
	long csum_offset;	/* -1: the L4 checksum field */
	bool no_csum;
	unsigned int ihl;
	long tot_len;		/* -1: computed */
	long ihl_field;		/* -1: ihl; else the IHL nibble as sent */
	long truncate;		/* -1: whole frame */
	long ethertype;		/* -1: IPv4 or IPv6 */
	uint16_t vlans[MAX_VLANS];
	unsigned int nvlans;
	uint16_t vlan_proto;
	bool ipv6;
	uint8_t ext6[MAX_EXT6];	/* IPv6 extension headers, in order */
	unsigned int next6;
	uint8_t gso_type;
	unsigned long gso_size;
	long hdr_len;		/* -1: computed */
	uint16_t sport;
	uint16_t dport;
	unsigned int vnet_sz;
	bool verbose;
	int sweep;		/* -1: no sweep; else a sweep_class */
	bool list;		/* --sweep: print each vector */
	bool packet;		/* AF_PACKET socket instead of a tap */
	bool l3;		/* DEV is a tun (IFF_TUN): frames go without
				 * their Ethernet header (found by open_tap) */
	bool qdisc_bypass;	/* PACKET_QDISC_BYPASS on it */
	int encap;		/* ENCAP_* */
	uint32_t vni;
	const char *outer_src;
	const char *outer_dst;
	uint8_t inner_dmac[6];
};

/* --encap: what carries the frame to a tunnel endpoint */
enum { ENCAP_NONE, ENCAP_VXLAN, ENCAP_GENEVE, ENCAP_GRE, ENCAP_IPIP };
static const char *const encap_names[] = { "none", "vxlan", "geneve", "gre", "ipip" };
#define VXLAN_PORT	4789
#define GENEVE_PORT	6081
#define ETH_P_TEB	0x6558	/* transparent Ethernet bridging */

/* Where the headers of the frame being built start and end */
struct layout {
	size_t l2_len;		/* Ethernet header and VLAN tags */
	size_t l3_len;		/* IP header, with options */
	size_t l4_len;		/* UDP or TCP header */
	size_t len;		/* whole frame, from the Ethernet header */
	uint8_t l4_proto;	/* IPPROTO_UDP, IPPROTO_TCP or 0 (raw) */
	uint8_t saddr[16];
	uint8_t daddr[16];
};

static uint8_t pkt[MAX_VNET_SZ + MAX_FRAME];

static void usage(void)
{
	printf("usage: " PROG " --dev TAP [options]\n"
	       "  --count N            frames to write (1)\n"
	       "  --payload N          UDP/TCP payload bytes (1000)\n"
	       "  --src ADDR --dst ADDR  (10.0.0.2 -> 10.1.0.2, IPv6 fd00::2 -> fd01::2)\n"
	       "  --smac MAC --dmac MAC  (52:54:00:12:34:56 -> the tap's own MAC)\n"
	       "  --csum-start N       NEEDS_CSUM at N bytes from the Ethernet header\n"
	       "  --csum-offset N      csum_offset (6 for UDP, 16 for TCP)\n"
	       "  --no-csum            flags=0, L4 checksum computed in software\n"
	       "  --ihl N              IPv4 header length in words, 5..15 (5)\n"
	       "  --ihl-field N        write IHL N (0..15) but lay the header out as --ihl\n"
	       "  --tot-len N          IPv4 total length (IPv6: payload length)\n"
	       "  --truncate N         cut the frame after N bytes\n"
	       "  --ethertype HEX      send the payload under a non-IP ethertype\n"
	       "  --vlan ID            add a VLAN tag, outermost first (repeatable)\n"
	       "  --vlan-proto 8100|88a8  TPID of the outer tag (8100)\n"
	       "  --ipv6               IPv6 instead of IPv4\n"
	       "  --ext6 LIST          IPv6 extension headers after the fixed header, in order\n"
	       "                       (implies --ipv6): hbh (8 bytes), srh (a routing header,\n"
	       "                       type 4, segments fd77:1::99 and fd77:1::98, 40 bytes),\n"
	       "                       frag (8), ah (24), dst (16)\n"
	       "  --gso none|tcpv4|udp_l4|tcpv6  virtio_net_hdr gso_type (none)\n"
	       "  --gso-size N         gso_size (500 when --gso is set)\n"
	       "  --hdr-len N          override virtio_net_hdr hdr_len\n"
	       "  --sport N --dport N  L4 ports (4000 -> 5000)\n"
	       "  --vnet-hdr-sz N      10 (virtio_net_hdr), 12 (mrg_rxbuf layout), up to 64\n"
	       "  --verbose            describe what is written\n"
	       "  --sweep drop|unreadable|pass|all  write every sweep vector the oracle\n"
	       "                       expects to get that verdict, then a summary line;\n"
	       "                       only --dev, --dmac (default 02:00:00:00:00:01, not\n"
	       "                       the tap's), --smac and --vnet-hdr-sz apply\n"
	       "  --list               with --sweep: print each vector (no --dev: only that)\n"
	       "  --packet             send from an AF_PACKET socket (PACKET_VNET_HDR) on DEV\n"
	       "                       instead of writing to a tap\n"
	       "  --qdisc-bypass       with --packet: set PACKET_QDISC_BYPASS\n"
	       "  --encap vxlan|geneve|gre|ipip  send the frame inside that encapsulation\n"
	       "  --vni N              VXLAN/Geneve network identifier (42)\n"
	       "  --outer-src ADDR --outer-dst ADDR  the tunnel's IPv4 ends (10.0.0.2 -> 10.0.0.1)\n"
	       "  --inner-dmac MAC     vxlan, geneve: the inner frame's destination MAC\n");
}

static void __attribute__((noreturn)) bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": bad value for %s: '%s'\n", opt, val);
	exit(EXIT_USAGE);
}

/* getopt_long found an unknown option, or one without its value */
static void __attribute__((noreturn)) bad_option(int opt, const char *word)
{
	if (opt == ':')
		fprintf(stderr, PROG ": option %s needs a value\n", word);
	else
		fprintf(stderr, PROG ": unknown option %s\n", word);
	exit(EXIT_USAGE);
}

/* A decimal (or 0x hex) number in [min, max], or exit 2 */
static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long min, unsigned long max, int base)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		bad_arg(opt, s);
	return v;
}

static void parse_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int n = 0, i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n",
		   &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &n) != 6 ||
	    s[n] != '\0')
		bad_arg(opt, s);
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
}

static uint8_t parse_gso(const char *s)
{
	if (!strcmp(s, "none"))
		return VIRTIO_NET_HDR_GSO_NONE;
	if (!strcmp(s, "tcpv4"))
		return VIRTIO_NET_HDR_GSO_TCPV4;
	if (!strcmp(s, "udp_l4"))
		return VIRTIO_NET_HDR_GSO_UDP_L4;
	if (!strcmp(s, "tcpv6"))
		return VIRTIO_NET_HDR_GSO_TCPV6;
	bad_arg("--gso", s);
}

/* The verdicts of the sweep's oracle, in the guard's terms */
enum sweep_class {
	SW_DROP,		/* counted in dropped */
	SW_UNREADABLE,		/* counted in dropped_unreadable */
	SW_PASS,		/* goes on to the next ingress hook */
	SW_NCLASS,
	SW_ALL = SW_NCLASS,	/* --sweep all */
};

static const char *const sweep_names[] = { "drop", "unreadable", "pass", "all" };

static int parse_sweep_class(const char *s)
{
	int i;

	for (i = 0; i <= SW_ALL; i++)
		if (!strcmp(s, sweep_names[i]))
			return i;
	bad_arg("--sweep", s);
}

enum {
	OPT_DEV = 256, OPT_COUNT, OPT_PAYLOAD, OPT_SRC, OPT_DST, OPT_DMAC,
	OPT_SMAC, OPT_CSUM_START, OPT_CSUM_OFFSET, OPT_NO_CSUM, OPT_IHL, OPT_IHL_FIELD,
	OPT_TOT_LEN, OPT_TRUNCATE, OPT_ETHERTYPE, OPT_VLAN, OPT_VLAN_PROTO,
	OPT_IPV6, OPT_EXT6, OPT_GSO, OPT_GSO_SIZE, OPT_HDR_LEN, OPT_SPORT, OPT_DPORT,
	OPT_VNET_SZ, OPT_VERBOSE, OPT_SWEEP, OPT_LIST,
	OPT_PACKET, OPT_QDISC_BYPASS, OPT_ENCAP, OPT_VNI, OPT_OUTER_SRC, OPT_OUTER_DST,
	OPT_INNER_DMAC, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "dev",		required_argument, NULL, OPT_DEV },
	{ "count",		required_argument, NULL, OPT_COUNT },
	{ "payload",		required_argument, NULL, OPT_PAYLOAD },
	{ "src",		required_argument, NULL, OPT_SRC },
	{ "dst",		required_argument, NULL, OPT_DST },
	{ "dmac",		required_argument, NULL, OPT_DMAC },
	{ "smac",		required_argument, NULL, OPT_SMAC },
	{ "csum-start",		required_argument, NULL, OPT_CSUM_START },
	{ "csum-offset",	required_argument, NULL, OPT_CSUM_OFFSET },
	{ "no-csum",		no_argument,	   NULL, OPT_NO_CSUM },
	{ "ihl",		required_argument, NULL, OPT_IHL },
	{ "ihl-field",		required_argument, NULL, OPT_IHL_FIELD },
	{ "tot-len",		required_argument, NULL, OPT_TOT_LEN },
	{ "truncate",		required_argument, NULL, OPT_TRUNCATE },
	{ "ethertype",		required_argument, NULL, OPT_ETHERTYPE },
	{ "vlan",		required_argument, NULL, OPT_VLAN },
	{ "vlan-proto",		required_argument, NULL, OPT_VLAN_PROTO },
	{ "ipv6",		no_argument,	   NULL, OPT_IPV6 },
	{ "ext6",		required_argument, NULL, OPT_EXT6 },
	{ "gso",		required_argument, NULL, OPT_GSO },
	{ "gso-size",		required_argument, NULL, OPT_GSO_SIZE },
	{ "hdr-len",		required_argument, NULL, OPT_HDR_LEN },
	{ "sport",		required_argument, NULL, OPT_SPORT },
	{ "dport",		required_argument, NULL, OPT_DPORT },
	{ "vnet-hdr-sz",	required_argument, NULL, OPT_VNET_SZ },
	{ "verbose",		no_argument,	   NULL, OPT_VERBOSE },
	{ "sweep",		required_argument, NULL, OPT_SWEEP },
	{ "list",		no_argument,	   NULL, OPT_LIST },
	{ "packet",		no_argument,	   NULL, OPT_PACKET },
	{ "qdisc-bypass",	no_argument,	   NULL, OPT_QDISC_BYPASS },
	{ "encap",		required_argument, NULL, OPT_ENCAP },
	{ "vni",		required_argument, NULL, OPT_VNI },
	{ "outer-src",		required_argument, NULL, OPT_OUTER_SRC },
	{ "outer-dst",		required_argument, NULL, OPT_OUTER_DST },
	{ "inner-dmac",		required_argument, NULL, OPT_INNER_DMAC },
	{ "help",		no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void put16(uint8_t *p, uint16_t v);
static void put32(uint8_t *p, uint32_t v);

/* IPv6 extension headers --ext6 knows, by next-header value (IANA) */
#define EXT6_HBH	0
#define EXT6_SRH	43
#define EXT6_FRAG	44
#define EXT6_AH		51
#define EXT6_DST	60

static void parse_ext6(struct config *c, const char *flag, const char *arg)
{
	static const struct { const char *name; uint8_t type; } names[] = {
		{ "hbh", EXT6_HBH }, { "srh", EXT6_SRH }, { "frag", EXT6_FRAG },
		{ "ah", EXT6_AH }, { "dst", EXT6_DST },
	};
	char buf[128], *tok, *save = NULL;
	unsigned int i;

	if (strlen(arg) >= sizeof(buf))
		bad_arg(flag, arg);
	strcpy(buf, arg);
	c->next6 = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(names) && strcmp(tok, names[i].name); i++)
			;
		if (i == ARRAY_SIZE(names) || c->next6 == MAX_EXT6)
			bad_arg(flag, arg);
		c->ext6[c->next6++] = names[i].type;
	}
	if (!c->next6)
		bad_arg(flag, arg);
	c->ipv6 = true;
}

/* Bytes of one extension header as --ext6 lays it out */
static size_t ext6_len(uint8_t type)
{
	return type == EXT6_SRH ? 40 : type == EXT6_AH ? 24 : type == EXT6_DST ? 16 : 8;
}

/*
 * Lay the extension headers out at p; the last names l4. Each carries
 * content a rewrite would show: PadN options, the SRH's segments, the
 * fragment's identification, AH's SPI.
 */
static void build_ext6(const struct config *c, uint8_t *p, uint8_t l4)
{
	static const uint8_t seg[16] = { 0xfd, 0x77, 0, 1, [15] = 0x99 };
	unsigned int i;
	size_t len;

	for (i = 0; i < c->next6; i++, p += len) {
		len = ext6_len(c->ext6[i]);
		memset(p, 0, len);
		p[0] = i + 1 < c->next6 ? c->ext6[i + 1] : l4;
		switch (c->ext6[i]) {
		case EXT6_SRH:
			p[1] = len / 8 - 1;
			p[2] = 4;		/* type: segment routing */
			p[3] = 0;		/* segments left: we are the last */
			p[4] = 1;		/* last entry */
			memcpy(p + 8, seg, 16);
			memcpy(p + 24, seg, 16);
			p[39] = 0x98;
			break;
		case EXT6_FRAG:
			put16(p + 2, 0);	/* offset 0, M 0: an atomic fragment */
			put32(p + 4, 0x1234abcd);
			break;
		case EXT6_AH:
			p[1] = len / 4 - 2;
			put32(p + 4, 0x100);	/* SPI */
			put32(p + 8, 1);	/* sequence number */
			break;
		default:			/* hbh, dst: one PadN option */
			p[1] = len / 8 - 1;
			p[2] = 1;
			p[3] = len - 4;
			break;
		}
	}
}

static void set_defaults(struct config *c)
{
	static const uint8_t smac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memset(c, 0, sizeof(*c));
	c->count = 1;
	c->payload = 1000;
	memcpy(c->smac, smac, sizeof(smac));
	c->csum_start = -1;
	c->csum_offset = -1;
	c->ihl = 5;
	c->tot_len = -1;
	c->ihl_field = -1;
	c->truncate = -1;
	c->ethertype = -1;
	c->vni = 42;
	c->vlan_proto = TPID_8021Q;
	c->gso_size = 500;
	c->hdr_len = -1;
	c->sport = 4000;
	c->dport = 5000;
	c->vnet_sz = sizeof(struct virtio_net_hdr);
	c->sweep = -1;
}

/* One option into the config; 0 when it was not ours */
static int apply_opt(struct config *c, int opt, const char *arg)
{
	char flag[32];

	if (opt < OPT_DEV || opt >= OPT_HELP)
		return 0;
	/* long_opts lists the options in the order of their OPT_ values */
	snprintf(flag, sizeof(flag), "--%s", long_opts[opt - OPT_DEV].name);
	switch (opt) {
	case OPT_DEV:
		if (!*arg || strlen(arg) >= IFNAMSIZ)
			bad_arg(flag, arg);
		c->dev = arg;
		break;
	case OPT_COUNT:
		c->count = parse_num(flag, arg, 0, 100000000, 0);
		break;
	case OPT_PAYLOAD:
		c->payload = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_SRC:
		c->src = arg;
		break;
	case OPT_DST:
		c->dst = arg;
		break;
	case OPT_DMAC:
		parse_mac(flag, arg, c->dmac);
		c->have_dmac = true;
		break;
	case OPT_SMAC:
		parse_mac(flag, arg, c->smac);
		break;
	case OPT_CSUM_START:
		c->csum_start = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_CSUM_OFFSET:
		c->csum_offset = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_NO_CSUM:
		c->no_csum = true;
		break;
	case OPT_IHL_FIELD:
		c->ihl_field = parse_num(flag, arg, 0, 15, 0);
		break;
	case OPT_IHL:
		c->ihl = parse_num(flag, arg, 5, 15, 0);
		break;
	case OPT_TOT_LEN:
		c->tot_len = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_TRUNCATE:
		c->truncate = parse_num(flag, arg, 0, MAX_FRAME, 0);
		break;
	case OPT_ETHERTYPE:
		c->ethertype = parse_num(flag, arg, 0, 0xffff, 16);
		break;
	case OPT_VLAN:
		if (c->nvlans == MAX_VLANS)
			bad_arg(flag, arg);
		c->vlans[c->nvlans++] = parse_num(flag, arg, 0, 4095, 0);
		break;
	case OPT_VLAN_PROTO:
		c->vlan_proto = parse_num(flag, arg, 0, 0xffff, 16);
		if (c->vlan_proto != TPID_8021Q && c->vlan_proto != TPID_8021AD)
			bad_arg(flag, arg);
		break;
	case OPT_IPV6:
		c->ipv6 = true;
		break;
	case OPT_EXT6:
		parse_ext6(c, flag, arg);
		break;
	case OPT_GSO:
		c->gso_type = parse_gso(arg);
		break;
	case OPT_GSO_SIZE:
		c->gso_size = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_HDR_LEN:
		c->hdr_len = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_SPORT:
		c->sport = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_DPORT:
		c->dport = parse_num(flag, arg, 0, 65535, 0);
		break;
	case OPT_VNET_SZ:
		c->vnet_sz = parse_num(flag, arg, sizeof(struct virtio_net_hdr),
				       MAX_VNET_SZ, 0);
		break;
	case OPT_VERBOSE:
		c->verbose = true;
		break;
	case OPT_SWEEP:
		c->sweep = parse_sweep_class(arg);
		break;
	case OPT_LIST:
		c->list = true;
		break;
	case OPT_PACKET:
		c->packet = true;
		break;
	case OPT_QDISC_BYPASS:
		c->qdisc_bypass = true;
		break;
	case OPT_ENCAP:
		for (c->encap = 0; c->encap < (int)ARRAY_SIZE(encap_names) &&
				   strcmp(arg, encap_names[c->encap]); c->encap++)
			;
		if (c->encap == ARRAY_SIZE(encap_names))
			bad_arg(flag, arg);
		break;
	case OPT_VNI:
		c->vni = parse_num(flag, arg, 0, 0xffffff, 0);
		break;
	case OPT_OUTER_SRC:
		c->outer_src = arg;
		break;
	case OPT_OUTER_DST:
		c->outer_dst = arg;
		break;
	case OPT_INNER_DMAC:
		parse_mac(flag, arg, c->inner_dmac);
		break;
	default:
		return 0;
	}
	return 1;
}

/* Options that only make sense together, checked once all are read */
static void check_config(struct config *c)
{
	if (c->list && c->sweep < 0) {
		fprintf(stderr, PROG ": --list needs --sweep\n");
		exit(EXIT_USAGE);
	}
	if (!c->dev && !c->list) {
		fprintf(stderr, PROG ": --dev is required\n");
		exit(EXIT_USAGE);
	}
	if (c->no_csum && (c->csum_start >= 0 || c->csum_offset >= 0)) {
		fprintf(stderr, PROG ": --no-csum conflicts with --csum-start/--csum-offset\n");
		exit(EXIT_USAGE);
	}
	if (c->ipv6 && c->ihl != 5) {
		fprintf(stderr, PROG ": --ihl is for IPv4 only\n");
		exit(EXIT_USAGE);
	}
	/* AF_PACKET reads exactly a struct virtio_net_hdr */
	if (c->packet && c->vnet_sz != sizeof(struct virtio_net_hdr)) {
		fprintf(stderr, PROG ": --packet sends a %zu-byte virtio_net_hdr only\n",
			sizeof(struct virtio_net_hdr));
		exit(EXIT_USAGE);
	}
	if (c->qdisc_bypass && !c->packet) {
		fprintf(stderr, PROG ": --qdisc-bypass goes with --packet\n");
		exit(EXIT_USAGE);
	}
	if (c->ethertype >= 0 && c->csum_offset >= 0 && c->csum_start < 0) {
		fprintf(stderr, PROG ": --ethertype needs --csum-start for a partial checksum\n");
		exit(EXIT_USAGE);
	}
	if (c->encap && (c->sweep >= 0 || c->packet || c->ethertype >= 0 || c->nvlans)) {
		fprintf(stderr, PROG ": --encap goes with neither --sweep, --packet, --ethertype nor --vlan\n");
		exit(EXIT_USAGE);
	}
	if (!c->outer_src)
		c->outer_src = "10.0.0.2";
	if (!c->outer_dst)
		c->outer_dst = "10.0.0.1";
	if (!c->src)
		c->src = c->ipv6 ? "fd00::2" : "10.0.0.2";
	if (!c->dst)
		c->dst = c->ipv6 ? "fd01::2" : "10.1.0.2";
}

static void parse_args(struct config *c, int argc, char **argv)
{
	int opt;

	set_defaults(c);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		if (opt == OPT_HELP) {
			usage();
			exit(0);
		}
		if (!apply_opt(c, opt, optarg))
			bad_option(opt, argv[optind - 1]);
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		exit(EXIT_USAGE);
	}
	check_config(c);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* Sum of the IPv4 or IPv6 pseudo header for an L4 segment of len bytes */
static uint64_t pseudo_sum(const struct layout *l, bool ipv6, size_t len)
{
	size_t alen = ipv6 ? 16 : 4;
	uint64_t sum;

	sum = csum_add(0, l->saddr, alen);
	sum = csum_add(sum, l->daddr, alen);
	return sum + l->l4_proto + (len & 0xffff) + (len >> 16);
}

/* Ethernet header and VLAN tags; returns their length */
static size_t build_eth(const struct config *c, uint8_t *p, uint16_t type)
{
	size_t off = 12;
	unsigned int i;

	memcpy(p, c->dmac, 6);
	memcpy(p + 6, c->smac, 6);
	for (i = 0; i < c->nvlans; i++) {
		put16(p + off, i == 0 ? c->vlan_proto : TPID_8021Q);
		put16(p + off + 2, c->vlans[i]);
		off += VLAN_TAG_LEN;
	}
	put16(p + off, type);
	return off + 2;
}

/*
 * IPv4 header with ihl words. The options area is NOPs closed by an EOL, a
 * valid option list. The id and the header checksum are set per frame.
 */
static void build_ipv4(const struct config *c, const struct layout *l,
		       uint8_t *p, size_t l4_total)
{
	size_t hl = c->ihl * 4;

	memset(p, 0, hl);
	p[0] = 0x40 | c->ihl;
	put16(p + 2, hl + l4_total);
	p[8] = 64;
	p[9] = l->l4_proto;
	memcpy(p + 12, l->saddr, 4);
	memcpy(p + 16, l->daddr, 4);
	if (hl > IPV4_HDR_LEN) {
		memset(p + IPV4_HDR_LEN, 1, hl - IPV4_HDR_LEN - 1);
		p[hl - 1] = 0;
	}
	if (c->tot_len >= 0)
		put16(p + 2, c->tot_len);
	if (c->ihl_field >= 0)
		p[0] = 0x40 | c->ihl_field;
}

static void build_ipv6(const struct config *c, const struct layout *l,
		       uint8_t *p, size_t l4_total)
{
	memset(p, 0, IPV6_HDR_LEN);
	p[0] = 0x60;
	put16(p + 4, l4_total + l->l3_len - IPV6_HDR_LEN);
	p[6] = c->next6 ? c->ext6[0] : l->l4_proto;
	p[7] = 64;
	memcpy(p + 8, l->saddr, 16);
	memcpy(p + 24, l->daddr, 16);
	build_ext6(c, p + IPV6_HDR_LEN, l->l4_proto);
	if (c->tot_len >= 0)
		put16(p + 4, c->tot_len);
}

static void build_l4(const struct config *c, const struct layout *l,
		     uint8_t *p, size_t l4_total)
{
	memset(p, 0, l->l4_len);
	put16(p, c->sport);
	put16(p + 2, c->dport);
	if (l->l4_proto == IPPROTO_UDP) {
		put16(p + 4, l4_total);
		return;
	}
	/* TCP: ACK|PSH segment with a fixed sequence number */
	put32(p + 4, 1);
	put32(p + 8, 1);
	p[12] = (TCP_HDR_LEN / 4) << 4;
	p[13] = 0x18;
	put16(p + 14, 65535);
}

/* The payload is a fixed pattern so that runs are reproducible */
static void fill_payload(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = i & 0xff;
}

/*
 * The L4 checksum field. For a partial (offloaded) packet a guest puts the
 * folded, not complemented sum of the pseudo header there, and the kernel
 * adds the rest when it completes the checksum; otherwise the whole
 * checksum is computed here.
 */
static void set_l4_csum(const struct config *c, const struct layout *l,
			uint8_t *p, size_t l4_total, bool partial)
{
	uint8_t *field = p + (l->l4_proto == IPPROTO_UDP ? 6 : 16);
	uint64_t sum = pseudo_sum(l, c->ipv6, l4_total);
	uint16_t csum;

	put16(field, 0);
	if (partial) {
		put16(field, csum_fold(sum));
		return;
	}
	csum = ~csum_fold(csum_add(sum, p, l4_total));
	if (l->l4_proto == IPPROTO_UDP && csum == 0)
		csum = 0xffff;
	put16(field, csum);
}

static void parse_addrs(const struct config *c, struct layout *l)
{
	int af = c->ipv6 ? AF_INET6 : AF_INET;

	if (inet_pton(af, c->src, l->saddr) != 1)
		bad_arg("--src", c->src);
	if (inet_pton(af, c->dst, l->daddr) != 1)
		bad_arg("--dst", c->dst);
}

/*
 * The frame without its encapsulation, the Ethernet header onwards.
 */
static void build_inner(const struct config *c, struct layout *l,
			uint8_t *frame, bool partial)
{
	bool tcp = c->gso_type == VIRTIO_NET_HDR_GSO_TCPV4 ||
		   c->gso_type == VIRTIO_NET_HDR_GSO_TCPV6;
	size_t l4_total, max;
	unsigned int i;
	uint8_t *l4;

	memset(l, 0, sizeof(*l));
	if (c->ethertype >= 0) {
		l->l2_len = build_eth(c, frame, c->ethertype);
		fill_payload(frame + l->l2_len, c->payload);
		l->len = l->l2_len + c->payload;
		return;
	}
	parse_addrs(c, l);
	l->l4_proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	l->l4_len = tcp ? TCP_HDR_LEN : UDP_HDR_LEN;
	l->l3_len = c->ipv6 ? IPV6_HDR_LEN : c->ihl * 4;
	for (i = 0; i < c->next6; i++)
		l->l3_len += ext6_len(c->ext6[i]);
	l4_total = l->l4_len + c->payload;
	max = c->ipv6 ? 65535 : 65535 - l->l3_len;
	if (l4_total > max) {
		fprintf(stderr, PROG ": --payload %lu does not fit in one IP packet\n",
			c->payload);
		exit(EXIT_USAGE);
	}
	l->l2_len = build_eth(c, frame, c->ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
	l->len = l->l2_len + l->l3_len + l4_total;
	l4 = frame + l->l2_len + l->l3_len;
	build_l4(c, l, l4, l4_total);
	fill_payload(l4 + l->l4_len, c->payload);
	set_l4_csum(c, l, l4, l4_total, partial);
	if (c->ipv6)
		build_ipv6(c, l, frame + l->l2_len, l4_total);
	else
		build_ipv4(c, l, frame + l->l2_len, l4_total);
}

/* Bytes of the encapsulation in front of the inner frame, and whether it
 * carries the inner frame from its IP header on (no inner Ethernet) */
static size_t encap_len(const struct config *c)
{
	switch (c->encap) {
	case ENCAP_VXLAN:
	case ENCAP_GENEVE:
		return ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN + 8;
	case ENCAP_GRE:
		return ETH_HDR_LEN + IPV4_HDR_LEN + 4;
	case ENCAP_IPIP:
		return ETH_HDR_LEN + IPV4_HDR_LEN;
	}
	return 0;
}

static bool encap_l3(const struct config *c)
{
	return c->encap == ENCAP_GRE || c->encap == ENCAP_IPIP;
}

/* The outer Ethernet, IPv4 and tunnel headers of a frame of len bytes */
static void build_outer(const struct config *c, uint8_t *p, size_t len)
{
	uint8_t *ip = p + ETH_HDR_LEN, *h = ip + IPV4_HDR_LEN;
	uint8_t proto = c->encap == ENCAP_GRE ? IPPROTO_GRE :
			c->encap == ENCAP_IPIP ? (c->ipv6 ? IPPROTO_IPV6 : IPPROTO_IPIP) :
			IPPROTO_UDP;

	memcpy(p, c->dmac, 6);
	memcpy(p + 6, c->smac, 6);
	put16(p + 12, ETHERTYPE_IPV4);
	memset(ip, 0, IPV4_HDR_LEN);
	ip[0] = 0x45;
	put16(ip + 2, len - ETH_HDR_LEN);
	ip[8] = 64;
	ip[9] = proto;
	if (inet_pton(AF_INET, c->outer_src, ip + 12) != 1)
		bad_arg("--outer-src", c->outer_src);
	if (inet_pton(AF_INET, c->outer_dst, ip + 16) != 1)
		bad_arg("--outer-dst", c->outer_dst);
	put16(ip + 10, ~csum_fold(csum_add(0, ip, IPV4_HDR_LEN)));
	switch (c->encap) {
	case ENCAP_VXLAN:
	case ENCAP_GENEVE:
		/* UDP checksum 0: allowed over IPv4, and nothing to complete */
		memset(h, 0, UDP_HDR_LEN + 8);
		put16(h, 49152);
		put16(h + 2, c->encap == ENCAP_VXLAN ? VXLAN_PORT : GENEVE_PORT);
		put16(h + 4, len - ETH_HDR_LEN - IPV4_HDR_LEN);
		if (c->encap == ENCAP_VXLAN)
			h[8] = 0x08;		/* I: the VNI is valid */
		else
			put16(h + 10, ETH_P_TEB);
		put32(h + 12, c->vni << 8);
		break;
	case ENCAP_GRE:
		put16(h, 0);			/* no checksum, key or sequence */
		put16(h + 2, c->ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
		break;
	}
}

/*
 * Build the frame once into frame (the Ethernet header onwards); only the
 * IPv4 id and header checksum change from frame to frame. Encapsulated,
 * the inner frame goes behind the outer headers (those of gre and ipip
 * over its Ethernet header), and l describes the inner headers at their
 * place in the whole frame.
 */
static void build_frame(const struct config *c, struct layout *l,
			uint8_t *frame, bool partial)
{
	struct config in;
	size_t at;

	if (!c->encap) {
		build_inner(c, l, frame, partial);
		return;
	}
	in = *c;
	memcpy(in.dmac, c->inner_dmac, 6);
	at = encap_len(c) - (encap_l3(c) ? ETH_HDR_LEN : 0);
	build_inner(&in, l, frame + at, partial);
	l->l2_len += at;
	l->len += at;
	build_outer(c, frame, l->len);
}

/* Per frame: a new IPv4 id, and the header checksum over the header as sent */
static void stamp_ipv4(const struct layout *l, uint8_t *frame, uint16_t id)
{
	uint8_t *ip = frame + l->l2_len;

	put16(ip + 4, id);
	put16(ip + 10, 0);
	put16(ip + 10, ~csum_fold(csum_add(0, ip, l->l3_len)));
}

/*
 * The virtio_net_hdr in front of the frame. The tap reads it in the legacy
 * virtio byte order, which is the host's own unless TUNSETVNETLE/BE changed
 * it. Bytes past the 10-byte header (num_buffers) stay zero.
 */
static void build_vnet_hdr(const struct config *c, const struct layout *l,
			   uint8_t *p, bool partial)
{
	struct virtio_net_hdr vh;
	size_t hdr_len = 0;

	memset(&vh, 0, sizeof(vh));
	if (partial) {
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.csum_start = c->csum_start >= 0 ? (size_t)c->csum_start :
						    l->l2_len + l->l3_len;
		vh.csum_offset = c->csum_offset >= 0 ? (size_t)c->csum_offset :
				 l->l4_proto == IPPROTO_TCP ? 16 : 6;
	}
	if (c->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		vh.gso_type = c->gso_type;
		vh.gso_size = c->gso_size;
		hdr_len = l->l2_len + l->l3_len + l->l4_len;
	}
	vh.hdr_len = c->hdr_len >= 0 ? (size_t)c->hdr_len : hdr_len;
	memset(p, 0, c->vnet_sz);
	memcpy(p, &vh, sizeof(vh));
}

/* A socket to ask about the tap; any family will do for these ioctls */
static int query_tap(const char *dev, unsigned long req, struct ifreq *ifr)
{
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", dev);
	if (ioctl(fd, req, ifr) < 0)
		err = -errno;
	close(fd);
	return err;
}

static void __attribute__((noreturn)) setup_fail(const char *what,
						 const char *dev, int err)
{
	fprintf(stderr, PROG ": %s %s: %s\n", what, dev, strerror(-err));
	exit(EXIT_SETUP);
}

/*
 * TUNSETIFF refuses with EINVAL a queue whose IFF_MULTI_QUEUE differs from
 * the tap's, so a multiqueue tap (as QEMU creates them) takes a second try.
 */
static int attach_tap(int fd, const char *dev, bool l3)
{
	short flags = (l3 ? IFF_TUN : IFF_TAP) | IFF_NO_PI | IFF_VNET_HDR;
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	ifr.ifr_flags = flags;
	if (!ioctl(fd, TUNSETIFF, &ifr))
		return 0;
	if (errno != EINVAL)
		return -errno;
	ifr.ifr_flags = flags | IFF_MULTI_QUEUE;
	return ioctl(fd, TUNSETIFF, &ifr) ? -errno : 0;
}

/*
 * A macvtap or ipvtap: its character device, made afresh from the
 * major:minor sysfs gives in this namespace (/dev/tapIFINDEX names collide
 * between namespaces). The fd, or -ENOENT when dev is neither.
 */
static int open_chardev_tap(const struct config *c, unsigned int ifindex)
{
	static const char *const cls[] = { "macvtap", "ipvtap" };
	char path[PATH_MAX];
	unsigned int maj, min, i;
	int fd, n = 0;
	FILE *f = NULL;

	for (i = 0; i < ARRAY_SIZE(cls) && !f; i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s/tap%u/dev", c->dev, cls[i], ifindex);
		f = fopen(path, "re");
	}
	if (!f)
		return -ENOENT;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	if (n != 2)
		setup_fail("cannot read the character device of", c->dev, -EINVAL);
	snprintf(path, sizeof(path), "/dev/.cg-inject-tap%u.%d", ifindex, (int)getpid());
	if (mknod(path, S_IFCHR | 0600, makedev(maj, min)))
		snprintf(path, sizeof(path), "/tmp/.cg-inject-tap%u.%d", ifindex, (int)getpid());
	if (access(path, F_OK) && mknod(path, S_IFCHR | 0600, makedev(maj, min)))
		setup_fail("cannot make the character device of", c->dev, -errno);
	fd = open(path, O_RDWR | O_CLOEXEC);
	n = -errno;
	unlink(path);
	if (fd < 0)
		setup_fail("cannot open the character device of", c->dev, n);
	return fd;
}

/*
 * Attach to the existing tap with a virtio_net_hdr of vnet_sz bytes. The
 * tap must be up: the kernel refuses writes to a down tap, and that must not
 * look like a refused frame.
 */
/* Is DEV a tun in IFF_TUN mode (no link-layer header)? */
static bool tun_is_l3(const char *dev)
{
	char path[PATH_MAX];
	unsigned int flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", dev);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%x", &flags) != 1)
		flags = 0;
	fclose(f);
	return flags & IFF_TUN;
}

static int open_tap(struct config *c)
{
	unsigned int ifindex;
	struct ifreq ifr;
	int fd, sz = c->vnet_sz, err;

	ifindex = if_nametoindex(c->dev);
	if (!ifindex)
		setup_fail("cannot find", c->dev, -ENODEV);
	err = query_tap(c->dev, SIOCGIFFLAGS, &ifr);
	if (err)
		setup_fail("cannot read the flags of", c->dev, err);
	if (!(ifr.ifr_flags & IFF_UP)) {
		fprintf(stderr, PROG ": %s is down\n", c->dev);
		exit(EXIT_SETUP);
	}
	fd = open_chardev_tap(c, ifindex);
	if (fd >= 0)
		goto vnet;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		setup_fail("cannot open /dev/net/tun for", c->dev, -errno);
	c->l3 = tun_is_l3(c->dev);
	err = attach_tap(fd, c->dev, c->l3);
	if (err == -EINVAL) {
		fprintf(stderr, PROG ": cannot attach to %s: %s (not a tap?)\n",
			c->dev, strerror(EINVAL));
		exit(EXIT_SETUP);
	}
	if (err)
		setup_fail("cannot attach to", c->dev, err);
	/* If it vanished in between, TUNSETIFF made a new transient tap */
	if (if_nametoindex(c->dev) != ifindex) {
		fprintf(stderr, PROG ": %s went away while attaching\n", c->dev);
		exit(EXIT_SETUP);
	}
vnet:
	/* The size is a property of the tap that outlives us: always set it */
	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
		setup_fail("cannot set the vnet header size of", c->dev, -errno);
	return fd;
}

/*
 * --packet: an AF_PACKET socket bound to the device, which takes the same
 * virtio_net_hdr + frame per write() as a tap does. Protocol 0: it receives
 * nothing, and the kernel reads skb->protocol from the frame's own header.
 * A device without a link-layer header (ARPHRD_NONE: a netkit pair in l3
 * mode) takes the frame from its IP header on, as a tun does, and the
 * protocol from the socket's address: bound to IPv4's or IPv6's.
 */
static int open_packet(struct config *c)
{
	struct sockaddr_ll sll;
	struct ifreq ifr;
	int fd, one = 1;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = if_nametoindex(c->dev);
	if (!sll.sll_ifindex)
		setup_fail("cannot find", c->dev, -ENODEV);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		setup_fail("cannot open a packet socket for", c->dev, -errno);
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		setup_fail("cannot set PACKET_VNET_HDR for", c->dev, -errno);
	if (c->qdisc_bypass &&
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0)
		setup_fail("cannot set PACKET_QDISC_BYPASS for", c->dev, -errno);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		setup_fail("cannot read the link type of", c->dev, -errno);
	if (ifr.ifr_hwaddr.sa_family == ARPHRD_NONE) {
		c->l3 = true;
		sll.sll_protocol = htons(c->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		setup_fail("cannot bind a packet socket to", c->dev, -errno);
	return fd;
}

/* Default destination MAC: the tap's own, so the host takes the frame */
static void read_tap_mac(struct config *c, int fd)
{
	struct ifreq ifr;

	if (c->have_dmac || c->l3)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		setup_fail("cannot read the MAC address of", c->dev, -errno);
	memcpy(c->dmac, ifr.ifr_hwaddr.sa_data, 6);
}

static void describe(const struct config *c, const struct layout *l,
		     const uint8_t *vnet, size_t wire_len)
{
	const struct virtio_net_hdr *vh = (const void *)vnet;

	printf(PROG ": %s: %lu frame(s) of %u + %zu bytes: flags=%u gso_type=%u "
	       "gso_size=%u hdr_len=%u csum_start=%u csum_offset=%u "
	       "l2=%zu l3=%zu l4=%zu\n",
	       c->dev, c->count, c->vnet_sz, wire_len, vh->flags, vh->gso_type,
	       vh->gso_size, vh->hdr_len, vh->csum_start, vh->csum_offset,
	       l->l2_len, l->l3_len, l->l4_len);
}

/*
 * Write count frames, each the vnet header right in front of the frame;
 * the IPv4 id counts up from 1.
 */
static int send_frames(const struct config *c, const struct layout *l, int fd,
		       uint8_t *frame, size_t wire_len)
{
	size_t total = c->vnet_sz + wire_len;
	uint8_t *vnet = frame - c->vnet_sz;
	unsigned long i, dropped = 0;
	ssize_t n;

	for (i = 0; i < c->count; i++) {
		if (c->ethertype < 0 && !c->ipv6)
			stamp_ipv4(l, frame, (i + 1) & 0xffff);
		n = write(fd, vnet, total);
		if (n < 0 && c->packet && errno == ENOBUFS) {
			/* the socket took it; the device's transmit path dropped it */
			dropped++;
			continue;
		}
		if (n < 0) {
			fprintf(stderr, PROG ": write to %s: %s\n", c->dev,
				strerror(errno));
			return EXIT_WRITE;
		}
		if ((size_t)n != total) {
			fprintf(stderr, PROG ": short write to %s: %zd of %zu bytes\n",
				c->dev, n, total);
			return EXIT_WRITE;
		}
	}
	if (c->verbose)
		printf(PROG ": %s: wrote %lu frame(s)\n", c->dev, c->count);
	if (dropped) {
		fprintf(stderr, PROG ": %s: %lu of %lu frame(s) dropped on transmit\n",
			c->dev, dropped, c->count);
		return EXIT_TX_DROP;
	}
	return 0;
}

/*
 * --- the sweep ---------------------------------------------------------
 *
 * Every vector is one frame written with NEEDS_CSUM at one csum_start and
 * one csum_offset. The oracle predicts the guard's verdict from the frame
 * bytes alone, independently of cg_verdict(), in offsets counted from the
 * Ethernet header:
 *
 *   - the receive path strips one 802.1Q or 802.1ad tag before tc and
 *     netfilter ingress (even without the 8021q module); the network header
 *     is then just past that tag, and a csum_start before that point leaves
 *     the skb CHECKSUM_NONE, never judged (kernels whose tap accepts a
 *     csum_start below 20, such as 6.1, let such frames through);
 *   - the guard steps over up to SWEEP_TAGS_LEFT more tags left in the
 *     packet; a frame with still more is unreadable (it fails closed);
 *   - IPv4 (by ethertype, whatever the bytes): unreadable if the frame holds
 *     no byte of the IP header or its IHL is below 5; dropped if csum_start
 *     lies before the end of the header IHL gives; otherwise it passes;
 *   - IPv6: dropped if csum_start lies inside the fixed 40-byte header;
 *   - any other ethertype passes, never judged.
 *
 * The tap refuses some vectors at write() with EINVAL (6.18: csum_start
 * below 20; 6.1: a checksum field before byte 12; both: a field past the
 * end of the frame): those are counted as refused, not judged. One run
 * writes the vectors of one class only, so that the counters of a batch
 * must grow by exactly its accepted count.
 */
#define SWEEP_TAGS_LEFT	4
#define SWEEP_PAYLOAD	32	/* room for csum_offset 16 past the UDP header */
#define SWEEP_PAST	4	/* csum_start runs this far past the UDP header */

static const uint8_t sweep_offsets[] = { 0, 2, 6, 16 };

/* What one run is asked for, and what it counted */
struct sweep {
	const struct config *base;
	int want;			/* a sweep_class or SW_ALL */
	int fd;				/* the tap; -1: list only */
	uint16_t ip_id;
	unsigned long vectors[SW_NCLASS];	/* generated, every class */
	unsigned long accepted[SW_NCLASS];	/* written, of the wanted classes */
	unsigned long refused[SW_NCLASS];
};

static uint16_t get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static bool is_vlan_tpid(uint16_t type)
{
	return type == TPID_8021Q || type == TPID_8021AD;
}

/*
 * IPv6 at nh: the fixed header and the extension headers after it (RFC 8200
 * lengths, AH's of RFC 4302, the fragment header 8 bytes) are the header;
 * a chain of more than SWEEP_EXT6_MAX, or one the frame cuts short, with
 * csum_start past what could be walked is unreadable.
 */
#define SWEEP_EXT6_MAX	8

static enum sweep_class sweep_oracle6(const uint8_t *f, size_t len, size_t nh,
				      size_t csum_start)
{
	size_t end = nh + IPV6_HDR_LEN;
	unsigned int n;
	uint8_t next;

	if (csum_start < end)
		return SW_DROP;
	if (nh + 6 >= len)
		return SW_UNREADABLE;
	next = f[nh + 6];
	for (n = 0; next == 0 || next == 43 || next == 44 || next == 51 || next == 60 ||
		    next == 135 || next == 139 || next == 140; n++) {
		if (csum_start < end)
			return SW_DROP;
		if (n == SWEEP_EXT6_MAX || end + 2 > len)
			return SW_UNREADABLE;
		if (next == 44)
			end += 8, next = f[end - 8];
		else if (next == 51)
			next = f[end], end += (f[end + 1] + 2) * 4;
		else
			next = f[end], end += (f[end + 1] + 1) * 8;
	}
	return csum_start < end ? SW_DROP : SW_PASS;
}

static enum sweep_class sweep_oracle(const uint8_t *f, size_t len,
				     size_t csum_start)
{
	size_t nh = ETH_HDR_LEN;
	uint16_t type = get16(f + 12);
	unsigned int left;
	unsigned int ihl;

	if (is_vlan_tpid(type)) {
		/*
		 * skb_vlan_untag() pulls the tag with skb_pull_rcsum(), which
		 * turns CHECKSUM_PARTIAL into CHECKSUM_NONE when csum_start
		 * is left behind: nothing completes that checksum any more.
		 */
		if (csum_start < ETH_HDR_LEN + VLAN_TAG_LEN)
			return SW_PASS;
		type = get16(f + nh + 2);
		nh += VLAN_TAG_LEN;
	}
	for (left = 0; is_vlan_tpid(type); left++) {
		if (left == SWEEP_TAGS_LEFT || nh + VLAN_TAG_LEN > len)
			return SW_UNREADABLE;
		type = get16(f + nh + 2);
		nh += VLAN_TAG_LEN;
	}
	if (type == ETHERTYPE_IPV6)
		return sweep_oracle6(f, len, nh, csum_start);
	if (type != ETHERTYPE_IPV4)
		return SW_PASS;
	if (nh >= len)
		return SW_UNREADABLE;
	ihl = f[nh] & 0x0f;
	if (ihl < 5)
		return SW_UNREADABLE;
	return csum_start < nh + ihl * 4 ? SW_DROP : SW_PASS;
}

/* A frame's description for --list, e.g. "tags=88a8,8100 ipv4 ihl=5 len=82" */
static void sweep_label(char *buf, size_t size, const struct config *c,
			long retype, size_t len)
{
	FILE *f = fmemopen(buf, size, "w");
	unsigned int i;

	if (!f) {
		snprintf(buf, size, "?");
		return;
	}
	if (c->nvlans) {
		fprintf(f, "tags=%04x", c->vlan_proto);
		for (i = 1; i < c->nvlans; i++)
			fprintf(f, ",%04x", TPID_8021Q);
		fputc(' ', f);
	}
	if (c->ethertype >= 0)
		fprintf(f, "type=%04lx pattern", c->ethertype);
	else if (c->ipv6)
		fprintf(f, "ipv6");
	else
		fprintf(f, "ipv4 ihl=%u", c->ihl);
	for (i = 0; i < c->next6; i++)
		fprintf(f, "%s%u", i ? "," : " ext6=", c->ext6[i]);
	if (c->ihl_field >= 0)
		fprintf(f, " ihl_field=%ld", c->ihl_field);
	if (c->tot_len >= 0)
		fprintf(f, " tot_len=%ld", c->tot_len);
	if (retype >= 0)
		fprintf(f, " under type=%04lx", retype);
	fprintf(f, " len=%zu", len);
	fclose(f);
}

/* One write; true if the tap took the frame, false if it refused it */
static bool sweep_write(const struct sweep *s, const uint8_t *buf, size_t total)
{
	ssize_t n = write(s->fd, buf, total);

	if (n == (ssize_t)total)
		return true;
	if (n < 0 && errno == EINVAL)
		return false;
	if (n < 0)
		fprintf(stderr, PROG ": write to %s: %s\n", s->base->dev,
			strerror(errno));
	else
		fprintf(stderr, PROG ": short write to %s: %zd of %zu bytes\n",
			s->base->dev, n, total);
	exit(EXIT_WRITE);
}

/*
 * Every csum_start from 0 to a few bytes past the end of the UDP header (or
 * of the frame, if shorter), each with every csum_offset, for one frame as
 * cg-inject builds it from fc. retype >= 0 then overwrites its innermost
 * ethertype, trunc > 0 cuts it to that many bytes.
 */
static void sweep_frame(struct sweep *s, const struct config *fc, long retype,
			size_t trunc)
{
	uint8_t *frame = pkt + MAX_VNET_SZ;
	struct config c = *fc;
	struct layout l;
	size_t len, last, cs, i;
	enum sweep_class v;
	char label[128];
	bool ok = false;

	build_frame(&c, &l, frame, true);
	if (c.ethertype < 0 && !c.ipv6)
		stamp_ipv4(&l, frame, ++s->ip_id);
	if (retype >= 0)
		put16(frame + l.l2_len - 2, retype);
	len = trunc ? trunc : l.len;
	/* A frame without an IP header gets the csum_starts of one that has */
	last = l.l2_len + (l.l3_len ? l.l3_len : IPV4_HDR_LEN) + UDP_HDR_LEN +
	       SWEEP_PAST;
	if (last > len)
		last = len;
	if (c.list)
		sweep_label(label, sizeof(label), &c, retype, len);
	for (cs = 0; cs <= last; cs++) {
		for (i = 0; i < ARRAY_SIZE(sweep_offsets); i++) {
			v = sweep_oracle(frame, len, cs);
			s->vectors[v]++;
			if (s->want != SW_ALL && s->want != (int)v)
				continue;
			c.csum_start = cs;
			c.csum_offset = sweep_offsets[i];
			if (s->fd >= 0) {
				build_vnet_hdr(&c, &l, frame - c.vnet_sz, true);
				ok = sweep_write(s, frame - c.vnet_sz, c.vnet_sz + len);
				if (ok)
					s->accepted[v]++;
				else
					s->refused[v]++;
			}
			if (c.list)
				printf("%s %s csum_start=%zu csum_offset=%u%s\n",
				       sweep_names[v], label, cs, sweep_offsets[i],
				       s->fd < 0 ? "" : ok ? " accepted" : " refused");
		}
	}
}

/* A fresh frame of the sweep: defaults, but the base's MACs and vnet size */
static void sweep_config(const struct sweep *s, struct config *c, bool ipv6)
{
	const struct config *b = s->base;

	set_defaults(c);
	c->dev = b->dev;
	memcpy(c->dmac, b->dmac, sizeof(c->dmac));
	memcpy(c->smac, b->smac, sizeof(c->smac));
	c->vnet_sz = b->vnet_sz;
	c->list = b->list;
	c->payload = SWEEP_PAYLOAD;
	c->ipv6 = ipv6;
	c->src = ipv6 ? "fd00::2" : "10.0.0.2";
	c->dst = ipv6 ? "fd01::2" : "10.1.0.2";
}

/* Untagged IPv4: every IHL, IHL fields below 5, odd lengths, truncation */
static void sweep_ipv4(struct sweep *s)
{
	static const unsigned int trunc_ihl[] = { 5, 8, 15 };
	struct config c;
	unsigned int ihl, i;
	long tot[4];
	size_t t, hl;

	for (ihl = 5; ihl <= 15; ihl++) {
		sweep_config(s, &c, false);
		c.ihl = ihl;
		sweep_frame(s, &c, -1, 0);
	}
	for (i = 0; i < 5; i++) {
		sweep_config(s, &c, false);
		c.ihl_field = i;
		sweep_frame(s, &c, -1, 0);
	}
	/* total length 0, smaller than the header, larger than the frame */
	for (ihl = 5; ihl <= 15; ihl += 5) {
		hl = ihl * 4;
		tot[0] = 0;
		tot[1] = hl - 1;
		tot[2] = hl + UDP_HDR_LEN + SWEEP_PAYLOAD + 1;
		tot[3] = 65535;
		for (i = 0; i < ARRAY_SIZE(tot); i++) {
			sweep_config(s, &c, false);
			c.ihl = ihl;
			c.tot_len = tot[i];
			sweep_frame(s, &c, -1, 0);
		}
	}
	/*
	 * The frame ends inside the IP header, from no IP byte at all to one
	 * byte short; IHL 5 also with an IHL field of 3.
	 */
	for (i = 0; i < ARRAY_SIZE(trunc_ihl); i++) {
		hl = trunc_ihl[i] * 4;
		for (t = ETH_HDR_LEN; t < ETH_HDR_LEN + hl; t++) {
			sweep_config(s, &c, false);
			c.ihl = trunc_ihl[i];
			sweep_frame(s, &c, -1, t);
			if (trunc_ihl[i] != 5)
				continue;
			c.ihl_field = 3;
			sweep_frame(s, &c, -1, t);
		}
	}
}

/* IPv6, whole and truncated inside its header; with extension headers,
 * one to more than the guard walks, whole and cut inside the last */
static void sweep_ipv6(struct sweep *s)
{
	static const char *const chains[] = {
		"hbh", "srh", "frag", "ah", "dst", "dst,srh,frag,ah,hbh",
		"dst,dst,dst,dst,dst,dst,dst,dst", "dst,dst,dst,dst,dst,dst,dst,dst,dst",
	};
	struct config c;
	struct layout l;
	unsigned int i;
	size_t t;

	sweep_config(s, &c, true);
	sweep_frame(s, &c, -1, 0);
	for (t = ETH_HDR_LEN; t < ETH_HDR_LEN + IPV6_HDR_LEN; t++)
		sweep_frame(s, &c, -1, t);
	for (i = 0; i < ARRAY_SIZE(chains); i++) {
		sweep_config(s, &c, true);
		parse_ext6(&c, "--ext6", chains[i]);
		sweep_frame(s, &c, -1, 0);
		build_frame(&c, &l, pkt + MAX_VNET_SZ, true);
		sweep_frame(s, &c, -1, l.l2_len + l.l3_len - 7);
	}
}

/*
 * Ethertypes the guard must never judge, over an IPv4 packet and over a
 * byte pattern; and IPv4 and IPv6 bytes under each other's ethertype, which
 * the guard judges by the ethertype.
 */
static void sweep_types(struct sweep *s)
{
	static const uint16_t types[] = {
		0x0806,		/* ARP */
		0x8035,		/* RARP */
		0x88b5,		/* local experimental */
		0x8847,		/* MPLS unicast */
		0x8848,		/* MPLS multicast */
		0x88cc,		/* LLDP */
		0x05dc,		/* an 802.3 length, not a type */
	};
	struct config c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		sweep_config(s, &c, false);
		sweep_frame(s, &c, types[i], 0);
		c.ethertype = types[i];
		c.payload = IPV4_HDR_LEN + UDP_HDR_LEN + SWEEP_PAYLOAD;
		sweep_frame(s, &c, -1, 0);
	}
	sweep_config(s, &c, true);
	sweep_frame(s, &c, ETHERTYPE_IPV4, 0);
	sweep_config(s, &c, false);
	sweep_frame(s, &c, ETHERTYPE_IPV6, 0);
	c.ihl = 15;
	sweep_frame(s, &c, ETHERTYPE_IPV6, 0);
}

/*
 * VLAN tags: one (the kernel strips it), 802.1ad + 802.1Q (QinQ),
 * 802.1Q + 802.1Q, and longer stacks up to two more tags than the guard
 * steps over; each over IPv4 (IHL 5, IHL 15, an IHL field of 3), IPv6 and
 * an IPv4 packet under the ARP ethertype.
 */
static void sweep_tags(struct sweep *s)
{
	static const struct {
		uint16_t proto;
		unsigned int n;
	} stacks[] = {
		{ TPID_8021Q, 1 }, { TPID_8021AD, 1 },
		{ TPID_8021AD, 2 }, { TPID_8021Q, 2 },
		{ TPID_8021AD, 3 }, { TPID_8021Q, 4 },
		{ TPID_8021AD, 5 }, { TPID_8021Q, 5 },
		{ TPID_8021Q, SWEEP_TAGS_LEFT + 2 },
		{ TPID_8021AD, SWEEP_TAGS_LEFT + 3 },
	};
	struct config c;
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(stacks); i++) {
		for (k = 0; k < 5; k++) {
			sweep_config(s, &c, k == 3);
			c.vlan_proto = stacks[i].proto;
			c.nvlans = stacks[i].n;
			/* VID 0 would take the kernel's priority-tag path */
			for (j = 0; j < c.nvlans; j++)
				c.vlans[j] = 100 + j;
			switch (k) {
			case 1:
				c.ihl = 15;
				break;
			case 2:
				c.ihl_field = 3;
				break;
			}
			sweep_frame(s, &c, k == 4 ? 0x0806 : -1, 0);
		}
	}
}

/* --sweep: write (or list) the vectors of one class, then the summary */
static int run_sweep(struct config *cfg)
{
	static const uint8_t foreign[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct sweep s = { .base = cfg, .want = cfg->sweep, .fd = -1 };
	unsigned long total = 0;
	int i;

	/*
	 * A destination that is not the tap's: the host stack drops the frames
	 * right after the ingress hooks, so none is answered or forwarded.
	 */
	if (!cfg->have_dmac)
		memcpy(cfg->dmac, foreign, sizeof(foreign));
	if (cfg->dev)
		s.fd = open_tap(cfg);
	sweep_ipv4(&s);
	sweep_ipv6(&s);
	sweep_types(&s);
	sweep_tags(&s);
	if (s.fd >= 0)
		close(s.fd);
	for (i = 0; i < SW_NCLASS; i++)
		total += s.vectors[i];
	for (i = 0; i < SW_NCLASS; i++) {
		if (s.want != SW_ALL && s.want != i)
			continue;
		printf("summary sweep=%s vectors=%lu", sweep_names[i], s.vectors[i]);
		if (s.fd >= 0)
			printf(" accepted=%lu refused=%lu", s.accepted[i], s.refused[i]);
		printf(" generated=%lu generated_drop=%lu generated_unreadable=%lu"
		       " generated_pass=%lu\n", total, s.vectors[SW_DROP],
		       s.vectors[SW_UNREADABLE], s.vectors[SW_PASS]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *frame = pkt + MAX_VNET_SZ;
	struct config cfg;
	struct layout l;
	size_t wire_len;
	bool partial;
	int fd, ret;

	parse_args(&cfg, argc, argv);
	if (cfg.sweep >= 0)
		return run_sweep(&cfg);
	partial = !cfg.no_csum &&
		  (cfg.ethertype < 0 || cfg.csum_start >= 0);
	/* Check the frame before touching the tap, so bad sizes exit 2 */
	build_frame(&cfg, &l, frame, partial);
	wire_len = l.len;
	if (cfg.truncate >= 0) {
		if ((size_t)cfg.truncate > l.len) {
			fprintf(stderr, PROG ": --truncate %ld is longer than the %zu-byte frame\n",
				cfg.truncate, l.len);
			return EXIT_USAGE;
		}
		wire_len = cfg.truncate;
	}
	fd = cfg.packet ? open_packet(&cfg) : open_tap(&cfg);
	read_tap_mac(&cfg, fd);
	/* Rebuild with the tap's MAC in place; the vnet header goes first */
	build_frame(&cfg, &l, frame, partial);
	if (cfg.l3) {
		/* A tun takes the frame from its IP header on: csum_start
		 * and the layout lose the Ethernet header */
		struct virtio_net_hdr *vh;

		if (l.l2_len != ETH_HDR_LEN || wire_len < ETH_HDR_LEN) {
			fprintf(stderr, PROG ": %s is a tun: no VLAN tags, encapsulation or truncation into the Ethernet header\n",
				cfg.dev);
			return EXIT_USAGE;
		}
		frame += ETH_HDR_LEN;
		wire_len -= ETH_HDR_LEN;
		l.l2_len = 0;
		l.len -= ETH_HDR_LEN;
		build_vnet_hdr(&cfg, &l, frame - cfg.vnet_sz, partial);
		vh = (void *)(frame - cfg.vnet_sz);
		if (partial && cfg.csum_start >= 0)
			vh->csum_start = cfg.csum_start >= ETH_HDR_LEN ? cfg.csum_start - ETH_HDR_LEN : 0;
	} else {
		build_vnet_hdr(&cfg, &l, frame - cfg.vnet_sz, partial);
	}
	if (cfg.verbose)
		describe(&cfg, &l, frame - cfg.vnet_sz, wire_len);
	ret = send_frames(&cfg, &l, fd, frame, wire_len);
	close(fd);
	return ret;
}
