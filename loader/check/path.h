/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * path.h - between the command (check.c), the verdict on one path
 * (path.c) and the frames that verdict rests on (frame.c): what is written
 * to the tap as the guest, and what arrives at the far end or is copied to
 * the queue's reader.
 */
#ifndef CG_CHECK_PATH_H
#define CG_CHECK_PATH_H

#include <stdbool.h>

#include "topo.h"

/* What arrived at the far end, and what the queue's reader was given */
struct ck_obs {
	struct ck_seen wire[ID_N], queue[ID_N];
};

/* frame.c: write the good (csum_start at UDP) or bad frame id; 0 or -errno */
int ck_send(const struct ck_topo *t, const struct ck_path *p, bool bad, int id);
/* Count what arrives until frame `until` has (0: none awaited) or ms passed */
void ck_capture(struct ck_topo *t, struct ck_obs *o, int until, long ms);

/* path.c: set up p's topology, judge it, take it down; the verdict in r */
void ck_run_path(const struct ck_path *p, struct ck_result *r);

#endif /* CG_CHECK_PATH_H */
