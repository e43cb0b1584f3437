/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * link.h - the device kinds a guest's frames enter the host through, and
 * the direction they take on each: the one table attach and watch read.
 *
 *   tun (tap, tun)          the guest writes, the host receives: ingress
 *   macvtap, ipvtap         the guest writes /dev/tapN, the host transmits
 *                           the frame on the device: egress
 *   vxlan, geneve, bareudp, gre, gretap, ip6gre, ip6gretap, erspan,
 *   ip6erspan, ipip, sit, ip6tnl
 *                           tunnels decapsulated on the host: the inner
 *                           frame is received on the device, its headers
 *                           where the guest put them: ingress
 *   veth, netkit            pairs: what one end transmits, its peer
 *                           receives. Guest-facing when the peer lives in
 *                           another network namespace (a container's
 *                           link): that end's ingress carries what the
 *                           other namespace sent. A pair whose ends share
 *                           a namespace joins nothing: not guest-facing.
 */
#ifndef CG_LINK_H
#define CG_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define CG_KIND_LEN	16

/* The guest-facing kind named kind (IFLA_INFO_KIND), or NULL. */
struct cg_kind {
	const char *kind;
	bool egress;		/* guest frames leave through the device */
	const char *why;	/* for messages: what carries them */
	bool pair;		/* veth, netkit: facing only across namespaces */
};
const struct cg_kind *cg_kind_find(const char *kind);
/* kind's entry if a device of that kind, whose peer is in the namespace
 * of nsid peer_nsid (-1: its own, or it has none), faces a guest */
const struct cg_kind *cg_kind_facing(const char *kind, int peer_nsid);
/* Every kind of the table but the pairs, for usage and docs: "tun, macvtap, ..." */
const char *cg_kind_list(void);

/* The kind of device ifindex in the current namespace ("" for a device
 * without one, such as a physical NIC), and, if peer_nsid is not NULL,
 * the nsid of the namespace its link lives in when that is another one
 * (IFLA_LINK_NETNSID: a veth's peer), else -1: 0 or -errno. */
int cg_link_kind(int ifindex, char *kind, size_t n, int *peer_nsid);
/* The nsid the current namespace gives the namespace nsfd refers to
 * (RTM_GETNSID): >= 0, -1 for none given, or -errno */
int cg_nsid_of(int nsfd);
/* The inode of the namespace with nsid nsid in the current one, among
 * those cg_netns_scan() finds: 0 or -errno (-ENOENT: none found) */
int cg_nsid_ino(int nsid, __u64 *ino);

/* A device of the current namespace, as a link dump gives it */
struct cg_link {
	int ifindex;
	const char *name;
	const struct cg_kind *kind;	/* its guest-facing kind, NULL: none */
	int peer_nsid;			/* its peer's namespace, -1: this one */
	bool up;			/* administratively up */
	bool xdp;			/* an XDP program is attached */
};

/* fn(l, arg) for each device of the current namespace (one link dump):
 * 0, fn's first nonzero return, or -errno. */
typedef int (*cg_link_fn)(const struct cg_link *l, void *arg);
int cg_link_each(cg_link_fn fn, void *arg);

#endif /* CG_LINK_H */
