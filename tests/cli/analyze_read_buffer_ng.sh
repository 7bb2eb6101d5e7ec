#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_read_buffer_ng.sh - roce-analyze's read() reader of pcapng (capread_rbuf.c: the file read
# into one reused buffer, capread_ng.c reading the blocks from it) gives exactly what the mapping
# gives (ROCE_CAP_READ_BUF=0: the file mapped, as before it): the same stdout, stderr and exit
# status with buffers small enough that blocks span two buffers, are larger than the buffer, or
# are cut at a buffer's edge (ROCE_CAP_READ_BUF in bytes), on files of several sections of both
# byte orders with interfaces between packet blocks, EPBs, SPBs and OPBs, other blocks of every
# size (one of 17 MiB, skipped), capture-format warnings, another link type, a 262,144-byte frame
# (ngbuild.py); lying, oversized and short blocks, a trailing length that does not match, a
# captured length that overruns its block; truncated copies; the corpus of capcorpus.py; the
# repository's and ../shared's captures as pcapng (editcap); --threads 1 and 2 (with
# ROCE_CAP_READ_MEAN=0 the read() reader whatever the frames' size), --json, --frames, --csv and
# the text report; and a file cut while it is read (ROCE_CAP_TEST_CUT_AT_FRAME: the report of
# the file cut before that frame, as on the mapping).  On the code before the read() reader of
# pcapng, the check of the verdicts taken from the buffer ("verified ahead") fails.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
here=$(dirname "${BASH_SOURCE[0]}")
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: roce-analyze/roce-gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$here/testlib.sh"

. "$here/readbuf_lib.sh"   # run, same

# 2,000 WRITEs of 512 bytes and their ACKs (586 and 62 bytes), bad ICRCs and payload bits
"$rg" -w "$tmp/a.pcap" -m 2000 --msg-size 512 --seed 5 --qps 4 --verbs write,read,send \
	--bad-icrc-rate 0.01 --bad-payload-rate 0.005 -q || { echo "FAIL: roce-gen"; exit 1; }
mkdir "$tmp/n"
python3 "$here/ngbuild.py" "$tmp/a.pcap" "$tmp/n" >"$tmp/ends" ||
	{ echo "FAIL: ngbuild.py"; exit 1; }

# ---- 1. whole files, buffers from 16 bytes to the default --------------------------------
for f in a lie over trail short caplen; do
	for b in 16 100 1000 4096 8191 65536 ""; do
		same "$f --threads 1 --json" "$b" --threads 1 --json "$tmp/n/$f.pcapng"
		same "$f --threads 2 --json" "$b" --threads 2 --json "$tmp/n/$f.pcapng"
	done
	for b in 1000 4097 ""; do
		same "$f --frames --json" "$b" --threads 1 --frames --json "$tmp/n/$f.pcapng"
		same "$f --no-icrc" "$b" --threads 1 --json --no-icrc "$tmp/n/$f.pcapng"
		same "$f text" "$b" --threads 1 "$tmp/n/$f.pcapng"
		same "$f --csv" "$b" --threads 2 --csv "$tmp/n/$f.pcapng"
	done
done
for b in 4096 ""; do
	same "big --json" "$b" --threads 1 --json --frames "$tmp/n/big.pcapng"
done
# the errors are the parser's, naming the frame
grep -q "lie.pcapng: frame 301: truncated enhanced packet block" <(run "$tmp/r" "" --json \
	"$tmp/n/lie.pcapng"; cat "$tmp/r.e") && ok || bad "lie: $(cat "$tmp/r.e")"
grep -q "over.pcapng: frame 301: enhanced packet block length .* exceeds limit" \
	<(run "$tmp/r" "" --json "$tmp/n/over.pcapng"; cat "$tmp/r.e") && ok ||
	bad "over: $(cat "$tmp/r.e")"
# --threads 1 and 2 give the same report, read() or mapped
run "$tmp/t1" "" --threads 1 --json "$tmp/n/a.pcapng"
run "$tmp/t2" 0 --threads 2 --json "$tmp/n/a.pcapng"
cmp -s "$tmp/t1.o" "$tmp/t2.o" && ok || bad "--threads 1 (read()) and 2 (mapped) differ"

# the read() reader did verify ahead (every frame's verdict taken as it was read)
n=$(ROCE_CAP_READ_BUF=4096 ROCE_ANALYZE_THREADS_DEBUG=1 "$ra" --threads 1 -q "$tmp/n/big.pcapng" \
	2>&1 | sed -nE 's/.*: ([0-9]+) of ([0-9]+) frames verified ahead$/\1 \2/p')
# (600 packet blocks; frame 301 is the custom block)
[ "$n" = "600 601" ] && ok || bad "read() reader: verdicts: '$n'"
n=$(ROCE_CAP_READ_BUF=0 ROCE_ANALYZE_THREADS_DEBUG=1 "$ra" --threads 1 -q "$tmp/n/a.pcapng" 2>&1 |
	sed -nE 's/.*: ([0-9]+) of [0-9]+ frames verified ahead$/\1/p')
[ "$n" = 0 ] && ok || bad "mapping with --threads 1: $n verdicts taken"

