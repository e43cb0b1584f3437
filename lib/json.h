/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* json.h - a small streaming JSON writer for stdout. */
#ifndef CG_JSON_H
#define CG_JSON_H

#include <stdbool.h>
#include <linux/types.h>

void cg_json_str(const char *s);		/* a quoted, escaped string */
void cg_json_kv_str(bool *first, const char *k, const char *v);	/* v NULL: null */
void cg_json_kv_u64(bool *first, const char *k, __u64 v);
void cg_json_kv_bool(bool *first, const char *k, bool v);

#endif /* CG_JSON_H */
