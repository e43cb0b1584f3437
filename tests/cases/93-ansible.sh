# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 93-ansible.sh - the Ansible role (deploy/ansible) against real Debian hosts.
#
# A host case after the guests, like debian_host (92-hosts.sh): a Debian host
# of tests/guest/hostroot.sh boots under QEMU (tests/guest/boot.sh
# --ssh-port) with a NIC on QEMU's restricted user network, its port 22 on a
# loopback port of this machine; at boot it makes a VM manager's tap vnet0
# (tests/guest/host-vmm.sh) and lets in a key made for this run
# (tests/guest/host-ansible.sh). Then, from here, ansible-playbook (Debian's
# ansible-core) over ssh:
#
#   controller --ssh 127.0.0.1:PORT--> QEMU hostfwd --> host eth0:22
#                                                       host vnet0 (the guest's tap)
#
# Each host installs from one source, "NAME:debs" or "NAME:repo":
#   debs  the .debs of build/dist (csum-guard, csum-guard-dkms: DKMS builds
#         the module on the host);
#   repo  the project's apt repository (make repo, throwaway keys as in
#         91-repo.sh), a file: source over the share (/cg/repo), signed-by
#         its key; the host is hostroot.sh's --bare one (no compiler, no
#         headers, no DKMS): csum-guard and csum-guard-modules, the module
#         prebuilt and signed for its kernel.
#
#   1. site.yml: installs, the watcher guards vnet0, 5 bad frames dropped
#      and counted, 20 good ones intact (repo: the module loaded is the
#      prebuilt one, signed by the repository's module key, no DKMS);
#   2. site.yml again: changed=0;
#   3. site.yml with csum_guard_watch_args "--match 'vnet*'": the watcher
#      restarted with them; then a tap guest9, which it leaves alone: the
#      play fails, naming guest9;
#   4. upgrade.yml (serial) to the next release, VERSION+next: debs, with
#      the next release's .debs; repo, with the next release's repository
#      (its packages rebuilt at VERSION+next, the module built again from
#      the next DKMS source and signed with the same key) in place of the
#      first at the same source line (upgrade.yml follows the newest). Both
#      packages and the loaded module move to it, guest9 and vnet0 guarded,
#      frames judged again.
#
# make test-matrix (CG_DEPTH=full) only: each host costs minutes of TCG
# (the .debs host two DKMS builds), more than make test's hour has room
# for. There the Debian 11 host (5.10) from the .debs and the Debian 12
# host (6.1) from the repository, steps 1 to 4. `--case deb5.10:debs` or
# `--case deb6.1-fixed:repo` runs one of them.

# next_loader_deb VERSION DEB DIR: the csum-guard package DEB as the next
# release would be (version VERSION+next), in DIR.
next_loader_deb() {
	local ver=$1 deb=$2 dir=$3 x=$TMPD/nextloader

	rm -rf "$x" && mkdir -p "$dir" && dpkg-deb -R "$deb" "$x" &&
		sed -i -e "s/^Version: .*/Version: $ver+next/" \
			-e "s/(= $ver)/(= $ver+next)/" "$x/DEBIAN/control" &&
		dpkg-deb --root-owner-group -b "$x" "$dir/csum-guard_${ver}+next_amd64.deb" >/dev/null
}

# ans_play T LOG PLAYBOOK [ARGS...]: ansible-playbook against the host;
# its output in LOG, its exit status returned; RECAP its host's recap line.
ans_play() {
	local t=$1 log=$2 pb=$3 rc

	shift 3
	ANSIBLE_HOME="$AD/home" ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False \
	ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PIPELINING=1 ANSIBLE_LOCAL_TEMP="$AD/tmp" \
	ANSIBLE_SSH_CONTROL_PATH_DIR="$AD/cp" ANSIBLE_GATHERING=explicit \
		timeout 900 ansible-playbook -i "$AD/inventory" "$TOP/deploy/ansible/$pb" \
		-e "@$AD/vars.json" "$@" >"$log" 2>&1
	rc=$?
	RECAP=$(grep -E '^[^ ]+ +: ok=' "$log" | tail -1 | sed 's/  */ /g; s/ $//')
	note "$t: ansible-playbook $pb $*: exit $rc, $RECAP"
	return $rc
}

