// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * unit.c - the drop decision and the backend choice, without a kernel;
 * and the SYN responder's table of IPv4 routes.
 *
 * Prints one "PASS name" / "FAIL name: why" line per test, as the suite
 * runner expects, then "unit: N passed, N failed" once all have run, and
 * exits 1 if anything failed. The runner holds the lines to that summary
 * and to the exit status, so a crash or an early exit cannot pass.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "csum_guard.h"
#include "csum_guard_abi.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "nl.h"
#include "rtab.h"
#include "select.h"
#include "sha256.h"
#include "state.h"
#include "util.h"

static int failures, passes;

/*
 * UNIT_TEST(test_x) { ... } defines a test and registers it: each leaves a
 * struct unit_test in the section unit_tests, which main() walks from the
 * linker's __start_ to its __stop_ symbol. A new test is one function, no
 * list to edit; they run in no order that matters.
 */
struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_TEST(fn_)							\
	static void fn_(void);						\
	static const struct unit_test unit_test_##fn_			\
	__attribute__((used, section("unit_tests"), aligned(sizeof(void *)))) = { #fn_, fn_ }; \
	static void fn_(void)

extern const struct unit_test __start_unit_tests[], __stop_unit_tests[];

static void report(const char *name, int bad, const char *why)
{
	if (bad) {
		printf("FAIL unit/%s: %s\n", name, why);
		failures++;
	} else {
		printf("PASS unit/%s\n", name);
		passes++;
	}
}

#define NH 14	/* network header of an untagged Ethernet frame */

static struct cg_fields v4(__u32 csum_start, __u8 ihl)
{
	struct cg_fields f = {
		.csum_start = csum_start,
		.network_header = NH,
		.protocol = CG_ETH_P_IP,
		.ip_summed = CG_CHECKSUM_PARTIAL,
		.l3_readable = 1,
		.ip_vhl = 0x40 | ihl,
	};
	return f;
}

/* A table of hand-picked vectors: the reference's cases and the edges. */
UNIT_TEST(test_vectors)
{
	static const struct {
		const char *what;
		__u32 csum_start;
		__u8 ihl;
		enum cg_verdict want;
	} vec[] = {
		{ "reference bad frame: 6 bytes into the header", 20, 5, CG_DROP },
		{ "start of the IP header", 14, 5, CG_DROP },
		{ "before the IP header", 0, 5, CG_DROP },
		{ "last byte of a 20-byte header", 33, 5, CG_DROP },
		{ "UDP header after 20 bytes", 34, 5, CG_PASS },
		{ "past the transport header", 60, 5, CG_PASS },
		{ "inside options, IHL 15", 73, 15, CG_DROP },
		{ "after options, IHL 15", 74, 15, CG_PASS },
		{ "IHL 6, start at 20-byte mark", 34, 6, CG_DROP },
		{ "IHL 6, after options", 38, 6, CG_PASS },
		{ "IHL 4 fails closed", 34, 4, CG_DROP_UNREADABLE },
		{ "IHL 0 fails closed", 100, 0, CG_DROP_UNREADABLE },
		{ "csum_start far beyond", 0xffff, 5, CG_PASS },
	};
	char why[160], name[32];
	unsigned int i;

	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		struct cg_fields f = v4(vec[i].csum_start, vec[i].ihl);
		enum cg_verdict got = cg_verdict(&f);

		snprintf(name, sizeof(name), "vector-%02u", i);
		snprintf(why, sizeof(why), "%s: csum_start=%u ihl=%u: verdict %d, want %d",
			 vec[i].what, vec[i].csum_start, vec[i].ihl, got, vec[i].want);
		report(name, got != vec[i].want, why);
	}
}

/*
 * Every csum_start 0..200 for every IHL 0..15: dropped exactly below
 * network_header + ihl * 4, IHL below 5 always fails closed, and the first
 * passing offset is the end of the header.
 */
UNIT_TEST(test_sweep)
{
	char why[160] = "";
	unsigned int ihl, cs, n = 0, bad = 0;

	for (ihl = 0; ihl < 16; ihl++) {
		for (cs = 0; cs <= 200; cs++, n++) {
			struct cg_fields f = v4(cs, ihl);
			enum cg_verdict want, got = cg_verdict(&f);

			if (ihl < 5)
				want = CG_DROP_UNREADABLE;
			else
				want = cs < NH + ihl * 4 ? CG_DROP : CG_PASS;
			if (got != want && !bad++)
				snprintf(why, sizeof(why), "ihl=%u csum_start=%u: verdict %d, want %d",
					 ihl, cs, got, want);
		}
	}
	report("sweep-ihl-csum_start", bad, why);
	printf("# unit: %u (ihl, csum_start) vectors swept\n", n);
}

/* The network header need not be at 14: L3 devices, tags left in place. */
UNIT_TEST(test_network_header_moves)
{
	struct cg_fields f = v4(0, 5);
	int bad = 0;

	f.network_header = 0;	/* no MAC header (tun, wireguard) */
	f.csum_start = 19;
	bad |= cg_verdict(&f) != CG_DROP;
	f.csum_start = 20;
	bad |= cg_verdict(&f) != CG_PASS;
	f.network_header = 18;	/* one 802.1Q tag still in front */
	f.csum_start = 37;
	bad |= cg_verdict(&f) != CG_DROP;
	f.csum_start = 38;
	bad |= cg_verdict(&f) != CG_PASS;
	report("network-header-offsets", bad, "csum_start compared to the wrong header end");
}

