// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * backends.c - the table of backends and the questions every command asks
 * of all of them (backends.h): which guards a device, what the host
 * offers, which devices are guarded in a namespace.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "netns.h"
#include "backends.h"

const struct cg_backend *const cg_backends[CG_CHOICE_KMOD + 1] = {
	[CG_CHOICE_BPF] = &cg_backend_bpf,
	[CG_CHOICE_KMOD] = &cg_backend_kmod,
};

/* Which backend guards t now, if any. */
enum cg_choice cg_guarded_by(const struct cg_target *t, struct cg_status *st)
{
	enum cg_choice c;

	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++) {
		if (!cg_backends[c]->status(t, st) && st->attached)
			return c;
	}
	memset(st, 0, sizeof(*st));
	return CG_CHOICE_NONE;
}

void cg_probe_all(struct cg_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->root = geteuid() == 0;
	cg_backend_bpf.probe(p);
	cg_backend_kmod.probe(p);
}

void cg_probe_quick(struct cg_probe *p, enum cg_choice want)
{
	memset(p, 0, sizeof(*p));
	p->root = geteuid() == 0;
	if (want != CG_CHOICE_KMOD)
		cg_backend_bpf.probe_quick(p);
	/* auto takes the bpf backend where it can run: the module only if not */
	if (want == CG_CHOICE_KMOD || (want == CG_CHOICE_NONE && *p->bpf_err))
		cg_backend_kmod.probe_quick(p);
}

/* ", egress, log-drops": the options a guard has, for messages */
const char *cg_opts_text(const struct cg_status *st)
{
	return st->egress && st->log_drops ? ", egress, log-drops" :
	       st->egress ? ", egress" : st->log_drops ? ", log-drops" : "";
}

/* if_indextoname() through a socket of the namespace opened once, not one per call */
static const char *cg_ifname(int sock, int ifindex, char name[IF_NAMESIZE])
{
	struct ifreq ifr = { .ifr_ifindex = ifindex };

	if (sock < 0)
		return if_indextoname(ifindex, name);
	if (ioctl(sock, SIOCGIFNAME, &ifr))
		return NULL;
	snprintf(name, IF_NAMESIZE, "%s", ifr.ifr_name);
	return name;
}

int cg_each_guard_here(const char *label, __u64 ino, cg_guard_fn fn, void *arg)
{
	static int ifindexes[CG_MAX_LIST];
	struct cg_target t = { .netns = label, .netns_ino = ino };
	char name[IF_NAMESIZE];
	enum cg_choice c;
	int i, n, sock, err = 0;

	/* once for the namespace, not per guard (a socket each time) */
	if (cg_netns_cookie(&t.netns_cookie))
		t.netns_cookie = 0;
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD && !err; c++) {
		n = cg_backends[c]->list(ifindexes, CG_MAX_LIST);
		if (n < 0) {
			err = fn(c, NULL, n, arg);
			continue;
		}
		for (i = 0; i < n && !err; i++) {
			t.ifindex = ifindexes[i];
			t.dev = cg_ifname(sock, t.ifindex, name) ?: "?";
			err = fn(c, &t, 0, arg);
		}
	}
	if (sock >= 0)
		close(sock);
	return err;
}

