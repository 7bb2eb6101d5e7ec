#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# many_qps.sh - roce-analyze with many queue pairs: per-frame cost against a 16-host-pair bulk
# capture, against tshark -q -z conv,udp on the same files, and peak RSS; one run.
#
#   bench/many_qps.sh [MAX_STREAMS] [TSHARK_MAX_STREAMS]   (defaults 1000000 and 200000)
#
# Builds a Release tree in out/bench and generates, in a temp dir, with roce-gen: every QP
# sends a SEND (AckReq, 256 bytes) and an RDMA READ (256 bytes) in random order, answered by an
# ACK and a READ_RESPONSE_ONLY (4 frames per QP, 2 streams per QP):
#   hosts  streams = 1k, 10k, 100k, 1M: QPs spread over min(QPs, 50000) host pairs
#   onepair  20,000 QPs (40k streams) and 50,000 QPs between ONE host pair, random initial PSNs
#   long     the hosts layouts at 1k, 10k, 100k (and 1M) streams again, every QP repeating its
#            4-frame exchange R times, the QPs' frames interleaved, so that every frame looks up
#            one of N live streams (400,000 frames at 1k and 10k; 8 frames a stream at 100k,
#            4 at 1M): the cost of a frame with N streams in the table, creation amortised
# and two references: the same exchange on 16 QPs (8 host pairs, 32 streams, 400,000 frames: the
# cost of this traffic's frame with every stream in the cache, the "vs 16 QPs" column) and
# the small-frame bulk capture of bench.sh (RC WRITE of 64-byte messages, an
# ACK every 16, 64 QPs between 16 host pairs, about 500,000 frames), made with roce-gen as there
# (roce-mkcaptures --bulk made it before it was folded into roce-gen).
# Times are CPU seconds (user + system) of the child: the kernel's own count of the time it ran
# (nanoseconds, not ticks), so that load from other processes on a shared machine changes them
# less than wall-clock time would; ratios in the same run are the numbers to quote.  Every run
# reads its capture first, untimed: the VM's balloon driver gives cached pages back within a
# minute or so, and the system time of runs on the long-lived 1M file (about 1 GB) swung 7x
# between runs of one binary (0.13-0.93 s); reading first takes disk reads out of that.  What
# it does not take out (docs/perf/many-qps-memory.md, h63): on a guest with free page reporting the
# host drops freed 2 MiB blocks within a second or so, and the next run's records fault them
# back in (4-5 ms a 2 MiB page, in system time): the 1M rows, with 330-370 MiB of records,
# swing by 100-300 ns a frame with how much of the last run's memory was taken back.
# ns/frame is the analysis alone: every roce-analyze -q run is paired with a run on the same
# capture's first 8 frames (its start-up: loading, about 10-20 ms, and the analyzer's first
# stream, request and pairing records, whose first touch maps the record arena's first huge
# page: a cost paid once a run, not per frame), the two alternating, and the median of the
# pairs' differences is divided by the other frames.  Start-up varies by a few percent from run to
# run, which is as much as the whole analysis of the 1,000-stream capture (2,000 frames, a few
# ms): so the small captures get many pairs (at least 5, until 3 s of CPU are spent, at most
# 101), and the row shows the number of pairs and their spread (interquartile range of the
# differences, ns/frame) next to the median.  "vs 16 QPs" divides that median by the 16-QP
# exchange's, measured minutes earlier; on this VM the two can fall in different memory states
# (the reference moved 209-235 ns between runs of one binary), so "vs 16 QPs, same rounds" runs
# the 16-QP exchange and its first 8 frames in every round of the row's pairs too and gives the
# median of the rounds' ratios and their interquartile range: the ratio the 1.5x target is
# about, with the reference measured in the same seconds.  The "-q CPU s" and "--json CPU s"
# columns, and the tshark ratios taken from them, are medians of whole runs, start-up included
# (tshark's too: 3 runs).
# The "in-process" columns are bench/an_bench (built in out/bench with the tools): the capture
# mapped once (MAP_POPULATE), then analysed over and over in one process, each repetition by a
# fresh analyzer with -q's configuration and decode options, the ICRC verified on the one
# thread (as roce-analyze --threads 1), through the same reader and library calls as
# roce-analyze's plain loop; each repetition's CPU time (CLOCK_PROCESS_CPUTIME_ID) from the
# first record to roce_analyzer_finish() and roce_analyzer_summary() included, divided by the
# frames: the median over the repetitions after the first (at least 5, until 2 s of CPU, at
# most 101), their count and interquartile range (ns/frame).  The analyzer's creation and
# destruction are per-run costs and not in it; no start-up, no file reading, no exit: the
# numbers the small captures' process-level pairs cannot give (the 1,000-stream capture's
# analysis is well under a ms, within the start-up's jitter).  Nor the first read of each page
# of the capture's mapping, which a roce-analyze run pays in full: about 2 us a 4 KiB page on
# the 2-vCPU VM (hypervisor time charged as user time; 100-175 ns a frame of these captures),
# so the in-process numbers are that much lower, and their ratios higher (an_bench --remap
# maps the capture anew for every repetition and agrees with the process-level --threads 1
# numbers).  docs/perf/many-qps.md compares the two.
# tshark runs on files up to TSHARK_MAX_STREAMS streams (it needs several GB and minutes
# beyond).  Prints Markdown for docs/performance.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
max=${1:-1000000}
tsmax=${2:-200000}
build=$here/out/bench
tmp=$(mktemp -d /tmp/roce-manyqp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$here/scripts/setup.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DROCE_BUILD_PLUGIN=OFF >/dev/null
ra=$build/cli/roce-analyze
gen=$build/cli/roce-gen
ab=$build/bench/an_bench

# cpu: median of 3 "cpu_seconds peak_rss_mib" of a command (output discarded)
cpu() {
	python3 - "$@" <<'PY'
import os, statistics, sys
def warm(path):
    # the VM's balloon driver gives cached pages back within a minute or so: read the
    # capture right before each timed run, so that every run reads it from the page cache
    buf = bytearray(1 << 22)
    with open(path, 'rb', buffering=0) as f:
        while f.readinto(buf):
            pass
ts = []
rss = 0
for _ in range(3):
    warm(sys.argv[-1])
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    ts.append(ru.ru_utime + ru.ru_stime)
    rss = max(rss, ru.ru_maxrss // 1024)
print(f"{statistics.median(ts):.3f} {rss}")
PY
}
# net FRAMES BASE_CAPTURE CMD...: "ns_per_frame iqr_ns_per_frame pairs" of the analysis alone:
# CMD (its last argument a capture) and CMD on BASE_CAPTURE, alternating, median of the pairs'
# CPU differences divided by FRAMES (never below 0).  With NET_REF="REF_FRAMES REF_BASE REF"
# in the environment, each round also runs CMD on REF and on REF_BASE (the 16-QP exchange and
# its first 8 frames), and a fourth and fifth field follow: the median of the rounds' ratios
# (this round's ns/frame over the reference's in the same round) and their interquartile range
net() {
	python3 - "$@" <<'PY'
import os, statistics, sys
frames, empty, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ref = os.environ.get("NET_REF", "").split()
def warm(path):
    # the VM's balloon driver gives cached pages back within a minute or so: read the
    # capture right before each timed run, so that every run reads it from the page cache
    buf = bytearray(1 << 22)
    with open(path, 'rb', buffering=0) as f:
        while f.readinto(buf):
            pass
def run(argv):
    warm(argv[-1])
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime
d, r, spent = [], [], 0.0
while len(d) < 5 or (spent < 3.0 and len(d) < 101):
    a = run(cmd)
    b = run(cmd[:-1] + [empty])
    d.append(a - b)
    spent += a + b
    if ref:
        ra = run(cmd[:-1] + [ref[2]])
        rb = run(cmd[:-1] + [ref[1]])
        if ra > rb:
            r.append(((a - b) / frames) / ((ra - rb) / int(ref[0])))
q = statistics.quantiles(d, n=4) if len(d) > 1 else [d[0]] * 3
ns = lambda x: max(x, 0.0) * 1e9 / frames
out = f"{ns(statistics.median(d)):.0f} {ns(q[2]) - ns(q[0]):.0f} {len(d)}"
if ref:
    rq = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
    out += f" {max(statistics.median(r), 0.0):.2f} {rq[2] - rq[0]:.2f}"
print(out)
PY
}
# head8 FILE: FILE.head8, a classic pcap of FILE's first 8 records (the baseline of net())
head8() {
	python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f, open(sys.argv[1] + '.head8', 'wb') as o:
    o.write(f.read(24))
    for _ in range(8):
        h = f.read(16)
        o.write(h + f.read(struct.unpack('<IIII', h)[2]))
PY
}
frames() {
	"$ra" --json "$1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["frames"])'
}
# inproc FRAMES FILE: "cpu_ns_per_frame iqr reps" of bench/an_bench on FILE (see above), which
# must count FRAMES frames as roce-analyze --json did
inproc() {
	local out got
	out=$("$ab" -t 2 --max-flows 2000000 "$2") || exit 1
	got=$(kv summary_frames "$out")
	if [ "$got" != "$1" ]; then
		echo "many_qps: $2: an_bench counted $got frames, roce-analyze $1" >&2
		exit 1
	fi
	echo "$(kv cpu_ns "$out") $(kv cpu_iqr "$out") $(kv reps "$out")"
}
# kv KEY LINE: the value of KEY=value in an_bench's LINE
kv() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1)
		print substr($i, length(k) + 2) }' <<<"$2"
}

echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "roce-analyze $("$ra" --version 2>/dev/null | head -1), $(tshark --version | head -1)"
echo

"$gen" -q -w "$tmp/bulk.pcap" -c 500000 --qps 4 --hosts 16 --verbs write --msg-size 64 \
	--ack-every 16 --pps 1M
# an empty classic pcap (the 24-byte file header, Ethernet): roce-analyze's start-up
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0' >"$tmp/empty.pcap"
read -r start_cpu _ < <(cpu "$ra" -q "$tmp/empty.pcap")
read -r bulk_cpu bulk_rss < <(cpu "$ra" -q "$tmp/bulk.pcap")
bulk_frames=$(frames "$tmp/bulk.pcap")
head8 "$tmp/bulk.pcap"
read -r bulk_ns bulk_iqr bulk_pairs < <(net $((bulk_frames - 8)) "$tmp/bulk.pcap.head8" "$ra" -q \
	"$tmp/bulk.pcap")
read -r bulk_ab bulk_ab_iqr bulk_ab_reps < <(inproc "$bulk_frames" "$tmp/bulk.pcap")
echo "Start-up of roce-analyze -q (empty capture): $start_cpu CPU s (median of 3); ns/frame:" \
	"median of paired differences against a run on the capture's first 8 frames, divided by" \
	"the other frames (pairs, interquartile range in ns/frame). In-process: bench/an_bench," \
	"CPU ns/frame of one analysis from the first record to the summary (median of the" \
	"repetitions after the first, their count, interquartile range)."
