// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * select.c - choose a backend. Never by kernel version: by what the probe
 * found on this host. bpf wins where it runs (no module to build or trust);
 * the kernel module serves kernels without bpf_cast_to_kern_ctx.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "select.h"

int cg_parse_backend(const char *s, enum cg_choice *req)
{
	if (!strcmp(s, "auto"))
		*req = CG_CHOICE_NONE;
	else if (!strcmp(s, "bpf"))
		*req = CG_CHOICE_BPF;
	else if (!strcmp(s, "kmod"))
		*req = CG_CHOICE_KMOD;
	else
		return -EINVAL;
	return 0;
}

const char *cg_choice_name(enum cg_choice c)
{
	switch (c) {
	case CG_CHOICE_BPF:
		return "bpf";
	case CG_CHOICE_KMOD:
		return "kmod";
	default:
		return NULL;
	}
}

static bool cg_bpf_usable(const struct cg_probe *p)
{
	return p->root && p->btf && p->kfunc && p->prog_loads;
}

static bool cg_kmod_usable(const struct cg_probe *p)
{
	return p->root && (p->kmod_loaded || p->kmod_loadable);
}

static const char *cg_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

enum cg_choice cg_select(const struct cg_probe *p, enum cg_choice req,
			 char *why, size_t n)
{
	const char *bpf_no = cg_or(p->bpf_err, "unavailable");
	const char *kmod_no = cg_or(p->kmod_err, "unavailable");

	if (!p->root) {
		snprintf(why, n, "not root");
		return CG_CHOICE_NONE;
	}
	switch (req) {
	case CG_CHOICE_BPF:
		if (cg_bpf_usable(p)) {
			snprintf(why, n, "requested; kernel BTF has bpf_cast_to_kern_ctx and the tc program loads");
			return CG_CHOICE_BPF;
		}
		snprintf(why, n, "bpf backend requested but %s", bpf_no);
		return CG_CHOICE_NONE;
	case CG_CHOICE_KMOD:
		if (cg_kmod_usable(p)) {
			snprintf(why, n, "requested; module csum_guard is %s",
				 p->kmod_loaded ? "loaded" : "installed");
			return CG_CHOICE_KMOD;
		}
		snprintf(why, n, "kmod backend requested but %s", kmod_no);
		return CG_CHOICE_NONE;
	default:
		break;
	}
	if (cg_bpf_usable(p)) {
		snprintf(why, n, "kernel BTF has bpf_cast_to_kern_ctx and the tc program loads");
		return CG_CHOICE_BPF;
	}
	if (cg_kmod_usable(p)) {
		snprintf(why, n, "bpf: %s; module csum_guard is %s", bpf_no,
			 p->kmod_loaded ? "loaded" : "installed");
		return CG_CHOICE_KMOD;
	}
	snprintf(why, n, "no backend: bpf: %s; kmod: %s", bpf_no, kmod_no);
	return CG_CHOICE_NONE;
}

bool cg_no_ftrace_regs(const char *machine, const char *release)
{
	unsigned int major, minor;

	return !strcmp(machine, "aarch64") && sscanf(release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 2));
}
