# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 52-hostile.sh - a guard that stays as it was set up on a host that keeps
# changing: nothing but the operator's explicit word narrows its options.
#
#   netns $CG_PFX-k: tap ${CG_PFX}k0 (up), guarded; cg-inject writes one
#   bad frame into it and the guard's counter must count it

# hk_kernel NS DEV: "EGRESS LOG_DROPS" of DEV's guard as the kernel runs it:
# bpf from the hooks and the program's read-only data, kmod from the
# module's own dump (the status of the kmod backend reads nothing else)
hk_kernel() {
	local h e=false l=

	if [ "$BACKEND" = bpf ]; then
		h=$(kernel_guard "$1" "$2")
		grep -q '_egress ' <<<"$h" && e=true
		l=$(awk '$1 ~ /_ingress$/ { print $4; exit }' <<<"$h")
		echo "$e ${l:-none}"
	else
		"$CG" status "$2" --netns "$1" --json | jq -r '"\(.egress) \(.log_drops)"'
	fi
}

# hk_drops NS DEV: one bad frame written into DEV; empty when the guard
# counted it, else what went wrong
hk_drops() {
	local d0 d1

	d0=$("$CG" status "$2" --netns "$1" --json | jq -r .dropped)
	ip netns exec "$1" "$INJECT" --dev "$2" --csum-start 20 --csum-offset 6 --payload 64 ||
		echo "inject failed"
	d1=$("$CG" status "$2" --netns "$1" --json | jq -r .dropped)
	[ "$d1" = $((d0 + 1)) ] || echo "dropped $d0 -> $d1"
}

# hk_watch_once NS DEV OUT ARGS...: a watcher of DEV alone, with ARGS, until
# it has dealt with DEV (guarded or left it), then stopped
hk_watch_once() {
	local ns=$1 dev=$2 out=$3 wpid end=$((SECONDS + 15))

	[ -n "${CG_GUEST:-}" ] && end=$((SECONDS + 90))

	shift 3
	# emptied before: the watcher's shell truncates it only once forked,
	# and the loop below must not take the last watcher's line for its own
	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$dev" --no-completion "$@" >"$out" 2>&1 &
	wpid=$!
	until grep -qsE "^(already guarded|guarded|cannot guard) $dev netns " "$out"; do
		[ $SECONDS -lt $end ] && kill -0 $wpid 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM $wpid 2>/dev/null
	wait $wpid 2>/dev/null
}

