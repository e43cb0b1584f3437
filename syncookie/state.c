// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * state.c - the responder's state on bpffs (see sc.h): its modes and
 * sysctls, the pinned meta, ports and counters of each device, whether a
 * responder is live, and its removal.
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

const char *sc_mode_name(__u32 m)
{
	static const char *const names[] = {
		[SC_AUTO] = "auto", [SC_XDP] = "xdp", [SC_XDP_GENERIC] = "xdp-generic",
		[SC_TCX] = "tc", [SC_CLSACT] = "tc", [SC_NFT] = "nft", [SC_TC] = "tc",
	};

	return m < ARRAY_SIZE(names) ? names[m] : "?";
}

/* The tc request matches either tc mode. */
bool sc_mode_same(__u32 want, __u32 have)
{
	return want == have || (want == SC_TC && (have == SC_TCX || have == SC_CLSACT));
}

const char *sc_sysctl_path(__u32 mode)
{
	return mode == SC_NFT ? SC_SYSCTL_LOOSE : SC_SYSCTL_COOKIES;
}

int sc_sysctl_want(__u32 mode)
{
	return mode == SC_NFT ? 0 : 2;
}

const char *sc_sysctl_name(__u32 mode)
{
	return mode == SC_NFT ? "net.netfilter.nf_conntrack_tcp_loose" : "net.ipv4.tcp_syncookies";
}

/* A sysctl of the current namespace; -errno if unreadable. */
int sc_sysctl_read(const char *path)
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

int sc_sysctl_write(const char *path, int val)
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

void sc_pin(char *buf, size_t n, const struct sc_target *t, const char *name)
{
	cg_state_pin(buf, n, t->dir, name);
}

int sc_map_get(const struct sc_target *t, const char *name, void *val, __u32 key)
{
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, name);
	return cg_pin_array_get(path, key, val);
}

/* Write key 0 of the pinned array map name, creating and pinning it if need be. */
int sc_map_put(const struct sc_target *t, const char *name, const void *val,
	       __u32 size)
{
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, name);
	return cg_pin_array_put(path, !strcmp(name, SC_PIN_META) ? "sc_meta" :
				!strcmp(name, SC_PIN_CONF) ? SC_MAP_CONF : SC_MAP_PORTS,
				val, size);
}

/* The device of the link pinned as name in t's dir if it is of type, else -1. */
static int sc_link_ifindex(const struct sc_target *t, const char *name, __u32 type)
{
	struct cg_tcx_link_info info;	/* xdp's ifindex sits where tcx's does */
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, name);
	if (cg_pin_link_info(path, &info) || info.type != type)
		return -1;
	return info.ifindex;
}

void sc_tc_hook(struct bpf_tc_hook *h, int ifindex)
{
	memset(h, 0, sizeof(*h));
	h->sz = sizeof(*h);
	h->ifindex = ifindex;
	h->attach_point = BPF_TC_INGRESS;
}

/* Are the nft tables m says attach made all there? */
static bool sc_tables_ok(const struct sc_target *t, const struct sc_meta *m)
{
	return (!(m->flags & SC_META_HANDOFF || m->mode == SC_NFT) ||
		sc_nft_exists(t->ifindex, "inet")) &&
	       (!(m->flags & SC_META_HANDOFF6) || sc_nft_exists(t->ifindex, "ip6"));
}

/*
 * What of the responder t's state describes runs right now: nothing (its
 * state is stale or half-made, or its program is unhooked), its hook but
 * not (all) its nft tables (someone flushed the ruleset: the SYNs are
 * still answered in the bpf modes, but no ACK reaches SYNPROXY; nft mode
 * answers nothing), or all of it.
 */
enum sc_health sc_health(const struct sc_target *t, const struct sc_meta *m)
{
	bool hooked = false;

	if (m->abi != SC_ABI_VERSION || m->netns_cookie != t->cookie ||
	    m->ifindex != (__u32)t->ifindex)
		return SC_DEAD;
	switch (m->mode) {
	case SC_XDP:
	case SC_XDP_GENERIC:
		hooked = sc_link_ifindex(t, SC_PIN_LINK, SC_BPF_LINK_TYPE_XDP) == t->ifindex;
		break;
	case SC_TCX:
		hooked = sc_link_ifindex(t, SC_PIN_LINK, CG_BPF_LINK_TYPE_TCX) == t->ifindex;
		break;
	case SC_CLSACT:
		hooked = m->prog_id && m->prog_id ==
			 cg_clsact_prog_id(t->ifindex, BPF_TC_INGRESS, SC_TC_HANDLE, SC_TC_PRIO);
		break;
	case SC_NFT:
		/* its tables are its hook (below) */
		hooked = true;
		break;
	}
	/* SYN-ACKs whose timestamps only syncookie_ack reads need it */
	if (!hooked || ((m->flags & SC_META_ACK) &&
			sc_link_ifindex(t, SC_PIN_ACK, CG_BPF_LINK_TYPE_TCX) != t->ifindex))
		return SC_DEAD;
	return sc_tables_ok(t, m) ? SC_OK : SC_TABLES_GONE;
}

/*
 * Is t's state a running responder of another csum-guard's SC_ABI_VERSION
 * (the package upgraded under it)? Its program answers as that version's
 * did until attach starts it over with this one's.
 */
