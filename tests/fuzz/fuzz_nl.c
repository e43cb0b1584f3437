// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_nl.c - the netlink codec (lib/nl.c) over any datagram.
 *
 * The input's first 4 bytes are the request's sequence number, the rest
 * one datagram of the answer, in a buffer of its own size. It goes through
 * cg_nl_answer() as cg_nl_talk() hands it over; each data message is
 * parsed as a generic netlink message (its attributes, each nested one,
 * integers and strings), as the loader's callbacks do. What must hold:
 *   - nothing is read outside the datagram (AddressSanitizer);
 *   - every message handed on has the request's sequence number, lies in
 *     the datagram and holds its own header;
 *   - every attribute parsed lies inside its message (a nested one inside
 *     its parent), and a string taken from one ends inside it;
 *   - the answer ends exactly where a walk written here finds its
 *     acknowledgement, error or NLMSG_DONE, and cb has had every data
 *     message of the request's before it (unless cb asked to stop).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl.h"

#define MAXATTR 31

struct walk {
	const char *start, *end;	/* the datagram */
	__u32 seq;
	unsigned int msgs;
	int stop_at;			/* cb's nonzero return at this message */
};

static void check_attrs(const struct nlattr **tb, int max, const char *lo, const char *hi,
			int depth)
{
	const struct nlattr *in[MAXATTR + 1];
	const char *s;
	int i;

	for (i = 0; i <= max; i++) {
		const char *a = (const char *)tb[i];

		if (!a)
			continue;
		if (a < lo || a + NLA_HDRLEN > hi || tb[i]->nla_len < NLA_HDRLEN ||
		    a + tb[i]->nla_len > hi)
			abort();
		(void)cg_nla_uint(tb[i]);
		s = cg_nla_str(tb[i]);
		if (s && (s < a + NLA_HDRLEN || s + strlen(s) >= a + tb[i]->nla_len))
			abort();
		if (depth < 3) {
			cg_nl_parse_nested(tb[i], in, MAXATTR);
			check_attrs(in, MAXATTR, a + NLA_HDRLEN, a + tb[i]->nla_len, depth + 1);
		}
	}
}

static int each(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[MAXATTR + 1];
	struct walk *w = arg;
	const char *m = (const char *)nh;

	if (nh->nlmsg_seq != w->seq || m < w->start || m + NLMSG_HDRLEN > w->end ||
	    nh->nlmsg_len < NLMSG_HDRLEN || m + nh->nlmsg_len > w->end ||
	    nh->nlmsg_type < NLMSG_MIN_TYPE)
		abort();
	w->msgs++;
	if (cg_nl_data(nh, GENL_HDRLEN))
		(void)((const struct genlmsghdr *)NLMSG_DATA(nh))->cmd;
	cg_nl_parse(nh, GENL_HDRLEN, tb, MAXATTR);
	check_attrs(tb, MAXATTR, m + NLMSG_LENGTH(GENL_HDRLEN), m + nh->nlmsg_len, 0);
	return (int)w->msgs == w->stop_at ? -EINTR : 0;
}

/* Does the datagram end the answer to seq; *data: its data messages before */
static bool oracle(const char *buf, size_t n, __u32 seq, unsigned int *data)
{
	struct nlmsghdr h;
	size_t off = 0;

	*data = 0;
	while (n - off >= sizeof(h)) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > n - off)
			break;
		if (h.nlmsg_seq == seq) {
			if (h.nlmsg_type == NLMSG_ERROR || h.nlmsg_type == NLMSG_DONE)
				return true;
			if (h.nlmsg_type >= NLMSG_MIN_TYPE)
				(*data)++;
		}
		off += (h.nlmsg_len + 3) & ~3u;
		if (off > n)
			break;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_nl_ans a = {};
	struct walk w = {};
	unsigned int want;
	bool ended;
	char *buf;
	size_t n;

	if (size < 5)
		return 0;
	memcpy(&a.seq, data, 4);
	w.seq = a.seq;
	w.stop_at = data[4] & 3;	/* 0: never */
	n = size - 5;
	buf = malloc(n ? n : 1);	/* malloc's alignment is netlink's */
	memcpy(buf, data + 5, n);
	w.start = buf;
	w.end = buf + n;
	ended = cg_nl_answer(&a, buf, n, each, &w);
	if (w.stop_at && w.msgs > (unsigned int)w.stop_at)
		abort();		/* cb said stop: nothing more for it */
	if (w.stop_at && w.msgs == (unsigned int)w.stop_at && ended && a.ret == 0)
		abort();		/* cb's result is the answer's */
	if (ended != oracle(buf, n, a.seq, &want) || (!w.stop_at && w.msgs != want))
		abort();
	free(buf);
	return 0;
}