# Never narrow an operator's choice: a guard given --egress and --log-drops
# keeps both through a plain attach, the libvirt hook's attach and watch
# runs of other options; only --no-egress and --no-log-drops take them off.
case_hostile_keep() {
	local t="hostile-keep [$BACKEND]" ns=$CG_PFX-k dev=${CG_PFX}k0 got eg
	local hook=$TOP/packaging/libvirt-qemu-hook out=$TMPD/hk.watch

	eg=$(egress_unavailable)
	if [ -n "$eg" ]; then
		skip "$t: this backend cannot guard egress here: $eg"
		return
	fi
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	if ! { ip netns add "$ns" && ip -n "$ns" link set lo up &&
	       ip -n "$ns" tuntap add dev "$dev" mode tap vnet_hdr && ip -n "$ns" link set "$dev" up; }; then
		fail "$t: set-up"
		ip netns del "$ns" 2>/dev/null
		return
	fi
	hk() { "$CG" attach "$dev" --netns "$ns" --backend "$BACKEND" --quiet "$@"; }
	# hk_want STEP "EGRESS LOG_DROPS": what the kernel runs, and it drops
	hk_want() {
		got=$(hk_kernel "$ns" "$dev")
		[ "$got" = "$2" ] || unexpected "$1" "egress/log_drops $got, want $2"
		got=$(hk_drops "$ns" "$dev")
		[ -z "$got" ] || unexpected "$1" "$got"
	}

	hk --egress --log-drops || unexpected "attach --egress --log-drops failed"
	hk_want "set-up" "true true"
	hk || unexpected "plain attach failed"
	hk_want "plain attach" "true true"

	# the libvirt hook at "start begin", in the device's namespace (never
	# a mount namespace of its own: the pins must outlive it)
	printf "<domain>\n  <interface type='ethernet'>\n    <target dev='%s'/>\n  </interface>\n</domain>\n" "$dev" |
		PATH=$BLD:$PATH nsenter --net="/run/netns/$ns" sh "$hook" guest1 start begin - >"$TMPD/hk.hook" 2>&1 ||
		unexpected "hook failed" "$(tr '\n' ' ' <"$TMPD/hk.hook")"
	hk_want "libvirt hook" "true true"

	# a watcher without --log-drops (a restart with other options)
	hk_watch_once "$ns" "$dev" "$out"
	grep -q "^already guarded $dev netns .*egress.*log-drops" "$out" ||
		unexpected "watch said" "$(grep " $dev " "$out" | tr '\n' ' ')"
	hk_want "watch" "true true"

	# the operator's explicit word
	hk --no-egress || unexpected "attach --no-egress failed"
	hk_want "--no-egress" "false true"
	hk --no-log-drops || unexpected "attach --no-log-drops failed"
	hk_want "--no-log-drops" "false false"

	# watch --log-drops over a guard of --egress: adds the log, keeps egress
	hk --egress || unexpected "attach --egress failed"
	hk_watch_once "$ns" "$dev" "$out" --log-drops
	grep -q "^guarded $dev netns " "$out" ||
		unexpected "watch --log-drops said" "$(grep " $dev " "$out" | tr '\n' ' ')"
	hk_want "watch --log-drops" "true true"

	# both ways at once is bad usage, and changes nothing
	hk --egress --no-egress 2>"$TMPD/hk.err" && unexpected "--egress --no-egress accepted"
	[ "$(wc -l <"$TMPD/hk.err")" = 1 ] || unexpected "--egress --no-egress said" "$(cat "$TMPD/hk.err")"
	hk --log-drops --no-log-drops 2>/dev/null && unexpected "--log-drops --no-log-drops accepted"
	hk_want "bad usage" "true true"

	"$CG" detach "$dev" --netns "$ns" --quiet
	ip netns del "$ns"
	expect_verdict "$t" "--egress and --log-drops kept through a plain attach, the libvirt hook and watch with and without --log-drops (the kernel runs both, bad frames counted); --no-egress and --no-log-drops take each off"
}
cg_case hostile_keep

# hu_watch OUT SOCK ARGS...: a watcher of ${CG_PFX}u0 alone, in a mount
# namespace of its own whose bpffs is read-only (every bpf attach fails
# there until it is made writable), its descriptor limit 1024 of 8192;
# its pid in $hu_pid
hu_watch() {
	local out=$1 sock=$2

	shift 2
	: >"$out"	# emptied before the shell of the background job does it
	NOTIFY_SOCKET=$sock prlimit --nofile=1024:8192 unshare -m --propagation private \
		sh -c 'mount -t bpf -o ro bpf /sys/fs/bpf && exec "$@"' sh \
		"$CG" watch --backend bpf --match "${CG_PFX}u0" --no-completion "$@" >"$out" 2>&1 &
	hu_pid=$!
}

