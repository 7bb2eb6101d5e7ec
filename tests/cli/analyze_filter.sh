#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_filter.sh - BPF filters on files (tcpdump -r FILE EXPR, and -f EXPR): two
# generated traffics, one per host pair, merged into one file; filtering the merged file
# down to one host gives the same counters as analysing that host's traffic alone, frame
# numbers stay those of the merged file, -c counts matching frames, bad expressions are a
# usage error (exit 2).
set -u
build=$1 src=$2
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
command -v mergecap > /dev/null || { echo "SKIP: mergecap not installed"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# A: lossy, bad ICRC, CE, at 10G; B: other hosts, other faults, at 100G: interleaved
"$rg" -w "$tmp/a.pcap" --qps 4 --random-psn --seed 1 -m 300 --loss 0.02 --bad-icrc-rate 0.01 \
	--ce-rate 0.02 --rate 10G --src-ip 10.0.0.1 --dst-ip 10.0.0.2 --src-mac 02:00:00:00:00:01 \
	--dst-mac 02:00:00:00:00:02 > /dev/null || bad "roce-gen a"
"$rg" -w "$tmp/b.pcap" --qps 3 --random-psn --seed 2 -m 300 --dup-rate 0.03 \
	--verbs write,read --src-ip 10.9.0.1 --dst-ip 10.9.0.2 --src-mac 02:00:00:00:00:11 \
	--dst-mac 02:00:00:00:00:12 > /dev/null || bad "roce-gen b"
mergecap -F nsecpcap -w "$tmp/ab.pcap" "$tmp/a.pcap" "$tmp/b.pcap" || bad "mergecap"

cat > "$tmp/cmp.py" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
skip = {"filter", "frames_filtered_out", "files"}
sa, sb = a["summary"], b["summary"]
bad = ["summary.%s: alone %r, filtered %r" % (k, sa[k], sb.get(k))
       for k in sa if k not in skip and sa[k] != sb.get(k)]
for key in ("qps", "pfc"):
    strip = lambda rows: [{k: v for k, v in r.items() if "frame" not in k} for r in rows]
    if strip(a.get(key, [])) != strip(b.get(key, [])):
        bad.append("%s tables differ" % key)
if len(a.get("anomalies", [])) != len(b.get("anomalies", [])):
    bad.append("anomaly lists differ in length")
for x in bad:
    print("    " + x)
sys.exit(1 if bad else 0)
PY

"$ra" --json "$tmp/a.pcap" > "$tmp/alone.json" || bad "analyse a.pcap"
nab=$("$ra" --json "$tmp/ab.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["frames"])')
na=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' "$tmp/alone.json")

# tcpdump style: words after -r FILE are the expression
"$ra" --json -r "$tmp/ab.pcap" host 10.0.0.1 > "$tmp/f1.json"
rc=$?
[ $rc -eq 0 ] && ok || bad "filtered run exit $rc"
if python3 "$tmp/cmp.py" "$tmp/alone.json" "$tmp/f1.json"; then ok; else bad "host filter != alone"; fi
out=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["filter"], s["frames_filtered_out"], s["frames"])' "$tmp/f1.json")
[ "$out" = "host 10.0.0.1 $((nab - na)) $na" ] && ok || bad "filter fields: '$out' (ab $nab, a $na)"

# -f, quoted, and combined with words (joined by and)
"$ra" --json -f 'ip host 10.0.0.1 or ip host 10.0.0.2' "$tmp/ab.pcap" > "$tmp/f2.json"
if python3 "$tmp/cmp.py" "$tmp/alone.json" "$tmp/f2.json"; then ok; else bad "-f != alone"; fi
"$ra" --json -f 'udp' -r "$tmp/ab.pcap" 'host 10.0.0.2' > "$tmp/f3.json"
if python3 "$tmp/cmp.py" "$tmp/alone.json" "$tmp/f3.json"; then ok; else bad "-f + words != alone"; fi
grep -q '"filter": "(udp) and (host 10.0.0.2)"' "$tmp/f3.json" && ok || bad "joined filter text"

# frame numbers are those of the merged file: the frames listed are exactly the A frames,
# by their numbers in ab.pcap, not renumbered 1..n
"$ra" --frames --json -r "$tmp/ab.pcap" 'host 10.9.0.1' > "$tmp/fr.jsonl"
python3 - "$tmp/fr.jsonl" "$nab" <<'PY' && ok || bad "frame numbers of filtered --frames"
import json, sys
nos = [json.loads(l)["frame"] for l in open(sys.argv[1]) if l.startswith('{"frame"')]
assert nos, "no frames"
assert nos == sorted(nos) and nos[-1] <= int(sys.argv[2])
# the numbers are not 1..n (they are the file's)
assert nos != list(range(1, len(nos) + 1)), "renumbered"
PY

# -c counts matching frames
n=$("$ra" --json -c 5 -r "$tmp/ab.pcap" host 10.9.0.1 |
	python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["frames"], s["stopped_by_count"])')
[ "$n" = "5 True" ] && ok || bad "-c 5 with filter: $n"

# a filter that matches nothing: zero frames, exit 0
"$ra" --json -r "$tmp/ab.pcap" 'host 192.0.2.99' > "$tmp/none.json" && ok || bad "empty match exit"
grep -q '"frames": 0,' "$tmp/none.json" && ok || bad "empty match frames"

# text report names the filter
"$ra" -r "$tmp/ab.pcap" host 10.0.0.1 | grep -q "^  Filter: *host 10.0.0.1 (" && ok || bad "text Filter line"

# errors: exit 2, one line naming the expression
"$ra" -r "$tmp/ab.pcap" 'host and and' > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^roce-analyze: filter 'host and and': " "$tmp/err" && ok ||
	bad "bad filter: rc $rc, $(cat "$tmp/err")"
# libpcap is opened on first use (cli/common/pcapdl.c), not linked: a run without a filter
# never maps it, and where it is missing a filter is the same one-line usage error
if command -v readelf > /dev/null; then
	readelf -d "$ra" | grep -q 'NEEDED.*libpcap' && bad "roce-analyze links libpcap" || ok
fi
lib=$(ldconfig -p | awk '/libpcap\.so\.0\.8 .*x86-64|libpcap\.so\.0\.8 \(libc6\)/ { print $NF; exit }')
if [ "$(id -u)" = 0 ] && [ -n "$lib" ] && command -v unshare > /dev/null &&
	unshare -m true 2> /dev/null; then
	# hide the shared object in a private mount namespace
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift &&
		"$@" -f udp "$0" > /dev/null 2> "$0.err"; echo $? > "$0.rc";
		"$@" --json "$0" > "$0.json"' "$tmp/a.pcap" "$lib" "$ra"
	[ "$(cat "$tmp/a.pcap.rc")" = 2 ] && [ "$(wc -l < "$tmp/a.pcap.err")" -ge 1 ] &&
		grep -q "^roce-analyze: filter 'udp': libpcap: " "$tmp/a.pcap.err" && ok ||
		bad "filter without libpcap: rc $(cat "$tmp/a.pcap.rc"), $(cat "$tmp/a.pcap.err")"
	grep -q '"frames": [1-9]' "$tmp/a.pcap.json" && ok || bad "no filter, no libpcap: no report"
else
	echo "skip: hiding libpcap needs root and unshare -m"
fi
# without -r, words are files (unchanged behaviour)
"$ra" --json "$tmp/a.pcap" "$tmp/b.pcap" > "$tmp/two.json" && ok || bad "two files"
grep -q '"files": 2,' "$tmp/two.json" && ok || bad "two positional files"
finish
