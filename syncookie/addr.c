// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * addr.c - what the program needs to know of its device and namespace to
 * answer only what the host itself would: the device's MAC and MTU (struct
 * sc_conf) and the namespace's addresses and routes (the sc_routes trie),
 * read in the namespace entered and written by every attach; and where the
 * listener keeps its TCP_MAXSEG on this kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/route.h>
#include <linux/ipv6_route.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "rtab.h"
#include "sc.h"

#define SC_TCP_HDR	20

/*
 * Which options a cookie's timestamp may carry in the namespace entered,
 * and the window scale a listener with default buffers gets there: what
 * tcp_select_initial_window() works out from the larger of tcp_rmem's
 * maximum and rmem_max. Under tcp_timestamps 2 the kernel decodes them
 * (SC_OPT_TS). Under 1 it subtracts a secret per-address offset from the
 * echoed value before decoding it (and adds it to every later timestamp),
 * which a BPF program cannot know: there only syncookie_ack, hooked beside
 * (ack), decodes them (SC_OPT_ACK). Otherwise none.
 * Raw cookies (raw: SC_OPT_RAW) go to SYNPROXY, which decodes the low 6
 * bits of the echo with no offset whatever tcp_timestamps is, and opens
 * the connection with a SYN the listener answers with a request socket of
 * its own: the SC_OPT_ACK layout under 1 and 2, unless tcp_syncookies is 2
 * (the listener then answers with a cookie whose options SYNPROXY's
 * timestamp adjustment garbles under 1; measured on 6.18, see
 * sc_ack_decodes).
 */
void sc_conf_opts(struct sc_conf *c, bool ack, bool raw)
{
	unsigned long long rmem[3] = {}, space = 0, max = 0;
	int ecn = sc_sysctl_read(SC_SYSCTL_ECN), ws = 0;
	int ts = sc_sysctl_read(SC_SYSCTL_TIMESTAMPS);
	FILE *f;

	c->opts = raw ? SC_OPT_RAW : 0;
	c->wscale = 0;
	if (raw) {
		if (ts <= 0 || sc_sysctl_read(SC_SYSCTL_COOKIES) == 2)
			return;
		c->opts |= SC_OPT_ACK;
	} else if (ts == 2)
		c->opts = SC_OPT_TS;
	else if (ts == 1 && ack)
		c->opts = SC_OPT_ACK;
	else
		return;
	if (sc_sysctl_read(SC_SYSCTL_SACK) > 0)
		c->opts |= SC_OPT_SACK;
	if (ecn == 1 || ecn == 2)
		c->opts |= SC_OPT_ECN;
	f = fopen(SC_SYSCTL_RMEM, "re");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &rmem[0], &rmem[1], &rmem[2]) == 3)
			space = rmem[2];
		fclose(f);
	}
	f = fopen(SC_SYSCTL_RMEM_MAX, "re");
	if (f) {
		if (fscanf(f, "%llu", &max) == 1 && max > space)
			space = max;
		fclose(f);
	}
	if (sc_sysctl_read(SC_SYSCTL_WSCALE) > 0 && space) {
		space = space > 0xffffffffULL ? 0xffffffffULL : space;
		while (space >> (ws + 16))
			ws++;
		c->opts |= SC_OPT_WS;
		c->wscale = ws > 14 ? 14 : ws;
	}
}