/* Nothing but CHECKSUM_PARTIAL IP (or VLAN-tagged) is judged, whatever its header says. */
UNIT_TEST(test_not_judged)
{
	static const __u8 summed[] = { 0, 1, 2 };	/* NONE, UNNECESSARY, COMPLETE */
	static const __u16 protos[] = { 0x0806, 0x9100, 0x88b5, 0x8847, 0x0000 };
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(summed); i++) {
		struct cg_fields f = v4(0, 0);

		f.ip_summed = summed[i];
		f.l3_readable = 0;
		bad |= cg_judged(&f) || cg_wants_l3(&f) || cg_verdict(&f) != CG_PASS;
	}
	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		struct cg_fields f = v4(0, 0);

		f.protocol = protos[i];
		f.l3_readable = 0;
		bad |= cg_judged(&f) || cg_wants_l3(&f) || cg_verdict(&f) != CG_PASS;
	}
	/* a tag not CHECKSUM_PARTIAL is left alone, unread */
	for (i = 0; i < sizeof(summed); i++) {
		struct cg_fields f = v4(0, 0);

		f.ip_summed = summed[i];
		f.protocol = CG_ETH_P_8021AD;
		bad |= cg_judged(&f) || cg_wants_vlan(&f) || cg_verdict(&f) != CG_PASS;
	}
	report("only-partial-ip-judged", bad, "a packet that is not CHECKSUM_PARTIAL IP was judged");
}

/*
 * Tags left in the packet: a frame laid out as the hooks see it, walked the
 * way both backends walk it. The network header is nh: at the first
 * remaining tag (ingress), or past the tags (egress, an AF_PACKET frame),
 * with the MAC header at 0. Up to CG_VLAN_MAX tags the inner header's rule
 * applies; deeper, or a tag cut short, fails closed; a non-IP payload
 * behind tags passes. IPv6: the next-header byte, then the extension
 * headers, each read only while the decision wants it, as the backends do.
 */
static enum cg_verdict walk(__u8 *pkt, unsigned int len, __u16 proto, __u32 cs,
			    __u32 nh)
{
	struct cg_fields f = {
		.csum_start = cs,
		.network_header = nh,
		.protocol = proto,
		.ip_summed = CG_CHECKSUM_PARTIAL,
	};
	int i;

	cg_vlan_rewind(&f, 0);
	for (i = 0; i < CG_VLAN_MAX && cg_wants_vlan(&f); i++) {
		if (f.network_header + f.l3_off + CG_VLAN_HLEN > len)
			break;
		cg_vlan_step(&f, pkt + f.network_header + f.l3_off);
	}
	if (cg_wants_l3(&f) && f.network_header + f.l3_off < len) {
		f.l3_readable = 1;
		f.ip_vhl = pkt[f.network_header + f.l3_off];
	}
	if (cg_wants_ip6(&f) && f.network_header + f.l3_off + CG_IPV6_NEXTHDR_OFF < len)
		cg_ip6_start(&f, pkt[f.network_header + f.l3_off + CG_IPV6_NEXTHDR_OFF]);
	for (i = 0; i < CG_IPV6_EXT_MAX && cg_wants_ext(&f); i++) {
		if (f.network_header + f.l3_off + f.ip6_len + 2 > len)
			break;
		cg_ip6_step(&f, pkt + f.network_header + f.l3_off + f.ip6_len);
	}
	return cg_verdict(&f);
}

UNIT_TEST(test_vlan)
{
	static const __u16 inner[] = { CG_ETH_P_IP, CG_ETH_P_IPV6, 0x0806 };
	char why[160] = "";
	unsigned int depth, k, cs, bad = 0;
	__u8 pkt[256];

	for (depth = 1; depth <= CG_VLAN_MAX + 2; depth++) {
		for (k = 0; k < sizeof(inner) / sizeof(inner[0]); k++) {
			unsigned int l3 = NH + 4 * depth, hl, t;
			__u16 first = depth & 1 ? CG_ETH_P_8021Q : CG_ETH_P_8021AD;

			memset(pkt, 0, sizeof(pkt));
			/* depth tags at NH: each names the next type */
			for (t = 0; t < depth; t++) {
				__u16 next = t + 1 < depth ? CG_ETH_P_8021Q : inner[k];

				pkt[NH + 4 * t + 2] = next >> 8;
				pkt[NH + 4 * t + 3] = next & 0xff;
			}
			pkt[l3] = inner[k] == CG_ETH_P_IPV6 ? 0x60 : 0x46;
			pkt[l3 + CG_IPV6_NEXTHDR_OFF] = 17;	/* IPv6: UDP */
			hl = inner[k] == CG_ETH_P_IPV6 ? 40 : 24;
			for (cs = 0; cs < l3 + hl + 8; cs++) {
				enum cg_verdict want, got;

				if (depth > CG_VLAN_MAX)
					want = CG_DROP_UNREADABLE;
				else if (inner[k] == 0x0806)
					want = CG_PASS;
				else
					want = cs < l3 + hl ? CG_DROP : CG_PASS;
				got = walk(pkt, sizeof(pkt), first, cs, NH);
				if (got != want && !bad++)
					snprintf(why, sizeof(why),
						 "%u tags, inner 0x%04x, csum_start %u: verdict %d, want %d",
						 depth, inner[k], cs, got, want);
				/* egress: the kernel moved nh past up to 8 tags */
				got = walk(pkt, sizeof(pkt), first, cs, depth <= 8 ? l3 : NH);
				if (got != want && !bad++)
					snprintf(why, sizeof(why),
						 "egress, %u tags, inner 0x%04x, csum_start %u: verdict %d, want %d",
						 depth, inner[k], cs, got, want);
			}
		}
	}
	/* the second tag cut off by the end of the frame */
	pkt[NH + 2] = CG_ETH_P_8021Q >> 8;
	pkt[NH + 3] = CG_ETH_P_8021Q & 0xff;
	if (walk(pkt, NH + 6, CG_ETH_P_8021AD, 200, NH) != CG_DROP_UNREADABLE && !bad++)
		snprintf(why, sizeof(why), "a truncated inner tag did not fail closed");
	report("vlan-tags-stepped-over", bad, why);
}

