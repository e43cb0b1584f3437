/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sc.h - what the files of the SYN-cookie responder share: its modes, its
 * meta on bpffs, its target, and the functions each file offers the others
 * (state.c: modes, sysctls, pins, liveness, removal; nft.c: the SYNPROXY
 * fallback; addr.c and routes.c: the device and namespace the program is
 * told of; attach.c: load, attach, detach). main.c has the command line,
 * status and probe; syncookie.h is what the csum-guard command calls.
 */
#ifndef CG_SC_H
#define CG_SC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "state.h"
#include "syncookie_abi.h"

#define SC_TC_HANDLE	0xc6	/* the checksum guard has 0xc5 at priority 1: it runs first */
#define SC_TC_PRIO	2
#define SC_SYSCTL_COOKIES "/proc/sys/net/ipv4/tcp_syncookies"
#define SC_SYSCTL_LOOSE	"/proc/sys/net/netfilter/nf_conntrack_tcp_loose"
/* what a cookie's timestamp may carry (sc_conf.opts) */
#define SC_SYSCTL_TIMESTAMPS "/proc/sys/net/ipv4/tcp_timestamps"
#define SC_SYSCTL_SACK	"/proc/sys/net/ipv4/tcp_sack"
#define SC_SYSCTL_WSCALE "/proc/sys/net/ipv4/tcp_window_scaling"
#define SC_SYSCTL_ECN	"/proc/sys/net/ipv4/tcp_ecn"
#define SC_SYSCTL_RMEM	"/proc/sys/net/ipv4/tcp_rmem"
#define SC_SYSCTL_RMEM_MAX "/proc/sys/net/core/rmem_max"
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
/* its nft tables (sc_nft_apply): the IPv4 one ("inet"), the IPv6 one ("ip6") */
#define SC_META_HANDOFF		(1U << 2)
#define SC_META_HANDOFF6	(1U << 3)
#define SC_META_TABLES		(SC_META_HANDOFF | SC_META_HANDOFF6)
/* syncookie_ack is hooked (SC_PIN_ACK): conf says SC_OPT_ACK where sc_ack_decodes */
#define SC_META_ACK		(1U << 4)
/* attach --no-handoff: no tables, by the operator's choice */
#define SC_META_NO_HANDOFF	(1U << 5)
/*
 * Its cookies are raw (SC_OPT_RAW): set where attach made both tables and
 * the kernel has the raw cookie helpers (sc_have_raw), for its life. No
 * sysctl is needed then: SYNPROXY checks them, and the listener, which
 * sees SYNPROXY's SYNs only, keeps its own request sockets (and the
 * options) unless tcp_syncookies is 2.
 */
#define SC_META_RAW		(1U << 6)
/*
 * Why its mode (sc_mode_why): SC_META_ASKED, attach --mode said it; else
 * auto's choice, on a veth whose peer runs native XDP (SC_META_PEER_XDP:
 * native) or none (SC_META_PEER_NOXDP: generic), or where the driver
 * refused native XDP (SC_META_REFUSED: the next mode that hooked)
 */
#define SC_META_ASKED		(1U << 7)
#define SC_META_PEER_XDP	(1U << 8)
#define SC_META_PEER_NOXDP	(1U << 9)
#define SC_META_REFUSED		(1U << 10)

struct sc_meta {
	CG_META_HEAD;
	__s32 prev_sysctl;	/* the sysctl as attach found it */
};

/*
 * Does syncookie_ack decode the options of the SYN-ACKs of listener
 * cookies (SC_OPT_ACK)? Not while the hand-off tables stand: SYNPROXY
 * takes the ACK, and the listener's half of the connection it opens (a
 * cookie of the listener's, under tcp_syncookies 2) misreads them under
 * tcp_timestamps 1 (measured on 6.18: a random window scale on the
 * listener's side). Raw cookies (SC_META_RAW) have their own rule
 * (sc_conf_opts).
 */
static inline bool sc_ack_decodes(const struct sc_meta *m)
{
	return (m->flags & SC_META_ACK) && !(m->flags & SC_META_TABLES);
}

static inline bool sc_raw(const struct sc_meta *m)
{
	return m->mode != SC_NFT && (m->flags & SC_META_RAW);
}

struct sc_args {
	const char *cmd;
	const char *dev;
	const char *netns;
	struct sc_ports ports;
	int nports;
	struct sc_route_key allow[SC_ALLOW_MAX];	/* --allow, as the tries key them */
	int nallow;
	enum sc_mode mode;
	bool set_sysctl;
	bool no_handoff;	/* attach --no-handoff */
	bool json;
	bool all;		/* detach --all */
	const char *config;	/* apply --config */
	bool follow;		/* apply --follow */
	bool *same;		/* attach sets it when it changed nothing */
};

struct sc_target {
	const char *dev;
	const char *netns;
	__u64 ino, cookie;
	int ifindex;
	char dir[PATH_MAX];
};

/* The built-in object, loaded for one mode (sc_load). */
struct sc_obj {
	struct bpf_object *obj;
	struct bpf_program *xdp, *tc, *ack;	/* ack: loaded if autoload */
	int ack_err;		/* why syncookie_ack was wanted and did not load */
	struct bpf_map *ports, *counters, *conf, *routes, *routes4, *allow, *rtab4;
};

