/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ahead.h - what runs before a guard on its device's ingress (ahead.c):
 * status shows it, attach warns of it.
 */
#ifndef CG_AHEAD_H
#define CG_AHEAD_H

#include "backend.h"

#define CG_AHEAD_MAX	8

struct cg_ahead {
	int n;				/* how many; the first CG_AHEAD_MAX named */
	char item[CG_AHEAD_MAX][192];	/* "xdp program 42 xdp_pass (generic)" */
};

/*
 * What runs before the guard st describes (backend "bpf" or "kmod") on
 * the ingress of ifindex, in the current namespace. Nothing for an
 * unguarded device; what cannot be read is left out.
 */
void cg_ahead_of(int ifindex, const char *backend, const struct cg_status *st,
		 struct cg_ahead *a);
/* The same where a link dump already told whether an XDP program is
 * attached (xdp 0 or 1; -1: not known, ask) */
void cg_ahead_of_xdp(int ifindex, const char *backend, const struct cg_status *st,
		     int xdp, struct cg_ahead *a);

#endif /* CG_AHEAD_H */
