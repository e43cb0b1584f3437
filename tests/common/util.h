/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * util.h - what the benchmark tools (and the test tool cg-stream) share:
 * entering a network namespace, pinning to one CPU, parsing numbers,
 * reading clocks, opening IPv4 or IPv6 sockets.
 */
#ifndef CGB_UTIL_H
#define CGB_UTIL_H

#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

/* Enter the netns NAME (/run/netns/NAME) or PATH; 0 or -errno. */
int cgb_netns_enter(const char *ns);

/* Run the calling thread on cpu only; 0 or -errno. A negative cpu: no-op. */
int cgb_pin_cpu(int cpu);

/* A decimal number in [min, max], or exit 2 naming the flag. */
unsigned long cgb_num(const char *prog, const char *flag, const char *arg,
		      unsigned long min, unsigned long max);

/* ADDR (IPv4 or IPv6) and PORT into *ss; its length, or -EINVAL. */
int cgb_sockaddr(const char *addr, unsigned long port, struct sockaddr_storage *ss);

/*
 * A socket of type (SOCK_STREAM: listening, SOCK_DGRAM: bound) on
 * ADDR:PORT; fd or -errno.
 */
int cgb_listen(int type, const char *addr, unsigned long port);

/*
 * A socket of type connected to ADDR:PORT; a refused TCP connect is tried
 * again every 10 ms, tries times in all. fd or -errno.
 */
int cgb_connect(int type, const char *addr, unsigned long port, unsigned int tries);

static inline uint64_t cgb_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The next number of Marsaglia's xorshift64 from the state *s (not 0) */
static inline uint64_t cgb_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* CGB_UTIL_H */
