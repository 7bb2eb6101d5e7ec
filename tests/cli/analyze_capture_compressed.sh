#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_capture_compressed.sh - zstd- and lz4-compressed captures, read as tshark (Wireshark
# 4.0, whose libwiretap links libzstd and liblz4) reads them: told by their magic, not their
# name; several frames back to back, skippable frames between them; zstd with and without a
# checksum, lz4 with and without content and block checksums, linked blocks; from a file and
# from standard input.
#   1. capcorpus.py --compressed (made here with the zstd and lz4 tools, from pcap of both
#      byte orders and a pcapng of several sections), each compared with tshark by
#      capcompare.py: whole ones frame by frame (number, time, PSN); cut and damaged ones
#      (cut in a frame, in its magic, before its checksum, after it; a bad block header, a
#      bad content or block checksum, bytes after the last frame, a zstd window over the
#      limit, lz4's legacy format): exit 2, one line naming the file and the frame, and
#      every frame whose bytes decompressed before the damage (tshark's frames of the plain
#      bytes that decompress; tshark on the compressed file stops there or earlier).
#   2. Every prefix of a small capture in four frames (pcap, pcapng; zstd, lz4): never a
#      crash or a hang, exit 0 or 2, one line at most, and exactly the frames whole in what
#      `zstd -dc` / `lz4 -dc` make of the prefix; under ulimit -v outside sanitizer builds
#      (there every third prefix: 1245 s on a loaded 2-core machine with all of them).
#   3. A larger capture (many blocks): the same report as the plain file, progress, a cut
#      or a damaged block in the middle (every block before it analysed), the largest zstd
#      window tshark reads (128 MiB) read under ulimit -v 400 MB and the next one refused
#      with a message that says so, the format names, roce-replay reading them.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rr=$build/cli/roce-replay
gen=$build/cli/roce-gen
here=$(dirname "${BASH_SOURCE[0]}")
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -x "$gen" ] || { echo "SKIP: $gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
# scripts/setup.sh installs both (Debian's zstd and lz4): their absence is a failure
for t in zstd lz4; do
	command -v $t >/dev/null || { echo "FAIL: $t not installed (scripts/setup.sh)"; exit 1; }
done
. "$here/testlib.sh"
san=0
grep -q '^ROCE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san=1

"$gen" -w "$tmp/g4.pcap" -m 30 -q && "$gen" --roce v6 -w "$tmp/g6.pcap" -m 30 -q ||
	{ echo "FAIL: roce-gen"; exit 1; }
mkdir "$tmp/c"
python3 "$here/capcorpus.py" --compressed "$tmp/c" "$tmp/g4.pcap" "$tmp/g6.pcap" >"$tmp/list" ||
	{ echo "FAIL: capcorpus.py"; exit 1; }

# ---- 1. each variant against tshark, from the file and from standard input -------------------
if command -v tshark >/dev/null; then
	while read -r name kind ref; do
		[ "$ref" = - ] || ref=$tmp/c/$ref
		# from standard input too: the common variants (tshark takes a second a run)
		hows=("")
		case $name in
		us-le.pcap.*|*-skip.*|*-cut2.*|*-sum2.*|*-bad2.*|*-win2g.*) hows+=(--stdin) ;;
		esac
		for how in "${hows[@]}"; do
			out=$(python3 "$here/capcompare.py" "$ra" "$tmp/c/$name" "$kind" --ref "$ref" \
			      ${how:+"$how"} 2>&1) && ok || bad "$out"
		done
	done <"$tmp/list"
else
	echo "note: tshark not found: the variants are only read, not compared"
	while read -r name kind ref; do
		timeout 20 "$ra" --json "$tmp/c/$name" >/dev/null 2>&1
		rc=$?
		{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && ok || bad "$name: exit $rc"
	done <"$tmp/list"
fi

# ---- 2. every prefix of small compressed captures ---------------------------------------------
"$gen" -w "$tmp/s.pcap" -c 3 --msg-size 16 -q || { echo "FAIL: roce-gen"; exit 1; }
# the same frames as pcapng, and where the records of each end (capcorpus.py)
python3 "$here/capcorpus.py" --pcapng "$tmp/s.pcap" "$tmp/s.pcapng" >"$tmp/bounds" ||
	{ echo "FAIL: capcorpus.py --pcapng"; exit 1; }
python3 - "$ra" "$tmp" "$san" <<'PY' && ok || bad "prefix runs failed"
import json, resource, struct, subprocess, sys
ra, tmp, san = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
d = open(tmp + "/s.pcap", "rb").read()
ng = open(tmp + "/s.pcapng", "rb").read()
# where each record ends (the file header first)
bp, bn = ([int(x) for x in l.split()] for l in open(tmp + "/bounds").read().splitlines())
def lim():
    if not san:
        resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))
