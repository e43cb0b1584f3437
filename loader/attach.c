// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach.c - csum-guard attach and detach: the commands that change a
 * device's guard, over whichever backend guards it or is chosen for it.
 * cg_attach() is the attach itself, silent, for watch as for the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "link.h"
#include "log.h"
#include "sha256.h"
#include "state.h"
#include "ahead.h"
#include "bpf/api.h"
#include "commands.h"

#define CG_OBJECT_MAX	(64 << 20)	/* attach --object: far above any guard */

/*
 * Which backend a device guarded by none gets: chosen from the quick probe
 * (nothing loaded: the attach's own load is the test) or, if that finds
 * none or full is asked, from the full one. NONE with the reason in ack.
 */
static enum cg_choice cg_attach_choose(enum cg_choice want, bool full, struct cg_ack *ack)
{
	struct cg_probe p;
	enum cg_choice c;
	char why[256];

	if (!full) {
		cg_probe_quick(&p, want);
		c = cg_select(&p, want, why, sizeof(why));
		if (c != CG_CHOICE_NONE)
			return c;
	}
	cg_probe_all(&p);
	c = cg_select(&p, want, why, sizeof(why));
	if (c == CG_CHOICE_NONE)
		cg_ack_err(ack, -EOPNOTSUPP, "%s", why);
	return c;
}

int cg_attach(const struct cg_attach_req *r, struct cg_attach_result *res, struct cg_ack *ack)
{
	struct cg_attach_opts o = r->opts;
	enum cg_choice want = r->backend, c;
	struct cg_target t;
	char why[256], kind[CG_KIND_LEN];
	bool kind_egress;
	int err, nsid;

	memset(res, 0, sizeof(*res));
	if (o.object)
		want = CG_CHOICE_BPF;
	err = cg_lock_host(ack);
	if (!err)
		err = cg_target_resolve(&t, r->dev, r->netns, ack);
	/* a path asked for by inode that leads nowhere now (its process
	 * exited): the watcher finds the namespace's new way, as below */
	if (err == -ENOENT && r->netns_ino && r->netns && !t.netns_ino)
		err = -ESTALE;
	if (err)
		return err;
	/* entered by its path: is it the namespace meant, before anything? */
	if (r->netns_ino && t.netns_ino != r->netns_ino)
		return cg_ack_err(ack, -ESTALE, "netns %s is now another namespace (inode %llu, not %llu): nothing done",
				  r->netns ?: "(ours)", (unsigned long long)t.netns_ino,
				  (unsigned long long)r->netns_ino);
	if (r->ifindex && t.ifindex != r->ifindex)
		return cg_ack_err(ack, -ESTALE, "%s is now another device (ifindex %d, not %d): nothing done",
				  r->dev, t.ifindex, r->ifindex);
	res->ifindex = t.ifindex;
	/* A macvtap's guest frames leave through it: guard where they go */
	err = cg_link_kind(t.ifindex, kind, sizeof(kind), &nsid);
	if (err)
		return cg_ack_err(ack, err, "cannot read its device kind: %s", strerror(-err));
	res->kind = cg_kind_facing(kind, nsid);
	kind_egress = res->kind && res->kind->egress && !o.egress;
	if (kind_egress)
		o.egress = true;

	res->was_by = cg_guarded_by(&t, &res->was);
	/* never narrow a guard: what it has stays unless asked off */
	if (res->was_by != CG_CHOICE_NONE && res->was.attached) {
		if (res->was.egress && !r->no_egress)
			o.egress = true;
		if (res->was.log_drops && !r->no_log_drops)
			o.log_drops = true;
	}
	if (res->was_by != CG_CHOICE_NONE && want != CG_CHOICE_NONE && want != res->was_by)
		return cg_ack_err(ack, -EBUSY, "already guarded by the %s backend; detach it first",
				  cg_choice_name(res->was_by));
	res->by = res->was_by;
	if (res->by == CG_CHOICE_NONE) {
		res->by = cg_attach_choose(want, false, ack);
		if (res->by == CG_CHOICE_NONE)
			return -EOPNOTSUPP;
	}
	err = cg_backends[res->by]->attach(&t, &o, ack);
	if (err && res->was_by == CG_CHOICE_NONE) {
		struct cg_ack full = {};

		/*
		 * What the quick probe took on trust may be what failed (a
		 * kernel whose BTF lacks the kfunc, a program that does not
		 * load): probe in full, as the choice always did, and take
		 * what it picks if that is another answer.
		 */
		c = cg_attach_choose(want, true, &full);
		if (c != res->by) {
			if (ack)
				*ack = full;	/* the reason if none is left */
			if (c == CG_CHOICE_NONE)
				return -EOPNOTSUPP;
			res->by = c;
			err = cg_backends[res->by]->attach(&t, &o, ack);
		}
	}
	if (err == -EOPNOTSUPP && kind_egress) {
		snprintf(why, sizeof(why), "%s", cg_ack_why(ack, err));
		if (ack)
			ack->msg[0] = '\0';
		return cg_ack_err(ack, err, "%s, and %s; the completion guard covers it (csum-guard completion on)",
				  res->kind->why, why);
	}
	if (err)
		return err;
	if (cg_backends[res->by]->status(&t, &res->now) || !res->now.attached)
		return cg_ack_err(ack, -EIO, "the %s backend reports it unguarded after attach",
				  cg_choice_name(res->by));
	return 0;
}

