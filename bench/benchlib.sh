# SPDX-License-Identifier: GPL-2.0-or-later
# benchlib.sh - sourced by the benches that send frames (tx_bench.sh, live_bench.sh): two
# private network namespaces joined by a veth pair, IPv6 off in both so nothing but the
# bench's frames crosses it, removed at exit with the temporary folder.
#   bench_veth TAG [QUEUES]  create them: $ns_a/$if_a the sending side, $ns_b/$if_b the
#                            receiving side (names made from TAG and the PID); QUEUES TX and
#                            RX queues per end (default: the kernel's); exits 2 on failure
#   bench_stop               defined by the caller (optional): run first at exit, to stop
#                            what the bench started in the namespaces
#   $tmp                     the caller's temporary folder, removed at exit

bench_cleanup() {
	declare -F bench_stop >/dev/null && { bench_stop || true; }
	ip netns del "$ns_a" 2>/dev/null
	ip netns del "$ns_b" 2>/dev/null
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
}

bench_veth() {
	local tag=$1 q=${2:-} qa=()
	ns_a=${tag}s$$ ns_b=${tag}r$$ if_a=${tag}a$$ if_b=${tag}b$$
	[ -n "$q" ] && qa=(numtxqueues "$q" numrxqueues "$q")
	trap bench_cleanup EXIT
	ip netns add "$ns_a" && ip netns add "$ns_b" || exit 2
	for n in "$ns_a" "$ns_b"; do
		ip netns exec "$n" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6;
			echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6'
	done
	ip -n "$ns_a" link add "$if_a" "${qa[@]}" type veth peer name "$if_b" "${qa[@]}" \
		netns "$ns_b" || exit 2
	ip -n "$ns_a" link set "$if_a" up && ip -n "$ns_b" link set "$if_b" up || exit 2
}