UNIT_TEST(test_unreadable)
{
	struct cg_fields f = v4(100, 5);
	int bad;

	f.l3_readable = 0;
	bad = cg_verdict(&f) != CG_DROP_UNREADABLE;
	bad |= CG_VERDICT_COUNTER(CG_DROP) != CG_CNT_DROPPED;
	bad |= CG_VERDICT_COUNTER(CG_DROP_UNREADABLE) != CG_CNT_DROPPED_UNREADABLE;
	report("unreadable-fails-closed", bad, "unreadable header not dropped into counter 1");
}

/*
 * IPv6 with TCP right after the fixed header: csum_start below the end of
 * the 40 bytes drops, unread; at or past it the next-header byte is read,
 * and nothing else; unreadable, it fails closed.
 */
UNIT_TEST(test_ipv6)
{
	char why[160] = "";
	unsigned int cs, nh, bad = 0;
	__u8 pkt[200] = { 0 };

	for (nh = 0; nh <= 22; nh += 4) {
		memset(pkt, 0, sizeof(pkt));
		pkt[nh] = 0x60;
		pkt[nh + CG_IPV6_NEXTHDR_OFF] = 6;	/* TCP */
		for (cs = 0; cs <= 120; cs++) {
			struct cg_fields f = {
				.csum_start = cs,
				.network_header = nh,
				.protocol = CG_ETH_P_IPV6,
				.ip_summed = CG_CHECKSUM_PARTIAL,
			};
			enum cg_verdict want = cs < nh + 40 ? CG_DROP : CG_PASS;
			enum cg_verdict cut = cs < nh + 40 ? CG_DROP : CG_DROP_UNREADABLE;

			if (walk(pkt, sizeof(pkt), CG_ETH_P_IPV6, cs, nh) != want && !bad++)
				snprintf(why, sizeof(why), "nh=%u csum_start=%u: verdict %d, want %d",
					 nh, cs, walk(pkt, sizeof(pkt), CG_ETH_P_IPV6, cs, nh), want);
			/* the frame ends before the next-header byte */
			if (walk(pkt, nh + CG_IPV6_NEXTHDR_OFF, CG_ETH_P_IPV6, cs, nh) != cut && !bad++)
				snprintf(why, sizeof(why), "nh=%u csum_start=%u, cut: verdict %d, want %d",
					 nh, cs, walk(pkt, nh + 6, CG_ETH_P_IPV6, cs, nh), cut);
			/* the common path reads one byte and walks nothing */
			if (cg_wants_l3(&f) || !cg_judged(&f) || cg_wants_ip6(&f) != (cs >= nh + 40))
				bad++;
			if (cg_wants_ip6(&f)) {
				cg_ip6_start(&f, 6);
				if (cg_wants_ext(&f))
					bad++;
			}
		}
	}
	report("ipv6-fixed-header", bad, why);
}

/*
 * The bpf program's fast paths pass the common frames on cg_ip4_passes()
 * and cg_ip6_passes() alone, from the one byte each reads, and send every
 * other frame the long way. For every value of that byte and every
 * csum_start: what the pass test passes, the long way (walk(), the path of
 * every other frame) must pass, and what the long way passes the pass test
 * must pass too, but for IPv6 frames whose byte names an extension header
 * (their chain is the long way's to walk). The verdicts the two ends make
 * for cg_verdict() must match the long way's too: IPv4 for each
 * version/IHL byte, IPv6 for each next-header value (the extension headers
 * behind it empty, so the long way has a chain to walk).
 */
