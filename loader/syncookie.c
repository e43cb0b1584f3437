// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * syncookie.c - the second guard: answer SYNs to chosen TCP ports of a
 * device with SYN cookies before the stack sees them.
 *
 *	csum-guard syncookie attach DEV --ports P[,P...] [--netns NS]
 *		[--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl]
 *	csum-guard syncookie detach DEV [--netns NS]
 *	csum-guard syncookie status [DEV] [--netns NS] [--json]
 *	csum-guard syncookie probe [--json]
 *
 * Modes: xdp (native), xdp-generic, tc (tcx link on 6.6+, clsact filter
 * otherwise) run bpf/syncookie.bpf.c; nft is the fallback for kernels
 * without bpf_tcp_gen_syncookie: the kernel's SYNPROXY in a table of our
 * own. auto: native XDP where the driver has it (not on veth, see
 * sc_native_ok), else generic XDP, else tc; nft when the program does not
 * load. State lives on bpffs like the checksum guard's, apart from it:
 *
 *	/sys/fs/bpf/csum_guard_syncookie/<netns inode>/<ifindex>/
 *		meta      mode, flags, the sysctl value found (struct sc_meta)
 *		ports     the protected ports, a bitmap (updated in place)
 *		counters  per-CPU synack / passed / malformed (bpf modes)
 *		link      xdp or tcx link        prog   clsact: the program
 *
 * The returning ACK is checked by the kernel's cookie_v4_check /
 * cookie_v6_check, which takes it whenever net.ipv4.tcp_syncookies is not
 * 0 and the listener "overflowed" lately (the helper marks it so). But the
 * helper issues a cookie only when tcp_syncookies is 2 or the listener's
 * SYN queue is full (tcp_get_syncookie_mss): the responder needs 2, in the
 * device's namespace. attach refuses otherwise, or with --set-sysctl sets
 * it, and detach puts back the value it found. SYNPROXY (nft) instead
 * needs net.netfilter.nf_conntrack_tcp_loose=0, the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "compat.h"
#include "json.h"
#include "cli.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "syncookie_abi.h"
#include "syncookie.skel.h"
#include "syncookie.h"

#define SC_TC_HANDLE	0xc6	/* the checksum guard has 0xc5 at priority 1: it runs first */
#define SC_TC_PRIO	2
#define SC_SYSCTL_COOKIES "/proc/sys/net/ipv4/tcp_syncookies"
#define SC_SYSCTL_LOOSE	"/proc/sys/net/netfilter/nf_conntrack_tcp_loose"
#define SC_BPF_LINK_TYPE_XDP 6
#define SC_MAX_PORTS	1024	/* per device: the nft set stays readable */

enum sc_mode {
	SC_AUTO = 0,
	SC_XDP = 1,
	SC_XDP_GENERIC = 2,
	SC_TCX = 3,
	SC_CLSACT = 4,
	SC_NFT = 5,
	SC_TC = 6,		/* request only: tcx or clsact */
};

#define SC_META_CREATED_CLSACT	(1U << 0)
#define SC_META_SET_SYSCTL	(1U << 1)	/* prev_sysctl is what we found */

struct sc_meta {
	CG_META_HEAD;
	__s32 prev_sysctl;	/* the sysctl as attach found it */
};

struct sc_args {
	const char *cmd;
	const char *dev;
	const char *netns;
	struct sc_ports ports;
	int nports;
	enum sc_mode mode;
	bool set_sysctl;
	bool json;
};

struct sc_target {
	const char *dev;
	const char *netns;
	__u64 ino, cookie;
	int ifindex;
	char dir[PATH_MAX];
};

static const char *sc_mode_name(__u32 m)
{
	static const char *const names[] = {
		[SC_AUTO] = "auto", [SC_XDP] = "xdp", [SC_XDP_GENERIC] = "xdp-generic",
		[SC_TCX] = "tc", [SC_CLSACT] = "tc", [SC_NFT] = "nft", [SC_TC] = "tc",
	};

	return m < ARRAY_SIZE(names) ? names[m] : "?";
}

/* The tc request matches either tc mode. */
static bool sc_mode_same(__u32 want, __u32 have)
{
	return want == have || (want == SC_TC && (have == SC_TCX || have == SC_CLSACT));
}

static const char *sc_sysctl_path(__u32 mode)
{
	return mode == SC_NFT ? SC_SYSCTL_LOOSE : SC_SYSCTL_COOKIES;
}

static int sc_sysctl_want(__u32 mode)
{
	return mode == SC_NFT ? 0 : 2;
}

static const char *sc_sysctl_name(__u32 mode)
{
	return mode == SC_NFT ? "net.netfilter.nf_conntrack_tcp_loose" : "net.ipv4.tcp_syncookies";
}

/* A sysctl of the current namespace; -errno if unreadable. */
static int sc_sysctl_read(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoi(buf);
}

static int sc_sysctl_write(const char *path, int val)
{
	char buf[16];
	int fd = open(path, O_WRONLY | O_CLOEXEC), n, err = 0;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", val);
	if (write(fd, buf, n) != n)
		err = -errno;
	close(fd);
	return err;
}