# Fail closed: a watcher says READY=1 only once every device there at its
# start is guarded. A tap it cannot guard (bpffs read-only in its mount
# namespace) keeps it from ready: it names the tap, tries again, and is
# ready within seconds of the tap being guardable. --ready-on-failure is
# ready all the same. Its descriptor limit is raised to the hard limit.
case_hostile_unready() {
	local t="hostile-unready [$BACKEND]" ns=$CG_PFX-u dev=${CG_PFX}u0 sock=$TMPD/hu.sock
	local out=$TMPD/hu.watch lim=20 rpid

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the failure is made by a read-only bpffs, which the module's guards do not use"
		return
	fi
	[ -n "${CG_GUEST:-}" ] && lim=120
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	if ! { ip netns add "$ns" && ip -n "$ns" tuntap add dev "$dev" mode tap vnet_hdr &&
	       ip -n "$ns" link set "$dev" up; }; then
		fail "$t: set-up"
		ip netns del "$ns" 2>/dev/null
		return
	fi
	rm -f "$sock"
	"$SDRECV" "$sock" $lim >"$TMPD/hu.sd" 2>&1 &
	rpid=$!
	while [ ! -S "$sock" ] && kill -0 $rpid 2>/dev/null; do sleep 0.05; done
	hu_watch "$out" "$sock"
	# not ready while the tap cannot be guarded, and it says which
	wait $rpid && unexpected "READY=1 with $dev unguarded" "$(tr '\n' '|' <"$TMPD/hu.sd")"
	grep -q "^cannot guard $dev netns $ns: " "$out" || unexpected "no 'cannot guard' line"
	grep -q "^not ready: 1 device not guarded ($dev netns $ns); trying again" "$out" ||
		unexpected "no 'not ready' line"
	grep -q "STATUS=not ready: 1 device not guarded ($dev netns $ns)" "$TMPD/hu.sd" ||
		unexpected "the service manager was not told why"
	grep -q '^ready: ' "$out" && unexpected "said $(grep '^ready: ' "$out")"
	grep -q "^cannot guard $dev netns $ns: " "$out" && [ "$(grep -c "^cannot guard $dev " "$out")" -ge 2 ] ||
		unexpected "tried $(grep -c "^cannot guard $dev " "$out") times in ${lim}s"
	# the limit: the hard one
	grep -q '^Max open files *8192 *8192 ' "/proc/$hu_pid/limits" ||
		unexpected "limits" "$(grep 'open files' "/proc/$hu_pid/limits")"
	# the tap becomes guardable: guarded, then ready, READY=1
	rm -f "$sock"
	"$SDRECV" "$sock" $lim >"$TMPD/hu.sd2" 2>&1 &
	rpid=$!
	while [ ! -S "$sock" ] && kill -0 $rpid 2>/dev/null; do sleep 0.05; done
	nsenter -t "$hu_pid" -m mount -o remount,rw /sys/fs/bpf || unexpected "remount failed"
	wait $rpid || unexpected "no READY=1 once $dev could be guarded" "$(tr '\n' '|' <"$TMPD/hu.sd2")"
	grep -q "^ready: 1 guarded, 0 failed" "$out" || unexpected "ready line" "$(grep '^ready' "$out")"
	[ "$(nsenter -t "$hu_pid" -m "$CG" status "$dev" --netns "$ns" --json | jq -r .attached)" = true ] ||
		unexpected "$dev not guarded after ready"
	nsenter -t "$hu_pid" -m "$CG" detach "$dev" --netns "$ns" --quiet
	kill -TERM $hu_pid 2>/dev/null
	wait $hu_pid

	# --ready-on-failure: ready although the tap cannot be guarded
	rm -f "$sock"
	"$SDRECV" "$sock" $lim >"$TMPD/hu.sd3" 2>&1 &
	rpid=$!
	while [ ! -S "$sock" ] && kill -0 $rpid 2>/dev/null; do sleep 0.05; done
	hu_watch "$out.2" "$sock" --ready-on-failure
	wait $rpid || unexpected "--ready-on-failure" "no READY=1: $(tr '\n' '|' <"$TMPD/hu.sd3")"
	grep -q "^ready: 0 guarded, 1 failed" "$out.2" || unexpected "--ready-on-failure said" "$(grep "ready" "$out.2")"
	kill -TERM $hu_pid 2>/dev/null
	wait $hu_pid
	ip netns del "$ns"
	expect_clean || unexpected "log" "$(tr '\n' '|' <"$out")"
	expect_verdict "$t" "no READY=1 while a tap there at start could not be guarded (named in the log and STATUS=, tried again); guarded and READY=1 once it could be; --ready-on-failure ready all the same; descriptor limit raised to the hard one"
}
cg_case hostile_unready