UNIT_TEST(test_fast_paths)
{
	char why[160] = "";
	unsigned int b, cs, n = 0, slow = 0, bad = 0;
	__u8 pkt[200];

	for (b = 0; b < 256; b++) {
		for (cs = 0; cs <= 120; cs++, n++) {
			enum cg_verdict end, full;
			bool pass;

			memset(pkt, 0, sizeof(pkt));
			pkt[NH] = b;
			pass = cg_ip4_passes(cs, NH, b);
			end = cg_ip4_verdict(cs, NH, b);
			full = walk(pkt, sizeof(pkt), CG_ETH_P_IP, cs, NH);
			if ((pass != (full == CG_PASS) || end != full) && !bad++)
				snprintf(why, sizeof(why),
					 "IPv4 vhl=0x%02x csum_start=%u: passes %d, verdict %d, long way %d",
					 b, cs, pass, end, full);
			memset(pkt, 0, sizeof(pkt));
			pkt[NH] = 0x60;
			pkt[NH + CG_IPV6_NEXTHDR_OFF] = b;
			pass = cg_ip6_passes(cs, NH, CG_IPV6_HLEN, b);
			end = cg_ip6_verdict(cs, NH, CG_IPV6_HLEN, b);
			full = walk(pkt, sizeof(pkt), CG_ETH_P_IPV6, cs, NH);
			if (!pass && cs >= NH + CG_IPV6_HLEN && cg_ipv6_is_ext(b)) {
				/* the long way's: csum_start past the fixed
				 * header, b names an extension header */
				slow++;
				if (end != CG_DROP_UNREADABLE && !bad++)
					snprintf(why, sizeof(why), "IPv6 next=%u csum_start=%u: verdict %d, not unwalked",
						 b, cs, end);
			} else if ((pass != (full == CG_PASS) || end != full) && !bad++) {
				snprintf(why, sizeof(why),
					 "IPv6 next=%u csum_start=%u: passes %d, verdict %d, long way %d",
					 b, cs, pass, end, full);
			}
		}
	}
	report("fast-paths", bad, why);
	printf("# unit: %u (byte, csum_start) vectors per family through the fast paths, %u IPv6 left to the long way\n",
	       n, slow);
}

/*
 * IPv6 extension headers: chains laid out byte by byte, lengths computed
 * here from the RFCs' formats (not by cg_ip6_step()), every csum_start
 * from 0 past the transport header swept: inside the fixed header or any
 * extension header drops, at or past the transport header passes; a chain
 * longer than CG_IPV6_EXT_MAX, or cut short by the end of the frame, fails
 * closed past the part walked.
 */
struct ext { __u8 type, len_byte; unsigned int bytes; };

/* Lay the chain out after a fixed header at NH; the transport header's
 * offset. */
static unsigned int chain(__u8 *pkt, const struct ext *e, unsigned int n, __u8 l4)
{
	unsigned int off = NH + 40, i;

	memset(pkt, 0, 1024);
	pkt[NH] = 0x60;
	pkt[NH + CG_IPV6_NEXTHDR_OFF] = n ? e[0].type : l4;
	for (i = 0; i < n; i++) {
		pkt[off] = i + 1 < n ? e[i + 1].type : l4;
		pkt[off + 1] = e[i].len_byte;
		off += e[i].bytes;
	}
	return off;
}

UNIT_TEST(test_ipv6_ext)
{
	/* type, length byte, bytes on the wire (RFC 8200; AH: RFC 4302) */
	static const struct ext hbh = { CG_IPPROTO_HOPOPTS, 0, 8 },
		srh = { CG_IPPROTO_ROUTING, 4, 40 },		/* two segments */
		frag = { CG_IPPROTO_FRAGMENT, 0x5a, 8 },	/* reserved byte ignored */
		ah = { CG_IPPROTO_AH, 4, 24 },
		dst = { CG_IPPROTO_DSTOPTS, 1, 16 };
	static const struct { const char *what; struct ext e[10]; unsigned int n; } chains[] = {
		{ "hop-by-hop", { hbh }, 1 },
		{ "routing (SRH, 2 segments)", { srh }, 1 },
		{ "fragment", { frag }, 1 },
		{ "AH", { ah }, 1 },
		{ "dstopts, routing, fragment, AH, dstopts", { dst, srh, frag, ah, dst }, 5 },
		{ "8 destination options", { dst, dst, dst, dst, dst, dst, dst, dst }, 8 },
		{ "9 destination options", { dst, dst, dst, dst, dst, dst, dst, dst, dst }, 9 },
	};
	char why[200] = "";
	unsigned int c, cs, l4, bad = 0, n = 0;
	static __u8 pkt[1024];

	for (c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
		l4 = chain(pkt, chains[c].e, chains[c].n, 6);
		for (cs = 0; cs < l4 + 24; cs++, n++) {
			enum cg_verdict want, got;

			if (cs < l4)
				want = cs < NH + 40 || chains[c].n <= CG_IPV6_EXT_MAX ? CG_DROP :
				       CG_DROP_UNREADABLE;
			else
				want = chains[c].n <= CG_IPV6_EXT_MAX ? CG_PASS : CG_DROP_UNREADABLE;
			/* past the walk's bound: dropped whether inside or after */
			if (chains[c].n > CG_IPV6_EXT_MAX && cs >= NH + 40 && cs < l4) {
				unsigned int walked = NH + 40, i;

				for (i = 0; i < CG_IPV6_EXT_MAX; i++)
					walked += chains[c].e[i].bytes;
				want = cs < walked ? CG_DROP : CG_DROP_UNREADABLE;
			}
			got = walk(pkt, sizeof(pkt), CG_ETH_P_IPV6, cs, NH);
			if (got != want && !bad++)
				snprintf(why, sizeof(why), "%s: csum_start %u (transport at %u): verdict %d, want %d",
					 chains[c].what, cs, l4, got, want);
			/* the frame ends inside the last extension header */
			if (cs >= l4 - 1 && walk(pkt, l4 - chains[c].e[chains[c].n - 1].bytes + 1,
						 CG_ETH_P_IPV6, cs, NH) != CG_DROP_UNREADABLE && !bad++)
				snprintf(why, sizeof(why), "%s cut short: csum_start %u not failed closed",
					 chains[c].what, cs);
		}
	}
	report("ipv6-extension-headers", bad, why);
	printf("# unit: %u (chain, csum_start) vectors swept\n", n);
}

