#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_bench.sh - roce-gen -w: frames per second written to a file on tmpfs.
#
#   bench/gen_bench.sh [FRAMES] [BUILD_DIR]     (default 10000000, out/main)
#
# Writes FRAMES frames of two mixes to /dev/shm (tmpfs, so the disk is not measured):
#   small   RC WRITE of 64-byte messages (WRITE_ONLY + ACK: ~110-byte frames)
#   large   RC WRITE of 1024-byte messages at PMTU 1024 (~1.1 KB frames)
# every frame built by roce_build() with its ICRC, RUNS runs each (default 5, mixes
# alternating), the median reported (and the best, for comparison with older rows).  Prints the CPU
# model, the machine's load average, and for each mix the wall-clock time, the CPU time
# (user + sys) and frames per second against both: on a machine shared with other work the
# wall-clock rate says more about the neighbours than about roce-gen.
set -euo pipefail

frames=${1:-10000000}
[[ $frames =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/gen_bench.sh [FRAMES] [BUILD_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$here/out/main}
rg=$build/cli/roce-gen
[ -x "$rg" ] || { echo "build roce-gen first (scripts/setup.sh out/main)" >&2; exit 2; }
out=/dev/shm/roce-gen-bench.$$.pcap
trap 'rm -f "$out"' EXIT

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| mix | frames | bytes written | wall s (median) | CPU s (user+sys, median) | frames/s (wall, median) | frames/s (CPU, median) | frames/s (wall, best) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
RUNS=${RUNS:-5}
declare -A walls cpus sizes
for ((run = 1; run <= RUNS; run++)); do
	for mix in small large; do
		case $mix in
		small) args="--msg-size 64" ;;
		large) args="--msg-size 1024" ;;
		esac
		rm -f "$out"
		t=$( { /usr/bin/env time -f "%e %U %S" "$rg" -w "$out" -c "$frames" $args -q; } 2>&1 )
		read -r wall user sys <<< "$t"
		walls[$mix]="${walls[$mix]:-} $wall"
		cpus[$mix]="${cpus[$mix]:-} $(echo "$user + $sys" | bc)"
		sizes[$mix]=$(stat -c %s "$out")
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for mix in small large; do
	w=$(echo "${walls[$mix]}" | median)
	c=$(echo "${cpus[$mix]}" | median)
	b=$(echo "${walls[$mix]}" | tr ' ' '\n' | grep . | sort -g | head -n 1)
	printf '| %s | %d | %d | %.2f | %.2f | %.2f M | %.2f M | %.2f M |\n' "$mix" "$frames" "${sizes[$mix]}" \
		"$w" "$c" "$(echo "$frames / $w / 1000000" | bc -l)" "$(echo "$frames / $c / 1000000" | bc -l)" \
		"$(echo "$frames / $b / 1000000" | bc -l)"
	echo "  $mix wall s:${walls[$mix]}"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
