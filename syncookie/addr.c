// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * addr.c - what the program needs to know of its device and namespace to
 * answer only what the host itself would: the device's MAC, MTU and first
 * addresses (struct sc_conf), read in the namespace entered by every
 * attach (its routes: routes.c), the sources --allow lets in; and where
 * the listener keeps its TCP_MAXSEG on this kernel.
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

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

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
 * With them, struct tcp_sock's id where the kernel has bpf_rdonly_cast.
 * And whether it has the kfunc syncookie_ack calls.
 */
void sc_listener_offsets(struct sc_offsets *o)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long off1, off2, wc, ul;
	__u32 type = 0, id;
	bool cast;
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
	cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	if (off2 < 0 || wc <= 0 || ul <= 0)
		return;
	o->tcp_sock_btf = cast ? sid : 0;
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
