// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check.c - csum-guard check: does this kernel write a completed checksum
 * over the IPv4 header of a frame a guest handed it, on each completion
 * path?
 *
 * Per path, a throwaway topology in two anonymous network namespaces that
 * only this process's file descriptors hold, so the kernel removes all of
 * it (namespaces, tap, veth pair) when the process ends, however it ends:
 *
 *   netns "vm" (an fd)                              netns "far" (an fd)
 *   +-------------------------------+               +------------------+
 *   | tap0 10.0.0.1/24 (vnet_hdr)   |               |                  |
 *   |   we write as guest 10.0.0.2  |  veth pair    |                  |
 *   | ip_forward=1  veth0 ----------+---------------+-- veth1          |
 *   |               10.1.0.1/24     |               |   AF_PACKET      |
 *   +-------------------------------+               +------------------+
 *   frag: veth MTU 576, IP fragmentation completes the checksum
 *   tx:   veth0 without TX checksum offload, the transmit path does
 *
 * Per path: a good frame (csum_start at the UDP header) proves that the
 * topology forwards; then the bad frame (csum_start 20, inside the IPv4
 * header, csum_offset 6: the sum lands on the source address); then a good
 * one again, after which anything of the bad frame would have arrived.
 * The capture is raw because a corrupted header fails its checksum.
 *
 *   bad frame arrived, source rewritten         vulnerable
 *   nothing arrived (frag: IpFragFails grew),
 *   or the tap refused the frame                fixed
 *   anything else                               unknown, with the reason
 *
 * The host's namespaces, devices and guards are never touched: a guard on
 * the host's taps is not in these namespaces and cannot change the result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>
#include <linux/virtio_net.h>

#include "json.h"
#include "log.h"
#include "macros.h"
#include "modprobe.h"
#include "nl.h"
#include "check.h"

#define CK_PAYLOAD	1000
#define CK_FRAME	(14 + 20 + 8 + CK_PAYLOAD)
#define CK_GUEST	"10.0.0.2"
#define CK_FAR		"10.1.0.2"
#define CK_WAIT_MS	3000	/* for a frame that should arrive (TCG guests are slow) */
#define CK_GRACE_MS	200	/* after the good frame that follows the bad one */

/* IPv4 ids that tell our three frames apart at the far end */
enum { ID_GOOD = 0x6301, ID_BAD, ID_AFTER, ID_N = 3 };

enum ck_verdict { CK_UNKNOWN, CK_FIXED, CK_VULNERABLE, CK_ERROR };
static const char *const ck_names[] = {
	[CK_UNKNOWN] = "unknown", [CK_FIXED] = "fixed",
	[CK_VULNERABLE] = "vulnerable", [CK_ERROR] = "error",
};

struct ck_path {
	const char *name;
	const char *what;	/* for humans */
	int mtu;
	bool tx_csum_off;
};

static const struct ck_path ck_paths[] = {
	{ "frag", "IP fragmentation (forwarded onto a 576-byte MTU veth)", 576, false },
	{ "tx", "transmit without TX checksum offload (forwarded onto such a veth)", 1500, true },
};

struct ck_result {
	enum ck_verdict v;
	char reason[256];
	char source[INET_ADDRSTRLEN];	/* what the source became, "" if not corrupted */
};

/* What the capture saw of each of our frames */
struct ck_seen {
	unsigned int pkts;
	bool rewritten;
	char source[INET_ADDRSTRLEN];
};

struct ck_topo {
	int vm, far;		/* netns fds */
	int nl_vm, nl_far;	/* rtnetlink, bound to their namespace */
	int io_vm, io_far;	/* AF_INET sockets for the interface ioctls */
	int tap;
	int cap;		/* AF_PACKET on veth1 */
	int snmp, netdev;	/* /proc/net/{snmp,dev} of vm */
	int veth0, veth1;	/* ifindexes */
	unsigned char tap_mac[6];
};

static const unsigned char ck_veth1_mac[6] = { 0x02, 0x63, 0x67, 0x00, 0x00, 0x02 };
static const unsigned char ck_guest_mac[6] = { 0x52, 0x54, 0x00, 0x63, 0x67, 0x02 };

