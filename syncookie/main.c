// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - the second guard: answer SYNs to chosen TCP ports of a
 * device with SYN cookies before the stack sees them.
 *
 *	csum-guard syncookie attach DEV --ports P[,P...] [--netns NS]
 *		[--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl] [--allow CIDR[,CIDR...]]
 *		[--no-handoff]
 *	csum-guard syncookie detach DEV [--netns NS]
 *	csum-guard syncookie status [DEV] [--netns NS] [--json]
 *	csum-guard syncookie probe [--json]
 *
 * Modes: xdp (native), xdp-generic, tc (tcx link on 6.6+, clsact filter
 * otherwise) run syncookie.bpf.c; nft is the fallback for kernels
 * without bpf_tcp_gen_syncookie: the kernel's SYNPROXY in a table of our
 * own. auto: native XDP where the driver has it (not on veth, see
 * sc_native_ok), else generic XDP, else tc; nft when the program does not
 * load. State lives on bpffs like the checksum guard's, apart from it:
 *
 *	/sys/fs/bpf/csum_guard_syncookie/<netns inode>/<ifindex>/
 *		meta      mode, flags, the sysctl value found (struct sc_meta)
 *		ports     the protected ports, a bitmap (updated in place)
 *		counters  per-CPU synack / passed / malformed / foreign / ack /
 *		          ack_refused (bpf modes)
 *		conf      the device's MAC and MSS       routes  the namespace's
 *		          addresses and routes, an LPM trie (both: addr.c)
 *		link      xdp or tcx link        prog   clsact: the program
 *		ack_link  syncookie_ack's tcx link (6.9+: options under tcp_timestamps 1)
 *
 * Raw cookies (6.0+, where attach makes both nft tables) go to SYNPROXY,
 * which checks them with no sysctl. The listener's cookies: the returning
 * ACK is checked by the kernel's cookie_v4_check / cookie_v6_check, which
 * takes it whenever net.ipv4.tcp_syncookies is not 0 and the listener
 * "overflowed" lately (the helper marks it so). But the helper issues a
 * cookie only when tcp_syncookies is 2 or the listener's SYN queue is full
 * (tcp_get_syncookie_mss): such a responder needs 2, in the device's
 * namespace. attach refuses otherwise, or with --set-sysctl sets it, and
 * detach puts back the value it found. SYNPROXY (nft) instead needs
 * net.netfilter.nf_conntrack_tcp_loose=0, the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "cli.h"
#include "compat.h"
#include "json.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "sc.h"
#include <getopt.h>
#include "syncookie.h"

struct sc_counts {
	__u64 v[SC_CNT_MAX];
	/* nft mode: ACKs handed to SYNPROXY, invalid packets dropped after
	 * it (the table's counters); cookies SYNPROXY took and refused
	 * (/proc/net/stat/synproxy: the namespace's, every SYNPROXY in it) */
	__u64 acks, dropped, valid, invalid;
};

/* cg_state_each_netns(): the devices of each other namespace with state */
struct sc_walk {
	bool json, *first;
	int n;
};

static void sc_counters(const struct sc_target *t, const struct sc_meta *m, struct sc_counts *c)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	__u64 *vals;
	__u32 key;

	memset(c, 0, sizeof(*c));
	if (m->mode == SC_NFT || (m->flags & SC_META_TABLES)) {
		c->acks = sc_nft_counter(t->ifindex, "acks");
		c->dropped = sc_nft_counter(t->ifindex, "dropped");
		sc_nft_cookies(&c->valid, &c->invalid);
	}
	if (m->mode == SC_NFT) {
		c->v[SC_CNT_SYNACK] = sc_nft_counter(t->ifindex, "synack");
		return;
	}
	vals = ncpu > 0 ? calloc(ncpu, sizeof(*vals)) : NULL;
	for (key = 0; vals && key < SC_CNT_MAX; key++)
		if (!sc_map_get(t, SC_PIN_COUNTERS, vals, key))
			for (i = 0; i < ncpu; i++)
				c->v[key] += vals[i];
	free(vals);
}

/*
 * What its SYN-ACKs carry (bpf modes): the options attach found the
 * namespace allowing, and whether its sysctls say otherwise now (attach
 * again takes them in). Reads only.
 */
static void sc_status_opts(const struct sc_target *t, const struct sc_meta *m,
			   struct sc_conf *conf, char *buf, size_t n)
{
	struct sc_conf now;

