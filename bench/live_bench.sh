#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_bench.sh - roce-analyze -i under load, and its memory over a million QP streams.
#
#   bench/live_bench.sh [BUILD_DIR]      (as root; BUILD_DIR defaults to out/main)
#
# Two private network namespaces joined by a veth pair (IPv6 off); nothing is sent anywhere
# else, everything is removed on exit.
#
# 1. Load: a roce-gen capture (16 QPs, 64-byte WRITEs, 1% loss, bad ICRCs, CE marks, one PFC
#    pause) is sent with roce-replay --topspeed --preload (the highest rate this machine can
#    put into the pair) while roce-analyze -i --json -w FILE captures on the far end; SIGTERM
#    a second after the sender ends.  Per round: frames sent, received by roce-analyze, the
#    capture drops it reported (pcap_stats), frames lost on the veth itself, the frames
#    unaccounted for (sent - received - reported - veth), and whether every summary counter
#    of the live report equals that of file analysis of its own -w file.  Rows: libpcap's
#    default buffer (2 MiB), -B 262144 (256 MiB), and --immediate-mode (libpcap's TPACKET_V2,
#    the default buffer); ROUNDS rounds each (default 3).
# 2. Memory: a capture of 1,000,000 distinct QP streams (500,000 QPs over 50,000 host pairs,
#    SEND + READ per QP: 4 frames) sent at PPS frames/s (default 50000), roce-analyze -i
#    -B 65536 --check -c N ending by itself (or by --duration if the capture dropped frames);
#    peak RSS (the process's ru_maxrss, which includes the 64 MiB capture ring once the
#    kernel has filled it) with --max-flows 2000000 and with that and --flow-timeout 1.
# Prints Markdown for docs/performance.md, with the CPU model and the load average.
set -u
build=${1:-out/main}
build=$(cd "$build" && pwd)
ra=$build/cli/roce-analyze
gen=$build/cli/roce-gen
replay=$build/cli/roce-replay
[ "$(id -u)" -eq 0 ] || { echo "live_bench: needs root (network namespaces)" >&2; exit 2; }
for t in "$ra" "$gen" "$replay"; do
	[ -x "$t" ] || { echo "live_bench: $t missing: build first" >&2; exit 2; }
done
ROUNDS=${ROUNDS:-3}
PPS=${PPS:-50000}
MSGS=${MSGS:-300000}        # messages of the load capture
MQPS=${MQPS:-500000}        # QPs of the memory capture (2 streams each)
tmp=$(mktemp -d /tmp/roce-livebench.XXXXXX)
live=
bench_stop() { [ -n "$live" ] && kill "$live" 2>/dev/null; }
. "$(dirname "${BASH_SOURCE[0]}")/benchlib.sh"
bench_veth lb

# wait_capture: until a packet socket is open in the far namespace (roce-analyze's capture)
wait_capture() {
	for _ in $(seq 2400); do
		[ "$(ip netns exec "$ns_b" cat /proc/net/packet | wc -l)" -gt 1 ] && { sleep 0.5; return; }
		kill -0 "$live" 2>/dev/null || break
		sleep 0.05
	done
	echo "live_bench: the capture did not open: $(cat "$tmp"/*.err 2>/dev/null)" >&2
	exit 2
}
# veth_drops: frames dropped by the pair itself (sender's tx_dropped + receiver's rx_dropped)
veth_drops() {
	local a b
	a=$(ip netns exec "$ns_a" cat "/sys/class/net/$if_a/statistics/tx_dropped")
	b=$(ip netns exec "$ns_b" cat "/sys/class/net/$if_b/statistics/rx_dropped")
	echo $((a + b))
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
echo "kernel $(uname -r); libpcap $(dpkg-query -W -f '${Version}' libpcap0.8t64 2>/dev/null ||
	dpkg-query -W -f '${Version}' libpcap0.8 2>/dev/null)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- 1. load -------------------------------------------------------------------------------
"$gen" -q -w "$tmp/load.pcap" --qps 16 --msg-size 64 -m "$MSGS" --loss 0.01 \
	--bad-icrc-rate 0.001 --ce-rate 0.01 --pfc prio=3,length=1ms || exit 2

cat > "$tmp/cmp.py" <<'PY'
import json, sys
live, fil = json.load(open(sys.argv[1]))["summary"], json.load(open(sys.argv[2]))["summary"]
# the clock, the filter, and how the run ended differ by nature; capture_drops is the
# capture's (the file of what it saved has none)
skip = {"filter", "first_ts", "last_ts", "earliest_ts", "latest_ts", "duration_s",
        "interrupted", "complete", "frames_filtered_out", "capture_drops"}
