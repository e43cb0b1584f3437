// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_escape.c - the JSON and Prometheus quoting (lib/json.c) and the
 * terminal-safe text (lib/log.c) over any bytes, as a device's or a
 * namespace's name can hold them.
 *
 * The input: byte 0 the size of cg_text_safe()'s buffer, the rest the
 * string (up to its first NUL). What must hold, checked by a decoder
 * written here:
 *   - JSON: one string literal of RFC 8259, valid UTF-8, no raw control
 *     character; decoded, it is the input with each byte that does not
 *     start a valid UTF-8 sequence replaced by U+FFFD;
 *   - Prometheus: a label value of the text format (only \\, \" and \n
 *     escaped), valid UTF-8, no raw newline or control character;
 *     decoded, the input with invalid bytes and control characters but
 *     the newline as U+FFFD;
 *   - cg_text_safe(): NUL-terminated within its buffer, printable ASCII or
 *     valid UTF-8, no control character or escape sequence left raw.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "log.h"

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0; independent of
 * lib/log.c's */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned int cp, k, i;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

static void utf8_put(unsigned int cp, char **o)
{
	unsigned char *u = (unsigned char *)*o;

	if (cp < 0x80) {
		*u++ = cp;
	} else if (cp < 0x800) {
		*u++ = 0xc0 | cp >> 6;
		*u++ = 0x80 | (cp & 0x3f);
	} else {
		*u++ = 0xe0 | cp >> 12;
		*u++ = 0x80 | (cp >> 6 & 0x3f);
		*u++ = 0x80 | (cp & 0x3f);
	}
	*o = (char *)u;
}

/* What the input should decode to: invalid bytes as U+FFFD, and (prom)
 * control characters but the newline too */
static size_t expected(const char *in, int prom, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), k;
	char *o = out;

	while (n) {
		k = utf8_len(s, n);
		if (!k || (prom && ((s[0] < 0x20 && s[0] != '\n') || s[0] == 0x7f))) {
			utf8_put(0xfffd, &o);
			k = 1;
		} else {
			memcpy(o, s, k);
			o += k;
		}
		s += k;
		n -= k;
	}
	return o - out;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decode one quoted literal of len bytes into out; its length, or -1 */
static long decode(const char *q, size_t len, int prom, char *out)
{
	const unsigned char *s = (const unsigned char *)q;
	char *o = out;
	size_t i = 1, k;

	if (len < 2 || s[0] != '"' || s[len - 1] != '"')
		return -1;
	while (i < len - 1) {
		if (s[i] == '\\') {
			unsigned int cp = 0;
			int j, h;

			if (i + 1 >= len - 1)
				return -1;
			switch (s[i + 1]) {
			case '"': case '\\':
				*o++ = s[i + 1];
				i += 2;
				continue;
			case 'n':
				if (!prom)
					return -1;	/* our JSON writes \u000a */
				*o++ = '\n';
				i += 2;
				continue;
			case 'u':
				if (prom || i + 6 > len - 1)
					return -1;
				for (j = 2; j < 6; j++) {
					h = hexval(s[i + j]);
					if (h < 0)
						return -1;
					cp = cp << 4 | h;
				}
				if (cp >= 0xd800 && cp <= 0xdfff)
					return -1;
				utf8_put(cp, &o);
				i += 6;
				continue;
			default:
				return -1;
			}
		}
		if (s[i] == '"' || s[i] < 0x20 || s[i] == 0x7f)
			return -1;		/* raw quote or control character */
		k = utf8_len(s + i, len - 1 - i);
		if (!k)
			return -1;
		memcpy(o, s + i, k);
		o += k;
		i += k;
	}
	return o - out;
}

/* What cg_json_str or cg_prom_str writes for s */
static char *capture(const char *s, int prom, size_t *len)
{
	FILE *saved = stdout, *m;
	char *buf = NULL;

	m = open_memstream(&buf, len);
	if (!m)
		abort();
	stdout = m;
	if (prom)
		cg_prom_str(s);
	else
		cg_json_str(s);
	fclose(m);
	stdout = saved;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *want, *got, *q, *safe;
	size_t n, qlen, wlen, i, k;
	long glen;
	int prom;

	if (size < 1)
		return 0;
	n = size - 1;
	s = malloc(n + 1);
	memcpy(s, data + 1, n);
	s[n] = '\0';
	want = malloc(3 * strlen(s) + 1);
	got = malloc(6 * strlen(s) + 1);
	for (prom = 0; prom < 2; prom++) {
		wlen = expected(s, prom, want);
		q = capture(s, prom, &qlen);
		glen = decode(q, qlen, prom, got);
		if (glen < 0 || (size_t)glen != wlen || memcmp(got, want, wlen))
			abort();
		free(q);
	}
	/* cg_text_safe into a buffer of exactly data[0] bytes: printable,
	 * terminated, and unescaped a prefix of the input */
	k = data[0];
	safe = malloc(k ? k : 1);
	if (k) {
		const char *r = cg_text_safe(s, safe, k);
		size_t step, o = 0;

		if (r != safe || memchr(safe, 0, k) == NULL)
			abort();
		n = strlen(safe);
		for (i = 0; i < n; i += step) {
			unsigned char c = safe[i];

			step = utf8_len((unsigned char *)safe + i, n - i);
			if (!step || c < 0x20 || c == 0x7f)
				abort();
			if (c == '\\' && i + 1 < n && safe[i + 1] == '\\') {
				want[o++] = '\\';
				step = 2;
			} else if (c == '\\' && i + 3 < n && safe[i + 1] == 'x' &&
				   hexval(safe[i + 2]) >= 0 && hexval(safe[i + 3]) >= 0) {
				want[o++] = hexval(safe[i + 2]) << 4 | hexval(safe[i + 3]);
				step = 4;
			} else if (c == '\\') {
				abort();	/* a backslash left alone */
			} else {
				memcpy(want + o, safe + i, step);
				o += step;
			}
		}
		if (o > strlen(s) || memcmp(want, s, o))
			abort();
	}
	free(safe);
	free(want);
	free(got);
	free(s);
	return 0;
}
