/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_TC_H
#define CG_TC_H

#include <stdbool.h>

/* Any tc filter on either side of ifindex's clsact? (cannot tell: yes) */
bool cg_clsact_has_filters(int ifindex);
/* Has ifindex a clsact qdisc (or an ingress one) already? (cannot tell: yes) */
bool cg_clsact_exists(int ifindex);
/* Does this kernel have tcx links (6.6+)? */
bool cg_have_tcx(void);

#endif /* CG_TC_H */
