// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - the second guard: answer SYNs to chosen TCP ports of a
 * device with SYN cookies before the stack sees them.
 *
 *	csum-guard syncookie attach DEV --ports P[,P...] [--netns NS]
 *		[--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl] [--allow CIDR[,CIDR...]]
 *		[--no-handoff]
 *	csum-guard syncookie detach DEV [--netns NS]
 *	csum-guard syncookie status [DEV] [--netns NS] [--json]
 *	csum-guard syncookie probe [--json]
 *	csum-guard syncookie apply [--config FILE] [--follow]
 *
 * Modes: xdp (native), xdp-generic, tc (tcx link on 6.6+, clsact filter
 * otherwise) run syncookie.bpf.c; nft is the fallback for kernels
 * without bpf_tcp_gen_syncookie: the kernel's SYNPROXY in a table of our
 * own. auto: native XDP where the driver has it (not on veth, see
 * sc_native_ok), else generic XDP, else tc; nft when the program does not
 * load. State lives on bpffs like the checksum guard's, apart from it:
 *
 *	/sys/fs/bpf/csum_guard_syncookie/<netns inode>/<ifindex>/
 *		meta      mode, flags, the sysctl value found (struct sc_meta)
 *		ports     the protected ports, a bitmap (updated in place)
 *		counters  per-CPU synack / passed / malformed / foreign / ack /
 *		          ack_refused (bpf modes)
 *		conf      the device's MAC and MSS       routes  the namespace's
 *		          addresses and routes, an LPM trie (addr.c, routes.c)
 *		routes4   its IPv4 entries, 32-bit keys
 *		rtab4     what both answer for IPv4, in 8-bit strides (rtab.c)
 *		allow     attach --allow's sources, an LPM trie
 *		link      xdp or tcx link        prog   clsact: the program
 *		ack_link  syncookie_ack's tcx link (6.9+: options under tcp_timestamps 1)
 *
 * Raw cookies (6.0+, where attach makes both nft tables) go to SYNPROXY,
 * which checks them with no sysctl. The listener's cookies: the returning
 * ACK is checked by the kernel's cookie_v4_check / cookie_v6_check, which
 * takes it whenever net.ipv4.tcp_syncookies is not 0 and the listener
 * "overflowed" lately (the helper marks it so). But the helper issues a
 * cookie only when tcp_syncookies is 2 or the listener's SYN queue is full
 * (tcp_get_syncookie_mss): such a responder needs 2, in the device's
 * namespace. attach refuses otherwise, or with --set-sysctl sets it, and
 * detach puts back the value it found. SYNPROXY (nft) instead needs
 * net.netfilter.nf_conntrack_tcp_loose=0, the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include "syncookie.h"

static int sc_parse_ports(const char *s, struct sc_args *a)
{
	char *end;
	long p;

	memset(&a->ports, 0, sizeof(a->ports));
	a->nports = 0;
	for (;;) {
		errno = 0;
		p = strtol(s, &end, 10);
		if (end == s || errno || p < 1 || p > 65535 || (*end && *end != ','))
			return -1;
		if (!(a->ports.bits[p >> 3] & (1 << (p & 7))))
			a->nports++;
		a->ports.bits[p >> 3] |= 1 << (p & 7);
		if (!*end)
			break;
		s = end + 1;
	}
	return a->nports > SC_MAX_PORTS ? -1 : 0;
}

