// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check.c - csum-guard check: does this kernel write a completed checksum
 * over the IP header of a frame a guest handed it, on each completion path?
 *
 * Per path, a throwaway topology in two anonymous network namespaces that
 * only this process's file descriptors hold, so the kernel removes all of
 * it (namespaces, tap, veth pair, rules) when the process ends, however it
 * ends:
 *
 *   netns "vm" (an fd)                              netns "far" (an fd)
 *   +-------------------------------+               +------------------+
 *   | tap0 10.0.0.1/24 fd00::1/64   |               |                  |
 *   |   we write as guest 10.0.0.2  |  veth pair    |                  |
 *   |   or fd00::2 (vnet_hdr)       |               |                  |
 *   | forwarding    veth0 ----------+---------------+-- veth1          |
 *   |          10.1.0.1 fd01::1     |               |   AF_PACKET      |
 *   +-------------------------------+               +------------------+
 *   frag:     veth MTU 576, IP fragmentation completes the checksum
 *   tx, tx6:  veth0 without TX checksum offload, the transmit path does
 *   xtcsum, xtcsum6: a CHECKSUM --checksum-fill rule in vm does
 *   nfqueue, nfqueue6: an NFQUEUE rule in vm; the kernel completes it before
 *             copying the packet to our reader (site.c)
 * (forwarded IPv6 is never fragmented: no frag6)
 *
 * Per path: a good frame (csum_start at the UDP header) proves that the
 * topology forwards; then the bad frame (csum_start 6 bytes into the IPv4
 * header, 8 into the IPv6 one, csum_offset 6: the sum lands on the source
 * address); then a good one again, after which anything of the bad frame
 * would have arrived. The netfilter paths keep MTU 1500 and the offload,
 * and send the bad frame once before the rule exists: it must arrive
 * untouched, or the rule would not be the only completion site. The
 * capture is raw because a corrupted header fails its checksum.
 *
 *   bad frame arrived (or was copied to the
 *   queue) with its source rewritten            vulnerable
 *   nothing arrived and the kernel counted it
 *   (IpFragFails, the rule's packets), or the
 *   tap refused the frame                       fixed
 *   anything else, or iptables or a target
 *   missing                                     unknown, with the reason
 *
 * The host's namespaces, devices and guards are never touched: a guard on
 * the host's taps is not in these namespaces and cannot change the result.
 *
 * This file is the command: the paths, the overall verdict and its
 * printing. One path's verdict is path.c's, its frames frame.c's, its
 * topology topo.c's (site.c: the netfilter sites; modules.c: unloading
 * what the paths loaded).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "json.h"
#include "log.h"
#include "macros.h"
#include "check.h"
#include "topo.h"
#include "path.h"

static const char *const ck_names[] = {
	[CK_UNKNOWN] = "unknown", [CK_FIXED] = "fixed",
	[CK_VULNERABLE] = "vulnerable", [CK_ERROR] = "error",
};

/* In the order of the README's reproduction table */
static const struct ck_path ck_paths[] = {
	{ "frag", "IP fragmentation (forwarded onto a 576-byte MTU veth)", 576, false,
	  false, CK_SITE_NONE },
	{ "tx", "transmit without TX checksum offload (forwarded onto such a veth)", 1500,
	  true, false, CK_SITE_NONE },
	{ "tx6", "IPv6 transmit without TX checksum offload (forwarded onto such a veth)",
	  1500, true, true, CK_SITE_NONE },
	{ "xtcsum", "iptables -j CHECKSUM --checksum-fill in mangle POSTROUTING", 1500, false,
	  false, CK_SITE_XTCSUM },
	{ "nfqueue", "iptables -j NFQUEUE in FORWARD, read in copy-packet mode", 1500, false,
	  false, CK_SITE_NFQUEUE },
	{ "xtcsum6", "ip6tables -j CHECKSUM --checksum-fill in mangle POSTROUTING", 1500,
	  false, true, CK_SITE_XTCSUM },
	{ "nfqueue6", "ip6tables -j NFQUEUE in FORWARD, read in copy-packet mode", 1500, false,
	  true, CK_SITE_NFQUEUE },
};
/* --- the command --------------------------------------------------------- */

/* Is name in the comma-separated list? */
static bool ck_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Every item of the comma-separated list names a path */
bool cg_check_path_valid(const char *list)
{
	const char *p, *end;
	unsigned int i;

	for (p = list;; p = end + 1) {
		end = strchrnul(p, ',');
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (strlen(ck_paths[i].name) == (size_t)(end - p) &&
			    !strncmp(p, ck_paths[i].name, end - p))
				break;
		if (i == ARRAY_SIZE(ck_paths))
			return false;
		if (!*end)
			return true;
	}
}

