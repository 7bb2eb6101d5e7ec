#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_capture.sh - roce-analyze -i on its own veth pair (private namespaces, txlib.sh):
# traffic made by roce-gen and sent by roce-replay is counted live exactly as file analysis
# counts the same file; -c, --duration and SIGTERM end the run with a complete report; the
# default filter keeps other traffic out and -f narrows it; the "listening on" line on stderr;
# -w saves what was seen, with tcpdump's -C/-W rotation; a missing interface and a missing
# privilege are one-line errors (exit 2).  Every step is bounded by timeout.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
tx_setup 1

"$rg" -w "$tmp/a.pcap" --qps 4 --random-psn --seed 3 -m 300 --loss 0.02 --bad-icrc-rate 0.01 \
	--ce-rate 0.02 --pfc prio=3,length=1ms > /dev/null || bad "roce-gen"
"$ra" --json "$tmp/a.pcap" > "$tmp/file.json" || bad "file analysis"

# live run in the far namespace, in the background (bounded by its own --duration, which
# every call gives: a timeout(1) wrapper would stand between the test's SIGTERM and it);
# waits until the capture is open.  A large -B and a moderate rate: no capture drops even
# on a loaded machine (the counters are compared with the file's).
live_start() {
	rm -f "$tmp/live.out" "$tmp/live.err"
	ip netns exec "$ns" "$ra" -B 65536 -i "$if_b" "$@" > "$tmp/live.out" 2> "$tmp/live.err" &
	live_pid=$!
	live_ready $live_pid "$tmp/live.err" ||
		bad "the capture did not start: $(cat "$tmp/live.err")"
}
live_wait() {
	wait "$live_pid"
	live_rc=$?
}
send() {
	timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$@" > /dev/null || bad "replay $*"
}

cat > "$tmp/cmp.py" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
# what differs by nature: the clock (live timestamps are the receive times) and the filter
skip = {"filter", "first_ts", "last_ts", "earliest_ts", "latest_ts", "duration_s",
        "interrupted", "complete", "frames_filtered_out"}
sa, sb = a["summary"], b["summary"]
bad = ["summary.%s: file %r, live %r" % (k, sa[k], sb.get(k))
       for k in sa if k not in skip and sa[k] != sb.get(k)]
keep = lambda rows: [{k: v for k, v in r.items() if not k.endswith("_ts") and "latency" not in k
                      and not k.endswith("_us") and "per_s" not in k and "rtt" not in k and "paused" not in k and "duration" not in k}
                     for r in rows]
for key in ("qps",):
    if keep(a.get(key, [])) != keep(b.get(key, [])):
        bad.append("%s tables differ" % key)
if "qps tables differ" in bad:
    for ra, rb in zip(keep(a.get("qps", [])), keep(b.get("qps", []))):
        for k in ra:
            if ra[k] != rb.get(k): print("    qps.%s: %r %r" % (k, ra[k], rb.get(k)))
for x in bad:
    print("    " + x)
sys.exit(1 if bad else 0)
PY

# 1. same frames, same counters; ended by --duration
live_start --json --duration 5
send "$tmp/a.pcap"
live_wait
[ "$live_rc" -eq 0 ] && ok || bad "--duration run exit $live_rc: $(cat "$tmp/live.err")"
if python3 "$tmp/cmp.py" "$tmp/file.json" "$tmp/live.out"; then ok; else bad "live != file"; fi
grep -q '"filter": "(ether proto 0x8915' "$tmp/live.out" && ok || bad "default filter in report"
# tcpdump's start line, the only line on stderr
[ "$(cat "$tmp/live.err")" = "roce-analyze: listening on $if_b, link-type EN10MB (Ethernet), \
snapshot length 262144 bytes" ] && ok || bad "start line: $(cat "$tmp/live.err")"

# 2. SIGTERM mid-run: a complete report of what was seen, exit 0
live_start --json --duration 50
send "$tmp/a.pcap"
sleep 0.5
kill -TERM "$live_pid"
live_wait
[ "$live_rc" -eq 0 ] && ok || bad "SIGTERM exit $live_rc: $(cat "$tmp/live.err")"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["interrupted"]' \
	"$tmp/live.out" && ok || bad "SIGTERM: no complete JSON report"
