// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* backend_kmod.c - placeholder until the kernel-module backend lands. */
#include <errno.h>
#include <stdio.h>

#include "backend.h"

static void cg_kmod_probe(struct cg_probe *p)
{
	snprintf(p->kmod_err, sizeof(p->kmod_err), "kernel-module backend not built");
}

static int cg_kmod_attach(const struct cg_target *t, const struct cg_attach_opts *o)
{
	return -EOPNOTSUPP;
}

static int cg_kmod_detach(const struct cg_target *t)
{
	return -ENOENT;
}

static int cg_kmod_status(const struct cg_target *t, struct cg_status *st)
{
	st->attached = false;
	return 0;
}

static int cg_kmod_list(int *ifindexes, int max)
{
	return 0;
}

const struct cg_backend cg_backend_kmod = {
	.name = "kmod",
	.probe = cg_kmod_probe,
	.attach = cg_kmod_attach,
	.detach = cg_kmod_detach,
	.status = cg_kmod_status,
	.list = cg_kmod_list,
};