/* --allow A[,B...]: a->allow and a->nallow */
static int sc_parse_allow(const char *s, struct sc_args *a)
{
	char buf[64];
	size_t n;

	a->nallow = 0;
	for (;;) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(buf) || a->nallow == SC_ALLOW_MAX)
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (sc_parse_cidr(buf, &a->allow[a->nallow++]))
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* One option of a syncookie command into a (cg_cli_parse()'s set) */
static int sc_args_set(int val, const char *arg, void *ctx)
{
	static const char *const modes[] = { "auto", "xdp", "xdp-generic", "tc", "nft" };
	static const enum sc_mode mode_val[] = { SC_AUTO, SC_XDP, SC_XDP_GENERIC, SC_TC, SC_NFT };
	struct sc_args *a = ctx;
	unsigned int i;
	int ret = cg_cli_shared_set(val, arg, &a->netns);

	if (ret >= 0)
		return ret;
	switch (val) {
	case 'p':
		if (sc_parse_ports(arg, a))
			return cg_usage_err("--ports needs 1 to %d ports 1-65535, comma-separated, "
					    "not '%s'", SC_MAX_PORTS, arg);
		break;
	case 'm':
		for (i = 0; i < ARRAY_SIZE(modes) && strcmp(arg, modes[i]); i++)
			;
		if (i == ARRAY_SIZE(modes))
			return cg_usage_err("unknown mode '%s' (auto, xdp, xdp-generic, tc or nft)",
					    arg);
		a->mode = mode_val[i];
		break;
	case 's':
		a->set_sysctl = true;
		break;
	case 'H':
		a->no_handoff = true;
		break;
	case 'j':
		a->json = true;
		break;
	case 'a':
		if (sc_parse_allow(arg, a))
			return cg_usage_err("--allow needs 1 to %d addresses or prefixes (IPv4 or "
					    "IPv6), comma-separated, not '%s'", SC_ALLOW_MAX, arg);
		break;
	case 'A':
		a->all = true;
		break;
	case 'c':
		if (!*arg)
			return cg_usage_err("--config needs a file");
		a->config = arg;
		break;
	case 'F':
		a->follow = true;
		break;
	}
	return 0;
}

/* What attach needs beyond its options, on the command line and in apply's file */
static int sc_attach_check(const struct sc_args *a)
{
	if (!a->nports)
		return cg_usage_err("syncookie attach needs --ports");
	if (a->no_handoff && a->mode == SC_NFT)
		return cg_usage_err("--no-handoff goes with the bpf modes: nft mode is SYNPROXY itself");
	return 0;
}

static int sc_run_attach(void *args, int argc, char **argv)
{
	return sc_attach_check(args) ?: sc_attach(args);
}

static int sc_run_apply(void *args, int argc, char **argv)
{
	return sc_apply(args);
}

static int sc_run_detach(void *args, int argc, char **argv)
{
	struct sc_args *a = args;

	if (a->all && a->dev)
		return cg_usage_err("syncookie detach takes DEV or --all, not both");
	return a->all ? sc_detach_all(a) : sc_detach(a);
}

static int sc_run_status(void *args, int argc, char **argv)
{
	return sc_status(args);
}

static int sc_run_probe(void *args, int argc, char **argv)
{
	return sc_probe(args);
}

static const struct cg_opt sc_opts[] = {
	{ "netns", 'n', "NS", "the device's network namespace: a name from `ip netns`, "
	  "a path such as /proc/PID/ns/net, or an inode number" },
	{ "ports", 'p', "P[,P...]", "the TCP ports whose SYNs are answered" },
	{ "mode", 'm', "M", "auto, xdp (native), xdp-generic, tc or nft (the kernel's "
	  "SYNPROXY); auto: native XDP where the driver has it, else generic XDP, else tc, "
	  "nft where the program does not load" },
	{ "set-sysctl", 's', NULL, "set the sysctl the mode needs in DEV's namespace "
	  "(detach puts the old value back)" },
	{ "allow", 'a', "CIDR[,CIDR...]", "answer only these sources (give the ones the "
	  "firewall accepts)" },
	{ "no-handoff", 'H', NULL, "no SYNPROXY tables: the operator says no rule drops an "
	  "ACK without a SYN" },
	{ "all", 'A', NULL, "every responder of the namespace (with --netns) or of the host" },
	{ "json", 'j', NULL, "one JSON document on stdout" },
	{ "quiet", 'q', NULL, "say nothing but errors" },
	{ "config", 'c', "FILE", "the declared responders, one a line as attach's operands "
	  "and options (default " SC_CONFIG ")" },
	{ "follow", 'F', NULL, "stay, and attach again whatever an nftables reload, an "
	  "address, route or device change undoes" },
	{ NULL, 0, NULL, NULL },
};

#define SC_USAGE(...)	((const char *const[]){ __VA_ARGS__, NULL })

static const struct cg_cmd sc_cmds[] = {
	{ "attach", SC_USAGE("DEV --ports P[,P...] [--netns NS]\n"
			     "[--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl]\n"
			     "[--allow CIDR[,CIDR...]] [--no-handoff]"),
	  "Answer SYNs to the given TCP ports of DEV with SYN cookies from XDP or tc,\n"
	  "or the kernel's SYNPROXY (nft) where the helper is missing. Raw cookies for\n"
	  "SYNPROXY's tables need no sysctl (6.0+); the listener's (before 6.0,\n"
	  "--no-handoff, no nft) need net.ipv4.tcp_syncookies=2 in DEV's netns (nft:\n"
	  "net.netfilter.nf_conntrack_tcp_loose=0); --set-sysctl sets it and detach puts\n"
	  "the old value back. Only SYNs this host would answer itself are answered.\n"
	  "Attach again to change the ports or options.\n",
	  "npmsaHq", sc_run_attach },
	{ "detach", SC_USAGE("DEV [--netns NS]", "--all [--netns NS]"),
	  "Stop answering SYNs on DEV, or every responder of the namespace or of the\n"
	  "host (--all), and remove what attach made.\n",
	  "nAq", sc_run_detach },
	{ "status", SC_USAGE("[DEV] [--netns NS] [--json]"),
	  "Say which devices answer SYNs, how, and what they counted.\n",
	  "njq", sc_run_status },
	{ "probe", SC_USAGE("[--json]"),
	  "Say which modes this kernel offers, and which attach would choose.\n",
	  "jq", sc_run_probe },
	{ "apply", SC_USAGE("[--config FILE] [--follow]"),
	  "Make the responders declared in FILE (default " SC_CONFIG "),\n"
	  "one a line written as attach's operands and options, '#' comments: attach\n"
	  "each, and detach those an earlier apply made that the file no longer lists.\n"
	  "Responders attached by hand stay unless declared. A bad line is refused as\n"
	  "FILE:LINE and nothing is applied. With --follow it stays, and attaches again\n"
	  "within a second whatever a ruleset flush, an address, route or device\n"
	  "change undoes, counting the repairs (status --json, --prometheus).\n",
	  "cFq", sc_run_apply },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const struct cg_cli sc_cli = {
	.prog = "csum-guard syncookie",
	.opts = sc_opts,
	.cmds = sc_cmds,
	.common = "Every command also takes --help, --version, --quiet and --wait SECONDS\n"
		  "anywhere on its line (csum-guard --help).\n",
};

/*
 * One line of apply's file, split into argv[1..argc) (argv[0]: where it
 * is, for messages): as attach's command line, through the same table.
 * 0, or 2 with one line "FILE:LINE: why" said.
 */
int sc_parse_line(int argc, char **argv, struct sc_args *a)
{
	const struct cg_cmd *c = cg_cli_find(&sc_cli, "attach");
	int ret;

	memset(a, 0, sizeof(*a));
	a->cmd = c->name;
	cg_usage_where = argv[0];
	/* optind 0: getopt starts over for each line */
	ret = cg_cli_parse(&sc_cli, c, argc, argv, 0, sc_args_set, a);
	if (!ret)
		ret = cg_cli_device(argc, argv, "a line", true, true, &a->dev);
	if (!ret)
		ret = sc_attach_check(a);
	cg_usage_where = NULL;
	return ret;
}

void cg_syncookie_usage(FILE *f)
{
	const struct cg_cmd *c;
	const char *const *u;
	const char *nl;

	/* under csum-guard's own usage lines: no "Usage: " of its own */
	for (c = sc_cmds; c->name; c++)
		for (u = c->usage; *u; u++) {
			fprintf(f, "       %s %s", sc_cli.prog, c->name);
			for (nl = *u; nl; ) {
				const char *e = strchr(nl, '\n');

				fprintf(f, " %.*s\n", e ? (int)(e - nl) : (int)strlen(nl), nl);
				nl = e ? e + 1 : NULL;
				if (nl)
					fprintf(f, "%*s", (int)(8 + strlen(sc_cli.prog) + strlen(c->name)), "");
			}
		}
}

int cg_syncookie_help(int argc, char **argv)
{
	const struct cg_cmd *c = NULL;
	int i;

	for (i = 1; i < argc && !c; i++)
		if (argv[i][0] != '-')
			c = cg_cli_find(&sc_cli, argv[i]);
	if (c) {
		cg_cli_help(&sc_cli, c, stdout);
		return 0;
	}
	printf("Usage:\n");
	cg_syncookie_usage(stdout);
	printf("\n%s\n%s", "The second guard: answer SYNs to chosen TCP ports of a device with SYN\n"
	       "cookies. csum-guard syncookie CMD --help says what CMD does and takes.",
	       sc_cli.common);
	return 0;
}

int cg_syncookie(int argc, char **argv)
{
	const struct cg_cmd *c;
	struct sc_args a = {};
	char what[32];
	int ret;

	if (argc < 3)
		return cg_usage_err("syncookie needs a command (attach, detach, status, probe or apply)");
	c = cg_cli_find(&sc_cli, argv[2]);
	if (!c)
		return cg_usage_err("unknown syncookie command '%s'", argv[2]);
	a.cmd = c->name;
	ret = cg_cli_parse(&sc_cli, c, argc, argv, 3, sc_args_set, &a);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "syncookie %s", a.cmd);
	ret = cg_cli_device(argc, argv, what, strcmp(a.cmd, "probe") && strcmp(a.cmd, "apply"),
			    strcmp(a.cmd, "probe") && strcmp(a.cmd, "status") && strcmp(a.cmd, "apply") &&
			    !a.all, &a.dev);
	if (ret)
		return ret;
	return c->run(&a, argc, argv);
}
