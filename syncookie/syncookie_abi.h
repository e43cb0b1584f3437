/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * syncookie_abi.h - what the SYN-cookie responder (syncookie.bpf.c) and
 * its loader (the other files of syncookie/) agree on: counter indices, the port
 * bitmap, object and pin names. Bump SC_ABI_VERSION when any of it changes
 * meaning; the loader refuses pins of another version and starts over.
 */
#ifndef SYNCOOKIE_ABI_H
#define SYNCOOKIE_ABI_H

#define SC_ABI_VERSION		7

/* Per-CPU counters. Only SYNs to a protected port are counted. */
enum sc_counter {
	SC_CNT_SYNACK = 0,	/* answered with a cookie SYN-ACK */
	SC_CNT_PASSED = 1,	/* handed to the stack, malformed ones included */
	SC_CNT_MALFORMED = 2,	/* of those, malformed (never answered) */
	SC_CNT_FOREIGN = 3,	/* not for this host's own listeners: left to the stack,
				 * not in passed (see struct sc_conf) */
	/* syncookie_ack: ACKs whose cookie and timestamp were ours (or, raw
	 * cookies, whose cookie was), and */
	SC_CNT_ACK = 4,		/* the kernel took a request socket with their options
				 * (with the tables standing, SYNPROXY then takes the ACK) */
	SC_CNT_ACK_REFUSED = 5,	/* the kernel refused it: dropped (the client sends again) */
	SC_CNT_MAX,
};

/*
 * What the program knows of its device, written by attach (and again by
 * every attach that finds it running): the device's MAC, the MSS its MTU
 * allows, IPv4 and IPv6 (host order), whether --allow limits the sources,
 * which options a cookie may carry in its timestamp (the namespace's
 * sysctls as attach found them) with the window scale to advertise, and
 * two of the host's addresses.
 */
struct sc_conf {
	unsigned char mac[6];
	unsigned short mss4, mss6;
	unsigned short allow;	/* 1: answer only sources in the sc_allow trie */
	unsigned char opts;	/* SC_OPT_*: none, the SYN-ACK has the MSS option alone */
	unsigned char wscale;	/* the listener's shift with default buffers */
	unsigned short pad;
	/*
	 * Two of the host's IPv4 addresses (network order, 0: none), the
	 * device's own first: sc_routes answers SC_ROUTE_LOCAL for them (a
	 * /32 of the host's, the longest prefix there is), so a SYN to one
	 * needs no walk for its destination.
	 */
	unsigned int local4[2];
};

/*
 * sc_conf.opts: how the SYN-ACK's timestamp carries the client's options,
 * if it does (neither: the MSS option alone).
 * SC_OPT_TS: net.ipv4.tcp_timestamps is 2, so the kernel adds no secret
 * offset to timestamps and decodes the low 6 bits of the echoed TSval as
 * cookie_init_timestamp() wrote them: the TSval is the kernel's clock.
 * SC_OPT_ACK: syncookie_ack runs on the device (bpf_sk_assign_tcp_reqsk,
 * 6.9+) and decodes them itself, whatever the offset: the TSval is
 * SC_TS_TAG(cookie) << SC_TS_TAG_SHIFT | the MSS's index << SC_TS_MSS_SHIFT
 * | the 6 bits; the kernel then continues the timestamps from it.
 * SC_OPT_TS wins where both could be.
 * SC_OPT_RAW: the cookies are the kernel's raw ones
 * (bpf_tcp_raw_gen_syncookie_ipv4/6, 6.0+), of no listener: SYNPROXY (the
 * hand-off tables) takes their ACKs, and syncookie_ack where the tables
 * are gone; the listener's own cookie path would refuse them (no SYN queue
 * overflow of its own). The options then go in the SC_OPT_ACK layout,
 * whose low 6 bits SYNPROXY decodes.
 */
#define SC_OPT_TS		0x01
#define SC_OPT_SACK		0x02	/* tcp_sack */
#define SC_OPT_WS		0x04	/* tcp_window_scaling */
#define SC_OPT_ECN		0x08	/* tcp_ecn 1 or 2 */
#define SC_OPT_ACK		0x10
#define SC_OPT_RAW		0x20

#define SC_TS_MSS_SHIFT		6
#define SC_TS_TAG_SHIFT		8
/* 24 bits from the cookie: tells the program's timestamps from the kernel's */
#define SC_TS_TAG(cookie)	(((__u32)(cookie) * 0x9e3779b1U) >> SC_TS_TAG_SHIFT)

/*
 * The namespace's addresses and routes as attach found them, an LPM trie:
 * IPv4 as ::ffff:a.b.c.d (prefix + 96). The value is SC_ROUTE_LOCAL for an
 * address of the host (a /128), SC_ROUTE_REJECT for an unreachable,
 * blackhole or prohibit route, else the ifindex of the route's device.
 */
