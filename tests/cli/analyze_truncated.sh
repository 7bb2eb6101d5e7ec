#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_truncated.sh - input errors in the middle of a capture: a real Soft-RoCE
# capture cut with head -c at several offsets exits 2 with ONE stderr line naming the
# file and the frame, and still prints the report (JSON, JSON Lines, text) of the frames
# before the cut.  A cut on a record boundary is a clean end of file (exit 0).  (ERF captures:
# analyze_erf.sh.)
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
shared=$src/../shared/captures
cap=$shared/softroce/rc_write.pcap
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -f "$cap" ] || { echo "SKIP: $cap not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# Record boundaries of the capture: "offset_of_record_start" per line (classic pcap).
python3 - "$cap" >"$tmp/bounds" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
o = 24
while o + 16 <= len(d):
    print(o)
    cap, = struct.unpack_from("<I", d, o + 8)
    o += 16 + cap
print(o)
PY
mapfile -t bounds <"$tmp/bounds"

# frame_at OFFSET -> 1-based number of the record the cut falls into
frame_at() {
	local off=$1 i
	for ((i = 0; i < ${#bounds[@]} - 1; i++)); do
		if [ "$off" -lt "${bounds[$((i + 1))]}" ]; then
			echo $((i + 1))
			return
		fi
	done
	echo 0
}

# Offsets: inside a record header, inside record data, a few spread over the file.
offsets=($((bounds[3] + 7)) $((bounds[10] + 16 + 100)) 100000 777777 $((bounds[1000] + 3)) $(( $(stat -c %s "$cap") - 1 )))
for off in "${offsets[@]}"; do
	n=$(frame_at "$off")
	head -c "$off" "$cap" >"$tmp/cut.pcap"
	for mode in json frames-json text; do
		case $mode in
		json) "$ra" --json "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err" ;;
		frames-json) "$ra" --frames --json "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err" ;;
		text) "$ra" "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err" ;;
		esac
		rc=$?
		[ $rc -eq 2 ] && ok || bad "cut at $off ($mode): exit $rc, expected 2"
		[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "cut at $off ($mode): stderr is not one line: $(cat "$tmp/err")"
		grep -qE "^roce-analyze: .*cut\.pcap: frame $n: " "$tmp/err" && ok ||
			bad "cut at $off ($mode): stderr does not name the file and frame $n: $(cat "$tmp/err")"
		case $mode in
		json)
			python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2]) - 1
s = d["summary"]
assert s["frames"] == n, (s["frames"], n)
assert s["icrc_ok"] == n and s["complete"] is False
assert d["files"][0]["complete"] is False
' "$tmp/out" "$n" && ok || bad "cut at $off: JSON report of the $((n - 1)) frames before"
			;;
		frames-json)
			python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2]) - 1
assert len(lines) == n + 1, (len(lines), n)
assert [l["frame"] for l in lines[:-1]] == list(range(1, n + 1))
assert lines[-1]["summary"]["frames"] == n
' "$tmp/out" "$n" && ok || bad "cut at $off: --frames --json output"
			;;
		text)
			grep -qE "^  Frames: +$((n - 1))\$" "$tmp/out" && ok || bad "cut at $off: text report of $((n - 1)) frames"
			;;
		esac
	done
done

# A cut on a record boundary is a complete, shorter capture.
head -c "${bounds[50]}" "$cap" >"$tmp/cut.pcap"
"$ra" --json "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "cut on a record boundary: exit $rc, $(cat "$tmp/err")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["summary"]["frames"] == 50' "$tmp/out" &&
	ok || bad "cut on a record boundary: 50 frames"

# Truncated gzip stream: exit 2, one line, report of what came before.
gzip -c "$cap" | head -c 30000 >"$tmp/cut.pcap.gz"
"$ra" --json "$tmp/cut.pcap.gz" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "truncated gzip: exit $rc"
grep -qE "^roce-analyze: .*cut\.pcap\.gz: frame [0-9]+: " "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok ||
	bad "truncated gzip: message: $(cat "$tmp/err")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["summary"]["frames"] > 0' "$tmp/out" &&
	ok || bad "truncated gzip: no report"

# A truncated second file: the first file's frames are in the report, error names file 2.
head -c 100000 "$cap" >"$tmp/cut.pcap"
"$ra" --json "$cap" "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$(frame_at 100000)
[ $rc -eq 2 ] && grep -qE "cut\.pcap: frame $n: " "$tmp/err" && ok || bad "second file truncated: exit $rc, $(cat "$tmp/err")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]) - 1
assert d["summary"]["frames"] == 1800 + n
assert [f["complete"] for f in d["files"]] == [True, False]
' "$tmp/out" "$n" && ok || bad "second file truncated: report"

finish
