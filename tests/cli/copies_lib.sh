#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# copies_lib.sh - sourced by analyze_copies.sh and plugin_capture_copy.sh (not a test):
# double(), a pcap with every record written twice in a row, and mirror(), with the copies
# later and interleaved, as a capture that carries each frame twice (docs/json.md "Capture
# copies"); same(), the check that such a capture's --json equals the original's; gen(),
# a roce-gen capture of the tests.

# twice IN OUT LAG_NS row|merge: every record of the pcap IN twice, the copy LAG_NS later;
# "row": each copy right after its original; "merge": the originals and the copies merged
# by time stamp (each in file order; at one stamp the original first), as a mirror port
# whose copies lag the originals by more than the frames' spacing: the copies interleave
# with other frames of their stream (A B A' B')
twice() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import heapq, struct, sys
src, dst, lag, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = open(src, 'rb').read()
magic = d[:4]
e = '<' if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
unit = 10**9 if magic in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d') else 10**6
lag = lag * unit // 10**9
recs, o, i = [], 24, 0
while o + 16 <= len(d):
    sec, frac, incl, orig = struct.unpack(e + 'IIII', d[o:o + 16])
    body = d[o + 16:o + 16 + incl]
    t = sec * unit + frac
    recs.append((t, 0, i, incl, orig, body))
    recs.append((t + lag, 1, i, incl, orig, body))
    o += 16 + incl
    i += 1
if mode == 'merge':
    # merged as two sequences, each in file order (a capture out of time order keeps its
    # order)
    recs = heapq.merge(recs[0::2], recs[1::2], key=lambda r: (r[0], r[1], r[2]))
