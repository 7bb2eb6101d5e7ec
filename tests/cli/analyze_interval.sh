#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_interval.sh - roce-analyze --interval on files: intervals of capture time from the
# first frame's timestamp (tshark -z io,stat's), one JSON line each (or one text line), their
# counters adding up to the final report, the final report unchanged by --interval, the frame
# count of every interval equal to tshark -z io,stat's (when tshark is installed), empty
# intervals printed across a silence, and --prometheus-textfile written with them.
set -u
build=$1 src=$2
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# 400 messages at 2000 frames/s (about 0.3 s of capture): loss, bad ICRCs, CE, a PFC pause
"$rg" -q -w "$tmp/a.pcap" --qps 3 -m 400 --pps 2000 --loss 0.02 --bad-icrc-rate 0.01 \
	--ce-rate 0.05 --pfc prio=3,length=40ms,start=100ms || bad "gen"
"$ra" --json "$tmp/a.pcap" > "$tmp/plain.json"; rc=$?
[ $rc -le 1 ] && ok || bad "plain run: exit $rc"
"$ra" --json --interval 0.05 "$tmp/a.pcap" > "$tmp/iv.out"; rc=$?
[ $rc -le 1 ] && ok || bad "--interval run: exit $rc"

cat > "$tmp/chk.py" <<'PY'
import json, sys, datetime
out, plain, iv = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(out).read().splitlines()
# JSON Lines: every line one JSON value, the interval lines, then the report on the last
vals = [json.loads(l) for l in lines]
ivl, rep = vals[:-1], vals[-1]
assert all("interval_s" in x for x in ivl) and "summary" in rep, "not interval lines + report"
ref = json.load(open(plain))
s = rep["summary"]
# the final report is the one without --interval
for k, v in ref["summary"].items():
    assert s[k] == v, ("summary differs", k, s[k], v)
assert rep["qps"] == ref["qps"], "qps table differs"
# the intervals add up to the run
for k, sk in [("frames", "frames"), ("icrc_bad", "icrc_bad"), ("psn_gaps", "psn_gaps"),
              ("lost_psns", "lost_psns"), ("naks", "naks"), ("cnps", "cnps"),
              ("duplicates", "duplicates"), ("pfc_storms", "pfc_storms"),
              ("acked_unseen_psns", "acked_unseen_psns")]:
    tot = sum(x[k] for x in ivl)
    assert tot == s[sk], (k, tot, s[sk])
assert s["icrc_bad"] > 0 and s["lost_psns"] > 0 and s["cnps"] > 0, "capture lacks events"
# boundaries on capture time from the first frame: n = floor(span / iv) + 1 lines, all but
# the last exactly iv long, each stamped with its end
span = s["duration_s"]
n = int(span / iv + 1e-9) + 1
assert len(ivl) == n, ("lines", len(ivl), "expected", n, "span", span)
for x in ivl[:-1]:
    assert abs(x["interval_s"] - iv) < 1e-6, x["interval_s"]
assert ivl[-1]["interval_s"] <= iv + 1e-6
t = [datetime.datetime.fromisoformat(x["time"].replace("Z", "+00:00")) for x in ivl]
for a, b in zip(t, t[1:-1]):
    assert abs((b - a).total_seconds() - iv) < 0.0015, (a, b)
# the PFC pause shows in the intervals it covers, and nowhere near 1 elsewhere
pr = [x["pfc_paused_ratio_by_priority"]["3"] for x in ivl]
assert max(pr) > 0.5, pr
# every line has the metrics of the issue, and the priorities 0..7 and "pause" (802.3x)
want = {"time", "interval_s", "frames", "gbps", "icrc_bad", "psn_gaps", "lost_psns",
        "lost_psns_per_s", "acked_unseen_psns", "duplicates", "naks", "rnr_naks", "cnps", "cnp_per_s", "ce_ratio",
        "pfc_paused_ratio", "pfc_storms", "capture_drops", "evicted_flows", "expired_flows",
        "pfc_paused_ratio_by_priority"}
for x in ivl:
    assert set(x) == want, set(x) ^ want
    assert set(x["pfc_paused_ratio_by_priority"]) == {"0", "1", "2", "3", "4", "5", "6", "7",
                                                       "pause"}, x["pfc_paused_ratio_by_priority"]
print(len(ivl), "intervals")
PY
python3 "$tmp/chk.py" "$tmp/iv.out" "$tmp/plain.json" 0.05 > "$tmp/chk.out" 2>&1 && ok ||
	bad "JSON intervals: $(cat "$tmp/chk.out")"

# text lines: one per interval, then the text report
"$ra" --interval 0.05 "$tmp/a.pcap" > "$tmp/iv.txt"
nj=$(grep -c '^{"time"' "$tmp/iv.out")
nt=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z frames [0-9]+ ' "$tmp/iv.txt")
[ "$nj" -eq "$nt" ] && [ "$nt" -gt 3 ] && ok || bad "text lines: $nt, JSON lines: $nj"

# tshark -z io,stat: the same frames in every interval
if command -v tshark > /dev/null; then
	tshark -r "$tmp/a.pcap" -q -z io,stat,0.05 2> /dev/null > "$tmp/io.txt"
	python3 - "$tmp/io.txt" "$tmp/iv.out" <<'PY' > "$tmp/io.out" 2>&1 && ok || bad "io,stat: $(cat "$tmp/io.out")"
import json, re, sys
rows = [int(m.group(1)) for m in
        (re.match(r"^\|\s*[\d.]+\s*<>\s*(?:[\d.]+|Dur)\s*\|\s*(\d+)\s*\|", l)
         for l in open(sys.argv[1])) if m]
ivl = [json.loads(l)["frames"] for l in open(sys.argv[2]) if l.startswith('{"time"')]
assert rows == ivl, ("tshark", rows, "roce-analyze", ivl)
PY
fi

# a silence of 2 s in the middle: the empty intervals are printed (frames 0)
python3 - "$tmp/a.pcap" "$tmp/gap.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
out, o, i = bytearray(d[:24]), 24, 0
while o + 16 <= len(d):
    s, sub, cl, wl = struct.unpack_from("<IIII", d, o)
    if i >= 100:
        s += 2
    out += struct.pack("<IIII", s, sub, cl, wl) + d[o + 16:o + 16 + cl]
    o += 16 + cl
    i += 1
open(sys.argv[2], "wb").write(out)
PY
"$ra" --json --interval 0.5 "$tmp/gap.pcap" > "$tmp/gap.out"
python3 - "$tmp/gap.out" <<'PY' > "$tmp/gap.chk" 2>&1 && ok || bad "silence: $(cat "$tmp/gap.chk")"
import json, sys
ivl = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"time"')]
fr = [x["frames"] for x in ivl]
assert fr.count(0) >= 3, fr
assert sum(fr) > 0 and fr[0] > 0 and fr[-1] > 0, fr
PY

# --prometheus-textfile is written at each interval (and at the end)
"$ra" -q --interval 0.05 --prometheus-textfile "$tmp/m.prom" "$tmp/a.pcap" &&
	grep -q '^roce_frames_total{' "$tmp/m.prom" && ok || bad "textfile with --interval"
# bad values are refused
"$ra" --interval 0 "$tmp/a.pcap" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--interval 0 accepted"
"$ra" -i lo --interval 0.05 > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "-i --interval 0.05 accepted"
finish