echo

echo "| capture | streams | frames | roce-analyze -q CPU s | ns/frame (pairs, IQR) | vs bulk |" \
	"vs 16 QPs | vs 16 QPs, same rounds (IQR) | in-process ns/frame (reps, IQR) |" \
	"in-process vs 16 QPs | --json CPU s | peak RSS MiB | tshark CPU s | tshark / -q |" \
	"tshark / --json |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '| bulk, 16 host pairs, 64 QPs | 128 | %d | %.3f | %.0f (%d, %d) | 1.00 | - | - |' \
	"$bulk_frames" "$bulk_cpu" "$bulk_ns" "$bulk_pairs" "$bulk_iqr"
printf ' %.0f (%d, %.0f) | - | - | %d | - | - | - |\n' "$bulk_ab" "$bulk_ab_reps" "$bulk_ab_iqr" \
	"$bulk_rss"

row() { # name file streams [rounds]
	local name=$1 f=$2 streams=$3 rounds=${4:-} n c rss ns iqr pairs j jr ts ratio qratio
	local abn abi abr rr rri
	n=$(frames "$f")
	read -r c rss < <(cpu "$ra" -q --max-flows 2000000 "$f")
	read -r j jr < <(cpu "$ra" --json --max-flows 2000000 "$f")
	head8 "$f"
	if [ -n "${ref_ns:-}" ]; then
		read -r ns iqr pairs rr rri < <(NET_REF="$ref_frames $tmp/ref.pcap.head8 $tmp/ref.pcap" \
			net $((n - 8)) "$f.head8" "$ra" -q --max-flows 2000000 "$f")
	else
		read -r ns iqr pairs < <(net $((n - 8)) "$f.head8" "$ra" -q --max-flows 2000000 "$f")
		rr=1.00 rri=-
	fi
	read -r abn abi abr < <(inproc "$n" "$f")
	if [ "$streams" -le "$tsmax" ]; then
		read -r ts _ < <(cpu tshark -n -q -z conv,udp -r "$f")
		ratio=$(printf '%.1f' "$(echo "$ts / $j" | bc -l)")
		qratio=$(printf '%.1f' "$(echo "$ts / $c" | bc -l)")
		ts=$(printf '%.3f' "$ts")
	else
		ts="-"; ratio="-"; qratio="-"
	fi
	[ "$jr" -gt "$rss" ] && rss=$jr
	printf '| %s | %d |%s %d | %.3f | %.0f (%d, %d) | %.2f | %.2f | %s (%s) |' \
		"$name" "$streams" "${rounds:+ $rounds |}" "$n" "$c" "$ns" "$pairs" "$iqr" \
		"$(echo "$ns / $bulk_ns" | bc -l)" "$(echo "$ns / ${ref_ns:-$ns}" | bc -l)" "$rr" "$rri"
	printf ' %.0f (%d, %.0f) | %.2f |' "$abn" "$abr" "$abi" "$(echo "$abn / ${ref_ab:-$abn}" | bc -l)"
	printf ' %.3f | %d | %s | %s | %s |\n' "$j" "$rss" "$ts" "$qratio" "$ratio"
	last_ns=$ns last_ab=$abn
}