static int ck_orig_ns = -1;

static int ck_fail(struct ck_result *r, const char *what, int err)
{
	r->v = CK_ERROR;
	snprintf(r->reason, sizeof(r->reason), "%s: %s", what, strerror(-err));
	return err;
}

/* --- namespaces ---------------------------------------------------------- */

static int ck_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

/* Back to where we started; nothing may run in a throwaway namespace by accident */
static void ck_leave(void)
{
	if (setns(ck_orig_ns, CLONE_NEWNET)) {
		cg_err("check: cannot return to the original network namespace: %s",
		       strerror(errno));
		exit(1);
	}
}

/* A new, unnamed network namespace held by the returned fd only */
static int ck_ns_new(void)
{
	int fd;

	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	ck_leave();
	return fd;
}

/* --- rtnetlink ----------------------------------------------------------- */

/* veth0 here (nl's namespace), its peer veth1 in the namespace of far_fd */
static int ck_veth_add(int nl, int mtu, int far_fd)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlattr *li, *data, *peer;
	struct cg_nl_msg q;
	__u32 m = mtu, nsfd = far_fd;

	cg_nl_msg_init(&q, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	cg_nl_put(&q, IFLA_IFNAME, "veth0", sizeof("veth0"));
	cg_nl_put(&q, IFLA_MTU, &m, sizeof(m));
	li = cg_nl_put(&q, IFLA_LINKINFO, NULL, 0);
	cg_nl_put(&q, IFLA_INFO_KIND, "veth", sizeof("veth"));
	data = cg_nl_put(&q, IFLA_INFO_DATA, NULL, 0);
	peer = cg_nl_put(&q, VETH_INFO_PEER, &ifi, sizeof(ifi));
	cg_nl_put(&q, IFLA_IFNAME, "veth1", sizeof("veth1"));
	cg_nl_put(&q, IFLA_MTU, &m, sizeof(m));
	cg_nl_put(&q, IFLA_ADDRESS, ck_veth1_mac, sizeof(ck_veth1_mac));
	cg_nl_put(&q, IFLA_NET_NS_FD, &nsfd, sizeof(nsfd));
	cg_nl_nest_end(&q, peer);
	cg_nl_nest_end(&q, data);
	cg_nl_nest_end(&q, li);
	return cg_nl_talk(nl, &q, NULL, NULL);
}

static int ck_addr_add(int nl, int ifindex, const char *addr)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = 24,
				 .ifa_index = ifindex };
	struct in_addr a;
	struct cg_nl_msg q;

	inet_pton(AF_INET, addr, &a);
	cg_nl_msg_init(&q, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	cg_nl_put(&q, IFA_LOCAL, &a, sizeof(a));
	cg_nl_put(&q, IFA_ADDRESS, &a, sizeof(a));
	return cg_nl_talk(nl, &q, NULL, NULL);
}

/* The far end's MAC, permanently: no ARP to wait for or to fail */
static int ck_neigh_add(int nl, int ifindex)
{
	struct ndmsg nd = { .ndm_family = AF_INET, .ndm_ifindex = ifindex,
			    .ndm_state = NUD_PERMANENT };
	struct in_addr a;
	struct cg_nl_msg q;

	inet_pton(AF_INET, CK_FAR, &a);
	cg_nl_msg_init(&q, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, &nd, sizeof(nd));
	cg_nl_put(&q, NDA_DST, &a, sizeof(a));
	cg_nl_put(&q, NDA_LLADDR, ck_veth1_mac, sizeof(ck_veth1_mac));
	return cg_nl_talk(nl, &q, NULL, NULL);
}

/* --- interfaces ---------------------------------------------------------- */

static int ck_ioctl(int fd, unsigned long req, const char *dev, struct ifreq *ifr)
{
	memset(ifr->ifr_name, 0, IFNAMSIZ);
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", dev);
	return ioctl(fd, req, ifr) ? -errno : 0;
}

