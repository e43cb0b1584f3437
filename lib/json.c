// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* json.c - just enough JSON for status and probe, written to stdout. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

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

void cg_json_str(const char *s)
{
	size_t n;

	putchar('"');
	for (; *s; s += n ?: 1) {
		unsigned char c = *s;

		n = cg_utf8_seq(s);
		if (!n)
			fputs("\\ufffd", stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			fwrite(s, 1, n, stdout);
	}
	putchar('"');
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