/*
 * attach --object PATH --sha256 HEX: read the object once, and hand libbpf
 * those very bytes only if their digest is the one given and they are a
 * guard of our ABI. Nothing is touched before that.
 */
static int cg_object_read(const char *path, const char *sha256, void **data, size_t *size,
			  unsigned char digest[CG_SHA256_LEN])
{
	char hex[CG_SHA256_HEX + 1], why[128];
	struct stat st;
	void *buf;
	int fd, err;

	/* O_NONBLOCK: a FIFO is refused below instead of waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		cg_err("cannot attach: object %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > CG_OBJECT_MAX) {
		cg_err("cannot attach: object %s: not a regular file of 1 byte to %d MiB",
		       path, CG_OBJECT_MAX >> 20);
		goto fail;
	}
	buf = malloc(st.st_size);
	if (!buf || read(fd, buf, st.st_size) != st.st_size) {
		cg_err("cannot attach: object %s: %s", path, buf ? "short read" : strerror(ENOMEM));
		free(buf);
		goto fail;
	}
	close(fd);
	cg_sha256(buf, st.st_size, digest);
	cg_sha256_hex(digest, hex);
	if (strcasecmp(hex, sha256)) {
		cg_err("cannot attach: object %s has SHA-256 %s, not %s: nothing attached",
		       path, hex, sha256);
		free(buf);
		return -EBADMSG;
	}
	err = cg_bpf_object_check(buf, st.st_size, why, sizeof(why));
	if (err) {
		cg_err("cannot attach: object %s: %s: nothing attached", path, why);
		free(buf);
		return err;
	}
	*data = buf;
	*size = st.st_size;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -EINVAL;
}

/* What an update changed, e.g. ": egress added, log-drops off" */
static void cg_changes_text(const struct cg_status *was, const struct cg_status *now,
			    char *buf, size_t n)
{
	const char *e = was->egress == now->egress ? NULL :
			now->egress ? "egress added" : "egress removed";
	const char *l = was->log_drops == now->log_drops ? NULL :
			now->log_drops ? "log-drops on" : "log-drops off";

	if (e && l)
		snprintf(buf, n, ": %s, %s", e, l);
	else if (e || l)
		snprintf(buf, n, ": %s", e ?: l);
}

/*
 * What runs before the guard now in place, said once attach is done: a
 * program or hook there that redirects or duplicates guest frames sends
 * them past the guard (the completion guard still covers them where the
 * module loads). Not an error: the guard is in place for everything else.
 * cg_attach() left us in the device's namespace, with its status in res.
 */
static void cg_attach_warn_ahead(const struct cg_attach_result *res, const char *where)
{
	struct cg_ahead a;
	char buf[4 * sizeof(a.item[0])];
	int i;

	cg_ahead_of(res->ifindex, cg_choice_name(res->by), &res->now, &a);
	for (i = 0; i < a.n && i < CG_AHEAD_MAX; i++)
		cg_info("warning: on %s, %s runs before the guard: what it redirects or "
			"duplicates, the guard does not see", where,
			cg_text_safe(a.item[i], buf, sizeof(buf)));
	if (a.n > CG_AHEAD_MAX)
		cg_info("warning: on %s, %d more run before the guard", where, a.n - CG_AHEAD_MAX);
}

/* Did the program, or the loader it is recorded as from, change? */
static bool cg_code_moved(const struct cg_status *was, const struct cg_status *now)
{
	return was->prog_id != now->prog_id || strcmp(was->loader, now->loader);
}

/* ": csum-guard 0.1.0's program replaced by 0.1.1's" and the like */
static void cg_code_text(const struct cg_status *was, const struct cg_status *now,
			 char *buf, size_t n)
{
	snprintf(buf, n, ": %s%s%s program %s by csum-guard %s's%s",
		 *was->loader ? "csum-guard " : "an unknown loader's", was->loader,
		 *was->loader ? "'s" : "",
		 was->prog_id != now->prog_id ? "replaced" : "kept, now recorded as",
		 now->loader,
		 was->prog_id != now->prog_id && !strcmp(was->prog_tag, now->prog_tag) ?
		 " (same instructions)" : "");
}

int cg_cmd_attach(struct cg_attach_req *r, const char *sha256)
{
	struct cg_attach_result res;
	struct cg_ack ack = {};
	char where[128], what[192] = "";
	bool changed;
	void *data;

	cg_target_where(&(struct cg_target){ .dev = r->dev, .netns = r->netns },
			where, sizeof(where));
	if (cg_cli_need_root("attach"))
		return 1;
	if (r->object_path) {
		if (cg_object_read(r->object_path, sha256, &data, &r->opts.object_size,
				   r->opts.object_sha256))
			return 1;
		r->opts.object = data;	/* freed at exit */
	}
	if (cg_attach(r, &res, &ack)) {
		cg_err("cannot attach to %s: %s", where, cg_ack_why(&ack, -EINVAL));
		return 1;
	}
	changed = res.was_by != CG_CHOICE_NONE &&
		  (res.was.log_drops != res.now.log_drops || res.was.egress != res.now.egress);
	if (changed) {
		cg_changes_text(&res.was, &res.now, what, sizeof(what));
	} else if (res.was_by != CG_CHOICE_NONE && r->object_path &&
		   res.was.prog_id != res.now.prog_id) {
		changed = true;
		snprintf(what, sizeof(what), ": program replaced from %s", r->object_path);
	} else if (res.was_by != CG_CHOICE_NONE && cg_code_moved(&res.was, &res.now)) {
		changed = true;
		cg_code_text(&res.was, &res.now, what, sizeof(what));
	}
	cg_info("%s %s (%s, %s%s)%s%s%s",
		res.was_by == CG_CHOICE_NONE ? "guarding" :
		changed ? "updated the guard of" : "already guarding",
		where, cg_choice_name(res.by), res.now.mode, cg_opts_text(&res.now), what,
		res.kind && res.kind->egress ? ": " : "",
		res.kind && res.kind->egress ? res.kind->why : "");
	cg_attach_warn_ahead(&res, where);
	return 0;
}

/*
 * What the guards of a device or a namespace that is gone left, recorded
 * under its name: removed, never touching a device that now has the name
 * or the ifindex. t as cg_target_resolve_gone() left it: t->netns_ino 0
 * when the namespace is gone.
 */
static int cg_detach_gone(struct cg_target *t, const char *where)
{
	enum cg_choice c;
	int n, total = 0;

	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++) {
		n = cg_backends[c]->forget(t);
		if (n < 0) {
			cg_err("cannot detach from %s (%s): %s", where, cg_choice_name(c),
			       strerror(-n));
			return -1;
		}
		if (n && !t->netns_ino)
			cg_info("netns %s is gone: removed the state of %d %s guard%s it had",
				t->netns, n, cg_choice_name(c), n > 1 ? "s" : "");
		else if (n)
			cg_info("%s was gone: removed the state of its %s guard", where,
				cg_choice_name(c));
		total += n;
	}
	return total;
}

