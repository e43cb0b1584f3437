# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# 68-kube.sh - the image of make image, run by podman as the DaemonSet of
# deploy/kubernetes/csum-guard.yaml runs it on a node.
#
# Debian's podman (4.3) does not take a DaemonSet (`kube play`: "does not
# contain any supported kube kind"), so its pod template becomes a Pod
# manifest here, mechanically: spec.template with a name, and two changes
# only, both for this run's sake: the metrics port (one per run) and
# `--match PFX*` appended to the watcher's arguments (other suites'
# devices, on this host at the same time, are not ours to guard). Podman
# has a store of its own under $TMPD: the host's images stay as they are.
#
#   netns $VM                                         netns $FAR
#   PFXt0 (tap) <--- cg-inject as the guest
#   PFXc0 ==== PFXe0 (netns $CT) <--- cg-inject --packet
#        \--> forward --> veth0 (tx csum off) ==== veth1 ---> cg-sniff
#
#   pod (hostNetwork, hostPID, privileged): csum-guard watch --match PFX*,
#   metrics on 127.0.0.1:PORT/cgi-bin/metrics
#
# The pod guards both devices; the bad frames stop there, the good ones
# arrive; the pod is replaced (kube play --replace), then taken down: the
# guards stay, the same ones (same program, one pin set), and still drop.

KUBE_YAML=deploy/kubernetes/csum-guard.yaml

# kube_pod OUT POD PORT MATCH: the DaemonSet's pod template as Pod POD,
# its port PORT, --match MATCH added to its arguments
kube_pod() {
	awk -v name="$2" '
	/^  template:$/ { on = 1; print "apiVersion: v1"; print "kind: Pod"; next }
	on && /^([^ ]| [^ ]|  [^ ]|   [^ ])/ { on = 0 }
	on {
		sub(/^    /, "")
		print
		if ($0 == "metadata:") print "  name: " name
	}' "$KUBE_YAML" |
		sed -e "s/9469/$3/g" -e "s|^\(      args: \[.*\)\]\$|\1, \"--match\", \"$4\"]|" >"$1"
	grep -qF ", \"--match\", \"$4\"]" "$1" && grep -q "^kind: Pod\$" "$1"
}

# kp ARGS: this case's podman, in its own store
kp() {
	podman --root "$KP/root" --runroot "$KP/run" --tmpdir "$KP/tmp" --storage-driver vfs "$@"
}

# kube_log CTR PATTERN SECONDS: until the container's log has a line
# matching PATTERN (grep -E)
kube_log() {
	local end=$((SECONDS + $3))

	until kp logs "$1" 2>/dev/null | grep -qE "$2"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# "program_id dropped attached" of DEV in NS, one line per guard status lists
kube_guard() {
	"$CG" status --netns "$2" --json 2>/dev/null |
		jq -r ".[] | select(.device == \"$1\") | \"\(.program_id) \(.dropped) \(.attached)\""
}

# kube_frames TAG: a bad and a good frame from the tap and from the
# container's veth; PASS or FAIL for each, with TAG
kube_frames() {
	local tag=$1 got src before after ct0 ct1
	local bad="--src $GUEST_IP --dst $FAR_IP --csum-start 20 --csum-offset 6 --count $n --payload 1000"

	before=$(kube_guard ${p}t0 "$VM" | awk '{ print $2 }')
	INJECT_DEV=${p}t0 inject_sniff "$TMPD/kb-bad-$tag" $bad
	after=$(kube_guard ${p}t0 "$VM" | awk '{ print $2 }')
	got=$(sniff_datagrams "$TMPD/kb-bad-$tag")
	if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ $((after - before)) = $n ]; then
		pass "$t $tag tap: the bad frames stopped at ${p}t0 (dropped $before -> $after)"
	else
		fail "$t $tag tap: arrived=${got:-0} dropped $before -> $after rc $inject_rc"
	fi
	INJECT_DEV=${p}t0 inject_sniff "$TMPD/kb-good-$tag" --src $GUEST_IP --dst $FAR_IP --count $n
	got=$(sniff_datagrams "$TMPD/kb-good-$tag")
	src=$(sniff_sources "$TMPD/kb-good-$tag")
	if [ "$got" = $n ] && [ "$src" = $GUEST_IP ] && ! grep -q 'csum_ok=0' "$TMPD/kb-good-$tag"; then
		pass "$t $tag tap: $n good frames arrived intact"
	else
		fail "$t $tag tap: good frames: arrived=${got:-0} from ${src:--}"
	fi

	ct0=$(kube_guard ${p}c0 "$VM" | awk '{ print $2 }')
	ct_send "$TMPD/kb-ctbad-$tag" $p --src $CT_IP --dst $FAR_IP --csum-start 20 \
		--csum-offset 6 --count $n --payload 1000
	ct1=$(kube_guard ${p}c0 "$VM" | awk '{ print $2 }')
	got=$(sniff_datagrams "$TMPD/kb-ctbad-$tag")
	if [ "$inject_rc" = 0 ] && [ "${got:-0}" = 0 ] && [ $((ct1 - ct0)) = $n ]; then
		pass "$t $tag container: the container's bad frames stopped at ${p}c0 (dropped $ct0 -> $ct1)"
	else
		fail "$t $tag container: arrived=${got:-0} dropped $ct0 -> $ct1 rc $inject_rc"
	fi
	ct_send "$TMPD/kb-ctgood-$tag" $p --src $CT_IP --dst $FAR_IP --count $n
	got=$(sniff_datagrams "$TMPD/kb-ctgood-$tag")
	src=$(sniff_sources "$TMPD/kb-ctgood-$tag")
	if [ "$got" = $n ] && [ "$src" = $CT_IP ] && ! grep -q 'csum_ok=0' "$TMPD/kb-ctgood-$tag"; then
		pass "$t $tag container: $n good frames arrived intact"
	else
		fail "$t $tag container: good frames: arrived=${got:-0} from ${src:--}"
	fi
}

