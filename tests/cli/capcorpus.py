#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""capcorpus.py - capture files in the formats and variants Wireshark 4.0 reads (and some it
rejects), built from roce-gen captures, for analyze_capture_tshark.sh.

usage: capcorpus.py [--compressed] OUTDIR G4.pcap G6.pcap
       capcorpus.py --pcapng IN.pcap OUT.pcapng

G4: RoCE v2 over IPv4 frames, G6: RoCE v2 over IPv6 frames (roce-gen, nanosecond pcap).
Writes OUTDIR/<name> for every variant and prints one line per file: "<name> <kind>", kind
"ok" (tshark reads it all) or "bad" (tshark stops with an error; the harness compares the
frames before it and the error).  Every byte is written here: no file comes from the
repository.

--compressed: the zstd and lz4 variants instead (made with the zstd and lz4 tools, for
analyze_capture_compressed.sh), one line each "<name> <kind> <ref>": ref is the plain capture
that holds exactly the bytes that decompress before the damage ("-": none), whose frames
tshark reads are the frames expected (tshark itself may stop earlier on a damaged file: a
decompressor call that fails hands out none of its bytes).

--pcapng: IN.pcap (classic, little-endian) as OUT.pcapng, one EPB per record, for the prefix
runs of analyze_capture_tshark.sh and analyze_capture_compressed.sh; prints the offsets where
IN's header and each of its records end, then the same for OUT.
"""
import gzip
import struct
import subprocess
import sys

from pcapng_blocks import NG


def read_pcap(path):
    d = open(path, "rb").read()
    nsec = struct.unpack_from("<I", d, 0)[0] == 0xa1b23c4d
    recs, o = [], 24
    while o + 16 <= len(d):
        s, sub, cl, wl = struct.unpack_from("<IIII", d, o)
        recs.append((s * 10**9 + (sub if nsec else sub * 1000), d[o + 16:o + 16 + cl], wl))
        o += 16 + cl
    return recs


def pcapng_of(path):
    """The little-endian classic pcap at path as pcapng (a section, one Ethernet interface
    with nanosecond timestamps, an Enhanced Packet Block per record), with the offsets where
    each file's header ends and each of its records ends: (pcapng, pcap_ends, pcapng_ends)."""
    d = open(path, "rb").read()
    a = NG()
    ng = a.shb() + a.idb(tsresol=9)
    pcap_ends, ng_ends, o = [24], [len(ng)], 24
    for ts, f, wl in read_pcap(path):
        ng += a.epb(0, ts, f, wl)
        o += 16 + len(f)
        pcap_ends.append(o)
        ng_ends.append(len(ng))
    assert o == len(d), "%s: trailing bytes" % path
    return ng, pcap_ends, ng_ends


if sys.argv[1] == "--pcapng":
    # capcorpus.py --pcapng IN.pcap OUT.pcapng: write OUT, print the record ends of IN on one
    # line and those of OUT on the next (each list starting with where the header ends)
    ng, pe, ne = pcapng_of(sys.argv[2])
    open(sys.argv[3], "wb").write(ng)
    print(" ".join(map(str, pe)))
    print(" ".join(map(str, ne)))
    sys.exit(0)

compressed = sys.argv[1] == "--compressed"
if compressed:
    del sys.argv[1]
out, g4, g6 = sys.argv[1], sys.argv[2], sys.argv[3]


R4 = read_pcap(g4)[:40]
R6 = read_pcap(g6)[:40]
# microsecond timestamps (so that usec and nsec files hold the same times)
R4 = [(ts - ts % 1000, f, wl) for ts, f, wl in R4]
R6 = [(ts - ts % 1000, f, wl) for ts, f, wl in R6]
files = []


def save(name, data, kind="ok"):
    open("%s/%s" % (out, name), "wb").write(data)
    files.append((name, kind))


# ---- classic pcap -------------------------------------------------------------------------