static const char *ck_summary(int ret, bool all)
{
	switch (ret) {
	case CG_CHECK_VULNERABLE:
		return "this kernel corrupts the IP header of such frames: keep the guard";
	case CG_CHECK_FIXED:
		return all ? "every path tested drops such frames" :
			     "these paths drop such frames (the others were not tested)";
	case CG_CHECK_UNKNOWN:
		return "some path tested could not tell (see its reason): keep the guard";
	}
	return "the check could not be set up";
}

/* The paths' results, and the verdict, as text or JSON */
static void ck_print(const struct ck_result *res, const bool *ran, int nran, int ret,
		     const char *verdict, const char *unloaded, bool json)
{
	bool first = true;
	struct utsname u;
	unsigned int i;

	if (!json) {
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf("%s: %s: %s; %s\n", ck_paths[i].name, ck_names[res[i].v],
				       ck_paths[i].what, res[i].reason);
		fputs("tested:", stdout);
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf(" %s", ck_paths[i].name);
		if (nran < (int)ARRAY_SIZE(ck_paths)) {
			fputs("; not tested:", stdout);
			for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
				if (!ran[i])
					printf(" %s", ck_paths[i].name);
		}
		putchar('\n');
		if (*unloaded)
			printf("unloaded the modules it loaded: %s\n", unloaded);
		printf("verdict: %s: %s\n", verdict,
		       ck_summary(ret, nran == (int)ARRAY_SIZE(ck_paths)));
		return;
	}
	putchar('{');
	cg_json_kv_str(&first, "kernel", uname(&u) ? NULL : u.release);
	cg_json_kv_str(&first, "verdict", verdict);
	cg_json_kv_u64(&first, "exit", ret);
	for (i = 0; i < 2; i++) {
		unsigned int j;
		bool f = true;

		printf(",\"%s\":[", i ? "not_tested" : "tested");
		for (j = 0; j < ARRAY_SIZE(ck_paths); j++)
			if (ran[j] == !i) {
				if (!f)
					putchar(',');
				cg_json_str(ck_paths[j].name);
				f = false;
			}
		putchar(']');
	}
	printf(",\"unloaded\":[");
	for (i = 0, first = true; unloaded[i]; ) {
		size_t w = strcspn(unloaded + i, " ");

		printf("%s\"%.*s\"", first ? "" : ",", (int)w, unloaded + i);
		first = false;
		i += w + (unloaded[i + w] == ' ');
	}
	putchar(']');
	fputs(",\"paths\":[", stdout);
	first = true;
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		bool f = true;

		if (!ran[i])
			continue;
		if (!first)
			putchar(',');
		putchar('{');
		cg_json_kv_str(&f, "path", ck_paths[i].name);
		cg_json_kv_str(&f, "verdict", ck_names[res[i].v]);
		cg_json_kv_str(&f, "reason", res[i].reason);
		cg_json_kv_str(&f, "source", *res[i].source ? res[i].source : NULL);
		putchar('}');
		first = false;
	}
	puts("]}");
}

/*
 * Overall: vulnerable if any path corrupted the header (10); else failed if
 * any path could not be set up (1); fixed if every path dropped it (0);
 * else cannot tell (11). path: a comma-separated list, NULL for all.
 */
int cg_check(const char *path, bool json)
{
	struct ck_result res[ARRAY_SIZE(ck_paths)];
	bool ran[ARRAY_SIZE(ck_paths)] = {};
	int nvuln = 0, nfixed = 0, nerr = 0, nran = 0, ret;
	char unloaded[256];
	struct ck_mods mods;
	const char *verdict;
	unsigned int i;

	if (geteuid() != 0) {
		cg_err("cannot check: must be run as root");
		return 1;
	}
	ck_mods_snapshot(&mods);
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		if (path && !ck_listed(path, ck_paths[i].name))
			continue;
		ck_run_path(&ck_paths[i], &res[i]);
		ran[i] = true;
		nran++;
		nvuln += res[i].v == CK_VULNERABLE;
		nfixed += res[i].v == CK_FIXED;
		nerr += res[i].v == CK_ERROR;
		if (res[i].v == CK_ERROR)
			cg_err("cannot check the %s path: %s", ck_paths[i].name, res[i].reason);
	}

	/* what the paths loaded into the kernel goes as it came */
	ck_mods_unload_new(&mods, unloaded, sizeof(unloaded));
	if (nvuln) {
		ret = CG_CHECK_VULNERABLE;
		verdict = "vulnerable";
	} else if (nerr) {
		ret = 1;
		verdict = "error";
	} else if (nfixed == nran) {
		ret = CG_CHECK_FIXED;
		verdict = "fixed";
	} else {
		ret = CG_CHECK_UNKNOWN;
		verdict = "unknown";
	}

	ck_print(res, ran, nran, ret, verdict, unloaded, json);
	return ret;
}
