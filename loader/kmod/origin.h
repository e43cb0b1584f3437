/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_KMOD_ORIGIN_H
#define CG_KMOD_ORIGIN_H

/*
 * The csum_guard.ko modprobe resolves for the running kernel: its file,
 * where it came from by its directory under /lib/modules/KVER/updates
 * ("prebuilt": csum-guard-modules' copy in csum-guard/; "dkms": built on
 * this host in dkms/; "other": anywhere else), its version and the signer
 * modinfo reads from its signature ("" when unsigned).
 */
struct cg_kmod_origin {
	char file[256];		/* "" when modprobe knows no csum_guard */
	const char *origin;	/* NULL when file is "" */
	char version[32];
	char signer[128];
	int is_loaded;		/* 1: the loaded module is this file's build,
				 * 0: another build is loaded, -1: none loaded
				 * or cannot tell */
};

void cg_kmod_origin(struct cg_kmod_origin *o);

#endif /* CG_KMOD_ORIGIN_H */
