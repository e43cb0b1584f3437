/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * syncookie_abi.h - what the SYN-cookie responder (syncookie.bpf.c) and
 * its loader (the other files of syncookie/) agree on: counter indices, the port
 * bitmap, object and pin names. Bump SC_ABI_VERSION when any of it changes
 * meaning; the loader refuses pins of another version and starts over.
 */
#ifndef SYNCOOKIE_ABI_H
#define SYNCOOKIE_ABI_H

#define SC_ABI_VERSION		1

/* Per-CPU counters. Only SYNs to a protected port are counted. */
enum sc_counter {
	SC_CNT_SYNACK = 0,	/* answered with a cookie SYN-ACK */
	SC_CNT_PASSED = 1,	/* handed to the stack, malformed ones included */
	SC_CNT_MALFORMED = 2,	/* of those, malformed (never answered) */
	SC_CNT_MAX,
};

/* The protected ports: one bit per port, port p at bits[p >> 3] bit p & 7. */
struct sc_ports {
	unsigned char bits[65536 / 8];
};

#define SC_PROG_XDP		"syncookie_xdp"
#define SC_PROG_TC		"syncookie_tc"
#define SC_MAP_PORTS		"sc_ports"
#define SC_MAP_COUNTERS		"sc_counters"

#define SC_PIN_ROOT		"/sys/fs/bpf/csum_guard_syncookie"
/* under SC_PIN_ROOT/<netns inode>/<ifindex>/ */
#define SC_PIN_LINK		"link"		/* xdp or tcx link */
#define SC_PIN_PROG		"prog"		/* clsact: the filter's program */
#define SC_PIN_PORTS		"ports"
#define SC_PIN_COUNTERS		"counters"
#define SC_PIN_META		"meta"

/* nft mode (no helper): the kernel's SYNPROXY in a table of our own per device */
#define SC_NFT_TABLE_FMT	"csum_guard_syncookie_%d"

#endif /* SYNCOOKIE_ABI_H */
