#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - roce-analyze against tshark and a bare libpcap read loop, same file, one run.
#
#   bench/bench.sh [MEGABYTES]      (default 512)
#
# Builds a Release tree in out/bench, generates a MEGABYTES-sized RC WRITE capture with
# roce-mkcaptures --bulk (64 QPs, 1 KiB payloads) in a temp dir, then times:
#   1. bare libpcap read loop (bench/pcap_loop.c)
#   2. roce-analyze --json            (ICRC verification on, ISA-L CRC)
#   3. roce-analyze --json --no-icrc
#   4. tshark -q -z conv,udp          (on a 1/8 slice when the file is large, scaled up)
# and the peak RSS of roce-analyze at MEGABYTES/4 and MEGABYTES (memory must stay flat).
# Prints a Markdown table with ratios; paste it into docs/performance.md.
# Each timing is the best of 3 runs (tshark: 1 run).  Requires: tshark, libpcap-dev, GNU time
# is not needed (peak RSS comes from /proc via python3).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mb=${1:-512}
build=$here/out/bench
tmp=$(mktemp -d /tmp/roce-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$here/scripts/setup.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DROCE_BUILD_PLUGIN=OFF >/dev/null
cc -O2 -o "$tmp/pcap_loop" "$here/bench/pcap_loop.c" -lpcap

"$build/captures/roce-mkcaptures" --bulk "$tmp/big.pcap" "$mb"
"$build/captures/roce-mkcaptures" --bulk "$tmp/quarter.pcap" $((mb / 4))
slice_mb=$(( mb > 128 ? mb / 8 : mb ))
"$build/captures/roce-mkcaptures" --bulk "$tmp/slice.pcap" "$slice_mb"
size=$(stat -c %s "$tmp/big.pcap")
frames=$("$tmp/pcap_loop" "$tmp/big.pcap" | awk '{print $1}')

# best-of-N wall time in seconds
best() {
	local n=$1; shift
	local best=
	for _ in $(seq "$n"); do
		local t0 t1 t
		cat "${@: -1}" >/dev/null 2>&1 || true   # warm the page cache
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
	done
	echo "$best"
}

peak_rss_kb() { # command...: runs it, prints its peak RSS in KiB
	python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

ra=$build/cli/roce-analyze
t_pcap=$(best 3 "$tmp/pcap_loop" "$tmp/big.pcap")
t_ra=$(best 3 "$ra" --json "$tmp/big.pcap")
t_ra_noicrc=$(best 3 "$ra" --json --no-icrc "$tmp/big.pcap")
t_ts_slice=$(best 1 tshark -q -z conv,udp -r "$tmp/slice.pcap")
t_ts=$(echo "$t_ts_slice * $mb / $slice_mb" | bc -l)
rss_q=$(peak_rss_kb "$ra" --json "$tmp/quarter.pcap")
rss_b=$(peak_rss_kb "$ra" --json "$tmp/big.pcap")

gbps() { echo "scale=2; $size * 8 / $1 / 1000000000" | bc -l; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }

cat <<MD
Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)
File: $((size / 1048576)) MiB, $frames frames (RC WRITE, 64 QPs, 1 KiB payloads), page cache warm.
$(tshark --version | head -1); libpcap $(pkg-config --modversion libpcap); $("$ra" --version | head -1)

| tool | seconds | Gbit/s of capture | relative |
|---|---:|---:|---:|
| bare libpcap loop (pcap_next_ex) | $(printf %.3f "$t_pcap") | $(gbps "$t_pcap") | 1.00 |
| roce-analyze --json (ICRC on) | $(printf %.3f "$t_ra") | $(gbps "$t_ra") | $(ratio "$t_ra" "$t_pcap") x libpcap time |
| roce-analyze --json --no-icrc | $(printf %.3f "$t_ra_noicrc") | $(gbps "$t_ra_noicrc") | $(ratio "$t_ra_noicrc" "$t_pcap") x libpcap time |
| tshark -q -z conv,udp (from a ${slice_mb} MiB slice, scaled) | $(printf %.1f "$t_ts") | $(gbps "$t_ts") | $(ratio "$t_ts" "$t_pcap") x libpcap time |

- roce-analyze is **$(ratio "$t_ts" "$t_ra")x faster than tshark** and runs in **$(ratio "$t_ra" "$t_pcap")x the time of a bare libpcap read loop** with ICRC verification on.
- Peak RSS of roce-analyze: $((rss_q / 1024)) MiB on $((mb / 4)) MiB of capture, $((rss_b / 1024)) MiB on $mb MiB (file pages of the mmap'd capture count toward RSS).
MD
