#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# copies_lib.sh - sourced by analyze_copies.sh and plugin_capture_copy.sh (not a test):
# double(), a pcap with every record written twice in a row, as a capture that carries
# each frame twice (docs/json.md "Capture copies").

# double IN OUT LAG_US: every record of the pcap IN twice, the copy LAG_US later
double() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
src, dst, lag = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
magic = d[:4]
e = '<' if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
unit = 10**9 if magic in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d') else 10**6
lag = lag * unit // 10**6
out, o = [d[:24]], 24
while o + 16 <= len(d):
    sec, frac, incl, orig = struct.unpack(e + 'IIII', d[o:o + 16])
    rec = d[o + 16:o + 16 + incl]
    t = sec * unit + frac + lag
    out.append(d[o:o + 16] + rec)
    out.append(struct.pack(e + 'IIII', t // unit, t % unit, incl, orig) + rec)
    o += 16 + incl
open(dst, 'wb').write(b''.join(out))
PY
}
