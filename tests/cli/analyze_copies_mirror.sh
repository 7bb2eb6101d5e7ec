#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_copies_mirror.sh - capture copies that interleave with other frames of their stream
# (docs/json.md "Capture copies"), as a switch mirror port writes them: every frame of a
# roce-gen capture twice, the copy 0.3, 1, 2 or 3.5 us later (copies_lib.sh mirror(): merged
# by time stamp, so a stream reads A B A' B' or A B C A' D B').  The mirrored capture's --json
# equals the original's but for capture_copies (one per frame) and the frame counts; nothing
# is a duplicate or a retransmission.  Captures: clean RC traffic (WRITE, SEND, READ), one
# with losses (NAKs, go-back-N, RNR NAKs, re-reads, CE marks and CNPs), one of 8 QPs on 4 hosts
# at a higher rate (other streams between a frame and its copy), one with many RNR NAKs (a
# request's copy after the RNR NAK that refused it: the resend waits for the RNR NAK's timer),
# one with reordering and losses (a late request, reordered on the way, between a frame and
# its copy is no resend: it stops no copy; the go-backs' resends do), one with bit errors
# (bad ICRCs, flipped payload bits, losses: a damaged frame between a frame and its copy
# stops no copy, its receiver dropped it; the damaged frames themselves are no copies,
# counted twice, as copies_lib.sh same() expects).  A CNP's copy with a frame of its peer
# between reads as a CNP (same()'s "cnp": only that may differ, as often as capture_copies
# falls short).  Copies 6 us later (beyond the 4 us window) are no copies: they read as
# duplicates.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/copies_lib.sh"     # gen(), mirror(), same()

caps=""
base="--verbs=write:2,send,read --msg-size=64,3000 --seed=5"
gen clean --qps=2 $base --messages=60
gen lossy --qps=2 $base --messages=60 --loss=3% --read-loss-rate=3% --rnr-rate=2% \
	--ce-rate=5%
gen multi --qps=8 --hosts=4 $base --messages=200 --pps=5M --loss=1% --ce-rate=2%
# RNR NAKs: a request's copy after the RNR NAK that refused it is a copy (the resend waits
# for the RNR NAK's timer), and so is the RNR NAK's copy after it
gen rnr --qps=2 $base --messages=80 --rnr-rate=10% --loss=2%
gen reorder --qps=2 $base --messages=80 --reorder-rate=5% --loss=2% --ce-rate=3%
# bit errors: damaged frames between frames and their copies (and their own copies)
gen damaged --qps=2 $base --messages=80 --bad-icrc-rate=3% --bad-payload-rate=2% --loss=2%

for c in $caps; do
	n=$(basename "$c" .pcap)
	"$ra" --json "$tmp/$n.pcap" > "$tmp/$n.json" || { bad "$n: roce-analyze --json failed"; continue; }
	nf=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["summary"]["roce_frames"])' "$tmp/$n.json")
	for lag in 300 1000 2000 3500; do
		mirror "$tmp/$n.pcap" "$tmp/$n.m$lag.pcap" $lag || { bad "$n: mirror failed"; continue; }
		"$ra" --json "$tmp/$n.m$lag.pcap" > "$tmp/$n.m$lag.json" ||
			{ bad "$n +$lag ns: roce-analyze --json failed"; continue; }
		# (clean has no CE mark: every CNP copy must be recognised there)
		if out=$(same "$tmp/$n.json" "$tmp/$n.m$lag.json" "$nf" \
			$([ $n = clean ] || echo cnp)); then
			ok
		else
			bad "$n mirrored +$lag ns: $out"
		fi
	done
done

# the copies really interleave: a frame of the stream between a frame and its copy
got=$("$ra" --frames --json "$tmp/clean.m1000.pcap" | python3 -c 'import json,sys
last = {}
n = 0
for l in sys.stdin:
    r = json.loads(l)
    s = (r.get("src"), r.get("dst"), r.get("dqpn"))
    if "capture_copy" in r.get("events", []) and last.get(s) != r.get("psn"):
        n += 1
    if "capture_copy" not in r.get("events", []):
        last[s] = r.get("psn")
print(n > 0)')
[ "$got" = "True" ] && ok || bad "clean +1000 ns: no copy interleaved with its stream"

# the lossy capture really has what the copies must not add to
got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["psn_gaps"] > 0 and s["retransmissions"] > 0 and s["naks"] > 0 and s["cnps"] > 0)' \
	"$tmp/lossy.json")
[ "$got" = "True" ] && ok || bad "lossy capture: no gap, resend, NAK or CNP"
# the reordered one late requests (an out_of_order anomaly: a fill that is no resend) and
# go-backs
got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["anomaly_counts"]["out_of_order"] > 0 and s["retransmissions"] > 0 and s["naks"] > 0)' \
	"$tmp/reorder.json")
[ "$got" = "True" ] && ok || bad "reorder capture: no late request or no go-back"

# the damaged capture really has damaged frames, and gaps to go back for
got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["icrc_bad"] > 2 and s["psn_gaps"] > 0 and s["naks"] > 0)' "$tmp/damaged.json")
[ "$got" = "True" ] && ok || bad "damaged capture: no bad ICRC, gap or NAK"

# beyond the window: 6 us later the copies are no copies (duplicates), as with
# --copy-window=1 at 2 us
mirror "$tmp/clean.pcap" "$tmp/clean.m6000.pcap" 6000 || bad "mirror 6000 failed"
for a in "clean.m6000.pcap" "--copy-window=1 clean.m2000.pcap"; do
	set -- $a
	f=${!#}
	"$ra" --json "${@:1:$#-1}" "$tmp/$f" > "$tmp/far.json" || { bad "$a: --json failed"; continue; }
	got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["capture_copies"], s["duplicates"] > 0)' "$tmp/far.json")
	[ "$got" = "0 True" ] && ok || bad "$a: copies, duplicates = $got"
done
finish