/* What the SYN-ACKs carry, as attach and status say it */
void sc_opts_text(const struct sc_conf *c, __u32 mflags, char *buf, size_t n)
{
	bool raw = c->opts & SC_OPT_RAW;
	const char *why;
	char ws[32] = "";

	if (!(c->opts & (SC_OPT_TS | SC_OPT_ACK))) {
		if (raw)
			why = sc_sysctl_read(SC_SYSCTL_TIMESTAMPS) <= 0 ? "tcp_timestamps is 0" :
			      "tcp_syncookies is 2: the listener would answer SYNPROXY with cookies "
			      "of its own, which misread them; 1 gives them";
		else if (mflags & SC_META_TABLES)
			why = "tcp_timestamps is not 2; under 1 the listener's half of the conntrack "
			      "hand-off would misread them, see --no-handoff";
		else if (mflags & SC_META_ACK)
			why = "tcp_timestamps is 0";
		else
			why = "tcp_timestamps is not 2, and no ACK program: bpf_sk_assign_tcp_reqsk "
			      "is 6.9+";
		snprintf(buf, n, "MSS only (%s)", why);
		return;
	}
	if (c->opts & SC_OPT_WS)
		snprintf(ws, sizeof(ws), ", window scale %u", c->wscale);
	why = c->opts & SC_OPT_TS ? "tcp_timestamps 2" :
	      !raw ? "the ACK program decodes them" :
	      mflags & SC_META_ACK ? "SYNPROXY decodes them, the ACK program if its tables go" :
	      "SYNPROXY decodes them";
	snprintf(buf, n, "MSS, timestamps%s%s%s (%s)", ws, c->opts & SC_OPT_SACK ? ", SACK" : "",
		 c->opts & SC_OPT_ECN ? ", ECN" : "", why);
}

/*
 * c->local4: two IPv4 addresses of the host's that sc_rt_local makes
 * SC_ROUTE_LOCAL /32s (loopback ones aside), dev's own first
 */
static void sc_conf_local4(struct sc_conf *c, const char *dev)
{
	struct ifaddrs *ifa, *i;
	int n = 0, pass;

	if (getifaddrs(&ifa))
		return;
	for (pass = 0; pass < 2; pass++)
		for (i = ifa; i && n < 2; i = i->ifa_next) {
			__u32 a;

			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
			    !strcmp(i->ifa_name, dev) != !pass)
				continue;
			a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
			if (a && (ntohl(a) >> 24) != 127 && (!n || c->local4[0] != a))
				c->local4[n++] = a;
		}
	freeifaddrs(ifa);
}

int sc_conf_read(const struct sc_target *t, struct sc_conf *c, bool ack, bool raw)
{
	struct ifreq ifr = {};
	int fd, err = 0;

	memset(c, 0, sizeof(*c));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		err = -errno;
		goto out;
	}
	memcpy(c->mac, ifr.ifr_hwaddr.sa_data, sizeof(c->mac));
	if (ioctl(fd, SIOCGIFMTU, &ifr)) {
		err = -errno;
		goto out;
	}
	/* IPv6 needs 1280; below that the device carries no IPv6 anyway */
	c->mss4 = ifr.ifr_mtu > 576 ? ifr.ifr_mtu - 20 - SC_TCP_HDR : 536;
	c->mss6 = ifr.ifr_mtu > 1280 ? ifr.ifr_mtu - 40 - SC_TCP_HDR : 1220;
	sc_conf_opts(c, ack, raw);
	sc_conf_local4(c, t->dev);
out:
	close(fd);
	return err;
}

/* The routes read so far: the keys to keep in the trie */
struct sc_rt {
	struct sc_route_key *k;
	__u32 *v;
	int n, cap;
};

static int sc_rt_add(struct sc_rt *r, const void *addr, bool v4, unsigned int plen, __u32 val)
{
	struct sc_route_key k = { .prefixlen = v4 ? plen + 96 : plen };
	int i;

	if (v4) {
		k.addr[10] = k.addr[11] = 0xff;
		memcpy(k.addr + 12, addr, 4);
	} else {
		memcpy(k.addr, addr, 16);
	}
	for (i = 0; i < r->n; i++)
		if (!memcmp(&r->k[i], &k, sizeof(k))) {
			/* an address of the host wins over a route to it */
			if (val == SC_ROUTE_LOCAL)
				r->v[i] = val;
			return 0;
		}
	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 64;
		struct sc_route_key *nk = realloc(r->k, cap * sizeof(*nk));
		__u32 *nv;

		if (!nk)
			return -ENOMEM;
		r->k = nk;
		nv = realloc(r->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		r->v = nv;
		r->cap = cap;
	}
	if (r->n >= SC_ROUTES_MAX)
		return -E2BIG;
	r->k[r->n] = k;
	r->v[r->n++] = val;
	return 0;
}

