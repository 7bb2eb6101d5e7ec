#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tx_bench.sh - TX throughput and pacing, side by side in one run on one veth pair.
#
#   bench/tx_bench.sh [BUILD_DIR]        (as root; BUILD_DIR defaults to out/main)
#
# Two private network namespaces joined by a veth pair with 2 TX and 2 RX queues (IPv6
# off), the far end counting received frames with a TPACKET_V3 receiver
# (tests/tools/roce_txtest count) that has one ring per CPU (PACKET_FANOUT_CPU: the veth
# pair's receive path runs in the softirq of the sending CPU, and with a single ring two
# sending CPUs spent a quarter of their time waiting for its locks), and fits the receive
# rate to the kernel's RX timestamps.  Same RoCE v2 frames for every
# tool: RC RDMA WRITE Only with 64-byte and 1024-byte payloads (138 and 1098-byte frames,
# valid ICRCs), built by roce_build().  Senders run pinned to CPU 1 ("one core"); the
# two-thread runs may use both CPUs.  Rows:
#   roce-replay --topspeed --preload, engines afpacket and xdp, 1 thread and --threads 2
#   tcpreplay --topspeed --preload-pcap
#   trafgen (netsniff-ng; PACKET_TX_RING) -P 1 and -P 2, the same frame as its config
#   roce-gen -i (frames built with their ICRC one by one: RDMA WRITE Only frames of the same
#   size on 16 QPs with an AckReq and one 62-byte ACK every 16 messages, so 16 of 17 frames
#   are the others' frame; before 4 December 2026 it ran with an ACK after every WRITE, half
#   its frames 62 bytes) and roce-gen -w to a file
#   pacing: roce-replay --gbps 1 and 0.25 (PACE_GBPS) on 1098-byte frames for about 3 s:
#   achieved rate at the far end (fit to the RX timestamps), and the p50/p99/max deviation
#   of send time from deadline (roce-replay --json); each at normal priority and at
#   real-time priority (chrt -f 10; PACE_PRIO picks), the latter showing the pacer apart
#   from a loaded host
# ONLY=pacing runs the pacing rows only; N sets the frames per throughput run; REPS the
# rounds (default 3: every sender once per round, medians reported with each ratio taken
# between medians of the same rounds).  For quicker A/B runs: ROWS="trafgen-P2 replay-xdp-T2"
# runs only those throughput rows (names as in the table's keys: tcpreplay trafgen-P1
# trafgen-P2 replay-afpacket replay-xdp replay-afpacket-T2 replay-xdp-T2 roce-gen-i; the
# roce-gen -w line and pacing are left out then), PL="64" only those payloads, and
# BASE=OTHER_BUILD_DIR adds a "base" row after every roce-replay / roce-gen row, run with
# that build's binaries in the same round (e.g. main's, for an A/B in one run).
# Prints a Markdown table; docs/performance.md keeps the numbers with the CPU model and
# the load average of the run.  Nothing is sent anywhere but the pair; everything is
# removed on exit.
set -u
build=${1:-out/main}
build=$(cd "$build" && pwd)
replay=$build/cli/roce-replay
gen=$build/cli/roce-gen
base=${BASE:+$(cd "$BASE" && pwd)}
txtest=$build/tests/roce_txtest
[ "$(id -u)" -eq 0 ] || { echo "tx_bench: needs root (network namespaces)" >&2; exit 2; }
for t in "$replay" "$gen" "$txtest" ${base:+"$base/cli/roce-replay" "$base/cli/roce-gen"}; do
	[ -x "$t" ] || { echo "tx_bench: $t missing: build first" >&2; exit 2; }
done
N=${N:-400000}          # frames per topspeed run
tmp=$(mktemp -d)
rxp=
bench_stop() { [ -n "$rxp" ] && kill "$rxp" 2>/dev/null; }
. "$(dirname "${BASH_SOURCE[0]}")/benchlib.sh"
bench_veth tx 2
in_a() { ip netns exec "$ns_a" "$@"; }

rx_start() {
	rm -f "$tmp/ready"
	timeout 300 ip netns exec "$ns_b" ${rx_cpu:+taskset -c "$rx_cpu"} "$txtest" count "$if_b" 1500 60 "$tmp/ready" \
		> "$tmp/rx.out" &
	rxp=$!
	for _ in $(seq 200); do [ -e "$tmp/ready" ] && return; sleep 0.05; done
	echo "tx_bench: receiver did not start" >&2
	exit 2
}
# rx_stop: sets rx_frames, rx_pps (fit), rx_bps
rx_stop() {
	wait "$rxp"
	rxp=
	read -r _ rx_frames _ _ _ rx_drops < <(head -n 1 "$tmp/rx.out")
	read -r _ _ _ _ rx_pps _ rx_bps < <(sed -n 2p "$tmp/rx.out")
}
row() {   # row NAME SENT
	printf '| %s | %s | %s | %.0f | %.2f | %s |\n' "$1" "$2" "$rx_frames" "$rx_pps" \
		"$(awk -v b="$rx_bps" 'BEGIN { print b / 1e9 }')" "$rx_drops"
}

