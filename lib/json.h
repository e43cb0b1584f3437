/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* json.h - a small streaming JSON writer for stdout. */
#ifndef CG_JSON_H
#define CG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "log.h"	/* cg_utf8_seq(), cg_text_safe() */

/* A quoted, escaped string; bytes that are not UTF-8 become U+FFFD. */
void cg_json_str(const char *s);
void cg_json_kv_str(bool *first, const char *k, const char *v);	/* v NULL: null */
void cg_json_kv_u64(bool *first, const char *k, __u64 v);
void cg_json_kv_bool(bool *first, const char *k, bool v);
/* A Prometheus label value, quoted and escaped, likewise */
void cg_prom_str(const char *s);

#endif /* CG_JSON_H */
