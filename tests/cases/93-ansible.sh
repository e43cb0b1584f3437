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
#   1. site.yml with the .debs of build/dist: installs, the watcher guards
#      vnet0, 5 bad frames dropped and counted, 20 good ones intact;
#   2. site.yml again: changed=0;
#   3. site.yml with csum_guard_watch_args "--match 'vnet*'": the watcher
#      restarted with them; then a tap guest9, which it leaves alone: the
#      play fails, naming guest9;
#   4. upgrade.yml (serial) with the next release's .debs (VERSION+next):
#      both packages and the loaded module move to it, guest9 and vnet0
#      guarded, frames judged again.
#
# make test-matrix (CG_DEPTH=full) only: each host costs 17 to 25 minutes of
# TCG (two DKMS builds), more than make test's hour has room for. There the
# Debian 11 host (5.10) and the Debian 12 host (6.1), steps 1 to 4.

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

case_ansible_host() {
	local k=$1 t="ansible" ver d boot rc i p n changed st

	if [ "$CG_DEPTH" != full ]; then
		skip "$t $k: make test-matrix runs the role on this host (17 to 25 minutes of TCG each)"
		return
	fi
	if ! command -v ansible-playbook >/dev/null || ! command -v ssh-keygen >/dev/null; then
		skip "$t $k: no ansible-playbook or ssh-keygen here (make deps installs ansible-core and openssh-client)"
		return
	fi
	t="$t $k"
	ver=$(cat "$TOP/VERSION")
	AD=$TOP/build/ansible/$k
	d=$AD/share
	rm -rf "$AD"
	mkdir -p "$d" "$AD/debs" "$AD/tmp" "$AD/cp"
	if ! cp "$TOP/build/dist/csum-guard_${ver}_amd64.deb" "$TOP/build/dist/csum-guard-dkms_${ver}_all.deb" \
		"$AD/debs/" 2>"$TMPD/ans-$k.err"; then
		fail "$t: no packages of $ver in build/dist (make dist): $(head -1 "$TMPD/ans-$k.err")"
		return
	fi
	if ! next_dkms_deb "$ver" "$AD/debs/csum-guard-dkms_${ver}_all.deb" "$AD/debs-next" ||
	   ! next_loader_deb "$ver" "$AD/debs/csum-guard_${ver}_amd64.deb" "$AD/debs-next"; then
		fail "$t: cannot make the next release's packages"
		return
	fi
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
	printf '{"csum_guard_debs": ["%s", "%s"]}\n' "$AD/debs/csum-guard_${ver}_amd64.deb" \
		"$AD/debs/csum-guard-dkms_${ver}_all.deb" >"$AD/vars.json"

	"$TOP/tests/guest/boot.sh" "$k" --share "$d" --timeout 1800 --ssh-port "$AP" >"$TMPD/ans-$k.boot" 2>&1 &
	boot=$!
	for i in $(seq 600); do
		[ -f "$d/ready" ] && ans_ssh true && break
		kill -0 $boot 2>/dev/null || break
		sleep 1
	done
	if ! [ -f "$d/ready" ] || ! ans_ssh true; then
		fail "$t: the host did not let the controller in over ssh (port $AP); its console's last lines:"
		{ tail -5 "$TMPD/ans-$k.boot"; tail -25 "$d/console.log"; tail -15 "$d/log" 2>/dev/null; } | sed 's/^/#   /'
		kill $boot 2>/dev/null; wait $boot
		rm -f "$d/disk.img"
		return
	fi
	note "$t: the host let the controller in over ssh ($(cat "$d/ready"))"

	# 1. the first run: installs and guards
	if ans_play "$t" "$AD/play1.log" site.yml; then
		pass "$t: site.yml installed csum-guard $ver from the given .debs and found every guest-facing device guarded ($RECAP)"
	else
		fail "$t: the first run of site.yml failed: $(grep -m2 -E '^(fatal|failed):' "$AD/play1.log" | cut -c1-400)"
	fi
	st=$(ans_ssh 'csum-guard status vnet0 --json; systemctl is-active csum-guard-watch.service; systemctl is-enabled csum-guard-watch.service' 2>&1 | tr '\n' ' ')
	case $st in
	*'"guarded":true'*' active enabled ') pass "$t: after the play the watcher runs, enabled, and guards vnet0: ${st:0:160}" ;;
	*) fail "$t: after the play: $st" ;;
	esac
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
	ans_ssh 'ip tuntap add dev guest9 mode tap && ip link set guest9 up' >>"$TMPD/ans-$k.err" 2>&1
	if ans_play "$t" "$AD/play3b.log" site.yml -e "csum_guard_watch_args='--match vnet*'" \
		-e csum_guard_check_timeout=10; then
		fail "$t: site.yml passed with guest9 unguarded ($RECAP)"
	elif grep -E '^fatal:.*not guarded' "$AD/play3b.log" | grep -q 'guest9 (tun)'; then
		pass "$t: a tap the watcher leaves alone, guest9, failed the play, named: $(grep -o 'csum-guard: [0-9]* guest-facing device(s) of [^ ]* not guarded after [0-9]* s: [^.]*' "$AD/play3b.log" | head -1)"
	else
		fail "$t: the failed play did not name guest9: $(grep -m2 -E '^fatal:' "$AD/play3b.log" | cut -c1-400)"
	fi

	# 4. the next release, rolled with serial (a second DKMS build)
	ans_upgrade "$t" "$ver"

	ans_ssh 'systemctl poweroff --no-block' >/dev/null 2>&1
	wait $boot
	rc=$?
	[ $rc = 0 ] || fail "$t: the host did not power off (boot.sh exit $rc)"
	rm -f "$d/disk.img"
}
cg_host_case --after-guests ansible_host deb5.10
cg_host_case --after-guests ansible_host deb6.1-fixed

# ans_upgrade T VERSION: upgrade.yml to VERSION+next, judged
ans_upgrade() {
	local t=$1 ver=$2 st n

	printf '{"csum_guard_debs": ["%s", "%s"]}\n' "$AD/debs-next/csum-guard_${ver}+next_amd64.deb" \
		"$AD/debs-next/csum-guard-dkms_${ver}+next_all.deb" >"$AD/vars.json"
	if ans_play "$t" "$AD/play4.log" upgrade.yml; then
		pass "$t: upgrade.yml rolled the host to $ver+next ($RECAP)"
	else
		fail "$t: upgrade.yml failed: $(grep -m2 -E '^(fatal|failed):' "$AD/play4.log" | cut -c1-400)"
	fi
	st=$(ans_ssh "dpkg-query -W -f='\${Version} ' csum-guard csum-guard-dkms; cat /sys/module/csum_guard/version; csum-guard status --json" 2>&1 | tr '\n' ' ')
	n=$(grep -o '"guarded":true' <<<"$st" | wc -l)
	case $st in
	"$ver+next $ver+next $ver+next "*'"device":"vnet0"'*) ;;
	*) n=-1 ;;
	esac
	if [ "$n" -ge 2 ] && [[ $st != *'"guarded":false'* ]]; then
		pass "$t: both packages and the loaded module are $ver+next, vnet0 and guest9 guarded"
	else
		fail "$t: after the upgrade: ${st:0:400}"
	fi
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