# kube_replace: kube play --replace of the pod while the guest writes a
# bad and a good frame every 0.2 s; PASS when every good one arrived
# intact, no bad one arrived and the guard counted each. Its status: that
# of podman.
kube_replace() {
	local ready=$TMPD/ready.kb pid rpid rc k=0 d0 d1 got src

	rm -f "$ready"
	ip netns exec "$FAR" "$SNIFF" --dev veth1 --dst "$FAR_IP" --timeout 3000 \
		--max-time 120000 --ready-file "$ready" >"$TMPD/kb-during" 2>&1 &
	pid=$!
	wait_ready "$ready"
	d0=$(kube_guard ${p}t0 "$VM" | awk '{ print $2 }')
	kp kube play --replace "$KP/pod.yaml" >"$KP/replay" 2>&1 &
	rpid=$!
	while kill -0 $rpid 2>/dev/null || [ $k = 0 ]; do
		ip netns exec "$VM" "$INJECT" --dev ${p}t0 --src $GUEST_IP --dst $FAR_IP \
			--csum-start 20 --csum-offset 6 --payload 1000 2>/dev/null &&
		ip netns exec "$VM" "$INJECT" --dev ${p}t0 --src $GUEST_IP --dst $FAR_IP \
			--payload 1000 2>/dev/null && k=$((k + 1))
		sleep 0.2
	done
	wait $rpid
	rc=$?
	wait $pid
	d1=$(kube_guard ${p}t0 "$VM" | awk '{ print $2 }')
	got=$(sniff_datagrams "$TMPD/kb-during")
	src=$(sniff_sources "$TMPD/kb-during")
	if [ "$got" = $k ] && [ "$src" = $GUEST_IP ] && [ $((d1 - d0)) = $k ] &&
	   ! grep -q 'csum_ok=0' "$TMPD/kb-during"; then
		pass "$t replace: during kube play --replace, $k bad frames dropped, $k good ones arrived intact"
	else
		fail "$t replace: during kube play --replace, $k bad and $k good sent: arrived=${got:-0} from ${src:--}, dropped $d0 -> $d1"
	fi
	return $rc
}