static __u32 sc_rt_dev(const char *name, unsigned int flags)
{
	if (flags & RTF_REJECT)
		return SC_ROUTE_REJECT;
	/* a blackhole has no device: "*" */
	return if_nametoindex(name);
}

/* IPv4 routes of the main table (/proc/net/route shows no other) */
static int sc_rt_read4(struct sc_rt *r)
{
	char line[512], dev[IF_NAMESIZE + 1];
	unsigned int dst, gw, flags, mask;
	int err = 0;
	FILE *f = fopen("/proc/net/route", "re");

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%16s %x %x %x %*d %*d %*d %x", dev, &dst, &gw, &flags, &mask) != 5)
			continue;	/* the heading */
		err = sc_rt_add(r, &dst, true, __builtin_popcount(mask), sc_rt_dev(dev, flags));
	}
	fclose(f);
	return err;
}

static int sc_hex16(const char *s, __u8 *out)
{
	int i;

	for (i = 0; i < 16; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	return 0;
}

/*
 * IPv6 routes, every table (/proc/net/ipv6_route does not say which): the
 * host's own addresses (RTF_LOCAL), anycast, cached and multicast routes
 * are not routes back to a client.
 */
static int sc_rt_read6(struct sc_rt *r)
{
	char line[512], dst[33], dev[IF_NAMESIZE + 1];
	unsigned int plen, flags;
	__u8 a[16];
	int err = 0;
	FILE *f = fopen("/proc/net/ipv6_route", "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;	/* no IPv6 */
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32s %x %*s %*x %*s %*x %*x %*x %x %16s", dst, &plen, &flags, dev) != 4 ||
		    sc_hex16(dst, a) || plen > 128)
			continue;
		if ((flags & (RTF_LOCAL | RTF_ANYCAST | RTF_CACHE)) || a[0] == 0xff)
			continue;
		err = sc_rt_add(r, a, false, plen, sc_rt_dev(dev, flags));
	}
	fclose(f);
	return err;
}

/*
 * The broadcast and network addresses of an IPv4 address's prefix (below
 * /31), and the broadcast address it names, as REJECT /32s: the stack
 * takes no SYN from a broadcast source (a martian: fib_validate_source),
 * so neither may the program, whose route back would otherwise be the
 * prefix's own. The network address no kernel answers either way; it is
 * refused too. An address of the host's wins over these (sc_rt_add).
 */
static int sc_rt_martian4(struct sc_rt *r, const struct ifaddrs *i)
{
	const struct sockaddr_in *m = (const struct sockaddr_in *)i->ifa_netmask;
	const struct sockaddr_in *b = (const struct sockaddr_in *)i->ifa_broadaddr;
	__u32 a = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr, mask, x;
	int err = 0;

	if (!m || m->sin_family != AF_INET)
		return 0;
	mask = m->sin_addr.s_addr;
	if (__builtin_popcount(mask) < 31) {
		x = a | ~mask;
		err = sc_rt_add(r, &x, true, 32, SC_ROUTE_REJECT);
		x = a & mask;
		if (!err && x)
			err = sc_rt_add(r, &x, true, 32, SC_ROUTE_REJECT);
	}
	if (!err && (i->ifa_flags & IFF_BROADCAST) && b && b->sin_family == AF_INET &&
	    b->sin_addr.s_addr && b->sin_addr.s_addr != 0xffffffff)
		err = sc_rt_add(r, &b->sin_addr.s_addr, true, 32, SC_ROUTE_REJECT);
	return err;
}

/* The host's own addresses, loopback ones aside (the program refuses those) */
static int sc_rt_local(struct sc_rt *r)
{
	static const __u8 lo6[16] = { [15] = 1 };
	struct ifaddrs *ifa, *i;
	int err = 0;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; !err && i; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			struct in_addr *a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;

			if ((ntohl(a->s_addr) >> 24) != 127)
				err = sc_rt_add(r, a, true, 32, SC_ROUTE_LOCAL);
			if (!err)
				err = sc_rt_martian4(r, i);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			struct in6_addr *a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (memcmp(a, lo6, 16))
				err = sc_rt_add(r, a, false, 128, SC_ROUTE_LOCAL);
		}
	}
	freeifaddrs(ifa);
	return err;
}