static void sc_pin(char *buf, size_t n, const struct sc_target *t, const char *name)
{
	cg_state_pin(buf, n, t->dir, name);
}

static int sc_map_get(const struct sc_target *t, const char *name, void *val, __u32 key)
{
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, name);
	return cg_pin_array_get(path, key, val);
}

/* Write key 0 of the pinned array map name, creating and pinning it if need be. */
static int sc_map_put(const struct sc_target *t, const char *name, const void *val,
		      __u32 size)
{
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, name);
	return cg_pin_array_put(path, !strcmp(name, SC_PIN_META) ? "sc_meta" : SC_MAP_PORTS,
				val, size);
}

/* bpffs for the pins; one line says why not. */
static int sc_bpffs_ready(void)
{
	int err = cg_bpffs_ready();

	if (err && err != -ENOTSUP)
		cg_err("cannot mount bpffs on /sys/fs/bpf: %s", strerror(-err));
	return err;
}

/* --- nft: SYNPROXY in a table of our own ------------------------------- */

/* Run nft with script on stdin (NULL: args only), quietly; its exit status. */
static int sc_nft(const char *script, const char *args, char *err, size_t err_len)
{
	char cmd[512], tmp[] = "/tmp/csum-guard-nft.XXXXXX";
	FILE *f;
	int st, fd;

	if (err) {
		fd = mkstemp(tmp);
		if (fd < 0)
			return -1;
		close(fd);
	}
	snprintf(cmd, sizeof(cmd), "nft %s 2>%s", args, err ? tmp : "/dev/null");
	f = popen(cmd, script ? "w" : "r");
	if (!f)
		return -1;
	if (script)
		fputs(script, f);
	else
		while (fgetc(f) != EOF)
			;
	st = pclose(f);
	if (err) {
		FILE *e = fopen(tmp, "r");

		err[0] = '\0';
		if (e) {
			if (fgets(err, err_len, e))
				err[strcspn(err, "\n")] = '\0';
			fclose(e);
		}
		unlink(tmp);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool sc_nft_have(void)
{
	return sc_nft(NULL, "--version >/dev/null", NULL, 0) == 0;
}

static void sc_nft_table(char *buf, size_t n, int ifindex)
{
	snprintf(buf, n, SC_NFT_TABLE_FMT, ifindex);
}

static bool sc_nft_exists(int ifindex)
{
	char table[64], args[128];

	sc_nft_table(table, sizeof(table), ifindex);
	snprintf(args, sizeof(args), "list table inet %s >/dev/null", table);
	return sc_nft(NULL, args, NULL, 0) == 0;
}

static void sc_nft_delete(int ifindex)
{
	char table[64], args[128];

	sc_nft_table(table, sizeof(table), ifindex);
	snprintf(args, sizeof(args), "delete table inet %s", table);
	sc_nft(NULL, args, NULL, 0);
}

/* "22, 80" */
static void sc_ports_text(const struct sc_ports *p, char *buf, size_t n)
{
	size_t len = 0;
	int port;

	buf[0] = '\0';
	for (port = 1; port < 65536 && len < n; port++)
		if (p->bits[port >> 3] & (1 << (port & 7)))
			len += snprintf(buf + len, n - len, "%s%d", len ? ", " : "", port);
}

/*
 * The table, made or updated in one nft transaction. IPv4 SYNs to the
 * ports skip conntrack; SYNPROXY answers them and the returning ACK
 * (untracked or invalid), then opens the connection to the listener
 * itself. Its MSS is the device's MTU less the headers; wscale 7 is what
 * the listener uses with Linux's default buffers (SYNPROXY does not
 * rewrite windows). IPv4 only: on 6.18 the IPv6 SYNPROXY dropped the SYN
 * without answering, even in a plain ip6 table, so IPv6 stays the stack's.
 */
static int sc_nft_apply(const struct sc_target *t, const struct sc_ports *p, bool fresh)
{
	char table[64], list[SC_MAX_PORTS * 8], err[256];
	size_t cap = 8192 + sizeof(list) * 4;
	char *s = malloc(cap);
	unsigned int mtu = 1500;
	struct ifreq ifr = {};
	int fd, rc;

	if (!s)
		return -ENOMEM;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->dev);
	if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	sc_nft_table(table, sizeof(table), t->ifindex);
	sc_ports_text(p, list, sizeof(list));
	if (!fresh)
		snprintf(s, cap, "flush set inet %s ports\nadd element inet %s ports { %s }\n",
			 table, table, list);
	else
		snprintf(s, cap,
			 "table inet %1$s {\n"
			 "  counter synack { }\n"
			 "  set ports { type inet_service; elements = { %2$s } }\n"
			 "  chain pre {\n"
			 "    type filter hook prerouting priority raw; policy accept;\n"
			 "    iif \"%3$s\" meta nfproto ipv4 tcp dport @ports tcp flags & (syn | ack) == syn notrack\n"
			 "  }\n"
			 "  chain in {\n"
			 "    type filter hook input priority filter; policy accept;\n"
			 "    iif \"%3$s\" meta nfproto ipv4 tcp dport @ports tcp flags & (syn | ack) == syn ct state untracked counter name synack\n"
			 "    iif \"%3$s\" meta nfproto ipv4 tcp dport @ports ct state invalid,untracked synproxy mss %4$u wscale 7 timestamp sack-perm\n"
			 "    iif \"%3$s\" meta nfproto ipv4 tcp dport @ports ct state invalid drop\n"
			 "  }\n"
			 "}\n", table, list, t->dev, mtu - 40);
	rc = sc_nft(s, "-f -", err, sizeof(err));
	free(s);
	if (rc) {
		cg_err("cannot attach to %s: nft: %s", t->dev, *err ? err : "failed");
		return -EIO;
	}
	return 0;
}

static __u64 sc_nft_synack(int ifindex)
{
	char table[64], cmd[160], line[256];
	unsigned long long n = 0;
	const char *p;
	FILE *f;

	sc_nft_table(table, sizeof(table), ifindex);
	snprintf(cmd, sizeof(cmd), "nft list counter inet %s synack 2>/dev/null", table);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "packets ")))
			n = strtoull(p + 8, NULL, 10);
	pclose(f);
	return n;
}

