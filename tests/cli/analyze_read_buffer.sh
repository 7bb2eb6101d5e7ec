#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_read_buffer.sh - roce-analyze's read() reader of classic pcap (capread_rbuf.c: the file
# read into one reused buffer, the ICRC verdicts of each buffer's records computed before they
# are decoded) gives exactly what the mapping gives (ROCE_CAP_READ_BUF=0: the file mapped, as
# before it): the same stdout, stderr and exit status, with buffers small enough that records
# span two buffers, are larger than the buffer, or are cut at a buffer's edge (ROCE_CAP_READ_BUF
# in bytes), on both byte orders, with capture-format warnings, a record larger than the
# default buffer, a lying captured length, truncated copies, --threads 1 and 2 (with
# ROCE_CAP_READ_MEAN=0 the read() reader whatever the frames' size), --frames and --progress,
# and a file cut while it is read (ROCE_CAP_TEST_CUT_AT_FRAME: the report of the file cut before
# that frame, as on the mapping; tests/cli/analyze_shrink_cut.sh compares it with the file cut
# with head -c).
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: roce-analyze/roce-gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

. "$(dirname "${BASH_SOURCE[0]}")/readbuf_lib.sh"   # run, same

# 2,000 WRITEs of 512 bytes and their ACKs (586 and 62 bytes), bad ICRCs and payload bits;
# 4 KiB frames (4,154 bytes: larger than the smallest buffers below)
"$rg" -w "$tmp/a.pcap" -m 2000 --msg-size 512 --seed 5 --qps 4 --verbs write,read,send \
	--bad-icrc-rate 0.01 --bad-payload-rate 0.005 -q || { echo "FAIL: roce-gen"; exit 1; }
"$rg" -w "$tmp/j.pcap" -m 300 --msg-size 16384 --pmtu 4096 --seed 6 --bad-icrc-rate 0.02 -q ||
	{ echo "FAIL: roce-gen"; exit 1; }
python3 - "$tmp" <<'PY'
import struct, sys
t = sys.argv[1]
d = open(t + "/a.pcap", "rb").read()
recs, o = [], 24
while o + 16 <= len(d):
    n = struct.unpack_from("<I", d, o + 8)[0]
    recs.append(d[o:o + 16 + n])
    o += 16 + n
