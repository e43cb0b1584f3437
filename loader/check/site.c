// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * site.c - the netfilter completion sites of `csum-guard check`, in
 * the throwaway namespace vm only:
 *
 *   xtcsum:  iptables -t mangle -A POSTROUTING -o veth0 -p udp
 *                     -j CHECKSUM --checksum-fill
 *   nfqueue: iptables -A FORWARD -o veth0 -p udp -j NFQUEUE --queue-num 7,
 *            the queue read here in copy-packet mode: the kernel completes
 *            the checksum before it copies the packet to us
 *
 * (ip6tables for the IPv6 paths). iptables runs with an argument vector,
 * never a shell, in a child that joins vm and nothing else and dies with
 * us. A missing binary or target is said in `why`: the path then cannot
 * tell, it is not fixed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include "macros.h"
#include "netns.h"
#include "nl.h"
#include "spawn.h"
#include "topo.h"

/*
 * Run argv in the network namespace nsfd, stdout and stderr together into
 * out. Its exit status, CG_SPAWN_NOJOIN if it could not join nsfd,
 * CG_SPAWN_NOTFOUND if it could not be run, or -errno.
 */
static int ck_exec_in(int nsfd, const char *const *argv, char *out, size_t len)
{
	struct cg_spawn s = { .argv = argv, .netns = nsfd, .out = out, .out_len = len,
			      .err_to_out = true };

	return cg_spawn(&s);
}

static const char *ck_ipt(const struct ck_path *p)
{
	return p->v6 ? "ip6tables" : "iptables";
}

/* The first line of out, or "no output" */
static const char *ck_first_line(char *out)
{
	out[strcspn(out, "\n")] = '\0';
	return *out ? out : "no output";
}

int ck_site_up(struct ck_topo *t, const struct ck_path *p, char *why, size_t len)
{
	const char *xtcsum[] = { ck_ipt(p), "-w", "-t", "mangle", "-A", "POSTROUTING",
				 "-o", "veth0", "-p", "udp", "-j", "CHECKSUM",
				 "--checksum-fill", NULL };
	const char *nfqueue[] = { ck_ipt(p), "-w", "-A", "FORWARD", "-o", "veth0", "-p", "udp",
				  "-j", "NFQUEUE", "--queue-num", CK_NFQ_ARG, NULL };
	const char *const *argv = p->site == CK_SITE_XTCSUM ? xtcsum : nfqueue;
	const char *target = p->site == CK_SITE_XTCSUM ? "CHECKSUM" : "NFQUEUE";
	char out[512];
	int ret;

	ret = ck_exec_in(t->vm, argv, out, sizeof(out));
	if (ret == CG_SPAWN_NOTFOUND)
		snprintf(why, len, "%s is not installed (%s)", argv[0], ck_first_line(out));
	else if (ret == CG_SPAWN_NOJOIN)
		snprintf(why, len, "cannot run %s in the new namespace", argv[0]);
	else if (ret < 0)
		snprintf(why, len, "cannot run %s: %s", argv[0], strerror(-ret));
	else if (ret)
		snprintf(why, len, "%s cannot add the %s rule, no %s target here?: %s",
			 argv[0], target, target, ck_first_line(out));
	return ret ? -1 : 0;
}

long long ck_site_hits(const struct ck_topo *t, const struct ck_path *p)
{
	bool mangle = p->site == CK_SITE_XTCSUM;
	const char *argv[] = { ck_ipt(p), "-w", "-t", mangle ? "mangle" : "filter", "-L",
			       mangle ? "POSTROUTING" : "FORWARD", "1", "-v", "-x", "-n", NULL };
	char out[1024], *end;
	long long n;

	/* with a rule number there is no heading: the line starts with the packets */
	if (ck_exec_in(t->vm, argv, out, sizeof(out)))
		return -1;
	n = strtoll(out, &end, 10);
	return end == out ? -1 : n;
}

/* --- the queue ------------------------------------------------------------ */

static void ck_nfq_msg(struct cg_nl_msg *q, __u16 type)
{
	struct nfgenmsg g = { .nfgen_family = AF_UNSPEC, .version = NFNETLINK_V0,
			      .res_id = htons(CK_NFQ_NUM) };

	cg_nl_msg_init(q, NFNL_SUBSYS_QUEUE << 8 | type, 0, &g, sizeof(g));
}

/*
 * Bound without NFQA_CFG_F_GSO: the kernel then completes a partial
 * checksum before it copies the packet, the completion site under test.
 */
int ck_nfq_bind(struct ck_topo *t, char *why, size_t len)
{
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
	struct nfqnl_msg_config_params params = {
		.copy_range = htonl(0xffff), .copy_mode = NFQNL_COPY_PACKET,
	};
	struct cg_nl_msg q;
	int err;

	/* a socket belongs to the namespace it was made in */
	err = cg_netns_enter(t->vm);
	if (err) {
		snprintf(why, len, "cannot enter the new namespace: %s", strerror(-err));
		return -1;
	}
	t->nfq = cg_nl_socket(NETLINK_NETFILTER, 0, 5);
	cg_netns_return();
	if (t->nfq < 0) {
		snprintf(why, len, "no netfilter netlink here: %s", strerror(-t->nfq));
		return -1;
	}
	ck_nfq_msg(&q, NFQNL_MSG_CONFIG);
	cg_nl_put(&q, NFQA_CFG_CMD, &cmd, sizeof(cmd));
	err = cg_nl_talk(t->nfq, &q, NULL, NULL);
	if (!err) {
		ck_nfq_msg(&q, NFQNL_MSG_CONFIG);
		cg_nl_put(&q, NFQA_CFG_PARAMS, &params, sizeof(params));
		err = cg_nl_talk(t->nfq, &q, NULL, NULL);
	}
	if (err)
		snprintf(why, len, "cannot bind an nfqueue in copy-packet mode, no "
			 "nfnetlink_queue here?: %s", strerror(-err));
	return err ? -1 : 0;
}

/* NF_ACCEPT, unacknowledged: an acknowledgement would mix with the packets */
static void ck_nfq_accept(int fd, __u32 id)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nfqnl_msg_verdict_hdr vh = { .verdict = htonl(NF_ACCEPT), .id = htonl(id) };
	struct cg_nl_msg q;

	ck_nfq_msg(&q, NFQNL_MSG_VERDICT);
	q.nh.nlmsg_flags &= ~NLM_F_ACK;
	cg_nl_put(&q, NFQA_VERDICT_HDR, &vh, sizeof(vh));
	sendto(fd, &q.nh, q.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa));
}

void ck_nfq_drain(struct ck_topo *t, ck_nfq_fn fn, void *arg)
{
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlattr *tb[NFQA_MAX + 1];
	const struct nfqnl_msg_packet_hdr *ph;
	const struct nlmsghdr *nh;
	ssize_t n;

	while ((n = cg_nl_recv(t->nfq, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (nh = (const void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type != (NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET))
				continue;
			cg_nl_parse(nh, sizeof(struct nfgenmsg), tb, NFQA_MAX);
			if (!tb[NFQA_PACKET_HDR] ||
			    cg_nla_len(tb[NFQA_PACKET_HDR]) < (int)sizeof(*ph))
				continue;
			ph = cg_nla_data(tb[NFQA_PACKET_HDR]);
			if (tb[NFQA_PAYLOAD])
				fn(cg_nla_data(tb[NFQA_PAYLOAD]), cg_nla_len(tb[NFQA_PAYLOAD]), arg);
			ck_nfq_accept(t->nfq, ntohl(ph->packet_id));
		}
	}
}