struct sc_route_key {
	unsigned int prefixlen;
	unsigned char addr[16];
};

/*
 * The same for IPv4 with 32-bit keys (sc_routes4): the entries of sc_routes
 * inside ::ffff:0:0/96 (prefix - 96, the address's last 4 bytes), which
 * the SYN path walks instead of the wider trie. Where it has no match, the
 * wider trie's entries shorter than /96 that cover the address (an IPv6
 * default route) answer, as they would in sc_routes alone.
 */
struct sc_route4_key {
	unsigned int prefixlen;
	unsigned int addr;	/* network order */
};

#define SC_ROUTE_LOCAL		0xffffffffU
#define SC_ROUTE_REJECT		0U
#define SC_ROUTES_MAX		4096

/*
 * The answer of sc_routes4 (and sc_routes behind it) for every IPv4
 * address, expanded into a table of 8-bit strides (sc_rtab4, built by
 * rtab.c): an array of nodes of 256 slots, one per value of the address's
 * next byte, at most four nodes walked per address, each an array read the
 * verifier inlines, where the tries cost a helper call and a walk each.
 * A slot holds an answer of the tries (SC_ROUTE_LOCAL, SC_ROUTE_REJECT, an
 * ifindex: below SC_RTAB4_CHILD), SC_RTAB4_CHILD | the index of the node
 * of the next byte, or SC_RTAB4_TRIE: ask the tries (the table ran out of
 * nodes there). Node 0 is the root, for the first byte; the nodes below it
 * are either of two halves, 1 to SC_RTAB4_HALF and SC_RTAB4_HALF + 1 to
 * 2 * SC_RTAB4_HALF. The loader writes a new table's nodes into the half
 * the root does not point into, then the root over the old one: a program
 * walking it meanwhile reads each slot of the root old or new, and below
 * it either table whole.
 */
struct sc_rtab4_node {
	unsigned int slot[256];
};

#define SC_RTAB4_CHILD		0x80000000U
#define SC_RTAB4_KIND		0xc0000000U	/* (slot & KIND) == CHILD: a node */
#define SC_RTAB4_TRIE		0xfffffffeU
#define SC_RTAB4_HALF		127		/* nodes of one table */
#define SC_RTAB4_NODES		(1 + 2 * SC_RTAB4_HALF)
/* attach --allow: the sources answered, the same keys, value 1 */
#define SC_ALLOW_MAX		256

/* The protected ports: one bit per port, port p at bits[p >> 3] bit p & 7. */
struct sc_ports {
	unsigned char bits[65536 / 8];
};

#define SC_PROG_XDP		"syncookie_xdp"	/* the listener read by bpf_rdonly_cast */
#define SC_PROG_TC		"syncookie_tc"
#define SC_PROG_XDP_H		"syncookie_xdp_h"	/* by bpf_skc_to_tcp_sock */
#define SC_PROG_TC_H		"syncookie_tc_h"
#define SC_PROG_ACK		"syncookie_ack"	/* tc ingress, beside either */
#define SC_MAP_PORTS		"sc_ports"
#define SC_MAP_COUNTERS		"sc_counters"
#define SC_MAP_CONF		"sc_conf"
#define SC_MAP_ROUTES		"sc_routes"
#define SC_MAP_ROUTES4		"sc_routes4"
#define SC_MAP_ALLOW		"sc_allow"
#define SC_MAP_RTAB4		"sc_rtab4"

#define SC_PIN_ROOT		"/sys/fs/bpf/csum_guard_syncookie"
/* under SC_PIN_ROOT/<netns inode>/<ifindex>/ */
#define SC_PIN_LINK		"link"		/* xdp or tcx link */
#define SC_PIN_ACK		"ack_link"	/* syncookie_ack's tcx link */
#define SC_PIN_PROG		"prog"		/* clsact: the filter's program */
#define SC_PIN_PORTS		"ports"
#define SC_PIN_COUNTERS		"counters"
#define SC_PIN_CONF		"conf"
#define SC_PIN_ROUTES		"routes"
#define SC_PIN_ROUTES4		"routes4"
#define SC_PIN_ALLOW		"allow"
#define SC_PIN_RTAB4		"rtab4"
#define SC_PIN_META		"meta"
#define SC_PIN_APPLY		"apply"		/* struct sc_applied: apply made it */

/* nft mode (no helper): the kernel's SYNPROXY in a table of our own per device */
#define SC_NFT_TABLE_FMT	"csum_guard_syncookie_%d"

#endif /* SYNCOOKIE_ABI_H */
