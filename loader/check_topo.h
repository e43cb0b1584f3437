/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * check_topo.h - between the check's verdict logic (check.c) and the
 * throwaway topology it runs in (check_topo.c): a tap in namespace vm,
 * forwarded onto veth0, veth1 in namespace far.
 */
#ifndef CG_CHECK_TOPO_H
#define CG_CHECK_TOPO_H

#include <stdbool.h>
#include <arpa/inet.h>

#define CK_PAYLOAD	1000
#define CK_FRAME	(14 + 20 + 8 + CK_PAYLOAD)
#define CK_GUEST	"10.0.0.2"
#define CK_FAR		"10.1.0.2"
#define CK_WAIT_MS	3000	/* for a frame that should arrive (TCG guests are slow) */
#define CK_GRACE_MS	200	/* after the good frame that follows the bad one */

/* IPv4 ids that tell our three frames apart at the far end */
enum { ID_GOOD = 0x6301, ID_BAD, ID_AFTER, ID_N = 3 };

enum ck_verdict { CK_UNKNOWN, CK_FIXED, CK_VULNERABLE, CK_ERROR };

struct ck_path {
	const char *name;
	const char *what;	/* for humans */
	int mtu;
	bool tx_csum_off;
};

struct ck_result {
	enum ck_verdict v;
	char reason[256];
	char source[INET_ADDRSTRLEN];	/* what the source became, "" if not corrupted */
};

/* What the capture saw of each of our frames */
struct ck_seen {
	unsigned int pkts;
	bool rewritten;
	char source[INET_ADDRSTRLEN];
};

struct ck_topo {
	int vm, far;		/* netns fds */
	int nl_vm, nl_far;	/* rtnetlink, bound to their namespace */
	int io_vm, io_far;	/* AF_INET sockets for the interface ioctls */
	int tap;
	int cap;		/* AF_PACKET on veth1 */
	int snmp, netdev;	/* /proc/net/{snmp,dev} of vm */
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

#endif /* CG_CHECK_TOPO_H */
