// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - the csum-guard command: one contract over both backends.
 *
 *	csum-guard attach DEV [--netns NS] [--egress] [--log-drops] [--backend B] [--mode M]
 *	csum-guard detach DEV [--netns NS]
 *	csum-guard status [DEV] [--netns NS] [--json|--prometheus]
 *	csum-guard probe [--json]
 *	csum-guard watch [--match GLOB[,GLOB...]]... [--backend B] [--log-drops]
 *	csum-guard check [--path frag|tx] [--json]
 *
 * Exit status: 0 done (detaching an unguarded device is done), 1 failed,
 * 2 bad usage. Errors are one line on stderr; nothing is left half-made.
 * check (check.h): 0 fixed, 10 vulnerable, 11 cannot tell, 1 set-up failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "json.h"
#include "cli.h"
#include "log.h"
#include "netns.h"
#include "sha256.h"
#include "state.h"
#include "csum_guard_abi.h"
#include "backend.h"
#include "commands.h"
#include "check.h"
#include "report.h"
#include "select.h"
#include "syncookie.h"
#include "watch.h"

#ifndef CG_VERSION
#define CG_VERSION "0.0.0"
#endif
#define CG_OBJECT_MAX	(64 << 20)	/* attach --object: far above any guard */

static const char usage_text[] =
	"Usage: csum-guard attach DEV [--netns NS] [--egress] [--log-drops] [--backend auto|bpf|kmod] [--mode tcx|clsact]\n"
	"                         [--object PATH --sha256 HEX]\n"
	"       csum-guard detach DEV [--netns NS]\n"
	"       csum-guard status [DEV] [--netns NS] [--json|--prometheus]\n"
	"       csum-guard probe [--json]\n"
	"       csum-guard watch [--match GLOB[,GLOB...]]... [--backend auto|bpf|kmod] [--log-drops]\n"
	"       csum-guard check [--path frag|tx] [--json]\n"
	"       csum-guard syncookie attach DEV --ports P[,P...] [--netns NS]\n"
	"                         [--mode auto|xdp|xdp-generic|tc|nft] [--set-sysctl]\n"
	"       csum-guard syncookie detach DEV [--netns NS]\n"
	"       csum-guard syncookie status [DEV] [--netns NS] [--json]\n"
	"       csum-guard syncookie probe [--json]\n"
	"       csum-guard version\n"
	"NS is a name from `ip netns` or a path such as /proc/PID/ns/net.\n"
	"check: does this kernel write a guest's checksum over the IPv4 header when IP\n"
	"  fragmentation (frag) or the transmit path of a device without checksum\n"
	"  offload (tx) completes it? It forwards one bad frame per path through a tap\n"
	"  and a veth in throwaway namespaces; guards on this host's devices are not\n"
	"  there and do not change the result. Exit status: 0 fixed (every path tested\n"
	"  drops the frame), 10 vulnerable (some path corrupts it), 11 cannot tell,\n"
	"  1 the check could not be set up.\n"
	"attach guards what enters DEV; --egress also what leaves it, such as the host's\n"
	"own AF_PACKET frames. Options converge: attach without --egress removes it.\n"
	"--object loads the BPF object at PATH instead of the built-in one, only if its\n"
	"  SHA-256 is HEX and its ABI is this loader's; a guarded device gets the new\n"
	"  program in place, counters kept (roll forward or back by repinning).\n"
	"status without DEV and --netns lists the guarded devices of every network\n"
	"  namespace; --prometheus writes the counters for node_exporter's textfile\n"
	"  collector.\n"
	"syncookie: answer SYNs to the given TCP ports of DEV with SYN cookies from\n"
	"  XDP or tc (bpf_tcp_gen_syncookie), or the kernel's SYNPROXY (nft) where\n"
	"  the helper is missing. Needs net.ipv4.tcp_syncookies=2 in DEV's netns\n"
	"  (nft: net.netfilter.nf_conntrack_tcp_loose=0); --set-sysctl sets it and\n"
	"  detach puts the old value back.\n";

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
				return cg_usage_err("unknown path '%s' (frag or tx)", optarg);
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
	ret = cg_cli_device(argc, argv, a->cmd, with_dev, with_dev && strcmp(a->cmd, "status"),
			    &a->dev);
	if (ret)
		return ret;
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

/*
 * attach --object PATH --sha256 HEX: read the object once, and hand libbpf
 * those very bytes only if their digest is the one given and they are a
 * guard of our ABI. Nothing is touched before that.
 */
