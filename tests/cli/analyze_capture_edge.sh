#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_capture_edge.sh - captures Wireshark reads and roce-analyze must read too, or report
# in one line: caplen > snaplen / > original length (warning, counted), a bad gzip trailer
# (every frame, then exit 2), pcapng custom/journal blocks (frame numbers = tshark's
# frame.number), timestamps out of range and Simple Packet Blocks (no wrapped values, not time
# 0), first/last vs earliest/latest timestamps, an unsupported first pcapng interface, control
# characters in file names, SIGINT/SIGTERM on a stalled FIFO, a file that shrinks while it is
# read.  Every capture is generated here (roce-gen frames, rewritten by python3).
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
gen=$build/cli/roce-gen
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -x "$gen" ] || { echo "SKIP: $gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

"$gen" -w "$tmp/g.pcap" -m 20 -q || { echo "FAIL: roce-gen"; exit 1; }

# mk KIND OUT: rewrite the roce-gen capture (100 RoCE frames) into a test capture.
mk() {
	python3 - "$tmp/g.pcap" "$@" <<'PY'
import struct, sys, gzip
src, kind, out = sys.argv[1], sys.argv[2], sys.argv[3]
d = open(src, "rb").read()
magic, = struct.unpack_from("<I", d, 0)
nsec = magic == 0xa1b23c4d
recs, o = [], 24
while o + 16 <= len(d):
    s, sub, cl, wl = struct.unpack_from("<IIII", d, o)
    recs.append((s * 10**9 + (sub if nsec else sub * 1000), d[o + 16:o + 16 + cl], wl))
    o += 16 + cl

def pcap(recs, snap=65535, ver=(2, 4)):
    b = struct.pack("<IHHiIII", 0xa1b23c4d, ver[0], ver[1], 0, 0, snap, 1)
    for ts, f, wl in recs:
        b += struct.pack("<IIII", ts // 10**9, ts % 10**9, len(f), wl) + f
    return b

def blk(t, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))

def opt(code, data):
    return struct.pack("<HH", code, len(data)) + data + b"\0" * (-len(data) % 4)

shb = blk(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))

def idb(lt=1, opts=b""):
    return blk(1, struct.pack("<HHI", lt, 0, 0) + (opts + opt(0, b"") if opts else b""))

def epb(ifid, ticks, f, wl=None):
    return blk(6, struct.pack("<IIIII", ifid, ticks >> 32, ticks & 0xffffffff, len(f),
                              len(f) if wl is None else wl) + f)

ns = opt(9, bytes([9]))
if kind == "snaplen":          # frames 3 and 7: caplen > snaplen; frame 5: caplen > wirelen
    r = list(recs)
    b = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 100, 1)
    nwarn = 0
    for i, (ts, f, wl) in enumerate(r):
        if i == 4:
            wl = len(f) - 1
        nwarn += (len(f) > 100) + (len(f) > wl)
        b += struct.pack("<IIII", ts // 10**9, ts % 10**9, len(f), wl) + f
    open(out, "wb").write(b)
    print(nwarn)
elif kind == "gzcrc":
    z = bytearray(gzip.compress(pcap(recs)))
    z[-8] ^= 0x55
    open(out, "wb").write(z)
elif kind == "custom":         # custom / journal blocks between the frames
    b = shb + idb(opts=ns)
    for i, (ts, f, wl) in enumerate(recs):
        if i in (3, 10):
            b += blk(0xBAD, struct.pack("<I", 32473) + b"abcd")
        if i == 20:
            b += blk(0x40000BAD, struct.pack("<I", 32473) + b"xy")
            b += blk(9, b"__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE=hello\n\n")
        if i == 30:
            b += blk(5, b"\0" * 12)  # ISB: not a frame
        b += epb(0, ts, f, wl)
    open(out, "wb").write(b)
elif kind == "tsrange":        # frame 1 in 1906 (if_tsoffset -2e9 s), then the rest
    off = opt(14, struct.pack("<q", -2000000000))
    b = shb + idb(opts=ns + off) + idb(opts=ns)
    b += epb(0, 1000, recs[0][1])
    for ts, f, wl in recs[1:]:
        b += epb(1, ts, f, wl)
    open(out, "wb").write(b)
elif kind == "spb":            # frames 1-50 EPB, 51-100 SPB (no timestamp)
    b = shb + idb(opts=ns)
    for i, (ts, f, wl) in enumerate(recs):
        if i < 50:
            b += epb(0, ts, f, wl)
        else:
            b += blk(3, struct.pack("<I", len(f)) + f)
    open(out, "wb").write(b)
elif kind == "order":          # frames out of time order: last frame is not the latest
    r = list(recs)
    r[0], r[50] = r[50], r[0]
    r[-1], r[60] = r[60], r[-1]
    open(out, "wb").write(pcap(r))
elif kind == "firstif":        # interface 0 LINKTYPE_USB_LINUX (189), interface 1 Ethernet
    b = shb + idb(189, ns) + idb(1, ns)
    b += epb(0, recs[0][0], b"\0" * 48)
    for ts, f, wl in recs:
        b += epb(1, ts, f, wl)
    open(out, "wb").write(b)
elif kind == "head":           # pcap header + the first 10 frames (FIFO writer)
    open(out, "wb").write(pcap(recs[:10]))
elif kind == "big":            # the frames repeated to about 200 MB
    one = b"".join(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(f), wl) + f
                   for ts, f, wl in recs)
    with open(out, "wb") as fo:
        fo.write(pcap([]))
        n = 200 * 10**6 // len(one) + 1
        for _ in range(n):
            fo.write(one)