	buf[0] = '\0';
	if (m->mode == SC_NFT || sc_map_get(t, SC_PIN_CONF, conf, 0))
		return;
	now = *conf;
	sc_conf_opts(&now, sc_ack_decodes(m), sc_raw(m));
	sc_opts_text(conf, m->flags, buf, n);
	if (now.opts != conf->opts || now.wscale != conf->wscale)
		snprintf(buf + strlen(buf), n - strlen(buf),
			 " (stale: the namespace's sysctls changed since attach; attach again)");
}

/*
 * csum-guard status --prometheus: the metric the walk over every
 * responder writes now (each metric's samples must be one group)
 */
static enum { SC_PROM_OFF, SC_PROM_ANSWERING, SC_PROM_PACKETS } sc_prom;

static void sc_prom_labels(const struct sc_target *t, const char *netns)
{
	fputs("{device=", stdout);
	cg_prom_str(t->dev);
	fputs(",netns=", stdout);
	cg_prom_str(netns ?: "");
}

/* tables and cookies as status --json says them (NULL: "") */
static void sc_prom_row(const struct sc_target *t, const char *netns, const struct sc_meta *m,
			const struct sc_counts *c, const char *tables, const char *cookies,
			bool answering, bool old)
{
	static const char *const kinds[SC_CNT_MAX] = {
		[SC_CNT_SYNACK] = "synack", [SC_CNT_PASSED] = "passed",
		[SC_CNT_MALFORMED] = "malformed", [SC_CNT_FOREIGN] = "foreign",
		[SC_CNT_ACK] = "ack", [SC_CNT_ACK_REFUSED] = "ack_refused",
	};
	unsigned int k;

	if (sc_prom == SC_PROM_ANSWERING) {
		fputs("csum_guard_syncookie_answering", stdout);
		sc_prom_labels(t, netns);
		printf(",mode=\"%s\",tables=\"%s\",cookies=\"%s\",outdated=\"%s\"} %d\n",
		       sc_mode_name(m->mode), tables ?: "", cookies ?: "", old ? "true" : "false",
		       answering);
		return;
	}
	/* an older version's counters are its own to read */
	for (k = 0; !old && k < SC_CNT_MAX; k++) {
		if (m->mode == SC_NFT && k != SC_CNT_SYNACK)
			continue;
		fputs("csum_guard_syncookie_packets_total", stdout);
		sc_prom_labels(t, netns);
		printf(",counter=\"%s\"} %llu\n", kinds[k], (unsigned long long)c->v[k]);
	}
}

