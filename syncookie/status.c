// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status.c - csum-guard syncookie status and probe, and the responders'
 * rows in csum-guard status --prometheus: what runs, what it counted, what
 * the kernel offers. They only read.
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
static enum { SC_PROM_OFF, SC_PROM_ANSWERING, SC_PROM_PACKETS, SC_PROM_REPAIRS } sc_prom;
/* cg_syncookie_census(): sc_print counts instead of printing */
static struct cg_sc_census *sc_census;

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
			bool answering, bool old, __u64 repairs)
{
	static const char *const kinds[SC_CNT_MAX] = {
		[SC_CNT_SYNACK] = "synack", [SC_CNT_PASSED] = "passed",
		[SC_CNT_MALFORMED] = "malformed", [SC_CNT_FOREIGN] = "foreign",
		[SC_CNT_ACK] = "ack", [SC_CNT_ACK_REFUSED] = "ack_refused",
	};
	unsigned int k;

	if (sc_prom == SC_PROM_REPAIRS) {
		fputs("csum_guard_syncookie_repairs_total", stdout);
		sc_prom_labels(t, netns);
		printf("} %llu\n", (unsigned long long)repairs);
		return;
	}
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
/* What status says of one responder, read once for text and JSON */
struct sc_view {
	const struct sc_target *t;
	const char *netns;		/* as status names it */
	struct sc_meta m;
	struct sc_counts c;
	struct sc_ports p;
	struct sc_conf conf;
	char opts[160];			/* its options, in words; "" none */
	char why[160];			/* why its mode (sc_mode_why), live */
	enum sc_health h;
	bool live, old;			/* answering; an older csum-guard's */
	bool answers;			/* live, and its connections can complete */
	struct sc_applied applied;	/* apply's mark and repairs, zero: none */
	const char *tables, *cookies;
	int sys;			/* the sysctl its mode needs, as set */
	char prog[BPF_OBJ_NAME_LEN];	/* the program its hook runs, "": none or unknown */
	int rt_nodes;			/* its IPv4 table's nodes in use (bpf modes), 0: unread */
	bool rt_full;			/* some slots send the program to the tries */
};

/*
 * The name of the program t's hook runs, as the kernel has it (its link's
 * program, or the clsact filter's): syncookie_xdp or syncookie_xdp_h, say;
 * "" where there is none (nft mode) or it cannot be read
 */
static void sc_prog_name(const struct sc_target *t, const struct sc_meta *m, char *buf, size_t n)
{
	struct cg_tcx_link_info link;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), id = 0;
	char path[PATH_MAX];
	int fd;

	buf[0] = '\0';
	if (m->mode == SC_CLSACT) {
		id = m->prog_id;
	} else if (m->mode != SC_NFT) {
		sc_pin(path, sizeof(path), t, SC_PIN_LINK);
		if (!cg_pin_link_info(path, &link))
			id = link.prog_id;
	}
	fd = id ? bpf_prog_get_fd_by_id(id) : -1;
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		snprintf(buf, n, "%s", info.name);
	close(fd);
}

/* One responder's line; whether it answers */
static bool sc_print_text(const struct sc_view *v)
{
	const struct sc_target *t = v->t;
	const struct sc_meta m = v->m;
	const struct sc_counts c = v->c;
	const struct sc_ports *p = &v->p;
	const char *netns = v->netns, *opts = v->opts;
	enum sc_health h = v->h;
	bool live = v->live, old = v->old;
	int sys = v->sys;
	char dev[4 * IF_NAMESIZE + 1], nsbuf[4 * PATH_MAX + 1];
	char list[SC_MAX_PORTS * 8];

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
	sc_ports_text(p, list, sizeof(list));
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
		       "attach again makes them");
	else if (m.flags & SC_META_TABLES)
		printf("; ACKs to SYNPROXY %llu%s, in the namespace cookie_valid %llu, "
		       "cookie_invalid %llu", (unsigned long long)c.acks,
		       m.flags & SC_META_HANDOFF6 ? "" : " (IPv4 only)",
		       (unsigned long long)c.valid, (unsigned long long)c.invalid);
	else
		printf("; no conntrack hand-off%s",
		       m.flags & SC_META_NO_HANDOFF ? " (--no-handoff)" : "");
	if (v->rt_full)
		printf("; IPv4 route table full (%d nodes): some sources' routes are looked up "
		       "in the tries instead, more slowly", v->rt_nodes);
	printf("; %s\n", v->why);
	return true;
}