# ---- 2. truncated copies: at and around block ends and the edges of 4,096-byte buffers -------
sz=$(stat -c %s "$tmp/n/a.pcapng")
cuts=$(python3 - "$tmp/ends" "$sz" <<'PY'
import sys
offs = [int(l.split()[1]) for l in open(sys.argv[1])]
sz = int(sys.argv[2])
out = {8, 20, 100, sz - 1, sz - 4}
for o in offs[:3] + offs[1200:1203] + offs[-2:]:
    out |= {o - 1, o, o + 4, o + 9, o + 30}
# a block cut at a buffer's edge: buffers of 4,096 bytes after the first IDB's end (a block
# that spans an edge is carried over, the next read ends 4,096 bytes on)
edge, k = offs[0] + 4096, 0
for a, b in zip(offs, offs[1:] + [sz]):
    if b >= edge:
        if b > edge and k < 10:
            out.add(edge)
            k += 1
        edge += 4096
print(" ".join(str(x) for x in sorted(out) if 0 < x < sz))
PY
)
for cut in $cuts; do
	head -c "$cut" "$tmp/n/a.pcapng" >"$tmp/c.pcapng"
	same "a cut at $cut" 4096 --threads 1 --frames --json "$tmp/c.pcapng"
	same "a cut at $cut, default buffer" "" --threads 2 --json "$tmp/c.pcapng"
done

# ---- 3. the corpus of capcorpus.py, and the captures as pcapng -------------------------------
"$rg" -w "$tmp/g4.pcap" -m 30 -q && "$rg" --roce v6 -w "$tmp/g6.pcap" -m 30 -q ||
	{ echo "FAIL: roce-gen"; exit 1; }
mkdir "$tmp/c"
python3 "$here/capcorpus.py" "$tmp/c" "$tmp/g4.pcap" "$tmp/g6.pcap" >"$tmp/list" ||
	{ echo "FAIL: capcorpus.py"; exit 1; }
while read -r name kind; do
	case $name in *.pcapng) ;; *) continue ;; esac
	same "corpus $name" 64 --threads 1 --frames --json "$tmp/c/$name"
	same "corpus $name" "" --threads 2 --json "$tmp/c/$name"
done <"$tmp/list"
if command -v editcap >/dev/null; then
	k=0
	for f in "$src"/captures/*.pcap "$src"/../shared/captures/*/*.pcap; do
		[ -f "$f" ] || continue
		k=$((k + 1))
		editcap -F pcapng "$f" "$tmp/cap$k.pcapng" 2>/dev/null || continue
		same "$f as pcapng" 4096 --threads 1 --frames --json "$tmp/cap$k.pcapng"
		same "$f as pcapng" "" --threads 2 --json "$tmp/cap$k.pcapng"
	done
	[ "$k" -gt 0 ] && ok || bad "no captures found"
else
	echo "note: editcap not found: the captures are not converted"
fi
for f in "$src"/captures/*.pcapng; do
	[ -f "$f" ] || continue
	same "$f" 4096 --threads 1 --frames --json "$f"
done

# ---- 4. a file cut while it is read ------------------------------------------------------------
# cut OUT BUF N ARGS...: the copy cut by the hook at frame N, read with the buffer BUF (0: mapped)
cut() {
	local out=$1 b=$2 n=$3
	shift 3
	cp "$tmp/n/a.pcapng" "$tmp/cut.pcapng"
	ROCE_CAP_READ_BUF=$b ROCE_CAP_READ_MEAN=0 ROCE_CAP_TEST_CUT_AT_FRAME=$n "$ra" "$@" \
		"$tmp/cut.pcapng" >"$out.o" 2>"$out.e"
	echo $? >"$out.rc"
}
# frames right after an interface, an SPB, an OPB, in the big-endian section, the last
picks=$(python3 - "$tmp/ends" <<'PY'
import sys
r = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
want = {1, 2, 7, 101, 150, 700, len(r) // 2, r[-1][0]}
print("\n".join("%d %d" % x for x in r if x[0] in want))
PY
)
# check NAME: the cut read with read() (r) against the mapping (m), frame $n at offset $o
check() {
	if [ "$(cat "$tmp/r.rc")" != 2 ] || ! cmp -s "$tmp/m.rc" "$tmp/r.rc"; then
		bad "$1: exit $(cat "$tmp/r.rc"), $(cat "$tmp/m.rc") mapped"
	elif ! cmp -s "$tmp/m.o" "$tmp/r.o"; then
		bad "$1: the report differs from the mapping's"
	elif ! cmp -s "$tmp/m.e" "$tmp/r.e" ||
	     ! grep -q "frame $n: file shrank while being read ($o bytes" "$tmp/r.e"; then
		bad "$1: $(cat "$tmp/r.e")"
	else
		ok
	fi
}
while read -r n o; do
	for t in 1 2; do
		cut "$tmp/m" 0 "$n" --threads $t --json --frames
		for b in 4096 ""; do
			cut "$tmp/r" "$b" "$n" --threads $t --json --frames
			check "cut at frame $n (buffer $b, --threads $t)"
		done
	done
done <<<"$picks"

finish
