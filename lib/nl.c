// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* nl.c - the one netlink codec (see nl.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nl.h"

int cg_nl_socket(int proto, unsigned int groups, int timeout_s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	struct timeval tv = { .tv_sec = timeout_s };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	if (timeout_s)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

void cg_nl_msg_init(struct cg_nl_msg *m, __u16 type, __u16 flags, const void *hdr,
		    size_t hdrlen)
{
	memset(m, 0, sizeof(*m));
	m->nh.nlmsg_len = NLMSG_LENGTH(hdrlen);
	m->nh.nlmsg_type = type;
	m->nh.nlmsg_flags = NLM_F_REQUEST | flags |
			    ((flags & NLM_F_DUMP) == NLM_F_DUMP ? 0 : NLM_F_ACK);
	if (hdrlen)
		memcpy(NLMSG_DATA(&m->nh), hdr, hdrlen);
}

struct nlattr *cg_nl_put(struct cg_nl_msg *m, __u16 type, const void *data, size_t len)
{
	struct nlattr *a = (void *)((char *)&m->nh + NLMSG_ALIGN(m->nh.nlmsg_len));

	if (NLMSG_ALIGN(m->nh.nlmsg_len) + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(*m))
		return NULL;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nh.nlmsg_len = NLMSG_ALIGN(m->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

void cg_nl_nest_end(struct cg_nl_msg *m, struct nlattr *nest)
{
	if (nest)
		nest->nla_len = (char *)&m->nh + m->nh.nlmsg_len - (char *)nest;
}

ssize_t cg_nl_recv(int fd, void *buf, size_t len, int flags)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		memset(&from, 0, sizeof(from));
		msg.msg_namelen = sizeof(from);
		n = recvmsg(fd, &msg, flags);
		if (n < 0)
			return -errno;
		/* the kernel's messages, unicast or multicast, come from port 0 */
		if (msg.msg_namelen >= sizeof(from) && from.nl_family == AF_NETLINK &&
		    from.nl_pid == 0)
			return n;
	}
}

bool cg_nl_answer(struct cg_nl_ans *a, const void *buf, ssize_t n, cg_nl_cb cb, void *arg)
{
	const struct nlmsghdr *nh;

	for (nh = buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_seq != a->seq)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = cg_nl_data(nh, sizeof(*e));

			if (!e)
				a->ret = -EPROTO;
			else if (e->error)
				a->ret = e->error;
			return true;
		}
		/* the dumped list changed between the rounds of the dump */
		if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
			a->intr = true;
		if (nh->nlmsg_type == NLMSG_DONE) {
			if (!a->ret && a->intr)
				a->ret = -EAGAIN;
			return true;
		}
		/* NLMSG_NOOP, NLMSG_OVERRUN: no data for cb */
		if (nh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		if (cb && !a->ret)
			a->ret = cb(nh, arg);
	}
	return false;
}

int cg_nl_talk(int fd, struct cg_nl_msg *m, cg_nl_cb cb, void *arg)
{
	static __u32 seq;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct cg_nl_ans a = {};
	ssize_t n;

	m->nh.nlmsg_seq = a.seq = ++seq;
	if (sendto(fd, &m->nh, m->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		n = cg_nl_recv(fd, buf, sizeof(buf), 0);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			return -EPROTO;
		if (cg_nl_answer(&a, buf, n, cb, arg))
			return a.ret;
	}
}

const void *cg_nl_data(const struct nlmsghdr *nh, size_t hdrlen)
{
	return nh->nlmsg_len >= NLMSG_LENGTH(hdrlen) ? NLMSG_DATA(nh) : NULL;
}

static void cg_nl_parse_attrs(const struct nlattr *a, long len, const struct nlattr **tb, int max)
{
	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

void cg_nl_parse(const struct nlmsghdr *nh, size_t hdrlen, const struct nlattr **tb, int max)
{
	long len = (long)nh->nlmsg_len - (long)NLMSG_LENGTH(hdrlen);

	cg_nl_parse_attrs((const void *)((const char *)NLMSG_DATA(nh) + NLMSG_ALIGN(hdrlen)),
			  len, tb, max);
}

void cg_nl_parse_nested(const struct nlattr *a, const struct nlattr **tb, int max)
{
	cg_nl_parse_attrs((const void *)((const char *)a + NLA_HDRLEN), a->nla_len - NLA_HDRLEN,
			  tb, max);
}

__u64 cg_nla_uint(const struct nlattr *a)
{
	union { __u8 u8; __u16 u16; __u32 u32; __u64 u64; } v = { 0 };
	int len = a ? a->nla_len - NLA_HDRLEN : 0;

	if (len != 1 && len != 2 && len != 4 && len != 8)
		return 0;
	memcpy(&v, (const char *)a + NLA_HDRLEN, len);
	return len == 1 ? v.u8 : len == 2 ? v.u16 : len == 4 ? v.u32 : v.u64;
}

const char *cg_nla_str(const struct nlattr *a)
{
	const char *s = a ? (const char *)a + NLA_HDRLEN : NULL;
	int n = a ? a->nla_len - NLA_HDRLEN : 0;

	return n > 0 && memchr(s, 0, n) ? s : NULL;
}