# ans_ssh CMD...: CMD on the host, as root
ans_ssh() {
	ssh -n -q -i "$AD/key" -p "$AP" -o BatchMode=yes -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o ConnectTimeout=10 root@127.0.0.1 "$@"
}

# ans_traffic T WHAT: the stand-in's guest sends its frames through vnet0;
# its PASS/FAIL lines become this run's
ans_traffic() {
	local r rest

	ans_ssh ": >/var/lib/cg-e2e/results; sh /usr/local/lib/cg-e2e/vmm traffic '$2';
		cat /var/lib/cg-e2e/results" >"$TMPD/ans-traffic" 2>&1
	grep -q . "$TMPD/ans-traffic" || { fail "$1: no result from the traffic through vnet0 ($2)"; return; }
	while read -r r rest; do
		case $r in
		PASS) pass "$1 $rest" ;;
		FAIL) fail "$1 $rest" ;;
		esac
	done <"$TMPD/ans-traffic"
}

# next_modules_deb VERSION DEB DKMSDEB DIR: the csum-guard-modules package
# DEB as the next release would be (version VERSION+next), in DIR: each of
# its modules built again, by packaging/kmods.sh as make repo builds them
# (the release's root and compiler, signed with the run's throwaway module
# key), from the source of DKMSDEB (next_dkms_deb's), whose VERSION file
# says VERSION+next.
next_modules_deb() {
	local ver=$1 deb=$2 dkms=$3 dir=$4 x=$TMPD/nextmods kv names= m

	rm -rf "$x" && mkdir -p "$x/src" "$dir" && dpkg-deb -x "$dkms" "$x/src" &&
		tar -C "$x/src/usr/src" -czf "$x/csum-guard-$ver+next.tar.gz" "csum-guard-$ver+next" &&
		dpkg-deb -R "$deb" "$x/pkg" || return 1
	for kv in $(ls "$x/pkg/usr/lib/csum-guard/modules"); do
		names="$names $(awk -v v="linux-image-$kv" '$3 == v { print $1 }' "$TOP/tests/guest/kernels.list")"
	done
	(cd "$TOP" && packaging/kmods.sh "$x/csum-guard-$ver+next.tar.gz" "$TMPD/repokeys/mod.key" \
		"$TMPD/repokeys/mod.crt" "$x/out" $names) || return 1
	for kv in $(ls "$x/pkg/usr/lib/csum-guard/modules"); do
		cp "$x/out/$kv/csum_guard.ko" "$x/pkg/usr/lib/csum-guard/modules/$kv/csum_guard.ko" || return 1
		m=$(md5sum <"$x/out/$kv/csum_guard.ko" | cut -d' ' -f1)
		sed -i "s|^[0-9a-f]*  usr/lib/csum-guard/modules/$kv/csum_guard.ko\$|$m  usr/lib/csum-guard/modules/$kv/csum_guard.ko|" \
			"$x/pkg/DEBIAN/md5sums"
	done
	sed -i -e "s/^Version: .*/Version: $ver+next/" -e "s/(= $ver)/(= $ver+next)/" "$x/pkg/DEBIAN/control" &&
		dpkg-deb --root-owner-group -b "$x/pkg" "$dir/csum-guard-modules_${ver}+next_amd64.deb" >/dev/null
}

# ans_debs T VERSION: source "debs": the packages of build/dist for the
# first run, those of the next release in $AD/debs-next
ans_debs() {
	local t=$1 ver=$2

	if ! cp "$TOP/build/dist/csum-guard_${ver}_amd64.deb" "$TOP/build/dist/csum-guard-dkms_${ver}_all.deb" \
		"$AD/debs/" 2>"$AD/debs.err"; then
		fail "$t: no packages of $ver in build/dist (make dist): $(head -1 "$AD/debs.err")"
		return 1
	fi
	if ! next_dkms_deb "$ver" "$AD/debs/csum-guard-dkms_${ver}_all.deb" "$AD/debs-next" ||
	   ! next_loader_deb "$ver" "$AD/debs/csum-guard_${ver}_amd64.deb" "$AD/debs-next"; then
		fail "$t: cannot make the next release's packages"
		return 1
	fi
	printf '{"csum_guard_debs": ["%s", "%s"]}\n' "$AD/debs/csum-guard_${ver}_amd64.deb" \
		"$AD/debs/csum-guard-dkms_${ver}_all.deb" >"$AD/vars.json"
}

