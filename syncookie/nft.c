// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nft.c - the fallback where the kernel lacks bpf_tcp_gen_syncookie: the
 * kernel's SYNPROXY, in an nftables table of our own per device, driven by
 * running nft with an argument vector (never through a shell).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_synproxy.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include "log.h"
#include "sc.h"
#include "spawn.h"

/*
 * Run nft with argv (no shell), script on its stdin (NULL: none); up to
 * out_len bytes of its stdout into out and the first line of its stderr
 * into err, each NUL-terminated where given. Its exit status, or -1.
 */
static int sc_nft(const char *const *argv, const char *script, char *out, size_t out_len,
		  char *err, size_t err_len)
{
	struct cg_spawn s = { .argv = argv, .netns = -1, .in = script, .out = out,
			      .out_len = out_len, .err = err, .err_len = err_len };
	int rc = cg_spawn(&s);

	if (err)
		err[strcspn(err, "\n")] = '\0';
	return rc < 0 ? -1 : rc;
}

bool sc_nft_have(void)
{
	static const char *const argv[] = { "nft", "--version", NULL };

	return sc_nft(argv, NULL, NULL, 0, NULL, 0) == 0;
}

static void sc_nft_table(char *buf, size_t n, int ifindex)
{
	snprintf(buf, n, SC_NFT_TABLE_FMT, ifindex);
}

/*
 * Is the device's table of family ("inet", "ip6") there, and whole: its
 * input chain jumping to the chain that holds SYNPROXY? (Chains, not the
 * table: a table lists its sets' elements, up to 1024 ports and 256
 * sources.) The ip6 table's xtables target is listed as a rule only where
 * iptables' libxt_SYNPROXY.so is installed; without it (a Debian host
 * without the iptables package) nft names the target on its stderr
 * instead ("XT target SYNPROXY not found"): the rule is there all the same.
 */
bool sc_nft_exists(int ifindex, const char *family)
{
	char table[64], out[4096], err[512] = "";
	const char *in[] = { "nft", "list", "chain", family, table, "in", NULL };
	const char *proxy[] = { "nft", "list", "chain", family, table, "proxy", NULL };
	struct cg_spawn s = { .argv = proxy, .netns = -1, .out = out, .out_len = sizeof(out),
			      .err = err, .err_len = sizeof(err) };

	sc_nft_table(table, sizeof(table), ifindex);
	return sc_nft(in, NULL, out, sizeof(out), NULL, 0) == 0 && strstr(out, "jump proxy") &&
	       cg_spawn(&s) == 0 && (strcasestr(out, "synproxy") || strstr(err, "target SYNPROXY"));
}

/* Both of the device's tables, where there */
void sc_nft_delete(int ifindex)
{
	static const char *const fams[] = { "inet", "ip6" };
	char table[64];
	unsigned int i;

	sc_nft_table(table, sizeof(table), ifindex);
	for (i = 0; i < 2; i++) {
		const char *argv[] = { "nft", "delete", "table", fams[i], table, NULL };

		sc_nft(argv, NULL, NULL, 0, NULL, 0);
	}
}

/* "22, 80" */
void sc_ports_text(const struct sc_ports *p, char *buf, size_t n)
{
	size_t len = 0;
	int port;

	buf[0] = '\0';
	for (port = 1; port < 65536 && len < n; port++)
		if (p->bits[port >> 3] & (1 << (port & 7)))
			len += snprintf(buf + len, n - len, "%s%d", len ? ", " : "", port);
}

/*
 * The sources of --allow of one family, "10.0.0.0/8, 192.0.2.1/32" or
 * "fd00::/8, 2001:db8::1/128"; without --allow every source of it
 * ("0.0.0.0/0", "::/0"); "" when --allow has none of that family.
 */
