// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* json.c - just enough JSON for status and probe, and Prometheus label values, to stdout. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/*
 * s quoted for JSON, or (prom) as a Prometheus label value, which has only
 * \\, \" and \n: there a control character becomes U+FFFD too
 */
static void cg_quote(const char *s, bool prom)
{
	size_t n;

	putchar('"');
	for (; *s; s += n ?: 1) {
		unsigned char c = *s;

		n = cg_utf8_seq(s);
		if (!n)
			fputs(prom ? "\xef\xbf\xbd" : "\\ufffd", stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (prom && c == '\n')
			fputs("\\n", stdout);
		else if ((c < 0x20 || c == 0x7f) && prom)
			fputs("\xef\xbf\xbd", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			fwrite(s, 1, n, stdout);
	}
	putchar('"');
}

void cg_json_str(const char *s)
{
	cg_quote(s, false);
}

static void cg_json_key(bool *first, const char *k)
{
	if (!*first)
		putchar(',');
	*first = false;
	cg_json_str(k);
	putchar(':');
}

void cg_json_kv_str(bool *first, const char *k, const char *v)
{
	cg_json_key(first, k);
	if (v)
		cg_json_str(v);
	else
		fputs("null", stdout);
}

void cg_json_kv_u64(bool *first, const char *k, __u64 v)
{
	cg_json_key(first, k);
	printf("%" PRIu64, (uint64_t)v);
}

void cg_json_kv_bool(bool *first, const char *k, bool v)
{
	cg_json_key(first, k);
	fputs(v ? "true" : "false", stdout);
}

void cg_prom_str(const char *s)
{
	cg_quote(s, true);
}