/* One device; returns whether it is answering. */
static bool sc_print(const struct sc_target *t, bool json, bool *first_row)
{
	struct sc_counts c = {};
	struct sc_ports p = {};
	struct sc_meta m;
	char list[SC_MAX_PORTS * 8], opts[160] = "";
	struct sc_conf conf = {};
	char dev[4 * IF_NAMESIZE + 1], nsbuf[4 * PATH_MAX + 1], ino[24];
	/* named as csum-guard status names it: an unnamed namespace by inode */
	const char *netns = cg_netns_label(t->netns, t->ino, ino, sizeof(ino));
	enum sc_health h = SC_DEAD;
	bool live, first = true, old = false;
	const char *tables, *cookies;
	int port, sys;

	if (!sc_map_get(t, SC_PIN_META, &m, 0)) {
		h = sc_health(t, &m);
		old = h == SC_DEAD && sc_outdated(t, &m);
	}
	live = h != SC_DEAD;
	/* its nft tables: whole, gone (flushed), or none made (bpf modes) */
	tables = !live ? NULL : h == SC_TABLES_GONE ? "gone" :
		 m.mode == SC_NFT || (m.flags & SC_META_TABLES) ? "ok" :
		 m.flags & SC_META_NO_HANDOFF ? "off" : "none";
	/* whose cookies: raw ones for SYNPROXY, or the listener's */
	cookies = !live || m.mode == SC_NFT ? NULL : sc_raw(&m) ? "raw" : "listener";
	if (sc_prom) {
		/* each pass reads what its metric needs */
		if (live && sc_prom == SC_PROM_PACKETS)
			sc_counters(t, &m, &c);
		if (live || old)
			sc_prom_row(t, netns, &m, &c, tables, cookies,
				    !(m.mode == SC_NFT && h == SC_TABLES_GONE), old);
		return live || old;
	}
	if (live) {
		sc_map_get(t, SC_PIN_PORTS, &p, 0);
		sc_counters(t, &m, &c);
		sc_status_opts(t, &m, &conf, opts, sizeof(opts));
	}
	sys = sc_sysctl_read(live ? sc_sysctl_path(m.mode) : SC_SYSCTL_COOKIES);
	if (!json) {
		printf("%s%s%s: ", cg_text_safe(t->dev, dev, sizeof(dev)), netns ? " netns " : "",
		       netns ? cg_text_safe(netns, nsbuf, sizeof(nsbuf)) : "");
		if (old) {
			printf("answering SYNs (%s) with an older csum-guard's program (its state is "
			       "version %u, this one's %u): attach again to update it\n",
			       sc_mode_name(m.mode), m.abi, SC_ABI_VERSION);
			return true;
		}
		if (!live) {
			printf("not answering SYNs\n");
			return false;
		}
		sc_ports_text(&p, list, sizeof(list));
		if (m.mode == SC_NFT && h == SC_TABLES_GONE) {
			printf("not answering SYNs: its nft tables are gone (nft flush ruleset?); "
			       "attach again makes them; %s %d\n", sc_sysctl_name(m.mode), sys);
			return true;
		}
		if (m.mode == SC_NFT) {
			printf("answering SYNs (nft), ports %s, synack %llu, acks %llu, dropped %llu; "
			       "SYNPROXY in the namespace: cookie_valid %llu, cookie_invalid %llu; %s %d\n",
			       list, (unsigned long long)c.v[SC_CNT_SYNACK], (unsigned long long)c.acks,
			       (unsigned long long)c.dropped, (unsigned long long)c.valid,
			       (unsigned long long)c.invalid, sc_sysctl_name(m.mode), sys);
			return true;
		}
		printf("answering SYNs (%s), ports %s, synack %llu, passed %llu, malformed %llu, "
		       "foreign %llu, %s %d%s%s", sc_mode_name(m.mode), list,
		       (unsigned long long)c.v[SC_CNT_SYNACK], (unsigned long long)c.v[SC_CNT_PASSED],
		       (unsigned long long)c.v[SC_CNT_MALFORMED], (unsigned long long)c.v[SC_CNT_FOREIGN],
		       sc_sysctl_name(m.mode), sys, *opts ? "; " : "", opts);
		if (m.flags & SC_META_ACK)
			printf("; ACK program: connections %llu, refused %llu",
			       (unsigned long long)c.v[SC_CNT_ACK],
			       (unsigned long long)c.v[SC_CNT_ACK_REFUSED]);
		if (h == SC_TABLES_GONE)
			printf("; its nft tables are gone (nft flush ruleset?): no ACK reaches SYNPROXY, "
			       "attach again makes them\n");
		else if (m.flags & SC_META_TABLES)
			printf("; ACKs to SYNPROXY %llu%s, in the namespace cookie_valid %llu, "
			       "cookie_invalid %llu\n", (unsigned long long)c.acks,
			       m.flags & SC_META_HANDOFF6 ? "" : " (IPv4 only)",
			       (unsigned long long)c.valid, (unsigned long long)c.invalid);
		else
			printf("; no conntrack hand-off%s\n",
			       m.flags & SC_META_NO_HANDOFF ? " (--no-handoff)" : "");
		return true;
	}
	if (first_row && !*first_row)
		putchar(',');
	if (first_row)
		*first_row = false;
	putchar('{');
	cg_json_kv_str(&first, "dev", t->dev);
	cg_json_kv_str(&first, "netns", netns);
	cg_json_kv_u64(&first, "ifindex", t->ifindex);
	cg_json_kv_bool(&first, "attached", live || old);
	/* an older csum-guard's responder: what it counts is its own */
	cg_json_kv_bool(&first, "outdated", old);
	cg_json_kv_str(&first, "mode", live || old ? sc_mode_name(m.mode) : NULL);
	cg_json_kv_str(&first, "tables", tables);
	cg_json_kv_str(&first, "cookies", cookies);
	/* syncookie_ack hooked beside it */
	cg_json_kv_bool(&first, "ack_program", live && (m.flags & SC_META_ACK));
	fputs(",\"ports\":[", stdout);
	for (port = 1, first = true; port < 65536; port++)
		if (p.bits[port >> 3] & (1 << (port & 7))) {
			printf("%s%d", first ? "" : ",", port);
			first = false;
		}
	printf("],\"counters\":{\"synack\":%llu,\"passed\":%llu,\"malformed\":%llu,"
	       "\"foreign\":%llu,\"ack\":%llu,\"ack_refused\":%llu}",
	       (unsigned long long)c.v[SC_CNT_SYNACK], (unsigned long long)c.v[SC_CNT_PASSED],
	       (unsigned long long)c.v[SC_CNT_MALFORMED], (unsigned long long)c.v[SC_CNT_FOREIGN],
	       (unsigned long long)c.v[SC_CNT_ACK], (unsigned long long)c.v[SC_CNT_ACK_REFUSED]);
	if (live && (m.mode == SC_NFT || (m.flags & SC_META_TABLES)))
		printf(",\"nft\":{\"acks\":%llu,\"dropped\":%llu,\"cookie_valid\":%llu,"
		       "\"cookie_invalid\":%llu,\"ipv6\":%s}", (unsigned long long)c.acks,
		       (unsigned long long)c.dropped, (unsigned long long)c.valid,
		       (unsigned long long)c.invalid, m.flags & SC_META_HANDOFF6 ? "true" : "false");
	if (sys >= 0)
		printf(",\"%s\":%d", live && m.mode == SC_NFT ? "nf_conntrack_tcp_loose" :
		       "tcp_syncookies", sys);
	if (*opts)
		printf(",\"options\":{\"timestamps\":%s,\"decoder\":%s,\"window_scale\":%d,"
		       "\"sack\":%s,\"ecn\":%s,\"stale\":%s}",
		       conf.opts & (SC_OPT_TS | SC_OPT_ACK) ? "true" : "false",
		       conf.opts & SC_OPT_TS ? "\"kernel\"" :
		       !(conf.opts & SC_OPT_ACK) ? "null" :
		       conf.opts & SC_OPT_RAW ? "\"synproxy\"" : "\"program\"",
		       conf.opts & SC_OPT_WS ? conf.wscale : -1,
		       conf.opts & SC_OPT_SACK ? "true" : "false",
		       conf.opts & SC_OPT_ECN ? "true" : "false", strstr(opts, "stale") ? "true" : "false");
	putchar('}');
	return live || old;
}

