// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cmd.c - the table of csum-guard's commands and options: each command's
 * usage, what it does and which options it takes, said once here, from
 * which main.c parses, `--help` explains and tests/cases/97-docs.sh holds
 * the man page's synopsis; and each command's check of its operands and
 * of options that exclude each other, before it runs.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "csum_guard_abi.h"
#include "commands.h"
#include "events.h"
#include "check/check.h"
#include "watch/watch.h"
#include "syncookie.h"

static const struct cg_opt cg_opts[] = {
	{ "netns", 'n', "NS", "the device's network namespace: a name from `ip netns`, "
	  "a path such as /proc/PID/ns/net, or an inode number" },
	{ "egress", 'e', NULL, "guard what leaves DEV too, such as the host's own "
	  "AF_PACKET frames (a guard keeps it until --no-egress)" },
	{ "no-egress", 'E', NULL, "stop guarding what leaves DEV" },
	{ "log-drops", 'l', NULL, "report each drop as an event (csum-guard events)" },
	{ "no-log-drops", 'L', NULL, "stop reporting each drop" },
	{ "backend", 'b', "B", "auto (the probe's pick), bpf or kmod" },
	{ "mode", 'm', "M", "how the bpf guard hooks in: tcx (6.6+) or clsact" },
	{ "object", 'o', "PATH", "load this BPF object instead of the built-in one "
	  "(with --sha256)" },
	{ "sha256", 's', "HEX", "the SHA-256 --object must have" },
	{ "all", 'A', NULL, "every guard of the namespace (with --netns) or of the host" },
	{ "json", 'j', NULL, "one JSON document on stdout; errors as {\"error\":...}" },
	{ "prometheus", 'P', NULL, "the counters in Prometheus' text format, for "
	  "node_exporter's textfile collector" },
	{ "path", 'p', "PATH[,PATH...]", "test only these: " CG_CHECK_PATHS },
	{ "match", 'M', "GLOB[,GLOB...]", "only devices whose names match one (again: "
	  "more globs): watch guards them, status marks the others excluded" },
	{ "no-completion", 'C', NULL, "leave the module's completion guard as it is" },
	{ "no-containers", 'N', NULL, "leave veth and netkit devices alone, containers' "
	  "links included (status: mark them excluded)" },
	{ "ready-on-failure", 'R', NULL, "say ready (READY=1) when every device there at "
	  "the start is guarded or has failed, not only when each is guarded" },
	{ "heal", 'H', NULL, "put back what drifted: attach it again as it was recorded" },
	{ "textfile", 'T', "PATH", "write status --prometheus and the watcher's own "
	  "metrics to PATH (atomically, mode 0644) for node_exporter's textfile collector" },
	{ "textfile-interval", 'I', "SECONDS", "how often --textfile is written (default 15)" },
	{ "quiet", 'q', NULL, "say nothing but errors" },
	{ NULL, 0, NULL, NULL },
};

/* --- the commands' checks ------------------------------------------------ */

/* At most one operand, a device name, where the command takes one */
static int cg_args_device(const struct cg_args *a, bool takes, bool needs, const char **dev)
{
	*dev = NULL;
	if (a->noperands > 1)
		return cg_usage_err("unexpected argument '%s'", a->operands[1]);
	if (a->noperands) {
		if (!takes)
			return cg_usage_err("%s takes no device", a->cmd);
		*dev = a->operands[0];
	}
	if (!*dev && needs)
		return cg_usage_err("%s needs a device", a->cmd);
	if (*dev && !cg_cli_dev_valid(*dev))
		return cg_usage_err("'%s' is not a valid device name", *dev);
	return 0;
}