/*
 * Make the trie (map_fd) hold the n keys k with values v: the new entries
 * first, then the old ones that are gone, so a program reading it
 * meanwhile sees either.
 */
static int sc_lpm_sync(int map_fd, const void *k, size_t ksz, const __u32 *v, int n)
{
	struct sc_route_key cur, next, *prev = NULL;	/* the largest of the keys */
	int err = 0, i;

	for (i = 0; !err && i < n; i++)
		if (bpf_map_update_elem(map_fd, (const char *)k + i * ksz, &v[i], BPF_ANY))
			err = -errno;
	while (!err && !bpf_map_get_next_key(map_fd, prev, &next)) {
		for (i = 0; i < n && memcmp((const char *)k + i * ksz, &next, ksz); i++)
			;
		if (i == n && !bpf_map_delete_elem(map_fd, &next)) {
			prev = NULL;	/* start over: the walk lost its place */
			continue;
		}
		cur = next;
		prev = &cur;
	}
	return err;
}

/*
 * What sc_routes answers for an IPv4 address that no entry of at least /96
 * holds: its longest entry that holds all of ::ffff:0:0/96 (an IPv6
 * default route), or SC_ROUTE_REJECT, as a miss
 */
static __u32 sc_rt_dflt4(const struct sc_rt *r)
{
	static const __u8 mapped[16] = { [10] = 0xff, [11] = 0xff };
	__u32 v = SC_ROUTE_REJECT;
	int best = -1, i, j, plen;

	for (i = 0; i < r->n; i++) {
		plen = r->k[i].prefixlen;
		if (plen >= 96 || plen <= best)
			continue;
		for (j = 0; j < plen; j++)
			if ((r->k[i].addr[j / 8] ^ mapped[j / 8]) & (0x80 >> (j % 8)))
				break;
		if (j == plen) {
			best = plen;
			v = r->v[i];
		}
	}
	return v;
}

/*
 * The table (rtab_fd, struct sc_rtab4_node) made the n IPv4 routes' (with
 * dflt where none holds an address): its nodes below the root written into
 * the half the root does not point into, then the root over the old one
 * (syncookie_abi.h). Nothing is written where the table in use is already
 * that one.
 */
static int sc_rtab4_sync(int rtab_fd, struct sc_rtab4_route *routes, int n, __u32 dflt)
{
	struct sc_rtab4_node *node = calloc(1 + SC_RTAB4_HALF, sizeof(*node)), cur;
	__u32 live = 0, base, k, s;
	int used, err = 0, i;

	if (!node)
		return -ENOMEM;
	/* the half the root in use points into, if it points anywhere */
	k = 0;
	if (!bpf_map_lookup_elem(rtab_fd, &k, &cur))
		for (s = 0; s < 256 && !live; s++)
			if ((cur.slot[s] & SC_RTAB4_KIND) == SC_RTAB4_CHILD)
				live = (cur.slot[s] & ~SC_RTAB4_KIND) > SC_RTAB4_HALF ?
				       1 + SC_RTAB4_HALF : 1;
	/* the same table again, at the same place? */
	used = sc_rtab4_build(routes, n, dflt, node, 1 + SC_RTAB4_HALF, live ? live : 1);
	for (i = 0; i < used; i++) {
		k = i ? (live ? live : 1) + i - 1 : 0;
		if (bpf_map_lookup_elem(rtab_fd, &k, &cur) || memcmp(&cur, &node[i], sizeof(cur)))
			break;
	}
	if (i == used)
		goto out;
	base = live == 1 ? 1 + SC_RTAB4_HALF : 1;
	used = sc_rtab4_build(routes, n, dflt, node, 1 + SC_RTAB4_HALF, base);
	/* the nodes below the root first, the root last */
	for (i = used - 1; !err && i >= 0; i--) {
		k = i ? base + i - 1 : 0;
		if (bpf_map_update_elem(rtab_fd, &k, &node[i], BPF_ANY))
			err = -errno;
	}
out:
	free(node);
	return err;
}

