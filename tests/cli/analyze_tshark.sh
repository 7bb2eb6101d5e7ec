#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_tshark.sh - roce-analyze --frames --json agrees with tshark on every RoCE v2
# frame of the real captures: frame number, BTH opcode, destination QP and PSN.
# The public capture has RoCE frames with UDP source port 69, which tshark decodes as
# TFTP unless told otherwise (-d udp.port==69,infiniband).
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
shared=$src/../shared/captures
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -d "$shared" ] || { echo "SKIP: $shared not found"; exit 77; }
command -v tshark >/dev/null || { echo "SKIP: tshark not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
files=0

for f in "$shared"/softroce/*.pcap "$shared"/public/rocev2_*.pcap; do
	[ -f "$f" ] || continue
	files=$((files + 1))
	name=$(basename "$f")
	tshark -n -r "$f" -d udp.port==69,infiniband -Y 'udp.dstport==4791' -T fields \
		-e frame.number -e infiniband.bth.opcode -e infiniband.bth.destqp \
		-e infiniband.bth.psn >"$tmp/ts.txt" 2>/dev/null ||
		{ bad "$name: tshark failed"; continue; }
	"$ra" --frames --json "$f" >"$tmp/ra.jsonl" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$name: roce-analyze exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp/ts.txt" "$tmp/ra.jsonl" "$name" <<'PY' && ok || bad "$name: --frames --json differs from tshark"
import json, sys
ts = []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 4 or not f[1]:
        print("  tshark did not decode frame %s as InfiniBand" % f[0]); sys.exit(1)
    ts.append((int(f[0]), int(f[1], 0), int(f[2], 0), int(f[3], 0)))
lines = [json.loads(l) for l in open(sys.argv[2])]
summary = lines.pop()
assert "summary" in summary and "qps" in summary and "anomalies" in summary
ra = [(l["frame"], l["opcode"], l["dqpn"], l["psn"]) for l in lines if l["kind"] == "roce"]
for l in lines:
    for k in ("frame", "opcode", "opcode_name", "dqpn", "psn", "icrc", "version", "src", "dst", "ts", "events", "findings"):
        assert k in l, (k, l)
    assert l["icrc"] == "ok", l
if ts != ra:
    print("  %s: tshark %d frames, roce-analyze %d" % (sys.argv[3], len(ts), len(ra)))
    for a, b in zip(ts, ra):
        if a != b:
            print("  first difference: tshark %r, roce-analyze %r" % (a, b)); break
    sys.exit(1)
if not ts:
    print("  no frames"); sys.exit(1)
PY
done
[ $files -gt 0 ] || { echo "SKIP: no captures"; exit 77; }
finish
