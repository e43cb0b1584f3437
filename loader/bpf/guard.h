/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * guard.h - what the files of the bpf backend share, and nothing outside
 * loader/bpf/ reads (api.h is what the rest of the loader sees): its modes,
 * its meta on bpffs, the two hooks of a device, a loaded program, and the
 * functions each file offers the others (state.c: the state of one
 * device, whether it is ours and live, its removal, the host-wide prune;
 * object.c: opening and loading the guard's object; shared.c: the
 * program and counter map a host's guards share; ring.c: their events'
 * ring).
 */
#ifndef CG_BPF_GUARD_H
#define CG_BPF_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "backend.h"
#include "api.h"
#include "compat.h"
#include "csum_guard_abi.h"
#include "state.h"

/* The guards' pins on bpffs: CG_PIN_ROOT/<netns inode>/<ifindex>/NAME */
#define CG_PIN_ROOT		"/sys/fs/bpf/csum_guard"
#define CG_PIN_LINK		"link"		/* tcx link, ingress */
#define CG_PIN_LINK_EGRESS	"link_egress"	/* tcx link, egress (CG_F_EGRESS) */
#define CG_PIN_PROG		"prog"		/* program (clsact attach) */
#define CG_PIN_COUNTERS		"counters"
#define CG_PIN_META		"meta"
#define CG_PIN_ORIGIN		"origin"	/* struct cg_origin */

/*
 * What the guards of a host share, beside the namespaces' directories:
 *
 *	CG_PIN_ROOT/shared/dev_counters            the host's per-device counters
 *	CG_PIN_ROOT/shared/<sha>-<mode>[-log]      a verified guard program
 *
 * <sha> is the first 16 hex digits of the object's SHA-256, <mode> tcx or
 * clsact (a tcx program is loaded with its attach type), -log for
 * --log-drops (read-only data): one program per kind of load, verified
 * once and attached to every device that asks for it. Gone with the last
 * guard of the host.
 */
#define CG_PIN_SHARED		CG_PIN_ROOT "/shared"
#define CG_PIN_DEVCNT		CG_PIN_SHARED "/dev_counters"


/* in meta: how the program is attached, as --mode names it */
enum cg_mode {
	CG_MODE_TCX = CG_ATTACH_TCX,
	CG_MODE_CLSACT = CG_ATTACH_CLSACT,
};

/* flags in struct cg_meta besides CG_F_* */
#define CG_META_CREATED_CLSACT	(1U << 16)
#define CG_META_OBJECT		(1U << 17)	/* the program came from --object */
/* its counters are its entry in the host's dev_counters (and, from an
 * older loader's guard it took over, the counters pin as their base) */
#define CG_META_DEVCNT		(1U << 18)

struct cg_meta {
	CG_META_HEAD;
	__u32 pad;
};

/*
 * Where a guard's program came from: the loader that attached it last and
 * the SHA-256 of the object (the built-in one or --object's). A guard whose
 * origin is not this loader's built-in object is converged by attach, and
 * by upgrade; one from --object keeps its program. Pinned apart from meta,
 * so that meta's layout stays; a guard without it (a run killed before it
 * was written) reads as of an unknown loader.
 */
struct cg_origin {
	char loader[32];		/* its version, NUL-terminated */
	__u8 object_sha256[32];
};

/* The two hooks of a device, and how each mode names them. */
enum cg_hook {
	CG_HOOK_INGRESS,
	CG_HOOK_EGRESS,
	CG_HOOK_MAX,
};

struct cg_hook_desc {
	const char *pin;			/* tcx: the link's pin */
	__u32 tcx_type;				/* tcx: the link's attach type */
	enum bpf_tc_attach_point tc_point;	/* clsact: the filter's parent */
};
extern const struct cg_hook_desc cg_hooks[CG_HOOK_MAX];

/* A guard program ready to attach: its object, program and counters map. */
struct csum_guard_bpf;

