// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * probe.c - what the kernel-module backend can do here: whether the module
 * is loaded, or could be (modprobe -n, and a kernel that loads only signed
 * modules), and whether it can guard egress and have the completion guard.
 * The probe never loads the module: before it is loaded, the kernel's BTF
 * and tracing files answer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "log.h"
#include "modprobe.h"
#include "backend.h"
#include "csum_guard_genl.h"
#include "kmod.h"
#include "select.h"

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
 * The kernel's lockdown into buf: "none", "integrity" or "confidentiality"
 * as securityfs says it (the lockdown LSM not there: "none"); where
 * securityfs is not mounted (a minimal init or a container), the command
 * line's lockdown=, said to come from there; "" when neither tells.
 */
const char *cg_kmod_lockdown(char *buf, size_t n)
{
	char line[4096], *sel, *p, *v = NULL;

	/* "none [integrity] confidentiality" */
	cg_read_line("/sys/kernel/security/lockdown", line, sizeof(line));
	sel = strchr(line, '[');
	if (sel) {
		sel++;
		sel[strcspn(sel, "]")] = '\0';
		snprintf(buf, n, "%s", sel);
		return buf;
	}
	*buf = '\0';
	if (!access("/sys/kernel/security/lsm", F_OK)) {
		if (!*line)
			snprintf(buf, n, "none");
		return buf;
	}
	/* the last lockdown= counts, as the kernel parses them */
	cg_read_line("/proc/cmdline", line, sizeof(line));
	for (p = line; (p = strstr(p, "lockdown=")); p++)
		if (p == line || p[-1] == ' ')
			v = p + 9;
	if (v && (!strncmp(v, "integrity", 9) || !strncmp(v, "confidentiality", 15)))
		snprintf(buf, n, "%.*s, from the kernel command line", (int)strcspn(v, " "), v);
	return buf;
}

/*
 * Secure Boot as the firmware says: 1 on, 0 off, -1 not an EFI boot, -2 an
 * EFI boot whose variables cannot be read (efivarfs not mounted).
 */
int cg_kmod_secure_boot(void)
{
	static const char dir[] = "/sys/firmware/efi/efivars";
	unsigned char v[5];
	struct dirent *e;
	char path[PATH_MAX];
	int fd, on = access("/sys/firmware/efi", F_OK) ? -1 : -2;
	DIR *dp = opendir(dir);

	if (!dp)
		return on;
	while ((e = readdir(dp)))
		if (!strncmp(e->d_name, "SecureBoot-", 11)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			/* 4 bytes of attributes, then the value */
			if (fd >= 0 && read(fd, v, sizeof(v)) == sizeof(v))
				on = v[4] == 1;
			if (fd >= 0)
				close(fd);
			break;
		}
	closedir(dp);
	return on;
}

/*
 * Does this kernel load only signed modules, and why: module.sig_enforce
 * (CONFIG_MODULE_SIG_FORCE or the command line) or a lockdown of
 * integrity or confidentiality (Secure Boot turns it on). NULL: it does not.
 */
static const char *cg_sig_enforced(char *buf, size_t n)
{
	char mode[80];
	bool enforced, locked;

	cg_read_line("/sys/module/module/parameters/sig_enforce", buf, n);
	enforced = !strcmp(buf, "Y");
	cg_kmod_lockdown(mode, sizeof(mode));
	locked = *mode && strcmp(mode, "none");
	/* Debian's kernels enforce signatures and lock down under Secure Boot */
	if ((enforced || locked) && cg_kmod_secure_boot() == 1) {
		snprintf(buf, n, "Secure Boot%s%.60s", locked ? ", lockdown " : "", locked ? mode : "");
		return buf;
	}
	if (enforced)
		return "module.sig_enforce=1";
	if (!locked)
		return NULL;
	snprintf(buf, n, "lockdown %.60s", mode);
	return buf;
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
			 "module %s is signed by '%.48s', whose key kernel %.40s does not hold, and it loads only signed modules (%.60s)",
			 CG_KMOD_NAME, signer, kver, why);
	}
	if (*p->kmod_err)
		p->kmod_loadable = false;
}

void cg_kmod_probe(struct cg_probe *p)
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
 * (/proc/sys/kernel/ftrace_enabled) is taken to, unless it is one known to
 * have no tracing with registers (an arm64 from 6.2), and switching it on
 * tells.
 */
static void cg_kmod_probe_completion(struct cg_probe *p)
{
	struct utsname u;
	struct cg_genl nl;

	if (*p->kmod_err) {
		snprintf(p->completion_err, sizeof(p->completion_err), "%s", p->kmod_err);
		return;
	}
	if (!p->kmod_loaded) {
		if (access("/proc/sys/kernel/ftrace_enabled", F_OK))
			snprintf(p->completion_err, sizeof(p->completion_err),
				 "kernel without function tracing (CONFIG_DYNAMIC_FTRACE_WITH_REGS)");
		else if (!uname(&u) && cg_no_ftrace_regs(u.machine, u.release))
			snprintf(p->completion_err, sizeof(p->completion_err),
				 "kernel %.40s without function tracing with registers "
				 "(CONFIG_DYNAMIC_FTRACE_WITH_REGS: arm64 has only WITH_ARGS from 6.2)",
				 u.release);
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

void cg_kmod_probe_all(struct cg_probe *p)
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