struct sc_listing {
	struct sc_target t;
	bool json, *first_row;
	int n;
};

static int sc_print_one(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct sc_listing *l = arg;
	char name[IF_NAMESIZE];
	struct sc_meta m;

	l->t.ifindex = ifindex;
	snprintf(l->t.dir, sizeof(l->t.dir), "%s", dir);
	if (sc_map_get(&l->t, SC_PIN_META, &m, 0) ||
	    !(sc_live(&l->t, &m) || sc_outdated(&l->t, &m)) || !if_indextoname(ifindex, name))
		return 0;
	l->t.dev = name;
	l->n += sc_print(&l->t, l->json, l->first_row);
	return 0;
}

/* Every answering device of the current namespace. */
static int sc_print_ns(const char *netns, bool json, bool *first_row)
{
	struct sc_listing l = { .t.netns = netns, .json = json, .first_row = first_row };

	if (cg_netns_ino(&l.t.ino) || cg_netns_cookie(&l.t.cookie))
		return 0;
	cg_state_each_dev(SC_PIN_ROOT, l.t.ino, sc_print_one, &l);
	return l.n;
}

static int sc_print_other(const char *label, __u64 ino, void *arg)
{
	struct sc_walk *w = arg;

	w->n += sc_print_ns(label, w->json, w->first);
	return 0;
}

static int sc_status(const struct sc_args *a)
{
	struct sc_target t;
	bool first = true;
	int n;

	if (cg_cli_need_root("read status"))
		return 1;
	if (sc_resolve(a, &t, "read status of", 0))
		return 1;
	if (a->dev) {
		sc_print(&t, a->json, NULL);
		if (a->json)
			putchar('\n');
		return 0;
	}
	if (a->json)
		putchar('[');
	n = sc_print_ns(a->netns, a->json, &first);
	if (!a->netns) {
		/* the other namespaces that have state, by name where they have one */
		struct sc_walk w = { .json = a->json, .first = &first };

		struct cg_ack ack = {};
		int err = cg_state_each_netns(SC_PIN_ROOT, sc_print_other, &w, &ack);

		if (err) {
			if (a->json)
				puts("]");
			cg_err("cannot read status: %s", cg_ack_why(&ack, err));
			return 1;
		}
		n += w.n;
	}
	if (a->json)
		puts("]");
	else if (!n)
		printf("no device answering SYNs%s%s\n", a->netns ? " in netns " : "", a->netns ?: "");
	return 0;
}