/* --- the program ------------------------------------------------------ */

struct sc_obj {
	struct bpf_object *obj;
	struct bpf_program *xdp, *tc;
	struct bpf_map *ports, *counters;
};

/*
 * Load the XDP program (xdp) or the tc one: one at a time, since a 6.1
 * verifier takes a while over each (about 20 s under QEMU's TCG). The XDP
 * one is the probe's question: does the helper work here? With reuse, the
 * maps already pinned for that target serve the new program.
 */
static int sc_load(struct sc_obj *o, bool xdp, bool tcx, const struct sc_target *reuse,
		   char *why, size_t why_len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "syncookie");
	char path[PATH_MAX];
	const void *data;
	size_t size;
	int err = 0;

	memset(o, 0, sizeof(*o));
	data = syncookie_bpf__elf_bytes(&size);
	o->obj = bpf_object__open_mem(data, size, &opts);
	if (!o->obj) {
		snprintf(why, why_len, "cannot open the built-in object");
		return -ENOEXEC;
	}
	o->xdp = bpf_object__find_program_by_name(o->obj, SC_PROG_XDP);
	o->tc = bpf_object__find_program_by_name(o->obj, SC_PROG_TC);
	o->ports = bpf_object__find_map_by_name(o->obj, SC_MAP_PORTS);
	o->counters = bpf_object__find_map_by_name(o->obj, SC_MAP_COUNTERS);
	if (!o->xdp || !o->tc || !o->ports || !o->counters) {
		snprintf(why, why_len, "the built-in object lacks a program or map");
		err = -ENOEXEC;
		goto fail;
	}
	if (tcx)
		bpf_program__set_expected_attach_type(o->tc, CG_BPF_TCX_INGRESS);
	bpf_program__set_autoload(xdp ? o->tc : o->xdp, false);
	if (reuse) {
		sc_pin(path, sizeof(path), reuse, SC_PIN_PORTS);
		err = bpf_map__set_pin_path(o->ports, path);
		sc_pin(path, sizeof(path), reuse, SC_PIN_COUNTERS);
		if (!err)
			err = bpf_map__set_pin_path(o->counters, path);
	}
	if (!err)
		err = bpf_object__load(o->obj);
	if (err) {
		/* EINVAL from the verifier: most likely "unknown func" */
		snprintf(why, why_len, "the kernel refuses the program (%s)%s", strerror(-err),
			 reuse ? "" : ": no bpf_tcp_gen_syncookie (kernel older than 5.3 or "
				      "without CONFIG_SYN_COOKIES)?");
		goto fail;
	}
	return 0;
fail:
	bpf_object__close(o->obj);
	memset(o, 0, sizeof(*o));
	return err;
}

static __u32 sc_prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* The device of the link pinned in t's dir if it is of type, else -1. */
static int sc_link_ifindex(const struct sc_target *t, __u32 type)
{
	struct cg_tcx_link_info info = {};	/* xdp's ifindex sits where tcx's does */
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd, ret;

	sc_pin(path, sizeof(path), t, SC_PIN_LINK);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (ret || info.type != type)
		return -1;
	return info.ifindex;
}

static void sc_tc_hook(struct bpf_tc_hook *h, int ifindex)
{
	memset(h, 0, sizeof(*h));
	h->sz = sizeof(*h);
	h->ifindex = ifindex;
	h->attach_point = BPF_TC_INGRESS;
}

static __u32 sc_clsact_prog_id(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = SC_TC_HANDLE, .priority = SC_TC_PRIO);
	struct bpf_tc_hook h;

	sc_tc_hook(&h, ifindex);
	return bpf_tc_query(&h, &o) ? 0 : o.prog_id;
}

/* --- state ------------------------------------------------------------ */