int cg_cmd_detach(const char *dev, const char *netns)
{
	struct cg_ack ack = {};
	enum cg_choice c;
	struct cg_target t;
	bool any = false;
	char where[128];
	int err;

	cg_target_where(&(struct cg_target){ .dev = dev, .netns = netns }, where, sizeof(where));
	if (cg_cli_need_root("detach"))
		return 1;
	if (cg_lock_host(&ack)) {
		cg_err("cannot detach from %s: %s", where, ack.msg);
		return 1;
	}
	/* a device or a namespace that is gone is not guarded any more */
	err = cg_target_resolve_gone(&t, dev, netns, &ack);
	if (err == -ENODEV || err == -ENOENT) {
		err = cg_detach_gone(&t, where);
		if (err < 0)
			return 1;
		if (!err)
			cg_info("%s: %s, and no guard recorded under that name", where,
				t.netns_ino ? "no such device" : "no such network namespace");
		return 0;
	}
	if (err) {
		cg_err("cannot detach from %s: %s", where, cg_ack_why(&ack, err));
		return 1;
	}
	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++) {
		err = cg_backends[c]->detach(&t, &ack);
		if (!err) {
			any = true;
			cg_info("detached from %s (%s)", where, cg_choice_name(c));
		} else if (err != -ENOENT) {
			cg_err("cannot detach from %s (%s): %s", where, cg_choice_name(c),
			       cg_ack_why(&ack, err));
			return 1;
		}
	}
	/* a device of that name that was deleted and made again */
	err = cg_detach_gone(&t, where);
	if (err < 0)
		return 1;
	if (!any && !err)
		cg_info("%s is not guarded", where);
	return 0;
}

