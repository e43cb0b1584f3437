/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kmod.h - between the files of the kernel-module backend, private to
 * loader/kmod/: the module's generic netlink family (genl.c), what the
 * kernel and the module offer (probe.c), and the backend's operations on
 * devices (backend.c).
 */
#ifndef CG_KMOD_KMOD_H
#define CG_KMOD_KMOD_H

#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "nl.h"
#include "backend.h"

#define CG_SYS_MODULE	"/sys/module/" CG_KMOD_NAME

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

/* genl.c: talking to the module */
void cg_genl_msg(struct cg_nl_msg *m, __u16 family, __u8 cmd, __u16 flags);
int cg_genl_talk(struct cg_genl *g, struct cg_nl_msg *m, cg_genl_cb cb, void *arg);
int cg_genl_open(struct cg_genl *nl);
void cg_genl_close(struct cg_genl *nl);
int cg_genl_dev_cmd(struct cg_genl *nl, __u8 cmd, int ifindex, const __u32 *flags,
		    cg_genl_cb cb, void *arg);
int cg_genl_open_load(struct cg_genl *nl);
int cg_genl_open_loaded(struct cg_genl *nl);
int cg_kmod_why(int err, const struct cg_genl *nl, struct cg_ack *ack);

/* probe.c: the backend's probe, in full and quick */
void cg_kmod_probe(struct cg_probe *p);
void cg_kmod_probe_all(struct cg_probe *p);
const char *cg_kmod_lockdown(char *buf, size_t n);
int cg_kmod_secure_boot(void);

#endif /* CG_KMOD_KMOD_H */
