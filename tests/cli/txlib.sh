# SPDX-License-Identifier: GPL-2.0-or-later
# txlib.sh - sourced by the roce-replay tests after testlib.sh: two private network
# namespaces joined by a veth pair (IPv6 off in both, so nothing but the test's frames
# crosses it, whatever the MTU changes do), removed on exit (also on failure), a
# receiver on the far end, and timeouts.
#   tx_setup [QUEUES]   create them (names unique per process); exit 77 if this is
#                       not root or namespaces cannot be made
#   $replay             roce-replay run in the sending namespace
#   in_a CMD...         run CMD in the sending namespace
#   rx_start FILE       start the far-end receiver writing FILE; returns when listening
#   rx_start -          the same, counting only (no file)
#   rx_stop             wait for the receiver to end (1 s idle), its summary in $rx_out
#                       ("frames N bytes B drops D"), its rate line in $rx_rate
#                       ("rate seconds S pps P bps B", from the kernel's RX timestamps)
#   in_ns CMD...        run CMD in the private namespace
#   engines             the engines to test: afpacket, and xdp when it opens here
build=$1
src=$2
replay_bin=$build/cli/roce-replay
replay=$tmp/roce-replay
# Pacing tolerance of the rate checks: 1%, what the tools promise.  A sanitizer build
# (ROCE_SANITIZE=ON in the build's cache) runs the sender several times slower and its
# timing is checked within 3% instead (said in the output).
tx_tol=0.01
if grep -qiE '^ROCE_SANITIZE:[A-Z]*=(on|1|true|yes|y)$' "$build/CMakeCache.txt" 2>/dev/null; then
	tx_tol=0.03
fi
tx_tol_pct=$(awk -v t="$tx_tol" 'BEGIN { print t * 100 }')
tx_tol_note() {
	[ "$tx_tol_pct" = 1 ] ||
		echo "note: sanitizer build: pacing checked within $tx_tol_pct% instead of 1%"
}
txtest=$build/tests/roce_txtest
ns=rrt$$
ns_a=rrs$$
if_a=rra$$
if_b=rrb$$
rx_pid=

tx_cleanup() {
	[ -n "$rx_pid" ] && kill "$rx_pid" 2>/dev/null && wait "$rx_pid" 2>/dev/null
	ip netns del "$ns_a" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}

tx_setup() {
	local q=${1:-1}
	trap tx_cleanup EXIT
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns" 2>/dev/null; then
		echo "SKIP: needs root to create a network namespace"
		exit 77
	fi
	ip netns add "$ns_a" || { echo "FAIL: netns"; exit 1; }
	# no IPv6 in either namespace (also for links whose MTU goes under 1280 and back)
	# (written through /proc, so procps is not needed; a kernel without IPv6 has nothing to
	# disable, anything else that fails would let neighbour/multicast frames into the counts)
	for n in "$ns_a" "$ns"; do
		ip netns exec "$n" sh -c '[ ! -d /proc/sys/net/ipv6 ] ||
			{ echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 &&
			  echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6; }' ||
			{ echo "FAIL: cannot disable IPv6 in namespace $n"; exit 1; }
	done
	ip -n "$ns_a" link add "$if_a" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "$if_b" numtxqueues "$q" numrxqueues "$q" netns "$ns" ||
		{ echo "FAIL: veth"; exit 1; }
	ip -n "$ns_a" link set "$if_a" up && ip -n "$ns" link set "$if_b" up ||
		{ echo "FAIL: link up"; exit 1; }
	printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$ns_a" "$replay_bin" > "$replay"
	chmod 755 "$replay"
}

in_a() {
	ip netns exec "$ns_a" "$@"
}

in_ns() {
	ip netns exec "$ns" "$@"
}

rx_start() {
	rm -f "$tmp/rx.ready" "$tmp/rx.out"
	if [ "$1" = - ]; then
		timeout 120 ip netns exec "$ns" "$txtest" count "$if_b" 1000 100 "$tmp/rx.ready" \
			> "$tmp/rx.out" &
	else
		timeout 120 ip netns exec "$ns" "$txtest" capture "$if_b" "$1" 1000 100 \
			"$tmp/rx.ready" > "$tmp/rx.out" &
	fi
	rx_pid=$!
	for _ in $(seq 200); do
		[ -e "$tmp/rx.ready" ] && return 0
		sleep 0.05
	done
	echo "FAIL: receiver did not start"
	exit 1
}

# wait_for REGEX FILE PID TRIES: wait (TRIES x 50 ms at most) for a line matching REGEX in
# FILE; 1 when PID exited first or it never came
wait_for() {
	for _ in $(seq "$4"); do
		grep -q "$1" "$2" 2> /dev/null && return 0
		kill -0 "$3" 2> /dev/null || return 1
		sleep 0.05
	done
	return 1
}

# live_ready PID ERRFILE: wait (20 s at most) for roce-analyze's "listening on" line in
# ERRFILE, printed once the capture's filter is set; 1 when PID exited first or it never came
live_ready() {
	wait_for ': listening on ' "$2" "$1" 400
}

rx_stop() {
	wait "$rx_pid"
	rx_pid=
	rx_out=$(head -n 1 "$tmp/rx.out")
	rx_rate=$(sed -n 2p "$tmp/rx.out")
}

engines() {
	echo afpacket
	if timeout 20 "$replay" -i "$if_a" --engine xdp -q --limit 1 "$tmp/probe.pcap" \
		>/dev/null 2>"$tmp/xdp.err"; then
		echo xdp
	else
		echo "note: xdp engine not tested: $(cat "$tmp/xdp.err")" >&2
	fi
}
