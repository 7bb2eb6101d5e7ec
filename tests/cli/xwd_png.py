#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""xwd_png.py - an X screen dump (XWD, as Xvfb -fbdir keeps it) to PNG, standard library only.

  xwd_png.py SCREEN.xwd OUT.png [X Y W H]
Writes OUT.png (the whole screen) and prints the number of distinct colours inside the
rectangle X,Y,W,H (the whole screen without one): a window that drew nothing has one or two.
Handles the 24/32-bit TrueColor ZPixmap dumps Xvfb writes.  Exit 1 on another format.
"""
import struct
import sys
import zlib


def main(argv):
    d = open(argv[1], "rb").read()
    h = struct.unpack(">25I", d[:100])
    hsize, version, fmt, depth, w, hgt = h[:6]
    byte_order, bpp, bpl, ncolors = h[7], h[11], h[12], h[19]
    if version != 7 or fmt != 2 or bpp != 32 or depth not in (24, 32):
        print("unsupported XWD: version %d format %d depth %d bpp %d" % (version, fmt, depth, bpp))
        return 1
    off = hsize + ncolors * 12
    # LSBFirst: B G R X in memory; MSBFirst: X R G B
    ri, gi, bi = (2, 1, 0) if byte_order == 0 else (1, 2, 3)
    x0, y0, rw, rh = (int(v) for v in argv[3:7]) if len(argv) > 6 else (0, 0, w, hgt)
    rows, colours = [], set()
    for y in range(hgt):
        line = d[off + y * bpl:off + y * bpl + w * 4]
        px = bytearray(w * 3)
        px[0::3], px[1::3], px[2::3] = line[ri::4], line[gi::4], line[bi::4]
        rows.append(b"\0" + bytes(px))
        if y0 <= y < y0 + rh:
            seg = bytes(px[max(x0, 0) * 3:min(x0 + rw, w) * 3])
            colours.update(seg[i:i + 3] for i in range(0, len(seg), 3))

    def chunk(t, b):
        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))

    with open(argv[2], "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, hgt, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))
    print(len(colours))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
