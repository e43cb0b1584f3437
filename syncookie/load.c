// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * load.c - the responder's object, loaded for a mode: what this kernel
 * offers it (its struct offsets, the raw cookie helpers, the request
 * socket kfunc), filled into the read-only data before the load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "cli.h"
#include "compat.h"
#include "json.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "sc.h"
#include "syncookie.skel.h"

/* The object's maps, each with the pin a responder keeps it under */
const struct sc_map_name sc_maps[SC_NMAPS] = {
	{ SC_MAP_PORTS, SC_PIN_PORTS },		{ SC_MAP_COUNTERS, SC_PIN_COUNTERS },
	{ SC_MAP_CONF, SC_PIN_CONF },		{ SC_MAP_ROUTES, SC_PIN_ROUTES },
	{ SC_MAP_ROUTES4, SC_PIN_ROUTES4 },	{ SC_MAP_ALLOW, SC_PIN_ALLOW },
	{ SC_MAP_RTAB4, SC_PIN_RTAB4 },
};

struct bpf_map **sc_obj_map(struct sc_obj *o, int i)
{
	struct bpf_map **m[SC_NMAPS] = {
		&o->ports, &o->counters, &o->conf, &o->routes, &o->routes4, &o->allow, &o->rtab4,
	};

	return m[i];
}

/*
 * Load the XDP program (xdp) or the tc one: one at a time, since a 6.1
 * verifier takes a while over each (about 20 s under QEMU's TCG). The XDP
 * one is the probe's question: does the helper work here? With ack, also
 * syncookie_ack (for tcx). With reuse, the maps already pinned for that
 * target serve the new programs.
 */
static int sc_load_once(struct sc_obj *o, bool xdp, bool tcx, bool ack,
			const struct sc_target *reuse, const struct sc_offsets *off, char *why,
			size_t why_len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "syncookie");
	char path[PATH_MAX];
	bool cast = off && off->tcp_sock_btf;
	struct bpf_program *p;
	const void *data;
	size_t size;
	int err = 0, i;

	memset(o, 0, sizeof(*o));
	data = syncookie_bpf__elf_bytes(&size);
	o->obj = bpf_object__open_mem(data, size, &opts);
	if (!o->obj) {
		snprintf(why, why_len, "cannot open the built-in object");
		return -ENOEXEC;
	}
	o->xdp = bpf_object__find_program_by_name(o->obj, cast ? SC_PROG_XDP : SC_PROG_XDP_H);
	o->tc = bpf_object__find_program_by_name(o->obj, cast ? SC_PROG_TC : SC_PROG_TC_H);
	o->ack = bpf_object__find_program_by_name(o->obj, SC_PROG_ACK);
	for (i = 0; i < SC_NMAPS; i++)
		if (!(*sc_obj_map(o, i) = bpf_object__find_map_by_name(o->obj, sc_maps[i].name)))
			break;
	if (!o->xdp || !o->tc || !o->ack || i < SC_NMAPS) {
		snprintf(why, why_len, "the built-in object lacks a program or map");
		err = -ENOEXEC;
		goto fail;
	}
	if (tcx)
		bpf_program__set_expected_attach_type(o->tc, CG_BPF_TCX_INGRESS);
	/* the one program for the hook, and syncookie_ack where wanted */
	bpf_object__for_each_program(p, o->obj)
		bpf_program__set_autoload(p, p == (xdp ? o->xdp : o->tc) || (p == o->ack && ack));
	bpf_program__set_expected_attach_type(o->ack, CG_BPF_TCX_INGRESS);
	if (sc_have_raw())
		err = sc_rodata_set(o->obj, "sc_raw", 1);
	if (!err && off) {
		err = sc_rodata_set(o->obj, "sc_user_mss_off", off->user_mss);
		if (!err)
			err = sc_rodata_set(o->obj, "sc_wclamp_off", off->wclamp);
		if (!err)
			err = sc_rodata_set(o->obj, "sc_userlocks_bit", off->userlocks_bit);
		if (!err && cast)
			err = sc_rodata_set(o->obj, "sc_tcp_sock_btf", off->tcp_sock_btf);
	}
	for (i = 0; !err && reuse && i < SC_NMAPS; i++) {
		sc_pin(path, sizeof(path), reuse, sc_maps[i].pin);
		err = bpf_map__set_pin_path(*sc_obj_map(o, i), path);
	}
	if (!err)
		err = bpf_object__load(o->obj);
	if (err) {
		/* EINVAL from the verifier: most likely "unknown func" */
		snprintf(why, why_len, "the kernel refuses the program (%s)%s", strerror(-err),
			 reuse ? "" : ": no bpf_tcp_gen_syncookie (kernel older than 5.3 or "
				      "without CONFIG_SYN_COOKIES)?");
		goto fail;
	}
	return 0;
fail:
	bpf_object__close(o->obj);
	memset(o, 0, sizeof(*o));
	return err;
}

static const struct sc_offsets *sc_offsets(void)
{
	static struct sc_offsets off;
	static bool known;

	if (!known)
		sc_listener_offsets(&off);
	known = true;
	return &off;
}

/*
 * Does the kernel issue and check raw cookies for the program
 * (bpf_tcp_raw_gen_syncookie_ipv4 and bpf_tcp_raw_check_syncookie_ipv4,
 * 6.0+, with their ipv6 twins)? Helper numbers as the uapi fixes them.
 */
#define SC_FUNC_RAW_GEN4	204
#define SC_FUNC_RAW_CHECK4	206
bool sc_have_raw(void)
{
	static int have = -1;

	if (have < 0)
		have = libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, SC_FUNC_RAW_GEN4, NULL) == 1 &&
		       libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, SC_FUNC_RAW_GEN4, NULL) == 1 &&
		       libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, SC_FUNC_RAW_CHECK4, NULL) == 1;
	return have;
}

/* Can syncookie_ack run here: the kfunc, and tcx to hook it (6.6+)? */
bool sc_have_reqsk(void)
{
	return sc_offsets()->reqsk && cg_have_tcx();
}

/*
 * With the listener's TCP_MAXSEG, window clamp and SO_RCVBUF lock read
 * where the kernel has BTF and bpf_skc_to_tcp_sock (through bpf_rdonly_cast
 * where it has that too, else through the helper); where it refuses that,
 * without (the program then sees TCP_MAXSEG only as far as the cookie
 * shows it, and offers no window scaling). With ack (and sc_have_reqsk)
 * syncookie_ack too, if it loads: else without it, o->ack_err saying why.
 */
int sc_load(struct sc_obj *o, bool xdp, bool tcx, bool ack, const struct sc_target *reuse,
	    char *why, size_t why_len)
{
	const struct sc_offsets *off = sc_offsets();
	struct sc_offsets helper = *off;
	int err, ack_err = 0;

	helper.tcp_sock_btf = 0;

	if (ack) {
		ack_err = -EOPNOTSUPP;
		if (sc_have_reqsk() && off->user_mss) {
			ack_err = sc_load_once(o, xdp, tcx, true, reuse, off, why, why_len);
			if (!ack_err)
				return 0;
			why[0] = '\0';
		}
	}
	err = -ENOENT;
	if (off->user_mss)
		err = sc_load_once(o, xdp, tcx, false, reuse, off, why, why_len);
	if (err && off->user_mss && off->tcp_sock_btf)
		err = sc_load_once(o, xdp, tcx, false, reuse, &helper, why, why_len);
	if (err)
		err = sc_load_once(o, xdp, tcx, false, reuse, NULL, why, why_len);
	o->ack_err = ack_err;
	return err;
}

