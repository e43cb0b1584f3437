// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * backend.c - the kernel-module backend.
 *
 * csum_guard.ko guards a device with a netfilter NETDEV ingress hook (and an
 * egress hook with CG_F_EGRESS, where the kernel has one) and is
 * driven over its generic netlink family CG_GENL_NAME, with plain netlink
 * sockets (no libnl/libmnl). Every operation opens its own socket in the
 * current network namespace, which main.c has already made the target's:
 * the module acts on the namespace of the requesting socket.
 *
 * This file holds the backend's operations on devices and its table; the
 * family is genl.c's, the probe probe.c's (kmod.h between them).
 *
 * Only attach loads the module (modprobe, once, when the family is
 * missing). probe, status, detach and list first look at
 * /sys/module/csum_guard, so they never load it as a side effect: resolving
 * the family would, through the module's genl family alias.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/netlink.h>

#include "log.h"
#include "nl.h"
#include "backend.h"
#include "csum_guard_genl.h"
#include "kmod.h"

/*
 * The module, or the kernel under it, cannot do --egress: say which.
 * Modules that predate it answer INFO without FLAGS.
 */
static int cg_kmod_no_egress(const struct cg_genl *nl, struct cg_ack *ack)
{
	struct utsname u;

	if (!nl->flags)
		return cg_ack_err(ack, -EOPNOTSUPP,
				  "module %s is too old for --egress (reload it from the matching csum-guard package)",
				  CG_KMOD_NAME);
	return cg_ack_err(ack, -EOPNOTSUPP,
			  "kernel %s has no netfilter egress hook for --egress (CONFIG_NETFILTER_EGRESS, 5.16+)",
			  uname(&u) ? "?" : u.release);
}

/*
 * Load the module when its family is missing, then attach. -ENOPKG: the
 * module could not be loaded; -EPROTO: it speaks another ABI;
 * -EOPNOTSUPP: it cannot do what was asked here.
 */
static int cg_kmod_attach(const struct cg_target *t, const struct cg_attach_opts *o,
			  struct cg_ack *ack)
{
	__u32 flags = (o->log_drops ? CG_F_LOG_DROPS : 0) | (o->egress ? CG_F_EGRESS : 0);
	struct cg_genl nl;
	int ret;

	ret = cg_genl_open_load(&nl);
	if (ret)
		return cg_kmod_why(ret, &nl, ack);
	if ((flags & CG_F_EGRESS) && !(nl.flags & CG_F_EGRESS))
		ret = cg_kmod_no_egress(&nl, ack);
	else
		ret = cg_genl_dev_cmd(&nl, CG_CMD_ATTACH, t->ifindex, &flags, NULL, NULL);
	cg_genl_close(&nl);
	return ret;
}


static int cg_kmod_detach(const struct cg_target *t, struct cg_ack *ack)
{
	struct cg_genl nl;
	int ret;

	ret = cg_genl_open_loaded(&nl);
	if (ret)
		return ret == -ENOENT ? ret : cg_kmod_why(ret, &nl, ack);
	ret = cg_genl_dev_cmd(&nl, CG_CMD_DETACH, t->ifindex, NULL, NULL, NULL);
	cg_genl_close(&nl);
	return ret;
}

static int cg_kmod_status_cb(const struct nlattr *const *tb, void *arg)
{
	struct cg_status *st = arg;

	st->attached = true;
	st->log_drops = cg_nla_uint(tb[CG_A_FLAGS]) & CG_F_LOG_DROPS;
	st->egress = cg_nla_uint(tb[CG_A_FLAGS]) & CG_F_EGRESS;
	st->dropped = cg_nla_uint(tb[CG_A_DROPPED]);
	st->dropped_unreadable = cg_nla_uint(tb[CG_A_DROPPED_UNREADABLE]);
	/* a module before drop events does not say */
	st->first_known = tb[CG_A_FIRST];
	st->first_ingress = cg_nla_uint(tb[CG_A_FIRST]) & CG_FIRST_INGRESS;
	st->reordered = cg_nla_uint(tb[CG_A_REORDERED]);
	return 0;
}