if python3 "$tmp/cmp.py" "$tmp/file.json" "$tmp/live.out"; then ok; else bad "SIGTERM live != file"; fi

# 3. -c: stops by itself after N frames; the text report too
live_start -c 100 --duration 30
send "$tmp/a.pcap"
live_wait
[ "$live_rc" -eq 0 ] && ok || bad "-c exit $live_rc"
grep -q "^  Frames: *100 (stopped by -c)" "$tmp/live.out" && ok || bad "-c 100: $(grep Frames "$tmp/live.out")"

# 4. other traffic is not captured; -f narrows, and so do words after -i (joined by "and"),
# both added to the default filter
"$rg" -w "$tmp/b.pcap" --qps 2 --seed 4 -m 100 --src-ip 10.7.0.1 --dst-ip 10.7.0.2 > /dev/null
"$build/tests/roce_txtest" mkframes "$tmp/noise.pcap" 500 64 > /dev/null 2>&1 || bad "mkframes"
"$ra" --json "$tmp/b.pcap" > "$tmp/fileb.json"
live_start --json --duration 5 -f 'ip src host 10.7.0.1 or ip dst host 10.7.0.1' udp
send "$tmp/a.pcap" "$tmp/noise.pcap" "$tmp/b.pcap"
live_wait
if python3 "$tmp/cmp.py" "$tmp/fileb.json" "$tmp/live.out"; then ok; else bad "filtered live != file b"; fi
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["summary"]["filter"]
x = "ether proto 0x8915 or ether proto 0x8808 or udp dst port 4791"
assert f == "((%s) or (vlan and (%s))) and ((ip src host 10.7.0.1 or ip dst host 10.7.0.1) and (udp))" \
    % (x, x), f' "$tmp/live.out" &&
	ok || bad "-f and words not added to the default filter: $(grep '"filter"' "$tmp/live.out")"

# 4b. SIGINT with --csv and -s 128, sent right as the sender ends (the last frames are still
# in the kernel's block, not handed over yet): the CSV report of every stream as for the
# file; -w keeps what was captured, frames cut to 128 bytes
"$ra" --csv "$tmp/a.pcap" > "$tmp/file.csv"
live_start --csv -s 128 -w "$tmp/s.pcap" --duration 50
send "$tmp/a.pcap"
kill -INT "$live_pid"
live_wait
[ "$live_rc" -eq 0 ] && ok || bad "SIGINT --csv exit $live_rc: $(cat "$tmp/live.err")"
cut_csv() { cut -d, -f1-4,6,7 "$1" | sort; }
[ -s "$tmp/file.csv" ] && [ "$(cut_csv "$tmp/file.csv")" = "$(cut_csv "$tmp/live.out")" ] && ok ||
	bad "SIGINT --csv: streams, frames, bytes differ: $(diff <(cut_csv "$tmp/file.csv") <(cut_csv "$tmp/live.out") | head -5)"
python3 - "$tmp/s.pcap" <<'PY' && ok || bad "-s 128 not applied to the -w file"
import struct, sys
d = open(sys.argv[1], "rb").read()
assert struct.unpack("<I", d[16:20])[0] == 128, "snaplen in the header"
off, n, cut = 24, 0, 0
while off < len(d):
    incl, orig = struct.unpack("<II", d[off + 8:off + 16])
    assert incl <= 128
    n += 1; cut += orig > incl
    off += 16 + incl
assert n > 1000 and cut > 1000, (n, cut)
PY

# 5. -w with rotation (-C 1 -W 3: FILE0, FILE1), together the frames sent, in order
live_start -q --duration 5 -w "$tmp/rot.pcap" -C 1 -W 3
send "$tmp/a.pcap"
live_wait
[ "$live_rc" -eq 0 ] && ok || bad "-w exit $live_rc: $(cat "$tmp/live.err")"
[ -f "$tmp/rot.pcap0" ] && [ -f "$tmp/rot.pcap1" ] && [ ! -e "$tmp/rot.pcap2" ] && ok ||
	bad "rotation files: $(ls "$tmp" | grep rot | tr '\n' ' ')"