/* The digest attach --object checks: the FIPS 180-4 examples, and lengths
 * around the padding edges against a digest of their concatenation. */
UNIT_TEST(test_sha256)
{
	static const struct {
		const char *in;
		const char *hex;
	} vec[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
		  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	static unsigned char million[1000000];
	unsigned char d[CG_SHA256_LEN];
	char hex[CG_SHA256_HEX + 1], why[160] = "";
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		cg_sha256(vec[i].in, strlen(vec[i].in), d);
		cg_sha256_hex(d, hex);
		if (strcmp(hex, vec[i].hex) && !bad++)
			snprintf(why, sizeof(why), "\"%.20s\": %s", vec[i].in, hex);
	}
	memset(million, 'a', sizeof(million));
	cg_sha256(million, sizeof(million), d);
	cg_sha256_hex(d, hex);
	if (strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") && !bad++)
		snprintf(why, sizeof(why), "a million 'a': %s", hex);
	report("sha256-fips-180-4", bad, why);
}

UNIT_TEST(test_select)
{
	static const struct {
		const char *what;
		struct cg_probe p;
		enum cg_choice req, want;
	} cases[] = {
		{ "modern host picks bpf",
		  { .root = 1, .btf = 1, .kfunc = 1, .prog_loads = 1, .kmod_loadable = 1 },
		  CG_CHOICE_NONE, CG_CHOICE_BPF },
		{ "no kfunc picks kmod",
		  { .root = 1, .btf = 1, .kmod_loadable = 1 }, CG_CHOICE_NONE, CG_CHOICE_KMOD },
		{ "no BTF picks a loaded module",
		  { .root = 1, .kmod_loaded = 1 }, CG_CHOICE_NONE, CG_CHOICE_KMOD },
		{ "program that fails to load falls back to kmod",
		  { .root = 1, .btf = 1, .kfunc = 1, .kmod_loadable = 1 },
		  CG_CHOICE_NONE, CG_CHOICE_KMOD },
		{ "nothing usable",
		  { .root = 1, .btf = 1 }, CG_CHOICE_NONE, CG_CHOICE_NONE },
		{ "not root",
		  { .btf = 1, .kfunc = 1, .prog_loads = 1, .kmod_loaded = 1 },
		  CG_CHOICE_NONE, CG_CHOICE_NONE },
		{ "kmod forced on a bpf host",
		  { .root = 1, .btf = 1, .kfunc = 1, .prog_loads = 1, .kmod_loadable = 1 },
		  CG_CHOICE_KMOD, CG_CHOICE_KMOD },
		{ "kmod forced without a module",
		  { .root = 1, .btf = 1, .kfunc = 1, .prog_loads = 1 },
		  CG_CHOICE_KMOD, CG_CHOICE_NONE },
		{ "bpf forced without the kfunc",
		  { .root = 1, .btf = 1, .kmod_loaded = 1 }, CG_CHOICE_BPF, CG_CHOICE_NONE },
	};
	unsigned int i;
	char why[256], msg[400], name[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum cg_choice got = cg_select(&cases[i].p, cases[i].req, why, sizeof(why));

		snprintf(msg, sizeof(msg), "%s: got %s, want %s (%s)", cases[i].what,
			 cg_choice_name(got) ?: "none", cg_choice_name(cases[i].want) ?: "none", why);
		snprintf(name, sizeof(name), "select-%02u", i);
		report(name, got != cases[i].want || !*why, msg);
	}
}

/* A named assertion: the name, and the condition as written when it fails */
#define EXPECT(name, cond) report(name, !(cond), #cond)

/* which kernels probe knows to lack tracing with registers before the module loads */
UNIT_TEST(test_no_ftrace_regs)
{
	EXPECT("ftrace-regs-arm64-6.2", cg_no_ftrace_regs("aarch64", "6.2.0-1-arm64"));
	EXPECT("ftrace-regs-arm64-6.12", cg_no_ftrace_regs("aarch64", "6.12.95+bpo-arm64"));
	EXPECT("ftrace-regs-arm64-7.2", cg_no_ftrace_regs("aarch64", "7.2.13-arm64"));
	EXPECT("ftrace-regs-arm64-6.1", !cg_no_ftrace_regs("aarch64", "6.1.0-37-arm64"));
	EXPECT("ftrace-regs-arm64-5.10", !cg_no_ftrace_regs("aarch64", "5.10.0-32-arm64"));
	EXPECT("ftrace-regs-x86-6.18", !cg_no_ftrace_regs("x86_64", "6.18.44"));
	EXPECT("ftrace-regs-arm64-garbled", !cg_no_ftrace_regs("aarch64", "unknown"));
}

/* lib/nl: a request built with attributes and a nest parses back */
UNIT_TEST(test_lib_nl)
{
	const struct nlattr *tb[8], *in[8];
	struct cg_nl_msg m;
	struct nlattr *nest;
	__u32 v32 = 0x01020304;
	__u8 v8 = 7, hdr[12] = { 1 };
	__u64 v64 = 1ULL << 40;

	cg_nl_msg_init(&m, 16, 0x400, hdr, sizeof(hdr));
	EXPECT("lib-nl-flags", m.nh.nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK | 0x400));
	cg_nl_put(&m, 1, &v32, sizeof(v32));
	cg_nl_put(&m, 2, "tap0", 5);
	nest = cg_nl_put(&m, 3, NULL, 0);
	cg_nl_put(&m, 1, &v8, sizeof(v8));
	cg_nl_put(&m, 2, &v64, sizeof(v64));
	cg_nl_nest_end(&m, nest);
	cg_nl_put(&m, 4, "no-nul", 6);
	cg_nl_parse(&m.nh, sizeof(hdr), tb, 7);
	EXPECT("lib-nl-u32", cg_nla_uint(tb[1]) == v32);
	EXPECT("lib-nl-str", tb[2] && !strcmp(cg_nla_str(tb[2]), "tap0"));
	EXPECT("lib-nl-str-unterminated", cg_nla_str(tb[4]) == NULL);
	EXPECT("lib-nl-absent", !tb[5] && cg_nla_uint(tb[5]) == 0 && !cg_nla_str(tb[5]));
	EXPECT("lib-nl-nest", tb[3] && cg_nla_len(tb[3]) == 2 * NLA_HDRLEN + 4 + 8);
	cg_nl_parse_nested(tb[3], in, 7);
	EXPECT("lib-nl-nested-u8", cg_nla_uint(in[1]) == 7);
	EXPECT("lib-nl-nested-u64", cg_nla_uint(in[2]) == v64);
	cg_nl_msg_init(&m, 18, NLM_F_DUMP, NULL, 0);
	EXPECT("lib-nl-dump-no-ack", !(m.nh.nlmsg_flags & NLM_F_ACK));
	EXPECT("lib-nl-full", cg_nl_put(&m, 1, hdr, sizeof(m.buf)) == NULL &&
			      m.nh.nlmsg_len == NLMSG_LENGTH(0));
}

