#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_shrink_cut.sh - a mapped capture cut while roce-analyze decodes the records it has
# been handed (capread.h: the rest of a run of up to 64 records, read after the cut): the
# report is exactly that of the file cut cleanly before the first record cut (a copy made with
# head -c), the error line names that frame, exit 2.  The cut is made by the reader's test hook
# ROCE_CAP_TEST_CUT_AT_FRAME=N (capread_src.c): right after record N was handed out, the file
# is cut at its header, so that records N.. of the run read zeros, in the tail of the page the
# new end falls in (no fault) and past it (SIGBUS).  Cut points: inside a run with records
# after it in the same page, at a page's end, the first record of a run, the last page of the
# file (records handed out one at a time, checked every time), on pcap and pcapng, on a file
# whose last page holds no zero word, with --threads 1 and 2 (the helper's ICRC verdicts: taken
# ahead over the bytes before the cut only), the pcapng file also read with read() into a buffer
# (capread_rbuf.c; ROCE_CAP_READ_MEAN=0: with --threads 2 too) and mapped (ROCE_CAP_READ_BUF=0),
# plain, with --frames (every frame's line) and with a filter. Before the check after the
# decode, the records after N were counted as frames that are not RoCE (or with a bad ICRC) and
# the error named the frame after the run.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: roce-analyze/roce-gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# 4,000 frames of 512-byte WRITEs and their ACKs (586 and 62 bytes: ~1.3 MB, runs of up to 64
# records within 16 KiB), and 64-byte ones (138 and 62 bytes: many records in a page)
"$rg" -w "$tmp/a.pcap" -m 2000 --msg-size 512 -q || { echo "FAIL: roce-gen"; exit 1; }
"$rg" -w "$tmp/b.pcap" -m 3000 --msg-size 64 --qps 4 -q || { echo "FAIL: roce-gen"; exit 1; }
"$rg" -w "$tmp/c.pcapng" -m 500 --msg-size 512 -q || { echo "FAIL: roce-gen"; exit 1; }
# a.pcap with a last record of 0xff bytes that fills its last two pages (the file a whole
# number of pages): no zero word there, the reader's sentinel is in an earlier page
python3 - "$tmp/a.pcap" "$tmp/d.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = -(len(d) + 16) % 4096 + 4096
open(sys.argv[2], "wb").write(d + struct.pack("<IIII", 1764374500, 0, n, n) + b"\xff" * n)
PY

# offsets FILE: "N OFFSET" for every record (the start of its header or block)
offsets() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = 0
if struct.unpack_from("<I", d, 0)[0] == 0x0a0d0d0a:
    o = 0
    while o + 12 <= len(d):
        t, l = struct.unpack_from("<II", d, o)
        if t in (3, 6):
            n += 1
            print(n, o)
        o += l
else:
    o = 24
    while o + 16 <= len(d):
        n += 1
        print(n, o)
        o += 16 + struct.unpack_from("<I", d, o + 8)[0]
PY
}

# picks FILE: the frames to cut at (see the top), one a line
picks() {
	offsets "$1" >"$tmp/offsets"
	python3 - "$tmp/offsets" "$(stat -c %s "$1")" <<'PY'
import sys
r = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
n = len(r)
pg = lambda o: o // 4096
out = {2, n}
# inside the file, with two records after it starting in its page
out.add(next(k for k, o in r[n // 3:] if k + 2 <= n and pg(r[k + 1][1]) == pg(o)))
# the last record that starts in its page (the next one faults)
out.add(next(k for k, o in r[n // 2:] if k < n and pg(r[k][1]) != pg(o)))
# the first that ends in the file's last page (handed out alone, checked every time)
size = int(sys.argv[2])
out.add(next(k for k, o in r if (r[k][1] if k < n else size) > (size - 1) // 4096 * 4096))
print("\n".join(map(str, sorted(out))))
PY
}

# same_report CUT.out CLEAN.out: the frame lines (--frames) equal, and the reports equal but
# for the file name and "complete"
same_report() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def split(f):
    t = open(f).read()
    try:
        return [], json.loads(t)            # the report alone (pretty-printed)
    except ValueError:
        l = t.splitlines()                  # --frames: a line a frame, the report last
        return l[:-1], json.loads(l[-1])
(fa, ra), (fb, rb) = split(sys.argv[1]), split(sys.argv[2])
if fa != fb:
    sys.exit("frame lines differ (%d and %d)" % (len(fa), len(fb)))
def norm(v):
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if k not in ("complete", "name")}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v
x, y = norm(ra), norm(rb)
if x != y:
    diff = [k for k in set(x["summary"]) | set(y["summary"])
            if x["summary"].get(k) != y["summary"].get(k)]
    sys.exit("reports differ: %s" % (sorted(diff)[:8] or "outside the summary"))
PY
}

# cut_case FILE N OFFSET ARGS...: FILE cut by the hook after record N (at OFFSET) against a
# copy cut there with head -c ($tmp/clean.*)
cut_case() {
	local f=$1 n=$2 off=$3 ext=${1#*.} name rc msg
	shift 3
	name="$f cut at frame $n (offset $off) $*"
	"$ra" --json "$@" "$tmp/clean.$ext" >"$tmp/clean.out" 2>"$tmp/clean.err"
	cp "$tmp/$f" "$tmp/cut.$ext"
	ROCE_CAP_TEST_CUT_AT_FRAME=$n "$ra" --json "$@" "$tmp/cut.$ext" >"$tmp/cut.out" \
		2>"$tmp/cut.err"
	rc=$?
	[ "$(stat -c %s "$tmp/cut.$ext")" -eq "$off" ] || { bad "$name: not cut"; return; }
	[ $rc -eq 2 ] && ok || bad "$name: exit $rc"
	msg="cut\.$ext: frame $n: file shrank while being read \($off bytes now"
	[ "$(wc -l <"$tmp/cut.err")" -eq 1 ] && grep -qE "^roce-analyze: .*$msg" "$tmp/cut.err" &&
		ok || bad "$name: stderr: $(cat "$tmp/cut.err")"
	msg=$(same_report "$tmp/cut.out" "$tmp/clean.out" 2>&1) && ok || bad "$name: $msg"
}

export ROCE_CAP_AHEAD_PROBE=0 ROCE_CAP_AHEAD_CHOOSE=helper
for f in a.pcap b.pcap c.pcapng d.pcap; do
	for n in $(picks "$tmp/$f"); do
		off=$(offsets "$tmp/$f" | awk -v n="$n" '$1 == n { print $2 }')
		head -c "$off" "$tmp/$f" >"$tmp/clean.${f#*.}"
		# pcapng: read() into a buffer (with --threads 2 too) and mapped; pcap as is
		for mode in $([ "${f#*.}" = pcapng ] && echo "read map" || echo dflt); do
			unset ROCE_CAP_READ_MEAN ROCE_CAP_READ_BUF
			case $mode in
			read) export ROCE_CAP_READ_MEAN=0 ;;
			map) export ROCE_CAP_READ_BUF=0 ;;
			esac
			for t in 1 2; do
				for a in "" --frames "-f udp"; do
					# shellcheck disable=SC2086
					cut_case "$f" "$n" "$off" --threads $t $a
				done
			done
		done
		unset ROCE_CAP_READ_MEAN ROCE_CAP_READ_BUF
	done
done
finish
