/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * topo.h - between the check's verdict logic (check.c) and the
 * throwaway topology it runs in (topo.c): a tap in namespace vm,
 * forwarded onto veth0, veth1 in namespace far; and the netfilter
 * completion sites some paths add in vm (site.c).
 */
#ifndef CG_CHECK_TOPO_H
#define CG_CHECK_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <arpa/inet.h>

#define CK_PAYLOAD	1000
#define CK_FRAME	(14 + 20 + 8 + CK_PAYLOAD)
#define CK_FRAME6	(14 + 40 + 8 + CK_PAYLOAD)
#define CK_GUEST	"10.0.0.2"
#define CK_FAR		"10.1.0.2"
#define CK_GUEST6	"fd00::2"
#define CK_FAR6		"fd01::2"
#define CK_NFQ_NUM	7	/* the queue of the nfqueue paths, in their own namespace */
#define CK_NFQ_ARG	"7"	/* the same, for iptables --queue-num */
#define CK_WAIT_MS	3000	/* for a frame that should arrive (TCG guests are slow) */
#define CK_GRACE_MS	200	/* after the good frame that follows the bad one */

/*
 * IPv4 ids (IPv6 flow labels) that tell our frames apart at the far end:
 * the good one, the bad one and a good one behind it, and for the netfilter
 * sites the same pair once more before the rule exists (the control).
 */
enum { ID_GOOD = 0x6301, ID_BAD, ID_AFTER, ID_CTRL, ID_CTRL_AFTER, ID_N = 5 };

enum ck_verdict { CK_UNKNOWN, CK_FIXED, CK_VULNERABLE, CK_ERROR };

/* The completion site a path adds in vm, beyond forwarding itself */
enum ck_site { CK_SITE_NONE, CK_SITE_XTCSUM, CK_SITE_NFQUEUE };

struct ck_path {
	const char *name;
	const char *what;	/* for humans */
	int mtu;
	bool tx_csum_off;
	bool v6;
	enum ck_site site;
};

struct ck_result {
	enum ck_verdict v;
	char reason[256];
	char source[INET6_ADDRSTRLEN];	/* what the source became, "" if not corrupted */
};

/* What the capture (or the queue's copies) saw of each of our frames */
struct ck_seen {
	unsigned int pkts;
	bool rewritten;
	char source[INET6_ADDRSTRLEN];
};

struct ck_topo {
	int vm, far;		/* netns fds */
	int nl_vm, nl_far;	/* rtnetlink, bound to their namespace */
	int io_vm, io_far;	/* AF_INET sockets for the interface ioctls */
	int tap;
	int cap;		/* AF_PACKET on veth1 */
	int snmp, netdev;	/* /proc/net/{snmp,dev} of vm */
	int nfq;		/* NETLINK_NETFILTER of vm, bound to CK_NFQ_NUM */
	int veth0, veth1;	/* ifindexes */
	unsigned char tap_mac[6];
};

/* ours, and the guest's that writes to the tap */
extern const unsigned char ck_veth1_mac[6], ck_guest_mac[6];

void ck_topo_init(struct ck_topo *t);
void ck_topo_down(struct ck_topo *t);
int ck_topo_up(struct ck_topo *t, const struct ck_path *p, struct ck_result *r);
long long ck_snmp_ip(int fd, const char *name);
long long ck_tx_dropped(int fd, const char *dev);

/* site.c: the rule of p's site in vm; 0, or -1 with why said */
int ck_site_up(struct ck_topo *t, const struct ck_path *p, char *why, size_t len);
/* Packets the site's rule has matched so far, or -1 */
long long ck_site_hits(const struct ck_topo *t, const struct ck_path *p);
/* Bind CK_NFQ_NUM in vm (t->nfq); 0, or -1 with why said */
int ck_nfq_bind(struct ck_topo *t, char *why, size_t len);
/* Hand each queued packet (from its IP header) to fn, then accept it */
typedef void (*ck_nfq_fn)(const unsigned char *ip, size_t len, void *arg);
void ck_nfq_drain(struct ck_topo *t, ck_nfq_fn fn, void *arg);

/* modules.c: the modules loaded before check, to unload those it added */
struct ck_mods {
	char (*name)[64];
	int n;			/* -1: no module support */
};
int ck_mods_snapshot(struct ck_mods *m);
/* Unload what was loaded since and is unused; their names, space-separated,
 * into done; how many. Frees before's list. */
int ck_mods_unload_new(struct ck_mods *before, char *done, size_t len);

#endif /* CG_CHECK_TOPO_H */