/* Does t's state describe a responder that runs right now? */
static bool sc_live(const struct sc_target *t, const struct sc_meta *m)
{
	if (m->abi != SC_ABI_VERSION || m->netns_cookie != t->cookie ||
	    m->ifindex != (__u32)t->ifindex)
		return false;
	switch (m->mode) {
	case SC_XDP:
	case SC_XDP_GENERIC:
		return sc_link_ifindex(t, SC_BPF_LINK_TYPE_XDP) == t->ifindex;
	case SC_TCX:
		return sc_link_ifindex(t, CG_BPF_LINK_TYPE_TCX) == t->ifindex;
	case SC_CLSACT:
		return m->prog_id && sc_clsact_prog_id(t->ifindex) == m->prog_id;
	case SC_NFT:
		return sc_nft_exists(t->ifindex);
	}
	return false;
}

/*
 * Another responder of this namespace that needs the same sysctl takes
 * over the duty to put it back: the last detach restores it, not the first
 * (which would leave the others with a sysctl their helper refuses under).
 */
static bool sc_sysctl_hand_over(const struct sc_target *t, const struct sc_meta *m)
{
	char parent[PATH_MAX], path[PATH_MAX + 300];
	struct sc_meta o;
	struct dirent *d;
	bool done = false;
	DIR *dir;

	snprintf(parent, sizeof(parent), "%s", t->dir);
	*strrchr(parent, '/') = '\0';
	dir = opendir(parent);
	if (!dir)
		return false;
	while (!done && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || (__u32)atoi(d->d_name) == (__u32)t->ifindex)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", parent, d->d_name, SC_PIN_META);
		if (cg_pin_array_get(path, 0, &o) || o.netns_cookie != m->netns_cookie ||
		    strcmp(sc_sysctl_path(o.mode), sc_sysctl_path(m->mode)))
			continue;
		if (!(o.flags & SC_META_SET_SYSCTL)) {
			o.flags |= SC_META_SET_SYSCTL;
			o.prev_sysctl = m->prev_sysctl;
			if (cg_pin_array_put(path, "sc_meta", &o, sizeof(o)))
				continue;
		}
		done = true;
	}
	closedir(dir);
	return done;
}

/*
 * Undo what attach did, as far as it got. ours: the state is of this very
 * namespace (not a stale one whose inode came back), so hooks, table and
 * sysctl are ours to undo here.
 */
static void sc_remove(const struct sc_target *t, const struct sc_meta *m, bool ours)
{
	static const char *const pins[] = {
		SC_PIN_LINK, SC_PIN_PROG, SC_PIN_PORTS, SC_PIN_COUNTERS, SC_PIN_META,
	};
	char path[PATH_MAX];
	int fd;

	if (m && ours) {
		if (m->mode == SC_XDP || m->mode == SC_XDP_GENERIC || m->mode == SC_TCX) {
			sc_pin(path, sizeof(path), t, SC_PIN_LINK);
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				bpf_link_detach(fd);
				close(fd);
			}
		} else if (m->mode == SC_CLSACT && m->prog_id &&
			   sc_clsact_prog_id(t->ifindex) == m->prog_id) {
			LIBBPF_OPTS(bpf_tc_opts, o, .handle = SC_TC_HANDLE, .priority = SC_TC_PRIO);
			struct bpf_tc_hook h;

			sc_tc_hook(&h, t->ifindex);
			bpf_tc_detach(&h, &o);
		} else if (m->mode == SC_NFT) {
			sc_nft_delete(t->ifindex);
		}
		if (m->mode == SC_CLSACT && (m->flags & SC_META_CREATED_CLSACT) &&
		    !cg_clsact_has_filters(t->ifindex)) {
			struct bpf_tc_hook h;

			sc_tc_hook(&h, t->ifindex);
			h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&h);
		}
		/* put back what attach found, unless someone changed it since,
		 * or another responder here still needs it */
		if ((m->flags & SC_META_SET_SYSCTL) &&
		    sc_sysctl_read(sc_sysctl_path(m->mode)) == sc_sysctl_want(m->mode) &&
		    !sc_sysctl_hand_over(t, m))
			sc_sysctl_write(sc_sysctl_path(m->mode), m->prev_sysctl);
	}
	cg_state_unpin(SC_PIN_ROOT, t->dir, pins, ARRAY_SIZE(pins));
}


/*
 * Native XDP's XDP_TX on a veth reaches the peer only while the peer runs
 * NAPI (on 6.18 measured: with an XDP program of its own; GRO alone was
 * not enough), which this side cannot see:
 * a responder whose answers vanish would be worse than none. auto takes
 * generic XDP there; --mode xdp still forces native.
 */
static bool sc_native_ok(const char *dev)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = {};
	bool veth = false;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&di;
	if (!ioctl(fd, SIOCETHTOOL, &ifr))
		veth = !strcmp(di.driver, "veth");
	close(fd);
	return !veth;
}

static int sc_pin_link(const struct sc_target *t, int link_fd)
{
	char path[PATH_MAX];
	int err;

	sc_pin(path, sizeof(path), t, SC_PIN_LINK);
	err = bpf_obj_pin(link_fd, path) ? -errno : 0;
	close(link_fd);	/* on error the link goes with the fd */
	return err;
}

/*
 * Load and hook the program for mode req (auto: the first mode that
 * works), filling m->mode and m->prog_id; ports and counters are pinned
 * from the first object loaded and reused by a later one.
 */