def comp(tool, data, opts):
    return subprocess.run([tool, "-q", "-c"] + opts, input=data, stdout=subprocess.PIPE,
                          check=True).stdout
fails = 0
for plain, bounds, kind in ((d, bp, "pcap"), (ng, bn, "pcapng")):
    for tool, opts in (("zstd", []), ("lz4", ["-BX"])):
        # four frames, split in the middle of records, a skippable frame after the second
        q = [len(plain) * i // 4 for i in range(5)]
        z = b"".join(comp(tool, plain[q[i]:q[i + 1]], opts) +
                     (struct.pack("<II", 0x184D2A55, 3) + b"abc" if i == 1 else b"")
                     for i in range(4))
        # every prefix of the pcap, every other one of the pcapng (the time it takes); a
        # third of those in a sanitizer build (a run there costs several times as much)
        step = (1 if kind == "pcap" else 2) * (3 if san else 1)
        for n in range(len(z) + 1):
            if n % step and n != len(z):
                continue
            cut = z[:n]
            # the oracle: what the tool decompresses of the prefix (its error aside)
            t = subprocess.run([tool, "-d", "-q", "-c"], input=cut, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            got_plain, tool_rc = t.stdout, t.returncode
            assert plain.startswith(got_plain)
            want = max(0, sum(b <= len(got_plain) for b in bounds) - 1)
            open(tmp + "/cut", "wb").write(cut)
            for how in ["file"] + (["stdin"] if n % 7 == 0 else []):
                args = [ra, "--json", tmp + "/cut" if how == "file" else "-"]
                try:
                    r = subprocess.run(args, input=cut if how == "stdin" else None,
                                       capture_output=True, timeout=10, preexec_fn=lim)
                    rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
                    got = json.loads(r.stdout)["summary"]["frames"] if r.stdout else 0
                except subprocess.TimeoutExpired:
                    rc, err, got = "timeout", "", -1
                # a clean end: nothing at all, or a clean end of the compressed data on a
                # record boundary
                clean = n == 0 or (tool_rc == 0 and len(got_plain) in bounds)
                if rc not in (0, 2) or err.count("\n") > 1 or got != want or \
                   (rc == 0) != clean:
                    fails += 1
                    if fails <= 5:
                        print("FAIL: %s.%s cut at %d of %d (%s): exit %s, %s frames (want %d): %s"
                              % (kind, tool, n, len(z), how, rc, got, want, err[:300]))
sys.exit(1 if fails else 0)
PY

# ---- 3. a larger capture: many blocks ---------------------------------------------------------
"$gen" -w "$tmp/big.pcap" -m 400 -q || { echo "FAIL: roce-gen"; exit 1; }
zstd -q -c "$tmp/big.pcap" >"$tmp/big.pcap.zst"
lz4 -q -c -B4 -BX "$tmp/big.pcap" >"$tmp/big.pcap.lz4"
# a capture of several 64 KiB lz4 blocks and zstd's 128 KiB ones
[ "$(stat -c %s "$tmp/big.pcap")" -gt 400000 ] && ok || bad "big.pcap: too small"
"$ra" --json "$tmp/big.pcap" >"$tmp/plain.json" 2>"$tmp/err" || bad "big.pcap: $(cat "$tmp/err")"
norm() { # the report without the file names and formats
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d.get("files", []):
    f.pop("path", None); f.pop("name", None); f.pop("format", None)
d.pop("input", None)
print(json.dumps(d, sort_keys=True))' "$1"
}
for z in zst lz4; do
	"$ra" --json "$tmp/big.pcap.$z" >"$tmp/z.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "big.pcap.$z: exit $rc: $(cat "$tmp/err")"
	[ "$(norm "$tmp/z.json")" = "$(norm "$tmp/plain.json")" ] && ok ||
		bad "big.pcap.$z: report differs from the plain file's"
	grep -q "\"format\": \"pcap-ns+${z/zst/zstd}\"" "$tmp/z.json" && ok ||
		bad "big.pcap.$z: format: $(grep -o '"format": "[^"]*"' "$tmp/z.json")"
	# from a pipe: the same frames; the name does not matter, the magic does
	cat "$tmp/big.pcap.$z" | "$ra" --json - >"$tmp/s.json" 2>"$tmp/err"
	[ "$(norm "$tmp/s.json")" = "$(norm "$tmp/plain.json")" ] && ok ||
		bad "big.pcap.$z from a pipe: $(cat "$tmp/err")"
	cp "$tmp/big.pcap.$z" "$tmp/noname"
	"$ra" --json "$tmp/noname" >"$tmp/s.json" 2>"$tmp/err"
	[ "$(norm "$tmp/s.json")" = "$(norm "$tmp/plain.json")" ] && ok ||
		bad "big.pcap.$z without its suffix: $(cat "$tmp/err")"
done

# cut in the middle, and a damaged block in the middle: every block before it analysed
python3 - "$tmp" <<'PY' || bad "damaged big files: setup"
import sys
t = sys.argv[1]
z = open(t + "/big.pcap.zst", "rb").read()
open(t + "/cut.pcap.zst", "wb").write(z[:len(z) // 2])
l = bytearray(open(t + "/big.pcap.lz4", "rb").read())
open(t + "/cut.pcap.lz4", "wb").write(bytes(l[:len(l) // 2]))
l[len(l) // 2] ^= 0x5a       # in a block: its block checksum (-BX) tells
open(t + "/bad.pcap.lz4", "wb").write(bytes(l))
PY
for f in cut.pcap.zst cut.pcap.lz4 bad.pcap.lz4; do
	tool=zstd
	case $f in *.lz4) tool=lz4 ;; esac
	# the frames whole in what the tool decompresses before the damage
	want=$($tool -d -q -c <"$tmp/$f" 2>/dev/null | "$ra" --json - 2>/dev/null |
	       python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["frames"])')
	"$ra" --json "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' \
	      "$tmp/out" 2>/dev/null)
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ -n "$want" ] && [ "$want" -gt 100 ] &&
		[ "$got" = "$want" ] && grep -qE "$f: frame $((want + 1)): " "$tmp/err" && ok ||
		bad "$f: exit $rc, $got frames (want $want): $(cat "$tmp/err")"
	case $f in
	cut.*) grep -qE "$tool frame 1: compressed data ends early\$" "$tmp/err" && ok ||
		bad "$f: message: $(cat "$tmp/err")" ;;
	bad.*) grep -qE "lz4 frame 1: block checksum does not match the data\$" "$tmp/err" && ok ||
		bad "$f: message: $(cat "$tmp/err")" ;;
	esac
done

# the zstd window: 128 MiB (libzstd's default limit, tshark's) is read, in bounded memory;
# 256 MiB is refused, before anything is allocated for it, with a message that says so
zstd -q -c --long=27 <"$tmp/big.pcap" >"$tmp/w27.zst"
zstd -q -c --long=28 <"$tmp/big.pcap" >"$tmp/w28.zst"
lim=""
[ $san -eq 1 ] || lim="ulimit -v 400000;"
bash -c "$lim exec \"\$0\" --json \"\$1\"" "$ra" "$tmp/w27.zst" >"$tmp/out" 2>"$tmp/err" && ok ||
	bad "128 MiB window: $(cat "$tmp/err")"
bash -c "$lim exec \"\$0\" --json \"\$1\"" "$ra" "$tmp/w28.zst" >"$tmp/out" 2>"$tmp/err"
rc=$?
msg="zstd frame 1: window of 256 MiB exceeds the limit of 128 MiB (as Wireshark's)"
[ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "roce-analyze: $tmp/w28.zst: $msg" ] &&
	ok || bad "256 MiB window: exit $rc: $(cat "$tmp/err")"

# a bad content checksum after the whole capture: every frame, then "after frame N"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' \
    "$tmp/plain.json")
python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[-1] ^= 1; open(sys.argv[2], "wb").write(d)' \
	"$tmp/big.pcap.zst" "$tmp/sum.pcap.zst"
"$ra" --json "$tmp/sum.pcap.zst" >"$tmp/out" 2>"$tmp/err"
rc=$?
msg="after frame $n: zstd frame 1: checksum does not match the data"
[ $rc -eq 2 ] && grep -qx "roce-analyze: $tmp/sum.pcap.zst: $msg" "$tmp/err" &&
	ok || bad "bad zstd checksum: exit $rc: $(cat "$tmp/err")"

# roce-replay reads them too (the same reader): every frame sent (on lo), and the same error
if [ -x "$rr" ] && [ "$(id -u)" -eq 0 ]; then
	for z in zst lz4; do
		"$rr" -i lo -t -q --json "$tmp/big.pcap.$z" >"$tmp/r.json" 2>"$tmp/err"
		rc=$?
		python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["packets"] == int(sys.argv[2])' "$tmp/r.json" "$n" &&
			[ $rc -eq 0 ] && ok || bad "roce-replay big.pcap.$z: exit $rc: $(cat "$tmp/err")"
		"$rr" -i lo -t -q "$tmp/cut.pcap.$z" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc -eq 2 ] &&
			grep -q "cut\.pcap\.$z: frame [0-9]*: .*compressed data ends early\$" "$tmp/err" &&
			ok || bad "roce-replay cut.pcap.$z: exit $rc: $(cat "$tmp/err")"
	done
fi

finish
