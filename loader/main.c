// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - the csum-guard command: one contract over both backends.
 *
 *	csum-guard attach DEV [--netns NS] [--egress] [--log-drops] [--backend B] [--mode M]
 *	csum-guard detach DEV [--netns NS]
 *	csum-guard status [DEV] [--netns NS] [--json|--prometheus]
 *	csum-guard probe [--json]
 *	csum-guard watch [--match GLOB[,GLOB...]]... [--backend B] [--log-drops]
 *	csum-guard events [--json]
 *	csum-guard check [--path PATH[,PATH...]] [--json]
 *	csum-guard completion on|off|status [--json]
 *
 * Exit status: 0 done (detaching an unguarded device is done), 1 failed,
 * 2 bad usage. Errors are one line on stderr; nothing is left half-made.
 * check (check.h): 0 fixed, 10 vulnerable, 11 cannot tell, 1 set-up failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "cli.h"
#include "log.h"
#include "sha256.h"
#include "state.h"
#include "csum_guard_abi.h"
#include "backend.h"
#include "commands.h"
#include "events.h"
#include "check.h"
#include "report.h"
#include "select.h"
#include "syncookie.h"
#include "watch.h"

#ifndef CG_VERSION
#define CG_VERSION "0.0.0"
#endif

static const char usage_text[] =
	"Usage: csum-guard attach DEV [--netns NS] [--egress] [--log-drops] [--backend auto|bpf|kmod] [--mode tcx|clsact]\n"
	"                         [--object PATH --sha256 HEX]\n"
	"       csum-guard detach DEV [--netns NS]\n"
	"       csum-guard detach --all [--netns NS]\n"
	"       csum-guard upgrade\n"
	"       csum-guard status [DEV] [--netns NS] [--json|--prometheus]\n"
	"       csum-guard probe [--json]\n"
	"       csum-guard watch [--match GLOB[,GLOB...]]... [--backend auto|bpf|kmod] [--log-drops]\n"
	"                        [--no-completion]\n"
	"       csum-guard events [--json]\n"
	"       csum-guard check [--path PATH[,PATH...]] [--json]\n"
	"       csum-guard completion on|off|status [--json]\n"
	"       csum-guard syncookie attach DEV --ports P[,P...] [--netns NS]\n"
	"                         [--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl]\n"
	"                         [--allow CIDR[,CIDR...]] [--no-handoff]\n"
	"       csum-guard syncookie detach DEV [--netns NS]\n"
	"       csum-guard syncookie detach --all [--netns NS]\n"
	"       csum-guard syncookie status [DEV] [--netns NS] [--json]\n"
	"       csum-guard syncookie probe [--json]\n"
	"       csum-guard version | -V | --version\n"
	"       csum-guard help | -h | --help\n"
	"--help and --version go anywhere on the line; --quiet and --json before the\n"
	"  command too.\n"
	"--wait SECONDS (anywhere): wait that long at most for another csum-guard\n"
	"  command to finish (default: as long as it takes; 0: not at all).\n"
	"--json (anywhere): errors too are JSON, {\"error\":\"...\"} on stdout.\n"
	"NS is a name from `ip netns` or a path such as /proc/PID/ns/net.\n"
	"check: does this kernel write a guest's checksum over the IP header when one\n"
	"  of these completes it: frag (IPv4 fragmentation), tx and tx6 (transmit\n"
	"  without TX checksum offload, IPv4 and IPv6), xtcsum and xtcsum6 (iptables\n"
	"  and ip6tables -j CHECKSUM), nfqueue and nfqueue6 (an NFQUEUE read in\n"
	"  copy-packet mode)? It forwards one bad frame per path through a tap and a\n"
	"  veth in throwaway namespaces; guards on this host's devices are not there\n"
	"  and do not change the result. --path PATH[,PATH...] tests those only:\n"
	"  " CG_CHECK_PATHS ".\n"
	"  Exit status: 0 fixed (every path tested drops the frame), 10 vulnerable\n"
	"  (some path corrupts it), 11 cannot tell (also when iptables or a netfilter\n"
	"  target is missing), 1 the check could not be set up.\n"
	"attach guards what enters DEV; --egress also what leaves it, such as the host's\n"
	"own AF_PACKET frames. Options converge: attach without --egress removes it.\n"
	"--object loads the BPF object at PATH instead of the built-in one, only if its\n"
	"  SHA-256 is HEX and its ABI is this loader's; a guarded device gets the new\n"
	"  program in place, counters kept (roll forward or back by repinning).\n"
	"  A device guarded by another csum-guard's program gets this one's the same way.\n"
	"upgrade: every bpf guard of the host, in every namespace, to this csum-guard's\n"
	"  program, options and counters kept; guards from --object and the module's\n"
	"  stay. The csum-guard package runs it when it is upgraded.\n"
	"events: a line (--json: an object) for each drop of a guard attached with\n"
	"  --log-drops, and each completion the completion guard refuses, named by\n"
	"  namespace and device, offsets from the start of the frame; at most 10\n"
	"  a second a device, then a count. watch --log-drops writes them too.\n"
	"completion: the kernel module's completion guard, host-wide: it refuses at\n"
	"  skb_checksum_help() to complete a checksum that starts inside the IP headers,\n"
	"  whatever devices, tunnels or redirects the packet crossed (kmod backend).\n"
	"status without DEV and --netns lists the guarded devices of every network\n"
	"  namespace, and the guest-facing ones left unguarded; --prometheus writes the\n"
	"  counters for node_exporter's textfile collector (csum_guard_guarded 0: an\n"
	"  unguarded device to alert on).\n"
	"syncookie: answer SYNs to the given TCP ports of DEV with SYN cookies from\n"
	"  XDP or tc, or the kernel's SYNPROXY (nft) where the helper is missing.\n"
	"  Raw cookies for SYNPROXY's tables need no sysctl (6.0+); the listener's\n"
	"  (before 6.0, --no-handoff, no nft) need net.ipv4.tcp_syncookies=2 in DEV's\n"
	"  netns (nft: net.netfilter.nf_conntrack_tcp_loose=0); --set-sysctl sets it\n"
	"  and detach puts the old value back. Only SYNs this host would answer itself are\n"
	"  answered; --allow: only from those sources (give the ones the firewall accepts).\n";

