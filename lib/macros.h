/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef CG_MACROS_H
#define CG_MACROS_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* CG_MACROS_H */