static void sc_allow_text(const struct sc_args *a, bool v6, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	if (!a->nallow) {
		snprintf(buf, n, v6 ? "::/0" : "0.0.0.0/0");
		return;
	}
	for (i = 0; i < a->nallow && len < n; i++) {
		const struct sc_route_key *k = &a->allow[i];
		bool k4 = k->prefixlen >= 96 && !memcmp(k->addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
		char txt[INET6_ADDRSTRLEN];

		if (k4 == v6)
			continue;
		if (k4)
			len += snprintf(buf + len, n - len, "%s%u.%u.%u.%u/%u", len ? ", " : "",
					k->addr[12], k->addr[13], k->addr[14], k->addr[15],
					k->prefixlen - 96);
		else if (inet_ntop(AF_INET6, k->addr, txt, sizeof(txt)))
			len += snprintf(buf + len, n - len, "%s%s/%u", len ? ", " : "", txt,
					k->prefixlen);
	}
}

/* One netlink attribute at *off of buf (cap bytes); its offset, for a nest */
static size_t sc_nla(char *buf, size_t *off, size_t cap, __u16 type, const void *data, size_t len)
{
	struct nlattr *na = (struct nlattr *)(buf + *off);
	size_t at = *off;

	if (*off + NLA_HDRLEN + NLA_ALIGN(len) > cap)
		return at;
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(buf + *off + NLA_HDRLEN, data, len);
	*off += NLA_HDRLEN + NLA_ALIGN(len);
	return at;
}

static void sc_nla_end(char *buf, size_t at, size_t off)
{
	((struct nlattr *)(buf + at))->nla_len = off - at;
}

static void sc_nlmsg(char *buf, size_t *off, __u16 type, __u16 flags, __u8 family, __u16 res_id,
		     __u32 seq)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + *off);
	struct nfgenmsg *g = (struct nfgenmsg *)NLMSG_DATA(nh);

	memset(nh, 0, NLMSG_HDRLEN + sizeof(*g));
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | flags;
	nh->nlmsg_seq = seq;
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	g->res_id = htons(res_id);
	*off += NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g));
}

/*
 * Append to chain of the ip6 table the rule "xt target SYNPROXY" (the
 * xtables target through nft_compat, what ip6tables-nft makes for
 * -j SYNPROXY): the nft command can list such a rule but not make one, so
 * it goes to the kernel as one nftables netlink batch. The target checks
 * the TCP checksum of IPv6 packets with the IPv6 function, which nft's own
 * synproxy expression does not (see sc_nft_apply). 0 or -errno.
 */
