#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks for roce-analyze --extract (used by analyze_extract.sh).

  extract_check.py frames SOURCE EXTRACT
      every record of EXTRACT carries a comment "frame N of NAME"; its bytes,
      lengths and timestamp equal frame N of SOURCE.  Prints the kept frame numbers.
  extract_check.py plain EXTRACT     the file is classic pcap (no comments possible)
"""
import struct
import sys


def records(path):
    """Yield (frame_no, ts_ns, caplen, wirelen, data, comment) from pcap or pcapng."""
    b = open(path, "rb").read()
    magic = struct.unpack_from("<I", b, 0)[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        mul = 1000 if magic == 0xA1B2C3D4 else 1
        off, no = 24, 0
        while off + 16 <= len(b):
            sec, sub, cap, wire = struct.unpack_from("<IIII", b, off)
            no += 1
            yield no, sec * 1000000000 + sub * mul, cap, wire, b[off + 16:off + 16 + cap], None
            off += 16 + cap
        return
    if magic != 0x0A0D0D0A:
        raise SystemExit("%s: not a little-endian pcap/pcapng" % path)
    off, no, tsres = 0, 0, []
    while off + 12 <= len(b):
        btype, blen = struct.unpack_from("<II", b, off)
        body = b[off + 8:off + blen - 4]
        if btype == 1:
            res = 1000  # default microseconds
            o = 8
            while o + 4 <= len(body):
                code, ln = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                if code == 9:
                    v = body[o + 4]
                    res = 10 ** 9 // (10 ** v) if not v & 0x80 else None
                o += 4 + ln + ((4 - ln % 4) % 4)
            tsres.append(res)
        elif btype == 6:
            ifid, hi, lo, cap, wire = struct.unpack_from("<IIIII", body, 0)
            data = body[20:20 + cap]
            o = 20 + cap + ((4 - cap % 4) % 4)
            comment = None
            while o + 4 <= len(body):
                code, ln = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                if code == 1:
                    comment = body[o + 4:o + 4 + ln].decode("utf-8", "replace")
                o += 4 + ln + ((4 - ln % 4) % 4)
            no += 1
            yield no, ((hi << 32) | lo) * tsres[ifid], cap, wire, data, comment
        off += blen


def main():
    if sys.argv[1] == "plain":
        magic = struct.unpack_from("<I", open(sys.argv[2], "rb").read(4))[0]
        return 0 if magic in (0xA1B2C3D4, 0xA1B23C4D) else 1
    src = {r[0]: r for r in records(sys.argv[2])}
    bad = 0
    kept = []
    for no, ts, cap, wire, data, comment in records(sys.argv[3]):
        if not comment or not comment.startswith("frame ") or " of " not in comment:
            print("record %d: no 'frame N of FILE' comment (%r)" % (no, comment), file=sys.stderr)
            bad += 1
            continue
        n = int(comment.split()[1])
        s = src.get(n)
        if s is None or (s[1], s[2], s[3], s[4]) != (ts, cap, wire, data):
            print("record %d: differs from source frame %d" % (no, n), file=sys.stderr)
            bad += 1
        kept.append(n)
    if kept != sorted(set(kept)):
        print("kept frames not in source order or repeated", file=sys.stderr)
        bad += 1
    print(" ".join(str(k) for k in kept))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