static int sc_hook(const struct sc_target *t, const struct sc_ports *ports, struct sc_meta *m,
		   enum sc_mode req, struct sc_obj *op, char *why, size_t why_len)
{
	static const enum sc_mode order[] = { SC_XDP, SC_XDP_GENERIC, SC_TC };
	struct sc_obj o = *op;	/* loaded already, or not; ours to close */
	bool pinned = false;
	char path[PATH_MAX];
	unsigned int i;
	__u32 key = 0;
	int fd, err = -EINVAL;

	why[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		enum sc_mode try = order[i];
		bool xdp = try != SC_TC;

		if (req != SC_AUTO && req != try)
			continue;
		if (req == SC_AUTO && try == SC_XDP && !sc_native_ok(t->dev))
			continue;
		if (!o.obj || xdp != !!bpf_program__autoload(o.xdp)) {
			bpf_object__close(o.obj);
			o.obj = NULL;
			err = sc_load(&o, xdp, cg_have_tcx(), pinned ? t : NULL, why, why_len);
			if (err)
				return err;
		}
		if (!pinned) {
			err = bpf_map_update_elem(bpf_map__fd(o.ports), &key, ports, BPF_ANY) ? -errno : 0;
			sc_pin(path, sizeof(path), t, SC_PIN_PORTS);
			if (!err)
				err = bpf_map__pin(o.ports, path);
			sc_pin(path, sizeof(path), t, SC_PIN_COUNTERS);
			if (!err)
				err = bpf_map__pin(o.counters, path);
			if (err) {
				snprintf(why, why_len, "cannot pin the maps: %s", strerror(-err));
				goto out;
			}
			pinned = true;
		}
		if (xdp) {
			LIBBPF_OPTS(bpf_link_create_opts, lo,
				    .flags = try == SC_XDP ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE);

			fd = bpf_link_create(bpf_program__fd(o.xdp), t->ifindex, BPF_XDP, &lo);
			if (fd >= 0) {
				m->mode = try;
				m->prog_id = sc_prog_id(bpf_program__fd(o.xdp));
				err = sc_pin_link(t, fd);
				goto out;
			}
			err = -errno;
		} else if (cg_have_tcx()) {
			fd = bpf_link_create(bpf_program__fd(o.tc), t->ifindex, CG_BPF_TCX_INGRESS, NULL);
			if (fd >= 0) {
				m->mode = SC_TCX;
				m->prog_id = sc_prog_id(bpf_program__fd(o.tc));
				err = sc_pin_link(t, fd);
				goto out;
			}
			err = -errno;
		} else {
			LIBBPF_OPTS(bpf_tc_opts, to, .handle = SC_TC_HANDLE, .priority = SC_TC_PRIO,
				    .flags = BPF_TC_F_REPLACE, .prog_fd = bpf_program__fd(o.tc));
			struct bpf_tc_hook h;

			m->mode = SC_CLSACT;
			m->prog_id = sc_prog_id(to.prog_fd);
			sc_tc_hook(&h, t->ifindex);
			err = bpf_tc_hook_create(&h);
			if (!err) {
				m->flags |= SC_META_CREATED_CLSACT;
				err = sc_map_put(t, SC_PIN_META, m, sizeof(*m));
			} else if (err == -EEXIST) {
				err = 0;
			}
			if (!err)
				err = bpf_tc_attach(&h, &to);
			if (!err) {
				sc_pin(path, sizeof(path), t, SC_PIN_PROG);
				err = bpf_obj_pin(to.prog_fd, path) ? -errno : 0;
				goto out;
			}
		}
		if (!why[0])
			snprintf(why, why_len, "%s: %s", sc_mode_name(try), strerror(-err));
	}
out:
	bpf_object__close(o.obj);
	return err;
}