keys = [k for k in fil if k not in skip and not isinstance(fil[k], (dict, list))]
diff = [k for k in keys if live.get(k) != fil[k]]
print(live["frames"], live["capture_drops"], len(keys), ",".join(diff) or "-")
PY

echo "| buffer | round | sent | sent Mpps | received | reported drops (pcap_stats) |" \
	"veth drops | unaccounted | counters = file analysis of -w |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for buf in default 262144 immediate; do
	for round in $(seq "$ROUNDS"); do
		bopt=()
		case $buf in
		default) ;;
		immediate) bopt=(--immediate-mode) ;;
		*) bopt=(-B "$buf") ;;
		esac
		rm -f "$tmp/live.pcap" "$tmp/live.json"
		v0=$(veth_drops)
		ip netns exec "$ns_b" "$ra" -i "$if_b" "${bopt[@]}" --json -w "$tmp/live.pcap" \
			--duration 600 > "$tmp/live.json" 2> "$tmp/live.err" &
		live=$!
		wait_capture
		for _ in $(seq 200); do [ -e "$tmp/live.pcap" ] && break; sleep 0.05; done
		ip netns exec "$ns_a" "$replay" -i "$if_a" -t --preload -q --json "$tmp/load.pcap" \
			> "$tmp/tx.json" 2> /dev/null
		sleep 1
		kill -TERM "$live"
		wait "$live"
		live=
		v1=$(veth_drops)
		sent=$(grep -o '"packets": [0-9]*' "$tmp/tx.json" | awk '{print $2}')
		pps=$(grep -o '"pps": [0-9.]*' "$tmp/tx.json" | awk '{print $2}')
		"$ra" --json "$tmp/live.pcap" > "$tmp/file.json" 2> /dev/null
		read -r rx drops nkeys diff < <(python3 "$tmp/cmp.py" "$tmp/live.json" "$tmp/file.json")
		vd=$((v1 - v0))
		if [ "$diff" = - ]; then eq="yes ($nkeys counters)"; else eq="NO: $diff"; fi
		printf '| %s | %d | %d | %.2f | %d | %d (%.1f%%) | %d | %d | %s |\n' \
			"$(case $buf in default) echo "default (2 MiB)";;
			   immediate) echo "--immediate-mode (TPACKET_V2), 2 MiB";;
			   *) echo "-B $buf (256 MiB)";; esac)" \
			"$round" "$sent" "$(echo "$pps / 1000000" | bc -l)" "$rx" \
			"$drops" "$(echo "100 * $drops / $sent" | bc -l)" "$vd" \
			$((sent - rx - drops - vd)) "$eq"
	done
done
rm -f "$tmp/live.pcap" "$tmp/load.pcap"
echo

# ---- 2. memory over a million streams -------------------------------------------------------
mhosts=$((MQPS < 50000 ? MQPS : 50000))
"$gen" -q -w "$tmp/m.pcap" --hosts=$mhosts --qps=$((MQPS / mhosts)) --verbs=send,read \
	--msg-size=64 --random-psn -m $((2 * MQPS)) || exit 2
nframes=$("$ra" -q --check --crit 'icrc_bad>1000000000' "$tmp/m.pcap" | sed 's/^ROCE OK - \([0-9]*\) frames.*/\1/')
# rss: run a command, print its peak RSS (MiB) and its first output line
cat > "$tmp/rss.py" <<'PY'
import os, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
os.close(w)
out = os.read(r, 65536).decode()
_, status, ru = os.wait4(pid, 0)
print(ru.ru_maxrss // 1024, out.splitlines()[0] if out else "-")
PY
echo "Memory: $nframes frames, $((2 * MQPS)) QP streams, sent at $PPS frames/s" \
	"($(echo "$nframes / $PPS" | bc) s)."
echo
echo "| roce-analyze -i --check -c N | peak RSS MiB | status line (frames, drops) |"
echo "|---|---:|---|"
for opts in "--max-flows 2000000" "--max-flows 2000000 --flow-timeout 1"; do
	# shellcheck disable=SC2086
	python3 "$tmp/rss.py" ip netns exec "$ns_b" "$ra" -i "$if_b" -B 65536 $opts --check \
		--crit 'icrc_bad>1000000000' -c "$nframes" --duration $((nframes / PPS + 60)) \
		> "$tmp/rss.out" 2> "$tmp/rss.err" &
	live=$!
	wait_capture
	ip netns exec "$ns_a" "$replay" -i "$if_a" --pps "$PPS" --preload -q "$tmp/m.pcap" \
		> /dev/null 2>&1
	wait "$live"
	live=
	read -r rss line < "$tmp/rss.out"
	printf '| %s | %d | %s |\n' "$opts" "$rss" "$(echo "$line" | cut -d'|' -f1 | sed 's/ *$//')"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