# ans_repo T VERSION K: source "repo": make repo for kernel K with the
# throwaway keys into the share (the host's /cg/repo), and the next
# release's repository, signed with the same keys, in $AD/repo-next
ans_repo() {
	local t=$1 ver=$2 k=$3 n=$AD/next

	if ! repo_keys >"$AD/repokeys.log" 2>&1; then
		fail "$t: cannot make the throwaway keys: $(tail -1 "$AD/repokeys.log")"
		return 1
	fi
	if ! make_repo "$d/repo" "$k" >"$AD/repo.log" 2>&1; then
		fail "$t: make repo REPO_KERNELS=$k failed: $(grep -v '^make' "$AD/repo.log" | tail -2 | tr '\n' ' ')"
		return 1
	fi
	cp "$d/repo/csum-guard-archive-keyring.gpg" "$AD/keyring.gpg" || return 1
	if ! next_dkms_deb "$ver" "$d/repo/pool/main/c/csum-guard/csum-guard-dkms_${ver}_all.deb" "$n" ||
	   ! next_loader_deb "$ver" "$d/repo/pool/main/c/csum-guard/csum-guard_${ver}_amd64.deb" "$n" ||
	   ! next_modules_deb "$ver" "$d/repo/pool/main/c/csum-guard/csum-guard-modules_${ver}_amd64.deb" \
		"$n/csum-guard-dkms_${ver}+next_all.deb" "$n" >"$AD/next.log" 2>&1 ||
	   ! SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct) "$TOP/packaging/repo.sh" "$AD/repo-next" stable \
		"$TMPD/repokeys/repo.asc" "$TMPD/repokeys/mod.crt" "$n"/*.deb >>"$AD/next.log" 2>&1; then
		fail "$t: cannot make the next release's repository: $(tail -2 "$AD/next.log" | tr '\n' ' ')"
		return 1
	fi
	printf '{"csum_guard_source": "repo", "csum_guard_repo_line": "%s", "csum_guard_repo_key": "%s"}\n' \
		"deb [signed-by=/etc/apt/keyrings/csum-guard.gpg] file:/cg/repo stable main" "$AD/keyring.gpg" >"$AD/vars.json"
}

# ans_prebuilt T VERSION: the module loaded on the host is the prebuilt one
# of the repository for its kernel (probe: prebuilt, its file the loaded
# build, signed by the run's module key), installed with no DKMS: neither
# dkms nor a compiler on the host, csum-guard-dkms not installed
ans_prebuilt() {
	local t=$1 ver=$2 p want got

	p=$(ans_ssh 'csum-guard probe --json' 2>&1)
	want="kmod prebuilt $REPO_SIGNER $ver yes /lib/modules/KVER/updates/csum-guard/csum_guard.ko"
	got=$(jq -r '"\(.backend) \(.module_origin) \(.module_signer) \(.module_file_version) \(.module_file_loaded)"' \
		<<<"$p" 2>/dev/null)
	got="$got $(ans_ssh 'modinfo -n csum_guard | sed "s|/$(uname -r)/|/KVER/|"' 2>&1)"
	if [ "$got" = "$want" ]; then
		pass "$t: the loaded module is the repository's prebuilt $ver for the host's kernel, signed by '$REPO_SIGNER' (csum-guard probe, modinfo)"
	else
		fail "$t: the module: '$got', not '$want'"
	fi
	got=$(ans_ssh "command -v dkms gcc cc; ls /var/lib/dkms 2>/dev/null; dpkg-query -W -f='\${db:Status-Status}' csum-guard-dkms 2>/dev/null | grep -x installed" 2>&1)
	if [ -z "$got" ]; then
		pass "$t: no DKMS build: the host has no dkms, no compiler, and csum-guard-dkms is not installed"
	else
		fail "$t: the host has: $(echo $got)"
	fi
}

case_ansible_host() {
	local k=${1%%:*} src=${1#*:} t="ansible" ver d boot rc i st variant=() pkgs

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $1: make test-matrix runs the role on this host (minutes of TCG)"
		return
	fi
	if ! command -v ansible-playbook >/dev/null || ! command -v ssh-keygen >/dev/null; then
		skip "$t $1: no ansible-playbook or ssh-keygen here (make deps installs ansible-core and openssh-client)"
		return
	fi
	t="$t $k"
	ver=$(cat "$TOP/VERSION")
	AD=$TOP/build/ansible/$k
	d=$AD/share
	rm -rf "$AD"
	mkdir -p "$d" "$AD/debs" "$AD/tmp" "$AD/cp"
	case $src in
	debs)
		pkgs="csum-guard csum-guard-dkms"
		ans_debs "$t" "$ver" || return ;;
	repo)
		t="$t repo"
		pkgs="csum-guard csum-guard-modules"
		variant=(--bare)
		ans_repo "$t" "$ver" "$k" || return ;;
	*)
		fail "$t: '$src' is no source: debs or repo"
		return ;;
	esac
	ssh-keygen -q -t ed25519 -N '' -C "csum-guard test $k" -f "$AD/key" &&
		cp "$AD/key.pub" "$d/authorized_keys" &&
		cp "$TOP/tests/guest/host-ansible.sh" "$d/run" &&
		cp "$TOP/tests/guest/host-vmm.sh" "$d/vmm" &&
		cp "$BLD/tests/static/cg-inject" "$BLD/tests/static/cg-udprecv" "$d/" &&
		printf 'TAG=%s\nBAD=%s\nGOOD=%s\n' "$k" 5 20 >"$d/params" ||
		{ fail "$t: cannot prepare the share (make all builds build/tests/static/)"; return; }
	# a loopback port nobody listens on
	for i in $(seq 40); do
		AP=$((20000 + RANDOM % 20000))
		[ -z "$(ss -Hltn "sport = :$AP")" ] && break
	done
	printf '[csum_guard_hosts]\n%s ansible_host=127.0.0.1 ansible_port=%s ansible_user=root ansible_ssh_private_key_file=%s ansible_python_interpreter=/usr/bin/python3 ansible_ssh_common_args="-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"\n' \
		"$k" "$AP" "$AD/key" >"$AD/inventory"

	T0=$SECONDS
	"$TOP/tests/guest/boot.sh" "${variant[@]}" "$k" --share "$d" --timeout 1800 --ssh-port "$AP" >"$AD/boot.log" 2>&1 &
	boot=$!
	for i in $(seq 600); do
		[ -f "$d/ready" ] && ans_ssh true && break
		kill -0 $boot 2>/dev/null || break
		sleep 1
	done
	if ! [ -f "$d/ready" ] || ! ans_ssh true; then
		fail "$t: the host did not let the controller in over ssh (port $AP); its console's last lines:"
		{ tail -5 "$AD/boot.log"; tail -25 "$d/console.log"; tail -15 "$d/log" 2>/dev/null; } | sed 's/^/#   /'
		kill $boot 2>/dev/null; wait $boot
		rm -f "$d/disk.img"
		return
	fi
	note "$t: the host let the controller in over ssh ($(cat "$d/ready")), $((SECONDS - T0)) s after its boot began"

	# 1. the first run: installs and guards
	if ans_play "$t" "$AD/play1.log" site.yml; then
		pass "$t: site.yml installed csum-guard $ver from the $src and found every guest-facing device guarded ($RECAP)"
	else
		fail "$t: the first run of site.yml failed: $(grep -m2 -E '^(fatal|failed):' "$AD/play1.log" | cut -c1-400)"
	fi
	st=$(ans_ssh "dpkg-query -W -f='\${Version} ' $pkgs; csum-guard status vnet0 --json; systemctl is-active csum-guard-watch.service; systemctl is-enabled csum-guard-watch.service" 2>&1 | tr '\n' ' ')
	case $st in
	"$ver $ver "*'"guarded":true'*' active enabled ') pass "$t: after the play $pkgs are $ver, the watcher runs, enabled, and guards vnet0: ${st:0:160}" ;;
	*) fail "$t: after the play: $st" ;;
	esac
	[ "$src" = repo ] && ans_prebuilt "$t" "$ver"
	ans_traffic ansible "after the first play"

	# 2. again: nothing to change
	if ans_play "$t" "$AD/play2.log" site.yml && [[ $RECAP == *" changed=0 "* ]] &&
	   [[ $RECAP == *" failed=0 "* ]]; then
		pass "$t: the second run of site.yml changed nothing ($RECAP)"
	else
		fail "$t: the second run of site.yml: $RECAP $(grep -m3 -E '^(changed|fatal):' "$AD/play2.log" | tr '\n' ' ')"
	fi

	# 3. the watcher's arguments: the play restarts it with them; then a
	# tap it leaves alone fails the play, named
	if ans_play "$t" "$AD/play3.log" site.yml -e "csum_guard_watch_args='--match vnet*'" &&
	   ans_ssh 'systemctl show -p ExecStart csum-guard-watch.service' | grep -q 'argv\[\]=/usr/sbin/csum-guard watch --match vnet\* ;'; then
		pass "$t: with csum_guard_watch_args, the play restarted the watcher as csum-guard watch --match 'vnet*' ($RECAP)"
	else
		fail "$t: the play with csum_guard_watch_args: $RECAP $(ans_ssh 'systemctl show -p ExecStart csum-guard-watch.service' 2>&1 | cut -c1-200)"
	fi
	ans_ssh 'ip tuntap add dev guest9 mode tap && ip link set guest9 up' >>"$AD/ssh.err" 2>&1
	if ans_play "$t" "$AD/play3b.log" site.yml -e "csum_guard_watch_args='--match vnet*'" \
		-e csum_guard_check_timeout=10; then
		fail "$t: site.yml passed with guest9 unguarded ($RECAP)"
	elif grep -E '^fatal:.*not guarded' "$AD/play3b.log" | grep -q 'guest9 (tun)'; then
		pass "$t: a tap the watcher leaves alone, guest9, failed the play, named: $(grep -o 'csum-guard: [0-9]* guest-facing device(s) of [^ ]* not guarded after [0-9]* s: [^.]*' "$AD/play3b.log" | head -1)"
	else
		fail "$t: the failed play did not name guest9: $(grep -m2 -E '^fatal:' "$AD/play3b.log" | cut -c1-400)"
	fi
	note "$t: steps 1 to 3 done $((SECONDS - T0)) s after the boot began"

	# 4. the next release, rolled with serial
	ans_upgrade "$t" "$ver" "$src" "$pkgs"

	ans_ssh 'systemctl poweroff --no-block' >/dev/null 2>&1
	wait $boot
	rc=$?
	[ $rc = 0 ] || fail "$t: the host did not power off (boot.sh exit $rc)"
	note "$t: the host's run took $((SECONDS - T0)) s from its boot to its power-off"
	rm -f "$d/disk.img"
}
cg_host_case --after-guests ansible_host deb5.10:debs
cg_host_case --after-guests ansible_host deb6.1-fixed:repo

# ans_upgrade T VERSION SOURCE PACKAGES: upgrade.yml to VERSION+next from
# SOURCE (the next .debs, or the next repository in the first one's place),
# judged: PACKAGES and the loaded module at VERSION+next
ans_upgrade() {
	local t=$1 ver=$2 src=$3 pkgs=$4 st n

	if [ "$src" = repo ]; then
		# the next release published where the first one was
		mv "$d/repo" "$AD/repo-first" && mv "$AD/repo-next" "$d/repo" ||
			{ fail "$t: cannot put the next repository in place"; return; }
		# (the same variables: upgrade.yml follows the repository's newest)
	else
		printf '{"csum_guard_debs": ["%s", "%s"]}\n' "$AD/debs-next/csum-guard_${ver}+next_amd64.deb" \
			"$AD/debs-next/csum-guard-dkms_${ver}+next_all.deb" >"$AD/vars.json"
	fi
	if ans_play "$t" "$AD/play4.log" upgrade.yml; then
		pass "$t: upgrade.yml rolled the host to $ver+next ($RECAP)"
	else
		fail "$t: upgrade.yml failed: $(grep -m2 -E '^(fatal|failed):' "$AD/play4.log" | cut -c1-400)"
	fi
	st=$(ans_ssh "dpkg-query -W -f='\${Version} ' $pkgs; cat /sys/module/csum_guard/version; csum-guard status --json" 2>&1 | tr '\n' ' ')
	n=$(grep -o '"guarded":true' <<<"$st" | wc -l)
	case $st in
	"$ver+next $ver+next $ver+next "*'"device":"vnet0"'*) ;;
	*) n=-1 ;;
	esac
	if [ "$n" -ge 2 ] && [[ $st != *'"guarded":false'* ]]; then
		pass "$t: $pkgs and the loaded module are $ver+next, vnet0 and guest9 guarded"
	else
		fail "$t: after the upgrade: ${st:0:400}"
	fi
	[ "$src" = repo ] && ans_prebuilt "$t" "$ver+next"
	ans_traffic ansible "after the upgrade"
}

# The role's check (tasks/check.yml) run by ansible-playbook on this
# machine (connection local), with build/'s csum-guard first in PATH, over
# a namespace of its own: a tap left unguarded fails the play naming it;
# guarded, the play passes (verify ran, none skipped); its egress hook
# deleted behind csum-guard's back, the play fails with verify's finding.
# The whole role over ssh against booted hosts is ansible_host, above.
case_ansible_check() {
	local t="ansible-check" ns=cgans$$ d=$TMPD/anscheck

	if ! command -v ansible-playbook >/dev/null; then
		skip "$t: no ansible-playbook here (make deps installs ansible-core)"
		return
	fi
	mkdir -p "$d"
	cat >"$d/play.yml" <<PLAY
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    csum_guard_check_timeout: 2
  environment:
    PATH: "$TOP/build:/usr/sbin:/usr/bin:/sbin:/bin"
  tasks:
    - ansible.builtin.include_tasks: $TOP/deploy/ansible/roles/csum_guard/tasks/check.yml
PLAY
	ansplay() { ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, "$d/play.yml" >"$d/$1.log" 2>&1; }
	expect_ok "make $ns" ip netns add "$ns" &&
		expect_ok "make tap9" ip -n "$ns" tuntap add dev tap9 mode tap vnet_hdr &&
		expect_ok "tap9 up" ip -n "$ns" link set tap9 up || { expect_verdict "$t" "-"; ip netns del "$ns"; return; }

	ansplay unguarded && unexpected "the play over an unguarded tap9" "passed"
	expect_grep "the failed play names tap9" "not guarded after 2 s: .*tap9 (tun, netns $ns)" "$d/unguarded.log"

	expect_ok "attach tap9 --egress" "$CG" attach tap9 --netns "$ns" --egress --mode clsact --backend bpf -q
	ansplay guarded || unexpected "the play over a guarded tap9" "failed: $(grep -m1 '^fatal' "$d/guarded.log" | cut -c1-300)"
	expect_grep "the play's recap: verify ran, nothing skipped" 'ok=4 .*failed=0 .*skipped=0' "$d/guarded.log"

	expect_ok "delete the egress filter" tc -n "$ns" filter del dev tap9 egress
	ansplay drifted && unexpected "the play with tap9's egress hook gone" "passed"
	expect_grep "the failed play gives verify's finding" \
		"csum-guard verify on localhost: drift: tap9 netns $ns: .*egress hook is gone" "$d/drifted.log"

	"$CG" detach tap9 --netns "$ns" -q
	ip netns del "$ns"
	expect_verdict "$t" "the role's check over this machine: an unguarded tap fails the play by name, a guarded one passes with verify run, a guard whose egress hook was deleted fails it with verify's drift"
}
cg_host_case ansible_check
