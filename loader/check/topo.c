// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * topo.c - the throwaway topology of `csum-guard check`: two
 * unnamed network namespaces made with rtnetlink and ioctls (no ip, no
 * ethtool), and the counters of the vm namespace the verdict reads.
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

#include "log.h"
#include "macros.h"
#include "modprobe.h"
#include "netns.h"
#include "nl.h"
#include "topo.h"

const unsigned char ck_veth1_mac[6] = { 0x02, 0x63, 0x67, 0x00, 0x00, 0x02 };
const unsigned char ck_guest_mac[6] = { 0x52, 0x54, 0x00, 0x63, 0x67, 0x02 };

static int ck_fail(struct ck_result *r, const char *what, int err)
{
	r->v = CK_ERROR;
	snprintf(r->reason, sizeof(r->reason), "%s: %s", what, strerror(-err));
	return err;
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

/* addr/24 (IPv4) or addr/64 (IPv6, no duplicate detection to wait for) */
static int ck_addr_add(int nl, int ifindex, int family, const char *addr)
{
	struct ifaddrmsg ifa = { .ifa_family = family, .ifa_index = ifindex };
	unsigned char a[16];
	size_t alen = family == AF_INET6 ? 16 : 4;
	struct cg_nl_msg q;

	ifa.ifa_prefixlen = family == AF_INET6 ? 64 : 24;
	ifa.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	inet_pton(family, addr, a);
	cg_nl_msg_init(&q, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	cg_nl_put(&q, IFA_LOCAL, a, alen);
	cg_nl_put(&q, IFA_ADDRESS, a, alen);
	return cg_nl_talk(nl, &q, NULL, NULL);
}

/* The far end's MAC, permanently: no ARP or ND to wait for or to fail */
static int ck_neigh_add(int nl, int ifindex, int family, const char *addr)
{
	struct ndmsg nd = { .ndm_family = family, .ndm_ifindex = ifindex,
			    .ndm_state = NUD_PERMANENT };
	unsigned char a[16];
	struct cg_nl_msg q;

	inet_pton(family, addr, a);
	cg_nl_msg_init(&q, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, &nd, sizeof(nd));
	cg_nl_put(&q, NDA_DST, a, family == AF_INET6 ? 16 : 4);
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
		cg_modprobe("tun", false, NULL, 0);
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

void ck_topo_init(struct ck_topo *t)
{
	memset(t, 0, sizeof(*t));
	t->vm = t->far = t->nl_vm = t->nl_far = t->io_vm = t->io_far = -1;
	t->tap = t->cap = t->snmp = t->netdev = t->nfq = -1;
}

/* Closing the last fds is what removes the namespaces and all in them */
void ck_topo_down(struct ck_topo *t)
{
	int *fds[] = { &t->cap, &t->tap, &t->nfq, &t->snmp, &t->netdev, &t->nl_vm, &t->nl_far,
		       &t->io_vm, &t->io_far, &t->vm, &t->far };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* What is made while inside vm: sockets and files bind to it at creation */
static int ck_vm_inside(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
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
	/* all: the devices there now, and the default of those to come */
	if (p->v6) {
		err = ck_write_file("/proc/sys/net/ipv6/conf/all/forwarding", "1");
		if (err == -ENOENT) {
			/* not a failure of the check: this kernel has no IPv6 to test */
			ck_fail(r, "no IPv6 here (/proc/sys/net/ipv6)", err);
			r->v = CK_UNKNOWN;
			return err;
		}
		if (err)
			return ck_fail(r, "/proc/sys/net/ipv6/conf/all/forwarding", err);
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

int ck_topo_up(struct ck_topo *t, const struct ck_path *p, struct ck_result *r)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr = {};
	int err;

	t->vm = cg_netns_new();
	if (t->vm < 0)
		return ck_fail(r, "cannot make a network namespace", t->vm);
	t->far = cg_netns_new();
	if (t->far < 0)
		return ck_fail(r, "cannot make a network namespace", t->far);

	err = cg_netns_enter(t->vm);
	if (err)
		return ck_fail(r, "cannot enter the new namespace", err);
	err = ck_vm_inside(t, p, r);
	cg_netns_return();
	if (err)
		return err;
	err = cg_netns_enter(t->far);
	if (err)
		return ck_fail(r, "cannot enter the new namespace", err);
	err = ck_far_inside(t, r);
	cg_netns_return();
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
	if ((err = ck_addr_add(t->nl_vm, ck_ifindex(t->io_vm, "tap0"), AF_INET, "10.0.0.1")) ||
	    (err = ck_addr_add(t->nl_vm, t->veth0, AF_INET, "10.1.0.1")))
		return ck_fail(r, "cannot add an address", err);
	if (p->v6 &&
	    ((err = ck_addr_add(t->nl_vm, ck_ifindex(t->io_vm, "tap0"), AF_INET6, "fd00::1")) ||
	     (err = ck_addr_add(t->nl_vm, t->veth0, AF_INET6, "fd01::1"))))
		return ck_fail(r, "cannot add an IPv6 address", err);
	err = ck_neigh_add(t->nl_vm, t->veth0, AF_INET, CK_FAR);
	if (!err && p->v6)
		err = ck_neigh_add(t->nl_vm, t->veth0, AF_INET6, CK_FAR6);
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
long long ck_snmp_ip(int fd, const char *name)
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
long long ck_tx_dropped(int fd, const char *dev)
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

