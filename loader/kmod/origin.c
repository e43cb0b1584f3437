// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Which csum_guard.ko: prebuilt or DKMS, its version and its signer, for
 * probe. Read-only: modinfo on the file modprobe resolves, and the loaded
 * module's srcversion to tell whether that file is what runs.
 */
#include <stdio.h>
#include <string.h>
#include "modprobe.h"
#include "kmod/origin.h"
#include "csum_guard_genl.h"

static void cg_origin_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, n, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void cg_kmod_origin(struct cg_kmod_origin *o)
{
	char loaded[64], built[64];

	memset(o, 0, sizeof(*o));
	o->is_loaded = -1;
	if (cg_modinfo(CG_KMOD_NAME, "filename", o->file, sizeof(o->file)) || *o->file != '/') {
		o->file[0] = '\0';
		return;
	}
	if (strstr(o->file, "/updates/csum-guard/"))
		o->origin = "prebuilt";
	else if (strstr(o->file, "/updates/dkms/"))
		o->origin = "dkms";
	else
		o->origin = "other";
	if (cg_modinfo(o->file, "version", o->version, sizeof(o->version)))
		o->version[0] = '\0';
	if (cg_modinfo(o->file, "signer", o->signer, sizeof(o->signer)))
		o->signer[0] = '\0';
	cg_origin_line("/sys/module/" CG_KMOD_NAME "/srcversion", loaded, sizeof(loaded));
	if (!*loaded || cg_modinfo(o->file, "srcversion", built, sizeof(built)) || !*built)
		return;
	o->is_loaded = !strcmp(loaded, built);
	/* srcversion sums the sources only: two releases of the same sources
	 * differ by their version alone */
	cg_origin_line("/sys/module/" CG_KMOD_NAME "/version", loaded, sizeof(loaded));
	if (o->is_loaded && strcmp(loaded, o->version))
		o->is_loaded = 0;
}
