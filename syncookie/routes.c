// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * routes.c - the namespace's routes and addresses as the program asks
 * them: read in the namespace entered (/proc/net/route, ipv6_route and the
 * addresses, local ones as SC_ROUTE_LOCAL) by every attach and refresh,
 * and written into the sc_routes trie, its IPv4 twin with 32-bit keys and
 * the IPv4 table (rtab.c), each only where it changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/route.h>
#include <linux/ipv6_route.h>

#include <bpf/bpf.h>

#include "rtab.h"
#include "sc.h"

/* ::ffff:0:0/96, where the tries keep IPv4 */
static const __u8 sc_v4mapped[12] = { [10] = 0xff, [11] = 0xff };

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
int sc_lpm_sync(int map_fd, const void *k, size_t ksz, const __u32 *v, int n)
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
	__u32 v = SC_ROUTE_REJECT;
	int best = -1, i, j, plen;

	for (i = 0; i < r->n; i++) {
		plen = r->k[i].prefixlen;
		if (plen >= 96 || plen <= best)
			continue;
		for (j = 0; j < plen; j++)
			if ((r->k[i].addr[j / 8] ^ sc_v4mapped[j / 8]) & (0x80 >> (j % 8)))
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
	__u32 live = 0, at, base, k, s;
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
	at = live ? live : 1;
	used = sc_rtab4_build(routes, n, dflt, node, 1 + SC_RTAB4_HALF, at);
	for (i = 0; i < used; i++) {
		k = i ? at + i - 1 : 0;
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
	struct sc_route4_key *k = calloc(r->n ? r->n : 1, sizeof(*k));
	struct sc_rtab4_route *rt = calloc(r->n ? r->n : 1, sizeof(*rt));
	__u32 *v = calloc(r->n ? r->n : 1, sizeof(*v));
	int err = -ENOMEM, i, n = 0;

	if (k && v && rt) {
		for (i = 0; i < r->n; i++) {
			if (r->k[i].prefixlen < 96 || memcmp(r->k[i].addr, sc_v4mapped, 12))
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


/*
 * How much of its IPv4 table t's program has: *nodes, those the root
 * reaches (itself included; at most 1 + SC_RTAB4_HALF), and *full, whether
 * a slot sends the program to the tries (the routes needed more nodes). 0,
 * or -errno where the table cannot be read.
 */
int sc_rtab4_usage(const struct sc_target *t, int *nodes, bool *full)
{
	__u32 queue[1 + SC_RTAB4_HALF] = { 0 }, s, v;
	struct sc_rtab4_node node;
	int head = 0, tail = 1, err;

	*nodes = 0;
	*full = false;
	while (head < tail) {
		err = sc_map_get(t, SC_PIN_RTAB4, &node, queue[head++]);
		if (err)
			return err;
		for (s = 0; s < 256; s++) {
			v = node.slot[s];
			if (v == SC_RTAB4_TRIE) {
				*full = true;
			} else if ((v & SC_RTAB4_KIND) == SC_RTAB4_CHILD) {
				/* a tree of one half's nodes: never more */
				if (tail == (int)(sizeof(queue) / sizeof(queue[0])))
					return -EUCLEAN;
				queue[tail++] = v & ~SC_RTAB4_KIND;
			}
		}
	}
	*nodes = tail;
	return 0;
}