/* What one GETFAMILY answer said: its sequence number and the family id */
struct nl_family {
	__u32 seq;
	__u16 id;
};

static int nl_family_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct nl_family *f = arg;

	f->seq = nh->nlmsg_seq;
	cg_nl_parse(nh, GENL_HDRLEN, tb, CTRL_ATTR_MAX);
	f->id = cg_nla_uint(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

static int nl_getfamily(int fd, struct nl_family *f)
{
	struct genlmsghdr g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 };
	struct cg_nl_msg m;

	cg_nl_msg_init(&m, GENL_ID_CTRL, 0, &g, sizeof(g));
	cg_nl_put(&m, CTRL_ATTR_FAMILY_NAME, "nlctrl", sizeof("nlctrl"));
	return cg_nl_talk(fd, &m, nl_family_cb, f);
}

/*
 * lib/nl: an answer forged by another socket (a process of a namespace the
 * loader entered can send unicast netlink to its port) is not taken for the
 * kernel's, even with the right sequence number: the forged GETFAMILY
 * answer names family 0x4242, the kernel's names nlctrl's own id.
 */
UNIT_TEST(test_lib_nl_sender)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr g;
		struct nlattr a;
		__u16 id, pad;
		struct nlmsghdr eh;
		struct nlmsgerr e;
	} forged = {};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK }, me;
	socklen_t ml = sizeof(me);
	struct nl_family f = {}, g = {};
	char rest[64];
	int a, b, err;

	a = cg_nl_socket(NETLINK_GENERIC, 0, 2);
	b = cg_nl_socket(NETLINK_GENERIC, 0, 2);
	if (a < 0 || b < 0 || getsockname(a, (struct sockaddr *)&me, &ml)) {
		report("lib-nl-forged-reply", 1, "no generic netlink socket");
		goto out;
	}
	err = nl_getfamily(a, &f);
	EXPECT("lib-nl-getfamily", err == 0 && f.id == GENL_ID_CTRL);
	/* the next request's sequence number, and our port */
	forged.nh.nlmsg_len = offsetof(typeof(forged), eh);
	forged.nh.nlmsg_type = GENL_ID_CTRL;
	forged.nh.nlmsg_seq = f.seq + 1;
	forged.nh.nlmsg_pid = me.nl_pid;
	forged.g.cmd = CTRL_CMD_NEWFAMILY;
	forged.a.nla_type = CTRL_ATTR_FAMILY_ID;
	forged.a.nla_len = NLA_HDRLEN + sizeof(forged.id);
	forged.id = 0x4242;
	forged.eh.nlmsg_len = sizeof(forged.eh) + sizeof(forged.e);
	forged.eh.nlmsg_type = NLMSG_ERROR;
	forged.eh.nlmsg_seq = f.seq + 1;
	forged.eh.nlmsg_pid = me.nl_pid;
	to.nl_pid = me.nl_pid;
	if (sendto(b, &forged, sizeof(forged), 0, (struct sockaddr *)&to, sizeof(to)) !=
	    (ssize_t)sizeof(forged)) {
		report("lib-nl-forged-reply", 1, "the forged answer could not be sent (not root?)");
		goto out;
	}
	err = nl_getfamily(a, &g);
	EXPECT("lib-nl-forged-reply", err == 0 && g.seq == f.seq + 1 && g.id == GENL_ID_CTRL);
	/* nothing of either answer is left for the next request to take */
	EXPECT("lib-nl-forged-drained", recv(a, rest, sizeof(rest), MSG_DONTWAIT) < 0);
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* lib/nl: a message shorter than its fixed header has neither it nor
 * attributes */