bool sc_outdated(const struct sc_target *t, const struct sc_meta *m)
{
	struct sc_meta as_ours = *m;

	if (m->abi == SC_ABI_VERSION)
		return false;
	as_ours.abi = SC_ABI_VERSION;
	return sc_health(t, &as_ours) != SC_DEAD;
}

/* Does t's state describe a responder that runs right now (if maybe without its tables)? */
bool sc_live(const struct sc_target *t, const struct sc_meta *m)
{
	return sc_health(t, m) != SC_DEAD;
}

struct sc_hand_over {
	const struct sc_target *t;
	const struct sc_meta *m;
};

static int sc_hand_over_one(const char *dir, __u64 ino, int ifindex, void *arg)
{
	const struct sc_hand_over *h = arg;
	char path[PATH_MAX + 16];
	struct sc_meta o;

	if (ifindex == h->t->ifindex)
		return 0;
	cg_state_pin(path, sizeof(path), dir, SC_PIN_META);
	/* (one of raw cookies needs no sysctl) */
	if (cg_pin_array_get(path, 0, &o) || o.netns_cookie != h->m->netns_cookie ||
	    strcmp(sc_sysctl_path(o.mode), sc_sysctl_path(h->m->mode)) || sc_raw(&o))
		return 0;
	if (!(o.flags & SC_META_SET_SYSCTL)) {
		o.flags |= SC_META_SET_SYSCTL;
		o.prev_sysctl = h->m->prev_sysctl;
		if (cg_pin_array_put(path, "sc_meta", &o, sizeof(o)))
			return 0;
	}
	return 1;	/* handed over */
}

/*
 * Another responder of this namespace that needs the same sysctl takes
 * over the duty to put it back: the last detach restores it, not the first
 * (which would leave the others with a sysctl their helper refuses under).
 */
static bool sc_sysctl_hand_over(const struct sc_target *t, const struct sc_meta *m)
{
	struct sc_hand_over h = { .t = t, .m = m };

	return cg_state_each_dev(SC_PIN_ROOT, t->ino, sc_hand_over_one, &h) == 1;
}

/*
 * Undo what attach did, as far as it got. ours: the state is of this very
 * namespace (not a stale one whose inode came back), so hooks, table and
 * sysctl are ours to undo here.
 */
void sc_remove(const struct sc_target *t, const struct sc_meta *m, bool ours)
{
	static const char *const pins[] = {
		SC_PIN_LINK, SC_PIN_ACK, SC_PIN_PROG, SC_PIN_PORTS, SC_PIN_COUNTERS, SC_PIN_CONF, SC_PIN_ROUTES,
		SC_PIN_ROUTES4, SC_PIN_RTAB4, SC_PIN_ALLOW, CG_PIN_NAMES, SC_PIN_APPLY, SC_PIN_META,
	};
	char path[PATH_MAX];

	if (m && ours) {
		/* the SYNs' hook first: no SYN-ACK left for an ACK nobody reads */
		if (m->mode == SC_XDP || m->mode == SC_XDP_GENERIC || m->mode == SC_TCX) {
			sc_pin(path, sizeof(path), t, SC_PIN_LINK);
			cg_pin_link_detach(path);
		} else if (m->mode == SC_CLSACT && m->prog_id &&
			   m->prog_id == cg_clsact_prog_id(t->ifindex, BPF_TC_INGRESS,
							   SC_TC_HANDLE, SC_TC_PRIO)) {
			LIBBPF_OPTS(bpf_tc_opts, o, .handle = SC_TC_HANDLE, .priority = SC_TC_PRIO);
			struct bpf_tc_hook h;

			sc_tc_hook(&h, t->ifindex);
			bpf_tc_detach(&h, &o);
		}
		sc_pin(path, sizeof(path), t, SC_PIN_ACK);
		cg_pin_link_detach(path);
		/* the tables of any mode (a flushed one is simply not there) */
		if (m->mode == SC_NFT || (m->flags & SC_META_TABLES))
			sc_nft_delete(t->ifindex);
		if (m->mode == SC_CLSACT)
			cg_clsact_drop(t->ifindex, m->flags & SC_META_CREATED_CLSACT);
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
 * Take the host lock (SC_LOCK: for a command that changes state), enter
 * the namespace, find the device (if any); one line "cannot VERB DEV in
 * netns NS: why" on failure, but with SC_GONE_OK for a device (-ENODEV) or
 * a namespace name (-ENOENT) that does not exist.
 */
int sc_resolve(const struct sc_args *a, struct sc_target *t, const char *verb, unsigned int how)
{
	bool gone_ok = how & SC_GONE_OK;
	struct cg_ack ack = {};
	struct cg_target ct = { .dev = a->dev, .netns = a->netns };
	char where[128];
	int err;

	memset(t, 0, sizeof(*t));
	err = how & SC_LOCK ? cg_lock_host(&ack) : 0;
	if (!err) {
		err = gone_ok ? cg_target_resolve_gone(&ct, a->dev, a->netns, &ack) :
				cg_target_resolve(&ct, a->dev, a->netns, &ack);
		if (gone_ok && (err == -ENODEV || err == -ENOENT))
			ack.msg[0] = 0;
	}
	if (err && ack.msg[0])
		cg_err("cannot %s %s: %s", verb, cg_target_where(&ct, where, sizeof(where)), ack.msg);
	t->ino = ct.netns_ino;
	t->cookie = ct.netns_cookie;
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
