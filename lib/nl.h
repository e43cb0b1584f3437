/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nl.h - the one netlink codec of csum-guard: build a request (a fixed
 * header, attributes, nests), send it and read the answer up to its
 * acknowledgement or the end of a dump, parse attributes. rtnetlink (check,
 * tc, watch) and generic netlink (the module's family) use it alike.
 */
#ifndef CG_NL_H
#define CG_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/netlink.h>
#include <linux/types.h>

/* One request: a header, a fixed header of the family, attributes. */
struct cg_nl_msg {
	struct nlmsghdr nh;
	char buf[2048] __attribute__((aligned(NLMSG_ALIGNTO)));
};

/* A socket of protocol proto bound to the multicast groups; receives time
 * out after timeout_s seconds (0: never). fd or -errno. */
int cg_nl_socket(int proto, unsigned int groups, int timeout_s);

/* type with flags (NLM_F_REQUEST is added, and NLM_F_ACK unless it is a
 * dump), then the family's fixed header hdr of hdrlen bytes. */
void cg_nl_msg_init(struct cg_nl_msg *m, __u16 type, __u16 flags, const void *hdr,
		    size_t hdrlen);
/* Append attribute type with len bytes of data (a nest: what follows, up
 * to cg_nl_nest_end()). NULL, and m unchanged, if it does not fit. */
struct nlattr *cg_nl_put(struct cg_nl_msg *m, __u16 type, const void *data, size_t len);
void cg_nl_nest_end(struct cg_nl_msg *m, struct nlattr *nest);

/*
 * One datagram of the kernel's into buf, as recv(2) with flags: its length
 * or -errno (-EAGAIN with MSG_DONTWAIT once none is left). Datagrams of any
 * other sender are read and dropped: a process that shares a namespace we
 * entered can send unicast netlink to our port, and must not answer for
 * the kernel.
 */
ssize_t cg_nl_recv(int fd, void *buf, size_t len, int flags);

/* Called for each data message of an answer; nonzero ends the walk. */
typedef int (*cg_nl_cb)(const struct nlmsghdr *nh, void *arg);
/*
 * Send m and read its answer up to the acknowledgement (or NLMSG_DONE of a
 * dump), handing each data message to cb (NULL: none). Only the kernel's
 * messages (cg_nl_recv) with m's sequence number are read. The kernel's error,
 * or cb's first nonzero return, or -errno of the socket; -EAGAIN when the
 * kernel marked the dump inconsistent (NLM_F_DUMP_INTR): dump again.
 */
int cg_nl_talk(int fd, struct cg_nl_msg *m, cg_nl_cb cb, void *arg);

/*
 * How an answer goes: the request's sequence number, what it has come to
 * (ret) and whether a dump was marked inconsistent. cg_nl_answer() takes
 * one datagram of it (n bytes at buf, aligned), each data message to cb
 * until cb returns nonzero; true once the answer has ended (its
 * acknowledgement, error or NLMSG_DONE), with its result in ret as
 * cg_nl_talk() returns it. Messages of other sequence numbers are skipped.
 */
struct cg_nl_ans {
	__u32 seq;
	int ret;
	bool intr;
};
bool cg_nl_answer(struct cg_nl_ans *a, const void *buf, ssize_t n, cg_nl_cb cb, void *arg);

/* The fixed header of hdrlen bytes of nh, or NULL when nh is shorter. */
const void *cg_nl_data(const struct nlmsghdr *nh, size_t hdrlen);
/* The attributes of nh after its fixed header of hdrlen bytes into tb[0..max]
 * (the last of each type); the others NULL. */
void cg_nl_parse(const struct nlmsghdr *nh, size_t hdrlen, const struct nlattr **tb, int max);
/* The attributes nested in a into tb[0..max]. */
void cg_nl_parse_nested(const struct nlattr *a, const struct nlattr **tb, int max);
/* An integer attribute of 1, 2, 4 or 8 bytes; 0 when absent or of another size. */
__u64 cg_nla_uint(const struct nlattr *a);
/* A NUL-terminated string attribute; NULL when absent or not terminated. */
const char *cg_nla_str(const struct nlattr *a);
static inline const void *cg_nla_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}
static inline int cg_nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

#endif /* CG_NL_H */
