#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay_errors.sh - roce-replay's documented failures: exit 2 with one line on
# stderr for usage errors, a missing or down interface, missing CAP_NET_RAW, a frame
# larger than the MTU, AF_XDP forced where it cannot work, unreadable or damaged
# input (frames before the damage are still sent and counted); --help/--version; C
# numbers in any locale.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
tx_setup

"$txtest" mkframes "$tmp/a.pcap" 100 1024 || exit 1
"$txtest" mkframes "$tmp/small.pcap" 100 64 || exit 1

# expect_fail STATUS PATTERN CMD...: exit STATUS, one stderr line matching PATTERN
expect_fail() {
	local want=$1 pat=$2 rc
	shift 2
	timeout 30 "$@" > "$tmp/o.txt" 2> "$tmp/e.txt"
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "exit $rc, not $want: $*"
		return
	fi
	if ! grep -q -- "$pat" "$tmp/e.txt"; then
		bad "no '$pat' in: $(cat "$tmp/e.txt")"
		return
	fi
	ok
}

check timeout 10 "$replay" --help > "$tmp/help.txt"
check grep -q -- "--line-rate" "$tmp/help.txt"
check timeout 10 "$replay" --version > "$tmp/v.txt"
check grep -q "^roce-replay " "$tmp/v.txt"

expect_fail 2 "no interface" "$replay" "$tmp/a.pcap"
expect_fail 2 "no input file" "$replay" -i "$if_a"
expect_fail 2 "only one of" "$replay" -i "$if_a" -t --pps 5 "$tmp/a.pcap"
expect_fail 2 "only one of" "$replay" -i "$if_a" --gbps 1 --multiplier 2 "$tmp/a.pcap"
expect_fail 2 "needs --mbps" "$replay" -i "$if_a" --line-rate "$tmp/a.pcap"
expect_fail 2 "expected a MAC" "$replay" -i "$if_a" --dmac 1:2:3 "$tmp/a.pcap"
expect_fail 2 "FROM\[/LEN\]:TO" "$replay" -i "$if_a" --ipmap 10.0.0.1 "$tmp/a.pcap"
expect_fail 2 "expected auto, afpacket or xdp" "$replay" -i "$if_a" --engine dpdk "$tmp/a.pcap"
expect_fail 2 "cannot be combined" "$replay" -i "$if_a" --vlan-strip --vlan 3 "$tmp/a.pcap"
expect_fail 2 "nosuch$$: no such interface" "$replay" -i "nosuch$$" -t "$tmp/a.pcap"
expect_fail 2 "no-such-file" "$replay" -i "$if_a" -t "$tmp/no-such-file.pcap"
check [ "$(wc -l < "$tmp/e.txt")" = 1 ]

# without privileges (an unprivileged uid, no capabilities)
if command -v setpriv > /dev/null; then
	chmod 755 "$tmp"
	chmod 644 "$tmp/a.pcap"
	expect_fail 2 "need CAP_NET_RAW" ip netns exec "$ns_a" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$replay_bin" -i "$if_a" -t --engine afpacket "$tmp/a.pcap"
	check [ "$(wc -l < "$tmp/e.txt")" = 1 ]
	expect_fail 2 "CAP_NET_RAW" ip netns exec "$ns_a" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$replay_bin" -i "$if_a" -t "$tmp/a.pcap"
fi

# a frame larger than the MTU: nothing is sent, the frame is named
in_a ip link set "$if_a" mtu 500
rx_start -
expect_fail 2 "a.pcap: frame 1: 1098 bytes is larger than $if_a's MTU" \
	"$replay" -i "$if_a" -t --preload "$tmp/a.pcap"
check [ "$(wc -l < "$tmp/e.txt")" = 1 ]
# ... also when streaming after good frames: those are sent and counted
expect_fail 2 "a.pcap: frame 1: 1098 bytes" "$replay" -i "$if_a" -t "$tmp/small.pcap" "$tmp/a.pcap"
check grep -q "^Actual: 100 packets" "$tmp/o.txt"
rx_stop
check [ "${rx_out%% bytes*}" = "frames 100" ]
in_a ip link set "$if_a" mtu 1500

