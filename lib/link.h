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
 */
#ifndef CG_LINK_H
#define CG_LINK_H

#include <stdbool.h>
#include <stddef.h>

#define CG_KIND_LEN	16

/* The guest-facing kind named kind (IFLA_INFO_KIND), or NULL. */
struct cg_kind {
	const char *kind;
	bool egress;		/* guest frames leave through the device */
	const char *why;	/* for messages: what carries them */
};
const struct cg_kind *cg_kind_find(const char *kind);
/* Every kind of the table, for usage and docs: "tun, macvtap, ..." */
const char *cg_kind_list(void);

/* The kind of device ifindex in the current namespace ("" for a device
 * without one, such as a physical NIC): 0 or -errno. */
int cg_link_kind(int ifindex, char *kind, size_t n);

/* A device of the current namespace, as a link dump gives it */
struct cg_link {
	int ifindex;
	const char *name;
	const struct cg_kind *kind;	/* its guest-facing kind, NULL: none */
	bool up;			/* administratively up */
	bool xdp;			/* an XDP program is attached */
};

/* fn(l, arg) for each device of the current namespace (one link dump):
 * 0, fn's first nonzero return, or -errno. */
typedef int (*cg_link_fn)(const struct cg_link *l, void *arg);
int cg_link_each(cg_link_fn fn, void *arg);

#endif /* CG_LINK_H */