struct cg_args {
	enum cg_attach_mode mode;	/* --mode */
	const char *cmd;
	const char *dev;
	const char *netns;
	const char *path;	/* check --path */
	const char *object;	/* attach --object */
	const char *sha256;	/* attach --sha256 */
	enum cg_choice backend;
	bool log_drops;
	bool egress;
	bool all;		/* detach --all */
	bool json;
	bool prometheus;	/* status --prometheus */
};

static int cg_parse(int argc, char **argv, struct cg_args *a)
{
	static const struct option opts[] = {
		CG_OPT_NETNS,
		{ "log-drops", no_argument, NULL, 'l' },
		{ "egress", no_argument, NULL, 'e' },
		{ "backend", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		CG_OPT_JSON,
		CG_OPT_QUIET,
		{ "path", required_argument, NULL, 'p' },
		{ "object", required_argument, NULL, 'o' },
		{ "sha256", required_argument, NULL, 's' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "all", no_argument, NULL, 'A' },
		CG_OPT_END,
	};
	bool attach = !strcmp(a->cmd, "attach");
	bool with_dev = attach || !strcmp(a->cmd, "detach") || !strcmp(a->cmd, "status");
	int c, ret;

	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!with_dev)
				return cg_usage_err("%s takes no --netns", a->cmd);
			if (!*optarg)
				return cg_usage_err("--netns needs a name or a path");
			a->netns = optarg;
			break;
		case 'l':
			if (!attach)
				return cg_usage_err("--log-drops goes with attach");
			a->log_drops = true;
			break;
		case 'e':
			if (!attach)
				return cg_usage_err("--egress goes with attach");
			a->egress = true;
			break;
		case 'b':
			if (!attach)
				return cg_usage_err("--backend goes with attach");
			if (cg_parse_backend(optarg, &a->backend))
				return cg_usage_err("unknown backend '%s' (auto, bpf or kmod)", optarg);
			break;
		case 'm':
			if (!attach)
				return cg_usage_err("--mode goes with attach");
			if (!strcmp(optarg, "tcx"))
				a->mode = CG_ATTACH_TCX;
			else if (!strcmp(optarg, "clsact"))
				a->mode = CG_ATTACH_CLSACT;
			else
				return cg_usage_err("unknown mode '%s' (tcx or clsact)", optarg);
			break;
		case 'j':
			if (strcmp(a->cmd, "status") && strcmp(a->cmd, "probe") &&
			    strcmp(a->cmd, "check"))
				return cg_usage_err("--json goes with status, probe and check");
			a->json = true;
			break;
		case 'A':
			if (strcmp(a->cmd, "detach"))
				return cg_usage_err("--all goes with detach");
			a->all = true;
			break;
		case 'P':
			if (strcmp(a->cmd, "status"))
				return cg_usage_err("--prometheus goes with status");
			a->prometheus = true;
			break;
		case 'q':
			cg_quiet = true;
			break;
		case 'p':
			if (strcmp(a->cmd, "check"))
				return cg_usage_err("--path goes with check");
			if (!cg_check_path_valid(optarg))
				return cg_usage_err("unknown path in '%s' (" CG_CHECK_PATHS ")",
						    optarg);
			a->path = optarg;
			break;
		case 'o':
			if (!attach)
				return cg_usage_err("--object goes with attach");
			if (!*optarg)
				return cg_usage_err("--object needs a path");
			a->object = optarg;
			break;
		case 's':
			if (!attach)
				return cg_usage_err("--sha256 goes with attach");
			if (strlen(optarg) != CG_SHA256_HEX ||
			    strspn(optarg, "0123456789abcdefABCDEF") != CG_SHA256_HEX)
				return cg_usage_err("--sha256 needs 64 hex digits, not '%s'", optarg);
			a->sha256 = optarg;
			break;
		default:
			return cg_cli_bad_option(c, argv);
		}
	}
	ret = cg_cli_device(argc, argv, a->cmd, with_dev,
			    with_dev && strcmp(a->cmd, "status") && !a->all, &a->dev);
	if (ret)
		return ret;
	if (a->all && a->dev)
		return cg_usage_err("detach takes DEV or --all, not both");
	if (a->json && a->prometheus)
		return cg_usage_err("--json and --prometheus exclude each other");
	if (a->mode && a->backend == CG_CHOICE_KMOD)
		return cg_usage_err("--mode is for the bpf backend");
	if (!!a->object != !!a->sha256)
		return cg_usage_err("--object and --sha256 go together");
	if (a->object && a->backend == CG_CHOICE_KMOD)
		return cg_usage_err("--object is for the bpf backend");
	return 0;
}

