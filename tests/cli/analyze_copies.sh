#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_copies.sh - capture copies (docs/json.md "Capture copies"): every frame of a
# roce-gen capture written twice in a row (what tcpdump -i any sees with a VLAN
# sub-interface; a small Python rewrite of the pcap records), the copy at the same time
# stamp (a later stamp would put the doubled file out of time order: roce-gen's frames are
# closer than a microsecond; test_analyzer_copies.c has copies 100 ns later).  The doubled
# capture's --json equals the single capture's but for
# capture_copies (one per frame) and the frame counts (frames, bytes, payload_bytes,
# roce_frames, rocev2_frames, icrc_ok, opcodes); nothing is a duplicate or a
# retransmission.  Captures: a clean roce-gen run and one with losses (NAKs, go-back-N,
# RNR NAKs, re-reads, CE marks and CNPs; not roce-gen's --dup-rate: its copies are
# duplicates on the wire, 10 us after the original), the committed READ
# capture (IPv6).  (Not
# rocev2_write_loss.pcap: its frame with a bad ICRC is damaged, counted each time it was
# captured, as documented.)  With --copy-window=0 the copies read as before (duplicates,
# retransmissions); the text report's line, the CSV column and the --frames event name
# the copies.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

. "$(dirname "${BASH_SOURCE[0]}")/copies_lib.sh"     # gen(), double(), same()

caps=""
# clean: RC WRITE/SEND/READ on 2 QPs; lossy: the same with request and READ response losses,
# RNR NAKs, duplicates, reordering and CE marks (NAKs, go-back-N, re-reads, CNPs)
base="--qps=2 --verbs=write:2,send,read --msg-size=64,3000 --messages=60 --seed=5"
gen clean $base
gen lossy $base --loss=3% --read-loss-rate=3% --rnr-rate=2% --reorder-rate=2% \
	--ce-rate=5%
caps="$caps $src/captures/rocev2_ipv6_read.pcap"

for c in $caps; do
	n=$(basename "$c" .pcap)
	"$ra" --json "$c" > "$tmp/$n.json" || { bad "$n: roce-analyze --json failed"; continue; }
	nf=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["summary"]["roce_frames"])' "$tmp/$n.json")
	double "$c" "$tmp/$n.x2.pcap" 0 || { bad "$n: doubling failed"; continue; }
	"$ra" --json "$tmp/$n.x2.pcap" > "$tmp/$n.x2.json" ||
		{ bad "$n x2: roce-analyze --json failed"; continue; }
	if out=$(same "$tmp/$n.json" "$tmp/$n.x2.json" "$nf"); then
		ok
	else
		bad "$n doubled: $out"
	fi
done

# the lossy capture really has losses and resends: what the copies must not add to
got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["psn_gaps"] > 0 and s["retransmissions"] > 0)' "$tmp/lossy.json")
[ "$got" = "True" ] && ok || bad "lossy capture: no gap or no retransmission"

# --copy-window=0: the copies read as duplicates and (RC) timeout resends
"$ra" --json --copy-window=0 "$tmp/clean.x2.pcap" > "$tmp/off.json" || bad "--copy-window=0 failed"
got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["capture_copies"], s["duplicates"] > 0, s["retransmissions"] > 0)' "$tmp/off.json")
[ "$got" = "0 True True" ] && ok || bad "--copy-window=0: copies dup retx = $got"
"$ra" --copy-window=1001 "$tmp/clean.pcap" > /dev/null 2>&1 &&
	bad "--copy-window=1001 accepted" || ok

# text report, CSV column, --frames event
"$ra" "$tmp/clean.x2.pcap" > "$tmp/x2.txt" || bad "text report failed"
grep -q "Capture copies: *[1-9]" "$tmp/x2.txt" && ok || bad "text: no Capture copies line"
"$ra" "$tmp/clean.pcap" | grep -q "Capture copies" &&
	bad "text: Capture copies line without copies" || ok
"$ra" --csv "$tmp/clean.x2.pcap" > "$tmp/x2.csv" || bad "csv failed"
got=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))
print(sum(int(x["capture_copies"]) for x in r))' "$tmp/x2.csv")
want=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["summary"]["roce_frames"])' "$tmp/clean.json")
[ "$got" = "$want" ] && ok || bad "csv capture_copies $got, expected $want"
"$ra" --frames "$tmp/clean.x2.pcap" > "$tmp/x2.frames" || bad "--frames failed"
got=$(grep -c "capture_copy" "$tmp/x2.frames")
[ "$got" = "$want" ] && ok || bad "--frames: $got capture_copy lines, expected $want"
grep "capture_copy" "$tmp/x2.frames" | grep -qE "duplicate|retransmission" &&
	bad "--frames: a copy with another sequencing event" || ok
"$ra" --frames --json "$tmp/clean.x2.pcap" > "$tmp/x2.jsonl" || bad "--frames --json failed"
got=$(python3 -c 'import json,sys
print(sum("capture_copy" in json.loads(l).get("events", [])
          for l in open(sys.argv[1]) if l.strip()))' "$tmp/x2.jsonl")
[ "$got" = "$want" ] && ok || bad "--frames --json: $got capture_copy events, expected $want"
finish
