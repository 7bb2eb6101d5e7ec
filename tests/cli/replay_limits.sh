#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay_limits.sh - --loop, --limit and --duration are exact: the far end receives
# exactly the frames the options name (count and, for loop/limit, each frame's
# digest in order), streamed and preloaded, with one and two threads; --duration ends
# a run on time also when the sender cannot keep up with the rate.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
tx_setup 2

"$txtest" mkframes "$tmp/probe.pcap" 1 64 || exit 1
"$txtest" mkframes "$tmp/a.pcap" 1000 64 || exit 1
mapfile -t engs < <(engines)
"$txtest" digest "$tmp/a.pcap" > "$tmp/one.dig"

for e in "${engs[@]}"; do
	for pre in "" "--preload"; do
		# --loop 3: the file three times, in order
		rx_start "$tmp/rx.pcap"
		timeout 60 "$replay" -i "$if_a" --engine "$e" -t --loop 3 $pre -q "$tmp/a.pcap" \
			> "$tmp/out.txt"
		check [ $? -eq 0 ]
		rx_stop
		cat "$tmp/one.dig" "$tmp/one.dig" "$tmp/one.dig" > "$tmp/want.dig"
		"$txtest" digest "$tmp/rx.pcap" > "$tmp/got.dig"
		check cmp -s "$tmp/want.dig" "$tmp/got.dig"

		# --limit across a loop boundary: 2500 = two passes and half of the third
		rx_start "$tmp/rx.pcap"
		timeout 60 "$replay" -i "$if_a" --engine "$e" -t --loop 0 --limit 2500 $pre -q \
			"$tmp/a.pcap" > "$tmp/out.txt"
		check [ $? -eq 0 ]
		rx_stop
		{ cat "$tmp/one.dig" "$tmp/one.dig"; head -n 500 "$tmp/one.dig"; } > "$tmp/want.dig"
		"$txtest" digest "$tmp/rx.pcap" > "$tmp/got.dig"
		check cmp -s "$tmp/want.dig" "$tmp/got.dig"

		# --duration with --pps: frames due before the end are sent, none after
		rx_start "$tmp/rx.pcap"
		timeout 60 "$replay" -i "$if_a" --engine "$e" --pps 2000 --duration 1.5 --loop 0 \
			$pre -q "$tmp/a.pcap" > "$tmp/out.txt"
		check [ $? -eq 0 ]
		rx_stop
		check [ "${rx_out%% bytes*}" = "frames 3000" ]
	done

	# two threads share one global count: --limit and --loop are still exact
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t --threads 2 --loop 2 --limit 1501 -q \
		"$tmp/a.pcap" > "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	{ cat "$tmp/one.dig"; head -n 501 "$tmp/one.dig"; } | sort > "$tmp/want.dig"
	"$txtest" digest "$tmp/rx.pcap" | sort > "$tmp/got.dig"
	check cmp -s "$tmp/want.dig" "$tmp/got.dig"

	# blocks of --burst frames alternate between the threads: with 3-frame blocks and a
	# limit inside a block, still every frame below the limit exactly once
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t --threads 2 --burst 3 --limit 998 -q \
		"$tmp/a.pcap" > "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	head -n 998 "$tmp/one.dig" | sort > "$tmp/want.dig"
	"$txtest" digest "$tmp/rx.pcap" | sort > "$tmp/got.dig"
	check cmp -s "$tmp/want.dig" "$tmp/got.dig"

	# original timing: the file's frames are 1 us apart; --multiplier 0.001 makes
	# that 1 ms, so --duration 0.25 lets exactly 250 frames through
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" --multiplier 0.001 --duration 0.25 -q \
		"$tmp/a.pcap" > "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	check [ "${rx_out%% bytes*}" = "frames 250" ]

	# a rate far above what the sender reaches: --duration still ends the sending when
	# the time is up (within its 1 s of grace), as tcpreplay's does, the late rest of the
	# schedule unsent (it once sent every frame due before the end, however late: minutes
	# for half a second)
	timeout 20 "$replay" -i "$if_a" --engine "$e" --gbps 400 --loop 0 --duration 0.5 -q \
		--json "$tmp/a.pcap" > "$tmp/out.txt"
	rc=$?
	[ $rc -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if 0.5 <= d["elapsed_s"] < 2.5 and d["packets"] > 0 else 1)' "$tmp/out.txt" && ok ||
		bad "$e: --gbps 400 --duration 0.5: exit $rc," \
		    "$(grep -E 'elapsed|packets' "$tmp/out.txt")"
done
finish