static int cg_run_attach(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	struct cg_attach_req r = {
		.netns = a->netns, .backend = a->backend,
		.opts = { .log_drops = a->log_drops, .egress = a->egress, .mode = a->mode },
		.no_egress = a->no_egress, .no_log_drops = a->no_log_drops,
		.object_path = a->object,
	};
	int ret = cg_args_device(a, true, true, &r.dev);

	if (ret)
		return ret;
	if (a->egress && a->no_egress)
		return cg_usage_err("--egress and --no-egress exclude each other");
	if (a->log_drops && a->no_log_drops)
		return cg_usage_err("--log-drops and --no-log-drops exclude each other");
	if (a->mode && a->backend == CG_CHOICE_KMOD)
		return cg_usage_err("--mode is for the bpf backend");
	if (!!a->object != !!a->sha256)
		return cg_usage_err("--object and --sha256 go together");
	if (a->object && a->backend == CG_CHOICE_KMOD)
		return cg_usage_err("--object is for the bpf backend");
	return cg_cmd_attach(&r, a->sha256);
}

static int cg_run_detach(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	const char *dev;
	int ret = cg_args_device(a, true, !a->all, &dev);

	if (ret)
		return ret;
	if (a->all && dev)
		return cg_usage_err("detach takes DEV or --all, not both");
	return a->all ? cg_cmd_detach_all(a->netns) : cg_cmd_detach(dev, a->netns);
}

static int cg_run_upgrade(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	const char *dev;

	return cg_args_device(a, false, false, &dev) ?: cg_cmd_upgrade();
}

static int cg_run_status(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	struct cg_query q = { .netns = a->netns, .json = a->json, .prometheus = a->prometheus,
			      .match = a->match, .nmatch = a->nmatch,
			      .no_containers = a->no_containers };
	int ret = cg_args_device(a, true, false, &q.dev);

	if (ret)
		return ret;
	if (a->json && a->prometheus)
		return cg_usage_err("--json and --prometheus exclude each other");
	return cg_cmd_status(&q);
}

static int cg_run_probe(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	struct cg_query q = { .json = a->json };

	return cg_args_device(a, false, false, &q.dev) ?: cg_cmd_probe(&q);
}

static int cg_run_check(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;
	const char *dev;

	return cg_args_device(a, false, false, &dev) ?: cg_check(a->path, a->json);
}

static int cg_run_watch(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;

	if (a->noperands)
		return cg_usage_err("unexpected argument '%s'", a->operands[0]);
	if (a->textfile_interval && !a->textfile)
		return cg_usage_err("--textfile-interval goes with --textfile");
	return cg_watch(a);
}

static int cg_run_doctor(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;

	if (a->noperands)
		return cg_usage_err("doctor takes no device: it examines the whole host");
	return cg_cmd_doctor(a);
}

static int cg_run_verify(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;

	if (a->noperands)
		return cg_usage_err("verify takes no device: it looks at every guest-facing one");
	return cg_cmd_verify(a->netns, a->heal, a->json);
}

static int cg_run_events(void *args, int argc, char **argv)
{
	const struct cg_args *a = args;

	if (a->noperands)
		return cg_usage_err("events takes no device: it reads every guard's");
	return cg_cmd_events(a->json);
}

static int cg_run_completion(void *args, int argc, char **argv)
{
	return cg_cmd_completion(args);
}

static int cg_run_syncookie(void *args, int argc, char **argv)
{
	return cg_syncookie(argc, argv);
}

#ifndef CG_VERSION
#define CG_VERSION "0.0.0"
#endif

static int cg_run_version(void *args, int argc, char **argv)
{
	printf("csum-guard %s (abi %d)\n", CG_VERSION, CG_ABI_VERSION);
	return 0;
}

static int cg_run_help(void *args, int argc, char **argv)
{
	cg_cli_main_help(stdout);
	return 0;
}

/* --- the table ------------------------------------------------------------ */

#define CG_USAGE(...)	((const char *const[]){ __VA_ARGS__, NULL })

