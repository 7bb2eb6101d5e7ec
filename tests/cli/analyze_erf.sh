#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_erf.sh - LINKTYPE_ERF (197) captures, as Endace DAG cards write them: Ethernet
# records (ERF type 2, the colour variant 10, one with extension headers) are decoded like any
# Ethernet capture, with ERF's own timestamps and its loss counters reported as capture drops;
# native InfiniBand ERF records (type 21) are counted, not decoded, without an error.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
gen=$build/cli/roce-gen
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -x "$gen" ] || { echo "SKIP: $gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

"$gen" -w "$tmp/g.pcap" -m 20 -q || { echo "FAIL: roce-gen"; exit 1; }
"$ra" --json "$tmp/g.pcap" >"$tmp/ref" 2>/dev/null || { echo "FAIL: reference run"; exit 1; }

# ERF records around the roce-gen frames (each with a 4-byte FCS, as DAG cards capture them);
# the pcap record time is 1 s off the ERF time, which must win.
python3 - "$tmp/g.pcap" "$tmp/erf.pcap" >/dev/null <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
nsec = struct.unpack_from("<I", d, 0)[0] == 0xa1b23c4d
out = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 197))
o, i = 24, 0
while o + 16 <= len(d):
    s, sub, cl, wl = struct.unpack_from("<IIII", d, o)
    f = d[o + 16:o + 16 + cl] + b"\xde\xad\xbe\xef"
    o += 16 + cl
    ns = s * 10**9 + (sub if nsec else sub * 1000) + 123456789
    frac = ((ns % 10**9) << 32) // 10**9 + 1       # rounds back to ns
    ts = (ns // 10**9) << 32 | frac
    typ, ext = 2, b""
    if i % 7 == 3:
        typ = 10                                      # COLOR_ETH: the field is a colour
    if i == 5:
        typ |= 0x80                                   # two extension headers
        ext = bytes([0x80 | 3]) + b"\1" * 7 + bytes([4]) + b"\2" * 7
    lctr = 0x7777 if typ & 0x7f == 10 else {11: 3, 40: 5}.get(i, 0)
    body = ext + b"\0\0" + f
    rlen = 16 + len(body)
    rlen += -rlen % 8
    rec = struct.pack("<Q", ts) + struct.pack(">BBHHH", typ, 0x04, rlen, lctr, len(f)) + body
    rec += b"\0" * (rlen - len(rec))
    pts = ns // 10**9 + 1
    out += struct.pack("<IIII", pts, (ns % 10**9) // 1000, len(rec), len(rec)) + rec
    i += 1
open(sys.argv[2], "wb").write(out)
PY
[ $? -eq 0 ] || { echo "FAIL: ERF capture not written"; exit 1; }

"$ra" --json "$tmp/erf.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "ERF Ethernet: exit $rc: $(cat "$tmp/err")"
python3 - "$tmp/out" "$tmp/ref" <<'PY' && ok || bad "ERF Ethernet: report differs from the plain capture's"
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
s, rs = d["summary"], r["summary"]
for k in ("frames", "roce_frames", "icrc_ok", "psn_gaps", "acks", "streams"):
    assert s[k] == rs[k], (k, s[k], rs[k])
assert s["icrc_bad"] == 0 and s["malformed"] == 0, s
assert s["bytes"] == rs["bytes"] + 4 * rs["frames"], (s["bytes"], rs["bytes"])   # + FCS
assert s["capture_drops"] == 8 and d["files"][0]["capture_drops"] == 8, s["capture_drops"]
# ERF time = pcap time + 0.123456789 s exactly (the pcap record time is 1 s later)
assert abs(s["first_ts"] - rs["first_ts"] - 0.123456789) < 1e-6, (s["first_ts"], rs["first_ts"])
assert d["files"][0]["linktype"] == 197
PY
"$ra" --frames --json "$tmp/erf.pcap" 2>/dev/null | head -n 1 >"$tmp/f1"
"$ra" --frames --json "$tmp/g.pcap" 2>/dev/null | head -n 1 >"$tmp/r1"
python3 - "$tmp/f1" "$tmp/r1" <<'PY' && ok || bad "ERF Ethernet: --frames line"
import json, sys
f, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert f["frame"] == 1 and f["icrc"] == "ok" and f["psn"] == r["psn"] and f["dqpn"] == r["dqpn"], f
assert f["len"] == r["len"] + 4
PY
if command -v tshark >/dev/null; then
	tshark -r "$tmp/erf.pcap" -c 1 -T fields -e erf.ts 2>/dev/null >"$tmp/tsts"
	[ -s "$tmp/tsts" ] && ok || bad "tshark does not read the generated ERF capture"
fi

# Truncated ERF records (a prefix of the file): still one line and exit 2, never a crash.
head -c 5000 "$tmp/erf.pcap" >"$tmp/cut.pcap"
"$ra" --json "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "cut ERF: exit $rc: $(cat "$tmp/err")"

# Native InfiniBand ERF records (type 21): counted, not decoded, no error.
erf=$src/../shared/captures/public/ib_native_erf_infiniband_sample.pcap
if [ -f "$erf" ]; then
	for args in "" "--json" "--frames --json"; do
		"$ra" $args "$erf" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "IB ERF $args: exit $rc: $(cat "$tmp/err")"
	done
	"$ra" --json "$erf" >"$tmp/out" 2>/dev/null
	want=$(command -v tshark >/dev/null && tshark -r "$erf" -T fields -e frame.len 2>/dev/null | awk '{s += $1} END {print s}')
	python3 - "$tmp/out" "${want:-}" <<'PY' && ok || bad "IB ERF: report"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["frames"] == 43 and s["roce_frames"] == 0 and s["complete"] is True, s
assert s["capture_drops"] == 0
# ERF time: 1210794479.499693535 (tshark's frame.time_epoch), not the pcap record's us
assert abs(s["first_ts"] - 1210794479.499693535) < 1e-9, s["first_ts"]
if sys.argv[2]:
    assert s["bytes"] == int(sys.argv[2]), (s["bytes"], sys.argv[2])   # tshark's frame.len
PY
fi

finish