static int sc_attach_fresh(const struct sc_target *t, const struct sc_args *a)
{
	struct sc_meta m = {
		.abi = SC_ABI_VERSION, .ifindex = t->ifindex, .netns_cookie = t->cookie,
		.mode = a->mode, .prev_sysctl = -1,
	};
	char why[256] = "";
	struct sc_obj o = {};
	int err, cur;

	if (a->mode != SC_NFT) {
		/* the program the mode starts with; in auto, whether the helper works */
		err = sc_load(&o, a->mode != SC_TC, cg_have_tcx(), NULL, why, sizeof(why));
		if (err && a->mode == SC_AUTO && sc_nft_have()) {
			cg_info("%s: using the kernel's SYNPROXY through nftables", why);
			m.mode = SC_NFT;
		} else if (err) {
			cg_err("cannot attach to %s: %s%s", t->dev, why,
			       a->mode == SC_AUTO ? "; and no nft for the fallback" : "");
			return err;
		}
	} else if (!sc_nft_have()) {
		cg_err("cannot attach to %s: mode nft needs the nft command", t->dev);
		return -ENOENT;
	}
	/* the sysctl before anything is made (nft's appears with conntrack) */
	cur = sc_sysctl_read(sc_sysctl_path(m.mode));
	if (cur != sc_sysctl_want(m.mode) && !a->set_sysctl && (m.mode != SC_NFT || cur >= 0)) {
		cg_err("cannot attach to %s: %s is %d in its namespace; the %s needs %d "
		       "(set it, or pass --set-sysctl)", t->dev, sc_sysctl_name(m.mode), cur,
		       m.mode == SC_NFT ? "SYNPROXY" : "responder", sc_sysctl_want(m.mode));
		err = -EINVAL;
		goto out;
	}
	err = cg_state_mkdirs(SC_PIN_ROOT, t->dir);
	if (err)
		goto out;
	/* meta first: a run killed past here is undone by the next */
	err = sc_map_put(t, SC_PIN_META, &m, sizeof(m));
	if (err)
		goto undo;
	if (m.mode == SC_NFT) {
		err = sc_map_put(t, SC_PIN_PORTS, &a->ports, sizeof(a->ports));
		if (!err)
			err = sc_nft_apply(t, &a->ports, true);
		if (err)
			goto undo;
		cur = sc_sysctl_read(SC_SYSCTL_LOOSE);
		if (cur != 0 && !a->set_sysctl) {
			cg_err("cannot attach to %s: %s is %d in its namespace; SYNPROXY needs 0 "
			       "(set it, or pass --set-sysctl)", t->dev, sc_sysctl_name(SC_NFT), cur);
			err = -EINVAL;
			goto undo;
		}
	} else {
		err = sc_hook(t, &a->ports, &m, a->mode, &o, why, sizeof(why));
		o.obj = NULL;	/* sc_hook closed it */
		if (err) {
			cg_err("cannot attach to %s: %s", t->dev, why);
			goto undo;
		}
	}
	if (cur != sc_sysctl_want(m.mode)) {
		err = sc_sysctl_write(sc_sysctl_path(m.mode), sc_sysctl_want(m.mode));
		if (err) {
			cg_err("cannot attach to %s: cannot set %s: %s", t->dev,
			       sc_sysctl_name(m.mode), strerror(-err));
			goto undo;
		}
		m.flags |= SC_META_SET_SYSCTL;
		m.prev_sysctl = cur;
	}
	err = sc_map_put(t, SC_PIN_META, &m, sizeof(m));
	if (!err)
		goto out;
undo:
	sc_remove(t, &m, true);
out:
	bpf_object__close(o.obj);
	return err;
}

/* --- commands --------------------------------------------------------- */




/* Enter the namespace, find the device (if any). */
static int sc_resolve(const struct sc_args *a, struct sc_target *t, const char *verb)
{
	struct cg_target ct;
	int err;

	memset(t, 0, sizeof(*t));
	err = cg_target_resolve(&ct, a->dev, a->netns, verb);
	if (err)
		return err;
	t->dev = ct.dev;
	t->netns = ct.netns;
	t->ino = ct.netns_ino;
	t->cookie = ct.netns_cookie;
	t->ifindex = ct.ifindex;
	if (t->ifindex)
		cg_state_dir(t->dir, sizeof(t->dir), SC_PIN_ROOT, t->ino, t->ifindex);
	return 0;
}

static int sc_attach(const struct sc_args *a)
{
	struct sc_target t;
	struct sc_ports cur;
	struct sc_meta m;
	char list[64];
	int err;

	if (cg_cli_need_root("attach"))
		return 1;
	if (cg_lock_host() || sc_resolve(a, &t, "attach to") || sc_bpffs_ready())
		return 1;
	err = sc_map_get(&t, SC_PIN_META, &m, 0);
	if (!err && sc_live(&t, &m)) {
		if (a->mode != SC_AUTO && !sc_mode_same(a->mode, m.mode)) {
			cg_err("cannot attach to %s: already answering through %s; detach it first "
			       "to change the mode", t.dev, sc_mode_name(m.mode));
			return 1;
		}
		if (!sc_map_get(&t, SC_PIN_PORTS, &cur, 0) && !memcmp(&cur, &a->ports, sizeof(cur))) {
			cg_info("already answering SYNs on %s (%s)", t.dev, sc_mode_name(m.mode));
			return 0;
		}
		/* other ports: in place, counters kept */
		if (m.mode == SC_NFT && sc_nft_apply(&t, &a->ports, false))
			return 1;
		err = sc_map_put(&t, SC_PIN_PORTS, &a->ports, sizeof(a->ports));
		if (err) {
			cg_err("cannot update the ports of %s: %s", t.dev, strerror(-err));
			return 1;
		}
		sc_ports_text(&a->ports, list, sizeof(list));
		cg_info("updated the ports of %s (%s): %s", t.dev, sc_mode_name(m.mode), list);
		return 0;
	}
	/* stale (device or namespace reused) or half-made: start over */
	sc_remove(&t, err ? NULL : &m, !err && m.netns_cookie == t.cookie);
	if (sc_attach_fresh(&t, a))
		return 1;
	if (sc_map_get(&t, SC_PIN_META, &m, 0) || !sc_live(&t, &m)) {
		cg_err("cannot attach to %s: not answering after attach", t.dev);
		return 1;
	}
	sc_ports_text(&a->ports, list, sizeof(list));
	cg_info("answering SYNs on %s (%s), ports %s", t.dev, sc_mode_name(m.mode), list);
	return 0;
}

