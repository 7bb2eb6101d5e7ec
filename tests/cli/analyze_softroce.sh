#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_softroce.sh - roce-analyze on the real Soft-RoCE captures in ../shared.
#   - --json parses, has the fixed keys, and agrees with the facts in the captures'
#     README (frame counts, ICRC all ok, ACK/NAK/RNR counts, per-flow frame counts,
#     no PSN gaps on lossless files);
#   - --fail-on exit status; -q prints nothing;
#   - the same capture as gzip, pcap-ns, pcapng and on stdin gives the same analysis;
#   - several files: one stream, per-file frame numbers, "file" keys;
#   - -c, --max-anomalies, --csv, --frames (text), the text report's sections.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
caps=$src/../shared/captures/softroce
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -d "$caps" ] || { echo "SKIP: $caps not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# --- README facts ------------------------------------------------------------
for f in "$caps"/*.pcap; do
	name=$(basename "$f")
	"$ra" --json "$f" >"$tmp/$name.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$name: exit $rc: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] && ok || bad "$name: stderr not empty: $(cat "$tmp/err")"
done
python3 - "$tmp" <<'PY' && ok || bad "README facts (see above)"
import json, sys, os
tmp = sys.argv[1]
# name: frames, acks, psn_seq_err NAKs, RNR NAKs, lossless, {(src, dqpn): frames}
facts = {
    "rc_write.pcap": (1800, 200, 0, 0, True, {("192.168.77.1", 0x11): 1600, ("192.168.77.2", 0x11): 200}),
    "rc_read.pcap": (3400, 400, 0, 0, True, {("192.168.77.1", 0x12): 200, ("192.168.77.2", 0x12): 3200}),
    "rc_send.pcap": (1000, 200, 0, 0, True, {("192.168.77.1", 0x13): 800, ("192.168.77.2", 0x13): 200}),
    "rc_imm_ipv6.pcap": (110, 40, 0, 0, True, {("fd77::1", 0x26): 70, ("fd77::2", 0x26): 40}),
    "ud_send.pcap": (200, 0, 0, 0, True, {("192.168.77.1", 0x14): 200}),
    "rc_write_mtu4096.pcap": (500, 100, 0, 0, True, {("192.168.77.1", 0x2c): 400, ("192.168.77.2", 0x2c): 100}),
    "atomic_fadd.pcap": (400, 200, 0, 0, True, {("192.168.77.1", 0x17): 200, ("192.168.77.2", 0x17): 200}),
    "rping_ipv4.pcap": (125, 60, 0, 0, True, {("192.168.77.1", 0x1): 3, ("192.168.77.1", 0x19): 60,
                                              ("192.168.77.2", 0x1): 2, ("192.168.77.2", 0x19): 60}),
    "rc_write_loss2.pcap": (4896, 200, 29, 0, False, {("192.168.77.1", 0x1d): 4667, ("192.168.77.2", 0x1d): 229}),
    "rc_send_rnr.pcap": (3111, 250, 29, 29, True, {("192.168.77.1", 0x24): 2803, ("192.168.77.2", 0x24): 308}),
}
summary_keys = """frames bytes roce_frames rocev1_frames rocev2_frames icrc_ok icrc_bad
icrc_unverified malformed psn_gaps lost_psns duplicates out_of_order naks rnr_naks cnps ecn_ce
pfc_frames pause_frames evicted_flows duration_s""".split()
qp_keys = """version src dst dqpn transport frames bytes payload_bytes messages psn_gaps lost_psns
duplicates out_of_order unrecovered_psns naks cnps ecn_ce icrc_bad rtt_us""".split()
errors = []
def err(m): errors.append(m)
for name, (frames, acks, seq, rnr, lossless, flows) in facts.items():
    p = os.path.join(tmp, name + ".json")
    if not os.path.exists(p):
        continue
    d = json.load(open(p))
    for k in ("summary", "qps", "pfc", "anomalies"):
        if k not in d: err(f"{name}: no top-level key {k}")
    s = d["summary"]
    for k in summary_keys:
        if k not in s: err(f"{name}: summary has no {k}")
    for q in d["qps"]:
        for k in qp_keys:
            if k not in q: err(f"{name}: qps row has no {k}")
        for k in ("count", "min", "p50", "p99", "max"):
            if k not in q.get("rtt_us", {}): err(f"{name}: rtt_us has no {k}")
    def eq(what, got, want):
        if got != want: err(f"{name}: {what} = {got!r}, README says {want!r}")
    eq("frames", s["frames"], frames)
    eq("roce_frames", s["roce_frames"], frames)
    eq("rocev2_frames", s["rocev2_frames"], frames)
    eq("rocev1_frames", s["rocev1_frames"], 0)
    eq("icrc_ok", s["icrc_ok"], frames)
    eq("icrc_bad", s["icrc_bad"], 0)
    eq("icrc_unverified", s["icrc_unverified"], 0)
    eq("malformed", s["malformed"], 0)
    eq("cnps", s["cnps"], 0)
    eq("pfc_frames", s["pfc_frames"], 0)
    eq("acks", s["acks"], acks)
    eq("NAK PSN sequence errors", s["nak_codes"]["psn_seq_err"], seq)
    eq("rnr_naks", s["rnr_naks"], rnr)
    if name == "rc_write_loss2.pcap":
        eq("naks", s["naks"], 29)
    if lossless:
        eq("psn_gaps", s["psn_gaps"], 0)
        eq("lost_psns", s["lost_psns"], 0)
        eq("unrecovered_psns", s["unrecovered_psns"], 0)
    got = {(q["src"], q["dqpn"]): q["frames"] for q in d["qps"]}
    eq("per-flow frames", got, flows)
    eq("anomalies listed + dropped", len(d["anomalies"]) + s["anomalies_dropped"], s["anomalies_total"])
    if s["anomalies"] if False else False: pass
for e in errors: print("  " + e)
sys.exit(1 if errors else 0)
PY

# --- --fail-on and -q ----------------------------------------------------------
fo() { # fo WANT FILE ARGS...
	local want=$1 f=$2
	shift 2
	"$ra" -q "$@" "$caps/$f" >"$tmp/out" 2>&1
	local rc=$?
	[ $rc -eq "$want" ] && ok || bad "-q $* $f: exit $rc, expected $want"
	[ ! -s "$tmp/out" ] && ok || bad "-q $* $f printed something"
}
fo 1 rc_write_loss2.pcap --fail-on psn_gap
fo 0 rc_write.pcap --fail-on psn_gap
fo 1 rc_write_loss2.pcap --fail-on icrc,nak
fo 0 rc_write_loss2.pcap --fail-on icrc,rnr_nak,malformed,cnp,pfc_storm
fo 1 rc_send_rnr.pcap --fail-on rnr_nak
fo 0 rc_send.pcap --fail-on any
fo 1 rc_write_loss2.pcap --fail-on any
fo 0 rc_write_loss2.pcap
"$ra" --fail-on psn_gap "$caps/rc_write_loss2.pcap" >"$tmp/out" 2>/dev/null
[ $? -eq 1 ] && [ -s "$tmp/out" ] && ok || bad "--fail-on without -q: exit 1 and a report"

# --- same analysis from gzip, pcap-ns, pcapng, stdin ------------------------------
base=rc_write_loss2.pcap
gzip -c "$caps/$base" >"$tmp/loss.pcap.gz"
python3 - "$caps/$base" "$tmp/loss-ns.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic, = struct.unpack_from("<I", d, 0)
assert magic == 0xa1b2c3d4
out = bytearray(struct.pack("<I", 0xa1b23c4d) + d[4:24])
o = 24
while o + 16 <= len(d):
    sec, usec, cap, wire = struct.unpack_from("<IIII", d, o)
    out += struct.pack("<IIII", sec, usec * 1000, cap, wire) + d[o + 16:o + 16 + cap]
    o += 16 + cap
open(sys.argv[2], "wb").write(out)
PY
variants=("$tmp/loss.pcap.gz" "$tmp/loss-ns.pcap")
if command -v editcap >/dev/null; then
	editcap -F pcapng "$caps/$base" "$tmp/loss.pcapng" 2>/dev/null && variants+=("$tmp/loss.pcapng")
fi
"$ra" --json "$caps/$base" >"$tmp/ref.json"
for v in "${variants[@]}" stdin; do
	if [ "$v" = stdin ]; then
		"$ra" --json - <"$caps/$base" >"$tmp/v.json" 2>"$tmp/err"
	else
		"$ra" --json "$v" >"$tmp/v.json" 2>"$tmp/err"
	fi
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$v: exit $rc: $(cat "$tmp/err")"
	python3 - "$tmp/ref.json" "$tmp/v.json" <<'PY' && ok || bad "$v: analysis differs from the plain pcap"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("files", None)
sys.exit(0 if a == b else 1)
PY
done
gzip -c "$caps/$base" | "$ra" --json - >"$tmp/v.json" 2>"$tmp/err"
grep -q '"format": "pcap+gzip"' "$tmp/v.json" && ok || bad "gzip on stdin: format not pcap+gzip"
grep -q '"name": "<stdin>"' "$tmp/v.json" && ok || bad "stdin file name"

# --- several files ------------------------------------------------------------------
"$ra" --json -r "$caps/rc_write.pcap" "$caps/rc_write_loss2.pcap" -r "$caps/ud_send.pcap" \
	>"$tmp/multi.json" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "three files: exit status: $(cat "$tmp/err")"
python3 - "$tmp/multi.json" <<'PY' && ok || bad "three files: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["files"] == 3, s["files"]
assert s["frames"] == 1800 + 4896 + 200, s["frames"]
names = [f["name"].rsplit("/", 1)[-1] for f in d["files"]]
assert names == ["rc_write.pcap", "rc_write_loss2.pcap", "ud_send.pcap"], names
assert [f["frames"] for f in d["files"]] == [1800, 4896, 200]
assert d["anomalies"], "no anomalies"
for a in d["anomalies"]:
    assert a["file"].endswith("rc_write_loss2.pcap"), a
    assert 1 <= a["frame"] <= 4896, a
PY
"$ra" --frames --json "$caps/rc_write.pcap" "$caps/ud_send.pcap" >"$tmp/mf.jsonl"
python3 - "$tmp/mf.jsonl" <<'PY' && ok || bad "two files --frames --json: file keys / frame numbers"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
frames = lines[:-1]
assert len(frames) == 2000, len(frames)
assert [f["frame"] for f in frames] == list(range(1, 1801)) + list(range(1, 201))
assert all(f["file"].endswith("rc_write.pcap") for f in frames[:1800])
assert all(f["file"].endswith("ud_send.pcap") for f in frames[1800:])
assert lines[-1]["summary"]["frames"] == 2000
PY

# --- -c, --max-anomalies, --csv, --frames, text report -------------------------------
"$ra" --json -c 100 "$caps/$base" >"$tmp/c.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["frames"] == 100 and d["summary"]["stopped_by_count"] is True
' "$tmp/c.json" && ok || bad "-c 100"
"$ra" --json --max-anomalies 5 "$caps/$base" >"$tmp/m.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
assert len(d["anomalies"]) == min(5, r["summary"]["anomalies_total"])
assert d["anomalies"] == r["anomalies"][:5]
assert d["summary"]["anomalies_total"] == r["summary"]["anomalies_total"]
assert d["summary"]["anomalies_dropped"] == r["summary"]["anomalies_total"] - len(d["anomalies"])
for k in ("psn_gaps", "naks", "duplicates"):
    assert d["summary"][k] == r["summary"][k]
' "$tmp/ref.json" "$tmp/m.json" && ok || bad "--max-anomalies 5"
"$ra" --json --max-anomalies 0 "$caps/$base" | python3 -c '
import json, sys; d = json.load(sys.stdin); assert d["anomalies"] == [] and d["summary"]["anomalies_dropped"] > 0
' && ok || bad "--max-anomalies 0"

"$ra" --csv "$caps/rping_ipv4.pcap" >"$tmp/q.csv"
python3 - "$tmp/q.csv" "$tmp/rping_ipv4.pcap.json" <<'PY' && ok || bad "--csv"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
assert len(rows) == len(d["qps"]) == 4
for r, q in zip(rows, d["qps"]):
    for k in ("version", "src", "dst", "dqpn", "transport", "frames", "bytes", "payload_bytes",
              "messages", "psn_gaps", "lost_psns", "duplicates", "out_of_order", "naks", "icrc_bad"):
        assert str(q[k]) == r[k], (k, q[k], r[k])
    assert int(r["rtt_us_count"]) == q["rtt_us"]["count"]
    if q["rtt_us"]["count"]:
        assert abs(float(r["rtt_us_p50"]) - q["rtt_us"]["p50"]) < 0.001
PY

"$ra" --frames "$caps/rc_write.pcap" >"$tmp/frames.txt"
n=$(grep -cE '^ +[0-9]+ +[0-9]+\.[0-9]{6} v2 192\.168\.77\.[12] -> 192\.168\.77\.[12] RC_[A-Z_]+ dqpn 0x000011 psn [0-9]+ icrc ok' "$tmp/frames.txt")
[ "$n" -eq 1800 ] && ok || bad "--frames: $n frame lines, expected 1800"
grep -q '^ICRC' "$tmp/frames.txt" && ok || bad "--frames: no report after the frame lines"

"$ra" "$caps/$base" >"$tmp/report.txt"
for sec in '^Capture' '^ICRC \(crc32: ' '^PSN analysis' '^ACK/NAK' '^Congestion' \
	   '^Queue pairs' '^PFC / PAUSE' '^Anomalies: ' 'Frames: +4896$' 'ok 4896, bad 0, unverified 0' \
	   'NAKs: +29$' '192\.168\.77\.1 -> 192\.168\.77\.2 +0x00001d +RC +4667 '; do
	grep -qE -- "$sec" "$tmp/report.txt" && ok || bad "text report: no line matching '$sec'"
done
"$ra" "$caps/$base" | cmp -s - "$tmp/report.txt" && ok || bad "text report not stable between runs"

finish