PY
}

# json_check FILE PYTHON-EXPR...: assertions on the JSON report d (s = summary)
json_check() {
	local f=$1
	shift
	python3 - "$f" "$@" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit("no JSON report")
s = d["summary"]
for e in sys.argv[2:]:
    assert eval(e), (e, {k: s.get(k) for k in ("frames", "first_ts", "last_ts", "earliest_ts",
        "latest_ts", "duration_s", "capture_warnings", "frames_without_ts", "complete")})
PY
}

one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# ---- 2. caplen > snaplen, caplen > original length: read, warn once, count ----------------
nwarn=$(mk snaplen "$tmp/snap.pcap")
"$ra" --json "$tmp/snap.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "caplen > snaplen: exit $rc: $(cat "$tmp/err")"
one_line "$tmp/err" && grep -qE '^roce-analyze: warning: .*snap\.pcap: frame 1: caplen [0-9]+ exceeds snaplen 100' "$tmp/err" &&
	ok || bad "caplen > snaplen: stderr: $(cat "$tmp/err")"
json_check "$tmp/out" 's["frames"] == 100' 's["roce_frames"] == 100' "s['capture_warnings'] == $nwarn" \
	'd["files"][0]["capture_warnings"] == s["capture_warnings"]' 's["complete"] is True' &&
	ok || bad "caplen > snaplen: JSON report"

# ---- 3. bad gzip trailer: every frame, then one line naming the file, exit 2 -------------
mk gzcrc "$tmp/crc.pcap.gz"
"$ra" --json "$tmp/crc.pcap.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "gzip trailer: exit $rc"
one_line "$tmp/err" && grep -qE '^roce-analyze: .*crc\.pcap\.gz: after frame 100: gzip trailer: CRC-32' "$tmp/err" &&
	! grep -q '<fd:' "$tmp/err" && ok || bad "gzip trailer: stderr: $(cat "$tmp/err")"
json_check "$tmp/out" 's["frames"] == 100' 's["complete"] is False' && ok || bad "gzip trailer: report"

# ---- 4. frame numbers = Wireshark's frame.number ------------------------------------------
mk custom "$tmp/custom.pcapng"
"$ra" --frames --json "$tmp/custom.pcapng" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "custom blocks: exit $rc: $(cat "$tmp/err")"
head -n -1 "$tmp/out" | python3 -c 'import json,sys; print("\n".join(str(json.loads(l)["frame"]) for l in sys.stdin))' >"$tmp/ours"
python3 -c '
want = []
n = 0
for i in range(100):
    n += (i in (3, 10)) + 2 * (i == 20)
    n += 1
    want.append(n)
