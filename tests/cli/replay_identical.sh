#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay_identical.sh - roce-replay on its own veth pair: every frame arrives
# byte-identical (count, bytes, a digest of each frame, in order), with each engine,
# streamed and preloaded, from pcap, gzip and the repository's sample captures,
# and with --threads 2 (same multiset of frames).
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
tx_setup 2

"$txtest" mkframes "$tmp/probe.pcap" 1 64 || exit 1
"$txtest" mkframes "$tmp/a.pcap" 20000 64 || exit 1
"$txtest" mkframes "$tmp/b.pcap" 3000 1024 1000 100 || exit 1
gzip -c "$tmp/b.pcap" > "$tmp/b.pcap.gz"
mapfile -t engs < <(engines)

# same frames in the same order (FILE... sent as one sequence)
same_frames() {
	local rx=$1; shift
	for f in "$@"; do "$txtest" digest "$f"; done > "$tmp/want.dig"
	"$txtest" digest "$rx" > "$tmp/got.dig"
	cmp -s "$tmp/want.dig" "$tmp/got.dig"
}

for e in "${engs[@]}"; do
	for pre in "" "--preload"; do
		rx_start "$tmp/rx.pcap"
		timeout 60 "$replay" -i "$if_a" --engine "$e" --topspeed $pre -q \
			"$tmp/a.pcap" "$tmp/b.pcap.gz" > "$tmp/out.txt"
		check [ $? -eq 0 ]
		rx_stop
		check grep -q "^Actual: 23000 packets" "$tmp/out.txt"
		check [ "$rx_out" = "frames 23000 bytes $((20000 * 138 + 3000 * 1102)) drops 0" ]
		same_frames "$tmp/rx.pcap" "$tmp/a.pcap" "$tmp/b.pcap" ||
			bad "$e $pre: received frames differ from the files"
		ok
	done

	# the repository's sample captures (RoCE v1/v2, IPv6, PFC, malformed frames)
	caps=("$src"/captures/*.pcap)
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t -q "${caps[@]}" > "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	same_frames "$tmp/rx.pcap" "${caps[@]}" || bad "$e: sample captures differ"

	# two sender threads: every frame once, order across threads free
	rx_start "$tmp/rx.pcap"
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t --threads 2 --json "$tmp/a.pcap" \
		> "$tmp/out.json"
	check [ $? -eq 0 ]
	rx_stop
	check grep -q '"packets": 20000,' "$tmp/out.json"
	check grep -q '"threads": 2,' "$tmp/out.json"
	"$txtest" digest "$tmp/a.pcap" | sort > "$tmp/want.dig"
	"$txtest" digest "$tmp/rx.pcap" | sort > "$tmp/got.dig"
	check cmp -s "$tmp/want.dig" "$tmp/got.dig"
done
finish