static int sc_nft_xt_synproxy6(const char *table, const char *chain,
			       const struct nf_synproxy_info *info)
{
	char buf[1024] __attribute__((aligned(4))) = {}, reply[1024] __attribute__((aligned(4)));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	__u32 seq = time(NULL), be;
	size_t off = 0, msg, exprs, elem, data, compat;
	char tinfo[8] = {};	/* XT_ALIGN(sizeof(*info)) */
	struct timeval tmo = { .tv_sec = 5 };
	int fd, err = -EIO;
	ssize_t n;

	memcpy(tinfo, info, sizeof(*info));
	sc_nlmsg(buf, &off, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, seq);
	((struct nlmsghdr *)buf)->nlmsg_len = off;
	msg = off;
	sc_nlmsg(buf, &off, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE,
		 NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, NFPROTO_IPV6, 0, seq + 1);
	sc_nla(buf, &off, sizeof(buf), NFTA_RULE_TABLE, table, strlen(table) + 1);
	sc_nla(buf, &off, sizeof(buf), NFTA_RULE_CHAIN, chain, strlen(chain) + 1);
	exprs = sc_nla(buf, &off, sizeof(buf), NFTA_RULE_EXPRESSIONS | NLA_F_NESTED, NULL, 0);
	elem = sc_nla(buf, &off, sizeof(buf), NFTA_LIST_ELEM | NLA_F_NESTED, NULL, 0);
	sc_nla(buf, &off, sizeof(buf), NFTA_EXPR_NAME, "target", sizeof("target"));
	data = sc_nla(buf, &off, sizeof(buf), NFTA_EXPR_DATA | NLA_F_NESTED, NULL, 0);
	sc_nla(buf, &off, sizeof(buf), NFTA_TARGET_NAME, "SYNPROXY", sizeof("SYNPROXY"));
	be = htonl(0);
	sc_nla(buf, &off, sizeof(buf), NFTA_TARGET_REV, &be, sizeof(be));
	sc_nla(buf, &off, sizeof(buf), NFTA_TARGET_INFO, tinfo, sizeof(tinfo));
	sc_nla_end(buf, data, off);
	sc_nla_end(buf, elem, off);
	sc_nla_end(buf, exprs, off);
	/* the target checks that the rule is for TCP, as ip6tables -p tcp says */
	compat = sc_nla(buf, &off, sizeof(buf), NFTA_RULE_COMPAT | NLA_F_NESTED, NULL, 0);
	be = htonl(IPPROTO_TCP);
	sc_nla(buf, &off, sizeof(buf), NFTA_RULE_COMPAT_PROTO, &be, sizeof(be));
	be = htonl(0);
	sc_nla(buf, &off, sizeof(buf), NFTA_RULE_COMPAT_FLAGS, &be, sizeof(be));
	sc_nla_end(buf, compat, off);
	((struct nlmsghdr *)(buf + msg))->nlmsg_len = off - msg;
	msg = off;
	sc_nlmsg(buf, &off, NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, seq + 2);
	((struct nlmsghdr *)(buf + msg))->nlmsg_len = off - msg;
	if (off + 64 > sizeof(buf))
		return -E2BIG;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return -errno;
	/* an answer that never comes is a refusal, not a hang */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (sendto(fd, buf, off, 0, (struct sockaddr *)&sa, sizeof(sa)) != (ssize_t)off) {
		err = -errno;
		goto out;
	}
	/* the rule's ack: NLMSG_ERROR with 0, or the kernel's refusal */
	for (;;) {
		struct sockaddr_nl from = {};
		socklen_t fl = sizeof(from);
		struct nlmsghdr *nh;

		n = recvfrom(fd, reply, sizeof(reply), 0, (struct sockaddr *)&from, &fl);
		if (n <= 0)
			break;
		/* only the kernel answers: another sender's datagram is dropped */
		if (fl < sizeof(from) || from.nl_pid)
			continue;
		/* n stays signed: NLMSG_NEXT can take it below zero */
		for (nh = (struct nlmsghdr *)reply; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			/* the rule's ack, or a refusal of any part of the batch */
			if (nh->nlmsg_type != NLMSG_ERROR || nh->nlmsg_seq - seq > 2)
				continue;
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				err = -EPROTO;
				goto out;
			}
			err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			if (err || nh->nlmsg_seq == seq + 1)
				goto out;
		}
	}
	err = n < 0 ? -errno : -EIO;
out:
	close(fd);
	return err;
}

/*
 * Whether dev's name cannot go into a rule as iif "NAME": nft's quoted
 * strings end at the next '"' and know no escape, and Linux allows '"' (and
 * anything else but '/', ':' and white space) in a name. Only printable
 * ASCII other than '"' and '\\' is written; anything else is refused, with
 * the reason in why, before any table is made.
 */
static bool sc_nft_name_bad(const char *dev, char *why, size_t why_len)
{
	const char *c;

	for (c = dev; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x21 || *c > 0x7e) {
			snprintf(why, why_len, "its name holds %s, which an nft rule cannot carry; "
				 "rename it (ip link set NAME name NEW) or use a bpf mode",
				 *c == '"' ? "'\"'" : *c == '\\' ? "'\\'" : "a space or a non-ASCII byte");
			return true;
		}
	return false;
}

/* nft reading its script from stdin (sc_nft_fresh, sc_nft_apply) */
static const char *const sc_nft_stdin[] = { "nft", "-f", "-", NULL };

