#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - roce-analyze against tshark and a bare libpcap read loop, same files, one run.
#
#   bench/bench.sh [MEGABYTES]      (default 512)
#
# Builds a Release tree in out/bench and generates, in a temp dir, two RC WRITE captures of
# about MEGABYTES each with roce-gen (64 QPs on 16 host pairs, one ACK per 16 packets):
#   large   1024-byte payloads: 16 KiB WRITEs at PMTU 1024, FIRST + 14 MIDDLE + LAST + ACK
#           (~1.1 KB frames: bandwidth-bound)
#   small     64-byte payloads: 64-byte WRITE_ONLYs, AckReq on every 16th (~126 B frames:
#           per-frame cost dominates)
# The large mix is the realistic one: the real captures in ../shared/captures (Soft-RoCE
# WRITE/READ/SEND, a hardware NIC) average 900-1050 bytes per RoCE frame.  The small mix is
# the worst case for per-frame work.
#
# Page cache: each file is timed warm, in the state a capture is in after it was read
# from disk (the script drops the file from the cache and reads it back with cat: the
# kernel then caches it in large folios).  roce-analyze is also timed once right after
# the file was written (cached in 4 KiB pages, which cost its mmap reader's helper thread
# more page-table work); that row is marked "just written".
#
# On each it times, in interleaved rounds (every tool once per round, the order turned by one
# tool each round, ROUNDS rounds, default 5;
# tshark only in the first TSHARK_ROUNDS, default 3), the median wall time and the median CPU
# time (user + sys of the process) of:
#   1. floor, 1 thread: every byte of the cached file read once through a populated mapping
#      (bench/floor.c: mmap MAP_POPULATE, sum of 64-bit words): the least work a tool that
#      verifies every ICRC must do, on one core
#   2. floor, 2 threads: the same, each thread over one half
#   2a. floor, read(): one thread read()ing the file into one reused 256 KiB buffer, each
#      word summed once (bench/floor.c FILE read): the floor of roce-analyze's read() reader
#      of classic pcap (on a PVM guest a new mapping's first access to each page costs more
#      than read()'s copy)
#   3. a bare libpcap read loop (bench/pcap_loop.c, pcap_next_ex)
#   4. roce-analyze --json              (ICRC verified, ISA-L CRC; --threads 2 by default)
#   5. roce-analyze --json --threads 1  (the one-thread path)
#   6. roce-analyze --json --no-icrc
#   7. tshark -q -z conv,udp
#   8. roce-analyze --json of the large mix converted to pcapng (editcap -F pcapng), the format
#      Wireshark and dumpcap write by default (read with read() into the buffer as classic pcap)
# and the peak RSS of roce-analyze on MEGABYTES/4 and MEGABYTES (must stay flat).
# Prints Markdown for docs/performance.md, with the CPU model and the load average.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mb=${1:-512}
build=$here/out/bench
tmp=$(mktemp -d /tmp/roce-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$here/scripts/setup.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DROCE_BUILD_PLUGIN=OFF >/dev/null
cc -O2 -o "$tmp/pcap_loop" "$here/bench/pcap_loop.c" -lpcap
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
# bulk FILE MEGABYTES PAYLOAD: about MEGABYTES of RC WRITE traffic (frames of PAYLOAD + ~74 B)
bulk() {
	local frames=$(( ($2 << 20) / ($3 + 90) )) shape
	if [ "$3" -ge 256 ]; then
		shape="--msg-size $((16 * $3)) --pmtu $3"
	else
		shape="--msg-size $3 --ack-every 16"
	fi
	"$rg" -w "$1" -c "$frames" --qps 4 --hosts 16 --verbs write $shape --pps 1M -q
}

# rounds OUT ROUNDS [LABEL:RUNS:COMMAND...]...: interleaved runs, the order turned by one each
# round; per label "median-wall median-cpu"
# (a label runs in the first RUNS rounds only; the file named by $CACHE_FILE is read with cat
# before each round: a VM's balloon driver may hand cached pages back to the host).
rounds() {
	python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, time
out, n, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
jobs = []
for sp in specs:
    label, runs, cmd = sp.split(":", 2)
    jobs.append((label, int(runs), cmd.split("\x1f")))
res = {label: ([], []) for label, _, _ in jobs}
cache = os.environ.get("CACHE_FILE")
for r in range(n):
    if cache:
        subprocess.run(["cat", cache], stdout=subprocess.DEVNULL, check=True)
    # the order turns by one job each round, so that no tool always runs right after the
    # same other one: in the fixed order, --json came out 1.26-1.31x --threads 1 in two runs
    # of 6 December 2026 (the same reader, the same system calls) while perf stat and paired
    # runs put the two level; turning spreads what a position costs over every tool
    k = r % len(jobs)
    for label, runs, cmd in jobs[k:] + jobs[:k]:
        if r >= runs:
            continue
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        res[label][0].append(t)
        res[label][1].append(ru.ru_utime + ru.ru_stime)
with open(out, "w") as f:
    for label, _, _ in jobs:
        w, c = res[label]
        f.write("%s %.4f %.4f\n" % (label, statistics.median(w), statistics.median(c)))
PY
}
# cmd ARGS...: one command for rounds (arguments joined with the unit separator)
cmd() { local IFS=$'\x1f'; echo "$*"; }
peak_rss_mib() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
}
r2() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
# Drop a file from the page cache (written back first), then read it back: as if read from disk.
recache() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$1"
	cat "$1" >/dev/null
}