/* The loaded module's MODULE_VERSION, "" when it cannot be read. */
static void cg_kmod_version(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/csum_guard/version", "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int cg_kmod_status(const struct cg_target *t, struct cg_status *st)
{
	struct cg_genl nl;
	int ret;

	memset(st, 0, sizeof(*st));
	snprintf(st->mode, sizeof(st->mode), "netfilter");
	ret = cg_genl_open_loaded(&nl);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	ret = cg_genl_dev_cmd(&nl, CG_CMD_GET, t->ifindex, NULL, cg_kmod_status_cb, st);
	cg_genl_close(&nl);
	if (ret == -ENOENT) {
		st->attached = false;
		return 0;
	}
	if (!ret)
		cg_kmod_version(st->module_version, sizeof(st->module_version));
	return ret;
}

struct cg_kmod_list {
	int *ifindexes;
	int max;
	int n;
};

static int cg_kmod_list_cb(const struct nlattr *const *tb, void *arg)
{
	struct cg_kmod_list *l = arg;

	if (tb[CG_A_IFINDEX] && l->n < l->max)
		l->ifindexes[l->n++] = cg_nla_uint(tb[CG_A_IFINDEX]);
	return 0;
}

/* Up to max guarded ifindexes of the current namespace, or -errno. */
static int cg_kmod_list(int *ifindexes, int max)
{
	struct cg_kmod_list l = { .ifindexes = ifindexes, .max = max };
	struct cg_nl_msg r;
	struct cg_genl nl;
	int ret, tries;

	ret = cg_genl_open_loaded(&nl);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	/* a device guarded or gone in the middle of the dump: again, a few times */
	for (tries = 0; tries < 8; tries++) {
		l.n = 0;
		cg_genl_msg(&r, nl.family, CG_CMD_GET, NLM_F_DUMP);
		ret = cg_genl_talk(&nl, &r, cg_kmod_list_cb, &l);
		if (ret != -EAGAIN)
			break;
	}
	cg_genl_close(&nl);
	return ret ? ret : l.n;
}

/* The module drops a device's state when the device goes (NETDEV_UNREGISTER). */
static int cg_kmod_forget(const struct cg_target *t)
{
	return 0;
}

static int cg_kmod_completion_cb(const struct nlattr *const *tb, void *arg)
{
	struct cg_completion *c = arg;

	c->on = cg_nla_uint(tb[CG_A_COMPLETION]);
	c->dropped = cg_nla_uint(tb[CG_A_COMPLETION_DROPPED]);
	c->dropped_unreadable = cg_nla_uint(tb[CG_A_COMPLETION_UNREADABLE]);
	c->has_others = tb[CG_A_COMPLETION_OTHERS];
	c->others = cg_nla_uint(tb[CG_A_COMPLETION_OTHERS]);
	return 0;
}

int cg_kmod_completion(int want, struct cg_completion *c, struct cg_ack *ack)
{
	struct utsname u;
	struct cg_nl_msg r;
	struct cg_genl nl;
	__u32 on = want > 0;
	int ret;

	memset(c, 0, sizeof(*c));
	/* reading never loads the module; switching on does */
	ret = want > 0 ? cg_genl_open_load(&nl) : cg_genl_open_loaded(&nl);
	if (ret == -ENOENT)
		return 0;	/* not loaded: off */
	if (ret)
		return cg_kmod_why(ret, &nl, ack);
	if (nl.completion < 0) {
		cg_genl_close(&nl);
		/* read: off (the probe says why it cannot be on); switched: refused */
		if (want < 0)
			return 0;
		return cg_ack_err(ack, -EOPNOTSUPP,
				  "module %s cannot have the completion guard on kernel %s (a module that predates it, or a kernel without DYNAMIC_FTRACE_WITH_REGS)",
				  CG_KMOD_NAME, uname(&u) ? "?" : u.release);
	}
	cg_genl_msg(&r, nl.family, CG_CMD_COMPLETION, 0);
	if (want >= 0)
		cg_nl_put(&r, CG_A_COMPLETION, &on, sizeof(on));
	ret = cg_genl_talk(&nl, &r, cg_kmod_completion_cb, c);
	cg_genl_close(&nl);
	if (ret == -EBUSY || ret == -EEXIST)
		return cg_ack_err(ack, ret, "skb_checksum_help() is already redirected by another ftrace user (a live patch?): %s",
				  strerror(-ret));
	return ret;
}

const struct cg_backend cg_backend_kmod = {
	.name = "kmod",
	.probe = cg_kmod_probe_all,
	.probe_quick = cg_kmod_probe,
	.attach = cg_kmod_attach,
	.detach = cg_kmod_detach,
	.forget = cg_kmod_forget,
	.status = cg_kmod_status,
	.list = cg_kmod_list,
};
