/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * events.h - the guards' drop events (struct cg_drop_event), from the BPF
 * programs' ring buffer and the module's multicast group, to one reader:
 * `csum-guard events` and `watch --log-drops` write them as lines, named by
 * namespace and device, rate-limited per device.
 */
#ifndef CG_EVENTS_H
#define CG_EVENTS_H

#include <poll.h>
#include <stdbool.h>

#include "csum_guard_abi.h"

struct cg_events;

/* A reader of both sources; NULL with errno set. json: one JSON object a
 * line instead of text. */
struct cg_events *cg_events_open(bool json);
void cg_events_close(struct cg_events *ev);
/* Look again for rings of guards attached since, and for the module's
 * group (a module loaded since). */
void cg_events_refresh(struct cg_events *ev);
/* The fds to poll (at most 2: the rings' epoll fd, the group's socket). */
int cg_events_pollfds(const struct cg_events *ev, struct pollfd *p);
/* Write what is there, without waiting; lines past the rate limit are
 * counted and said once a second. */
void cg_events_read(struct cg_events *ev);
/* The sources being read, in words, into buf. */
const char *cg_events_sources(const struct cg_events *ev, char *buf, size_t n);

/* csum-guard events [--json] */
int cg_cmd_events(bool json);

#endif /* CG_EVENTS_H */
