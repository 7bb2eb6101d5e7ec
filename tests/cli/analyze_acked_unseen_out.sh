#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_acked_unseen_out.sh - the acked_unseen event and counter in every output besides the
# report's (analyze_acked_unseen.sh checks those): the editcap reproduction (a roce-gen RC WRITE
# capture without frames 5-6, the ACK of PSN 3 and the WRITE_FIRST of PSN 4; the ACK of PSN 7
# then acknowledges PSN 4, which the capture never saw) shows on that ACK, and only there,
# the acked_unseen event: --frames text and JSON (with acked_unseen_psns 1), one acked_unseen
# anomaly (the request stream, PSN 4, count 1) and anomaly_counts; --interval lines (text and
# JSON) add up to 1; --prometheus-textfile has roce_acked_unseen_psns_total 1 and the stream
# series (promtool check metrics); the HTML report's summary card and per-QP column (headless
# Chromium, html_check.py, when installed).  The uncut capture has no such event anywhere.
set -u
build=$1
src=${2:-$(dirname "${BASH_SOURCE[0]}")/../..}
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/acked_unseen_lib.sh"
cut_ack_capture "$rg" || { finish; exit; }

# the frame (of the cut capture) that acknowledges PSN 4: the first ACK with PSN >= 4
ackno=$("$ra" --frames --json "$tmp/cd2.pcap" 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    f = json.loads(l)
    if f.get("kind") == "roce" and f.get("opcode_name") == "RC_ACKNOWLEDGE" and f["psn"] >= 4:
        print(f["frame"]); break' 2>/dev/null)
[ -n "$ackno" ] && ok || bad "no ACK of PSN >= 4 in the cut capture"

# ---- --frames, JSON and text ----
"$ra" --frames --json "$tmp/cd2.pcap" > "$tmp/fr.json" 2>/dev/null
got=$(python3 -c '
import json, sys
fs = [json.loads(l) for l in open(sys.argv[1])]
fs = [f for f in fs if "events" in f and "acked_unseen" in f["events"]]
print(" ".join("%s:%s" % (f["frame"], f.get("acked_unseen_psns")) for f in fs))' "$tmp/fr.json")
[ "$got" = "$ackno:1" ] && ok || bad "--frames --json: acked_unseen frames '$got', expected '$ackno:1'"
"$ra" --frames "$tmp/cd2.pcap" > "$tmp/fr.txt" 2>/dev/null
got=$(grep -c 'acked_unseen 1 .*\[.*acked_unseen.*\]' "$tmp/fr.txt")
[ "$got" = 1 ] && ok || bad "--frames text: $got lines with 'acked_unseen 1 [...acked_unseen]'"
grep 'acked_unseen' "$tmp/fr.txt" | grep -q "^ *$ackno " && ok ||
	bad "--frames text: the acked_unseen line is not frame $ackno"
"$ra" --frames "$tmp/cd.pcap" 2>/dev/null | grep -q acked_unseen &&
	bad "uncut: --frames shows acked_unseen" || ok

# ---- --json anomalies ----
"$ra" --json "$tmp/cd2.pcap" > "$tmp/cut.json"
got=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
a = [x for x in j["anomalies"] if x["type"] == "acked_unseen"]
print(j["summary"]["anomaly_counts"].get("acked_unseen"), " ".join("%s:%s:%s" % (x["frame"], x.get("psn"),
      x.get("count")) for x in a))' "$tmp/cut.json")
[ "$got" = "1 $ackno:4:1" ] && ok || bad "--json: acked_unseen count/anomalies '$got', expected '1 $ackno:4:1'"
"$ra" --json "$tmp/cd.pcap" > "$tmp/full.json"
got=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(j["summary"]["anomaly_counts"].get("acked_unseen"), sum(x["type"] == "acked_unseen" for x in j["anomalies"]))
' "$tmp/full.json")
[ "$got" = "0 0" ] && ok || bad "uncut: acked_unseen count/anomalies '$got', expected '0 0'"

# ---- --interval (JSON Lines and text) ----
"$ra" --json --interval 0.000001 "$tmp/cd2.pcap" > "$tmp/iv.json" 2>/dev/null
got=$(python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
iv = [x for x in ls[:-1] if "interval_s" in x]
print(len(iv) > 1, sum(x["acked_unseen_psns"] for x in iv), sum(x["lost_psns"] for x in iv))
' "$tmp/iv.json" 2>&1)
[ "$got" = "True 1 1" ] && ok || bad "--interval JSON: (several, acked_unseen, lost) = '$got'"
"$ra" --interval 0.000001 "$tmp/cd2.pcap" > "$tmp/iv.txt" 2>/dev/null
got=$(grep -o ' acked_unseen [0-9]*' "$tmp/iv.txt" | awk '{ n++; s += $2 } END { print (n > 1), s }')
[ "$got" = "1 1" ] && ok || bad "--interval text: (several, acked_unseen sum) = '$got'"

# ---- Prometheus text file ----
"$ra" --prometheus-textfile "$tmp/m.prom" "$tmp/cd2.pcap" > /dev/null 2>&1
grep -q '^roce_acked_unseen_psns_total{interface="[^"]*"} 1$' "$tmp/m.prom" && ok ||
	bad "prometheus: no roce_acked_unseen_psns_total 1"
got=$(awk '/^roce_stream_acked_unseen_psns_total\{/ { s += $NF } END { print s + 0 }' "$tmp/m.prom")
[ "$got" = 1 ] && ok || bad "prometheus: roce_stream_acked_unseen_psns_total sums to $got"
if have_promtool; then
	promtool check metrics < "$tmp/m.prom" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check metrics: $(cat "$tmp/pt.out")"
fi
"$ra" --prometheus-textfile "$tmp/f.prom" "$tmp/cd.pcap" > /dev/null 2>&1
grep -q '^roce_acked_unseen_psns_total{interface="[^"]*"} 0$' "$tmp/f.prom" && ok ||
	bad "prometheus (uncut): no roce_acked_unseen_psns_total 0"

# ---- HTML report ----
"$ra" --json --html "$tmp/r.html" "$tmp/cd2.pcap" > "$tmp/r.json" 2>/dev/null
grep -q '"acked_unseen_psns":1' "$tmp/r.html" && ok || bad "html: no acked_unseen_psns 1 in the data"
if command -v chromium > /dev/null 2>&1; then
	"$ra" --frames --json "$tmp/cd2.pcap" > "$tmp/r.frames" 2>/dev/null
	if python3 "$src/tests/cli/html_check.py" report "$tmp/r.html" "$tmp/r.json" "$tmp/r.png" \
		"$tmp/r.frames" > "$tmp/r.chk" 2>&1; then
		ok
	else
		bad "html: browser check: $(head -20 "$tmp/r.chk")"
	fi
else
	echo "note: chromium not installed, the browser check skipped"
fi
finish