/*
 * The SYN responders of every namespace as Prometheus metrics, for
 * csum-guard status --prometheus (which has checked for root): whether
 * each answers, and its counters. Returns 0, or -errno if the namespaces
 * could not be walked.
 */
int cg_syncookie_prometheus(void)
{
	static const char *const help[] = {
		[SC_PROM_ANSWERING] = "# HELP csum_guard_syncookie_answering 1 for each device whose SYN "
			"responder answers SYNs (0: nft mode with its tables flushed); its mode, nft tables "
			"(ok, gone, none, off), cookies (raw, listener) and whether an older csum-guard "
			"attached it.\n# TYPE csum_guard_syncookie_answering gauge\n",
		[SC_PROM_PACKETS] = "# HELP csum_guard_syncookie_packets_total What each SYN responder "
			"counted: synack, passed, malformed, foreign (SYNs to its ports), ack, ack_refused "
			"(its ACK program's); nft mode: synack only.\n"
			"# TYPE csum_guard_syncookie_packets_total counter\n",
	};
	bool first = true;
	struct sc_walk w = { .first = &first };
	struct cg_ack ack = {};
	int err = 0;

	for (sc_prom = SC_PROM_ANSWERING; !err && sc_prom <= SC_PROM_PACKETS; sc_prom++) {
		fputs(help[sc_prom], stdout);
		sc_print_ns(NULL, false, &first);
		err = cg_state_each_netns(SC_PIN_ROOT, sc_print_other, &w, &ack);
	}
	sc_prom = SC_PROM_OFF;
	return err;
}

static int sc_probe(const struct sc_args *a)
{
	char why[256] = "";
	bool loads = false, nft = sc_nft_have(), tcx = false, ack = false, raw = false, first = true;
	struct sc_obj o;
	const char *mode;

	if (geteuid()) {
		snprintf(why, sizeof(why), "not root: cannot load the program");
	} else {
		tcx = cg_have_tcx();
		loads = !sc_load(&o, true, false, true, NULL, why, sizeof(why));
		if (loads) {
			ack = bpf_program__autoload(o.ack);
			raw = sc_have_raw();
			bpf_object__close(o.obj);
		}
	}
	mode = loads ? "xdp" : nft && !geteuid() ? "nft" : NULL;
	if (loads)
		snprintf(why, sizeof(why), "bpf_tcp_gen_syncookie is usable: XDP (native, or generic "
			 "where the driver has none or on veth), else tc");
	else if (nft)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; the fallback is SYNPROXY through nftables");
	if (!a->json) {
		printf("helper: %s\ntcx: %s\nack program: %s\nraw cookies: %s\nnft: %s\nmode: %s\n"
		       "reason: %s\n", loads ? "yes" : "no", tcx ? "yes" : "no",
		       ack ? "yes (timestamps carry the options under tcp_timestamps 1 too)" :
		       "no (without the nft tables, options only under tcp_timestamps 2: "
		       "bpf_sk_assign_tcp_reqsk is 6.9+)",
		       raw ? "yes (with the nft tables: options under tcp_timestamps 1, no sysctl)" :
		       "no (the listener's: tcp_syncookies 2; bpf_tcp_raw_gen_syncookie_ipv4 is 6.0+)",
		       nft ? "yes" : "no", mode ?: "none", why);
		return !mode;
	}
	putchar('{');
	cg_json_kv_bool(&first, "helper", loads);
	cg_json_kv_bool(&first, "tcx", tcx);
	cg_json_kv_bool(&first, "ack_program", ack);
	cg_json_kv_bool(&first, "raw_cookies", raw);
	cg_json_kv_bool(&first, "nft", nft);
	cg_json_kv_str(&first, "mode", mode);
	cg_json_kv_str(&first, "reason", why);
	puts("}");
	return !mode;
}

static int sc_parse_ports(const char *s, struct sc_args *a)
{
	char *end;
	long p;

	memset(&a->ports, 0, sizeof(a->ports));
	a->nports = 0;
	for (;;) {
		errno = 0;
		p = strtol(s, &end, 10);
		if (end == s || errno || p < 1 || p > 65535 || (*end && *end != ','))
			return -1;
		if (!(a->ports.bits[p >> 3] & (1 << (p & 7))))
			a->nports++;
		a->ports.bits[p >> 3] |= 1 << (p & 7);
		if (!*end)
			break;
		s = end + 1;
	}
	return a->nports > SC_MAX_PORTS ? -1 : 0;
}