/*
 * A walk over every guard of one namespace or of the host: one(c, t, arg)
 * for each; a backend that cannot list its guards somewhere is said here
 * and counted as failed.
 */
struct cg_walk {
	void (*one)(enum cg_choice c, const struct cg_target *t, void *arg);
	void *arg;
	const char *label;	/* the namespace being walked, NULL: ours */
	int failed;
};

static int cg_walk_one(enum cg_choice c, const struct cg_target *t, int err, void *arg)
{
	struct cg_walk *w = arg;

	if (!t) {
		cg_err("cannot list the %s guards of netns %s: %s", cg_choice_name(c),
		       w->label ?: "(ours)", strerror(-err));
		w->failed++;
		return 0;
	}
	w->one(c, t, w->arg);
	return 0;
}

static int cg_walk_here(const char *label, __u64 ino, void *arg)
{
	struct cg_walk *w = arg;

	w->label = label;
	return cg_each_guard_here(label, ino, cg_walk_one, w);
}

/* What guards of devices or namespaces that are gone left: in namespace
 * ino, or (0) in every one. Under the host lock. */
static void cg_prune_gone(__u64 ino)
{
	enum cg_choice c;

	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++)
		if (cg_backends[c]->prune)
			cg_backends[c]->prune(ino);
}

/*
 * Under the host lock, the walk w in the namespace netns names, or (netns
 * NULL) in ours and then in every other one of the host; first, what is
 * gone there is dropped (an attach or detach drops it only in the
 * namespace it acts on). A namespace that is not there (an `ip netns` name
 * or a path that leads nowhere: gone, or never made): -ENOENT, *gone set,
 * the lock held.
 */
static int cg_walk_locked(const char *netns, struct cg_walk *w, bool *gone, struct cg_ack *ack)
{
	struct cg_target t;
	int err;

	*gone = false;
	err = cg_lock_host(ack);
	if (err)
		return err;
	err = cg_target_resolve_gone(&t, NULL, netns, ack);
	*gone = err == -ENOENT && netns;
	if (err)
		return err;
	cg_prune_gone(netns ? t.netns_ino : 0);
	cg_walk_here(netns, t.netns_ino, w);
	return netns ? 0 : cg_state_each_netns(NULL, cg_walk_here, w, ack);
}

struct cg_detach_all {
	int detached;
	int failed;
};

