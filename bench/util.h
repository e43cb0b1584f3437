/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * util.h - what the benchmark tools share: entering a network namespace,
 * pinning to one CPU, parsing numbers, reading clocks.
 */
#ifndef CGB_UTIL_H
#define CGB_UTIL_H

#include <stdint.h>
#include <time.h>

/* Enter the netns NAME (/run/netns/NAME) or PATH; 0 or -errno. */
int cgb_netns_enter(const char *ns);

/* Run the calling thread on cpu only; 0 or -errno. A negative cpu: no-op. */
int cgb_pin_cpu(int cpu);

/* A decimal number in [min, max], or exit 2 naming the flag. */
unsigned long cgb_num(const char *prog, const char *flag, const char *arg,
		      unsigned long min, unsigned long max);

static inline uint64_t cgb_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#endif /* CGB_UTIL_H */
