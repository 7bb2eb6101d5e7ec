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
# and the reference: the small-frame bulk capture of bench.sh (RC WRITE of 64-byte messages, an
# ACK every 16, 64 QPs between 16 host pairs, about 500,000 frames), made with roce-gen as there
# (roce-mkcaptures --bulk made it before it was folded into roce-gen).
# The start-up of roce-analyze (loading, an empty capture: best of 3 CPU seconds) is taken off
# every time before it is divided by the frames (ns/frame): with 2,000 frames it would be most
# of the time, on a loaded machine several times the analysis itself.
# Times are CPU seconds (user + system) of the child, best of 3, so that load from other
# processes on a shared machine changes them less than wall-clock time would; ratios in the
# same run are the numbers to quote.  tshark runs on files up to TSHARK_MAX_STREAMS streams
# (it needs several GB and minutes beyond).  Prints Markdown for docs/performance.md.
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

# cpu: best of 3 "cpu_seconds peak_rss_mib" of a command (output discarded)
cpu() {
	python3 - "$@" <<'PY'
import os, resource, subprocess, sys
best = None
rss = 0
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    t = ru.ru_utime + ru.ru_stime
    best = t if best is None or t < best else best
    rss = max(rss, ru.ru_maxrss // 1024)
print(f"{best:.3f} {rss}")
PY
}
frames() {
	"$ra" --json "$1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["frames"])'
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
# net CPU_SECONDS FRAMES: ns per frame without the start-up (never below 0)
net() { echo "x = ($1 - $start_cpu) * 1000000000 / $2; if (x < 0) x = 0; x" | bc -l; }
read -r bulk_cpu bulk_rss < <(cpu "$ra" -q "$tmp/bulk.pcap")
bulk_frames=$(frames "$tmp/bulk.pcap")
bulk_ns=$(net "$bulk_cpu" "$bulk_frames")
echo "Start-up of roce-analyze -q (empty capture): $start_cpu CPU s, taken off before ns/frame."
echo

echo "| capture | streams | frames | roce-analyze -q CPU s | ns/frame | vs bulk |" \
	"--json CPU s | peak RSS MiB | tshark CPU s | tshark / -q | tshark / --json |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '| bulk, 16 host pairs, 64 QPs | 128 | %d | %.3f | %.0f | 1.00 | - | %d | - | - | - |\n' \
	"$bulk_frames" "$bulk_cpu" "$bulk_ns" "$bulk_rss"

row() { # name file streams
	local name=$1 f=$2 streams=$3 n c rss ns j jr ts ratio qratio
	n=$(frames "$f")
	read -r c rss < <(cpu "$ra" -q --max-flows 2000000 "$f")
	read -r j jr < <(cpu "$ra" --json --max-flows 2000000 "$f")
	ns=$(net "$c" "$n")
	if [ "$streams" -le "$tsmax" ]; then
		read -r ts _ < <(cpu tshark -n -q -z conv,udp -r "$f")
		ratio=$(printf '%.1f' "$(echo "$ts / $j" | bc -l)")
		qratio=$(printf '%.1f' "$(echo "$ts / $c" | bc -l)")
		ts=$(printf '%.3f' "$ts")
	else
		ts="-"; ratio="-"; qratio="-"
	fi
	[ "$jr" -gt "$rss" ] && rss=$jr
	printf '| %s | %d | %d | %.3f | %.0f | %.2f | %.3f | %d | %s | %s | %s |\n' "$name" \
		"$streams" "$n" "$c" "$ns" "$(echo "$ns / $bulk_ns" | bc -l)" "$j" "$rss" "$ts" \
		"$qratio" "$ratio"
}

for streams in 1000 10000 100000 1000000; do
	[ "$streams" -le "$max" ] || continue
	qps=$((streams / 2))
	hosts=$((qps < 50000 ? qps : 50000))
	"$gen" -q -w "$tmp/h$streams.pcap" --hosts=$hosts --qps=$((qps / hosts)) --verbs=send,read \
		--msg-size=256 --random-psn -m $((2 * qps))
	row "QPs over $hosts host pairs" "$tmp/h$streams.pcap" "$streams"
	rm -f "$tmp/h$streams.pcap"
done
for qps in 20000 50000; do
	"$gen" -q -w "$tmp/one$qps.pcap" --hosts=1 --qps=$qps --verbs=send,read --msg-size=256 \
		--random-psn -m $((2 * qps))
	row "$qps QPs, ONE host pair, random PSNs" "$tmp/one$qps.pcap" $((2 * qps))
	rm -f "$tmp/one$qps.pcap"
done
