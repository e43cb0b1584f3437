/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * log.h - what the user reads: one line per error, progress unless quiet,
 * usage errors with the exit status they carry, and libbpf kept quiet.
 */
#ifndef CG_LOG_H
#define CG_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define CG_EXIT_USAGE	2

/* One line on stderr, prefixed "csum-guard: "; with cg_json_errors set, one
 * JSON object {"error":"..."} on stdout instead (usage errors too). */
void cg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Bad usage: one line on stderr pointing at csum-guard help; returns 2. */
int cg_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress for humans, on stderr, unless --quiet. */
void cg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool cg_quiet;
/* Set: usage errors are "csum-guard: WHERE: why" (a file's FILE:LINE) */
extern const char *cg_usage_where;
extern bool cg_json_errors;	/* --json anywhere on the line */

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), 0 if there is none. */
size_t cg_utf8_seq(const char *s);
/* s for a terminal or a log: control characters, backslashes and bytes that
 * are not UTF-8 as \xHH (\\), in buf of size bytes (at least 6). Usage
 * errors pass through it whole: they echo what the user typed. */
const char *cg_text_safe(const char *s, char *buf, size_t size);

/*
 * Why an operation failed, in words, for its caller to say in one line of
 * its own ("cannot attach to tap0: <why>"): what lib/ and the backends fill
 * instead of printing, as netlink's extended ack does for the kernel.
 * The first reason recorded is kept: it is the most precise.
 */
struct cg_ack {
	char msg[256];
};

/* Record why (ack may be NULL) and return err, for `return cg_ack_err(...)`. */
int cg_ack_err(struct cg_ack *ack, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The reason recorded, else strerror(-err). */
const char *cg_ack_why(const struct cg_ack *ack, int err);
/* libbpf says nothing, but its warnings with CSUM_GUARD_DEBUG set. */
void cg_log_libbpf(void);

#endif /* CG_LOG_H */