UNIT_TEST(test_lib_nl_short)
{
	struct {
		struct nlmsghdr nh;
		char data[16];
	} m = { .nh = { .nlmsg_len = NLMSG_LENGTH(2) } };
	const struct nlattr *tb[4] = { (void *)1, (void *)1, (void *)1, (void *)1 };

	EXPECT("lib-nl-data-short", cg_nl_data(&m.nh, GENL_HDRLEN) == NULL &&
				    cg_nl_data(&m.nh, 2) == NLMSG_DATA(&m.nh));
	cg_nl_parse(&m.nh, GENL_HDRLEN, tb, 3);
	EXPECT("lib-nl-parse-short", !tb[0] && !tb[1] && !tb[2] && !tb[3]);
}

/* lib/state and lib/cli: paths, and what a device name may be */
UNIT_TEST(test_lib_state_cli)
{
	char dir[64], pin[24];

	cg_state_dir(dir, sizeof(dir), "/sys/fs/bpf/csum_guard", 4026531840ULL, 7);
	EXPECT("lib-state-dir", !strcmp(dir, "/sys/fs/bpf/csum_guard/4026531840/7"));
	cg_state_dir(dir, 16, "/sys/fs/bpf/csum_guard", 1, 2);
	EXPECT("lib-state-dir-too-long", dir[0] == '\0');
	cg_state_pin(pin, sizeof(pin), "/a/b", "meta");
	EXPECT("lib-state-pin", !strcmp(pin, "/a/b/meta"));
	cg_state_pin(pin, sizeof(pin), "/a/b/c/d/e/f/g/h", "counters");
	EXPECT("lib-state-pin-too-long", pin[0] == '\0');
	EXPECT("lib-cli-dev", cg_cli_dev_valid("tap0") && cg_cli_dev_valid("012345678901234"));
	EXPECT("lib-cli-dev-bad", !cg_cli_dev_valid("") && !cg_cli_dev_valid("0123456789012345") &&
				  !cg_cli_dev_valid("a/b"));
	/* as the kernel's dev_valid_name(): a device can have none of these */
	EXPECT("lib-cli-dev-as-kernel", !cg_cli_dev_valid(".") && !cg_cli_dev_valid("..") &&
					!cg_cli_dev_valid("a:1") && !cg_cli_dev_valid("a b") &&
					!cg_cli_dev_valid("a\nb") && cg_cli_dev_valid("a.b") &&
					cg_cli_dev_valid("\xff\xfe") && cg_cli_dev_valid("a&1"));
}

/* lib/cli: the options both command lines set alike (the refusal of an
 * empty --netns is bad_input's, which sees its one line) */
UNIT_TEST(test_lib_cli_shared)
{
	const char *ns = NULL;
	bool quiet = cg_quiet;

	EXPECT("lib-cli-shared-netns", !cg_cli_shared_set('n', "vm1", &ns) && ns && !strcmp(ns, "vm1"));
	cg_quiet = false;
	EXPECT("lib-cli-shared-quiet", !cg_cli_shared_set('q', NULL, &ns) && cg_quiet);
	cg_quiet = quiet;
	ns = NULL;
	EXPECT("lib-cli-shared-other", cg_cli_shared_set('j', NULL, &ns) == -1 && !ns);
}

/* lib/log: the reason an operation records for its caller to say */
UNIT_TEST(test_lib_ack)
{
	struct cg_ack ack = {}, none = {};

	EXPECT("lib-ack-returns-err", cg_ack_err(&ack, -EBUSY, "first %d", 1) == -EBUSY);
	EXPECT("lib-ack-first-kept", cg_ack_err(&ack, -EIO, "second") == -EIO &&
				     !strcmp(ack.msg, "first 1"));
	EXPECT("lib-ack-null", cg_ack_err(NULL, -EINVAL, "x") == -EINVAL);
	EXPECT("lib-ack-why", !strcmp(cg_ack_why(&ack, -EIO), "first 1"));
	EXPECT("lib-ack-why-errno", !strcmp(cg_ack_why(&none, -ENODEV), strerror(ENODEV)) &&
				    !strcmp(cg_ack_why(NULL, -ENOENT), strerror(ENOENT)));
}

