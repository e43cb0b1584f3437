/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_SHA256_H
#define CG_SHA256_H

#include <stddef.h>
#include <linux/types.h>

#define CG_SHA256_LEN	32
#define CG_SHA256_HEX	(2 * CG_SHA256_LEN)

void cg_sha256(const void *data, size_t len, unsigned char out[CG_SHA256_LEN]);
/* lower-case hex, NUL-terminated */
void cg_sha256_hex(const unsigned char d[CG_SHA256_LEN], char hex[CG_SHA256_HEX + 1]);

#endif /* CG_SHA256_H */