[ "$(stat -c %s "$tmp/rot.pcap0" 2>/dev/null || echo 0)" -gt 1000000 ] && ok || bad "rot0 size"
"$txtest" digest "$tmp/a.pcap" > "$tmp/want.dig"
cat "$tmp/rot.pcap0" > /dev/null 2>&1 &&
	{ "$txtest" digest "$tmp/rot.pcap0"; "$txtest" digest "$tmp/rot.pcap1"; } > "$tmp/got.dig"
cmp -s "$tmp/want.dig" "$tmp/got.dig" && ok || bad "-w files differ from what was sent"
"$ra" --json "$tmp/rot.pcap0" "$tmp/rot.pcap1" > "$tmp/rot.json"
python3 -c 'import json,sys
a=json.load(open(sys.argv[1]))["summary"]; b=json.load(open(sys.argv[2]))["summary"]
assert a["frames"] == b["frames"] and a["icrc_bad"] == b["icrc_bad"], (a["frames"], b["frames"])' \
	"$tmp/file.json" "$tmp/rot.json" && ok || bad "-w files analyse like the original"

# 5b. -C without -W: FILE, FILE1, FILE2... (as tcpdump); the file sent twice
cat "$tmp/want.dig" "$tmp/want.dig" > "$tmp/want2.dig"
live_start -q --duration 8 -w "$tmp/c.pcap" -C 1
send "$tmp/a.pcap"
send "$tmp/a.pcap"
live_wait
[ -f "$tmp/c.pcap" ] && [ -f "$tmp/c.pcap1" ] && [ -f "$tmp/c.pcap2" ] && [ ! -e "$tmp/c.pcap0" ] &&
	ok || bad "-C without -W: $(ls "$tmp" | grep '^c\.' | tr '\n' ' ')"
for f in "$tmp/c.pcap" "$tmp"/c.pcap[1-9]*; do "$txtest" digest "$f"; done > "$tmp/got2.dig"
cmp -s "$tmp/want2.dig" "$tmp/got2.dig" && ok || bad "-C files differ from what was sent"

# 5c. -C 1 -W 2 with more than 2 MB: the ring wraps, FILE0 is reused; the two files hold the
# newest frames, the older file first
live_start -q --duration 8 -w "$tmp/w.pcap" -C 1 -W 2
send "$tmp/a.pcap"
send "$tmp/a.pcap"
live_wait
[ -f "$tmp/w.pcap0" ] && [ -f "$tmp/w.pcap1" ] && [ ! -e "$tmp/w.pcap2" ] && [ ! -e "$tmp/w.pcap" ] &&
	ok || bad "-W 2: $(ls "$tmp" | grep '^w\.' | tr '\n' ' ')"
{ "$txtest" digest "$tmp/w.pcap1"; "$txtest" digest "$tmp/w.pcap0"; } > "$tmp/gotw.dig"
n2=$(wc -l < "$tmp/want2.dig") nw=$(wc -l < "$tmp/gotw.dig")
[ "$nw" -lt "$n2" ] && [ "$nw" -gt $((n2 / 3)) ] &&
	cmp -s <(tail -n "$nw" "$tmp/want2.dig") "$tmp/gotw.dig" && ok ||
	bad "-W 2 ring: $nw of $n2 frames, not the newest in order"

# 6. errors: one line, exit 2
ip netns exec "$ns" timeout 10 "$ra" -i nosuch0 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
	grep -q "^roce-analyze: nosuch0: no such interface" "$tmp/err" && ok ||
	bad "missing interface: rc $rc: $(cat "$tmp/err")"
if command -v setpriv > /dev/null; then
	ip netns exec "$ns" timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$ra" -i "$if_b" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "CAP_NET_RAW" "$tmp/err" && ok ||
		bad "no privilege: rc $rc: $(cat "$tmp/err")"
fi
"$ra" -w "$tmp/x.pcap" "$tmp/a.pcap" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "^roce-analyze: -w needs -i" "$tmp/err" && ok || bad "-w without -i"
"$ra" -i lo -r "$tmp/a.pcap" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && ok || bad "-i with -r"
finish