static void cg_detach_one(enum cg_choice c, const struct cg_target *t, void *arg)
{
	struct cg_detach_all *d = arg;
	struct cg_ack ack = {};
	char where[512];
	int err;

	cg_target_where(t, where, sizeof(where));
	err = cg_backends[c]->detach(t, &ack);
	if (!err) {
		d->detached++;
		cg_info("detached from %s (%s)", where, cg_choice_name(c));
	} else if (err != -ENOENT) {
		cg_err("cannot detach from %s (%s): %s", where, cg_choice_name(c),
		       cg_ack_why(&ack, err));
		d->failed++;
	}
}

int cg_cmd_detach_all(const char *netns)
{
	struct cg_detach_all d = {};
	struct cg_walk w = { .one = cg_detach_one, .arg = &d };
	struct cg_ack ack = {};
	char where[512];
	bool gone;
	int err, n;

	cg_target_where(&(struct cg_target){ .netns = netns }, where, sizeof(where));
	if (cg_cli_need_root("detach --all"))
		return 1;
	err = cg_walk_locked(netns, &w, &gone, &ack);
	if (gone) {
		/* as detach DEV: a namespace that is gone has nothing guarded */
		n = cg_detach_gone(&(struct cg_target){ .netns = netns }, where);
		if (!n)
			cg_info("%s: no such network namespace, and no guard recorded under that name",
				where);
		return n < 0;
	}
	d.failed += w.failed;
	if (err) {
		cg_err("cannot detach from %s: %s", netns ? where : "every namespace",
		       cg_ack_why(&ack, err));
		return 1;
	}
	if (!d.detached && !d.failed)
		cg_info("nothing guarded in %s%s", netns ? "netns " : "any namespace",
			netns ? cg_text_safe(netns, where, sizeof(where)) : "");
	else if (!d.failed)
		cg_info("detached %d guard%s", d.detached, d.detached == 1 ? "" : "s");
	return d.failed ? 1 : 0;
}

struct cg_upgrade {
	int moved, current, kept, failed;
};

/*
 * cg_each_guard_here(): move one guard to this loader's program with the
 * options it has (cg_bpf_attach converges it, counters kept), or say why
 * it stays: a module's hooks are the loaded module's code, and a program
 * from --object is the provisioner's choice.
 */
static void cg_upgrade_one(enum cg_choice c, const struct cg_target *t, void *arg)
{
	struct cg_upgrade *u = arg;
	struct cg_attach_opts o = {};
	struct cg_status was, now;
	struct cg_ack ack = {};
	char where[512], what[192];
	int err;

	cg_target_where(t, where, sizeof(where));
	if (cg_backends[c]->status(t, &was) || !was.attached)
		return;
	if (c == CG_CHOICE_KMOD) {
		cg_info("kept %s: the loaded module (csum_guard %s) guards it",
			where, *was.module_version ? was.module_version : "?");
		u->kept++;
		return;
	}
	if (was.from_object) {
		cg_info("kept %s: its program came from --object (attach --object moves it)", where);
		u->kept++;
		return;
	}
	o.log_drops = was.log_drops;
	o.egress = was.egress;
	err = cg_backends[c]->attach(t, &o, &ack);
	if (!err)
		err = cg_backends[c]->status(t, &now);
	if (err) {
		cg_err("cannot upgrade %s: %s", where, cg_ack_why(&ack, err));
		u->failed++;
		return;
	}
	if (cg_code_moved(&was, &now)) {
		cg_code_text(&was, &now, what, sizeof(what));
		cg_info("upgraded %s%s", where, what);
		u->moved++;
	} else {
		u->current++;
	}
}

int cg_cmd_upgrade(void)
{
	struct cg_upgrade u = {};
	struct cg_walk w = { .one = cg_upgrade_one, .arg = &u };
	struct cg_ack ack = {};
	bool gone;
	int err;

	if (cg_cli_need_root("upgrade"))
		return 1;
	err = cg_walk_locked(NULL, &w, &gone, &ack);
	u.failed += w.failed;
	if (err) {
		cg_err("cannot upgrade every namespace: %s", cg_ack_why(&ack, err));
		return 1;
	}
	cg_info("upgraded %d guard%s to csum-guard %s; %d ran it already, %d kept%s",
		u.moved, u.moved == 1 ? "" : "s", CG_VERSION, u.current, u.kept,
		u.failed ? "; some failed" : "");
	return u.failed ? 1 : 0;
}
