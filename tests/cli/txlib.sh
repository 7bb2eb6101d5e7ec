# SPDX-License-Identifier: GPL-2.0-or-later
# txlib.sh - sourced by the roce-replay tests after testlib.sh: a private network
# namespace with one end of a veth pair, the other end in the test's namespace,
# both removed on exit (also on failure), a receiver on the far end, and timeouts.
#   tx_setup [QUEUES]   create the pair (names unique per process); exit 77 if this
#                       is not root or namespaces cannot be made
#   rx_start FILE       start the far-end receiver writing FILE; returns when listening
#   rx_start -          the same, counting only (no file)
#   rx_stop             wait for the receiver to end (1 s idle), its summary in $rx_out
#                       ("frames N bytes B drops D"), its rate line in $rx_rate
#                       ("rate seconds S pps P bps B", from the kernel's RX timestamps)
#   in_ns CMD...        run CMD in the private namespace
#   engines             the engines to test: afpacket, and xdp when it opens here
build=$1
src=$2
replay=$build/cli/roce-replay
txtest=$build/tests/roce_txtest
ns=rrt$$
if_a=rra$$
if_b=rrb$$
rx_pid=

tx_cleanup() {
	[ -n "$rx_pid" ] && kill "$rx_pid" 2>/dev/null && wait "$rx_pid" 2>/dev/null
	ip link del "$if_a" 2>/dev/null
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
	ip link add "$if_a" numtxqueues "$q" numrxqueues "$q" type veth peer name "$if_b" \
		numtxqueues "$q" numrxqueues "$q" netns "$ns" || { echo "FAIL: veth"; exit 1; }
	# no IPv6 on either end: nothing but our frames crosses the pair
	sysctl -qw "net.ipv6.conf.$if_a.disable_ipv6=1" 2>/dev/null
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$if_b.disable_ipv6=1" 2>/dev/null
	ip link set "$if_a" up && ip -n "$ns" link set "$if_b" up && ip -n "$ns" link set lo up ||
		{ echo "FAIL: link up"; exit 1; }
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
