#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# an_bench.sh - bench/an_bench (bench/many_qps.sh's in-process column) on a small generated
# capture: it runs the asked repetitions and counts the frames roce-analyze --json counts (the
# frames fed and the analyzer's summary), its streams and good ICRCs too, with and without
# --no-icrc, and with --remap.  No
# timing is checked, only that the numbers are there and positive.
set -u
build=$1 src=$2
ab=$build/bench/an_bench
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ab" ] && [ -x "$ra" ] && [ -x "$rg" ] ||
	{ echo "SKIP: an_bench/roce-analyze/roce-gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# kv KEY LINE: the value of KEY=value in an_bench's line (many_qps.sh's)
kv() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1)
		print substr($i, length(k) + 2) }' <<<"$2"
}
# json FILE FIELD [OPTION]: roce-analyze --json [OPTION]'s summary.FIELD
json() {
	"$ra" --json ${3:-} "$1" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['summary']['$2'])"
}
# positive VALUE: a number above 0
positive() { python3 -c "import sys; sys.exit(0 if float('$1') > 0 else 1)" 2>/dev/null; }

"$rg" -q -w "$tmp/x.pcap" --hosts=4 --qps=2 --verbs=send,read --msg-size=256 --random-psn -m 50 ||
	bad "roce-gen failed"
frames=$(json "$tmp/x.pcap" frames)
streams=$(json "$tmp/x.pcap" streams)
check [ "$frames" -eq 100 ]
check [ "$streams" -eq 16 ]
for opt in "" --no-icrc --remap; do
	icrc_ok=$(json "$tmp/x.pcap" icrc_ok "$([ "$opt" = --no-icrc ] && echo --no-icrc)")
	out=$("$ab" -r 2 $opt "$tmp/x.pcap" 2>"$tmp/err")
	rc=$?
	name="an_bench -r 2${opt:+ $opt}"
	[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] ||
		bad "$name: exit $rc, stderr: $(head -n 3 "$tmp/err")"
	[ "$(kv frames "$out")" = "$frames" ] ||
		bad "$name: frames=$(kv frames "$out"), roce-analyze --json $frames: $out"
	[ "$(kv summary_frames "$out")" = "$frames" ] ||
		bad "$name: summary_frames=$(kv summary_frames "$out"), roce-analyze --json $frames"
	[ "$(kv streams "$out")" = "$streams" ] ||
		bad "$name: streams=$(kv streams "$out"), roce-analyze --json $streams"
	[ "$(kv icrc_ok "$out")" = "$icrc_ok" ] ||
		bad "$name: icrc_ok=$(kv icrc_ok "$out"), roce-analyze --json${opt:+ $opt} $icrc_ok"
	check [ "$(kv reps "$out")" = 2 ]
	check [ "$(kv anomalies "$out")" = 0 ]
	check [ "$(kv icrc "$out")" = "$([ "$opt" = --no-icrc ] && echo off || echo verified)" ]
	for k in cpu_ns wall_ns cold_cpu_ns cold_wall_ns feed_cpu_ns; do
		positive "$(kv "$k" "$out")" || bad "$name: $k not a positive number: $out"
	done
	ok
done
# errors: no file, a missing file, a file that is no capture
"$ab" >/dev/null 2>&1; check [ $? -eq 2 ]
"$ab" -r 0 "$tmp/x.pcap" >/dev/null 2>&1; check [ $? -eq 2 ]
"$ab" -r 2 "$tmp/missing.pcap" >/dev/null 2>&1; check [ $? -eq 2 ]
echo "not a capture" >"$tmp/bad.pcap"
"$ab" -r 2 "$tmp/bad.pcap" >/dev/null 2>"$tmp/err"; rc=$?
check [ $rc -eq 2 ]
check grep -q "an_bench: .*bad.pcap" "$tmp/err"
finish