def pcap(recs, magic=0xa1b2c3d4, be=False, ver=(2, 4), snap=65535, lt=1, extra=b"",
         hdr_extra=0, swap_lens=False, fhdr_extra=b"", ns_ts=False):
    e = ">" if be else "<"
    ns = magic in (0xa1b23c4d,) or ns_ts
    b = struct.pack(e + "IHHiIII", magic, ver[0], ver[1], 0, 0, snap, lt) + fhdr_extra
    for ts, f, wl in recs:
        sub = ts % 10**9 if ns else ts % 10**9 // 1000
        cl = len(f)
        a, c = (wl, cl) if swap_lens else (cl, wl)
        # modified headers: ifindex, protocol, pkt_type, pad (ss990915: cpu, 3 pad); Nokia: 4
        ext = (struct.pack(e + "IHBB", 3, 0x0800, 0, 0) + b"\0" * 4)[:hdr_extra]
        b += struct.pack(e + "IIII", ts // 10**9, sub, a, c) + ext + f
    return b + extra


for be in (False, True):
    t = "be" if be else "le"
    save("us-%s.pcap" % t, pcap(R4, be=be))
    save("ns-%s.pcap" % t, pcap(R4, magic=0xa1b23c4d, be=be))
    # Kuznetzov's modified pcap: ss991029 (24-byte record headers), ss990915 (28)
    save("mod-ss991029-%s.pcap" % t, pcap(R4, magic=0xa1b2cd34, be=be, hdr_extra=8))
    save("mod-ss990915-%s.pcap" % t, pcap(R4, magic=0xa1b2cd34, be=be, hdr_extra=12))
    # standard magic with 24-byte (ss990417) and 20-byte (Nokia) record headers
    save("std-ss990417-%s.pcap" % t, pcap(R4, be=be, hdr_extra=8))
    save("std-nokia-%s.pcap" % t, pcap(R4, be=be, hdr_extra=4))
    # Ixia lcap: 4 more header bytes (the records' size)
    save("ixia-hw-%s.pcap" % t, pcap(R4, magic=0x1c0001ac, be=be, fhdr_extra=b"\0\0\0\0"))
    save("ixia-sw-%s.pcap" % t, pcap(R4, magic=0x1c0001ab, be=be, fhdr_extra=b"\0\0\0\0"))
save("snap0.pcap", pcap(R4, snap=0))
save("snap0-ns.pcap", pcap(R4, magic=0xa1b23c4d, snap=0))
save("snap100.pcap", pcap(R4, snap=100))
save("snap100-ns.pcap", pcap(R4, magic=0xa1b23c4d, snap=100))
save("snap-first.pcap", pcap(R4, snap=len(R4[0][1])))
r = list(R4)
r[0] = (r[0][0], r[0][1], len(r[0][1]) - 10)     # caplen > len
save("caplen-gt-len.pcap", pcap(r))
save("caplen-gt-len-ns.pcap", pcap(r, magic=0xa1b23c4d))
RW = [(ts, f, wl + 4 * (i % 3)) for i, (ts, f, wl) in enumerate(R4)]   # caplen < len
save("v22.pcap", pcap(RW, ver=(2, 2), swap_lens=True))
save("v23-swapped.pcap", pcap(RW, ver=(2, 3), swap_lens=True))
save("v23.pcap", pcap(RW, ver=(2, 3)))
save("v543.pcap", pcap(RW, ver=(543, 0), swap_lens=True))
save("v3.pcap", pcap(R4, ver=(3, 0)))
save("v1.pcap", pcap(R4, ver=(1, 0)), "bad")
# AIX: standard magic, version 2.2, ifType 6 (Ethernet), nanosecond timestamps
save("aix.pcap", pcap([(ts + 123, f, wl) for ts, f, wl in R4], magic=0xa1b2c3d4, ver=(2, 2),
                      lt=6, swap_lens=True, ns_ts=True))
save("fcs-bits.pcap", pcap([(ts, f + b"\0\0\0\0", wl + 4) for ts, f, wl in R4],
                           lt=1 | 0x04000000 | (2 << 28)))
save("reserved-bits.pcap", pcap(R4, lt=1 | 0x00010000), "bad")
big = [(R4[0][0], R4[0][1] + b"\0" * 300000, 400000)]
save("rec-300k.pcap", pcap(R4[:3] + big + R4[3:]), "bad")
save("rec-300k-ns.pcap", pcap(R4[:3] + big + R4[3:], magic=0xa1b23c4d), "bad")
hdr = pcap(R4[:5], magic=0xa1b23c4d)
save("rec-4g.pcap", hdr + struct.pack("<IIII", 1, 0, 0xffffffff, 0xffffffff) + b"x" * 64, "bad")
save("rec-trunc.pcap", pcap(R4, magic=0xa1b23c4d)[:-7], "bad")
save("empty.pcap", b"")
save("hdr-only.pcap", pcap([], magic=0xa1b23c4d))


# ---- link types ------------------------------------------------------------------------------

def eth_to(f, lt):
    et = f[12:14]
    ip = f[14:]
    if lt == 113:
        return struct.pack(">HHH", 0, 1, 6) + f[6:12] + b"\0\0" + et + ip
    if lt == 276:
        return et + b"\0\0" + struct.pack(">IHBB", 2, 1, 0, 6) + f[6:12] + b"\0\0" + ip
    if lt in (101, 228, 229, 12, 14):
        return ip
    raise ValueError(lt)


def vlan(f, tags):
    t = b"".join(struct.pack(">HH", tpid, vid) for tpid, vid in tags)
    return f[:12] + t + f[12:]


for lt in (113, 276, 101, 228):
    save("lt%d.pcap" % lt, pcap([(ts, eth_to(f, lt), wl - 14 + len(eth_to(f, lt)) - len(f) + 14)
                                 for ts, f, wl in R4], magic=0xa1b23c4d, lt=lt))
for lt in (101, 229, 113, 276):
    save("lt%d-v6.pcap" % lt, pcap([(ts, eth_to(f, lt), len(eth_to(f, lt)) + wl - len(f))
                                    for ts, f, wl in R6], magic=0xa1b23c4d, lt=lt))
save("vlan.pcap", pcap([(ts, vlan(f, [(0x8100, 5)]), wl + 4) for ts, f, wl in R4]))
save("qinq.pcap", pcap([(ts, vlan(f, [(0x88a8, 7), (0x8100, 5)]), wl + 8) for ts, f, wl in R4]))
save("qinq-9100.pcap", pcap([(ts, vlan(f, [(0x9100, 7), (0x8100, 5)]), wl + 8)
                             for ts, f, wl in R4]))


# ---- pcapng ----------------------------------------------------------------------------------

def ticks(ts, res):
    if res is None or res == 6:
        return ts // 1000
    if res & 0x80:
        return (ts << (res & 0x7f)) // 10**9
    return ts * 10**res // 10**9 if res >= 9 else ts // 10**(9 - res)


for be in (False, True):
    t = "be" if be else "le"
    n = NG(be)
    for res, rn in ((None, "def"), (3, "ms"), (9, "ns"), (0x80 | 20, "b20"), (0x80 | 30, "b30"),
                    (10, "e10")):
        b = n.shb() + n.idb(tsresol=res)
        for ts, f, wl in R4:
            b += n.epb(0, ticks(ts, res), f, wl)
        save("ng-%s-%s.pcapng" % (rn, t), b)

# several sections, different byte orders, interfaces of different link types
a, z = NG(False), NG(True)
b = a.shb() + a.idb(tsresol=9) + a.idb(113, tsresol=6)
for i, (ts, f, wl) in enumerate(R4[:20]):
    b += a.epb(0, ts, f, wl) if i % 2 else a.epb(1, ts // 1000, eth_to(f, 113), wl + 2)
b += z.shb() + z.idb(276, tsresol=9) + z.idb(1, tsresol=3, tsoffset=100)
for i, (ts, f, wl) in enumerate(R4[20:]):
    b += z.epb(0, ts, eth_to(f, 276), wl + 6) if i % 2 else z.epb(1, ts // 10**6, f, wl)
b += a.shb() + a.idb(101, tsresol=9)
for ts, f, wl in R6[:10]:
    b += a.epb(0, ts, eth_to(f, 101), wl - 14)
save("ng-sections.pcapng", b)

# obsolete Packet Block, Simple Packet Blocks (snaplen from the IDB), other blocks between
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    if i % 5 == 1:
        b += a.blk(4, struct.pack("<HH", 1, 8) + bytes([10, 0, 0, 1]) + b"abc\0" +
                   struct.pack("<HH", 0, 0))                                  # NRB
    if i % 5 == 2:
        b += a.blk(5, struct.pack("<III", 0, ts >> 32, ts & 0xffffffff) +
                   a.opt(4, struct.pack("<Q", 7)) + a.opt(0, b""))         # ISB
    if i % 5 == 3:
        b += a.blk(10, struct.pack("<II", 0x544c534b, 5) + b"hello\0\0\0")   # DSB
    b += a.opb(0, ts, f, wl) if i % 2 else a.epb(0, ts, f, wl, a.opt(2, struct.pack("<I", 1)) +
                                                 a.opt(1, b"c") + a.opt(0, b""))
save("ng-opb-blocks.pcapng", b)
b = a.shb() + a.idb(snap=100, tsresol=9)
for ts, f, wl in R4:
    b += a.spb(f[:100], len(f))
save("ng-spb-snap.pcapng", b)
b = a.shb() + a.idb(snap=0, tsresol=9)
for ts, f, wl in R4:
    b += a.spb(f)
save("ng-spb.pcapng", b)
b = a.shb() + a.idb(snap=100, tsresol=9)
for ts, f, wl in R4:
    b += a.spb(f, len(f))       # the whole frame although the snapshot length is 100
save("ng-spb-long.pcapng", b, "bad")
# unknown link type on a second interface (frames shown undissected by tshark)
b = a.shb() + a.idb(tsresol=9) + a.idb(4000, tsresol=9) + a.idb(147, tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    b += a.epb(i % 3, ts, f, wl)
save("ng-unknown-lt.pcapng", b)
# block length not a multiple of 4 (Wireshark rounds up)
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    e = a.epb(0, ts, f, wl)
    if i == 3 and len(f) % 4:
        n_ = 28 + len(f) + 4
        e = e[:4] + struct.pack("<I", n_) + e[8:-4] + struct.pack("<I", n_)
    b += e
save("ng-len-not4.pcapng", b)
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    e = a.epb(0, ts, f, wl)
    if i == 5:
        e = e[:-4] + struct.pack("<I", len(e) + 4)
    b += e
save("ng-trailer.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    e = a.epb(0, ts, f, wl)
    if i == 5:
        e = e[:-4] + struct.pack("<I", len(e) + 2)      # rounds to the length + 4
    b += e
save("ng-trailer-round.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    b += a.epb(0, ts, f, wl, a.opt(2, b"\1\0\0") + a.opt(0, b"") if i == 6 else b"")
save("ng-epb-badflags.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    b += a.epb(0, ts, f, wl, struct.pack("<HH", 1, 200) if i == 6 else b"")
save("ng-epb-optoverrun.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9, opts=a.opt(9, bytes([3])))
for ts, f, wl in R4:
    b += a.epb(0, ts // 10**6, f, wl)
save("ng-tsresol-twice.pcapng", b)
b = a.shb(ver=(1, 2)) + a.idb(tsresol=9)
for ts, f, wl in R4:
    b += a.epb(0, ts, f, wl)
save("ng-v12.pcapng", b)
b = a.shb(ver=(1, 1)) + a.idb(tsresol=9)
for ts, f, wl in R4:
    b += a.epb(0, ts, f, wl)
save("ng-v11.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    if i == 4:
        b += struct.pack("<III", 0x12345678, 12, 12)   # unknown block, no body
        b += struct.pack("<II", 0x40000BAD, 0)[:0]
    b += a.epb(0, ts, f, wl)
save("ng-unknown-block.pcapng", b)
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    if i == 4:
        b += struct.pack("<II", 0x12345678, 0) + b"\0" * 8
    b += a.epb(0, ts, f, wl)
save("ng-zero-len.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    if i == 4:
        b += struct.pack("<II", 5, 0xfffffff0) + b"\0" * 64
    b += a.epb(0, ts, f, wl)
save("ng-huge-len.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    e = a.epb(0, ts, f, wl)
    if i == 4:
        e = e[:20] + struct.pack("<I", 0xffffff00) + e[24:]
    b += e
save("ng-4g-caplen.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    b += a.epb(0, ts, f + (b"\0" * 300000 if i == 4 else b""), wl + (300000 if i == 4 else 0))
save("ng-rec-300k.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for i, (ts, f, wl) in enumerate(R4):
    b += a.epb(1 if i == 4 else 0, ts, f, wl)
save("ng-bad-ifid.pcapng", b, "bad")
b = a.shb() + a.idb(tsresol=9)
for ts, f, wl in R4:
    b += a.epb(0, ts, f, wl)
save("ng-trunc.pcapng", b[:-9], "bad")

# ---- compression -----------------------------------------------------------------------------
save("us-le.pcap.gz", gzip.compress(pcap(R4)))
save("ng-ns-le.pcapng.gz", gzip.compress(open("%s/ng-ns-le.pcapng" % out, "rb").read()))
save("mod-ss991029-le.pcap.gz", gzip.compress(open("%s/mod-ss991029-le.pcap" % out, "rb").read()))
save("std-nokia-le.pcap.gz", gzip.compress(open("%s/std-nokia-le.pcap" % out, "rb").read()))



# ---- zstd and lz4 (--compressed) -------------------------------------------------------------

def zc(tool, data, opts=(), stdin=False):
    """data compressed by the zstd or lz4 tool into one frame (from a file: sizes known)."""
    tmp = "%s/.piece" % out
    open(tmp, "wb").write(data)
    cmd = [tool, "-q", "-c"] + list(opts) + ([] if stdin else [tmp])
    return subprocess.run(cmd, stdin=open(tmp, "rb") if stdin else None,
                          stdout=subprocess.PIPE, check=True).stdout


def skippable(n, payload):
    return struct.pack("<II", 0x184D2A50 + n, len(payload)) + payload


def block_at(tool, frame):
    """Offset of the first block header of a zstd or lz4 frame (after the frame header)."""
    d = frame[4]
    if tool == "zstd":
        single, dict_id, fcs = d >> 5 & 1, d & 3, d >> 6
        return 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_id] + ((1 if single else 0), 2, 4,
                                                                    8)[fcs]
    return 4 + 2 + (8 if d & 8 else 0) + (4 if d & 1 else 0) + 1


def zvariants(tool, base, plain, full, few=False):
    """The variants of one plain capture; full: the options and the rarer damages too; few:
    only the whole capture and a cut."""
    ext = {"zstd": "zst", "lz4": "lz4"}[tool]
    cut = (len(plain) // 3, 2 * len(plain) // 3)     # in the middle of records
    pieces = [plain[:cut[0]], plain[cut[0]:cut[1]], plain[cut[1]:]]
    f = [zc(tool, p) for p in pieces]
    refs = {}

    def ref(k):
        """the plain bytes of the first k pieces, as a file"""
        if k not in refs:
            stem, dot, suffix = base.rpartition(".")
            refs[k] = "ref-%s-%d.%s" % (stem, k, suffix)
            open("%s/%s" % (out, refs[k]), "wb").write(b"".join(pieces[:k]))
        return refs[k]

    def zsave(name, data, kind, r):
        open("%s/%s" % (out, name), "wb").write(data)
        zfiles.append((name, kind, r))

    n = "%s.%s" % (base, ext)
    zsave(n, zc(tool, plain), "ok", ref(3))
    # cut in the middle of frame 2: what frame 1 holds, then an error
    zsave("%s-cut2.%s" % (base, ext), f[0] + f[1][:len(f[1]) // 2], "bad", ref(1))
    if few:
        return
    if full:
        zsave("%s-3f.%s" % (base, ext), b"".join(f), "ok", ref(3))
    zsave("%s-skip.%s" % (base, ext), f[0] + skippable(3, b"roce") + f[1] + skippable(15, b"") +
          f[2] + skippable(0, b"x" * 100), "ok", ref(3))
    # frame 2's first block header made invalid (zstd: reserved block type; lz4: a block
    # larger than the frame's block size)
    b = bytearray(f[1])
    o = block_at(tool, b)
    if tool == "zstd":
        b[o] |= 6
    else:
        b[o + 3] = 0x7f
    zsave("%s-bad2.%s" % (base, ext), f[0] + bytes(b) + f[2], "bad", ref(1))
    # frame 2's content checksum (zstd's and lz4's last 4 bytes) wrong: frames 1 and 2 come
    # out (checked at the end of the frame, as a gzip trailer), then the error
    b = bytearray(f[1])
    b[-1] ^= 0x40
    zsave("%s-sum2.%s" % (base, ext), f[0] + bytes(b) + f[2], "bad", ref(2))
    if not full:
        return
    # cut in frame 2's magic: tshark 4.0 then hands out one frame more, of stale bytes (the
    # end of its output buffer again), before its error: only its error is compared
    zsave("%s-cut2m.%s" % (base, ext), f[0] + f[1][:3], "bad-stale", ref(1))
    # cut before frame 2's checksum: its block came out
    zsave("%s-cut2s.%s" % (base, ext), f[0] + f[1][:-4], "bad", ref(2))
    # cut after frame 2: a clean end of the compressed data, in the middle of a record
    zsave("%s-cut2e.%s" % (base, ext), f[0] + f[1], "bad", ref(2))
    # bytes after the last frame that are not a frame (tshark: an error too)
    zsave("%s-trail.%s" % (base, ext), b"".join(f) + b"not a frame", "bad", ref(3))
    if tool == "zstd":
        zsave("%s-nocheck.%s" % (base, ext), zc(tool, plain, ["--no-check"]), "ok", ref(3))
        zsave("%s-19.%s" % (base, ext), zc(tool, plain, ["-19"]), "ok", ref(3))
        # from a pipe (no content size): a window descriptor, here made to claim 2 GiB
        b = bytearray(zc(tool, plain, stdin=True))
        assert b[4] & 0x20 == 0
        b[5] = 21 << 3
        zsave("%s-win2g.%s" % (base, ext), bytes(b), "bad", "-")
        zsave("%s-pipe.%s" % (base, ext), zc(tool, plain, stdin=True), "ok", ref(3))
    else:
        zsave("%s-nocrc.%s" % (base, ext), zc(tool, plain, ["--no-frame-crc"]), "ok", ref(3))
        fx = [zc(tool, p, ["-BX", "--content-size"]) for p in pieces]
        zsave("%s-bx.%s" % (base, ext), b"".join(fx), "ok", ref(3))
        zsave("%s-bd9.%s" % (base, ext), zc(tool, plain, ["-BD", "-9", "-B4"]), "ok", ref(3))
        # a byte of frame 2's block changed: its block checksum says so
        b = bytearray(fx[1])
        b[block_at(tool, b) + 4 + 10] ^= 0x55
        zsave("%s-bx-bad2.%s" % (base, ext), fx[0] + bytes(b) + fx[2], "bad", ref(1))
        zsave("%s-legacy.%s" % (base, ext), zc(tool, plain, ["-l"]), "bad", "-")
    zsave("empty.pcap.%s" % ext, zc(tool, b""), "ok", "-")


zfiles = []
if compressed:
    files = []
    for tool in ("zstd", "lz4"):
        zvariants(tool, "us-le.pcap", open("%s/us-le.pcap" % out, "rb").read(), True)
        zvariants(tool, "ns-be.pcap", open("%s/ns-be.pcap" % out, "rb").read(), False, True)
        zvariants(tool, "ng-sections.pcapng", open("%s/ng-sections.pcapng" % out, "rb").read(),
                  False)

for name, kind in files:
    print(name, kind)
for name, kind, r in zfiles:
    print(name, kind, r)