/* What output may carry of a device's or a namespace's name: UTF-8 only */
UNIT_TEST(test_lib_text)
{
	char buf[64];

	EXPECT("lib-utf8-ascii", cg_utf8_seq("a") == 1);
	EXPECT("lib-utf8-valid", cg_utf8_seq("\xc3\xa9") == 2 && cg_utf8_seq("\xe2\x82\xac") == 3 &&
				 cg_utf8_seq("\xf0\x9f\x98\x80") == 4);
	EXPECT("lib-utf8-invalid", !cg_utf8_seq("\xff") && !cg_utf8_seq("\xfe\xff") &&
				   !cg_utf8_seq("\xc0\xaf") &&	/* overlong '/' */
				   !cg_utf8_seq("\xe0\x80\xaf") && !cg_utf8_seq("\xed\xa0\x80") &&
				   !cg_utf8_seq("\xf4\x90\x80\x80") && !cg_utf8_seq("\xc3") &&
				   !cg_utf8_seq("\xe2\x82"));
	EXPECT("lib-text-safe", !strcmp(cg_text_safe("t\x1b[31m\xff\xfe\\\xc3\xa9", buf, sizeof(buf)),
					"t\\x1b[31m\\xff\\xfe\\\\\xc3\xa9"));
	EXPECT("lib-text-safe-short", strlen(cg_text_safe("\xff\xff\xff\xff", buf, 10)) <= 9);
}

/* 32 bits of the next number of cgb_xorshift from *s */
static __u32 unit_rand(uint64_t *s)
{
	return cgb_xorshift(s) >> 16;
}

static __u32 unit_mask(unsigned int plen)
{
	return plen ? htonl(~0U << (32 - plen)) : 0;
}

/* What the longest of the n routes that holds a answers, dflt if none */
static __u32 unit_lpm4(const struct sc_rtab4_route *r, int n, __u32 dflt, __u32 a)
{
	int i, best = -1;
	__u32 v = dflt;

	for (i = 0; i < n; i++)
		if ((int)r[i].plen > best && !((a ^ r[i].addr) & unit_mask(r[i].plen))) {
			best = r[i].plen;
			v = r[i].val;
		}
	return v;
}

/*
 * The responder's IPv4 table (rtab.c) answers what the longest prefix
 * answers, for random sets of routes of every length, clustered so that
 * they share nodes, at the addresses of their edges and at random ones;
 * with too few nodes, SC_RTAB4_TRIE (the tries answer) where it cannot,
 * and the right answer everywhere else.
 */
UNIT_TEST(test_sc_rtab4)
{
	static const unsigned int lens[] = { 0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32 };
	static struct sc_rtab4_node node[1 + SC_RTAB4_HALF];
	static const int maxes[] = { 1 + SC_RTAB4_HALF, 4 };
	struct sc_rtab4_route r[64], sorted[64];
	int bad_full = 0, bad_small = 0, trie_small = 0, round, m;
	uint64_t seed = 0x2545f4914f6cdd1dULL;

	for (round = 0; round < 300; round++) {
		int n = unit_rand(&seed) % 64, k = 0, i, j, used;
		__u32 dflt = unit_rand(&seed) % 3, probe;

		for (i = 0; i < n; i++) {
			unsigned int plen = lens[unit_rand(&seed) % (sizeof(lens) / sizeof(lens[0]))];
			/* a few /8s and /16s, so that routes share their nodes */
			__u32 a = htonl((10 + unit_rand(&seed) % 3) << 24 | (unit_rand(&seed) % 4) << 16 |
					(unit_rand(&seed) & 0xffff));
			__u32 v = (__u32[]){ SC_ROUTE_LOCAL, SC_ROUTE_REJECT, 1, 2, 0x7fffffff }
				[unit_rand(&seed) % 5];

			/* the bits past the prefix set in some: what a trie ignores */
			if (i % 2)
				a &= unit_mask(plen);
			for (j = 0; j < k && (r[j].plen != plen ||
					      (r[j].addr ^ a) & unit_mask(plen)); j++)
				;
			if (j == k)
				r[k++] = (struct sc_rtab4_route){ a, plen, v };
		}
		for (m = 0; m < 2; m++) {
			memcpy(sorted, r, sizeof(r));
			used = sc_rtab4_build(sorted, k, dflt, node, maxes[m], 1 + SC_RTAB4_HALF);
			for (i = 0; i < 4 * k + 200; i++) {
				__u32 want, got;

				if (i < 4 * k) {
					/* the first, last, and one past either, of each prefix */
					probe = (r[i / 4].addr & unit_mask(r[i / 4].plen)) |
						(i % 2 ? ~unit_mask(r[i / 4].plen) : 0);
					probe = htonl(ntohl(probe) + (i % 4 == 2 ? (__u32)-1 : i % 4 == 3));
				} else {
					probe = htonl((10 + unit_rand(&seed) % 4) << 24 |
						      (unit_rand(&seed) % 5) << 16 | (unit_rand(&seed) & 0xffff));
				}
				want = unit_lpm4(r, k, dflt, probe);
				got = sc_rtab4_walk(node, used, 1 + SC_RTAB4_HALF, probe);
				if (m == 0)
					bad_full += got != want;
				else if (got == SC_RTAB4_TRIE)
					trie_small++;
				else
					bad_small += got != want;
			}
		}
	}
	EXPECT("sc-rtab4-lpm", !bad_full);
	EXPECT("sc-rtab4-full-trie", !bad_small && trie_small > 0);
}

int main(void)
{
	const struct unit_test *t;

	for (t = __start_unit_tests; t < __stop_unit_tests; t++)
		t->fn();
	printf("unit: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
