# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# preflight.sh - what the suite needs of the machine, checked before any
# case runs, and what it leaves of the machine, checked after the last.
#
# A fresh machine differs from one with history in ways no case sees until
# it fails at the end of a run: a command that an earlier run's packages
# brought, a directory that earlier work made. preflight names each thing
# the suite depends on and fails the run at once, in one line per missing
# thing, when one is absent. It notes the machine state that the cases must
# handle either way (which kernels have headers, whether /lib/modules
# exists), so that a failing log says what kind of machine it ran on.
#
# machine_snapshot / machine_check: the system-wide state outside the
# suite's own namespaces that a case can change (/lib/modules, /usr/src,
# /var/lib/dkms, dpkg's view of csum-guard-dkms, the initial namespace's
# firewall rules): the suite must leave it as it found it, so that a run
# on a machine with history proves what a run on a fresh one would. Its
# files part, system_files_snapshot, is what dist-deb compares as well.

# command:Debian package, for the commands the cases run
PREFLIGHT_CMDS="ip:iproute2 tc:iproute2 nft:nftables iptables:iptables ip6tables:iptables
	iptables-save:iptables jq:jq ethtool:ethtool strace:strace dkms:dkms modinfo:kmod
	depmod:kmod modprobe:kmod setpriv:util-linux nsenter:util-linux unshare:util-linux
	flock:util-linux mountpoint:util-linux bpftool:bpftool dpkg-deb:dpkg sha256sum:coreutils
	timeout:coreutils"

# preflight MODE: MODE is all (the host, guests to follow) or here.
# Prints "FAIL preflight: ..." lines and returns 1 if the run cannot be
# trusted on this machine.
preflight() {
	local mode=$1 bad=0 e c p missing= pkgs= free kv heads= ns=cgpf$$

	for e in $PREFLIGHT_CMDS; do
		c=${e%%:*} p=${e#*:}
		command -v "$c" >/dev/null && continue
		missing="$missing $c"
		[[ " $pkgs " == *" $p "* ]] || pkgs="$pkgs $p"
	done
	if [ -n "$missing" ]; then
		fail "preflight: missing commands:$missing (Debian packages:$pkgs; make deps installs them)"
		bad=1
	fi
	# without udev nobody made /dev/net/tun: loading tun does
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	if [ ! -c /dev/net/tun ]; then
		fail "preflight: no /dev/net/tun: the kernel has no tun/tap, which every case writes through"
		bad=1
	fi
	if [ -d /sys/fs/bpf ] && ! mountpoint -q /sys/fs/bpf &&
	   ! mount -t bpf bpf /sys/fs/bpf 2>"$TMPD/preflight.err"; then
		fail "preflight: cannot mount bpffs on /sys/fs/bpf: $(head -1 "$TMPD/preflight.err")"
		bad=1
	fi
	if ! ip netns add "$ns" 2>"$TMPD/preflight.err" ||
	   ! ip -n "$ns" link add pf0 type veth peer name pf1 2>"$TMPD/preflight.err"; then
		fail "preflight: cannot make a network namespace with a veth pair: $(head -1 "$TMPD/preflight.err")"
		bad=1
	fi
	ip netns del "$ns" 2>/dev/null
	if [ "$mode" = all ]; then
		# the guest kernels (about 1.5 GB unpacked) and their module builds
		free=$(df -Pk "$TOP" | awk 'NR == 2 { print int($4 / 1048576) }')
		if [ "${free:-0}" -lt 4 ]; then
			fail "preflight: ${free:-0} GiB free under $TOP: the guest kernels need 4"
			bad=1
		fi
		# the guests mount their module tree on it (tests/guest/run.sh)
		mkdir -p /lib/modules
	fi

	# What the cases must handle either way: say which it is.
	for kv in /lib/modules/*/; do
		[ -d "$kv" ] || continue
		kv=${kv%/}
		kv=${kv##*/}
		heads="$heads $kv($(ls -A "/lib/modules/$kv" | grep -xE 'build|source|kernel|updates|modules\.dep' |
			paste -sd, -))"
	done
	note "machine: kernel $(uname -r), $(nproc) CPUs;" \
		"/lib/modules:${heads:- nothing};" \
		"dkms MOK key: $([ -e /var/lib/dkms/mok.key ] && echo present || echo absent);" \
		"csum-guard-dkms: $(dpkg-query -W -f='${db:Status-Status}' csum-guard-dkms 2>/dev/null || echo not-installed)"
	return $bad
}

# What a package, DKMS and depmod may touch: paths and file digests under
# /usr/src (top level), /var/lib/dkms and /lib/modules (without the
# kernels' own kernel/ trees). dist-deb compares it around dpkg -i/-r.
system_files_snapshot() {
	{
		find /usr/src -mindepth 1 -maxdepth 1 -printf '%p %y\n'
		find /var/lib/dkms /lib/modules -path '/lib/modules/*/kernel' -prune -o -printf '%p %y\n'
		find /var/lib/dkms /lib/modules -path '/lib/modules/*/kernel' -prune -o -type f \
			-exec sha256sum {} +
	} 2>/dev/null | LC_ALL=C sort
}

# The state a case may change outside the suite's namespaces (see top).
# dkms's MOK key is left out: DKMS makes it at its first signing and keeps
# it, as on every host that builds a module.
machine_snapshot() {
	{
		system_files_snapshot | grep -v '/var/lib/dkms/mok\.'
		dpkg-query -W -f='${db:Status-Status}\n' csum-guard-dkms 2>/dev/null
		nft list ruleset 2>/dev/null
		iptables-save 2>/dev/null | grep -v '^#'
		ip6tables-save 2>/dev/null | grep -v '^#'
	} 2>/dev/null | LC_ALL=C sort
}

# machine_check BEFORE: a PASS or FAIL line for the state machine_snapshot
# took before the run.
machine_check() {
	local after

	after=$(machine_snapshot)
	if [ "$after" = "$1" ]; then
		pass "machine-check: /lib/modules, /usr/src, /var/lib/dkms, dpkg and the host's firewall as before the run"
	else
		fail "machine-check: the run changed the machine: $(diff <(echo "$1") <(echo "$after") |
			grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
}
