#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# html_bench.sh - the cost of roce-analyze --html, the page's size and how fast it opens.
#
#   bench/html_bench.sh [MEGABYTES] [BUILD_DIR]      (default 1024, out/main)
#
# Generates two captures of about MEGABYTES each with roce-gen (in /dev/shm, removed at
# exit): RC WRITE on 64 QPs between 16 host pairs, with a little trouble so the report has
# something to show (loss 1e-4 with the NAKs and resends it causes, CE marks 1e-3 with their
# CNPs, one PFC priority paused now and then):
#   small   64-byte messages, one ACK per 16 (~150-byte frames): the worst case per byte
#   large   16 KiB messages at PMTU 1024 (~1.1 KB frames): the realistic one
# Then, for each mix:
#   - CPU time (user + sys) and wall time of `roce-analyze --json FILE` against
#     `roce-analyze --json --html PAGE FILE`, run in alternation for ROUNDS rounds (default 7),
#     medians, and their ratio (the target: --html at most 10% slower than --json);
#   - the page's size (the target: a few MB at most);
#   - the time headless Chromium takes from navigation to the charts drawn (the page's
#     "ready" mark plus two animation frames), the median of 5 loads in fresh tabs
#     (tests/cli/html_check.py timing; the target: under 2 s).
# Timing holds /work/bench.lock (flock) when that file's directory exists, so benchmarks of
# several sessions on one machine do not overlap; generation runs outside it.
set -euo pipefail

mb=${1:-1024}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$here/out/main}
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "build first (scripts/setup.sh out/main)" >&2; exit 2; }
rounds_n=${ROUNDS:-7}
lock=${BENCH_LOCK:-/work/bench.lock}
tmp=$(mktemp -d /dev/shm/roce-html-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# private copies: a rebuild of BUILD_DIR during the run changes nothing here
cp "$ra" "$tmp/roce-analyze"
ra=$tmp/roce-analyze

locked() {
	if [ -d "$(dirname "$lock")" ]; then
		flock "$lock" "$@"
	else
		"$@"
	fi
}

# gen FILE MEGABYTES PAYLOAD
gen() {
	local frames=$(( ($2 << 20) / ($3 + 90) )) shape
	if [ "$3" -ge 256 ]; then
		shape="--msg-size $((16 * $3)) --pmtu $3"
	else
		shape="--msg-size $3 --ack-every 16"
	fi
	"$rg" -w "$1" -c "$frames" --qps 4 --hosts 16 --verbs write $shape --pps 1M \
		--loss 0.0001 --ce-rate 0.001 \
		--pfc prio=3,refresh=200us,length=2ms,start=100ms -q
}

# alternate OUT ROUNDS CMD_A -- CMD_B: medians "wall_a cpu_a wall_b cpu_b"
alternate() {
	python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, time
out, n = sys.argv[1], int(sys.argv[2])
rest = sys.argv[3:]
i = rest.index("--")
cmds = [rest[:i], rest[i + 1:]]
res = [([], []), ([], [])]
for r in range(n):
    # the order flips every round: neither command always runs right after the other
    for k in ((0, 1) if r % 2 == 0 else (1, 0)):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmds[k], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) > 1:
            sys.exit("command failed: %s" % " ".join(cmds[k]))
        res[k][0].append(time.perf_counter() - t0)
        res[k][1].append(ru.ru_utime + ru.ru_stime)
with open(out, "w") as f:
    f.write("%.4f %.4f %.4f %.4f\n" % (statistics.median(res[0][0]), statistics.median(res[0][1]),
                                       statistics.median(res[1][0]), statistics.median(res[1][1])))
PY
}

echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "$("$ra" --version | head -1); $(chromium --version 2>/dev/null || echo 'chromium missing')"
echo "Build: $build ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null))"
echo
rows=()
for mix in small:64 large:1024; do
	name=${mix%%:*}
	cap=$tmp/$name.pcap
	gen "$cap" "$mb" "${mix#*:}"
	frames=$("$ra" --json "$cap" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["frames"])')
	cat "$cap" >/dev/null
	load0=$(cut -d' ' -f1 /proc/loadavg)
	locked bash -c "$(declare -f alternate); alternate '$tmp/t' '$rounds_n' \
		'$ra' --json '$cap' -- '$ra' --json --html '$tmp/$name.html' '$cap'"
	read -r wj cj wh ch <"$tmp/t"
	size=$(stat -c %s "$tmp/$name.html")
	open=$(locked python3 "$here/tests/cli/html_check.py" timing "$tmp/$name.html" 5)
	load1=$(cut -d' ' -f1 /proc/loadavg)
	rows+=("$(printf '| %s | %s | %d | %.2f | %.2f | **%.3f** | %.2f | %.2f | %.3f | %.2f MiB | %s | %s / %s |' \
		"$name" "$(awk -v b="$(stat -c %s "$cap")" 'BEGIN { printf "%.2f GiB", b / 1073741824 }')" \
		"$frames" "$cj" "$ch" "$(echo "$ch / $cj" | bc -l)" "$wj" "$wh" "$(echo "$wh / $wj" | bc -l)" \
		"$(echo "$size / 1048576" | bc -l)" "$open" "$load0" "$load1")")
	rm -f "$cap"
done
echo "| mix | capture | frames | CPU s --json | CPU s --json --html | CPU ratio | wall s --json | wall s --html | wall ratio | page | open in Chromium (median of 5) | load 1-min before / after |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo
echo "CPU and wall: medians of $rounds_n alternating rounds; targets: CPU ratio <= 1.10, page of a few MB, open < 2 s."