/* The device's MTU, 1500 where it cannot be read */
static unsigned int sc_nft_mtu(const char *dev)
{
	struct ifreq ifr = {};
	unsigned int mtu = 1500;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return mtu;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/* What sc_nft_apply writes into its nft script, for one family */
struct sc_nft_fam {
	const struct sc_target *t;
	const char *fam, *table, *list, *allow;
	bool v6, nft;
	unsigned int mtu;
	char *s, *err;		/* the script's buffer; nft's error */
	size_t cap, err_len;
};

/*
 * One family's tables made fresh (sc_nft_apply): 0 made, 1 none (IPv6
 * where the kernel refuses the xtables SYNPROXY), -EIO nft failed (f->err)
 */
static int sc_nft_fresh(struct sc_nft_fam *f)
{
	const char *match = f->v6 ? "ip6 saddr @allow" : "meta nfproto ipv4 ip saddr @allow";
	struct nf_synproxy_info info = {
		.options = f->nft ? NF_SYNPROXY_OPT_MSS | NF_SYNPROXY_OPT_WSCALE |
				    NF_SYNPROXY_OPT_SACK_PERM | NF_SYNPROXY_OPT_TIMESTAMP : 0,
		.wscale = f->nft ? 7 : 0, .mss = f->nft ? f->mtu - 60 : 0,
	};
	char proxy[96];

	/* what a killed run or a half flush left goes first */
	snprintf(f->s, f->cap, "add table %1$s %2$s\ndelete table %1$s %2$s\n", f->fam, f->table);
	sc_nft(sc_nft_stdin, f->s, NULL, 0, NULL, 0);
	/* the table, its sets and counters, and the chain SYNPROXY is in */
	if (f->v6)
		proxy[0] = '\0';
	else if (f->nft)
		snprintf(proxy, sizeof(proxy),
			 "    synproxy mss %u wscale 7 timestamp sack-perm\n", f->mtu - 40);
	else
		snprintf(proxy, sizeof(proxy), "    synproxy\n");
	snprintf(f->s, f->cap,
		 "table %1$s %2$s {\n"
		 "  counter synack { }\n"
		 "  counter acks { }\n"
		 "  counter dropped { }\n"
		 "  set ports { type inet_service; elements = { %3$s } }\n"
		 "  set allow { type %4$s; flags interval; %5$s%6$s%7$s}\n"
		 "  chain proxy {\n"
		 "%8$s"
		 "  }\n"
		 "}\n", f->fam, f->table, f->list, f->v6 ? "ipv6_addr" : "ipv4_addr",
		 *f->allow ? "elements = { " : "", f->allow, *f->allow ? " }; " : "", proxy);
	if (sc_nft(sc_nft_stdin, f->s, NULL, 0, f->err, f->err_len))
		return -EIO;
	if (f->v6 && sc_nft_xt_synproxy6(f->table, "proxy", &info)) {
		/* no IPv6 SYNPROXY here: IPv6 stays as it was */
		snprintf(f->s, f->cap, "delete table ip6 %s\n", f->table);
		sc_nft(sc_nft_stdin, f->s, NULL, 0, NULL, 0);
		return 1;
	}
	/* then the hooks: nothing reaches the proxy chain before it is whole */
	if (f->nft)
		snprintf(f->s, f->cap,
			 "table %1$s %2$s {\n"
			 "  chain pre {\n"
			 "    type filter hook prerouting priority raw; policy accept;\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports tcp flags & (syn | ack) == syn notrack\n"
			 "  }\n"
			 "  chain in {\n"
			 "    type filter hook input priority filter - 10; policy accept;\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports tcp flags & (syn | ack) == syn ct state untracked counter name synack\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports tcp flags & (syn | ack) == ack ct state invalid,untracked counter name acks\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports ct state invalid,untracked jump proxy\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports ct state invalid counter name dropped drop\n"
			 "  }\n"
			 "}\n", f->fam, f->table, f->t->dev, match);
	else
		snprintf(f->s, f->cap,
			 "table %1$s %2$s {\n"
			 "  chain in {\n"
			 "    type filter hook input priority filter - 10; policy accept;\n"
			 "    iif \"%3$s\" %4$s tcp dport @ports tcp flags & (fin | syn | rst | ack) == ack ct state invalid,untracked,new counter name acks jump proxy\n"
			 "  }\n"
			 "}\n", f->fam, f->table, f->t->dev, match);
	return sc_nft(sc_nft_stdin, f->s, NULL, 0, f->err, f->err_len) ? -EIO : 0;
}

/*
 * The tables of a device, made (fresh) or their sets updated in one nft
 * transaction each: "inet NAME" for IPv4, "ip6 NAME" for IPv6. Their
 * input chains sit at priority filter - 10: before any chain of the
 * operator's at filter, whatever the order tables were loaded in.
 *
 * The bpf modes (the program answers the SYNs): the returning ACK to the
 * ports from the allowed sources, which conntrack never saw a SYN for
 * (invalid with nf_conntrack_tcp_loose=0, new without SYN with 1,
 * untracked where someone said notrack), goes to SYNPROXY, which checks
 * the cookie (the kernel's cookie secret: bpf_tcp_gen_syncookie's and
 * SYNPROXY's are the same), reads window scale, SACK and ECN back from
 * the timestamp as the kernel does, and opens the connection to the
 * listener itself with a SYN that conntrack tracks, adjusting sequence
 * numbers and timestamps between the two halves: the operator's rules see
 * an ordinary connection. A bad cookie is dropped there.
 *
 * nft mode: SYNPROXY answers the SYNs too. SYNs to the ports skip
 * conntrack; SYNPROXY answers them and the returning ACK (untracked or
 * invalid), then opens the connection to the listener itself. Its MSS is
 * the device's MTU less the headers; wscale 7 is what the listener uses
 * with Linux's default buffers (SYNPROXY does not rewrite windows).
 * Counters: SYNs answered (synack), ACKs handed to SYNPROXY (acks),
 * invalid packets dropped after it (dropped).
 *
 * IPv6 goes through the xtables SYNPROXY target (sc_nft_xt_synproxy6):
 * nft's synproxy expression checks the TCP checksum with nf_ip_checksum(),
 * IPv4's, for IPv6 too (nft_synproxy_do_eval(), 5.3 to 6.18), so an IPv6
 * packet whose checksum is checked in software fails it and is dropped.
 * Where the kernel refuses the target (no nft_compat or ip6t_SYNPROXY),
 * there is no ip6 table and IPv6 stays as it was (returns without
 * SC_META_HANDOFF6).
 *
 * Returns the SC_META_HANDOFF* flags of the tables made (fresh) or
 * updated, or -errno with the reason in why.
 */
int sc_nft_apply(const struct sc_target *t, const struct sc_args *a, __u32 mode, bool fresh,
		 __u32 have, char *why, size_t why_len)
{
	char table[64], list[SC_MAX_PORTS * 8], err[256] = "", allow[SC_ALLOW_MAX * 48];
	size_t cap = 8192 + sizeof(list) * 4 + sizeof(allow) * 2;
	struct sc_nft_fam f = {
		.t = t, .table = table, .list = list, .allow = allow, .nft = mode == SC_NFT,
		.cap = cap, .err = err, .err_len = sizeof(err),
	};
	int rc, made = 0;

	if (sc_nft_name_bad(t->dev, why, why_len))
		return -EINVAL;
	f.s = malloc(cap);
	if (!f.s)
		return -ENOMEM;
	f.mtu = sc_nft_mtu(t->dev);
	sc_nft_table(table, sizeof(table), t->ifindex);
	sc_ports_text(&a->ports, list, sizeof(list));
	for (f.v6 = false;; f.v6 = true) {
		__u32 flag = f.v6 ? SC_META_HANDOFF6 : SC_META_HANDOFF;

		f.fam = f.v6 ? "ip6" : "inet";
		sc_allow_text(a, f.v6, allow, sizeof(allow));
		if (fresh) {
			rc = sc_nft_fresh(&f);
		} else if (have & flag) {
			snprintf(f.s, cap, "flush set %1$s %2$s ports\nadd element %1$s %2$s ports { %3$s }\n"
				 "flush set %1$s %2$s allow\n%4$s%1$s %2$s allow { %5$s }\n",
				 f.fam, table, list, *allow ? "add element " : "# ", allow);
			rc = sc_nft(sc_nft_stdin, f.s, NULL, 0, err, sizeof(err)) ? -EIO : 0;
		} else {
			rc = 1;
		}
		if (rc < 0)
			break;
		if (!rc)
			made |= flag;
		if (f.v6)
			break;
	}
	free(f.s);
	if (rc >= 0)
		return made;
	snprintf(why, why_len, "nft: %s", *err ? err : "failed");
	return -EIO;
}

/* Does line hold word w, delimited by blanks, ';' or its ends? */
static bool sc_has_word(const char *line, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = strstr(line, w); p; p = strstr(p + 1, w))
		if ((p == line || strchr(" \t;", p[-1])) && strchr(" \t;\n", p[n]))
			return true;
	return false;
}

