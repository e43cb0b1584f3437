/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * api.h - what the rest of the loader may use of the bpf backend beyond
 * its struct cg_backend (backend.h): the filter a clsact guard is, the
 * preloaded program a watcher keeps, the --object check and the events'
 * ring. Its own files share guard.h besides.
 */
#ifndef CG_BPF_API_H
#define CG_BPF_API_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A clsact guard is the filter of this handle at this priority */
#define CG_TC_HANDLE		0xc5
#define CG_TC_PRIO		1

struct cg_obj;

/*
 * The built-in guard, loaded and verified now, for the fresh attach of a
 * later one (struct cg_attach_opts' preloaded): what a watcher keeps so
 * that a new device waits for no verification. The first fresh guard pins
 * it as the host's shared program. NULL where it cannot load, and where
 * the host's shared program is pinned already (attach opens that one).
 */
struct cg_obj *cg_bpf_preload(bool log_drops);
void cg_bpf_preload_free(struct cg_obj *o);
/* The id of its program: a guard running it took it */
__u32 cg_bpf_preload_id(const struct cg_obj *o);
/* Is data an object of the guard this loader speaks to? 0, -ENOEXEC or
 * -EPROTO (another ABI version), with the reason in why. Loads nothing. */
int cg_bpf_object_check(const void *data, size_t size, char *why, size_t why_len);

/* The ring a running bpf guard of the host writes its drop events to:
 * a new fd, or -ENOENT when no guard runs (ring.c). */
int cg_events_ring_fd(void);

/* The options the guard of t was attached with (its meta), whatever its
 * hooks run now: 0, or -ENOENT without such a guard (query.c) */
struct cg_target;
struct cg_recorded {
	bool egress, log_drops, from_object;
	bool swapped;		/* tcx: a link runs another program than meta names */
	char mode[16];		/* "tcx", "clsact" */
};
int cg_bpf_recorded(const struct cg_target *t, struct cg_recorded *r);

#endif /* CG_BPF_API_H */