static int ck_ifindex(int io, const char *dev)
{
	struct ifreq ifr = {};
	int err = ck_ioctl(io, SIOCGIFINDEX, dev, &ifr);

	return err ?: ifr.ifr_ifindex;
}

static int ck_up(int io, const char *dev)
{
	struct ifreq ifr = {};
	int err = ck_ioctl(io, SIOCGIFFLAGS, dev, &ifr);

	if (err)
		return err;
	ifr.ifr_flags |= IFF_UP;
	return ck_ioctl(io, SIOCSIFFLAGS, dev, &ifr);
}

/* Until the device runs (carrier, operstate, qdisc): 5 s at most */
static int ck_wait_running(int io, const char *dev)
{
	struct ifreq ifr = {};
	int i, err;

	for (i = 0; i < 500; i++) {
		err = ck_ioctl(io, SIOCGIFFLAGS, dev, &ifr);
		if (err)
			return err;
		if (ifr.ifr_flags & IFF_RUNNING)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* TX checksum offload off, as `ethtool -K dev tx off`, and read back */
static int ck_tx_csum_off(int io, const char *dev)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_STXCSUM, .data = 0 };
	struct ifreq ifr = {};
	int err;

	ifr.ifr_data = (void *)&ev;
	err = ck_ioctl(io, SIOCETHTOOL, dev, &ifr);
	if (err)
		return err;
	ev.cmd = ETHTOOL_GTXCSUM;
	err = ck_ioctl(io, SIOCETHTOOL, dev, &ifr);
	if (err)
		return err;
	return ev.data ? -EOPNOTSUPP : 0;
}

/* A tap that lives while fd is open, in the current namespace */
static int ck_tap_open(void)
{
	struct ifreq ifr = {};
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* without udev nobody loaded tun; loading it makes the node */
		cg_modprobe("tun", false);
		fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "tap0");
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int ck_write_file(const char *path, const char *val)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* --- the topology -------------------------------------------------------- */

static void ck_topo_init(struct ck_topo *t)
{
	memset(t, 0, sizeof(*t));
	t->vm = t->far = t->nl_vm = t->nl_far = t->io_vm = t->io_far = -1;
	t->tap = t->cap = t->snmp = t->netdev = -1;
}

/* Closing the last fds is what removes the namespaces and all in them */
static void ck_topo_down(struct ck_topo *t)
{
	int *fds[] = { &t->cap, &t->tap, &t->snmp, &t->netdev, &t->nl_vm, &t->nl_far,
		       &t->io_vm, &t->io_far, &t->vm, &t->far };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* What is made while inside vm: sockets and files bind to it at creation */
static int ck_vm_inside(struct ck_topo *t, struct ck_result *r)
{
	static const char *const sysctls[][2] = {
		{ "/proc/sys/net/ipv4/ip_forward", "1" },
		{ "/proc/sys/net/ipv4/conf/all/rp_filter", "0" },
		{ "/proc/sys/net/ipv4/conf/default/rp_filter", "0" },
	};
	unsigned int i;
	int err;

	t->nl_vm = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (t->nl_vm < 0)
		return ck_fail(r, "rtnetlink socket", t->nl_vm);
	t->io_vm = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t->io_vm < 0)
		return ck_fail(r, "socket", -errno);
	t->tap = ck_tap_open();
	if (t->tap < 0)
		return ck_fail(r, "cannot make a tap with /dev/net/tun", t->tap);
	/* /proc/sys/net and /proc/self/net show the opener's namespace */
	for (i = 0; i < ARRAY_SIZE(sysctls); i++) {
		err = ck_write_file(sysctls[i][0], sysctls[i][1]);
		if (err)
			return ck_fail(r, sysctls[i][0], err);
	}
	t->snmp = open("/proc/self/net/snmp", O_RDONLY | O_CLOEXEC);
	if (t->snmp < 0)
		return ck_fail(r, "/proc/net/snmp", -errno);
	t->netdev = open("/proc/self/net/dev", O_RDONLY | O_CLOEXEC);
	if (t->netdev < 0)
		return ck_fail(r, "/proc/net/dev", -errno);
	return 0;
}