int main(int argc, char **argv)
{
	struct cg_query q;
	struct cg_args a = {};
	int ret, i;

	/* --help and --version anywhere, as ip and bpftool take them */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("csum-guard %s (abi %d)\n", CG_VERSION, CG_ABI_VERSION);
			return 0;
		}
	}
	/*
	 * Options of the whole line, anywhere on it: --json also makes every
	 * error a JSON object on stdout; --wait SECONDS bounds the wait for the
	 * host lock (and is taken out, for the commands' own parsers).
	 */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *w = NULL;
		char *end;
		long v;
		int drop = 0;

		if (!strcmp(argv[i], "--json"))
			cg_json_errors = true;
		if (!strcmp(argv[i], "--wait")) {
			if (i + 1 >= argc)
				return cg_usage_err("--wait needs a number of seconds");
			w = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], "--wait=", 7)) {
			w = argv[i] + 7;
			drop = 1;
		}
		if (!drop)
			continue;
		errno = 0;
		v = strtol(w, &end, 10);
		if (!*w || *end || errno || v < 0 || v > 86400)
			return cg_usage_err("--wait needs whole seconds from 0 to 86400, not '%s'", w);
		cg_lock_wait = v;
		memmove(&argv[i], &argv[i + drop], (argc - i - drop + 1) * sizeof(*argv));
		argc -= drop;
		i--;
	}
	/*
	 * --quiet and --json before the command as well as after it: --quiet
	 * is taken here, --json moves to the end of the line, where the
	 * command's parser takes it (getopt_long permutes operands).
	 */
	while (argc > 1) {
		char *o = argv[1];

		if (strcmp(o, "--quiet") && strcmp(o, "-q") && strcmp(o, "--json"))
			break;
		if (!strcmp(o, "--json") && argc > 2) {
			int end = argc;

			for (i = 2; i < argc; i++)
				if (!strcmp(argv[i], "--")) {
					end = i;
					break;
				}
			memmove(&argv[1], &argv[2], (end - 2) * sizeof(*argv));
			argv[end - 1] = o;
			if (!strcmp(argv[1], "--json"))
				break;	/* nothing but --json options: bad usage below */
			continue;
		}
		cg_quiet |= strcmp(o, "--json") != 0;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2)
		return cg_usage_err("no command");
	a.cmd = argv[1];
	if (!strcmp(a.cmd, "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(a.cmd, "version")) {
		printf("csum-guard %s (abi %d)\n", CG_VERSION, CG_ABI_VERSION);
		return 0;
	}
	if (!strcmp(a.cmd, "syncookie")) {
		cg_log_libbpf();
		return cg_syncookie(argc, argv);
	}
	if (!strcmp(a.cmd, "completion"))
		return cg_cmd_completion(argc, argv);
	if (!strcmp(a.cmd, "watch")) {
		cg_log_libbpf();
		return cg_watch(argc, argv);
	}
	if (!strcmp(a.cmd, "events")) {
		cg_log_libbpf();
		return cg_cmd_events(argc, argv);
	}
	if (strcmp(a.cmd, "attach") && strcmp(a.cmd, "detach") && strcmp(a.cmd, "upgrade") &&
	    strcmp(a.cmd, "status") && strcmp(a.cmd, "probe") && strcmp(a.cmd, "check"))
		return cg_usage_err("unknown command '%s'", a.cmd);
	ret = cg_parse(argc, argv, &a);
	if (ret)
		return ret;

	cg_log_libbpf();
	q = (struct cg_query){
		.dev = a.dev, .netns = a.netns, .json = a.json, .prometheus = a.prometheus,
	};
	if (!strcmp(a.cmd, "attach")) {
		struct cg_attach_req r = {
			.dev = a.dev, .netns = a.netns, .backend = a.backend,
			.opts = { .log_drops = a.log_drops, .egress = a.egress, .mode = a.mode },
			.object_path = a.object,
		};

		return cg_cmd_attach(&r, a.sha256);
	}
	if (!strcmp(a.cmd, "detach"))
		return a.all ? cg_cmd_detach_all(a.netns) : cg_cmd_detach(a.dev, a.netns);
	if (!strcmp(a.cmd, "upgrade"))
		return cg_cmd_upgrade();
	if (!strcmp(a.cmd, "status"))
		return cg_cmd_status(&q);
	if (!strcmp(a.cmd, "check"))
		return cg_check(a.path, a.json);
	return cg_cmd_probe(&q);
}
