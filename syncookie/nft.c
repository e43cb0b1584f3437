// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nft.c - the fallback where the kernel lacks bpf_tcp_gen_syncookie: the
 * kernel's SYNPROXY, in an nftables table of our own per device, driven by
 * running nft with an argument vector (never through a shell).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "log.h"
#include "sc.h"

/* Read fd to its end: the first len - 1 bytes into buf (NULL: none), NUL-terminated. */
static void sc_drain(int fd, char *buf, size_t len)
{
	char sink[256];
	size_t got = 0;
	ssize_t r;

	for (;;) {
		bool keep = buf && got < len - 1;

		r = read(fd, keep ? buf + got : sink, keep ? len - 1 - got : sizeof(sink));
		if (r <= 0)
			break;
		if (keep)
			got += r;
	}
	if (buf)
		buf[got] = '\0';
}

/*
 * Run nft with argv (no shell), script on its stdin (NULL: none); up to
 * out_len bytes of its stdout into out and the first line of its stderr
 * into err, each NUL-terminated where given. Its exit status, or -1.
 */
static int sc_nft(const char *const *argv, const char *script, char *out, size_t out_len,
		  char *err, size_t err_len)
{
	int in[2] = { -1, -1 }, o[2], e[2], st, devnull;
	ssize_t r;
	pid_t pid;

	if (pipe2(o, O_CLOEXEC))
		return -1;
	if (pipe2(e, O_CLOEXEC)) {
		close(o[0]);
		close(o[1]);
		return -1;
	}
	if (script && pipe2(in, O_CLOEXEC)) {
		close(o[0]);
		close(o[1]);
		close(e[0]);
		close(e[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(script ? in[0] : devnull, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (script) {
		close(in[0]);
		if (pid > 0) {
			/* an nft that died early must not take us with it */
			void (*was)(int) = signal(SIGPIPE, SIG_IGN);
			size_t len = strlen(script), off = 0;

			while (off < len && (r = write(in[1], script + off, len - off)) > 0)
				off += r;
			signal(SIGPIPE, was);
		}
		close(in[1]);
	}
	sc_drain(o[0], out, out_len);
	sc_drain(e[0], err, err_len);
	if (err)
		err[strcspn(err, "\n")] = '\0';
	close(o[0]);
	close(e[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool sc_nft_have(void)
{
	static const char *const argv[] = { "nft", "--version", NULL };

	return sc_nft(argv, NULL, NULL, 0, NULL, 0) == 0;
}

static void sc_nft_table(char *buf, size_t n, int ifindex)
{
	snprintf(buf, n, SC_NFT_TABLE_FMT, ifindex);
}

bool sc_nft_exists(int ifindex)
{
	char table[64];
	const char *argv[] = { "nft", "list", "table", "inet", table, NULL };

	sc_nft_table(table, sizeof(table), ifindex);
	return sc_nft(argv, NULL, NULL, 0, NULL, 0) == 0;
}

void sc_nft_delete(int ifindex)
{
	char table[64];
	const char *argv[] = { "nft", "delete", "table", "inet", table, NULL };

	sc_nft_table(table, sizeof(table), ifindex);
	sc_nft(argv, NULL, NULL, 0, NULL, 0);
}

/* "22, 80" */
void sc_ports_text(const struct sc_ports *p, char *buf, size_t n)
{
	size_t len = 0;
	int port;

	buf[0] = '\0';
	for (port = 1; port < 65536 && len < n; port++)
		if (p->bits[port >> 3] & (1 << (port & 7)))
			len += snprintf(buf + len, n - len, "%s%d", len ? ", " : "", port);
}

/*
 * The IPv4 sources of --allow, "10.0.0.0/8, 192.0.2.1/32"; without --allow
 * every source, "0.0.0.0/0"; "" when --allow has IPv6 ones only.
 */
static void sc_allow_text4(const struct sc_args *a, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	if (!a->nallow) {
		snprintf(buf, n, "0.0.0.0/0");
		return;
	}
	for (i = 0; i < a->nallow && len < n; i++) {
		const struct sc_route_key *k = &a->allow[i];

		if (k->prefixlen < 96 || k->addr[10] != 0xff || k->addr[11] != 0xff)
			continue;	/* IPv6: SYNPROXY here is IPv4 only */
		len += snprintf(buf + len, n - len, "%s%u.%u.%u.%u/%u", len ? ", " : "", k->addr[12],
				k->addr[13], k->addr[14], k->addr[15], k->prefixlen - 96);
	}
}

/*
 * The table, made or updated in one nft transaction. IPv4 SYNs to the
 * ports skip conntrack; SYNPROXY answers them and the returning ACK
 * (untracked or invalid), then opens the connection to the listener
 * itself. Its MSS is the device's MTU less the headers; wscale 7 is what
 * the listener uses with Linux's default buffers (SYNPROXY does not
 * rewrite windows). Counters: SYNs answered (synack), ACKs handed to
 * SYNPROXY (acks), invalid packets dropped after it (dropped). IPv4 only:
 * nft's synproxy expression checks the TCP checksum with nf_ip_checksum(),
 * IPv4's, for IPv6 too (nft_synproxy_do_eval(), 5.3 to 6.18), so an IPv6
 * SYN whose checksum is checked in software fails it and is dropped
 * unanswered; IPv6 stays the stack's.
 */
int sc_nft_apply(const struct sc_target *t, const struct sc_args *a, bool fresh)
{
	static const char *const argv[] = { "nft", "-f", "-", NULL };
	char table[64], list[SC_MAX_PORTS * 8], err[256], allow[SC_ALLOW_MAX * 20];
	size_t cap = 8192 + sizeof(list) * 4 + sizeof(allow) * 2;
	const struct sc_ports *p = &a->ports;
	char *s = malloc(cap);
	unsigned int mtu = 1500;
	struct ifreq ifr = {};
	int fd, rc;

	if (!s)
		return -ENOMEM;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->dev);
	if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	sc_nft_table(table, sizeof(table), t->ifindex);
	sc_ports_text(p, list, sizeof(list));
	sc_allow_text4(a, allow, sizeof(allow));
	if (!fresh)
		snprintf(s, cap, "flush set inet %1$s ports\nadd element inet %1$s ports { %2$s }\n"
			 "flush set inet %1$s allow4\n%3$s%1$s allow4 { %4$s }\n",
			 table, list, *allow ? "add element inet " : "# ", allow);
	else
		snprintf(s, cap,
			 "table inet %1$s {\n"
			 "  counter synack { }\n"
			 "  counter acks { }\n"
			 "  counter dropped { }\n"
			 "  set ports { type inet_service; elements = { %2$s } }\n"
			 "  set allow4 { type ipv4_addr; flags interval; %5$s%6$s%7$s}\n"
			 "  chain pre {\n"
			 "    type filter hook prerouting priority raw; policy accept;\n"
			 "    iif \"%3$s\" meta nfproto ipv4 ip saddr @allow4 tcp dport @ports tcp flags & (syn | ack) == syn notrack\n"
			 "  }\n"
			 "  chain in {\n"
			 "    type filter hook input priority filter; policy accept;\n"
			 "    iif \"%3$s\" meta nfproto ipv4 ip saddr @allow4 tcp dport @ports tcp flags & (syn | ack) == syn ct state untracked counter name synack\n"
			 "    iif \"%3$s\" meta nfproto ipv4 ip saddr @allow4 tcp dport @ports tcp flags & (syn | ack) == ack ct state invalid,untracked counter name acks\n"
			 "    iif \"%3$s\" meta nfproto ipv4 ip saddr @allow4 tcp dport @ports ct state invalid,untracked synproxy mss %4$u wscale 7 timestamp sack-perm\n"
			 "    iif \"%3$s\" meta nfproto ipv4 ip saddr @allow4 tcp dport @ports ct state invalid counter name dropped drop\n"
			 "  }\n"
			 "}\n", table, list, t->dev, mtu - 40, *allow ? "elements = { " : "",
			 allow, *allow ? " }; " : "");
	rc = sc_nft(argv, s, NULL, 0, err, sizeof(err));
	free(s);
	if (rc) {
		cg_err("cannot attach to %s: nft: %s", t->dev, *err ? err : "failed");
		return -EIO;
	}
	return 0;
}

/* Does line hold word w, delimited by blanks, ';' or its ends? */
static bool sc_has_word(const char *line, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = strstr(line, w); p; p = strstr(p + 1, w))
		if ((p == line || strchr(" \t;", p[-1])) && strchr(" \t;\n", p[n]))
			return true;
	return false;
}

/*
 * Does a table of the namespace entered filter what it receives: a chain
 * on the input hook with a drop policy, or a drop or reject rule (iptables
 * on nftables included; the responder's own tables aside)? The name of
 * the first such table into what. Without nft, or where it cannot list
 * the ruleset, false.
 */
bool sc_nft_input_filtered(char *what, size_t what_len)
{
	static const char *const argv[] = { "nft", "list", "ruleset", NULL };
	char table[128] = "", *out, *line, *save = NULL;
	bool ours = false, input = false, found = false;
	size_t cap = 1 << 20;

	out = malloc(cap);
	if (!out)
		return false;
	if (sc_nft(argv, NULL, out, cap, NULL, 0) != 0) {
		free(out);
		return false;
	}
	for (line = strtok_r(out, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!strncmp(line, "table ", 6)) {
			int n = strcspn(line + 6, "{");

			while (n > 0 && line[6 + n - 1] == ' ')
				n--;
			snprintf(table, sizeof(table), "%.*s", n, line + 6);
			ours = !!strstr(table, "csum_guard_syncookie_");
			input = false;
		} else if (!strncmp(line, "chain ", 6)) {
			input = false;
		} else if (sc_has_word(line, "hook") && sc_has_word(line, "input")) {
			input = true;
			found = !ours && strstr(line, "policy drop");
		} else if (input && !ours && (sc_has_word(line, "drop") || sc_has_word(line, "reject"))) {
			found = true;
		}
	}
	if (found)
		snprintf(what, what_len, "table %s", table);
	free(out);
	return found;
}

/* The packets of counter name in the device's table (0 where it has none) */
__u64 sc_nft_counter(int ifindex, const char *name)
{
	char table[64], out[4096];
	const char *argv[] = { "nft", "list", "counter", "inet", table, name, NULL };
	unsigned long long n = 0;
	const char *p;

	sc_nft_table(table, sizeof(table), ifindex);
	if (sc_nft(argv, NULL, out, sizeof(out), NULL, 0) == 0 && (p = strstr(out, "packets ")))
		n = strtoull(p + 8, NULL, 10);
	return n;
}

/*
 * SYNPROXY's cookie checks in the namespace entered, all CPUs
 * (/proc/net/stat/synproxy: namespace-wide, every SYNPROXY rule in it)
 */
void sc_nft_cookies(__u64 *valid, __u64 *invalid)
{
	unsigned long long e, syn, inv, val;
	char line[256];
	FILE *f = fopen("/proc/net/stat/synproxy", "re");

	*valid = *invalid = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx %llx %llx", &e, &syn, &inv, &val) == 4) {
			*valid += val;
			*invalid += inv;
		}
	fclose(f);
}
