#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_usage.sh - roce-analyze command line: --help lists every option, -V, usage
# errors (bad values, unknown options, no input) exit 2 with one message and a hint,
# unreadable / non-capture inputs exit 2 naming the file.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"


# expect_rc RC GREP-PATTERN ARGS... : exit status RC and stderr matching the pattern
expect_rc() {
	local want=$1 pat=$2
	shift 2
	"$ra" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "roce-analyze $* exited $rc, expected $want: $(head -c 300 "$tmp/err")"
		return
	fi
	if [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
		bad "roce-analyze $*: stderr does not match '$pat': $(head -c 300 "$tmp/err")"
		return
	fi
	ok
}

# --help: exit 0, every option of the contract is listed.
"$ra" --help >"$tmp/help" 2>&1
[ $? -eq 0 ] && ok || bad "--help exit status"
for o in -r --read -c --count --json --csv --frames --fail-on --pmtu --link-speed \
	 --pfc-storm-ms --max-flows --udp-port --no-icrc --max-anomalies -q --quiet \
	 --progress --no-progress -V --version -h --help "Exit status" FILE; do
	grep -qe "$o" "$tmp/help" && ok || bad "--help does not mention $o"
done
"$ra" -h >/dev/null 2>&1 && ok || bad "-h exit status"

# The man page documents every long option --help lists, and the exit codes.
man=$src/docs/man/roce-analyze.1
if [ -f "$man" ]; then
	for o in $(grep -oE -- '--[a-z][a-z-]+' "$tmp/help" | sort -u); do
		[ "$o" = --help-all ] && continue
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" && ok || bad "man page does not document $o"
	done
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT "EXIT STATUS" EXAMPLES "SEE ALSO" BUGS; do
		grep -q "^\.SH \"\?$s" "$man" && ok || bad "man page has no $s section"
	done
	if command -v groff >/dev/null; then
		w=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
		[ -z "$w" ] && ok || bad "groff warnings: $w"
	fi
else
	bad "no man page $man"
fi

# The anomaly names --help lists (from the library's anomalies.def) are the whole
# vocabulary: each is accepted by --fail-on, and the man page and docs/json.md name
# every one of them (so the docs cannot miss a row added to the table).
names=$(awk '/^Anomaly names for --fail-on/ {on = 1; next} on && /^$/ {exit}
	on {print $1}' "$tmp/help")
n=$(wc -w <<<"$names")
[ "$n" -ge 13 ] && ok || bad "--help lists $n anomaly names: $names"
for a in $names; do
	"$ra" --fail-on "$a" --version >/dev/null 2>&1 && ok || bad "--fail-on $a rejected"
	[ -f "$man" ] && { grep -qE "^\.BR? $a( ,)?$" "$man" && ok || bad "man page lacks anomaly $a"; }
	grep -q "\`$a\`" "$src/docs/json.md" && ok || bad "docs/json.md lacks anomaly $a"
done

# -V: program and library version.
out=$("$ra" -V 2>&1)
[ $? -eq 0 ] && ok || bad "-V exit status"
grep -q "^roce-analyze " <<<"$out" && grep -q "libroce" <<<"$out" && ok || bad "-V output: $out"

# Usage errors: exit 2, one message naming the problem, hint to --help.
hint="--help"
expect_rc 2 "no input" 
grep -q -- "$hint" "$tmp/err" && ok || bad "no --help hint: $(cat "$tmp/err")"
expect_rc 2 "Unknown option" --bogus x.pcap
expect_rc 2 "^roce-analyze: -c .abc.: not a number" -c abc x.pcap
expect_rc 2 "count" --count 0 x.pcap
expect_rc 2 "count" --count -5 x.pcap
expect_rc 2 "count" --count 12x x.pcap
expect_rc 2 "pmtu" --pmtu 300 x.pcap
expect_rc 2 "pmtu" --pmtu 128 x.pcap
expect_rc 2 "pmtu" --pmtu 8192 x.pcap
expect_rc 2 "link-speed" --link-speed 0 x.pcap
expect_rc 2 "link-speed" --link-speed fast x.pcap
expect_rc 2 "link-speed" --link-speed -1 x.pcap
expect_rc 2 "pfc-storm-ms" --pfc-storm-ms 0 x.pcap
expect_rc 2 "max-flows" --max-flows 0 x.pcap
expect_rc 2 "max-flows" --max-flows 99999999999 x.pcap
expect_rc 2 "udp-port" --udp-port 0 x.pcap
expect_rc 2 "udp-port" --udp-port 65536 x.pcap
expect_rc 2 "udp-port" --udp-port 1 --udp-port 2 --udp-port 3 --udp-port 4 --udp-port 5 \
	--udp-port 6 --udp-port 7 --udp-port 8 x.pcap
expect_rc 2 "max-anomalies" --max-anomalies x x.pcap
expect_rc 2 "unknown anomaly 'bogus'" --fail-on psn_gap,bogus x.pcap
expect_rc 2 "fail-on" --fail-on , x.pcap
expect_rc 2 "csv" --csv --json x.pcap
expect_rc 2 "csv" --csv --frames x.pcap
expect_rc 2 "stdin" - -
# a live-capture option without -i: the message names the option given
expect_rc 2 "^roce-analyze: -w needs -i" -w y.pcap x.pcap
expect_rc 2 "^roce-analyze: -B needs -i" -B 1024 x.pcap
expect_rc 2 "^roce-analyze: --duration needs -i" --duration 5 x.pcap
expect_rc 2 "^roce-analyze: --immediate-mode needs -i" --immediate-mode x.pcap
for f in "$tmp/err"; do
	[ "$(wc -l <"$f")" -le 2 ] && ok || bad "usage error is more than one line + hint: $(cat "$f")"
done

# Input errors: exit 2, message names the file; no report on stdout.
expect_rc 2 "$tmp/does-not-exist.pcap" "$tmp/does-not-exist.pcap"
[ ! -s "$tmp/out" ] && ok || bad "report printed for a missing file"
printf 'hello, I am not a capture file\n' >"$tmp/notes.txt"
expect_rc 2 "notes.txt" "$tmp/notes.txt"
expect_rc 2 "notes.txt" -r "$tmp/notes.txt" --json
[ ! -s "$tmp/out" ] && ok || bad "report printed for a text file"
: >"$tmp/empty.pcap"   # a 0-byte file has 0 frames (capinfos), not an error
expect_rc 0 "" --json "$tmp/empty.pcap"
[ ! -s "$tmp/err" ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["frames"] == 0 and d["summary"]["complete"] is True
assert d["files"][0]["format"] == "empty", d["files"][0]
' "$tmp/out" && ok || bad "empty file: report of 0 frames: $(cat "$tmp/err")"
expect_rc 2 "stdin" - <"$tmp/notes.txt"
mkdir "$tmp/dir.pcap"
expect_rc 2 "dir.pcap" "$tmp/dir.pcap"

# Valid option values are accepted (a missing file still exits 2, but not as a usage error).
expect_rc 2 "missing.pcap" --pmtu 4096 --link-speed 25.5 --pfc-storm-ms 50 --max-flows 1 \
	--udp-port 4791 --udp-port 5000 --no-icrc --max-anomalies 0 --progress --no-progress \
	--fail-on any -c 10 -q "$tmp/missing.pcap"

# -c stopping right after a frame that is not RoCE is a clean stop, not an input
# error (the decoder's "not RoCE" status once leaked into the reader's).
python3 - "$tmp/arp.pcap" <<'PY'
import struct, sys
frame = b"\xff" * 6 + b"\x02" * 6 + b"\x08\x06" + bytes(46)
rec = struct.pack("<IIII", 1, 0, len(frame), len(frame)) + frame
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + rec * 3)
PY
expect_rc 0 "" -c 1 --json "$tmp/arp.pcap"
[ ! -s "$tmp/err" ] && ok || bad "-c 1 after an ARP frame wrote to stderr: $(cat "$tmp/err")"
grep -q '"frames": 1,' "$tmp/out" && ok || bad "-c 1: summary does not count 1 frame"

# --frames on a terminal: a line per frame as it comes (tcpdump -w - | roce-analyze
# --frames -), not in 64 KiB blocks (it printed nothing until about 70 frames had come)
"$build/cli/roce-gen" -w "$tmp/few.pcap" -m 2 -q
python3 - "$ra" "$tmp/few.pcap" <<'PY' && ok || bad "--frames on a terminal: lines held back"
import os, pty, select, struct, subprocess, sys, time
data = open(sys.argv[2], "rb").read()
recs, off = [], 24
while off < len(data):
    n = struct.unpack_from("<I", data, off + 8)[0]
    recs.append(data[off:off + 16 + n])
    off += 16 + n
m, s = pty.openpty()
r, w = os.pipe()
p = subprocess.Popen([sys.argv[1], "--frames", "-"], stdin=r, stdout=s, stderr=s)
os.close(r)
os.close(s)
out = b""
os.write(w, data[:24])
ok = True
for rec in recs[:3]:
    os.write(w, rec)                    # one frame more, the pipe left open
    want = out.count(b"\n") + 1
    end = time.time() + 5
    while out.count(b"\n") < want and time.time() < end:
        if select.select([m], [], [], 0.1)[0]:
            out += os.read(m, 65536)
    ok = ok and out.count(b"\n") >= want
os.close(w)
p.wait()
sys.exit(0 if ok else 1)
PY

finish