# the same exchange on 16 QPs (8 host pairs, 32 streams), 200,000 messages: what a frame of this
# traffic costs when its stream is always in the cache (the "vs 16 QPs" column)
"$gen" -q -w "$tmp/ref.pcap" --hosts=8 --qps=2 --verbs=send,read --msg-size=256 --random-psn \
	-m 200000
ref_ns= ref_ab=
row "same exchange, 16 QPs over 8 host pairs" "$tmp/ref.pcap" 32
ref_ns=$last_ns ref_ab=$last_ab ref_frames=$(($(frames "$tmp/ref.pcap") - 8))

for streams in 1000 10000 100000 1000000; do
	[ "$streams" -le "$max" ] || continue
	qps=$((streams / 2))
	hosts=$((qps < 50000 ? qps : 50000))
	"$gen" -q -w "$tmp/h$streams.pcap" --hosts=$hosts --qps=$((qps / hosts)) --verbs=send,read \
		--msg-size=256 --random-psn -m $((2 * qps))
	row "QPs over $hosts host pairs" "$tmp/h$streams.pcap" "$streams"
	rm -f "$tmp/h$streams.pcap"*
done
for qps in 20000 50000; do
	"$gen" -q -w "$tmp/one$qps.pcap" --hosts=1 --qps=$qps --verbs=send,read --msg-size=256 \
		--random-psn -m $((2 * qps))
	row "$qps QPs, ONE host pair, random PSNs" "$tmp/one$qps.pcap" $((2 * qps))
	rm -f "$tmp/one$qps.pcap"*
done

echo
echo "Long-lived streams: the same layouts with every QP repeating its exchange R times (rounds)."
echo
echo "| capture | streams | rounds | frames | roce-analyze -q CPU s | ns/frame (pairs, IQR) |" \
	"vs bulk | vs 16 QPs | vs 16 QPs, same rounds (IQR) | in-process ns/frame (reps, IQR) |" \
	"in-process vs 16 QPs | --json CPU s | peak RSS MiB | tshark CPU s | tshark / -q |" \
	"tshark / --json |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for streams in 1000 10000 100000 1000000; do
	[ "$streams" -le "$max" ] || continue
	qps=$((streams / 2))
	hosts=$((qps < 50000 ? qps : 50000))
	msgs=$((streams * 2 > 200000 ? streams * 2 : 200000))
	[ "$streams" -ge 1000000 ] && msgs=$((streams * 2))
	[ "$streams" -ge 100000 ] && [ "$streams" -lt 1000000 ] && msgs=$((streams * 4))
	"$gen" -q -w "$tmp/l$streams.pcap" --hosts=$hosts --qps=$((qps / hosts)) --verbs=send,read \
		--msg-size=256 --random-psn -m "$msgs"
	row "QPs over $hosts host pairs" "$tmp/l$streams.pcap" "$streams" "$((msgs / streams))"
	rm -f "$tmp/l$streams.pcap"*
done