# hp_run SCRIPT ARG STATUS COMPLETION: the dkms package's maintainer
# SCRIPT (postinst configure, prerm remove) as dpkg runs it, in a mount
# namespace of its own where csum_guard 0.0.1 is loaded (a tmpfs over
# /sys/module) and the tools it calls are stand-ins that record their
# calls: csum-guard's status exits STATUS ("fail": 1 and nothing on stdout,
# "idle": no guard, "kmod": a module guard) and completion status likewise
# (COMPLETION "fail", "off", "on"). Prints the calls of rmmod, then what
# the script said.
hp_run() {
	local d=$TMPD/hp s=$TMPD/hp/script

	rm -rf "$d"
	mkdir -p "$d/bin"
	sed 's/@VERSION@/9.9.9/g' "$TOP/packaging/dkms/$1" >"$s"
	cat >"$d/bin/csum-guard" <<-'EOS'
		#!/bin/sh
		case "$1 $2" in
		"status --json")
			case $HP_STATUS in
			fail) echo "csum-guard: module csum_guard speaks ABI 9, this loader 1" >&2; exit 1 ;;
			idle) echo '[]' ;;
			kmod) echo '[{"device":"tap0","backend":"kmod","attached":true}]' ;;
			esac ;;
		"completion status")
			case $HP_COMPLETION in
			fail) exit 1 ;;
			off) echo '{"on":false}' ;;
			on) echo '{"on":true}' ;;
			esac ;;
		esac
		EOS
	printf '#!/bin/sh\necho "rmmod $*" >>"%s/calls"\n' "$d" >"$d/bin/rmmod"
	# every kernel's build installed already; no systemd to restart a unit in
	printf '#!/bin/sh\n[ "$1" = status ] && echo "csum-guard/9.9.9, x, x86_64: installed"\nexit 0\n' >"$d/bin/dkms"
	printf '#!/bin/sh\nexit 1\n' >"$d/bin/deb-systemd-helper"
	chmod +x "$d/bin/"*
	: >"$d/calls"
	HP_STATUS=$3 HP_COMPLETION=$4 PATH="$d/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		unshare -m --propagation private sh -c '
		mount -t tmpfs tmpfs /sys/module && mkdir /sys/module/csum_guard &&
		echo 0.0.1 >/sys/module/csum_guard/version && exec sh "$@"' sh "$s" "$2" >"$d/out" 2>&1
	echo "rc=$? $(tr '\n' ' ' <"$d/calls")"
	tr '\n' ' ' <"$d/out"
}

