#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay_rate.sh - pacing, measured on the far end from the kernel's receive
# timestamps (least-squares slope of arrival time over bytes or frames, so a stall of
# the shared machine moves a few frames, not the estimate): a 1 Gb/s target (L2 bytes)
# over about 3 s of 1024-byte-payload frames is met within 1%, the same with --line-rate
# counting L1 bytes, and --pps.
# A functional check at a modest rate with the tolerance the tool documents, not a
# benchmark (bench/tx_bench.sh measures).  The pair's top speed is measured first:
# a machine too busy to carry 4 Gb/s gets the same checks at a quarter of what it
# carries (said in the output), since no pacer can reach a rate the CPU cannot.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
tx_setup
tx_tol_note

"$txtest" mkframes "$tmp/probe.pcap" 1 64 || exit 1
"$txtest" mkframes "$tmp/a.pcap" 20000 1024 || exit 1
mapfile -t engs < <(engines)

# within FRAC of TARGET?
near() {
	awk -v v="$1" -v t="$2" -v f="$3" 'BEGIN { d = (v - t) / t; if (d < 0) d = -d; exit !(d <= f) }'
}

# paced LABEL WANT pps|bps SCALE CMD...: run CMD with the receiver on, the receive rate
# (times SCALE) within 1% of WANT (tx_tol: 3% in a sanitizer build).  A second try when
# the first misses: a machine shared with other jobs can stall the sender long enough
# near the end of a run to move the fit; a pacing bug misses both times.  The note says
# when the second try was needed.
paced() {
	local label=$1 want=$2 kind=$3 scale=$4 try got rc
	shift 4
	for try in 1 2; do
		rx_start -
		timeout 60 "$@" > "$tmp/out.txt"
		rc=$?
		rx_stop
		if [ "$rc" -ne 0 ]; then
			bad "$label: exit $rc"
			return
		fi
		if [ "$kind" = pps ]; then
			read -r _ _ _ _ got _ <<< "$rx_rate"
		else
			read -r _ _ _ _ _ _ got <<< "$rx_rate"
		fi
		got=$(awk -v g="$got" -v s="$scale" 'BEGIN { print g * s }')
		if near "$got" "$want" "$tx_tol"; then
			ok
			return
		fi
		echo "note: $label: $got at the receiver, want $want (try $try of 2)"
	done
	bad "$label: $got at the receiver, want $want within $tx_tol_pct%"
}

for e in "${engs[@]}"; do
	rx_start -
	timeout 60 "$replay" -i "$if_a" --engine "$e" -t --preload --loop 5 -q "$tmp/a.pcap" \
		> "$tmp/out.txt"
	check [ $? -eq 0 ]
	rx_stop
	read -r _ _ _ _ _ _ cap <<< "$rx_rate"
	gbps=$(awk -v c="$cap" 'BEGIN { if (c >= 4e9) print 1; else printf "%.4f\n", c / 4e9 }')
	[ "$gbps" = 1 ] || echo "note: $e carries $cap bit/s here now: pacing checked at $gbps Gb/s"
	# frames for about 3 s at that rate (1098-byte frames), whole passes of the file
	loops=$(awk -v g="$gbps" 'BEGIN { n = int(g * 1e9 * 3 / 8 / 1098 / 20000); print n < 1 ? 1 : n }')

	want=$(awk -v g="$gbps" 'BEGIN { print g * 1e9 }')
	paced "$e: --gbps $gbps" "$want" bps 1 \
		"$replay" -i "$if_a" --engine "$e" --gbps "$gbps" --preload --loop "$loops" -q --json \
		"$tmp/a.pcap"
	check [ "${rx_out%% bytes*}" = "frames $((loops * 20000))" ]
	grep -q "\"deadline_dev_ns\": {\"frames\": $((loops * 20000))" "$tmp/out.txt" ||
		bad "$e: no deviation statistics in --json"

	# --line-rate: the same rate in L1 bytes (1098 + 24 per frame)
	paced "$e: --mbps $gbps*1000 --line-rate" "$want" bps "$(awk 'BEGIN { print 1122 / 1098 }')" \
		"$replay" -i "$if_a" --engine "$e" --mbps "$(awk -v g="$gbps" 'BEGIN { print g * 1000 }')" \
		--line-rate --preload --loop "$loops" -q "$tmp/a.pcap"
	# the text statistics name the target (the rate asked for) next to its share
	grep -q "^Target: $(awk -v g="$gbps" 'BEGIN { printf "%.6f", g }') Gb/s L1, achieved " \
		"$tmp/out.txt" && ok || bad "$e: --line-rate: $(grep Target "$tmp/out.txt")"

	# --pps: a tenth of that frame rate for 3 s
	pps=$(awk -v g="$gbps" 'BEGIN { printf "%d\n", g * 1e9 / 8 / 1098 / 10 }')
	paced "$e: --pps $pps" "$pps" pps 1 \
		"$replay" -i "$if_a" --engine "$e" --pps "$pps" --loop 0 --limit $((pps * 3)) -q "$tmp/a.pcap"
	check [ "${rx_out%% bytes*}" = "frames $((pps * 3))" ]
	grep -q "^Target: $pps.0 pps, achieved " "$tmp/out.txt" && ok ||
		bad "$e: --pps: $(grep Target "$tmp/out.txt")"
done
finish