static int sc_detach(const struct sc_args *a)
{
	struct sc_target t;
	struct sc_meta m;
	bool live;

	if (cg_cli_need_root("detach"))
		return 1;
	if (cg_lock_host() || sc_resolve(a, &t, "detach from"))
		return 1;
	if (sc_map_get(&t, SC_PIN_META, &m, 0)) {
		cg_info("%s is not answering SYNs", t.dev);
		return 0;
	}
	live = sc_live(&t, &m);
	sc_remove(&t, &m, m.netns_cookie == t.cookie);
	cg_info(live ? "detached the SYN responder from %s" : "%s is not answering SYNs", t.dev);
	return 0;
}

struct sc_counts {
	__u64 v[SC_CNT_MAX];
};

static void sc_counters(const struct sc_target *t, const struct sc_meta *m, struct sc_counts *c)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	__u64 *vals;
	__u32 key;

	memset(c, 0, sizeof(*c));
	if (m->mode == SC_NFT) {
		c->v[SC_CNT_SYNACK] = sc_nft_synack(t->ifindex);
		return;
	}
	vals = ncpu > 0 ? calloc(ncpu, sizeof(*vals)) : NULL;
	for (key = 0; vals && key < SC_CNT_MAX; key++)
		if (!sc_map_get(t, SC_PIN_COUNTERS, vals, key))
			for (i = 0; i < ncpu; i++)
				c->v[key] += vals[i];
	free(vals);
}

/* One device; returns whether it is answering. */
static bool sc_print(const struct sc_target *t, bool json, bool *first_row)
{
	struct sc_counts c = {};
	struct sc_ports p = {};
	struct sc_meta m;
	char list[SC_MAX_PORTS * 8];
	bool live, first = true;
	int port, sys;

	live = !sc_map_get(t, SC_PIN_META, &m, 0) && sc_live(t, &m);
	if (live) {
		sc_map_get(t, SC_PIN_PORTS, &p, 0);
		sc_counters(t, &m, &c);
	}
	sys = sc_sysctl_read(live ? sc_sysctl_path(m.mode) : SC_SYSCTL_COOKIES);
	if (!json) {
		printf("%s%s%s: ", t->dev, t->netns ? " netns " : "", t->netns ?: "");
		if (!live) {
			printf("not answering SYNs\n");
			return false;
		}
		sc_ports_text(&p, list, sizeof(list));
		printf("answering SYNs (%s), ports %s, synack %llu, passed %llu, malformed %llu, "
		       "%s %d\n", sc_mode_name(m.mode), list,
		       (unsigned long long)c.v[SC_CNT_SYNACK], (unsigned long long)c.v[SC_CNT_PASSED],
		       (unsigned long long)c.v[SC_CNT_MALFORMED], sc_sysctl_name(m.mode), sys);
		return true;
	}
	if (first_row && !*first_row)
		putchar(',');
	if (first_row)
		*first_row = false;
	putchar('{');
	cg_json_kv_str(&first, "dev", t->dev);
	cg_json_kv_str(&first, "netns", t->netns);
	cg_json_kv_u64(&first, "ifindex", t->ifindex);
	cg_json_kv_bool(&first, "attached", live);
	cg_json_kv_str(&first, "mode", live ? sc_mode_name(m.mode) : NULL);
	fputs(",\"ports\":[", stdout);
	for (port = 1, first = true; port < 65536; port++)
		if (p.bits[port >> 3] & (1 << (port & 7))) {
			printf("%s%d", first ? "" : ",", port);
			first = false;
		}
	printf("],\"counters\":{\"synack\":%llu,\"passed\":%llu,\"malformed\":%llu}",
	       (unsigned long long)c.v[SC_CNT_SYNACK], (unsigned long long)c.v[SC_CNT_PASSED],
	       (unsigned long long)c.v[SC_CNT_MALFORMED]);
	if (sys >= 0)
		printf(",\"%s\":%d", live && m.mode == SC_NFT ? "nf_conntrack_tcp_loose" :
		       "tcp_syncookies", sys);
	putchar('}');
	return live;
}

/* Every answering device of the current namespace. */
static int sc_print_ns(const char *netns, bool json, bool *first_row)
{
	char nsdir[PATH_MAX];
	struct sc_target t = { .netns = netns };
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (cg_netns_ino(&t.ino) || cg_netns_cookie(&t.cookie))
		return 0;
	snprintf(nsdir, sizeof(nsdir), "%s/%llu", SC_PIN_ROOT, (unsigned long long)t.ino);
	d = opendir(nsdir);
	while (d && (de = readdir(d))) {
		char name[IF_NAMESIZE];
		struct sc_meta m;

		if (de->d_name[0] == '.')
			continue;
		t.ifindex = atoi(de->d_name);
		cg_state_dir(t.dir, sizeof(t.dir), SC_PIN_ROOT, t.ino, t.ifindex);
		if (sc_map_get(&t, SC_PIN_META, &m, 0) || !sc_live(&t, &m) ||
		    !if_indextoname(t.ifindex, name))
			continue;
		t.dev = name;
		n += sc_print(&t, json, first_row);
	}
	if (d)
		closedir(d);
	return n;
}