print("\n".join(map(str, want)))' >"$tmp/want"
cmp -s "$tmp/ours" "$tmp/want" && ok || bad "custom blocks: frame numbers differ from the expected ones"
if command -v tshark >/dev/null; then
	tshark -r "$tmp/custom.pcapng" -Y "udp.dstport == 4791" -T fields -e frame.number 2>/dev/null >"$tmp/ts"
	cmp -s "$tmp/ours" "$tmp/ts" && ok || bad "custom blocks: frame numbers differ from tshark's: $(diff "$tmp/ours" "$tmp/ts" | head -5)"
fi

# ---- 5. timestamps: no wrapped value; SPB without time; first/last vs earliest/latest ------
mk tsrange "$tmp/tsrange.pcapng"
"$ra" --json "$tmp/tsrange.pcapng" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "ts out of range: exit $rc: $(cat "$tmp/err")"
one_line "$tmp/err" && grep -q 'frame 1: timestamp outside 1970' "$tmp/err" && ok ||
	bad "ts out of range: stderr: $(cat "$tmp/err")"
json_check "$tmp/out" 's["frames"] == 100' 's["frames_without_ts"] == 1' \
	'1.7e9 < s["first_ts"] < 1.8e9' 's["duration_s"] < 10' &&
	ok || bad "ts out of range: a wrapped timestamp in the report"
"$ra" --frames --json "$tmp/tsrange.pcapng" 2>/dev/null | head -n 1 >"$tmp/out"
python3 -c 'import json,sys; f = json.load(open(sys.argv[1])); assert f["frame"] == 1 and f["ts"] is None, f' "$tmp/out" &&
	ok || bad "ts out of range: frame 1 must have ts null: $(head -c 200 "$tmp/out")"

mk spb "$tmp/spb.pcapng"
"$ra" --json "$tmp/g.pcap" >"$tmp/ref" 2>/dev/null
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["summary"]
print(r["first_ts"])' "$tmp/ref" >"$tmp/first"
"$ra" --json "$tmp/spb.pcapng" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "SPB: exit $rc: $(cat "$tmp/err")"
json_check "$tmp/out" 's["frames"] == 100' 's["frames_without_ts"] == 50' "s['first_ts'] == $(cat "$tmp/first")" \
	's["duration_s"] < 100' 's["earliest_ts"] == s["first_ts"]' && ok || bad "SPB: counted as time 0"

mk order "$tmp/order.pcap"
"$ra" --json "$tmp/order.pcap" >"$tmp/out" 2>"$tmp/err"
json_check "$tmp/out" 's["first_ts"] > s["earliest_ts"]' 's["last_ts"] < s["latest_ts"]' \
	'abs(s["duration_s"] - (s["latest_ts"] - s["earliest_ts"])) < 1e-6' &&
	ok || bad "first/last frame vs earliest/latest"

# ---- 6. unsupported link type on the first pcapng interface, Ethernet on the second --------
mk firstif "$tmp/firstif.pcapng"
"$ra" --json "$tmp/firstif.pcapng" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "first interface unsupported: exit $rc: $(cat "$tmp/err")"
one_line "$tmp/err" && grep -q 'frame 1: unsupported link-layer type 189 (USB_LINUX); frames of this type are counted, not decoded' "$tmp/err" &&
	ok || bad "first interface unsupported: stderr: $(cat "$tmp/err")"
json_check "$tmp/out" 's["frames"] == 101' 's["roce_frames"] == 100' && ok || bad "first interface unsupported: report"

# ---- 7. control characters in file names -------------------------------------------------
"$ra" "$tmp/no"$'\n'"such"$'\x01'".pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && one_line "$tmp/err" && ! grep -q $'\x01' "$tmp/err" && ok ||
	bad "can't open: control characters printed raw: $(cat -A "$tmp/err")"
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IHHiIII",0xa1b2c3d4,2,4,0,0,65535,189))' "$tmp/usb"$'\n'"x.pcap"
"$ra" "$tmp/usb"$'\n'"x.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && one_line "$tmp/err" && grep -q 'unsupported link-layer type 189' "$tmp/err" && ok ||
	bad "unsupported link-layer type: control characters printed raw: $(cat -A "$tmp/err")"

