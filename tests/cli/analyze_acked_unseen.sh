#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_acked_unseen.sh - "ACKed unseen" request PSNs (docs/json.md acked_unseen_psns):
# a roce-gen RC WRITE capture with frames 5-6 cut by editcap (the ACK of PSN 3 and the
# WRITE_FIRST of PSN 4: what a mirror port dropping frames does).  The ACK of PSN 7 then
# covers PSN 4: one gap of one PSN (what the capture point missed), no unrecovered PSN, one
# ACKed unseen, in --json (summary and the request stream's qps row), the text report
# (its line only then: the uncut capture's report has none) and the CSV's last column.
# Also: the uncut capture has nothing ACKed unseen; a UC capture with the same cut keeps
# its PSN unrecovered (no ACKs).
set -u
build=$1
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/acked_unseen_lib.sh"
cut_ack_capture "$rg" || { finish; exit; }

# json FILE EXPR: print the Python expression EXPR over the JSON document j
json() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

"$ra" --json "$tmp/cd2.pcap" > "$tmp/cut.json" || bad "roce-analyze --json (cut) failed"
"$ra" --json "$tmp/cd.pcap" > "$tmp/full.json" || bad "roce-analyze --json (uncut) failed"
got=$(json "$tmp/cut.json" '"%d %d %d %d" % tuple(j["summary"][k] for k in
	("psn_gaps", "lost_psns", "unrecovered_psns", "acked_unseen_psns"))')
[ "$got" = "1 1 0 1" ] && ok ||
	bad "cut: gaps lost unrecovered acked_unseen = $got, expected 1 1 0 1"
got=$(json "$tmp/cut.json" '" ".join("%s:%d:%d" % (q["request"], q["unrecovered_psns"],
	q["acked_unseen_psns"]) for q in j["qps"])')
[ "$got" = "True:0:1 False:0:0" ] && ok || bad "cut: qps request:unrecovered:acked_unseen = $got"
got=$(json "$tmp/cut.json" '[a["type"] for a in j["anomalies"] if a["type"] == "unrecovered"]')
[ "$got" = "[]" ] && ok || bad "cut: unrecovered anomaly reported: $got"
got=$(json "$tmp/full.json" '"%d %d" % (j["summary"]["acked_unseen_psns"],
	j["summary"]["psn_gaps"])')
[ "$got" = "0 0" ] && ok || bad "uncut: acked_unseen gaps = $got, expected 0 0"

"$ra" "$tmp/cd2.pcap" > "$tmp/cut.txt"
grep -q '^  ACKed unseen: *1 (PSNs the responder acknowledged that the capture missed)$' \
	"$tmp/cut.txt" && ok || bad "cut: no 'ACKed unseen: 1' line in the text report"
grep -q '^  Unrecovered PSNs: *0$' "$tmp/cut.txt" && ok ||
	bad "cut: text report's unrecovered is not 0"
"$ra" "$tmp/cd.pcap" > "$tmp/full.txt"
grep -q 'ACKed unseen' "$tmp/full.txt" && bad "uncut: text report has an 'ACKed unseen' line" || ok

"$ra" --csv "$tmp/cd2.pcap" > "$tmp/cut.csv"
got=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))
print(" ".join(x["acked_unseen_psns"] + ":" + x["unrecovered_psns"] for x in r))' "$tmp/cut.csv")
[ "$got" = "1:0 0:0" ] && ok || bad "cut: CSV acked_unseen_psns:unrecovered_psns = $got"
# (columns are appended: acked_unseen_psns, then capture_copies, docs/json.md)
[ "$(head -n 1 "$tmp/cut.csv" | tr ',' '\n' | tail -n 2 | tr '\n' ' ')" = \
	"acked_unseen_psns capture_copies " ] && ok ||
	bad "CSV: the last columns are not acked_unseen_psns, capture_copies"

# UC: frame 5 (PSN 4) cut: no ACKs, it stays unrecovered
"$rg" -q -w "$tmp/uc.pcap" --qps 1 --messages 40 --msg-size 4096 -s 9 --verbs uc_write ||
	bad "roce-gen --verbs uc_write failed"
editcap -r "$tmp/uc.pcap" "$tmp/uc2.pcap" 1-4 6-200 >/dev/null 2>&1 || bad "editcap (uc) failed"
"$ra" --json "$tmp/uc2.pcap" > "$tmp/uc.json"
got=$(json "$tmp/uc.json" '"%d %d %d" % tuple(j["summary"][k] for k in
	("lost_psns", "unrecovered_psns", "acked_unseen_psns"))')
[ "$got" = "1 1 0" ] && ok || bad "uc: lost unrecovered acked_unseen = $got, expected 1 1 0"
finish