/* --allow A[,B...]: a->allow and a->nallow */
static int sc_parse_allow(const char *s, struct sc_args *a)
{
	char buf[64];
	size_t n;

	a->nallow = 0;
	for (;;) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(buf) || a->nallow == SC_ALLOW_MAX)
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (sc_parse_cidr(buf, &a->allow[a->nallow++]))
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* One option of a syncookie command into a (cg_cli_parse()'s set) */
static int sc_args_set(int val, const char *arg, void *ctx)
{
	static const char *const modes[] = { "auto", "xdp", "xdp-generic", "tc", "nft" };
	static const enum sc_mode mode_val[] = { SC_AUTO, SC_XDP, SC_XDP_GENERIC, SC_TC, SC_NFT };
	struct sc_args *a = ctx;
	unsigned int i;

	switch (val) {
	case 'n':
		if (!*arg)
			return cg_usage_err("--netns needs a name or a path");
		a->netns = arg;
		break;
	case 'p':
		if (sc_parse_ports(arg, a))
			return cg_usage_err("--ports needs 1 to %d ports 1-65535, comma-separated, "
					    "not '%s'", SC_MAX_PORTS, arg);
		break;
	case 'm':
		for (i = 0; i < ARRAY_SIZE(modes) && strcmp(arg, modes[i]); i++)
			;
		if (i == ARRAY_SIZE(modes))
			return cg_usage_err("unknown mode '%s' (auto, xdp, xdp-generic, tc or nft)",
					    arg);
		a->mode = mode_val[i];
		break;
	case 's':
		a->set_sysctl = true;
		break;
	case 'H':
		a->no_handoff = true;
		break;
	case 'j':
		a->json = true;
		break;
	case 'a':
		if (sc_parse_allow(arg, a))
			return cg_usage_err("--allow needs 1 to %d addresses or prefixes (IPv4 or "
					    "IPv6), comma-separated, not '%s'", SC_ALLOW_MAX, arg);
		break;
	case 'A':
		a->all = true;
		break;
	case 'q':
		cg_quiet = true;
		break;
	}
	return 0;
}

static int sc_run_attach(void *args, int argc, char **argv)
{
	struct sc_args *a = args;

	if (!a->nports)
		return cg_usage_err("syncookie attach needs --ports");
	if (a->no_handoff && a->mode == SC_NFT)
		return cg_usage_err("--no-handoff goes with the bpf modes: nft mode is SYNPROXY itself");
	return sc_attach(a);
}

static int sc_run_detach(void *args, int argc, char **argv)
{
	struct sc_args *a = args;

	if (a->all && a->dev)
		return cg_usage_err("syncookie detach takes DEV or --all, not both");
	return a->all ? sc_detach_all(a) : sc_detach(a);
}

static int sc_run_status(void *args, int argc, char **argv)
{
	return sc_status(args);
}

static int sc_run_probe(void *args, int argc, char **argv)
{
	return sc_probe(args);
}

static const struct cg_opt sc_opts[] = {
	{ "netns", 'n', "NS", "the device's network namespace: a name from `ip netns`, "
	  "a path such as /proc/PID/ns/net, or an inode number" },
	{ "ports", 'p', "P[,P...]", "the TCP ports whose SYNs are answered" },
	{ "mode", 'm', "M", "auto, xdp (native), xdp-generic, tc or nft (the kernel's "
	  "SYNPROXY); auto: native XDP where the driver has it, else generic XDP, else tc, "
	  "nft where the program does not load" },
	{ "set-sysctl", 's', NULL, "set the sysctl the mode needs in DEV's namespace "
	  "(detach puts the old value back)" },
	{ "allow", 'a', "CIDR[,CIDR...]", "answer only these sources (give the ones the "
	  "firewall accepts)" },
	{ "no-handoff", 'H', NULL, "no SYNPROXY tables: the operator says no rule drops an "
	  "ACK without a SYN" },
	{ "all", 'A', NULL, "every responder of the namespace (with --netns) or of the host" },
	{ "json", 'j', NULL, "one JSON document on stdout" },
	{ "quiet", 'q', NULL, "say nothing but errors" },
	{ NULL, 0, NULL, NULL },
};

#define SC_USAGE(...)	((const char *const[]){ __VA_ARGS__, NULL })

static const struct cg_cmd sc_cmds[] = {
	{ "attach", SC_USAGE("DEV --ports P[,P...] [--netns NS]\n"
			     "[--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl]\n"
			     "[--allow CIDR[,CIDR...]] [--no-handoff]"),
	  "Answer SYNs to the given TCP ports of DEV with SYN cookies from XDP or tc,\n"
	  "or the kernel's SYNPROXY (nft) where the helper is missing. Raw cookies for\n"
	  "SYNPROXY's tables need no sysctl (6.0+); the listener's (before 6.0,\n"
	  "--no-handoff, no nft) need net.ipv4.tcp_syncookies=2 in DEV's netns (nft:\n"
	  "net.netfilter.nf_conntrack_tcp_loose=0); --set-sysctl sets it and detach puts\n"
	  "the old value back. Only SYNs this host would answer itself are answered.\n"
	  "Attach again to change the ports or options.\n",
	  "npmsaHq", sc_run_attach },
	{ "detach", SC_USAGE("DEV [--netns NS]", "--all [--netns NS]"),
	  "Stop answering SYNs on DEV, or every responder of the namespace or of the\n"
	  "host (--all), and remove what attach made.\n",
	  "nAq", sc_run_detach },
	{ "status", SC_USAGE("[DEV] [--netns NS] [--json]"),
	  "Say which devices answer SYNs, how, and what they counted.\n",
	  "njq", sc_run_status },
	{ "probe", SC_USAGE("[--json]"),
	  "Say which modes this kernel offers, and which attach would choose.\n",
	  "jq", sc_run_probe },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const struct cg_cli sc_cli = {
	.prog = "csum-guard syncookie",
	.opts = sc_opts,
	.cmds = sc_cmds,
	.common = "Every command also takes --help, --version, --quiet and --wait SECONDS\n"
		  "anywhere on its line (csum-guard --help).\n",
};

void cg_syncookie_usage(FILE *f)
{
	const struct cg_cmd *c;
	const char *const *u;
	const char *nl;

	/* under csum-guard's own usage lines: no "Usage: " of its own */
	for (c = sc_cmds; c->name; c++)
		for (u = c->usage; *u; u++) {
			fprintf(f, "       %s %s", sc_cli.prog, c->name);
			for (nl = *u; nl; ) {
				const char *e = strchr(nl, '\n');

				fprintf(f, " %.*s\n", e ? (int)(e - nl) : (int)strlen(nl), nl);
				nl = e ? e + 1 : NULL;
				if (nl)
					fprintf(f, "%*s", (int)(8 + strlen(sc_cli.prog) + strlen(c->name)), "");
			}
		}
}

int cg_syncookie_help(int argc, char **argv)
{
	const struct cg_cmd *c = NULL;
	int i;

	for (i = 1; i < argc && !c; i++)
		if (argv[i][0] != '-')
			c = cg_cli_find(&sc_cli, argv[i]);
	if (c) {
		cg_cli_help(&sc_cli, c, stdout);
		return 0;
	}
	printf("Usage:\n");
	cg_syncookie_usage(stdout);
	printf("\n%s\n%s", "The second guard: answer SYNs to chosen TCP ports of a device with SYN\n"
	       "cookies. csum-guard syncookie CMD --help says what CMD does and takes.",
	       sc_cli.common);
	return 0;
}

int cg_syncookie(int argc, char **argv)
{
	const struct cg_cmd *c;
	struct sc_args a = {};
	char what[32];
	int ret;

	if (argc < 3)
		return cg_usage_err("syncookie needs a command (attach, detach, status or probe)");
	c = cg_cli_find(&sc_cli, argv[2]);
	if (!c)
		return cg_usage_err("unknown syncookie command '%s'", argv[2]);
	a.cmd = c->name;
	ret = cg_cli_parse(&sc_cli, c, argc, argv, 3, sc_args_set, &a);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "syncookie %s", a.cmd);
	ret = cg_cli_device(argc, argv, what, strcmp(a.cmd, "probe"),
			    strcmp(a.cmd, "probe") && strcmp(a.cmd, "status") && !a.all, &a.dev);
	if (ret)
		return ret;
	return c->run(&a, argc, argv);
}
