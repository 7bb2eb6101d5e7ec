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
# On each it times, best of 3 runs:
#   1. a bare libpcap read loop (bench/pcap_loop.c, pcap_next_ex)
#   2. roce-analyze --json              (ICRC verified, ISA-L CRC)
#   3. roce-analyze --json --no-icrc
#   4. tshark -q -z conv,udp
# and the peak RSS of roce-analyze on MEGABYTES/4 and MEGABYTES (must stay flat).
# Prints Markdown for docs/performance.md.
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

now() { date +%s.%N; }
best() { # runs: best wall seconds of N runs of a command (output discarded)
	local n=$1; shift
	local b=""
	for _ in $(seq "$n"); do
		local t0 t1 t
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || (( $(echo "$t < $b" | bc -l) )); then b=$t; fi
	done
	echo "$b"
}
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

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "$(tshark --version 2>/dev/null | head -1 | sed 's/ (Git.*//'); libpcap $(pkg-config --modversion libpcap); $("$ra" --version | head -1)"
echo
echo "| capture | frames | tool | seconds | Gbit/s | vs libpcap loop | tshark / tool |"
echo "|---|---:|---|---:|---:|---:|---:|"
for mix in large:1024 small:64; do
	name=${mix%%:*} pay=${mix##*:}
	f=$tmp/$name.pcap
	bulk "$f" "$mb" "$pay"
	size=$(stat -c %s "$f")
	t_new=$(best 3 "$ra" --json "$f")
	recache "$f"
	frames=$("$tmp/pcap_loop" "$f" | awk '{print $1}')
	# cat again before each tool: a VM's balloon driver may hand cached pages back to the host
	cat "$f" >/dev/null; t_pcap=$(best 3 "$tmp/pcap_loop" "$f")
	cat "$f" >/dev/null; t_ra=$(best 3 "$ra" --json "$f")
	cat "$f" >/dev/null; t_nc=$(best 3 "$ra" --json --no-icrc "$f")
	cat "$f" >/dev/null; t_ts=$(best 3 tshark -q -z conv,udp -r "$f")
	for row in "bare libpcap loop:$t_pcap" "roce-analyze --json:$t_ra" \
	           "roce-analyze --json --no-icrc:$t_nc" "tshark -q -z conv,udp:$t_ts" \
	           "roce-analyze --json, file just written:$t_new"; do
		tool=${row%%:*} t=${row##*:}
		printf '| %s (%d MiB, %d B payload) | %d | %s | %.3f | %.2f | %s | %s |\n' "$name" \
			$((size >> 20)) "$pay" "$frames" "$tool" "$t" \
			"$(echo "$size * 8 / $t / 1000000000" | bc -l)" "$(r2 "$t" "$t_pcap")" "$(r2 "$t_ts" "$t")"
	done
done
bulk "$tmp/q.pcap" $((mb / 4)) 1024
recache "$tmp/q.pcap"
rq=$(peak_rss_mib "$ra" --json "$tmp/q.pcap")
rf=$(peak_rss_mib "$ra" --json "$tmp/large.pcap")
echo
echo "Peak RSS of roce-analyze --json: $rq MiB on a $((mb / 4)) MiB capture, $rf MiB on $mb MiB."
