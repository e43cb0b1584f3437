/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * commands.h - the commands main.c's table runs: those that change a
 * guard (attach.c) and those that only read (status.c); cg_attach() is
 * what watch attaches with too.
 */
#ifndef CG_COMMANDS_H
#define CG_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "backends.h"
#include "select.h"

/*
 * What a command line said, as main.c's parser fills it from the option
 * table (cmd.c): every option of every command, and the operands left.
 */
struct cg_args {
	const char *cmd;
	const char *netns;	/* --netns */
	const char *path;	/* check --path */
	const char *object;	/* attach --object */
	const char *sha256;	/* attach --sha256 */
	const char **match;	/* watch --match, each as given */
	int nmatch;
	enum cg_choice backend;	/* --backend */
	enum cg_attach_mode mode;	/* attach --mode */
	bool log_drops, egress, all, json, prometheus, no_completion, no_containers;
	bool no_egress, no_log_drops;	/* attach: turn off what the guard has */
	bool ready_on_failure;	/* watch */
	bool heal;		/* verify */
	const char *textfile;	/* watch --textfile */
	int textfile_interval;	/* watch --textfile-interval, seconds; 0: default */
	char **operands;
	int noperands;
};

/* The csum-guard command line: its options and commands (cmd.c) */
#include "cli.h"
extern const struct cg_cli cg_cli;
/* csum-guard --help: every command's usage, then what all of them take */
void cg_cli_main_help(FILE *f);

/* What attach was asked, by its command or by watch for a device it found */
struct cg_attach_req {
	const char *dev;
	const char *netns;	/* NULL: ours */
	enum cg_choice backend;	/* NONE: the one guarding it, else the probe's pick */
	/* opts adds to what a guard has: its egress and log-drops stay
	 * unless these ask to turn them off (attach --no-egress ...) */
	struct cg_attach_opts opts;
	bool no_egress, no_log_drops;
	/* the namespace netns is meant to be (watch: the one it watches);
	 * once entered it is checked, and -ESTALE if another took the path
	 * (a process's PID reused, a name bound again); 0: any */
	__u64 netns_ino;
	/* the device meant (watch: the one it saw under dev); -ESTALE if dev
	 * names another now (deleted and made again, moved); 0: any */
	int ifindex;
	const char *object_path;	/* attach --object, for messages */
};

/* What attach found and left */
struct cg_attach_result {
	enum cg_choice was_by;	/* the backend that guarded it before; NONE */
	enum cg_choice by;	/* the backend that guards it now */
	struct cg_status was, now;
	int ifindex;		/* the device's, in the namespace entered */
	const struct cg_kind *kind;	/* a guest-facing kind (lib/link.h), or NULL */
};

/*
 * Attach as asked, under the host lock (held until exit), saying nothing:
 * 0, or -errno with the reason in ack, worded to follow "cannot attach to
 * DEV in netns NS: ". It returns in the device's namespace.
 */
int cg_attach(const struct cg_attach_req *r, struct cg_attach_result *res, struct cg_ack *ack);
/*
 * cg_attach() in a child process: the host lock is held and the namespace
 * entered for the child's life only, and what the attach leaves behind
 * (libbpf's objects, a failure half-way) dies with it. 0; -ESTALE when the
 * namespace meant is no longer the one its path names; else -1, with the
 * reason in why, as the attach code worded it.
 */
int cg_attach_child(const struct cg_attach_req *r, char *why, size_t n);
/* The commands: exit status 0 or 1, with one line said on failure. */
int cg_cmd_attach(struct cg_attach_req *r, const char *sha256);
int cg_cmd_detach(const char *dev, const char *netns);
/* detach --all: every guard of netns, or of every namespace (NULL) */
int cg_cmd_detach_all(const char *netns);
/* upgrade: every guard of the host to this loader's program, options kept */
int cg_cmd_upgrade(void);

/* What status and probe were asked */
struct cg_query {
	const char *dev;	/* NULL: every guarded device */
	const char *netns;	/* NULL: every namespace (status without DEV) */
	bool json;
	bool prometheus;
	/* status: what watch would leave alone, marked excluded (--match,
	 * --no-containers as watch takes them) */
	const char *const *match;
	int nmatch;
	bool no_containers;
};
int cg_cmd_status(const struct cg_query *a);
/* csum-guard completion on|off|status: exit status 0, 1 or 2 */
int cg_cmd_completion(const struct cg_args *a);
int cg_cmd_probe(const struct cg_query *a);
/* csum-guard verify: exit status 0 (nothing drifted, or all healed), 1 */
int cg_cmd_verify(const char *netns, bool heal, bool json);
struct cg_report_row;
/* r's guard runs otherwise than it was attached (verify's options and
 * outdated drifts), in words into why */
bool cg_verify_guard_drifted(const struct cg_report_row *r, char *why, size_t n);
/* csum-guard doctor: exit status 0 (nothing failed), 1 (something did) */
int cg_cmd_doctor(const struct cg_args *a);

#endif /* CG_COMMANDS_H */
