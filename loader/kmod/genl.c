// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * genl.c - the kernel-module backend's link to csum_guard.ko: its generic
 * netlink family CG_GENL_NAME over plain netlink sockets (no libnl or
 * libmnl), resolved and checked for the ABI this loader speaks, and
 * opened either loading the module (attach, completion on) or only where
 * it is already loaded (every query). Each socket is opened in the current
 * network namespace: the module acts on the requesting socket's.
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "log.h"
#include "modprobe.h"
#include "nl.h"
#include "backend.h"
#include "csum_guard_genl.h"
#include "kmod.h"

#define CG_NL_MAXATTR	31	/* above CTRL_ATTR_MAX and CG_A_MAX */

void cg_genl_msg(struct cg_nl_msg *m, __u16 family, __u8 cmd, __u16 flags)
{
	struct genlmsghdr gh = {
		.cmd = cmd,
		.version = family == GENL_ID_CTRL ? 1 : CG_GENL_VERSION,
	};

	cg_nl_msg_init(m, family, flags, &gh, sizeof(gh));
}

struct cg_genl_walk {
	cg_genl_cb cb;
	void *arg;
};

static int cg_genl_each(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[CG_NL_MAXATTR + 1];
	struct cg_genl_walk *w = arg;

	if (nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return 0;
	cg_nl_parse(nh, GENL_HDRLEN, tb, CG_NL_MAXATTR);
	return w->cb(tb, w->arg);
}

/* Send m and read its answer, each data message's attributes to cb. */
int cg_genl_talk(struct cg_genl *g, struct cg_nl_msg *m, cg_genl_cb cb, void *arg)
{
	struct cg_genl_walk w = { .cb = cb, .arg = arg };

	return cg_nl_talk(g->fd, m, cb ? cg_genl_each : NULL, &w);
}

static int cg_genl_family_cb(const struct nlattr *const *tb, void *arg)
{
	*(__u16 *)arg = cg_nla_uint(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

static int cg_genl_info_cb(const struct nlattr *const *tb, void *arg)
{
	struct cg_genl *nl = arg;

	nl->abi = cg_nla_uint(tb[CG_A_ABI_VERSION]);
	nl->flags = cg_nla_uint(tb[CG_A_FLAGS]);
	nl->completion = tb[CG_A_COMPLETION] ? (int)cg_nla_uint(tb[CG_A_COMPLETION]) : -1;
	return 0;
}

void cg_genl_close(struct cg_genl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/*
 * Open a socket, resolve the family and check the module's ABI version.
 * -ENOENT: the family does not exist (module not loaded); -EPROTO: the
 * module speaks another ABI than this loader.
 */
int cg_genl_open(struct cg_genl *nl)
{
	struct cg_nl_msg r;
	int ret;

	nl->family = 0;
	nl->abi = 0;
	nl->flags = 0;
	nl->fd = cg_nl_socket(NETLINK_GENERIC, 0, 0);
	if (nl->fd < 0)
		return nl->fd;

	cg_genl_msg(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	cg_nl_put(&r, CTRL_ATTR_FAMILY_NAME, CG_GENL_NAME, sizeof(CG_GENL_NAME));
	ret = cg_genl_talk(nl, &r, cg_genl_family_cb, &nl->family);
	if (!ret && !nl->family)
		ret = -EPROTO;
	if (!ret) {
		cg_genl_msg(&r, nl->family, CG_CMD_INFO, 0);
		ret = cg_genl_talk(nl, &r, cg_genl_info_cb, nl);
	}
	if (!ret && nl->abi != CG_ABI_VERSION)
		ret = -EPROTO;
	if (ret)
		cg_genl_close(nl);
	return ret;
}

/* A command about one device; flags only when non-NULL. */
int cg_genl_dev_cmd(struct cg_genl *nl, __u8 cmd, int ifindex, const __u32 *flags,
		    cg_genl_cb cb, void *arg)
{
	struct cg_nl_msg r;
	__u32 idx = ifindex;

	cg_genl_msg(&r, nl->family, cmd, 0);
	cg_nl_put(&r, CG_A_IFINDEX, &idx, sizeof(idx));
	if (flags)
		cg_nl_put(&r, CG_A_FLAGS, flags, sizeof(*flags));
	return cg_genl_talk(nl, &r, cb, arg);
}

/*
 * Nothing is guarded unless the module is loaded. Without a sysfs to ask,
 * say maybe: the caller then asks the family, which may load the module.
 */
static bool cg_kmod_maybe_loaded(void)
{
	return !access(CG_SYS_MODULE, F_OK) || access("/sys/module", F_OK);
}

/* What modprobe said when the module last failed to load: the kernel's reason */
static char cg_kmod_load_err[192];

/* The reasons of cg_genl_open() and of loading the module, in words. */
int cg_kmod_why(int err, const struct cg_genl *nl, struct cg_ack *ack)
{
	struct utsname u;
	char lk[80] = "";

	/* a lockdown refuses an unsigned module with EPERM alone: say which */
	if (err == -ENOPKG && strstr(cg_kmod_load_err, "Operation not permitted"))
		cg_kmod_lockdown(lk, sizeof(lk));
	if (!strcmp(lk, "none"))
		*lk = '\0';
	if (err == -ENOPKG && *cg_kmod_load_err && !strstr(cg_kmod_load_err, "not found"))
		return cg_ack_err(ack, err, "module %s cannot be loaded into kernel %s: %s%s%s%s",
				  CG_KMOD_NAME, uname(&u) ? "?" : u.release, cg_kmod_load_err,
				  *lk ? " (lockdown " : "", lk,
				  *lk ? ": only modules signed by a key the kernel trusts load)" : "");
	if (err == -ENOPKG)
		return cg_ack_err(ack, err, "module %s cannot be loaded (is csum-guard-dkms installed for kernel %s?)%s%s",
				  CG_KMOD_NAME, uname(&u) ? "?" : u.release,
				  *cg_kmod_load_err ? ": " : "", cg_kmod_load_err);
	if (err == -EPROTO)
		return cg_ack_err(ack, err, "module %s speaks ABI %u, this loader %u: reload it from the matching csum-guard package",
				  CG_KMOD_NAME, nl->abi, CG_ABI_VERSION);
	return err;
}

/*
 * Open the family, loading the module when it is missing: 0, -ENOPKG (the
 * module could not be loaded), or cg_genl_open()'s error.
 */
int cg_genl_open_load(struct cg_genl *nl)
{
	int ret = cg_genl_open(nl);

	if (ret == -ENOENT)
		ret = cg_modprobe(CG_KMOD_NAME, false, cg_kmod_load_err, sizeof(cg_kmod_load_err)) ?
		      -ENOPKG : cg_genl_open(nl);
	return ret == -ENOENT ? -ENOPKG : ret;
}

/*
 * Open the family only where the module is loaded: a query must not load
 * it (the family's alias would). -ENOENT: not loaded, nothing is guarded.
 */
int cg_genl_open_loaded(struct cg_genl *nl)
{
	if (!cg_kmod_maybe_loaded())
		return -ENOENT;
	return cg_genl_open(nl);
}