/* A guard's object: the built-in one through its skeleton, or --object's */
struct cg_obj {
	struct csum_guard_bpf *skel;	/* the built-in object; NULL: --object */
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *counters;
	struct bpf_map *dev_counters;	/* the host's; NULL: an older object */
	struct bpf_map *events;		/* the drop events' ring; NULL: none */
	bool *log_drops;		/* in its read-only data, before load */
	__u32 mode;			/* loaded for: CG_MODE_TCX or CG_MODE_CLSACT */
	bool log;			/* loaded with log_drops */
};

/* state.c */
/* After a fresh tcx guard in dir on t: remove the guard that followed the
 * device from the namespace it left, whose link (not dir's) runs there */
void cg_state_forget_followers(const struct cg_target *t, const char *dir);
const char *cg_mode_name(__u32 mode);
/* The id of the program, map or link pinned at path, 0 if none */
__u32 cg_pin_id(const char *path);
int cg_meta_read(const char *dir, struct cg_meta *m);
int cg_meta_write(const char *dir, const struct cg_meta *m);
void cg_tc_hook_init(struct bpf_tc_hook *hook, int ifindex, enum cg_hook h);
__u32 cg_hook_prog(const char *dir, int ifindex, const struct cg_meta *m,
		   enum cg_hook h);
bool cg_state_ours(const char *dir, const struct cg_target *t,
		   const struct cg_meta *m, __u64 cookie);
bool cg_state_live(const char *dir, const struct cg_target *t,
		   const struct cg_meta *m, __u64 cookie);
bool cg_state_settled(const char *dir, const struct cg_target *t,
		      const struct cg_meta *m);
void cg_unpin_all(const char *dir);
void cg_hook_detach(const char *dir, int ifindex, const struct cg_meta *m,
		    enum cg_hook h);
void cg_state_remove(const char *dir, int ifindex, const struct cg_meta *m);
/* Drop the state of guards whose device is gone, in namespace ino (0: in
 * every one): a command drops what it comes across in the namespace it
 * acts on; detach --all, upgrade and watch drop the rest. How many guards'
 * state is left there. */
int cg_prune(__u64 ino);

/* shared.c */
/*
 * The program of this loader's built-in object for a kind of load, the
 * host's shared one: opened from its pin, or loaded, verified and pinned
 * now (pre, if not NULL: a copy loaded ahead with those options, taken
 * instead of a load). An fd, or -errno with why.
 */
int cg_shared_prog(__u32 mode, bool log_drops, struct cg_obj *pre, char *why, size_t why_len);
/* Is it pinned already? */
bool cg_shared_pinned(__u32 mode, bool log_drops);
/* The host's dev_counters: an fd, or -errno (-ENOENT: not made yet) */
int cg_devcnt_fd(void);
/* Pin o's dev_counters as the host's, if the host has none yet */
int cg_devcnt_pin(const struct cg_obj *o);
/* The entry of meta m's device: made (zero; fresh: a stale one too),
 * deleted, or added to sum[CG_CNT_MAX] */
int cg_devcnt_add(const struct cg_meta *m, bool fresh);
void cg_devcnt_del(const struct cg_meta *m);
int cg_devcnt_sum(const struct cg_meta *m, __u64 *sum);
/* The map id of the host's dev_counters, 0 if none */
__u32 cg_devcnt_id(void);
/* After the last guard of the host went: drop what they shared */
void cg_shared_gc(void);

/* object.c */
void cg_obj_close(struct cg_obj *o);
int cg_load(struct cg_obj *o, const struct cg_attach_opts *opts, __u32 mode,
	    int counters_fd, char *why, size_t why_len);
int cg_prog_tag(int fd, __u8 tag[BPF_TAG_SIZE]);
/* The origin an attach with o gives: this loader, o's object or the built-in one */
void cg_origin_of(const struct cg_attach_opts *o, struct cg_origin *g);
int cg_origin_read(const char *dir, struct cg_origin *g);
int cg_origin_write(const char *dir, const struct cg_origin *g);

/* query.c: the backend's operations that only read */
int cg_bpf_status(const struct cg_target *t, struct cg_status *st);
int cg_bpf_list(int *ifindexes, int max);
void cg_bpf_probe_quick(struct cg_probe *p);
void cg_bpf_probe_all(struct cg_probe *p);

#endif /* CG_BPF_GUARD_H */