/*
 * The IPv4 trie (map4_fd) made the entries of r inside ::ffff:0:0/96, of
 * at least /96, with 32-bit keys (syncookie_abi.h), and the table
 * (rtab_fd) what the two tries answer for every IPv4 address
 */
static int sc_rt_sync4(int map4_fd, int rtab_fd, const struct sc_rt *r)
{
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct sc_route4_key *k = calloc(r->n ? r->n : 1, sizeof(*k));
	struct sc_rtab4_route *rt = calloc(r->n ? r->n : 1, sizeof(*rt));
	__u32 *v = calloc(r->n ? r->n : 1, sizeof(*v));
	int err = -ENOMEM, i, n = 0;

	if (k && v && rt) {
		for (i = 0; i < r->n; i++) {
			if (r->k[i].prefixlen < 96 || memcmp(r->k[i].addr, mapped, 12))
				continue;
			k[n].prefixlen = r->k[i].prefixlen - 96;
			memcpy(&k[n].addr, r->k[i].addr + 12, 4);
			v[n] = r->v[i];
			rt[n] = (struct sc_rtab4_route){ k[n].addr, k[n].prefixlen, v[n] };
			n++;
		}
		err = sc_lpm_sync(map4_fd, k, sizeof(*k), v, n);
		if (!err)
			err = sc_rtab4_sync(rtab_fd, rt, n, sc_rt_dflt4(r));
	}
	free(k);
	free(v);
	free(rt);
	return err;
}

/*
 * The routes tries (map_fd, map4_fd) and the IPv4 table (rtab_fd) made
 * what the namespace entered has now: the tries first, which the table
 * sends what it cannot answer to
 */
int sc_routes_sync(int map_fd, int map4_fd, int rtab_fd)
{
	struct sc_rt r = {};
	int err;

	err = sc_rt_local(&r);
	if (!err)
		err = sc_rt_read4(&r);
	if (!err)
		err = sc_rt_read6(&r);
	if (!err)
		err = sc_lpm_sync(map_fd, r.k, sizeof(*r.k), r.v, r.n);
	if (!err)
		err = sc_rt_sync4(map4_fd, rtab_fd, &r);
	free(r.k);
	free(r.v);
	return err;
}

/* The same on the maps pinned for t */
int sc_routes_sync_pinned(const struct sc_target *t)
{
	static const char *const pins[3] = { SC_PIN_ROUTES, SC_PIN_ROUTES4, SC_PIN_RTAB4 };
	char path[PATH_MAX];
	int fd[3], err = 0, i;

	for (i = 0; i < 3; i++) {
		sc_pin(path, sizeof(path), t, pins[i]);
		fd[i] = bpf_obj_get(path);
		if (fd[i] < 0 && !err)
			err = -errno;
	}
	if (!err)
		err = sc_routes_sync(fd[0], fd[1], fd[2]);
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}

/* The allow trie (map_fd) made a's --allow (empty without) */
int sc_allow_sync(int map_fd, const struct sc_args *a)
{
	__u32 one[SC_ALLOW_MAX];
	int i;

	for (i = 0; i < a->nallow; i++)
		one[i] = 1;
	return sc_lpm_sync(map_fd, a->allow, sizeof(a->allow[0]), one, a->nallow);
}