out = [d[:24]]
for t, _, _, incl, orig, body in recs:
    out.append(struct.pack(e + 'IIII', t // unit, t % unit, incl, orig) + body)
open(dst, 'wb').write(b''.join(out))
PY
}

# double IN OUT LAG_US: every record of the pcap IN twice in a row, the copy LAG_US later
double() {
	twice "$1" "$2" $(($3 * 1000)) row
}

# mirror IN OUT LAG_NS: every record twice, the copies LAG_NS later and interleaved (twice)
mirror() {
	twice "$1" "$2" "$3" merge
}

# gen NAME ROCE_GEN_ARGS...: $tmp/NAME.pcap made by roce-gen ($rg), its path added to $caps
# (a failure reported with bad)
gen() {
	local n=$1
	shift
	if "$rg" "$@" -w "$tmp/$n.pcap" -q 2> "$tmp/$n.err"; then
		caps="$caps $tmp/$n.pcap"
	else
		bad "roce-gen $n: $(head -3 "$tmp/$n.err")"
	fi
}

# same SINGLE.json DOUBLE.json NFRAMES [cnp]: the documents agree but for the frame counts,
# the last time stamps and capture_copies (NFRAMES).  With "cnp": a CNP's copy may read as
# a CNP (a frame of its peer came between, which the notification point may answer:
# docs/json.md), k of them: k more CNPs (their counts, anomalies and timing) and k
# fewer copies, nothing else.  A dropped frame (bad ICRC, untrusted findings) is no copy
# (docs/json.md: counted each time), d of them (icrc_bad plus the untrusted findings but
# bad_icrc: one finding a frame, as roce-gen's damage makes): d fewer copies, and what the
# mirror counts twice, exactly twice (icrc_bad, malformed, findings, the icrc and
# malformed anomalies, each twice, and their anomaly_counts; anomalies_total d more), and
# ecn_capable and ecn_ce d more at most (a damaged frame's ECN field counts each time; the
# JSON does not say which damaged frames were ECN-capable), so ecn_ce_ratio unchecked.
same() {
	python3 - "$1" "$2" "$3" "${4:-}" <<'PY'
import json, sys
a, b, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
cnp = sys.argv[4] == "cnp"
FRAMEISH = {"frames", "bytes", "payload_bytes", "roce_frames", "rocev1_frames",
            "rocev2_frames", "icrc_ok", "icrc_unverified", "name", "frame", "ref_frame",
            "first_frame", "ack_frame", "nak_frame", "detail"}
# (a mirror's copies end the capture later: the last time stamps and the rates over it)
LATER = {"last_ts", "last_ts_ns", "latest_ts", "duration_s", "end"}
CNPISH = {"cnps", "cnp_min_gap_us", "anomalies_total"} if cnp else set()
# (counted each time a dropped frame comes: twice on the mirror)
TWICE = {"icrc_bad", "malformed"}
DAMAGED = {"icrc", "malformed"}
UNTRUSTED = ("truncated", "bad_length", "unknown_opcode", "bad_tver", "bad_ip_checksum",
             "ip_fragment")
s1 = a["summary"]
d = s1["icrc_bad"] + sum(s1["findings"][f] for f in UNTRUSTED)
bad = []
def dmg_of(row):
    return row.get("icrc_bad", 0) + row.get("malformed", 0)
def walk(x, y, path, key, row=None):
    if key in FRAMEISH or path.startswith(".summary.opcodes"):
        return
    if isinstance(x, dict) and "icrc_bad" in x:
        row = x
    if key in TWICE or path.startswith(".summary.findings.") or \
            path in (".summary.anomaly_counts.icrc", ".summary.anomaly_counts.malformed"):
        if y != 2 * x:
            bad.append("%s: %r vs %r, expected twice" % (path, x, y))
        return
    if key in ("ecn_capable", "ecn_ce") and row is not None:
        if not 0 <= y - x <= dmg_of(row):
            bad.append("%s: %r vs %r, %d damaged" % (path, x, y, dmg_of(row)))
        return
    if key == "ecn_ce_ratio" and row is not None and dmg_of(row):
        return      # (ecn_ce over ecn_capable: those two checked above)
    if key == "anomalies_total" and not cnp:
        dn = sum(1 for e in a["anomalies"] if e.get("type") in DAMAGED)
        if y != x + dn:
            bad.append("%s: %r vs %r, %d damaged" % (path, x, y, dn))
        return
    if key in LATER or (key or "").endswith("_per_s") or key in CNPISH:
        return
    if cnp and path.endswith(".anomaly_counts.cnp"):
        return
    if key == "capture_copies":
        if x != 0:
            bad.append("%s single %s" % (path, x))
        return
    if cnp and key == "anomalies":
        x = [e for e in x if e.get("type") != "cnp"]
        y = [e for e in y if e.get("type") != "cnp"]
    if key == "anomalies":
        def ids(l):
            return sorted(json.dumps({k: v for k, v in e.items() if k not in ("frame", "ts")},
                                     sort_keys=True) for e in l if e.get("type") in DAMAGED)
        if ids(y) != sorted(ids(x) * 2):
            bad.append("%s: the damaged frames' anomalies are not each twice" % path)
        x = [e for e in x if e.get("type") not in DAMAGED]
        y = [e for e in y if e.get("type") not in DAMAGED]
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                bad.append(path + "." + k + " in one only")
            else:
                walk(x[k], y[k], path + "." + k, k, row)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (p, q) in enumerate(zip(x, y)):
            walk(p, q, "%s[%d]" % (path, i), None, row)
    elif x != y:
        bad.append("%s: %r vs %r" % (path, x, y))
walk(a, b, "", None)
s2 = b["summary"]
k = s2["cnps"] - s1["cnps"]
if k < 0 or (k and not cnp):
    bad.append("cnps %d, expected %d" % (s2["cnps"], s1["cnps"]))
if s2["capture_copies"] != n - k - d:
    bad.append("capture_copies %d, expected %d" % (s2["capture_copies"], n - k - d))
if s2["frames"] != 2 * s1["frames"]:
    bad.append("frames %d, expected %d" % (s2["frames"], 2 * s1["frames"]))
if sum(q["capture_copies"] for q in b["qps"]) != n - k - d:
    bad.append("qps capture_copies do not add up to %d" % (n - k - d))
for m in bad[:10]:
    print(m[:300])
sys.exit(1 if bad else 0)
PY
}