for pl in 64 1024; do
	"$txtest" mkframes "$tmp/f$pl.pcap" 100000 "$pl" || exit 2
	python3 - "$tmp/f$pl.pcap" > "$tmp/f$pl.trafgen" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = struct.unpack('<I', d[24 + 8:24 + 12])[0]
frame = d[40:40 + n]
print('{\n  ' + ',\n  '.join(', '.join('0x%02x' % b for b in frame[i:i + 16])
                             for i in range(0, len(frame), 16)) + '\n}')
EOF
done

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
echo "kernel $(uname -r); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "frames per run: $N (files of 100000 frames, looped)"
echo
loops=$((N / 100000))
declare -A res_pps res_all res_bad
order=()
# measure KEY CMD...: one run of a sender; the far end's fitted rate is kept per key
measure() {
	local key=$1 sent row=${1%/*}
	shift
	[ -z "${ROWS:-}" ] || [[ " $ROWS " == *" ${row%@base} "* ]] || return 0
	rx_start
	"$@" > "$tmp/o.out" 2>&1
	rx_stop
	case $key in
	tcpreplay*) sent=$(grep -o 'Actual: [0-9]* packets' "$tmp/o.out" | awk '{print $2}' | head -n 1) ;;
	trafgen*) sent=$N ;;
	roce-gen*) sent=$(grep -o '[0-9]* frames sent' "$tmp/o.out" | awk '{print $1}' | head -n 1) ;;
	*) sent=$(grep -o '"packets": [0-9]*' "$tmp/o.out" | awk '{print $2}' | head -n 1) ;;
	esac
	[[ " ${order[*]} " == *" $key "* ]] || order+=("$key")
	res_all[$key]="${res_all[$key]:-}$(printf '%.0f' "$rx_pps") "
	if [ "$sent" != "$N" ] || [ "$rx_frames" != "$N" ] || [ "$rx_drops" != 0 ]; then
		res_bad[$key]="${res_bad[$key]:-}sent $sent received $rx_frames drops $rx_drops; "
	fi
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Rounds: every sender once per round, REPS rounds, so a change of the machine's load
# touches every sender alike; the table gives each sender's median.
REPS=${REPS:-3}
for ((rep = 1; rep <= REPS; rep++)); do
for pl in ${PL:-64 1024}; do
	[ "${ONLY:-}" = pacing ] && break
	f=$tmp/f$pl.pcap
	measure "tcpreplay/$pl" in_a taskset -c 1 tcpreplay -i "$if_a" --topspeed --preload-pcap \
		--loop "$loops" -q "$f"
	measure "trafgen-P1/$pl" in_a taskset -c 1 trafgen -i "$tmp/f$pl.trafgen" -o "$if_a" \
		-n "$N" -P 1 --no-sock-mem -Q -C
	measure "trafgen-P2/$pl" in_a trafgen -i "$tmp/f$pl.trafgen" -o "$if_a" -n "$N" -P 2 \
		--no-sock-mem -Q -C
	for e in afpacket xdp; do
		for b in "$build" $base; do
			sfx=
			[ "$b" = "$build" ] || sfx=@base
			measure "replay-$e$sfx/$pl" in_a taskset -c 1 "$b/cli/roce-replay" -i "$if_a" \
				--engine "$e" -t --preload --loop "$loops" -q --json "$f"
			measure "replay-$e-T2$sfx/$pl" in_a "$b/cli/roce-replay" -i "$if_a" --engine "$e" \
				-t --preload --loop "$loops" --threads 2 -q --json "$f"
		done
	done
	for b in "$build" $base; do
		sfx=
		[ "$b" = "$build" ] || sfx=@base
		measure "roce-gen-i$sfx/$pl" in_a taskset -c 1 "$b/cli/roce-gen" -c "$N" --verbs write \
			--msg-size "$pl" --ack-every 16 --qps 16 --rate 1T -i "$if_a" -q
	done
done
done

if [ "${ONLY:-}" != pacing ]; then
	declare -A med
	for k in "${order[@]}"; do med[$k]=$(echo "${res_all[$k]}" | median); done
	ratio() { awk -v a="${med[$1]:-0}" -v b="${med[$2]:-0}" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
	echo "Median of $REPS rounds, frames/s at the far end (every run: $N sent, $N received, 0 drops unless listed):"
	echo
	echo '| sender | 64 B: frames/s | vs tcpreplay | vs trafgen -P 1 | 1024 B: frames/s | vs tcpreplay | vs trafgen -P 1 | runs (64 B; 1024 B) |'
	echo '|---|---:|---:|---:|---:|---:|---:|---|'
	for k in tcpreplay trafgen-P1 trafgen-P2 replay-afpacket replay-afpacket@base replay-xdp \
		replay-xdp@base replay-afpacket-T2 replay-afpacket-T2@base replay-xdp-T2 replay-xdp-T2@base \
		roce-gen-i roce-gen-i@base; do
		[ -n "${res_all[$k/64]:-}${res_all[$k/1024]:-}" ] || continue
		case ${k%@base} in
		tcpreplay) name="tcpreplay --topspeed --preload-pcap, 1 core" ;;
		trafgen-P1) name="trafgen -P 1 (PACKET_TX_RING), 1 core" ;;
		trafgen-P2) name="trafgen -P 2" ;;
		replay-afpacket) name="roce-replay -t --engine afpacket, 1 core" ;;
		replay-xdp) name="roce-replay -t --engine xdp, 1 core" ;;
		replay-afpacket-T2) name="roce-replay -t --engine afpacket --threads 2 (vs trafgen -P 2)" ;;
		replay-xdp-T2) name="roce-replay -t --engine xdp --threads 2 (vs trafgen -P 2)" ;;
		roce-gen-i) name="roce-gen -i (ICRC per frame, xdp), 1 core" ;;
		esac
		[[ $k == *@base ]] && name="$name [BASE]"
		peer=trafgen-P1
		[[ ${k%@base} == *T2 ]] && peer=trafgen-P2
		printf '| %s | %s | %s | %s | %s | %s | %s | %s; %s |\n' "$name" \
			"${med[$k/64]:-}" "$(ratio "$k/64" tcpreplay/64)" "$(ratio "$k/64" "$peer/64")" \
			"${med[$k/1024]:-}" "$(ratio "$k/1024" tcpreplay/1024)" "$(ratio "$k/1024" "$peer/1024")" \
			"${res_all[$k/64]:-}" "${res_all[$k/1024]:-}"
	done
	for k in "${order[@]}"; do
		[ -n "${res_bad[$k]:-}" ] && echo "  $k: ${res_bad[$k]}"
	done
fi

if [ "${ONLY:-}" != pacing ] && [ -z "${ROWS:-}" ]; then
	echo
	echo "roce-gen -w to a file (frames/s, wall clock, 2,000,000 frames of 64-byte WRITEs):"
	t0=$(date +%s.%N)
	taskset -c 1 "$gen" -c 2000000 --verbs write --msg-size 64 --qps 16 -w "$tmp/g.pcap" -q
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "  %.0f frames/s\n", 2000000 / (b - a) }'
	rm -f "$tmp/g.pcap"
fi

echo
[ -n "${ROWS:-}" ] && { echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"; exit 0; }
# the receiver on CPU 0, apart from the paced sender on CPU 1 (a real-time sender that
# spins near its deadlines would otherwise starve it)
rx_cpu=0
echo '| pacing, 1098-byte frames | target | far end Gb/s L2 | error | dev p50 | dev p99 | dev max |'
echo '|---|---|---|---|---|---|---|'
for g in ${PACE_GBPS:-1 0.25}; do
for e in afpacket xdp; do
for prio in ${PACE_PRIO:-other fifo}; do
	# fifo: the sender at real-time priority (chrt -f 10), so that on a machine shared
	# with other work the deadlines are not missed for the scheduler's sake.  A pacer that
	# spins near every deadline is then stopped by the kernel's real-time limit
	# (sched_rt_runtime_us: 50 ms in every second), which shows in p99/max.  (nice -20 was
	# worse than nice 0: it starves ksoftirqd, which carries the veth pair's receive side.)
	rt=()
	[ "$prio" = fifo ] && rt=(chrt -f 10)
	rx_start
	# about 3 s of frames at the target
	lp=$(awk -v g="$g" 'BEGIN { n = int(g * 1e9 * 3 / 8 / 1098 / 100000 + 0.5); print n < 1 ? 1 : n }')
	in_a taskset -c 1 "${rt[@]}" "$replay" -i "$if_a" --engine "$e" --gbps "$g" --preload --loop "$lp" -q \
		--json "$tmp/f1024.pcap" > "$tmp/o.json" 2>/dev/null
	rx_stop
	dev=$(grep -o '"deadline_dev_ns": {[^}]*}' "$tmp/o.json")
	p50=$(echo "$dev" | grep -o '"p50": [0-9]*' | awk '{print $2}')
	p99=$(echo "$dev" | grep -o '"p99": [0-9]*' | awk '{print $2}')
	max=$(echo "$dev" | grep -o '"max": [0-9]*' | awk '{print $2}')
	printf '| roce-replay --gbps %s --engine %s%s | %s Gb/s | %.4f | %+.3f%% | %s ns | %s ns | %s ns |\n' \
		"$g" "$e" "${rt[*]:+ (${rt[*]})}" "$g" "$(awk -v b="$rx_bps" 'BEGIN { print b / 1e9 }')" \
		"$(awk -v b="$rx_bps" -v g="$g" 'BEGIN { print (b / 1e9 / g - 1) * 100 }')" \
		"$p50" "$p99" "$max"
done
done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
