/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * util.h - what the benchmark tools (and the test tools cg-stream and
 * sc-syn) share: entering a network namespace, pinning to one CPU, parsing
 * numbers and MACs, a device's MAC, reading clocks, opening IPv4 or IPv6
 * sockets.
 */
#ifndef CGB_UTIL_H
#define CGB_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sys/socket.h>

/* Enter the netns NAME (/run/netns/NAME) or PATH; 0 or -errno. */
int cgb_netns_enter(const char *ns);

/* Run the calling thread on cpu only; 0 or -errno. A negative cpu: no-op. */
int cgb_pin_cpu(int cpu);

/* A decimal number in [min, max], or exit 2 naming the flag. */
unsigned long cgb_num(const char *prog, const char *flag, const char *arg,
		      unsigned long min, unsigned long max);

/* "aa:bb:cc:dd:ee:ff" into mac[6]: 0, or -1 where s is not a MAC */
static inline int cgb_mac_parse(const char *s, uint8_t *mac)
{
	char end;

	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx%c", &mac[0], &mac[1], &mac[2], &mac[3],
		      &mac[4], &mac[5], &end) == 6 ? 0 : -1;
}

/* DEV's MAC into mac[6], in the netns entered: its ifindex, or -errno */
int cgb_dev_mac(const char *dev, uint8_t *mac);

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
