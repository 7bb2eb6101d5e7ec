#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_capture_tshark.sh - roce-analyze reads what tshark (Wireshark 4.0) reads, and stops
# where it stops: a corpus of capture variants written here (capcorpus.py, from roce-gen
# frames: pcap in both byte orders, micro- and nanosecond, Kuznetzov's modified formats, Red
# Hat's ss990417 and Nokia record headers, Ixia, AIX, old and odd versions, snapshot lengths,
# link types Ethernet/802.1Q/QinQ/SLL/SLL2/raw IPv4 and IPv6, pcapng sections of both byte
# orders, if_tsresol/if_tsoffset, OPB, SPB, NRB/ISB/DSB and unknown blocks, bad options,
# lying lengths, gzip), each compared with tshark by capcompare.py: frames read, per RoCE
# frame its number, time and PSN (ICRC ok), and for files tshark rejects exit 2, one line
# naming the file and the frame, and the report before it.  Then every prefix of two small
# captures (pcap, pcapng), read as a file (one in 7 from stdin and gzip'd too), under
# ulimit -v (not in a sanitizer build, which cannot run under one): never a crash or a hang,
# exit 0 or 2, the frames before the cut.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
gen=$build/cli/roce-gen
here=$(dirname "${BASH_SOURCE[0]}")
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -x "$gen" ] || { echo "SKIP: $gen not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$here/testlib.sh"

"$gen" -w "$tmp/g4.pcap" -m 30 -q && "$gen" --roce v6 -w "$tmp/g6.pcap" -m 30 -q ||
	{ echo "FAIL: roce-gen"; exit 1; }
mkdir "$tmp/c"
python3 "$here/capcorpus.py" "$tmp/c" "$tmp/g4.pcap" "$tmp/g6.pcap" >"$tmp/list" ||
	{ echo "FAIL: capcorpus.py"; exit 1; }

# ---- 1. each variant against tshark ------------------------------------------------------
if command -v tshark >/dev/null; then
	while read -r name kind; do
		out=$(python3 "$here/capcompare.py" "$ra" "$tmp/c/$name" "$kind" 2>&1) && ok ||
			bad "$out"
	done <"$tmp/list"
else
	echo "note: tshark not found: the variants are only read, not compared"
	while read -r name kind; do
		timeout 20 "$ra" --json "$tmp/c/$name" >/dev/null 2>&1
		rc=$?
		{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && ok || bad "$name: exit $rc"
	done <"$tmp/list"
fi

# the look-ahead of the record-header heuristic is not taken from a pipe (as Wireshark):
# a modified pcap is refused there, a Nokia one read with 16-byte headers (an error)
for name in mod-ss991029-le.pcap std-nokia-le.pcap; do
	"$ra" --json - <"$tmp/c/$name" >"$tmp/out" 2>"$tmp/err"      # stdin is the file
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$name on stdin (a file): exit $rc: $(cat "$tmp/err")"
	cat "$tmp/c/$name" | "$ra" --json - >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok ||
		bad "$name from a pipe: exit $rc: $(cat "$tmp/err")"
	case $name in mod*)
		grep -q 'cannot be read from a pipe' "$tmp/err" && ok ||
			bad "modified pcap from a pipe: $(cat "$tmp/err")" ;;
	esac
done

# ---- 2. every prefix of two small captures -------------------------------------------------
"$gen" -w "$tmp/s.pcap" -c 3 --msg-size 16 -q || { echo "FAIL: roce-gen"; exit 1; }
# the same frames as pcapng, and where the records of each end (capcorpus.py)
python3 "$here/capcorpus.py" --pcapng "$tmp/s.pcap" "$tmp/s.pcapng" >"$tmp/bounds" ||
	{ echo "FAIL: capcorpus.py --pcapng"; exit 1; }
# one python3 runs the cuts (a process per run: roce-analyze's own).  Memory bound: 400 MB of
# address space, in the main build; an ASan build reserves terabytes of shadow address space at
# start and cannot run under any such limit, so there the cuts run unbounded (ASan checks
# every access; the main build's run checks the bound).
san=0
grep -q '^ROCE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san=1
python3 - "$ra" "$tmp" "$san" <<'PY' && ok || bad "prefix runs failed"
import gzip, json, resource, subprocess, sys
ra, tmp, san = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
lines = open(tmp + "/bounds").read().split("\n")
def lim():
    if not san:
        resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))
fails = 0
for f, bounds in (("s.pcap", lines[0]), ("s.pcapng", lines[1])):
    bounds = list(map(int, bounds.split()))
    data = open("%s/%s" % (tmp, f), "rb").read()
    for n in range(len(data)):
        want = max(0, sum(b <= n for b in bounds) - 1)     # frames whole in n bytes
        cut = data[:n]
        open(tmp + "/cut", "wb").write(cut)
        # every prefix as a file; from stdin and gzip'd, one in 7 (the time it takes)
        hows = ["file"] + (["stdin", "gz"] if n % 7 == 0 else [])
        if n % 7 == 0:
            open(tmp + "/cut.gz", "wb").write(gzip.compress(cut))
        for how in hows:
            args = [ra, "--json", {"file": tmp + "/cut", "stdin": "-", "gz": tmp + "/cut.gz"}[how]]
            try:
                r = subprocess.run(args, input=cut if how == "stdin" else None,
                                   capture_output=True, timeout=10, preexec_fn=lim)
                rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
                got = json.loads(r.stdout)["summary"]["frames"] if r.stdout else 0
            except subprocess.TimeoutExpired:
                rc, err, got = "timeout", "", -1
            if rc not in (0, 2) or err.count("\n") > 1 or got != want:
                fails += 1
                if fails <= 5:
                    print("FAIL: %s cut at %d (%s): exit %s, %s frames (want %d): %s"
                          % (f, n, how, rc, got, want, err[:300]))
sys.exit(1 if fails else 0)
PY

finish
