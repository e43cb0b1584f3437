# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 54-budget.sh - watch on a fixed budget: what any local user can make
# (network namespaces of their own user namespaces, taps in them) costs the
# watcher no descriptor and takes nothing host-wide from the guards.
#
#   user nobody (cg-userns): 2000 x [user ns -> netns], 1000 of them with
#                            a tap ${p}uN (vnet_hdr), each held by `sleep`
#   root: netns $CG_PFX-b:   tap ${p}r0 (vnet_hdr), made last; must be
#                            guarded as quickly as on an idle host
#
# watch matches ${p}* (the users' taps too): only the root-made tap is to
# be guarded; the users' reach the host only through links root makes.

BUDGET_NS=${BUDGET_NS:-2000}
BUDGET_TUN=${BUDGET_TUN:-1000}

# The devices of this case's (names beginning with $1) that status calls
# guarded: the users' taps and root's
budget_guarded() {
	"$CG" status --json 2>/dev/null |
		jq --arg p "$1" '[.[] | select(.attached and (.device | startswith($p)))] | length'
}

# budget_tun CMD...: CMD where any user may open /dev/net/tun, as udev's
# rule makes it on Debian (0666). A host whose /dev holds it 0600 (devtmpfs
# without that rule) gets such a node bound over it in a mount namespace of
# CMD's own; the host's node is left as it is.
budget_tun() {
	if [ "$(stat -c %a /dev/net/tun)" = 666 ]; then
		"$@"
	else
		unshare -m --propagation private sh -c \
			'rm -f "$1" && mknod -m 0666 "$1" c 10 200 && mount --bind "$1" /dev/net/tun && shift && exec "$@"' \
			_ "$TMPD/tun" "$@"
	fi
}

# The watcher's descriptors
budget_fds() { ls /proc/"$1"/fd 2>/dev/null | wc -l; }

# Entries of the host's per-device counter map (its pin), "-" without one
budget_devmap() {
	local m

	m=$(find /sys/fs/bpf/csum_guard -name dev_counters 2>/dev/null | head -1)
	[ -n "$m" ] || { echo -; return; }
	bpftool map dump pinned "$m" 2>/dev/null | grep -c '"key"\|^key'
}

case_budget() {
	local t="budget [$BACKEND]" p=cb$(($$ % 10000)) ns=$CG_PFX-b out=$TMPD/budget.out
	local wpid upid fd0 fd1 st0 st1 pins0 pins1 m0 m1 t0 ms=- end u=$TMPD/budget.userns
	local made p0=$(prog_count)

	if [ -n "${CG_GUEST:-}" ]; then
		skip "$t: $BUDGET_NS namespaces under TCG take too long: on the host only"
		return
	fi
	command -v setpriv >/dev/null || { skip "$t: no setpriv to run as nobody"; return; }
	[ -e /dev/net/tun ] || modprobe tun 2>/dev/null
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare -rn true 2>/dev/null; then
		skip "$t: an unprivileged user cannot make a user namespace here"
		return
	fi

	st0=$(budget_guarded "$p")
	pins0=$(pin_list | wc -l)
	m0=$(budget_devmap)
	: >"$out"
	"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >"$out" 2>&1 &
	wpid=$!
	end=$((SECONDS + 20))
	until grep -q '^ready: ' "$out"; do
		[ $SECONDS -lt $end ] && kill -0 $wpid 2>/dev/null || break
		sleep 0.1
	done
	fd0=$(budget_fds $wpid)

	# the users' namespaces and taps, under the watcher's eyes
	budget_tun setpriv --reuid=65534 --regid=65534 --clear-groups "$BLD/tests/cg-userns" \
		--ns "$BUDGET_NS" --tun "$BUDGET_TUN" --prefix "${p}u" >"$u" 2>&1 &
	upid=$!
	made=$SECONDS
	end=$((SECONDS + 150))
	while ! grep -q '^ready ' "$u" && [ $SECONDS -lt $end ] && kill -0 $upid 2>/dev/null; do
		sleep 0.2
	done
	if ! grep -q '^ready ' "$u"; then
		fail "$t: set-up: cg-userns: $(tr '\n' ' ' <"$u")"
		kill $upid $wpid 2>/dev/null
		wait $upid $wpid 2>/dev/null
		return
	fi
	made=$((SECONDS - made))
	# a full scan of every process (2 s) has seen them all
	sleep 2.5

	# then root's tap: guarded within watch's usual latency
	if ip netns add $ns && ip -n $ns tuntap add dev ${p}r0 mode tap vnet_hdr; then
		t0=$(date +%s%N)
		end=$((SECONDS + 10))
		until grep -q "^guarded ${p}r0 netns " "$out"; do
			[ $SECONDS -lt $end ] || break
			sleep 0.05
		done
		grep -q "^guarded ${p}r0 netns " "$out" && ms=$((($(date +%s%N) - t0) / 1000000))
	else
		unexpected "set-up" "no netns $ns with tap ${p}r0"
	fi
	fd1=$(budget_fds $wpid)
	st1=$(budget_guarded "$p")
	pins1=$(pin_list | wc -l)
	m1=$(budget_devmap)
	kill -0 $wpid 2>/dev/null || unexpected "watcher" "it died"

	[ "$ms" != - ] || unexpected "${p}r0 (root's, made last)" "not guarded within 10 s"
	expect_eq "${p}r0: status's attached" true \
		"$("$CG" status ${p}r0 --netns $ns --json 2>/dev/null | jq -r .attached)"
	# a few descriptors, as before the users came: none per namespace
	[ -n "$fd0" ] && [ "$fd1" -le $((fd0 + 2)) ] && [ "$fd1" -lt 32 ] ||
		unexpected "watcher's descriptors" "$fd0 at ready, $fd1 with $BUDGET_NS more namespaces"
	# host-wide: one more guarded device, its entry and its pins only
	expect_eq "this case's devices guarded (status)" $((st0 + 1)) "$st1"
	[ "$m1" = - ] || [ "$m1" = $((${m0/-/0} + 1)) ] ||
		unexpected "per-device counter map entries" "$m0 before, $m1 after"
	[ $((pins1 - pins0)) -le 16 ] || unexpected "pins" "$pins0 before, $pins1 after"
	grep -q "^guarded ${p}u" "$out" && unexpected "the users' taps" "some guarded: $(grep -c "^guarded ${p}u" "$out")"
	grep -q "^not watching $BUDGET_NS network namespaces of other user namespaces ($BUDGET_NS of uid 65534)" "$out" ||
		unexpected "log" "no line saying $BUDGET_NS namespaces of uid 65534 are left: $(grep '^not watching' "$out" | tail -1)"
	expect_verdict "$t" "$BUDGET_NS namespaces of nobody's user namespaces, $BUDGET_TUN taps in them (made in ${made} s): the watcher kept $fd1 descriptors ($fd0 before), left them (their links to the host are root's), and guarded root's new tap in ${ms} ms; its devices guarded $st0 -> $st1, counter map entries $m0 -> $m1, pins $pins0 -> $pins1"

	kill $upid 2>/dev/null
	kill -TERM $wpid 2>/dev/null
	wait $upid $wpid 2>/dev/null
	"$CG" detach ${p}r0 --netns $ns --quiet 2>/dev/null
	ip netns del $ns 2>/dev/null
	# the program the watcher held ahead is freed by the kernel's workqueue,
	# busy now with the users' namespaces' end: the leak check waits for none
	end=$((SECONDS + 20))
	while [ "$(prog_count)" -gt "$p0" ] && [ $SECONDS -lt $end ]; do
		sleep 0.2
	done
}
cg_case budget