hdr = d[:24]
# big-endian copy (nanosecond magic: the sub-second field as is)
be = struct.pack(">IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, *struct.unpack_from("<II", hdr, 16))
for r in recs:
    be += struct.pack(">IIII", *struct.unpack_from("<IIII", r, 0)) + r[16:]
open(t + "/be.pcap", "wb").write(be)
# warnings: snaplen 300 (the 586-byte records exceed it), a record with caplen above its
# original length; a 9,000-byte jumbo record, one of 262,144 bytes (the limit: larger than
# the default buffer) and one of 100,000, among the others
w = bytearray(hdr)
struct.pack_into("<I", w, 16, 300)
for i, r in enumerate(recs[:600]):
    r = bytearray(r)
    if i == 50:
        struct.pack_into("<I", r, 12, 40)
    w += r
    if i in (100, 300):
        n = 9000 if i == 100 else 262144
        w += struct.pack("<IIII", 1764374500, i, n, n) + bytes((k * 7) & 0xff for k in range(n))
    if i == 400:
        w += struct.pack("<IIII", 1764374500, i, 100000, 100000) + b"\x55" * 100000
open(t + "/w.pcap", "wb").write(bytes(w))
# a lying captured length (200,000: within the limit, beyond the file), and one above the limit
body = b"".join(recs[:300])
open(t + "/lie.pcap", "wb").write(hdr + body + struct.pack("<IIII", 1, 0, 200000, 200000) +
                                  b"".join(recs[300:400]))
open(t + "/over.pcap", "wb").write(hdr + body + struct.pack("<IIII", 1, 0, 262145, 262145) +
                                   b"".join(recs[300:400]))
PY

# ---- 1. whole files, buffers from 16 bytes to the default --------------------------------
for f in a j be w lie over; do
	for b in 16 100 1000 4096 8191 65536 ""; do
		same "$f --threads 1 --json" "$b" --threads 1 --json "$tmp/$f.pcap"
		same "$f --threads 2 --json" "$b" --threads 2 --json "$tmp/$f.pcap"
	done
	for b in 1000 4097 ""; do
		same "$f --frames --json" "$b" --threads 1 --frames --json "$tmp/$f.pcap"
		same "$f --no-icrc" "$b" --threads 1 --json --no-icrc "$tmp/$f.pcap"
	done
done

# the read() reader did verify ahead (every frame's verdict taken from the buffer's walk)
n=$(ROCE_CAP_READ_BUF=4096 ROCE_ANALYZE_THREADS_DEBUG=1 "$ra" --threads 1 -q "$tmp/a.pcap" 2>&1 |
	sed -nE 's/.*: ([0-9]+) of ([0-9]+) frames verified ahead$/\1 \2/p')
[ -n "$n" ] && [ "${n% *}" = "${n#* }" ] && ok || bad "read() reader: verdicts: '$n'"
n=$(ROCE_CAP_READ_BUF=0 ROCE_ANALYZE_THREADS_DEBUG=1 "$ra" --threads 1 -q "$tmp/a.pcap" 2>&1 |
	sed -nE 's/.*: ([0-9]+) of [0-9]+ frames verified ahead$/\1/p')
[ "$n" = 0 ] && ok || bad "mapping with --threads 1: $n verdicts taken"

# ---- 2. truncated copies: cut at and around the edges of 4,096-byte buffers ------------------
sz=$(stat -c %s "$tmp/a.pcap")
for cut in 24 30 40 4119 4120 4121 4130 4135 4136 4137 8216 8217 12300 $((sz - 1)) $((sz - 16)); do
	head -c "$cut" "$tmp/a.pcap" >"$tmp/c.pcap"
	same "a cut at $cut" 4096 --threads 1 --json "$tmp/c.pcap"
	same "a cut at $cut, frames" 4096 --threads 1 --frames --json "$tmp/c.pcap"
done
# the last record cut exactly at a buffer's edge, for every record that spans one
python3 - "$tmp/a.pcap" 4096 >"$tmp/edges" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
b, o = int(sys.argv[2]), 24
# the buffers' edges: each read is 4096 bytes after the part of a record carried over
out = []
edge = 24 + b
while o + 16 <= len(d) and len(out) < 12:
    end = o + 16 + struct.unpack_from("<I", d, o + 8)[0]
    if end >= edge:
        if end > edge:
            out.append(edge)    # the record at o spans the edge: cut the file there
        edge = edge + b         # (carried over) the next read ends b bytes on
    o = end
print(" ".join(map(str, out)))
PY
for cut in $(cat "$tmp/edges"); do
	head -c "$cut" "$tmp/a.pcap" >"$tmp/c.pcap"
	same "a cut at the buffer edge $cut" 4096 --threads 1 --json "$tmp/c.pcap"
done
[ -s "$tmp/edges" ] && ok || bad "no buffer edges found"
head -c 250000 "$tmp/w.pcap" >"$tmp/c.pcap"     # inside the 262,144-byte record
same "w cut inside the large record" "" --threads 1 --json "$tmp/c.pcap"

# ---- 3. --progress, and a file cut while it is read --------------------------------------------
same "--progress" 4096 --threads 1 --json --progress "$tmp/a.pcap"
off=$(python3 - "$tmp/a.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
o, n = 24, 0
while o + 16 <= len(d):
    n += 1
    if n in (1, 7, 700, 2345, 4000):
        print(n, o)
    o += 16 + struct.unpack_from("<I", d, o + 8)[0]
PY
)
# cut OUT BUF N: the copy cut by the hook at frame N, read with the buffer BUF (0: mapped)
cut() {
	cp "$tmp/a.pcap" "$tmp/cut.pcap"
	ROCE_CAP_READ_BUF=$2 ROCE_CAP_TEST_CUT_AT_FRAME=$3 "$ra" --threads 1 --json --frames \
		"$tmp/cut.pcap" >"$1.o" 2>"$1.e"
	echo $? >"$1.rc"
}
while read -r n o; do
	cut "$tmp/m" 0 "$n"
	for b in 4096 ""; do
		cut "$tmp/r" "$b" "$n"
		if [ "$(cat "$tmp/r.rc")" != 2 ] || ! cmp -s "$tmp/m.rc" "$tmp/r.rc"; then
			bad "cut at $n ($b): exit $(cat "$tmp/r.rc"), $(cat "$tmp/m.rc") mapped"
		elif ! cmp -s "$tmp/m.o" "$tmp/r.o"; then
			bad "cut at frame $n ($b): the report differs from the mapping's"
		elif ! cmp -s "$tmp/m.e" "$tmp/r.e" ||
		     ! grep -q "frame $n: file shrank while being read ($o bytes" "$tmp/r.e"; then
			bad "cut at frame $n ($b): $(cat "$tmp/r.e")"
		else
			ok
		fi
	done
done <<<"$off"

finish