static int cg_object_read(const struct cg_args *a, void **data, size_t *size)
{
	unsigned char digest[CG_SHA256_LEN];
	char hex[CG_SHA256_HEX + 1], why[128];
	struct stat st;
	void *buf;
	int fd, err;

	fd = open(a->object, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		cg_err("cannot attach: object %s: %s", a->object, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > CG_OBJECT_MAX) {
		cg_err("cannot attach: object %s: not a regular file of 1 byte to %d MiB",
		       a->object, CG_OBJECT_MAX >> 20);
		goto fail;
	}
	buf = malloc(st.st_size);
	if (!buf || read(fd, buf, st.st_size) != st.st_size) {
		cg_err("cannot attach: object %s: %s", a->object,
		       buf ? "short read" : strerror(ENOMEM));
		free(buf);
		goto fail;
	}
	close(fd);
	cg_sha256(buf, st.st_size, digest);
	cg_sha256_hex(digest, hex);
	if (strcasecmp(hex, a->sha256)) {
		cg_err("cannot attach: object %s has SHA-256 %s, not %s: nothing attached",
		       a->object, hex, a->sha256);
		free(buf);
		return -EBADMSG;
	}
	err = cg_bpf_object_check(buf, st.st_size, why, sizeof(why));
	if (err) {
		cg_err("cannot attach: object %s: %s: nothing attached", a->object, why);
		free(buf);
		return err;
	}
	*data = buf;
	*size = st.st_size;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -EINVAL;
}

/* What an update changed, e.g. ": egress added, log-drops off" */
static void cg_changes_text(const struct cg_status *was, const struct cg_status *now,
			    char *buf, size_t n)
{
	const char *e = was->egress == now->egress ? NULL :
			now->egress ? "egress added" : "egress removed";
	const char *l = was->log_drops == now->log_drops ? NULL :
			now->log_drops ? "log-drops on" : "log-drops off";

	if (e && l)
		snprintf(buf, n, ": %s, %s", e, l);
	else if (e || l)
		snprintf(buf, n, ": %s", e ?: l);
}

/*
 * The bpf backend's drop log is the trace buffer (bpf_printk), which
 * records nothing while tracing is switched off.
 */
#define CG_TRACING_ON "/sys/kernel/tracing/tracing_on"

static bool cg_tracing_off(void)
{
	char c = '1';
	int fd = open(CG_TRACING_ON, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;	/* tracefs not mounted: the buffer still records */
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '0';
}

static int do_attach(const struct cg_args *a)
{
	struct cg_attach_opts o = {
		.log_drops = a->log_drops, .egress = a->egress, .mode = a->mode,
	};
	enum cg_choice now, use, want = a->backend;
	struct cg_status st, was;
	struct cg_target t;
	struct cg_probe p;
	char where[128], why[256], what[64] = "";
	bool changed;
	int err;

	cg_target_where(&(struct cg_target){ .dev = a->dev, .netns = a->netns }, where, sizeof(where));
	if (cg_cli_need_root("attach"))
		return 1;
	if (a->object) {
		void *data;

		if (cg_object_read(a, &data, &o.object_size))
			return 1;
		o.object = data;	/* freed at exit */
		want = CG_CHOICE_BPF;
	}
	if (cg_lock_host() || cg_target_resolve(&t, a->dev, a->netns, "attach to"))
		return 1;

	now = cg_guarded_by(&t, &st);
	if (now != CG_CHOICE_NONE && want != CG_CHOICE_NONE && want != now) {
		cg_err("cannot attach to %s: already guarded by the %s backend; detach it first",
		       where, cg_choice_name(now));
		return 1;
	}
	changed = now != CG_CHOICE_NONE &&
		  (st.log_drops != a->log_drops || st.egress != a->egress);
	was = st;
	use = now;
	if (use == CG_CHOICE_NONE) {
		cg_probe_all(&p);
		use = cg_select(&p, want, why, sizeof(why));
		if (use == CG_CHOICE_NONE) {
			cg_err("cannot attach to %s: %s", where, why);
			return 1;
		}
	}
	err = cg_backends[use]->attach(&t, &o);
	if (err) {
		if (!cg_log_reported())
			cg_err("cannot attach to %s: %s", where, strerror(-err));
		return 1;
	}
	if (cg_backends[use]->status(&t, &st) || !st.attached) {
		cg_err("cannot attach to %s: the %s backend reports it unguarded after attach",
		       where, cg_choice_name(use));
		return 1;
	}
	if (changed)
		cg_changes_text(&was, &st, what, sizeof(what));
	else if (now != CG_CHOICE_NONE && a->object && was.prog_id != st.prog_id) {
		changed = true;
		snprintf(what, sizeof(what), ": program replaced from %s", a->object);
	}
	cg_info("%s %s (%s, %s%s)%s",
		now == CG_CHOICE_NONE ? "guarding" : changed ? "updated the guard of" : "already guarding",
		where, cg_choice_name(use), st.mode, cg_opts_text(&st), what);
	if (use == CG_CHOICE_BPF && st.log_drops && cg_tracing_off())
		cg_info("note: tracing is off (%s is 0): the drop log stays empty until it is on",
			CG_TRACING_ON);
	return 0;
}

/*
 * What the guards of a device or a namespace that is gone left, recorded
 * under its name: removed, never touching a device that now has the name
 * or the ifindex. t as cg_target_resolve_gone() left it: t->netns_ino 0
 * when the namespace is gone.
 */
static int cg_detach_gone(const struct cg_args *a, struct cg_target *t, const char *where)
{
	enum cg_choice c;
	int n, total = 0;

	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++) {
		n = cg_backends[c]->forget(t);
		if (n < 0) {
			cg_err("cannot detach from %s (%s): %s", where, cg_choice_name(c),
			       strerror(-n));
			return -1;
		}
		if (n && !t->netns_ino)
			cg_info("netns %s is gone: removed the state of %d %s guard%s it had",
				a->netns, n, cg_choice_name(c), n > 1 ? "s" : "");
		else if (n)
			cg_info("%s was gone: removed the state of its %s guard", where,
				cg_choice_name(c));
		total += n;
	}
	return total;
}

static int do_detach(const struct cg_args *a)
{
	enum cg_choice c;
	struct cg_target t;
	bool any = false;
	char where[128];
	int err;

	cg_target_where(&(struct cg_target){ .dev = a->dev, .netns = a->netns }, where, sizeof(where));
	if (cg_cli_need_root("detach") || cg_lock_host())
		return 1;
	/* a device or a namespace that is gone is not guarded any more */
	err = cg_target_resolve_gone(&t, a->dev, a->netns, "detach from");
	if (err == -ENODEV || err == -ENOENT) {
		err = cg_detach_gone(a, &t, where);
		if (err < 0)
			return 1;
		if (!err)
			cg_info("%s: %s, and no guard recorded under that name", where,
				t.netns_ino ? "no such device" : "no such network namespace");
		return 0;
	}
	if (err)
		return 1;
	for (c = CG_CHOICE_BPF; c <= CG_CHOICE_KMOD; c++) {
		err = cg_backends[c]->detach(&t);
		if (!err) {
			any = true;
			cg_info("detached from %s (%s)", where, cg_choice_name(c));
		} else if (err != -ENOENT) {
			if (!cg_log_reported())
				cg_err("cannot detach from %s (%s): %s", where,
				       cg_choice_name(c), strerror(-err));
			return 1;
		}
	}
	/* a device of that name that was deleted and made again */
	err = cg_detach_gone(a, &t, where);
	if (err < 0)
		return 1;
	if (!any && !err)
		cg_info("%s is not guarded", where);
	return 0;
}

int main(int argc, char **argv)
{
	struct cg_query q;
	struct cg_args a = {};
	int ret;

	if (argc < 2)
		return cg_usage_err("no command");
	a.cmd = argv[1];
	if (!strcmp(a.cmd, "help") || !strcmp(a.cmd, "--help") || !strcmp(a.cmd, "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(a.cmd, "version") || !strcmp(a.cmd, "--version")) {
		printf("csum-guard %s (abi %d)\n", CG_VERSION, CG_ABI_VERSION);
		return 0;
	}
	if (!strcmp(a.cmd, "syncookie")) {
		cg_log_libbpf();
		return cg_syncookie(argc, argv);
	}
	if (!strcmp(a.cmd, "watch")) {
		cg_log_libbpf();
		return cg_watch(argc, argv);
	}
	if (strcmp(a.cmd, "attach") && strcmp(a.cmd, "detach") &&
	    strcmp(a.cmd, "status") && strcmp(a.cmd, "probe") && strcmp(a.cmd, "check"))
		return cg_usage_err("unknown command '%s'", a.cmd);
	ret = cg_parse(argc, argv, &a);
	if (ret)
		return ret;

	cg_log_libbpf();
	q = (struct cg_query){
		.dev = a.dev, .netns = a.netns, .json = a.json, .prometheus = a.prometheus,
	};
	if (!strcmp(a.cmd, "attach"))
		return do_attach(&a);
	if (!strcmp(a.cmd, "detach"))
		return do_detach(&a);
	if (!strcmp(a.cmd, "status"))
		return cg_cmd_status(&q);
	if (!strcmp(a.cmd, "check"))
		return cg_check(a.path, a.json);
	return cg_cmd_probe(&q);
}
