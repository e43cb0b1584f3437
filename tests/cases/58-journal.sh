# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 56-journal.sh - what csum-guard writes where the journal reads it: a
# priority on every line of stderr, and watch's lines about a device as
# journal entries with the device and the namespace as fields.

case_journal() {
	local t="journal [$BACKEND]" p=cj$(($$ % 100000)) ns=$CG_PFX-jn f=$TMPD/j.err
	local sock=$TMPD/journal.sock out=$TMPD/j.out rpid wpid lim=20

	# stderr is the journal's stream: failures at priority 3, progress at 6
	: >"$f"
	JOURNAL_STREAM=$(stat -c %d:%i "$f") "$CG" attach ${p}x0 2>>"$f"
	grep -q "^<3>csum-guard: cannot attach to ${p}x0" "$f" || unexpected "stderr" "$(head -1 "$f")"
	"$CG" attach ${p}x0 2>"$f"
	grep -q "^csum-guard: cannot attach" "$f" || unexpected "without the journal" "$(head -1 "$f")"

	ip netns add $ns && ip -n $ns tuntap add dev ${p}t0 mode tap vnet_hdr ||
		{ fail "$t: set-up"; ip netns del $ns 2>/dev/null; return; }
	# stdout is the journal's stream and its socket takes entries
	"$SDRECV" "$sock" $lim >"$TMPD/j.sd" 2>&1 &
	rpid=$!
	while [ ! -S "$sock" ] && kill -0 $rpid 2>/dev/null; do sleep 0.05; done
	: >"$out"
	JOURNAL_STREAM=$(stat -c %d:%i "$out") CSUM_GUARD_JOURNAL_SOCKET=$sock \
		"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >>"$out" 2>&1 &
	wpid=$!
	for _ in $(seq 100); do
		grep -q "MESSAGE=guarded ${p}t0 " "$TMPD/j.sd" && break
		sleep 0.1
	done
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	kill $rpid 2>/dev/null
	wait $rpid 2>/dev/null
	grep "MESSAGE=guarded ${p}t0 " "$TMPD/j.sd" | grep -q "PRIORITY=6 " ||
		unexpected "no entry of priority 6 for ${p}t0" "$(head -c 300 "$TMPD/j.sd")"
	grep "MESSAGE=guarded ${p}t0 " "$TMPD/j.sd" | grep "CSUM_GUARD_DEVICE=${p}t0 " |
		grep -q "CSUM_GUARD_NETNS=$ns " || unexpected "the entry lacks the device's fields"
	grep -q "guarded ${p}t0" "$out" && unexpected "the entry went to stdout as well"

	# the journal's socket cannot be written: the line on stdout with its priority
	: >"$out"
	"$CG" detach ${p}t0 --netns $ns --quiet
	JOURNAL_STREAM=$(stat -c %d:%i "$out") CSUM_GUARD_JOURNAL_SOCKET=$TMPD/nosuch.sock \
		"$CG" watch --backend "$BACKEND" --match "$p*" --no-completion >>"$out" 2>&1 &
	wpid=$!
	for _ in $(seq 100); do
		grep -q "guarded ${p}t0 " "$out" && break
		sleep 0.1
	done
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	grep -q "^<6>guarded ${p}t0 netns $ns " "$out" || unexpected "stdout" "$(grep -m1 "${p}t0" "$out")"
	"$CG" detach ${p}t0 --netns $ns --quiet
	ip netns del $ns
	expect_verdict "$t" "errors at priority 3 on the journal's stderr; watch's guarded line an entry of priority 6 with the device and namespace as fields, or <6> on stdout without the socket"
}
cg_case journal
