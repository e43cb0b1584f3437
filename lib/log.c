// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* log.c - messages to the user (see log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include <unistd.h>

#include "journal.h"
#include "json.h"
#include "log.h"

bool cg_quiet;
bool cg_json_errors;
const char *cg_usage_where;

/* "csum-guard: MESSAGE TAIL" on stderr; where stderr is the journal's
 * stream, "<PRIO>" before it, so that journalctl -p err finds failures */
static void cg_vline(int prio, const char *tail, const char *fmt, va_list ap)
{
	static int journal = -1;

	if (journal < 0)
		journal = cg_journal_stream(STDERR_FILENO);
	if (journal)
		fprintf(stderr, "<%d>", prio);
	fputs("csum-guard: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

/* {"error":"MESSAGE"} on stdout, as bpftool writes its errors under --json */
static void cg_json_error(const char *msg)
{
	fputs("{\"error\":", stdout);
	cg_json_str(msg);
	fputs("}\n", stdout);
	fflush(stdout);
}

void cg_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	if (cg_json_errors) {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		cg_json_error(msg);
	} else {
		cg_vline(CG_PRIO_ERR, "\n", fmt, ap);
	}
	va_end(ap);
}

void cg_info(const char *fmt, ...)
{
	va_list ap;

	if (cg_quiet)
		return;
	va_start(ap, fmt);
	cg_vline(CG_PRIO_INFO, "\n", fmt, ap);
	va_end(ap);
}

int cg_usage_err(const char *fmt, ...)
{
	char msg[512], safe[4 * sizeof(msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cg_usage_where) {
		/* a line of a file: where it is says more than help would */
		char line[sizeof(msg) + 260];

		snprintf(line, sizeof(line), "%.255s: %s", cg_usage_where, msg);
		if (cg_json_errors)
			cg_json_error(line);
		else
			fprintf(stderr, "csum-guard: %s\n", cg_text_safe(line, safe, sizeof(safe)));
		return CG_EXIT_USAGE;
	}
	if (cg_json_errors) {
		/* cg_json_str() escapes what the user typed itself */
		snprintf(safe, sizeof(safe), "%s (see csum-guard help)", msg);
		cg_json_error(safe);
	} else {
		fprintf(stderr, "csum-guard: %s (see csum-guard help)\n",
			cg_text_safe(msg, safe, sizeof(safe)));
	}
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

size_t cg_utf8_seq(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (c == 0xe0 && s[1] < 0xa0) ||	/* overlong */
		    (c == 0xed && s[1] >= 0xa0))	/* a surrogate */
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (c == 0xf0 && s[1] < 0x90) ||	/* overlong */
		    (c == 0xf4 && s[1] >= 0x90))	/* past U+10FFFF */
			return 0;
		return 4;
	}
	return 0;
}

const char *cg_text_safe(const char *s, char *buf, size_t size)
{
	size_t off = 0, n;

	for (; *s && off + 5 < size; s += n ?: 1) {
		unsigned char c = *s;

		n = cg_utf8_seq(s);
		if (c == '\\') {
			memcpy(buf + off, "\\\\", 2);
			off += 2;
		} else if (!n || c < 0x20 || c == 0x7f) {
			off += snprintf(buf + off, size - off, "\\x%02x", c);
			n = 1;
		} else {
			memcpy(buf + off, s, n);
			off += n;
		}
	}
	buf[off] = '\0';
	return buf;
}