# ---- 8. SIGINT / SIGTERM while a FIFO's writer stalls ---------------------------------------
# Sent once (timeout --foreground signals the child only), and twice in a row (as plain
# timeout(1) does: to the child, then to its process group; or Ctrl-C pressed twice): the
# repeat within a second is ignored, the run still ends with exit 2 and the full report.
# (Not plain timeout here: its SIGCONT to the group can cancel the SIGSTOP of LeakSanitizer's
# ptrace attach at exit in the ASan build, which then waits forever.)
mk head "$tmp/head.pcap"
for sig in INT TERM; do
	for how in once twice; do
		rm -f "$tmp/fifo"
		mkfifo "$tmp/fifo"
		# the writer sends 10 frames and keeps the FIFO open without writing more
		( cat "$tmp/head.pcap"; sleep 30 ) >"$tmp/fifo" &
		wpid=$!
		if [ $how = once ]; then
			timeout --foreground --preserve-status -s $sig 2 "$ra" --json "$tmp/fifo" \
				>"$tmp/out" 2>"$tmp/err"
			rc=$?
		else
			"$ra" --json "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" &
			rpid=$!
			# once the 10 frames are read the reader waits in read() on the FIFO
			for _ in $(seq 200); do
				case $(cat /proc/$rpid/wchan 2>/dev/null) in *pipe*) break;; esac
				sleep 0.05
			done
			sleep 0.5
			kill -s $sig $rpid; kill -s $sig $rpid
			wait $rpid
			rc=$?
		fi
		kill $wpid 2>/dev/null
		wait $wpid 2>/dev/null
		[ $rc -eq 2 ] && ok || bad "SIG$sig $how on a stalled FIFO: exit $rc"
		one_line "$tmp/err" &&
			grep -qE "^roce-analyze: .*fifo: frame 11: interrupted by SIG$sig" "$tmp/err" &&
			ok || bad "SIG$sig $how: stderr: $(cat "$tmp/err")"
		json_check "$tmp/out" 's["frames"] == 10' 's["complete"] is False' \
			's["interrupted"] is True' && ok || bad "SIG$sig $how: report of the 10 frames read"
	done
done

# ---- 1. the file shrinks while it is read ---------------------------------------------------
# A 200 MB file is read (mapped); as soon as roce-analyze has it mapped it is stopped, the file
# is cut to 50 MB, and it goes on.  Should the reader have finished before the stop, the round
# is repeated (at most 5 times); a round that hit the reader must give exit 2, one line, and a
# report of the frames before the cut: none of the records the reader had handed out and the
# analysis reached after the cut (read as zeros) is counted, so no bad ICRC, whatever the
# timing (analyze_shrink_cut.sh cuts at chosen records).
mk big "$tmp/big.pcap"
hit=0
for round in 1 2 3 4 5; do
	cp "$tmp/big.pcap" "$tmp/shrink.pcap"
	"$ra" --json "$tmp/shrink.pcap" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 1 2000); do
		grep -q "shrink.pcap" "/proc/$pid/maps" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
	done
	kill -STOP $pid 2>/dev/null || { wait $pid; continue; }
	truncate -s 50000000 "$tmp/shrink.pcap"
	kill -CONT $pid
	wait $pid
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; then
		continue    # read to the end before the cut: try again
	fi
	hit=1
	[ $rc -eq 2 ] && ok || bad "shrink: exit $rc (SIGBUS is 135)"
	one_line "$tmp/err" && grep -qE '^roce-analyze: .*shrink\.pcap: frame [0-9]+: file shrank while being read' "$tmp/err" &&
		ok || bad "shrink: stderr: $(cat "$tmp/err")"
	n=$(sed -nE 's/.*: frame ([0-9]+): file shrank.*/\1/p' "$tmp/err")
	json_check "$tmp/out" "s['frames'] == ${n:-0} - 1" 's["complete"] is False' 's["icrc_bad"] == 0' &&
		ok || bad "shrink: report of the frames before frame $n"
	break
done
[ $hit -eq 1 ] && ok || echo "note: the reader finished before the cut in 5 rounds (nothing asserted)"

finish