/* load.c: the object's maps by index (sc_obj_map), their names and pins */
#define SC_NMAPS	7
struct sc_map_name {
	const char *name, *pin;
};
extern const struct sc_map_name sc_maps[SC_NMAPS];
struct bpf_map **sc_obj_map(struct sc_obj *o, int i);

/* state.c */
const char *sc_mode_name(__u32 m);
bool sc_mode_same(__u32 want, __u32 have);
const char *sc_sysctl_path(__u32 mode);
int sc_sysctl_want(__u32 mode);
const char *sc_sysctl_name(__u32 mode);
int sc_sysctl_read(const char *path);
int sc_sysctl_write(const char *path, int val);
void sc_pin(char *buf, size_t n, const struct sc_target *t, const char *name);
int sc_map_get(const struct sc_target *t, const char *name, void *val, __u32 key);
int sc_map_put(const struct sc_target *t, const char *name, const void *val, __u32 size);
void sc_tc_hook(struct bpf_tc_hook *h, int ifindex);
/* sc_health(): what runs of a responder whose state is on bpffs */
enum sc_health {
	SC_DEAD,	/* nothing: stale, half-made, or its hook is gone */
	SC_TABLES_GONE,	/* its nft tables are gone or half (nft flush ruleset) */
	SC_OK,
};
enum sc_health sc_health(const struct sc_target *t, const struct sc_meta *m);
bool sc_live(const struct sc_target *t, const struct sc_meta *m);
bool sc_outdated(const struct sc_target *t, const struct sc_meta *m);
void sc_remove(const struct sc_target *t, const struct sc_meta *m, bool ours);
#define SC_LOCK		1	/* sc_resolve: the command changes state */
#define SC_GONE_OK	2	/* sc_resolve: what is gone is no error */
int sc_resolve(const struct sc_args *a, struct sc_target *t, const char *verb, unsigned int how);

/* Where a listener keeps what the program reads of it (sc_listener_offsets) */
struct sc_offsets {
	__u32 user_mss, wclamp, userlocks_bit;
	__u32 tcp_sock_btf;	/* struct tcp_sock's BTF id where the kernel has
				 * bpf_rdonly_cast (6.2+) to read it with; else 0 */
	bool reqsk;		/* the kernel has bpf_sk_assign_tcp_reqsk (6.9+) */
};

/* routes.c */
int sc_lpm_sync(int map_fd, const void *k, size_t ksz, const __u32 *v, int n);
int sc_routes_sync(int map_fd, int map4_fd, int rtab_fd);
int sc_routes_sync_pinned(const struct sc_target *t);
int sc_rtab4_usage(const struct sc_target *t, int *nodes, bool *full);

/* addr.c */
int sc_conf_read(const struct sc_target *t, struct sc_conf *c, bool ack, bool raw);
int sc_allow_sync(int map_fd, const struct sc_args *a);
int sc_parse_cidr(const char *s, struct sc_route_key *k);
void sc_listener_offsets(struct sc_offsets *o);
void sc_opts_text(const struct sc_conf *c, __u32 mflags, char *buf, size_t n);
void sc_conf_opts(struct sc_conf *c, bool ack, bool raw);
int sc_rodata_set(struct bpf_object *obj, const char *name, __u32 val);

/* nft.c */
bool sc_nft_have(void);
bool sc_nft_exists(int ifindex, const char *family);
void sc_nft_delete(int ifindex);
void sc_ports_text(const struct sc_ports *p, char *buf, size_t n);
int sc_nft_apply(const struct sc_target *t, const struct sc_args *a, __u32 mode, bool fresh,
		 __u32 have, char *why, size_t why_len);
__u64 sc_nft_counter(int ifindex, const char *name);
void sc_nft_cookies(__u64 *valid, __u64 *invalid);
bool sc_nft_input_filtered(char *what, size_t what_len);

/* mode.c */
int sc_veth_peer_xdp(int ifindex);
void sc_mode_why(const struct sc_target *t, const struct sc_meta *m, char *buf, size_t n);

/* attach.c */
bool sc_have_reqsk(void);
bool sc_have_raw(void);
int sc_load(struct sc_obj *o, bool xdp, bool tcx, bool ack, const struct sc_target *reuse,
	    char *why, size_t why_len);
int sc_attach(const struct sc_args *a);
int sc_detach(const struct sc_args *a);
int sc_detach_all(const struct sc_args *a);
/* main.c: one line of apply's file, as attach's command line (argv[0]: FILE:LINE) */
int sc_parse_line(int argc, char **argv, struct sc_args *a);

/* apply.c: the declared responders (SC_CONFIG) */
#define SC_CONFIG	"/etc/csum-guard/syncookie.conf"
/* pinned beside the meta of a responder apply made (SC_PIN_APPLY) */
#define SC_APPLIED	(1U << 0)
struct sc_applied {
	__u64 repairs;		/* what apply --follow attached again */
	__u32 flags;
	__u32 pad;
};
int sc_apply(const struct sc_args *a);

/* status.c: they only read */
int sc_status(const struct sc_args *a);
int sc_probe(const struct sc_args *a);

#endif /* CG_SC_H */
