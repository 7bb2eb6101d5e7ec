#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_bench.sh - roce-gen -w: frames per second written to a file on tmpfs.
#
#   bench/gen_bench.sh [FRAMES] [BUILD_DIR]     (default 10000000, out/main)
#
# Writes FRAMES frames of two mixes to /dev/shm (tmpfs, so the disk is not measured):
#   small   RC WRITE of 64-byte messages (WRITE_ONLY + ACK: ~110-byte frames)
#   large   RC WRITE of 1024-byte messages at PMTU 1024 (~1.1 KB frames)
# every frame built by roce_build() with its ICRC, best of 3 runs each.  Prints the CPU
# model, the machine's load average, and for each mix the wall-clock time, the CPU time
# (user + sys) and frames per second against both: on a machine shared with other work the
# wall-clock rate says more about the neighbours than about roce-gen.
set -euo pipefail

frames=${1:-10000000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$here/out/main}
rg=$build/cli/roce-gen
[ -x "$rg" ] || { echo "build roce-gen first (scripts/setup.sh out/main)" >&2; exit 2; }
out=/dev/shm/roce-gen-bench.$$.pcap
trap 'rm -f "$out"' EXIT

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| mix | frames | bytes written | wall s | CPU s (user+sys) | frames/s (wall) | frames/s (CPU) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for mix in small large; do
	case $mix in
	small) args="--msg-size 64" ;;
	large) args="--msg-size 1024" ;;
	esac
	best_wall= best_cpu=
	for run in 1 2 3; do
		rm -f "$out"
		t=$( { /usr/bin/env time -f "%e %U %S" "$rg" -w "$out" -c "$frames" $args -q; } 2>&1 )
		read -r wall user sys <<< "$t"
		cpu=$(echo "$user + $sys" | bc)
		if [ -z "$best_wall" ] || [ "$(echo "$wall < $best_wall" | bc)" = 1 ]; then best_wall=$wall; fi
		if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc)" = 1 ]; then best_cpu=$cpu; fi
	done
	size=$(stat -c %s "$out")
	printf '| %s | %d | %d | %.2f | %.2f | %.2f M | %.2f M |\n' "$mix" "$frames" "$size" \
		"$best_wall" "$best_cpu" "$(echo "$frames / $best_wall / 1000000" | bc -l)" \
		"$(echo "$frames / $best_cpu / 1000000" | bc -l)"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