static const struct cg_cmd cg_cmds[] = {
	{ "attach", CG_USAGE("DEV [--netns NS] [--egress|--no-egress] [--log-drops|--no-log-drops]\n"
			     "[--backend auto|bpf|kmod] [--mode tcx|clsact] [--object PATH --sha256 HEX]"),
	  "Guard DEV: drop what enters it (with --egress, also what leaves it) as a\n"
	  "CHECKSUM_PARTIAL packet whose checksum would start inside its IP headers.\n"
	  "Attach again adds what it asks to the guard and keeps what the guard has:\n"
	  "--egress and --log-drops stay until --no-egress and --no-log-drops take\n"
	  "them off (watch and the libvirt hook never do). --object loads the BPF\n"
	  "object at PATH instead of the built-in one, only if its SHA-256 is HEX and\n"
	  "its ABI is this loader's; a guarded device gets the new program in place,\n"
	  "counters kept (roll forward or back by repinning). A device guarded by\n"
	  "another csum-guard's program gets this one's the same way.\n",
	  "neElLbmosq", cg_run_attach },
	{ "detach", CG_USAGE("DEV [--netns NS]", "--all [--netns NS]"),
	  "Remove the guard of DEV, or every guard of the namespace or of the host\n"
	  "(--all). Detaching a device that is not guarded is done. A device that is\n"
	  "gone leaves its state to be removed by name.\n",
	  "nAq", cg_run_detach },
	{ "upgrade", CG_USAGE(""),
	  "Move every bpf guard of the host, in every namespace, onto this csum-guard's\n"
	  "program, options and counters kept; guards from --object and the module's\n"
	  "stay. The csum-guard package runs it when it is upgraded.\n",
	  "q", cg_run_upgrade },
	{ "status", CG_USAGE("[DEV] [--netns NS] [--json|--prometheus]\n"
			     "[--match GLOB[,GLOB...]]... [--no-containers]"),
	  "Say what guards DEV, or without DEV and --netns the guarded devices of every\n"
	  "network namespace and the guest-facing ones left unguarded. --prometheus\n"
	  "writes the counters for node_exporter's textfile collector\n"
	  "(csum_guard_guarded 0: an unguarded device to alert on). A device the\n"
	  "completion guard covers where its own hook cannot exist is \"covered\"; one\n"
	  "that --match or --no-containers, as watch takes them, leave alone is\n"
	  "\"excluded\", not unguarded. It only reads.\n",
	  "njPMNq", cg_run_status },
	{ "probe", CG_USAGE("[--json]"),
	  "Say what this host offers each backend, which one attach would choose, and\n"
	  "why. It loads nothing that stays.\n",
	  "jq", cg_run_probe },
	{ "doctor", CG_USAGE("[--json] [--match GLOB[,GLOB...]]... [--no-containers]"),
	  "Is this host guarded, and if not, what to do: the backends and why, the\n"
	  "module for the running kernel and what may refuse it (signature enforcement,\n"
	  "lockdown, Secure Boot), the completion guard, the watcher and its unit,\n"
	  "every guest-facing device and what guards it (its own guard, the completion\n"
	  "guard, nothing), whether that guard runs as it was attached, and what runs\n"
	  "ahead of it, the SYN responders. Give it the watcher's --match and\n"
	  "--no-containers: what they leave alone is excluded, not a failure. One line a\n"
	  "finding (ok, warn, fail) and what to do. Exit status: 0 nothing failed\n"
	  "(warnings allowed), 1 something failed. It changes nothing.\n",
	  "jMNq", cg_run_doctor },
	{ "verify", CG_USAGE("[--netns NS] [--heal] [--json]"),
	  "Is every guest-facing device of every network namespace (or of NS) guarded\n"
	  "as recorded? One line names each drift: a device not guarded (a guard's hook\n"
	  "taken off, the module not loaded), a guard running without an option it was\n"
	  "attached with, a tcx link updated to another program, a program another\n"
	  "csum-guard attached. --heal attaches each\n"
	  "again as recorded (backend, mode, options) and counts it as watch counts its\n"
	  "repairs. Exit status: 0 nothing drifted (or --heal put all of it back),\n"
	  "1 something drifted. Without --heal it changes nothing.\n",
	  "nHjq", cg_run_verify },
	{ "watch", CG_USAGE("[--match GLOB[,GLOB...]]... [--backend auto|bpf|kmod] [--log-drops]\n"
			    "[--no-completion] [--no-containers] [--ready-on-failure]\n"
			    "[--textfile PATH [--textfile-interval SECONDS]]"),
	  "Guard every guest-facing device of every network namespace, those that\n"
	  "appear later included, until stopped (SIGTERM); the guards stay when it\n"
	  "stops. It switches the module's completion guard on where the module runs\n"
	  "(not with --no-completion), and with --log-drops writes the drop events.\n"
	  "A container's link (a veth or netkit device whose peer is in another\n"
	  "namespace) is guest-facing too, unless --no-containers.\n"
	  "It says ready (READY=1) once every device there at its start is guarded;\n"
	  "until then it names those it cannot guard and tries them again.\n"
	  "With --textfile it writes what status --prometheus says (devices it leaves\n"
	  "alone marked excluded) and csum_guard_watch_last_scan_timestamp_seconds to\n"
	  "PATH every --textfile-interval seconds, through a new file renamed over it.\n",
	  "MblCNRTIq", cg_run_watch },
	{ "events", CG_USAGE("[--json]"),
	  "Write a line (--json: an object) for each drop of a guard attached with\n"
	  "--log-drops, and each completion the completion guard refuses, named by\n"
	  "namespace and device, offsets from the start of the frame; at most 10 a\n"
	  "second a device, then a count. Until stopped.\n",
	  "jq", cg_run_events },
	{ "check", CG_USAGE("[--path PATH[,PATH...]] [--json]"),
	  "Does this kernel write a guest's checksum over the IP header when one of\n"
	  "these completes it: frag (IPv4 fragmentation), tx and tx6 (transmit without\n"
	  "TX checksum offload, IPv4 and IPv6), xtcsum and xtcsum6 (iptables and\n"
	  "ip6tables -j CHECKSUM), nfqueue and nfqueue6 (an NFQUEUE read in copy-packet\n"
	  "mode)? It forwards one bad frame per path through a tap and a veth in\n"
	  "throwaway namespaces; guards on this host's devices are not there and do not\n"
	  "change the result. Exit status: 0 fixed (every path tested drops the frame),\n"
	  "10 vulnerable (some path corrupts it), 11 cannot tell (also when iptables or\n"
	  "a netfilter target is missing), 1 the check could not be set up.\n",
	  "pjq", cg_run_check },
	{ "completion", CG_USAGE("on|off|status [--json]"),
	  "The kernel module's completion guard, host-wide: it refuses at\n"
	  "skb_checksum_help() to complete a checksum that starts inside the IP\n"
	  "headers, whatever devices, tunnels or redirects the packet crossed (kmod\n"
	  "backend). --json goes with status.\n",
	  "jq", cg_run_completion },
	/* its forms are its own table's (cg_syncookie_usage()) */
	{ "syncookie", ((const char *const[]){ NULL }),
	  "The second guard: answer SYNs to chosen TCP ports of a device with SYN\n"
	  "cookies from XDP or tc, or the kernel's SYNPROXY (nft) where the helper is\n"
	  "missing. csum-guard syncookie CMD --help says more.\n",
	  NULL, cg_run_syncookie },
	{ "version", CG_USAGE("| -V | --version"), "Print the version and the ABI of the guards.\n", "",
	  cg_run_version },
	{ "help", CG_USAGE("| -h | --help"), "Print the usage of every command.\n", "", cg_run_help },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct cg_cli cg_cli = {
	.prog = "csum-guard",
	.opts = cg_opts,
	.cmds = cg_cmds,
	.common =
	"Every command also takes, anywhere on its line: --help (-h), --version (-V),\n"
	"--quiet (-q), and --wait SECONDS or --wait=SECONDS (wait that long at most for\n"
	"another csum-guard command to finish; default: as long as it takes; 0: not at\n"
	"all). --json, where a command takes it, goes anywhere too and makes errors\n"
	"JSON, {\"error\":\"...\"} on stdout.\n",
};

void cg_cli_main_help(FILE *f)
{
	const struct cg_cmd *c;

	for (c = cg_cmds; c->name; c++)
		if (c->run == cg_run_syncookie)
			cg_syncookie_usage(f);
		else
			cg_cli_usage_cmd(&cg_cli, c, f, c == cg_cmds);
	fputs("\nWhat a command does and takes: csum-guard COMMAND --help.\n", f);
	fputs(cg_cli.common, f);
}
