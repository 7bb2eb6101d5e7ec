#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ngbuild.py - pcapng files for analyze_read_buffer_ng.sh, written from roce-gen's classic
pcap (little-endian, nanosecond) records.

usage: ngbuild.py A.pcap OUTDIR

Writes into OUTDIR:
  a.pcapng      three sections (little-, big-, little-endian), interfaces defined between
                packet blocks (Ethernet with nanosecond and microsecond timestamps, one of
                link type 0 whose frames are counted, not decoded, one with a 300-byte
                snapshot length: warnings), EPBs (some with options), SPBs and OPBs, name
                resolution, statistics and custom blocks (numbered as frames) of 20 bytes to
                100,000, a block whose total length is not a multiple of 4 (a warning), a
                9,000-byte and a 262,144-byte frame (larger than the default read buffer)
  big.pcapng    a's first 300 records, then a custom block of 17 MiB (skipped, not buffered),
                then the next 300
  lie.pcapng    an EPB whose total length (200,000) runs past the file's end
  over.pcapng   an EPB of 17 MiB (over the record limit: an error)
  trail.pcapng  an EPB whose trailing length does not match
  short.pcapng  a block of total length 8
  caplen.pcapng an EPB whose captured length overruns it
and prints "N OFFSET" for every packet block of a.pcapng (N its frame number, custom blocks
counted), for the cuts.
"""
import struct
import sys

from pcapng_blocks import NG

src, out = sys.argv[1], sys.argv[2]
d = open(src, "rb").read()
recs, o = [], 24
while o + 16 <= len(d):
    s, ns, cl, wl = struct.unpack_from("<IIII", d, o)
    recs.append((s * 10**9 + ns, d[o + 16:o + 16 + cl], wl))
    o += 16 + cl


def save(name, data):
    open("%s/%s" % (out, name), "wb").write(data)


# ---- a.pcapng ------------------------------------------------------------------------------
le, be = NG(), NG(True)
a = bytearray(le.shb(comment=b"three sections") + le.idb(tsresol=9))
ends = []               # (frame number, offset of its block)
frame = 0
w = le
ifs = {0: 9}            # interface: timestamp resolution (digits)
n = len(recs)


def ticks(ts, res):
    return ts // 10 ** (9 - res)


def pkt(blk):
    global frame
    frame += 1
    ends.append((frame, len(a)))
    a.extend(blk)


for i, (ts, f, wl) in enumerate(recs):
    if i == n // 3:                             # a big-endian section
        w = be
        a.extend(w.shb() + w.idb(tsresol=9))
        ifs = {0: 9}
    elif i == 2 * n // 3:                       # a little-endian one again
        w = le
        a.extend(w.shb(comment=b"third") + w.idb(tsresol=9))
        ifs = {0: 9}
    if i % (n // 3) == 100:                     # an interface between packet blocks
        a.extend(w.idb(tsresol=6))
        ifs[len(ifs)] = 6
    if i % (n // 3) == 200:                     # link type 0: counted, not decoded
        a.extend(w.idb(lt=0))
        ifs[len(ifs)] = 6
        pkt(w.epb(len(ifs) - 1, ticks(ts, 6), b"\x02\0\0\0" + f[14:], wl - 10))
    if i % (n // 3) == 250:                     # a 300-byte snapshot length: warnings
        a.extend(w.idb(snap=300, tsresol=9))
        ifs[len(ifs)] = 9
    if i % 97 == 5:                             # other blocks, of many sizes
        a.extend(w.blk(4, w.opt(1, b"\x0a\0\0\x01host") + w.opt(0, b"")))       # NRB
        a.extend(w.blk(5, struct.pack(w.e + "III", 0, 1, 2)))                   # ISB
    if i % 211 == 7:
        frame += 1                                                              # custom
        a.extend(w.blk(0xbad, struct.pack(w.e + "I", 32473) + bytes(i % 7 * 4000 + 8)))
    if i == 333:
        a.extend(w.blk(0x40000bad, struct.pack(w.e + "I", 32473) + b"\x5a" * 100000))
        frame += 1
    if i == 444:                                # total length 30: read as 32, a warning
        a.extend(w.blk(5, bytes(18), blen=30, tlen=32))
    if i in (150, 600):                         # a jumbo frame, then one of the limit
        big = f[:14] + bytes((k * 7) & 0xff for k in range((9000 if i == 150 else 262144) - 14))
        pkt(w.epb(0, ticks(ts, 9), big, len(big)))
    ifid = i % len(ifs) if i % (n // 3) > 250 else (1 if len(ifs) > 1 and i % 2 else 0)
    if len(ifs) > 2 and ifid == 2:
        ifid = 0                                # (not on the link type 0 one)
    if i % 41 == 3:
        pkt(w.spb(f))                           # no timestamp
    elif i % 53 == 4:
        pkt(w.opb(ifid, ticks(ts, ifs[ifid]), f, wl))
    elif i % 29 == 6:
        pkt(w.epb(ifid, ticks(ts, ifs[ifid]), f, wl,
                  w.opt(2, struct.pack(w.e + "I", 1)) + w.opt(0, b"")))
    else:
        pkt(w.epb(ifid, ticks(ts, ifs[ifid]), f, wl))
save("a.pcapng", bytes(a))
for k, off in ends:
    print(k, off)

# ---- big.pcapng: a custom block of 17 MiB (skipped without buffering) ----------------------
b = bytearray(le.shb() + le.idb(tsresol=9))
for i, (ts, f, wl) in enumerate(recs[:600]):
    if i == 300:
        b.extend(le.blk(0xbad, struct.pack("<I", 32473) + bytes(17 << 20)))
    b.extend(le.epb(0, ts, f, wl))
save("big.pcapng", bytes(b))

# ---- corrupt files: a good start, the damage, good blocks after it ------------------------
head = le.shb() + le.idb(tsresol=9) + b"".join(le.epb(0, ts, f, wl) for ts, f, wl in recs[:300])
tail = b"".join(le.epb(0, ts, f, wl) for ts, f, wl in recs[300:400])
ts, f, wl = recs[300]
e = bytearray(le.epb(0, ts, f, wl))
struct.pack_into("<I", e, 4, 200000)
save("lie.pcapng", head + bytes(e) + tail)
save("over.pcapng", head + le.epb(0, ts, f + bytes((17 << 20) - len(f)), wl) + tail)
e = bytearray(le.epb(0, ts, f, wl))
struct.pack_into("<I", e, len(e) - 4, len(e) + 4)
save("trail.pcapng", head + bytes(e) + tail)
save("short.pcapng", head + struct.pack("<III", 6, 8, 8) + tail)
e = bytearray(le.epb(0, ts, f, wl))
struct.pack_into("<I", e, 20, len(f) + 100)
save("caplen.pcapng", head + bytes(e) + tail)
