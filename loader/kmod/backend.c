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
 * Only attach loads the module (modprobe, once, when the family is
 * missing). probe, status, detach and list first look at
 * /sys/module/csum_guard, so they never load it as a side effect: resolving
 * the family would, through the module's genl family alias.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <bpf/btf.h>

#include "log.h"
#include "modprobe.h"
#include "nl.h"
#include "backend.h"
#include "csum_guard_genl.h"

#define CG_SYS_MODULE	"/sys/module/" CG_KMOD_NAME
#define CG_NL_MAXATTR	31	/* above CTRL_ATTR_MAX and CG_A_MAX */

struct cg_genl {
	int fd;
	__u16 family;
	__u32 abi;
	__u32 flags;		/* what ATTACH can do; 0: the module does not say */
	int completion;		/* INFO: -1 the module cannot have the
				 * completion guard, else whether it is on */
};

/* Called for every data message of a reply, tb indexed by attribute type. */
typedef int (*cg_genl_cb)(const struct nlattr *const *tb, void *arg);

static void cg_genl_msg(struct cg_nl_msg *m, __u16 family, __u8 cmd, __u16 flags)
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
static int cg_genl_talk(struct cg_genl *g, struct cg_nl_msg *m, cg_genl_cb cb, void *arg)
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

static void cg_genl_close(struct cg_genl *nl)
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
static int cg_genl_open(struct cg_genl *nl)
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
static int cg_genl_dev_cmd(struct cg_genl *nl, __u8 cmd, int ifindex, const __u32 *flags,
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

/* The first line of file path into buf ("" if it cannot be read) */
static void cg_read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	*buf = '\0';
	if (f) {
		if (!fgets(buf, n, f))
			*buf = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Does this kernel load only signed modules, and why: module.sig_enforce
 * (CONFIG_MODULE_SIG_FORCE or the command line) or a lockdown of
 * integrity or confidentiality (Secure Boot turns it on). NULL: it does not.
 */
static const char *cg_sig_enforced(char *buf, size_t n)
{
	char *sel;

	cg_read_line("/sys/module/module/parameters/sig_enforce", buf, n);
	if (!strcmp(buf, "Y"))
		return "module.sig_enforce=1";
	/* "none [integrity] confidentiality" */
	cg_read_line("/sys/kernel/security/lockdown", buf, n);
	sel = strchr(buf, '[');
	if (sel && strncmp(sel, "[none]", 6)) {
		sel[strcspn(sel, "]") + 1] = '\0';
		memmove(buf, "lockdown ", 9);
		memmove(buf + 9, sel, strlen(sel) + 1);
		return buf;
	}
	return NULL;
}

/* Is there a key described "SIGNER: ..." in a keyring root can see? -1: cannot tell */
static int cg_key_present(const char *signer)
{
	char line[512], *d;
	size_t len = strlen(signer);
	int found = 0;
	FILE *f = fopen("/proc/keys", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " asymmetric "))
			continue;
		d = strstr(line, " asymmetric ") + 12;
		while (*d == ' ')
			d++;
		if (!strncmp(d, signer, len) && d[len] == ':') {
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Where the kernel loads only signed modules, modprobe -n says nothing of
 * it: an unsigned module, or one signed by a key none of the kernel's
 * keyrings holds (DKMS's own, not enrolled), is refused at load. Said in
 * p->kmod_err, and the module not loadable.
 */
static void cg_kmod_probe_sig(struct cg_probe *p, const char *kver)
{
	char enf[96], signer[128];
	const char *why = cg_sig_enforced(enf, sizeof(enf));

	if (!why)
		return;
	if (cg_modinfo(CG_KMOD_NAME, "signer", signer, sizeof(signer)))
		return;		/* no modinfo: the load will tell */
	if (!*signer) {
		snprintf(p->kmod_err, sizeof(p->kmod_err),
			 "module %s is not signed, and kernel %.40s loads only signed modules (%s)",
			 CG_KMOD_NAME, kver, why);
	} else if (cg_key_present(signer) == 0) {
		snprintf(p->kmod_err, sizeof(p->kmod_err),
			 "module %s is signed by '%.48s', whose key kernel %.40s does not hold, and it loads only signed modules (%.40s)",
			 CG_KMOD_NAME, signer, kver, why);
	}
	if (*p->kmod_err)
		p->kmod_loadable = false;
}

static void cg_kmod_probe(struct cg_probe *p)
{
	struct utsname u;
	const char *kver = uname(&u) ? "?" : u.release;
	struct cg_genl nl;
	int ret;

	p->kmod_err[0] = '\0';
	p->kmod_loaded = !access(CG_SYS_MODULE, F_OK);
	if (p->kmod_loaded) {
		p->kmod_loadable = true;
		ret = cg_genl_open(&nl);
		cg_genl_close(&nl);
		if (ret == -EPROTO)
			snprintf(p->kmod_err, sizeof(p->kmod_err),
				 "module %s is loaded but does not speak ABI %d (reload it from the matching csum-guard package)",
				 CG_KMOD_NAME, CG_ABI_VERSION);
		else if (ret)
			snprintf(p->kmod_err, sizeof(p->kmod_err),
				 "module %s is loaded but its netlink family does not answer: %s",
				 CG_KMOD_NAME, strerror(-ret));
		return;
	}
	ret = cg_modprobe(CG_KMOD_NAME, true, NULL, 0);
	p->kmod_loadable = !ret;
	if (!ret) {
		cg_kmod_probe_sig(p, kver);
		return;
	}
	if (access("/proc/modules", F_OK))
		snprintf(p->kmod_err, sizeof(p->kmod_err),
			 "kernel %.40s has no loadable module support", kver);
	else if (ret == -ENOEXEC)
		snprintf(p->kmod_err, sizeof(p->kmod_err),
			 "modprobe not found, cannot load module %s", CG_KMOD_NAME);
	else
		snprintf(p->kmod_err, sizeof(p->kmod_err),
			 "module %s not found for kernel %.40s (install the csum-guard DKMS package)",
			 CG_KMOD_NAME, kver);
}

/*
 * Can the module guard egress here? The loaded module says so in INFO's
 * FLAGS (modules that predate egress answer without FLAGS); before it is
 * loaded the kernel's BTF does: the hook exists where struct net_device
 * has nf_hooks_egress (CONFIG_NETFILTER_EGRESS, 5.16+), and the module is
 * built with it exactly there (kmod/compat.h).
 */
static void cg_kmod_probe_egress(struct cg_probe *p)
{
	const char *kver, *why = NULL;
	const struct btf_type *t;
	const struct btf_member *m;
	struct utsname u;
	struct btf *btf;
	struct cg_genl nl;
	int id, i, ret;

	kver = uname(&u) ? "?" : u.release;
	if (*p->kmod_err) {
		snprintf(p->kmod_egress_err, sizeof(p->kmod_egress_err), "%s", p->kmod_err);
		return;
	}
	if (p->kmod_loaded) {
		ret = cg_genl_open(&nl);
		if (ret)
			why = "its netlink family does not answer";
		else if (!nl.flags)
			why = "module " CG_KMOD_NAME " is too old for it";
		else if (!(nl.flags & CG_F_EGRESS))
			why = "no netfilter egress hook";
		if (!ret)
			cg_genl_close(&nl);
	} else {
		btf = btf__load_vmlinux_btf();
		id = btf ? btf__find_by_name_kind(btf, "net_device", BTF_KIND_STRUCT) : -1;
		if (id <= 0) {
			why = "no kernel BTF to tell before module " CG_KMOD_NAME " is loaded";
		} else {
			t = btf__type_by_id(btf, id);
			m = btf_members(t);
			why = "no netfilter egress hook";
			for (i = 0; i < btf_vlen(t); i++, m++)
				if (!strcmp(btf__name_by_offset(btf, m->name_off), "nf_hooks_egress"))
					why = NULL;
		}
		btf__free(btf);
	}
	if (why && !strcmp(why, "no netfilter egress hook"))
		snprintf(p->kmod_egress_err, sizeof(p->kmod_egress_err),
			 "kernel %.40s has no netfilter egress hook (CONFIG_NETFILTER_EGRESS, 5.16+)", kver);
	else if (why)
		snprintf(p->kmod_egress_err, sizeof(p->kmod_egress_err), "%s", why);
}

/*
 * Can the module have the completion guard here? The loaded module says
 * so in INFO; before it is loaded, a kernel with function tracing
 * (/proc/sys/kernel/ftrace_enabled) is taken to, and switching it on tells.
 */
static void cg_kmod_probe_completion(struct cg_probe *p)
{
	struct cg_genl nl;

	if (*p->kmod_err) {
		snprintf(p->completion_err, sizeof(p->completion_err), "%s", p->kmod_err);
		return;
	}
	if (!p->kmod_loaded) {
		if (access("/proc/sys/kernel/ftrace_enabled", F_OK))
			snprintf(p->completion_err, sizeof(p->completion_err),
				 "kernel without function tracing (CONFIG_DYNAMIC_FTRACE_WITH_REGS)");
		return;
	}
	if (cg_genl_open(&nl)) {
		snprintf(p->completion_err, sizeof(p->completion_err),
			 "module %s does not answer", CG_KMOD_NAME);
		return;
	}
	if (nl.completion < 0)
		snprintf(p->completion_err, sizeof(p->completion_err),
			 "module %s cannot have it here (a module that predates it, or a kernel without DYNAMIC_FTRACE_WITH_REGS)",
			 CG_KMOD_NAME);
	p->completion_on = nl.completion > 0;
	cg_genl_close(&nl);
}

static void cg_kmod_probe_all(struct cg_probe *p)
{
	cg_kmod_probe(p);
	cg_kmod_probe_egress(p);
	cg_kmod_probe_completion(p);
}

void cg_kmod_probe_completion_only(struct cg_probe *p)
{
	cg_kmod_probe(p);
	cg_kmod_probe_completion(p);
}

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

/* What modprobe said when the module last failed to load: the kernel's reason */
static char cg_kmod_load_err[192];

/* The reasons of cg_genl_open() and of loading the module, in words. */
static int cg_kmod_why(int err, const struct cg_genl *nl, struct cg_ack *ack)
{
	struct utsname u;

	if (err == -ENOPKG && *cg_kmod_load_err && !strstr(cg_kmod_load_err, "not found"))
		return cg_ack_err(ack, err, "module %s cannot be loaded into kernel %s: %s",
				  CG_KMOD_NAME, uname(&u) ? "?" : u.release, cg_kmod_load_err);
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
static int cg_genl_open_load(struct cg_genl *nl)
{
	int ret = cg_genl_open(nl);

	if (ret == -ENOENT)
		ret = cg_modprobe(CG_KMOD_NAME, false, cg_kmod_load_err, sizeof(cg_kmod_load_err)) ?
		      -ENOPKG : cg_genl_open(nl);
	return ret == -ENOENT ? -ENOPKG : ret;
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

/*
 * Open the family only where the module is loaded: a query must not load
 * it (the family's alias would). -ENOENT: not loaded, nothing is guarded.
 */
static int cg_genl_open_loaded(struct cg_genl *nl)
{
	if (!cg_kmod_maybe_loaded())
		return -ENOENT;
	return cg_genl_open(nl);
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
