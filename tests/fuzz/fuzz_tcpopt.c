// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_tcpopt.c - the SYN-cookie responder's TCP option parsing
 * (sc_options_ok() and sc_synopt() of syncookie/sc_syn.bpf.h), compiled
 * for userspace, against an oracle written here.
 *
 * The input is a TCP header as it lies in the frame, its end the frame's
 * (data_end): the header's data offset says how long it claims to be, and
 * may claim more than the frame has, as an ACK's may (the SYN path has
 * checked the length before; the ACK path has not).
 *
 * What must hold:
 *   - no byte past data_end is read (AddressSanitizer; the frame is in a
 *     buffer of its own size);
 *   - sc_options_ok() accepts exactly the headers whose options end inside
 *     the header: EOL and NOP are single bytes, every other option has a
 *     length of at least 2 that stays within the header, and every byte
 *     the walk reads is in the frame;
 *   - sc_synopt() offers what the last option of each kind offers if that
 *     one has its kind's own length (MSS 4, window scale 3, clamped to 14,
 *     SACK-permitted 2, timestamp 10), else nothing of that kind;
 *   - where that last option is well formed, the offer is also what the
 *     kernel's tcp_parse_options() takes (the last well-formed one; MSS 0
 *     counts as none there, as it does in the cookie). The one known
 *     difference: a kind whose last option has a wrong length and an
 *     earlier one a right length; the kernel takes the earlier one, the
 *     responder offers none of that kind (a SYN no stack sends).
 *
 * Shims: the header's helpers are the BPF ones, declared by libbpf's
 * bpf_helpers.h (never called here); its two inline BPF instructions (a
 * mask the BPF compiler must keep, and an XOR with zero that hides values
 * from the verifier) change no value, and compile to nothing here.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "syncookie_abi.h"

#define asm
#define volatile(...)
#include "sc_syn.bpf.h"
#undef volatile
#undef asm

struct offer {
	__u32 mss, ws, sack, ts, tsval;
};

/*
 * The walk over the options: false if it meets an option that runs past
 * the header, a length below 2, or a byte the frame does not have. last[]:
 * where the last option of each kind starts; well[]: the last one of each
 * kind of the right length (as the kernel takes them).
 */
static bool walk(const uint8_t *th, size_t n, unsigned int thlen, int *last, int *well)
{
	static const uint8_t own[256] = { [2] = 4, [3] = 3, [4] = 2, [8] = 10 };
	unsigned int off = 20;

	while (off < thlen) {
		if (off >= n)
			return false;
		if (th[off] == 0)
			return true;
		if (th[off] == 1) {
			off++;
			continue;
		}
		if (off + 1 >= n || th[off + 1] < 2 || off + th[off + 1] > thlen)
			return false;
		last[th[off]] = off;
		if (own[th[off]] && th[off + 1] == own[th[off]] && off + own[th[off]] <= n)
			well[th[off]] = off;
		off += th[off + 1];
	}
	return true;
}

static __u32 be32(const uint8_t *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

/* What the options at o (-1: none) offer */
static struct offer offer_of(const uint8_t *th, const int *o)
{
	struct offer f = { .ws = 0xff };

	if (o[2] >= 0)
		f.mss = th[o[2] + 2] << 8 | th[o[2] + 3];
	if (o[3] >= 0)
		f.ws = th[o[3] + 2] > 14 ? 14 : th[o[3] + 2];
	if (o[4] >= 0)
		f.sack = 1;
	if (o[8] >= 0) {
		f.ts = 1;
		f.tsval = be32(th + o[8] + 2);
	}
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int last[256], well[256], mine[256], k;
	__u8 pos[256] = {};
	struct sc_synopt so;
	struct offer want, kernel;
	unsigned int thlen;
	bool ok, got;
	uint8_t *th;

	if (size < 20 || size > 80)
		return 0;
	th = malloc(size);
	memcpy(th, data, size);
	thlen = (th[12] >> 4) * 4;
	for (k = 0; k < 256; k++)
		last[k] = well[k] = mine[k] = -1;
	ok = walk(th, size, thlen, last, well);
	got = sc_options_ok(th, thlen, th + size, pos);
	if (got != ok)
		abort();
	if (!ok) {
		free(th);
		return 0;
	}
	/* the last option of each kind the program looks at, if well formed */
	for (k = 0; k < 256; k++) {
		if ((k == 2 || k == 3 || k == 4 || k == 8) && last[k] >= 0 && last[k] == well[k])
			mine[k] = last[k];
		if ((k == 2 || k == 3 || k == 4 || k == 8) && pos[k] != (last[k] < 0 ? 0 : last[k]))
			abort();
	}
	sc_synopt(th, th + size, pos, &so);
	want = offer_of(th, mine);
	if (so.mss != want.mss || so.ws != want.ws || so.sack != want.sack || so.ts != want.ts ||
	    (want.ts && so.tsval != want.tsval))
		abort();
	/* against the kernel's reading, where the last of a kind is well formed */
	kernel = offer_of(th, well);
	if ((last[2] == well[2] && so.mss != kernel.mss) ||
	    (last[3] == well[3] && so.ws != kernel.ws) ||
	    (last[4] == well[4] && so.sack != kernel.sack) ||
	    (last[8] == well[8] && (so.ts != kernel.ts || (so.ts && so.tsval != kernel.tsval))))
		abort();
	free(th);
	return 0;
}