/* "10.0.0.0/8", "2001:db8::/32" or an address alone, as the tries key it; -1 if not */
int sc_parse_cidr(const char *s, struct sc_route_key *k)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	bool v6 = strchr(s, ':');
	long plen = v6 ? 128 : 32;
	__u8 a[16];
	int i;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		plen = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || plen < 0 || plen > (v6 ? 128 : 32))
			return -1;
	}
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, a) != 1)
		return -1;
	memset(k, 0, sizeof(*k));
	if (v6) {
		memcpy(k->addr, a, 16);
		k->prefixlen = plen;
	} else {
		k->addr[10] = k->addr[11] = 0xff;
		memcpy(k->addr + 12, a, 4);
		k->prefixlen = plen + 96;
	}
	/* the host bits off, so that the same prefix is the same key */
	for (i = k->prefixlen; i < 128; i++)
		k->addr[i / 8] &= ~(0x80 >> (i % 8));
	return 0;
}

/* The bit offset of member name in the struct (or union) id of btf, or -1 */
static long sc_btf_member_bit(const struct btf *btf, __u32 id, const char *name, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name)) {
			*type = m->type;
			return btf_member_bit_offset(t, i);
		}
	}
	return -1;
}

/* The byte offset of member name (not a bitfield inside a byte), or -1 */
static long sc_btf_member(const struct btf *btf, __u32 id, const char *name, __u32 *type)
{
	long bit = sc_btf_member_bit(btf, id, name, type);

	return bit >= 0 && !(bit % 8) ? bit / 8 : -1;
}

/* Is type id of btf an integer of size bytes? */
static bool sc_btf_int(const struct btf *btf, __u32 id, __u32 size)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));

	return t && btf_is_int(t) && t->size == size;
}

/*
 * Where a listener keeps what the program reads of it, from this kernel's
 * BTF: offsetof(struct tcp_sock, rx_opt.user_mss) (TCP_MAXSEG),
 * offsetof(struct tcp_sock, window_clamp) and the bit offset of struct
 * sock's sk_userlocks (SO_RCVBUF); all 0 if the kernel has no BTF or the
 * layout is not the one expected. struct sock is where tcp_sock starts.
 * And whether it has the kfunc syncookie_ack calls.
 */
void sc_listener_offsets(struct sc_offsets *o)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long off1, off2, wc, ul;
	__u32 type = 0, id;
	__s32 sid, kid;

	memset(o, 0, sizeof(*o));
	if (libbpf_get_error(btf))
		return;
	sid = btf__find_by_name_kind(btf, "tcp_sock", BTF_KIND_STRUCT);
	kid = btf__find_by_name_kind(btf, "sock", BTF_KIND_STRUCT);
	off1 = sid > 0 ? sc_btf_member(btf, sid, "rx_opt", &type) : -1;
	id = type;
	off2 = off1 >= 0 ? sc_btf_member(btf, btf__resolve_type(btf, id), "user_mss", &type) : -1;
	if (off2 >= 0 && !sc_btf_int(btf, type, 2))
		off2 = -1;
	wc = sid > 0 ? sc_btf_member(btf, sid, "window_clamp", &type) : -1;
	if (wc >= 0 && !sc_btf_int(btf, type, 4))
		wc = -1;
	ul = kid > 0 ? sc_btf_member_bit(btf, kid, "sk_userlocks", &type) : -1;
	o->reqsk = btf__find_by_name_kind(btf, "bpf_sk_assign_tcp_reqsk", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	if (off2 < 0 || wc <= 0 || ul <= 0)
		return;
	o->user_mss = off1 + off2;
	o->wclamp = wc;
	o->userlocks_bit = ul;
}

/* Set the const volatile __u32 name of obj's .rodata, before load */
int sc_rodata_set(struct bpf_object *obj, const char *name, __u32 val)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".rodata");
	const struct btf_var_secinfo *v;
	const struct btf_type *sec;
	size_t size;
	__s32 id;
	char *data;
	int i;

	if (!btf || !map)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	sec = id > 0 ? btf__type_by_id(btf, id) : NULL;
	data = (char *)bpf_map__initial_value(map, &size);
	if (!sec || !data)
		return -ENOENT;
	v = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), name) &&
		    v->size == sizeof(val) && v->offset + sizeof(val) <= size) {
			memcpy(data + v->offset, &val, sizeof(val));
			return 0;
		}
	}
	return -ENOENT;
}