/*
 * Does a table of the namespace entered filter what it receives: a chain
 * on the input hook with a drop policy, or a drop or reject rule (iptables
 * on nftables included; the responder's own tables aside)? The name of
 * the first such table into what. Without nft, or where it cannot list
 * the ruleset, false.
 */
bool sc_nft_input_filtered(char *what, size_t what_len)
{
	static const char *const argv[] = { "nft", "list", "ruleset", NULL };
	char table[128] = "", *out, *line, *save = NULL;
	bool ours = false, input = false, found = false;
	size_t cap = 1 << 20;

	out = malloc(cap);
	if (!out)
		return false;
	if (sc_nft(argv, NULL, out, cap, NULL, 0) != 0) {
		free(out);
		return false;
	}
	for (line = strtok_r(out, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!strncmp(line, "table ", 6)) {
			int n = strcspn(line + 6, "{");

			while (n > 0 && line[6 + n - 1] == ' ')
				n--;
			snprintf(table, sizeof(table), "%.*s", n, line + 6);
			ours = !!strstr(table, "csum_guard_syncookie_");
			input = false;
		} else if (!strncmp(line, "chain ", 6)) {
			input = false;
		} else if (sc_has_word(line, "hook") && sc_has_word(line, "input")) {
			input = true;
			found = !ours && strstr(line, "policy drop");
		} else if (input && !ours && (sc_has_word(line, "drop") || sc_has_word(line, "reject"))) {
			found = true;
		}
	}
	if (found)
		snprintf(what, what_len, "table %s", table);
	free(out);
	return found;
}

/* The packets of counter name in the device's tables, both (0 where none) */
__u64 sc_nft_counter(int ifindex, const char *name)
{
	static const char *const fams[] = { "inet", "ip6" };
	char table[64], out[4096];
	unsigned long long n = 0;
	const char *p;
	unsigned int i;

	sc_nft_table(table, sizeof(table), ifindex);
	for (i = 0; i < 2; i++) {
		const char *argv[] = { "nft", "list", "counter", fams[i], table, name, NULL };

		if (sc_nft(argv, NULL, out, sizeof(out), NULL, 0) == 0 && (p = strstr(out, "packets ")))
			n += strtoull(p + 8, NULL, 10);
	}
	return n;
}

/*
 * SYNPROXY's cookie checks in the namespace entered, all CPUs
 * (/proc/net/stat/synproxy: namespace-wide, every SYNPROXY rule in it)
 */
void sc_nft_cookies(__u64 *valid, __u64 *invalid)
{
	unsigned long long e, syn, inv, val;
	char line[256];
	FILE *f = fopen("/proc/net/stat/synproxy", "re");

	*valid = *invalid = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx %llx %llx", &e, &syn, &inv, &val) == 4) {
			*valid += val;
			*invalid += inv;
		}
	fclose(f);
}
