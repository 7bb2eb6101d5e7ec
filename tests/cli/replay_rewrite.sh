#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay_rewrite.sh - rewritten frames arrive with valid ICRCs and IPv4 checksums
# (roce-analyze on the far end's capture: icrc_bad 0, malformed 0), the fields carry
# the new values, and a VLAN push gives exactly the frames the builder makes with
# that tag (byte for byte); a strip undoes it.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
tx_setup
analyze=$build/cli/roce-analyze

"$txtest" mkframes "$tmp/probe.pcap" 1 64 || exit 1
"$txtest" mkframes "$tmp/a.pcap" 2000 256 || exit 1
"$txtest" mkframes "$tmp/tagged.pcap" 2000 256 1000 100 || exit 1
mapfile -t engs < <(engines)

json_num() {   # json_num FILE KEY: first "KEY": N in FILE
	grep -o "\"$2\": [0-9]*" "$1" | head -n 1 | awk '{ print $2 }'
}

for e in "${engs[@]}"; do
	# every L3/BTH rewrite at once
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t -q --dmac 02:00:00:00:99:01 \
		--smac 02:00:00:00:99:02 --dscp 46 --ecn 3 --srcipmap 10.0.0.0/24:192.168.7.0 \
		--dstipmap 10.0.0.2:172.16.0.9 --sport 4242 --dest-qp 0x105:0x777 --psn-offset 1000 \
		"$tmp/a.pcap" > "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	check [ "${rx_out%% bytes*}" = "frames 2000" ]
	check grep -q "^Rewritten: 2000 frames, ICRC recomputed 2000" "$tmp/out.txt"
	"$analyze" --json "$tmp/rx.pcap" > "$tmp/an.json" 2>/dev/null
	check [ "$(json_num "$tmp/an.json" roce_frames)" = 2000 ]
	check [ "$(json_num "$tmp/an.json" icrc_ok)" = 2000 ]
	check [ "$(json_num "$tmp/an.json" icrc_bad)" = 0 ]
	check [ "$(json_num "$tmp/an.json" malformed)" = 0 ]
	# the new values are on the wire: tcpdump reads them back
	tcpdump -nn -e -v -r "$tmp/rx.pcap" -c 200 2>/dev/null > "$tmp/td.txt"
	check grep -q "02:00:00:00:99:02 > 02:00:00:00:99:01" "$tmp/td.txt"
	check grep -q "tos 0xbb" "$tmp/td.txt"
	check grep -q "192.168.7.1.4242 > 172.16.0.9.4791" "$tmp/td.txt"
	if [ "$(grep -c "192.168.7.1.4242 > 172.16.0.9.4791" "$tmp/td.txt")" != 200 ]; then
		bad "$e: not every frame rewritten"
	fi
	# QP 0x105 -> 0x777 (BTH bytes 5..7 at offset 42+5), PSN + 1000: checked by the
	# unit tests byte for byte; here: streams seen by the analyzer
	check [ "$(json_num "$tmp/an.json" streams)" = 16 ]

	# VLAN push: the same bytes as frames built with the tag
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t -q --vlan 100 --pcp 3 "$tmp/a.pcap" \
		> "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	"$txtest" digest "$tmp/tagged.pcap" > "$tmp/want.dig"
	"$txtest" digest "$tmp/rx.pcap" > "$tmp/got.dig"
	check cmp -s "$tmp/want.dig" "$tmp/got.dig"

	# strip: back to the untagged frames
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t -q --vlan-strip "$tmp/tagged.pcap" \
		> "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	"$txtest" digest "$tmp/a.pcap" > "$tmp/want.dig"
	"$txtest" digest "$tmp/rx.pcap" > "$tmp/got.dig"
	check cmp -s "$tmp/want.dig" "$tmp/got.dig"
done

# a capture with bad ICRCs on purpose stays bad after a rewrite (same count)
if [ -e "$src/captures/malformed.pcap" ]; then
	"$analyze" --json "$src/captures/malformed.pcap" > "$tmp/m0.json" 2>/dev/null
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" -t -q --psn-offset 7 "$src/captures/malformed.pcap" \
		> "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	"$analyze" --json "$tmp/rx.pcap" > "$tmp/m1.json" 2>/dev/null
	check [ "$(json_num "$tmp/m0.json" icrc_bad)" = "$(json_num "$tmp/m1.json" icrc_bad)" ]
	check [ "$(json_num "$tmp/m0.json" icrc_ok)" = "$(json_num "$tmp/m1.json" icrc_ok)" ]
fi
finish
