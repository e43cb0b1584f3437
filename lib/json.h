/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* json.h - a small streaming JSON writer for stdout. */
#ifndef CG_JSON_H
#define CG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), 0 if there is none. */
size_t cg_utf8_seq(const char *s);
/* A quoted, escaped string; bytes that are not UTF-8 become U+FFFD. */
void cg_json_str(const char *s);
/* s for a terminal or a log: control characters, backslashes and bytes that
 * are not UTF-8 as \xHH (\\), in buf of size bytes (at least 6). */
const char *cg_text_safe(const char *s, char *buf, size_t size);
void cg_json_kv_str(bool *first, const char *k, const char *v);	/* v NULL: null */
void cg_json_kv_u64(bool *first, const char *k, __u64 v);
void cg_json_kv_bool(bool *first, const char *k, bool v);

#endif /* CG_JSON_H */
