# SPDX-License-Identifier: GPL-2.0-or-later
"""pcapng_blocks.py - pcapng block builder shared by the capture test scripts (capcorpus.py,
ngbuild.py, analyze_pfc_ifaces*.sh): blocks of either byte order, with lengths and paddings
that may lie; and pfc_frame(), an 802.1Qbb PFC frame for one priority."""
import struct


class NG:
    def __init__(self, be=False):
        self.e = ">" if be else "<"

    def blk(self, t, body, tlen=None, blen=None, pad=True):
        if pad:
            body += b"\0" * (-len(body) % 4)
        n = 12 + len(body) if blen is None else blen
        return struct.pack(self.e + "II", t, n) + body + \
            struct.pack(self.e + "I", n if tlen is None else tlen)

    def opt(self, code, data):
        return struct.pack(self.e + "HH", code, len(data)) + data + b"\0" * (-len(data) % 4)

    def shb(self, ver=(1, 0), opts=b"", comment=None):
        if comment:
            opts += self.opt(1, comment) + self.opt(0, b"")
        return self.blk(0x0a0d0d0a, struct.pack(self.e + "IHHq", 0x1a2b3c4d, ver[0], ver[1], -1)
                        + opts)

    def idb(self, lt=1, snap=0, tsresol=None, tsoffset=None, opts=b""):
        o = opts
        if tsresol is not None:
            o += self.opt(9, bytes([tsresol]))
        if tsoffset is not None:
            o += self.opt(14, struct.pack(self.e + "q", tsoffset))
        if o:
            o += self.opt(0, b"")
        return self.blk(1, struct.pack(self.e + "HHI", lt, 0, snap) + o)

    def epb(self, ifid, ticks, f, wl=None, opts=b""):
        return self.blk(6, struct.pack(self.e + "IIIII", ifid, ticks >> 32, ticks & 0xffffffff,
                                       len(f), len(f) if wl is None else wl) + f +
                        b"\0" * (-len(f) % 4) + opts)

    def opb(self, ifid, ticks, f, wl=None):
        return self.blk(2, struct.pack(self.e + "HHIIII", ifid, 0, ticks >> 32,
                                       ticks & 0xffffffff, len(f), len(f) if wl is None else wl)
                        + f)

    def spb(self, f, wl=None):
        return self.blk(3, struct.pack(self.e + "I", len(f) if wl is None else wl) + f)


def pfc_frame(mac, prio, q):
    """A PFC frame (MAC control 0x8808, opcode 0x0101) from mac pausing priority prio for
    q quanta, padded to 60 bytes."""
    quanta = [0] * 8
    quanta[prio] = q
    f = bytes.fromhex("0180c2000001") + mac + struct.pack(">HHH", 0x8808, 0x0101, 1 << prio)
    f += struct.pack(">8H", *quanta)
    return f + b"\0" * (60 - len(f))
