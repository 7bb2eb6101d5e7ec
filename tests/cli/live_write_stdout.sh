#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_write_stdout.sh - roce-analyze -i VETH -w - (tcpdump's -w -) on a veth pair (private
# namespaces, txlib.sh):
#   1. -c N -w - > FILE while roce-replay sends on the peer: FILE is a pcap of exactly N frames
#      that roce-analyze -r reads back (its counters those of the live run), exit 0, and the
#      report went to stderr (stdout holds the capture only);
#   2. -w - | head -c 100: the reader goes away; the capture ends by itself long before its
#      --duration, exit 0 (no death by SIGPIPE), one line on stderr says why, and the report
#      is still printed there;
#   3. -C/-W with -w - are refused (exit 2, one line naming -w -).
# Every step is bounded by timeout; no root or no `ip netns`: skipped (77).
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] && [ -x "$replay_bin" ] || { echo "SKIP: tools not built"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip command (iproute2)"; exit 77; }

# ---- 3. refused combinations (no capture needed) ---------------------------------------------
for args in "-C 1" "-C 1 -W 2"; do
	"$ra" -i lo -w - $args > "$tmp/o" 2> "$tmp/e"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/o" ] && grep -q -- '-w -' "$tmp/e" &&
		[ "$(grep -vc "^Try '" "$tmp/e")" = 1 ] && ok ||
		bad "-w - $args: exit $rc: $(head -c 300 "$tmp/e")"
done

tx_setup 1
"$rg" -w "$tmp/a.pcap" --qps 2 -m 200 --msg-size 2048 -q || { bad "roce-gen"; finish; exit; }
json_frames() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' \
		"$1" 2> /dev/null
}

# ---- 1. -c N -w - > FILE ---------------------------------------------------------------------
n=50
ip netns exec "$ns" "$ra" -i "$if_b" -c $n -w - --json --duration 60 \
	> "$tmp/cap.pcap" 2> "$tmp/live.err" &
live_pid=$!
live_ready $live_pid "$tmp/live.err" || bad "the capture did not start: $(cat "$tmp/live.err")"
timeout 60 "$replay" -i "$if_a" -q --pps 2000 --loop 0 --duration 30 "$tmp/a.pcap" \
	> /dev/null 2> "$tmp/tx.err" &
tx_pid=$!
wait $live_pid
rc=$?
kill -INT $tx_pid 2> /dev/null
wait $tx_pid 2> /dev/null
[ $rc = 0 ] && ok || bad "-c $n -w -: exit $rc: $(head -c 300 "$tmp/live.err")"
# stdout is a pcap (magic of the nanosecond format, little-endian)
magic=$(head -c 4 "$tmp/cap.pcap" | od -An -tx1 | tr -d ' \n')
[ "$magic" = 4d3cb2a1 ] && ok || bad "-w -: stdout starts with '$magic', not a ns pcap"
"$ra" --json -r "$tmp/cap.pcap" > "$tmp/back.json" 2> "$tmp/back.err"
rc=$?
got=$(json_frames "$tmp/back.json")
[ $rc = 0 ] && [ ! -s "$tmp/back.err" ] && [ "$got" = $n ] && ok ||
	bad "-w - read back: exit $rc, ${got:-no} frames (want $n): $(head -c 300 "$tmp/back.err")"
# the report (one JSON document after the "listening on" line) went to stderr
grep -v ': listening on ' "$tmp/live.err" > "$tmp/live.json"
live_n=$(json_frames "$tmp/live.json")
[ "$live_n" = $n ] && ok || bad "-w -: no report of $n frames on stderr: $(head -c 300 "$tmp/live.err")"
# ... and says what the file says
python3 - "$tmp/live.json" "$tmp/back.json" <<'PY' && ok || bad "-w -: live and read-back reports differ"
import json, sys
a, b = (json.load(open(p))["summary"] for p in sys.argv[1:3])
skip = {"filter", "interrupted", "complete", "frames_filtered_out", "stopped_by_count"}
diff = [k for k in a if k not in skip and a[k] != b.get(k)]
for k in diff:
    print("    summary.%s: live %r, file %r" % (k, a[k], b.get(k)))
sys.exit(1 if diff else 0)
PY

# ---- 2. -w - | head -c 100 -------------------------------------------------------------------
# The pipeline runs in the capturing namespace; its own status file says how roce-analyze
# ended.  --duration 60 is the bound the run must not need.
cat > "$tmp/pipe.sh" <<'SH'
"$1" -i "$2" -w - --duration 60 2> "$3/head.err" | head -c 100 > "$3/head.out"
echo "${PIPESTATUS[0]}" > "$3/status"
SH
rm -f "$tmp/status"
timeout 120 ip netns exec "$ns" bash "$tmp/pipe.sh" "$ra" "$if_b" "$tmp" &
pipe_pid=$!
live_ready $pipe_pid "$tmp/head.err" || bad "the capture did not start: $(cat "$tmp/head.err")"
t0=$(date +%s)
timeout 60 "$replay" -i "$if_a" -q --pps 2000 --loop 0 --duration 30 "$tmp/a.pcap" \
	> /dev/null 2> "$tmp/tx.err" &
tx_pid=$!
wait $pipe_pid
t1=$(date +%s)
kill -INT $tx_pid 2> /dev/null
wait $tx_pid 2> /dev/null
st=$(cat "$tmp/status" 2> /dev/null)
[ "$st" = 0 ] && ok || bad "-w - | head -c 100: roce-analyze status '$st' (want 0)"
echo "note: the run ended $((t1 - t0)) s after the sender started"
[ $((t1 - t0)) -le 15 ] && ok || bad "-w - | head -c 100: the run took $((t1 - t0)) s to end"
[ "$(wc -c < "$tmp/head.out")" = 100 ] && ok || bad "head got $(wc -c < "$tmp/head.out") bytes"
grep -q '^roce-analyze: -w -: the reader of stdout has gone; capture ended after [0-9]* frames$' \
	"$tmp/head.err" && ok || bad "-w - | head: no note on stderr: $(head -c 300 "$tmp/head.err")"
grep -q '^  Frames: ' "$tmp/head.err" && ok ||
	bad "-w - | head: no report on stderr: $(head -c 500 "$tmp/head.err")"
finish