case_kube() {
	local t="kube [$BACKEND]" p=kb$(($$ % 100000)) n=3
	local KP=$TMPD/kube port=$((20000 + $$ % 20000)) pod ctr img arch want got src
	local g0 g1 g2 c0 c1 pins0 m rc

	if [ "$BACKEND" != bpf ]; then
		skip "$t: the pod's watcher takes the probe's backend; the case runs once, with bpf"
		return
	fi
	if [ -n "${CG_GUEST:-}" ]; then
		skip "$t: runs on the host (a podman store and a pod under TCG cost minutes)"
		return
	fi
	command -v podman >/dev/null || { skip "$t: podman is not installed (make deps installs it)"; return; }
	command -v ethtool >/dev/null || { skip "$t: ethtool missing"; return; }
	arch=$(dpkg --print-architecture 2>/dev/null)
	img=$BLD/image/csum-guard-image_$(cat VERSION)_$arch.oci.tar
	[ -f "$img" ] || { skip "$t: no image $img (make image)"; return; }
	[ -x "$BLD/tests/static/cg-inject" ] || { skip "$t: no static cg-inject (make tools)"; return; }

	# the manifest names this version's image
	want="localhost/csum-guard:$(cat VERSION)"
	got=$(sed -n 's/^ *image: *//p' "$KUBE_YAML")
	expect_eq "$t manifest: the image" "$want" "$got" || return

	pod=${p}-node
	ctr=$pod-csum-guard
	mkdir -p "$KP/root" "$KP/run" "$KP/tmp"
	# crun refuses this host's mixed cgroups, runc takes it (57-containers.sh);
	# runc cannot raise the container's limits above the runner's
	cat >"$KP/containers.conf" <<-EOF
		[containers]
		default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
		[engine]
		runtime = "runc"
		cgroup_manager = "cgroupfs"
		events_logger = "none"
	EOF
	export CONTAINERS_CONF=$KP/containers.conf
	if ! kp load -q -i "$img" >"$KP/load" 2>&1 ||
	   ! grep -q "$want" "$KP/load"; then
		fail "$t load: podman cannot load $img: $(tail -1 "$KP/load")"
		return
	fi
	# what podman makes of the DaemonSet itself (created, never started:
	# unnarrowed, it would guard every device of the host), then of its
	# pod template
	if kp kube play --start=false "$KUBE_YAML" >"$KP/ds" 2>&1; then
		note "$t: this podman takes a DaemonSet: the Pod manifest below is no longer needed"
		kp kube down "$KUBE_YAML" >/dev/null 2>&1
	fi
	if ! kube_pod "$KP/pod.yaml" "$pod" $port "$p*"; then
		fail "$t manifest: no pod template, or no args line to add --match to, in $KUBE_YAML"
		return
	fi

	if ! topo_up --mtu 1500 --tx-csum-off || ! ip -n "$VM" link set tap0 down ||
	   ! ip -n "$VM" link set tap0 name ${p}t0 || ! ip -n "$VM" link set ${p}t0 up ||
	   ! ct_up $p || ! ct_link $p; then
		fail "$t: cannot build the topology"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi

	# no guard: what this kernel does with the tap's bad frame
	INJECT_DEV=${p}t0 inject_sniff "$TMPD/kb-bad-off" --src $GUEST_IP --dst $FAR_IP \
		--csum-start 20 --csum-offset 6 --count $n --payload 1000
	got=$(sniff_datagrams "$TMPD/kb-bad-off")
	src=$(sniff_sources "$TMPD/kb-bad-off")
	if [ "${got:-0}" -gt 0 ] && [ "$src" != "$GUEST_IP" ]; then
		pass "$t bad/off: unguarded, the tap's bad frames left veth0 with the source corrupted to $src"
	else
		fail "$t bad/off: expected corruption on the transmit path, got ${got:-0} datagrams from ${src:--}"
	fi

	# the pod; a node has its bpffs mounted (systemd does it), as the
	# loader mounts it on a host where nobody has
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ] &&
	   ! mount -t bpf bpf /sys/fs/bpf -o mode=0700; then
		fail "$t: /sys/fs/bpf is no bpffs and cannot be mounted"
	fi
	if ! kp kube play "$KP/pod.yaml" >"$KP/play" 2>&1; then
		fail "$t play: podman kube play: $(grep -m1 -i error "$KP/play" || tail -1 "$KP/play")"
		ip netns del "$CT" 2>/dev/null
		topo_down
		return
	fi
	if kube_log $ctr "^guarded ${p}t0 netns $VM " 20 && kube_log $ctr "^guarded ${p}c0 netns $VM " 20 &&
	   kube_log $ctr "^ready: " 20 && [ "$(kube_guard ${p}t0 "$VM" | awk '{ print $3 }')" = true ] &&
	   [ "$(kube_guard ${p}c0 "$VM" | awk '{ print $3 }')" = true ]; then
		pass "$t play: the pod (hostNetwork, hostPID, privileged, the manifest's mounts) guarded the tap ${p}t0 and the container's veth ${p}c0, attached as the node sees it"
	else
		fail "$t play: not guarded on the node ('$(kube_guard ${p}t0 "$VM")'); the pod's log: $(kp logs $ctr 2>&1 | tr '\n' '|')"
	fi

	# the metrics endpoint, on the node's address, and the liveness probe
	rc=$(curl -s --max-time 30 -o "$KP/metrics" -w '%{http_code}' "http://127.0.0.1:$port/cgi-bin/metrics")
	if [ "$rc" = 200 ] && got=$(prom_parse csum_guard_guarded <"$KP/metrics" 2>&1) &&
	   awk -F'\t' -v d=${p}t0 -v ns="$VM" '$1 == "csum_guard_guarded" && $2 == d && $3 == ns && $7 == 1 { f = 1 }
		END { exit !f }' <<<"$got"; then
		pass "$t metrics: GET /cgi-bin/metrics on port $port: 200, well-formed, csum_guard_guarded 1 for ${p}t0"
	else
		fail "$t metrics: HTTP ${rc:-none}: $(head -c 300 <<<"$got" | tr '\n' '|')"
	fi
	got=$(kp inspect $ctr --format '{{json .Config.Healthcheck.Test}}' 2>&1)
	if [[ $got == *wget*"/cgi-bin/metrics"* ]] && kp healthcheck run $ctr >"$KP/health" 2>&1; then
		pass "$t liveness: the manifest's probe, as podman's healthcheck, says healthy"
	else
		fail "$t liveness: healthcheck '$got': $(tail -1 "$KP/health")"
	fi

	kube_frames running
	g0=$(kube_guard ${p}t0 "$VM")
	c0=$(kube_guard ${p}c0 "$VM")
	pins0=$(pin_list | wc -l)

	# replaced: the old pod's watcher stops on SIGTERM, the new one finds
	# the guards in place; the tap sends all along
	if ! kube_replace; then
		fail "$t replace: $(grep -m1 -i error "$KP/replay" || tail -1 "$KP/replay")"
	elif kube_log $ctr "^already guarded ${p}t0 netns $VM " 20 && kube_log $ctr "^ready: " 20 &&
	     ! kp logs $ctr 2>&1 | grep -qE "^guarded ${p}(t0|c0) "; then
		pass "$t replace: the new pod found ${p}t0 already guarded and attached nothing again"
	else
		fail "$t replace: the new pod's log: $(kp logs $ctr 2>&1 | tr '\n' '|')"
	fi
	g1=$(kube_guard ${p}t0 "$VM")
	c1=$(kube_guard ${p}c0 "$VM")
	if [ -n "$g1" ] && [ "${g1%% *}" = "${g0%% *}" ] && [ "$(wc -l <<<"$g1")" = 1 ] &&
	   [ -n "$c1" ] && [ "${c1%% *}" = "${c0%% *}" ] && [ "$(wc -l <<<"$c1")" = 1 ] &&
	   [ "$(pin_list | wc -l)" = "$pins0" ]; then
		pass "$t replace: one guard each on ${p}t0 and ${p}c0, the same programs (ids ${g1%% *}, ${c1%% *}), no pin added"
	else
		fail "$t replace: ${p}t0 guard before '$g0', after '$g1'; ${p}c0 '$c0' -> '$c1'; pins $pins0 -> $(pin_list | wc -l)"
	fi

	# taken down: no pod at all, the guards stay and drop
	kp pod stop $pod >/dev/null 2>&1
	if kp logs $ctr 2>&1 | grep -q '^stopped on SIGTERM; the guards stay in place'; then
		pass "$t down: the pod's watcher stopped on SIGTERM and left the guards"
	else
		fail "$t down: the watcher's last lines: $(kp logs $ctr 2>&1 | tail -3 | tr '\n' '|')"
	fi
	kp kube down "$KP/pod.yaml" >/dev/null 2>&1
	g2=$(kube_guard ${p}t0 "$VM")
	rc=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/cgi-bin/metrics")
	if [ "${g2%% *}" = "${g0%% *}" ] && [ "${g2##* }" = true ] && [ -z "$(kp ps -aq)" ] &&
	   [ "$rc" = 000 ]; then
		pass "$t down: no pod and no endpoint left, ${p}t0 still guarded by program ${g2%% *}"
	else
		fail "$t down: guard '$g2' (was '$g0'); port $port answers '$rc'; containers left: $(kp ps -a --format '{{.Names}}' | paste -sd' ')"
	fi
	kube_frames down

	"$CG" detach ${p}t0 --netns "$VM" --quiet
	"$CG" detach ${p}c0 --netns "$VM" --quiet
	"$CG" detach ${p}e0 --netns "$CT" --quiet
	kp rm -af >/dev/null 2>&1
	kp pod rm -af >/dev/null 2>&1
	ip netns del "$CT" 2>/dev/null
	topo_down
}
cg_case kube