# AF_XDP forced where this engine cannot work (MTU above its 4 KiB chunks); auto falls back
in_a ip link set "$if_a" mtu 9000
ip -n "$ns" link set "$if_b" mtu 9000
expect_fail 2 "AF_XDP unavailable" "$replay" -i "$if_a" -t --engine xdp "$tmp/small.pcap"
check [ "$(wc -l < "$tmp/e.txt")" = 1 ]
timeout 30 "$replay" -i "$if_a" -t -v -q "$tmp/small.pcap" > "$tmp/o.txt" 2> "$tmp/e.txt"
check [ $? -eq 0 ]
check grep -q "engine afpacket, 1 thread; AF_XDP unavailable" "$tmp/e.txt"
in_a ip link set "$if_a" mtu 1500

# one TX queue, two threads: forced xdp cannot bind queue 1 (exit 2); auto sends with afpacket
expect_fail 2 "AF_XDP unavailable" "$replay" -i "$if_a" -t --threads 2 --engine xdp "$tmp/small.pcap"
rx_start -
timeout 30 "$replay" -i "$if_a" -t --threads 2 -v -q "$tmp/small.pcap" > "$tmp/o.txt" 2> "$tmp/e.txt"
check [ $? -eq 0 ]
rx_stop
check [ "${rx_out%% bytes*}" = "frames 100" ]
check grep -q "engine afpacket, 2 threads" "$tmp/e.txt"

# a damaged file: the frames before the damage are sent, then exit 2 naming the frame
head -c $((24 + 16 * 1114 + 16 + 500)) "$tmp/a.pcap" > "$tmp/cut.pcap"
rx_start "$tmp/rx.pcap"
expect_fail 2 "cut.pcap: frame 17" "$replay" -i "$if_a" -t "$tmp/cut.pcap"
check grep -q "^Actual: 16 packets" "$tmp/o.txt"
rx_stop
[ "${rx_out%% bytes*}" = "frames 16" ] && ok || { bad "$rx_out"; tcpdump -nn -e -r "$tmp/rx.pcap" | head; }

# an input that cannot be opened, also after a good one: refused before anything is sent,
# one line, no statistics, as with --preload (tcpreplay checks its files first too)
for pre in "" -K; do
	rx_start "$tmp/rx.pcap"
	expect_fail 2 "missing.pcap: No such file" "$replay" -i "$if_a" -t $pre "$tmp/small.pcap" \
		"$tmp/missing.pcap"
	[ "$(wc -l < "$tmp/e.txt")" -eq 1 ] && [ ! -s "$tmp/o.txt" ] && ok ||
		bad "missing second input ($pre): stdout $(head -c 200 "$tmp/o.txt")," \
		    "stderr $(cat "$tmp/e.txt")"
	rx_stop
	[ "${rx_out%% bytes*}" = "frames 0" ] && ok ||
		bad "missing second input ($pre): sent $rx_out"
done
# stdin after a file is read once, in its turn
rx_start "$tmp/rx.pcap"
timeout 30 "$replay" -i "$if_a" -t -q "$tmp/small.pcap" - < "$tmp/small.pcap" > "$tmp/o.txt" &&
	grep -q "^Actual: 200 packets" "$tmp/o.txt" && ok || bad "FILE - : $(head -n 1 "$tmp/o.txt")"
rx_stop

# numbers print in the C format whatever the locale: under a decimal comma (de_DE) the
# --json statistics were not JSON ("elapsed_s": 0,005) and the text said "0,3 Gb/s"
mkdir -p "$tmp/loc"
localedef -i de_DE -f UTF-8 "$tmp/loc/de_DE.UTF-8" > /dev/null 2>&1
if [ "$(LOCPATH=$tmp/loc LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" = , ]; then
	for j in --json ""; do
		LOCPATH=$tmp/loc LC_ALL=de_DE.UTF-8 timeout 30 "$replay" -i "$if_a" --gbps 2.5 -q $j \
			"$tmp/small.pcap" > "$tmp/o.txt" 2> "$tmp/e.txt"
		rc=$?
		if [ -n "$j" ]; then
			python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["target_gbps"] == 2.5 and d["packets"] == 100 else 1)' "$tmp/o.txt"
		else
			grep -qE '^Rated: [0-9]+\.[0-9] pps, [0-9]+\.[0-9]+ Gb/s' "$tmp/o.txt"
		fi && [ $rc -eq 0 ] && ok ||
			bad "de_DE locale${j:+ $j}: exit $rc: $(head -c 300 "$tmp/o.txt") $(cat "$tmp/e.txt")"
	done
else
	bad "no de_DE locale made with localedef (package locales)"
fi

# an interface that is down
in_a ip link set "$if_a" down
expect_fail 2 "$if_a: interface is down" "$replay" -i "$if_a" -t "$tmp/small.pcap"
finish