static int ck_far_inside(struct ck_topo *t, struct ck_result *r)
{
	t->nl_far = cg_nl_socket(NETLINK_ROUTE, 0, 5);
	if (t->nl_far < 0)
		return ck_fail(r, "rtnetlink socket", t->nl_far);
	t->io_far = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t->io_far < 0)
		return ck_fail(r, "socket", -errno);
	/* protocol 0: nothing is queued before bind() picks the device */
	t->cap = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (t->cap < 0)
		return ck_fail(r, "packet socket", -errno);
	return 0;
}

static int ck_topo_up(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr = {};
	int err;

	t->vm = ck_ns_new();
	if (t->vm < 0)
		return ck_fail(r, "cannot make a network namespace", t->vm);
	t->far = ck_ns_new();
	if (t->far < 0)
		return ck_fail(r, "cannot make a network namespace", t->far);

	err = ck_enter(t->vm);
	if (err)
		return ck_fail(r, "cannot enter the new namespace", err);
	err = ck_vm_inside(t, r);
	ck_leave();
	if (err)
		return err;
	err = ck_enter(t->far);
	if (err)
		return ck_fail(r, "cannot enter the new namespace", err);
	err = ck_far_inside(t, r);
	ck_leave();
	if (err)
		return err;

	err = ck_veth_add(t->nl_vm, p->mtu, t->far);
	if (err)
		return ck_fail(r, "cannot make a veth pair", err);
	t->veth0 = ck_ifindex(t->io_vm, "veth0");
	t->veth1 = ck_ifindex(t->io_far, "veth1");
	if (t->veth0 < 0 || t->veth1 < 0)
		return ck_fail(r, "veth pair", t->veth0 < 0 ? t->veth0 : t->veth1);
	if (p->tx_csum_off) {
		err = ck_tx_csum_off(t->io_vm, "veth0");
		if (err)
			return ck_fail(r, "cannot turn TX checksum offload off on veth0", err);
	}
	err = ck_ioctl(t->io_vm, SIOCGIFHWADDR, "tap0", &ifr);
	if (err)
		return ck_fail(r, "tap0 address", err);
	memcpy(t->tap_mac, ifr.ifr_hwaddr.sa_data, 6);
	if ((err = ck_up(t->io_vm, "tap0")) || (err = ck_up(t->io_vm, "veth0")) ||
	    (err = ck_up(t->io_far, "veth1")))
		return ck_fail(r, "cannot bring the devices up", err);
	if ((err = ck_addr_add(t->nl_vm, ck_ifindex(t->io_vm, "tap0"), "10.0.0.1")) ||
	    (err = ck_addr_add(t->nl_vm, t->veth0, "10.1.0.1")))
		return ck_fail(r, "cannot add an address", err);
	err = ck_neigh_add(t->nl_vm, t->veth0);
	if (err)
		return ck_fail(r, "cannot add the neighbour entry", err);
	sll.sll_ifindex = t->veth1;
	if (bind(t->cap, (struct sockaddr *)&sll, sizeof(sll)))
		return ck_fail(r, "cannot capture on veth1", -errno);
	if ((err = ck_wait_running(t->io_vm, "tap0")) ||
	    (err = ck_wait_running(t->io_vm, "veth0")) ||
	    (err = ck_wait_running(t->io_far, "veth1")))
		return ck_fail(r, "the devices did not come up", err);
	return 0;
}

/* --- counters of the vm namespace ---------------------------------------- */

/* The value under name on the "Ip:" lines of /proc/net/snmp, or -1 */
static long long ck_snmp_ip(int fd, const char *name)
{
	char buf[8192], *hdr, *val, *hs, *vs, *h, *v;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	hdr = strstr(buf, "Ip: ");
	if (!hdr || !(val = strstr(hdr + 1, "\nIp: ")))
		return -1;
	val++;
	*strchr(hdr, '\n') = '\0';
	if (strchr(val, '\n'))
		*strchr(val, '\n') = '\0';
	h = strtok_r(hdr + 4, " ", &hs);
	v = strtok_r(val + 4, " ", &vs);
	for (; h && v; h = strtok_r(NULL, " ", &hs), v = strtok_r(NULL, " ", &vs))
		if (!strcmp(h, name))
			return strtoll(v, NULL, 10);
	return -1;
}

