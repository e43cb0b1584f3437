// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * completion.c - csum-guard completion: the kernel module's completion
 * guard, host-wide, which refuses at skb_checksum_help() to complete a
 * checksum that starts inside the IP headers, whatever path the packet
 * took (kmod/complete.c).
 *
 *	csum-guard completion on|off
 *	csum-guard completion [status] [--json]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "log.h"
#include "state.h"
#include "backend.h"
#include "commands.h"

/* why: the host cannot have it (and it is off), NULL if it can */
static void cg_completion_print(const struct cg_completion *c, const char *why, bool json)
{
	bool first = true;

	if (!json) {
		if (why) {
			printf("completion guard: unavailable: %s\n", why);
		} else {
			printf("completion guard: %s, refused %llu (dropped %llu, dropped_unreadable %llu)",
			       c->on ? "on" : "off",
			       (unsigned long long)(c->dropped + c->dropped_unreadable),
			       (unsigned long long)c->dropped,
			       (unsigned long long)c->dropped_unreadable);
			/* counted apart: any user can make those */
			if (c->others)
				printf(", and %llu in unprivileged namespaces",
				       (unsigned long long)c->others);
			putchar('\n');
		}
		return;
	}
	putchar('{');
	cg_json_kv_bool(&first, "on", c->on);
	cg_json_kv_str(&first, "unavailable", why);
	cg_json_kv_u64(&first, "dropped", c->dropped);
	cg_json_kv_u64(&first, "dropped_unreadable", c->dropped_unreadable);
	if (c->has_others)
		cg_json_kv_u64(&first, "unprivileged_namespaces", c->others);
	puts("}");
}

int cg_cmd_completion(const struct cg_args *a)
{
	const char *verb = a->noperands ? a->operands[0] : "status";
	struct cg_completion c;
	struct cg_ack ack = {};
	bool json = a->json;
	int want, err;

	if (a->noperands > 1)
		return cg_usage_err("completion takes one of on, off, status, not '%s' too",
				    a->operands[1]);
	if (!strcmp(verb, "on"))
		want = 1;
	else if (!strcmp(verb, "off"))
		want = 0;
	else if (!strcmp(verb, "status"))
		want = -1;
	else
		return cg_usage_err("completion takes on, off or status, not '%s'", verb);
	if (json && want >= 0)
		return cg_usage_err("--json goes with completion status");
	if (cg_cli_need_root(want < 0 ? "read the completion guard" : "switch the completion guard"))
		return 1;
	err = want >= 0 ? cg_lock_host(&ack) : 0;
	if (!err)
		err = cg_kmod_completion(want, &c, &ack);
	if (err) {
		cg_err("cannot %s the completion guard: %s",
		       want < 0 ? "read" : want ? "switch on" : "switch off", cg_ack_why(&ack, err));
		return 1;
	}
	if (want < 0) {
		struct cg_probe p = {};

		if (!c.on)
			cg_kmod_probe_completion_only(&p);
		cg_completion_print(&c, *p.completion_err ? p.completion_err : NULL, json);
	}
	else
		cg_info("completion guard %s", c.on ? "on" : "off");
	return 0;
}