/* One responder's JSON object, after a comma unless it is the first */
static void sc_print_json(const struct sc_view *v, bool *first_row)
{
	const struct sc_target *t = v->t;
	const struct sc_meta m = v->m;
	const struct sc_counts c = v->c;
	const struct sc_ports *p = &v->p;
	const struct sc_conf conf = v->conf;
	const char *netns = v->netns, *opts = v->opts;
	const char *tables = v->tables, *cookies = v->cookies;
	bool live = v->live, old = v->old, first = true;
	int port, sys = v->sys;

	if (first_row && !*first_row)
		putchar(',');
	if (first_row)
		*first_row = false;
	putchar('{');
	cg_json_kv_str(&first, "dev", t->dev);
	cg_json_kv_str(&first, "netns", netns);
	cg_json_kv_u64(&first, "ifindex", t->ifindex);
	cg_json_kv_bool(&first, "attached", live || old);
	/* false where its tables are gone and its cookies' ACKs need them */
	cg_json_kv_bool(&first, "answering", v->answers);
	cg_json_kv_bool(&first, "declared", v->applied.flags & SC_APPLIED);
	cg_json_kv_u64(&first, "repairs", v->applied.repairs);
	/* an older csum-guard's responder: what it counts is its own */
	cg_json_kv_bool(&first, "outdated", old);
	cg_json_kv_str(&first, "mode", live || old ? sc_mode_name(m.mode) : NULL);
	/* why that mode, in words: what attach found, and for native XDP on a veth
	 * whether the peer still runs XDP */
	cg_json_kv_str(&first, "mode_why", live ? v->why : NULL);
	/* the program on the hook, as the kernel names it (_h: the listener
	 * read through bpf_skc_to_tcp_sock, where there is no bpf_rdonly_cast) */
	cg_json_kv_str(&first, "program", live && *v->prog ? v->prog : NULL);
	cg_json_kv_str(&first, "tables", tables);
	cg_json_kv_str(&first, "cookies", cookies);
	/* syncookie_ack hooked beside it */
	cg_json_kv_bool(&first, "ack_program", live && (m.flags & SC_META_ACK));
	fputs(",\"ports\":[", stdout);
	for (port = 1, first = true; port < 65536; port++)
		if (p->bits[port >> 3] & (1 << (port & 7))) {
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
	/* the IPv4 routes' table (bpf modes): full, some routes answer from the tries */
	if (v->rt_nodes)
		printf(",\"route_table\":{\"nodes\":%d,\"max\":%d,\"full\":%s}", v->rt_nodes,
		       1 + SC_RTAB4_HALF, v->rt_full ? "true" : "false");
	putchar('}');
}

static bool sc_print(const struct sc_target *t, bool json, bool *first_row)
{
	struct sc_view v = { .t = t, .h = SC_DEAD };
	char ino[24];

	/* named as csum-guard status names it: an unnamed namespace by inode */
	v.netns = cg_netns_label(t->netns, t->ino, ino, sizeof(ino));
	if (!sc_map_get(t, SC_PIN_META, &v.m, 0)) {
		v.h = sc_health(t, &v.m);
		v.old = v.h == SC_DEAD && sc_outdated(t, &v.m);
	}
	v.live = v.h != SC_DEAD;
	/* its nft tables: whole, gone (flushed), or none made (bpf modes) */
	v.tables = !v.live ? NULL : v.h == SC_TABLES_GONE ? "gone" :
		   v.m.mode == SC_NFT || (v.m.flags & SC_META_TABLES) ? "ok" :
		   v.m.flags & SC_META_NO_HANDOFF ? "off" : "none";
	/* whose cookies: raw ones for SYNPROXY, or the listener's */
	v.cookies = !v.live || v.m.mode == SC_NFT ? NULL : sc_raw(&v.m) ? "raw" : "listener";
	/*
	 * Tables gone: nft mode answers nothing, and raw cookies' ACKs reach
	 * nobody who can check them unless syncookie_ack takes them (6.9+):
	 * SYN-ACKs go out for connections that cannot complete (6.0-6.8).
	 */
	v.answers = v.live && !(v.h == SC_TABLES_GONE &&
				(v.m.mode == SC_NFT || (sc_raw(&v.m) && !(v.m.flags & SC_META_ACK))));
	sc_map_get(t, SC_PIN_APPLY, &v.applied, 0);
	if (sc_census) {
		sc_census->answering += v.answers;
		sc_census->tables_gone += v.live && v.h == SC_TABLES_GONE;
		sc_census->outdated += v.old;
		return v.live || v.old;
	}
	if (sc_prom) {
		/* each pass reads what its metric needs */
		if (v.live && sc_prom == SC_PROM_PACKETS)
			sc_counters(t, &v.m, &v.c);
		if (v.live || v.old)
			sc_prom_row(t, v.netns, &v.m, &v.c, v.tables, v.cookies, v.answers || v.old,
				    v.old, v.applied.repairs);
		return v.live || v.old;
	}
	if (v.live) {
		sc_map_get(t, SC_PIN_PORTS, &v.p, 0);
		sc_counters(t, &v.m, &v.c);
		sc_status_opts(t, &v.m, &v.conf, v.opts, sizeof(v.opts));
		sc_mode_why(t, &v.m, v.why, sizeof(v.why));
		if (v.m.mode != SC_NFT && sc_rtab4_usage(t, &v.rt_nodes, &v.rt_full))
			v.rt_nodes = 0;
		sc_prog_name(t, &v.m, v.prog, sizeof(v.prog));
	}
	v.sys = sc_sysctl_read(v.live ? sc_sysctl_path(v.m.mode) : SC_SYSCTL_COOKIES);
	if (!json)
		return sc_print_text(&v);
	sc_print_json(&v, first_row);
	return v.live || v.old;
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

int sc_status(const struct sc_args *a)
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
			"responder answers SYNs (0: its nft tables flushed where its connections need them: "
			"nft mode, raw cookies without the ACK program); its mode, nft tables "
			"(ok, gone, none, off), cookies (raw, listener) and whether an older csum-guard "
			"attached it.\n# TYPE csum_guard_syncookie_answering gauge\n",
		[SC_PROM_PACKETS] = "# HELP csum_guard_syncookie_packets_total What each SYN responder "
			"counted: synack, passed, malformed, foreign (SYNs to its ports), ack, ack_refused "
			"(its ACK program's); nft mode: synack only.\n"
			"# TYPE csum_guard_syncookie_packets_total counter\n",
		[SC_PROM_REPAIRS] = "# HELP csum_guard_syncookie_repairs_total What `syncookie apply "
			"--follow` put back of each declared SYN responder (tables, hooks, addresses).\n"
			"# TYPE csum_guard_syncookie_repairs_total counter\n",
	};
	bool first = true;
	struct sc_walk w = { .first = &first };
	struct cg_ack ack = {};
	int err = 0;

	for (sc_prom = SC_PROM_ANSWERING; !err && sc_prom <= SC_PROM_REPAIRS; sc_prom++) {
		fputs(help[sc_prom], stdout);
		sc_print_ns(NULL, false, &first);
		err = cg_state_each_netns(SC_PIN_ROOT, sc_print_other, &w, &ack);
	}
	sc_prom = SC_PROM_OFF;
	return err;
}

int sc_probe(const struct sc_args *a)
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

int cg_syncookie_census(struct cg_sc_census *c)
{
	bool first = true;
	struct sc_walk w = { .first = &first };
	struct cg_ack ack = {};
	int err;

	memset(c, 0, sizeof(*c));
	sc_census = c;
	sc_print_ns(NULL, false, &first);
	err = cg_state_each_netns(SC_PIN_ROOT, sc_print_other, &w, &ack);
	sc_census = NULL;
	return err;
}