/* tx_drop of dev from /proc/net/dev (the 12th number after "dev:"), or -1 */
static long long ck_tx_dropped(int fd, const char *dev)
{
	char buf[8192], key[IFNAMSIZ + 2], *p;
	unsigned long long v[12];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	snprintf(key, sizeof(key), "%s:", dev);
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		while (*p == ' ')
			p++;
		if (strncmp(p, key, strlen(key)))
			continue;
		if (sscanf(p + strlen(key), "%llu %llu %llu %llu %llu %llu %llu %llu "
			   "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) == 12)
			return v[11];
	}
	return -1;
}

/* --- frames -------------------------------------------------------------- */

static __u32 ck_sum(__u32 sum, const unsigned char *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += p[0] << 8 | p[1];
	if (len)
		sum += p[0] << 8;
	return sum;
}

static __u16 ck_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void ck_put16(unsigned char *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/*
 * virtio_net_hdr + Ethernet + IPv4 + UDP + payload, NEEDS_CSUM at
 * csum_start with csum_offset 6. As a guest does, the UDP checksum field
 * holds the folded pseudo-header sum; the IPv4 header checksum is valid.
 */
static size_t ck_build(const struct ck_topo *t, unsigned char *buf, int csum_start, int id)
{
	struct virtio_net_hdr *vh = (void *)buf;
	unsigned char *eth = buf + sizeof(*vh), *ip = eth + 14, *udp = ip + 20;
	size_t l4 = 8 + CK_PAYLOAD, i;
	__u32 sum;

	memset(buf, 0, sizeof(*vh) + CK_FRAME);
	/* the tap reads it in native order unless TUNSETVNETLE/BE said otherwise */
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = csum_start;
	vh->csum_offset = 6;

	memcpy(eth, t->tap_mac, 6);
	memcpy(eth + 6, ck_guest_mac, 6);
	ck_put16(eth + 12, ETH_P_IP);

	ip[0] = 0x45;
	ck_put16(ip + 2, 20 + l4);
	ck_put16(ip + 4, id);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, CK_GUEST, ip + 12);
	inet_pton(AF_INET, CK_FAR, ip + 16);
	ck_put16(ip + 10, ~ck_fold(ck_sum(0, ip, 20)) & 0xffff);

	ck_put16(udp, 4000);
	ck_put16(udp + 2, 5000);
	ck_put16(udp + 4, l4);
	for (i = 0; i < CK_PAYLOAD; i++)
		udp[8 + i] = i;
	sum = ck_sum(0, ip + 12, 8) + IPPROTO_UDP + l4;
	ck_put16(udp + 6, ck_fold(sum));
	return sizeof(*vh) + CK_FRAME;
}

static int ck_send(const struct ck_topo *t, int csum_start, int id)
{
	unsigned char buf[sizeof(struct virtio_net_hdr) + CK_FRAME];
	size_t len = ck_build(t, buf, csum_start, id);
	ssize_t n = write(t->tap, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static long ck_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One captured frame: is it an IPv4 packet (or fragment) of ours? */
static void ck_account(const unsigned char *f, size_t len, struct ck_seen *seen)
{
	const unsigned char *ip = f + 14;
	struct in_addr far, guest;
	unsigned int id;

	if (len < 14 + 20 || f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4 ||
	    ip[9] != IPPROTO_UDP)
		return;
	inet_pton(AF_INET, CK_FAR, &far);
	inet_pton(AF_INET, CK_GUEST, &guest);
	if (memcmp(ip + 16, &far, 4))
		return;
	id = ip[4] << 8 | ip[5];
	if (id < ID_GOOD || id >= ID_GOOD + ID_N)
		return;
	seen += id - ID_GOOD;
	seen->pkts++;
	if (memcmp(ip + 12, &guest, 4)) {
		seen->rewritten = true;
		inet_ntop(AF_INET, ip + 12, seen->source, sizeof(seen->source));
	}
}

/* Capture until frame `until` has been seen or ms have passed */
static void ck_capture(const struct ck_topo *t, struct ck_seen *seen, int until, long ms)
{
	long end = ck_now_ms() + ms, left;
	unsigned char f[2048];
	struct sockaddr_ll sll;
	socklen_t sl;
	struct pollfd pfd = { .fd = t->cap, .events = POLLIN };
	ssize_t n;

	while ((left = end - ck_now_ms()) > 0) {
		if (until && seen[until - ID_GOOD].pkts)
			return;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		sl = sizeof(sll);
		n = recvfrom(t->cap, f, sizeof(f), MSG_DONTWAIT, (struct sockaddr *)&sll, &sl);
		if (n <= 0 || sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		ck_account(f, n, seen);
	}
}

/* --- one path ------------------------------------------------------------ */

static void ck_say(struct ck_result *r, enum ck_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ck_say(struct ck_result *r, enum ck_verdict v, const char *fmt, ...)
{
	va_list ap;

	r->v = v;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static void ck_judge(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
{
	struct ck_seen seen[ID_N] = {};
	long long ff0, ff1, td0, td1;
	int err, i;

	/*
	 * The good frame: does this topology forward at all? Right after
	 * set-up veth0 now and then drops the first frame, so send it again
	 * at growing intervals (50 ms .. 1.6 s, about 3 s in all).
	 */
	for (i = 0; i < 6 && !seen[0].pkts; i++) {
		err = ck_send(t, 14 + 20, ID_GOOD);
		if (err) {
			ck_say(r, CK_UNKNOWN, "the tap refused the good frame: %s", strerror(-err));
			return;
		}
		ck_capture(t, seen, ID_GOOD, 50L << i);
	}
	if (!seen[0].pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame did not arrive: %s",
		       "the test topology does not forward here");
		return;
	}
	if (seen[0].rewritten) {
		ck_say(r, CK_UNKNOWN, "the good frame arrived with source %s, not " CK_GUEST,
		       seen[0].source);
		return;
	}

	ff0 = ck_snmp_ip(t->snmp, "FragFails");
	td0 = ck_tx_dropped(t->netdev, "veth0");
	err = ck_send(t, 14 + 6, ID_BAD);
	if (err == -EINVAL) {
		ck_say(r, CK_FIXED, "the tap refuses the bad frame (write: %s)", strerror(-err));
		return;
	}
	if (err) {
		ck_say(r, CK_UNKNOWN, "writing the bad frame failed: %s", strerror(-err));
		return;
	}
	/* a good frame behind it: once that is in, so is anything of the bad one */
	err = ck_send(t, 14 + 20, ID_AFTER);
	ck_capture(t, seen, err ? 0 : ID_AFTER, CK_WAIT_MS);
	ck_capture(t, seen, 0, CK_GRACE_MS);
	ff1 = ck_snmp_ip(t->snmp, "FragFails");
	td1 = ck_tx_dropped(t->netdev, "veth0");

	if (seen[1].rewritten) {
		snprintf(r->source, sizeof(r->source), "%s", seen[1].source);
		ck_say(r, CK_VULNERABLE, "the bad frame arrived with source %s rewritten to %s",
		       CK_GUEST, seen[1].source);
	} else if (seen[1].pkts) {
		ck_say(r, CK_UNKNOWN, "the bad frame arrived unchanged: %s",
		       "this path did not complete its checksum");
	} else if (err || !seen[2].pkts) {
		ck_say(r, CK_UNKNOWN, "the good frame sent after the bad one did not arrive");
	} else if (!p->tx_csum_off && ff0 >= 0 && ff1 > ff0) {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (IpFragFails +%lld)",
		       ff1 - ff0);
	} else if (!p->tx_csum_off) {
		ck_say(r, CK_UNKNOWN, "the bad frame did not arrive, %s",
		       "but IpFragFails did not count it");
	} else if (td0 >= 0 && td1 > td0) {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (veth0 tx_dropped +%lld)",
		       td1 - td0);
	} else {
		ck_say(r, CK_FIXED, "the kernel dropped the bad frame (%s)",
		       "no drop counter of veth0 moved");
	}
}

static void ck_run_path(const struct ck_path *p, struct ck_result *r)
{
	struct ck_topo t;

	memset(r, 0, sizeof(*r));
	ck_topo_init(&t);
	if (!ck_topo_up(&t, p, r))
		ck_judge(&t, p, r);
	ck_topo_down(&t);
}

/* --- the command --------------------------------------------------------- */

bool cg_check_path_valid(const char *path)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
		if (!strcmp(path, ck_paths[i].name))
			return true;
	return false;
}

static const char *ck_summary(int ret, const char *path)
{
	switch (ret) {
	case CG_CHECK_VULNERABLE:
		return "this kernel corrupts the IPv4 header of such frames: keep the guard";
	case CG_CHECK_FIXED:
		return path ? "this path drops such frames (other paths were not tested)" :
			      "every path tested drops such frames";
	case CG_CHECK_UNKNOWN:
		return "cannot tell from what arrived";
	}
	return "the check could not be set up";
}

/*
 * Overall: vulnerable if any path corrupted the header (10); else failed if
 * any path could not be set up (1); fixed if every path dropped it (0);
 * else cannot tell (11).
 */
int cg_check(const char *path, bool json)
{
	struct ck_result res[ARRAY_SIZE(ck_paths)];
	bool ran[ARRAY_SIZE(ck_paths)] = {}, first = true;
	int nvuln = 0, nfixed = 0, nerr = 0, nran = 0, ret;
	const char *verdict;
	struct utsname u;
	unsigned int i;

	if (geteuid() != 0) {
		cg_err("cannot check: must be run as root");
		return 1;
	}
	ck_orig_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ck_orig_ns < 0) {
		cg_err("cannot check: /proc/self/ns/net: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		if (path && strcmp(path, ck_paths[i].name))
			continue;
		ck_run_path(&ck_paths[i], &res[i]);
		ran[i] = true;
		nran++;
		nvuln += res[i].v == CK_VULNERABLE;
		nfixed += res[i].v == CK_FIXED;
		nerr += res[i].v == CK_ERROR;
		if (res[i].v == CK_ERROR)
			cg_err("cannot check the %s path: %s", ck_paths[i].name, res[i].reason);
	}
	close(ck_orig_ns);

	if (nvuln) {
		ret = CG_CHECK_VULNERABLE;
		verdict = "vulnerable";
	} else if (nerr) {
		ret = 1;
		verdict = "error";
	} else if (nfixed == nran) {
		ret = CG_CHECK_FIXED;
		verdict = "fixed";
	} else {
		ret = CG_CHECK_UNKNOWN;
		verdict = "unknown";
	}

	if (!json) {
		for (i = 0; i < ARRAY_SIZE(ck_paths); i++)
			if (ran[i])
				printf("%s: %s: %s; %s\n", ck_paths[i].name, ck_names[res[i].v],
				       ck_paths[i].what, res[i].reason);
		printf("verdict: %s: %s\n", verdict, ck_summary(ret, path));
		return ret;
	}
	putchar('{');
	cg_json_kv_str(&first, "kernel", uname(&u) ? NULL : u.release);
	cg_json_kv_str(&first, "verdict", verdict);
	cg_json_kv_u64(&first, "exit", ret);
	fputs(",\"paths\":[", stdout);
	first = true;
	for (i = 0; i < ARRAY_SIZE(ck_paths); i++) {
		bool f = true;

		if (!ran[i])
			continue;
		if (!first)
			putchar(',');
		putchar('{');
		cg_json_kv_str(&f, "path", ck_paths[i].name);
		cg_json_kv_str(&f, "verdict", ck_names[res[i].v]);
		cg_json_kv_str(&f, "reason", res[i].reason);
		cg_json_kv_str(&f, "source", *res[i].source ? res[i].source : NULL);
		putchar('}');
		first = false;
	}
	puts("]}");
	return ret;
}