# Packages never unload a module that may guard: csum-guard-dkms's postinst
# (an upgrade, the old module loaded) and prerm (a removal) run rmmod only
# when csum-guard says the module guards nothing and its completion guard
# is off; a status or completion status that fails is not "idle".
case_hostile_package() {
	local t="hostile-package" got s a st c want

	command -v unshare >/dev/null || { skip "$t: no unshare"; return; }
	for s in "postinst configure" "prerm remove"; do
		a=${s#* }
		s=${s% *}
		for st in "fail off keep" "idle fail keep" "kmod off keep" "idle on keep" "idle off unload"; do
			set -- $st
			got=$(hp_run "$s" "$a" "$1" "$2")
			want="rc=0 "
			[ "$3" = unload ] && want="rc=0 rmmod csum_guard "
			[ "$(head -1 <<<"$got")" = "$want" ] ||
				unexpected "$s $a, status $1, completion $2" "$(head -1 <<<"$got") ($(tail -1 <<<"$got"))"
		done
	done
	expect_verdict "$t" "the dkms package's postinst and prerm keep the module loaded when csum-guard's status or completion status fails or shows a guard, and unload it only when both say it guards nothing"
}
cg_kernel_case hostile_package

# A host that loads only signed modules: the 6.1 guest (no bpf backend
# there) booted with module.sig_enforce=1, with lockdown=integrity (what
# Secure Boot turns on in Debian's kernels), or with Secure Boot itself;
# its DKMS module not signed by a key the kernel holds. probe says the
# module cannot load and why (not modprobe -n's "loadable"), attach fails in
# one line saying it, watch never says ready, doctor names it, and the
# kernel itself refuses the module (tests/guest/sigforce.sh runs there).
# hostile_sig T MODE "RUN.SH OPTIONS" WHY KERNEL: MODE is sigforce.sh's,
# WHY what probe, attach, watch and doctor must name, KERNEL (a regex)
# modprobe's reason.
hostile_sig() {
	local t=$1 mode=$2 opts=$3 want=$4 kre=$5 k=deb6.1-vuln out=$TMPD/$1.out moddir l

	if [ ! -s "$TMPD/moddir-$k" ]; then
		skip "$t: no $k guest in this run (CG_GUESTS), so no DKMS module built for it"
		return
	fi
	moddir=$(cat "$TMPD/moddir-$k")
	# shellcheck disable=SC2086 # the options are words
	"$TOP/tests/guest/run.sh" --kernel $k --timeout 900 $opts \
		--modules-dir "$moddir" -- env CG_BUILD_DIR="$BLD" sh "$TOP/tests/guest/sigforce.sh" $mode \
		>"$out" 2>&1
	l() { sed -n "s/^$1: //p" "$out" | head -1; }
	case $mode in
	lockdown)
		[ "$(l sig_enforce)" = N ] || unexpected "sig_enforce" "$(l sig_enforce)"
		# no securityfs mounted: the command line tells probe
		[[ $(l probe_nosecfs) == *'"kmod_loadable":false'*'loads only signed modules (lockdown integrity, from the kernel command line)'* ]] ||
			unexpected "probe without securityfs" "$(l probe_nosecfs)"
		[[ $(l refused) == *"Lockdown: modprobe: unsigned module loading is restricted"* ]] ||
			unexpected "no lockdown refusal in the kernel's log" "$(l refused)"
		# the kernel's EPERM alone does not say why: completion adds it
		[[ $(l completion) == *"Operation not permitted (lockdown integrity: only modules signed by a key the kernel trusts load)"* ]] ||
			unexpected "completion on does not name the lockdown" "$(l completion)"
		;;
	secureboot)
		# Debian's kernel enforces signatures too under Secure Boot
		[ "$(l sig_enforce)" = Y ] || unexpected "sig_enforce" "$(l sig_enforce)"
		[[ $(l secureboot) == *" 1" ]] || unexpected "SecureBoot variable" "$(l secureboot)"
		[[ $(l doctor) == *"lockdown integrity, Secure Boot on|"* ]] || unexpected "doctor" "$(l doctor)"
		;;
	*)
		[ "$(l sig_enforce)" = Y ] || unexpected "sig_enforce" "$(l sig_enforce)"
		;;
	esac
	[ -z "$mode" ] || [ "$(l lockdown)" = "none [integrity] confidentiality" ] || unexpected "lockdown" "$(l lockdown)"
	[[ $(l modprobe) =~ ^rc=1\ .*could\ not\ insert\ \'csum_guard\':\ ($kre) ]] ||
		unexpected "the kernel did not refuse the module" "$(l modprobe)"
	[ "$(l loaded)" = no ] || unexpected "module loaded"
	[[ $(l probe) == *'"kmod_loadable":false'* ]] && [[ $(l probe) == *"only signed modules ($want)"* ]] ||
		unexpected "probe" "$(l probe)"
	[[ $(l attach) == "rc=1 csum-guard: cannot attach to sg0: "*"only signed modules ($want)"* ]] ||
		unexpected "attach" "$(l attach)"
	[[ $(l watch) == "rc=1 "*"only signed modules ($want)|" ]] && [[ $(l watch) != *"|ready: "* ]] ||
		unexpected "watch" "$(l watch)"
	[[ $(l doctor) == *"module: "*"is there but signatures are enforced: "*"($want)|"* ]] ||
		unexpected "doctor" "$(l doctor)"
	# where the load is really tried, the kernel's reason, as modprobe said it
	[[ $(l completion) =~ ^rc=1\ .*cannot\ be\ loaded\ into\ kernel\ .*:\ could\ not\ insert\ \'csum_guard\':\ ($kre) ]] ||
		unexpected "completion on" "$(l completion)"
	expect_clean || unexpected "guest" "$(tail -3 "$out" | tr '\n' ' ')"
	expect_verdict "$t" "${opts#--append } on $k: the kernel refuses the module ($(l modprobe | cut -c6-)); probe, attach, watch and doctor say it needs a signature the kernel trusts ($want; signer: $(l signer)), watch never ready; completion on, which loads it, says the kernel's reason ($(l completion | sed 's/.*could not insert .csum_guard.: //'))"
}
case_hostile_sigforce() {
	hostile_sig hostile-sigforce "" "--append module.sig_enforce=1" module.sig_enforce=1 \
		'Key was rejected by service|Required key not available'
}
cg_host_case --after-guests hostile_sigforce

# The same under lockdown=integrity: sig_enforce stays N and the kernel
# says only "Operation not permitted" (EPERM); completion on adds which
# lockdown. securityfs, where the lockdown shows, is first not mounted
# (probe reads the command line), then mounted as systemd does.
case_hostile_lockdown() {
	hostile_sig hostile-lockdown lockdown "--append lockdown=integrity" "lockdown integrity" \
		'Operation not permitted'
}
cg_host_case --after-guests hostile_lockdown

# The same on a Debian host booted with Secure Boot: OVMF with
# Microsoft's keys enrolled, Debian's signed shim, grub and kernel
# (tests/guest/run.sh --secure-boot, under TCG); the SecureBoot variable
# is 1, the kernel locked down (integrity) and enforcing signatures.
case_hostile_secureboot() {
	hostile_sig hostile-secureboot secureboot --secure-boot "Secure Boot, lockdown integrity" \
		'Key was rejected by service|Required key not available'
}
cg_host_case --after-guests hostile_secureboot

# Namespaces by handle: the path a watcher knows a namespace by comes to
# name another one (the closest faithful stand-in for a PID reused: the
# name X of namespace A is bound to namespace B, while a process keeps A
# alive). A tap made in A right then must be guarded in A, and nothing of
# B touched: B has a bridge of the tap's name, which no watcher guards.
case_hostile_rebind() {
	local t="hostile-rebind [$BACKEND]" x=$CG_PFX-x y=$CG_PFX-y dev=${CG_PFX}r0
	local out=$TMPD/hr.watch spid wpid lim=15 end a b

	[ -n "${CG_GUEST:-}" ] && lim=90
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	ip netns del "$x" 2>/dev/null
	ip netns del "$y" 2>/dev/null
	if ! { ip netns add "$x" && ip netns add "$y" && ip -n "$y" link add "$dev" type bridge; }; then
		fail "$t: set-up (a bridge in a namespace)"
		ip netns del "$x" 2>/dev/null
		ip netns del "$y" 2>/dev/null
		return
	fi
	nsenter --net="/run/netns/$x" sleep 600 &
	spid=$!
	a=$(stat -L -c %i "/run/netns/$x")
	b=$(stat -L -c %i "/run/netns/$y")
	until [ "$(stat -L -c %i /proc/$spid/ns/net 2>/dev/null)" = "$a" ]; do sleep 0.05; done
	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$dev" --no-completion >"$out" 2>&1 &
	wpid=$!
	end=$((SECONDS + lim))
	until grep -q '^ready: ' "$out"; do
		[ $SECONDS -lt $end ] || { unexpected "never ready"; break; }
		sleep 0.1
	done
	# past the first scans: the watcher knows A by its name
	sleep 3
	# X now names B (a mount over A's, which the watcher holds open); a
	# tap appears in A at once
	mount --bind "/run/netns/$y" "/run/netns/$x" &&
		nsenter -t "$spid" -n ip tuntap add dev "$dev" mode tap vnet_hdr ||
		unexpected "rebind or tap failed"
	[ "$(stat -L -c %i "/run/netns/$x")" = "$b" ] || unexpected "$x not rebound"
	end=$((SECONDS + lim))
	until [ "$("$CG" status "$dev" --netns "/proc/$spid/ns/net" --json 2>/dev/null | jq -r .attached)" = true ]; do
		[ $SECONDS -lt $end ] || { unexpected "the tap in A not guarded within ${lim}s"; break; }
		sleep 0.2
	done
	sleep 1
	[ "$("$CG" status "$dev" --netns "$y" --json 2>/dev/null | jq -r .attached)" = false ] ||
		unexpected "B's bridge $dev was guarded"
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	"$CG" detach "$dev" --netns "/proc/$spid/ns/net" --quiet
	"$CG" detach "$dev" --netns "$y" --quiet
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	umount "/run/netns/$x" 2>/dev/null
	ip netns del "$x"
	ip netns del "$y"
	expect_clean || unexpected "log" "$(grep -E "$dev|ready" "$out" | tr '\n' '|')"
	expect_verdict "$t" "a name bound to another namespace under the watcher: the tap in the namespace it watched was guarded there, nothing in the other touched$(grep -q 'is now another namespace' "$out" && echo ' (one attach refused: the path named another namespace)')"
}
cg_case hostile_rebind
