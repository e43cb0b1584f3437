// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* log.c - messages to the user (see log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "log.h"

bool cg_quiet;

/* "csum-guard: MESSAGE TAIL" on stderr */
static void cg_vline(const char *tail, const char *fmt, va_list ap)
{
	fputs("csum-guard: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

void cg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cg_vline("\n", fmt, ap);
	va_end(ap);
}

void cg_info(const char *fmt, ...)
{
	va_list ap;

	if (cg_quiet)
		return;
	va_start(ap, fmt);
	cg_vline("\n", fmt, ap);
	va_end(ap);
}

int cg_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cg_vline(" (see csum-guard help)\n", fmt, ap);
	va_end(ap);
	return CG_EXIT_USAGE;
}

int cg_ack_err(struct cg_ack *ack, int err, const char *fmt, ...)
{
	va_list ap;

	if (ack && !ack->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(ack->msg, sizeof(ack->msg), fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *cg_ack_why(const struct cg_ack *ack, int err)
{
	return ack && ack->msg[0] ? ack->msg : strerror(err < 0 ? -err : err);
}

static int cg_silent_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("CSUM_GUARD_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void cg_log_libbpf(void)
{
	libbpf_set_print(cg_silent_libbpf);
}