/* cg_state_each_netns(): the devices of each other namespace with state */
struct sc_walk {
	bool json, *first;
	int n;
};

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
	if (cg_lock_host() || sc_resolve(a, &t, "read status of"))
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

		if (cg_state_each_netns(SC_PIN_ROOT, sc_print_other, &w))
			return 1;
		n += w.n;
	}
	if (a->json)
		puts("]");
	else if (!n)
		printf("no device answering SYNs%s%s\n", a->netns ? " in netns " : "", a->netns ?: "");
	return 0;
}

static int sc_probe(const struct sc_args *a)
{
	char why[256] = "";
	bool loads = false, nft = sc_nft_have(), tcx = false, first = true;
	struct sc_obj o;
	const char *mode;

	if (geteuid()) {
		snprintf(why, sizeof(why), "not root: cannot load the program");
	} else {
		tcx = cg_have_tcx();
		loads = !sc_load(&o, true, false, NULL, why, sizeof(why));
		if (loads)
			bpf_object__close(o.obj);
	}
	mode = loads ? "xdp" : nft && !geteuid() ? "nft" : NULL;
	if (loads)
		snprintf(why, sizeof(why), "bpf_tcp_gen_syncookie is usable: XDP (native, or generic "
			 "where the driver has none or on veth), else tc");
	else if (nft)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; the fallback is SYNPROXY through nftables");
	if (!a->json) {
		printf("helper: %s\ntcx: %s\nnft: %s\nmode: %s\nreason: %s\n", loads ? "yes" : "no",
		       tcx ? "yes" : "no", nft ? "yes" : "no", mode ?: "none", why);
		return !mode;
	}
	putchar('{');
	cg_json_kv_bool(&first, "helper", loads);
	cg_json_kv_bool(&first, "tcx", tcx);
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

int cg_syncookie(int argc, char **argv)
{
	static const struct option opts[] = {
		CG_OPT_NETNS,
		{ "ports", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "set-sysctl", no_argument, NULL, 's' },
		CG_OPT_JSON,
		CG_OPT_QUIET,
		CG_OPT_END,
	};
	static const char *const modes[] = { "auto", "xdp", "xdp-generic", "tc", "nft" };
	static const enum sc_mode mode_val[] = { SC_AUTO, SC_XDP, SC_XDP_GENERIC, SC_TC, SC_NFT };
	struct sc_args a = {};
	bool attach, with_dev, have_ports = false;
	unsigned int i;
	char what[32];
	int c, ret;

	if (argc < 3)
		return cg_usage_err("syncookie needs a command (attach, detach, status or probe)");
	a.cmd = argv[2];
	attach = !strcmp(a.cmd, "attach");
	with_dev = attach || !strcmp(a.cmd, "detach") || !strcmp(a.cmd, "status");
	if (!with_dev && strcmp(a.cmd, "probe"))
		return cg_usage_err("unknown syncookie command '%s'", a.cmd);
	opterr = 0;
	optind = 3;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!with_dev)
				return cg_usage_err("syncookie %s takes no --netns", a.cmd);
			if (!*optarg)
				return cg_usage_err("--netns needs a name or a path");
			a.netns = optarg;
			break;
		case 'p':
			if (!attach)
				return cg_usage_err("--ports goes with syncookie attach");
			if (sc_parse_ports(optarg, &a))
				return cg_usage_err("--ports needs 1 to %d ports 1-65535, comma-separated, "
						    "not '%s'", SC_MAX_PORTS, optarg);
			have_ports = true;
			break;
		case 'm':
			if (!attach)
				return cg_usage_err("--mode goes with syncookie attach");
			for (i = 0; i < ARRAY_SIZE(modes) && strcmp(optarg, modes[i]); i++)
				;
			if (i == ARRAY_SIZE(modes))
				return cg_usage_err("unknown mode '%s' (auto, xdp, xdp-generic, tc or nft)",
						    optarg);
			a.mode = mode_val[i];
			break;
		case 's':
			if (!attach)
				return cg_usage_err("--set-sysctl goes with syncookie attach");
			a.set_sysctl = true;
			break;
		case 'j':
			if (strcmp(a.cmd, "status") && strcmp(a.cmd, "probe"))
				return cg_usage_err("--json goes with syncookie status and probe");
			a.json = true;
			break;
		case 'q':
			cg_quiet = true;
			break;
		default:
			return cg_cli_bad_option(c, argv);
		}
	}
	snprintf(what, sizeof(what), "syncookie %s", a.cmd);
	ret = cg_cli_device(argc, argv, what, with_dev, with_dev && strcmp(a.cmd, "status"), &a.dev);
	if (ret)
		return ret;
	if (attach && !have_ports)
		return cg_usage_err("syncookie attach needs --ports");

	if (attach)
		return sc_attach(&a);
	if (!strcmp(a.cmd, "detach"))
		return sc_detach(&a);
	if (!strcmp(a.cmd, "status"))
		return sc_status(&a);
	return sc_probe(&a);
}