rounds_n=${ROUNDS:-5}
ts_rounds=${TSHARK_ROUNDS:-3}
cc -O2 -pthread -o "$tmp/floor" "$here/bench/floor.c"
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "$(tshark --version 2>/dev/null | head -1 | sed 's/ (Git.*//'); libpcap $(pkg-config --modversion libpcap); $("$ra" --version | head -1)"
echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| capture | frames | tool | wall s | CPU s | Gbit/s | vs floor 1T | vs libpcap loop | tshark / tool |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|"
for mix in large:1024 small:64; do
	name=${mix%%:*} pay=${mix##*:}
	f=$tmp/$name.pcap
	bulk "$f" "$mb" "$pay"
	size=$(stat -c %s "$f")
	rounds "$tmp/new" 3 "new:3:$(cmd "$ra" --json "$f")"
	recache "$f"
	frames=$("$tmp/pcap_loop" "$f" | awk '{print $1}')
	# the large mix also as pcapng, as Wireshark and dumpcap write it (editcap)
	ng=()
	if [ "$name" = large ]; then
		editcap -F pcapng "$f" "$tmp/$name.pcapng"
		recache "$tmp/$name.pcapng"
		ng=("ng:99:$(cmd "$ra" --json "$tmp/$name.pcapng")")
	fi
	CACHE_FILE=$f rounds "$tmp/t" "$rounds_n" "${ng[@]}" \
		"floor1:99:$(cmd "$tmp/floor" "$f" 1)" "floor2:99:$(cmd "$tmp/floor" "$f" 2)" \
		"floorr:99:$(cmd "$tmp/floor" "$f" read)" \
		"pcap:99:$(cmd "$tmp/pcap_loop" "$f")" "ra:99:$(cmd "$ra" --json "$f")" \
		"ra1:99:$(cmd "$ra" --json --threads 1 "$f")" \
		"nc:99:$(cmd "$ra" --json --no-icrc "$f")" \
		"ts:$ts_rounds:$(cmd tshark -q -z conv,udp -r "$f")"
	cat "$tmp/new" >>"$tmp/t"
	get() { awk -v l="$1" -v k="$2" '$1 == l { print $k }' "$tmp/t"; }
	t_floor=$(get floor1 2) t_pcap=$(get pcap 2) t_ts=$(get ts 2)
	for row in "floor1:floor, 1 thread (every byte read once)" "floor2:floor, 2 threads" \
	           "floorr:floor, 1 thread, read() into a 256 KiB buffer" \
	           "pcap:bare libpcap loop" "ra:roce-analyze --json (--threads 2)" \
	           "ra1:roce-analyze --json --threads 1" "nc:roce-analyze --json --no-icrc" \
	           "ts:tshark -q -z conv,udp" "new:roce-analyze --json, file just written" \
	           "ng:roce-analyze --json, the capture as pcapng (editcap; Gbit/s of its size)"; do
		key=${row%%:*} tool=${row#*:}
		t=$(get "$key" 2) c=$(get "$key" 3)
		[ -n "$t" ] || continue
		[ "$key" = ng ] && size=$(stat -c %s "$tmp/$name.pcapng")
		printf '| %s (%d MiB, %d B payload) | %d | %s | %.3f | %.3f | %.2f | %s | %s | %s |\n' "$name" \
			$((size >> 20)) "$pay" "$frames" "$tool" "$t" "$c" \
			"$(echo "$size * 8 / $t / 1000000000" | bc -l)" "$(r2 "$t" "$t_floor")" \
			"$(r2 "$t" "$t_pcap")" "$(r2 "$t_ts" "$t")"
	done
done
bulk "$tmp/q.pcap" $((mb / 4)) 1024
recache "$tmp/q.pcap"
rq=$(peak_rss_mib "$ra" --json "$tmp/q.pcap")
rf=$(peak_rss_mib "$ra" --json "$tmp/large.pcap")
rq1=$(peak_rss_mib "$ra" --json --threads 1 "$tmp/q.pcap")
rf1=$(peak_rss_mib "$ra" --json --threads 1 "$tmp/large.pcap")
echo
echo "Median of $rounds_n interleaved rounds (tshark: $ts_rounds); floor 1T = one thread reading every byte."
echo "Peak RSS of roce-analyze --json: $rq MiB on a $((mb / 4)) MiB capture, $rf MiB on $mb MiB" \
	"(--threads 1: $rq1 / $rf1 MiB)."
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
