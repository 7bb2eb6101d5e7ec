#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_pipe.sh - the tools on a veth pair (private namespaces, txlib.sh) with pipes at their
# ends:
#   1. roce-analyze -i VETH -s 0 --frames | head -1 while roce-replay sends on the peer: the run
#      ends by itself soon after head has gone (SIGPIPE, 141 in the shell, as README's "exit
#      status" says; no message), long before its --duration, and its -w capture and --html
#      report are complete;
#   2. roce-replay -i VETH FIFO, the FIFO fed by cat: every frame arrives on the peer (counted
#      there), exit 0, the statistics count them; a writer that stops in the middle of a
#      record: the frames before it are sent, then the truncated-input error naming the FIFO
#      and the frame, exit 2.
# Every step is bounded by timeout; no root or no `ip netns`: skipped (77).
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] && [ -x "$replay_bin" ] && [ -x "$txtest" ] ||
	{ echo "SKIP: tools not built"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip command (iproute2)"; exit 77; }
tx_setup 1

"$rg" -w "$tmp/a.pcap" --qps 2 -m 200 --msg-size 2048 -q || { bad "roce-gen"; finish; exit; }
frames=$("$ra" --json "$tmp/a.pcap" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["frames"])')
[ "${frames:-0}" -gt 100 ] && ok || bad "a.pcap: $frames frames"

# ---- 1. live capture | head -1 (-s 0: the default snapshot length) --------------------
# The pipeline runs in the capturing namespace; its own status file says how roce-analyze
# ended.  --duration 60 is the bound the run must not need.
cat >"$tmp/pipe.sh" <<'SH'
"$1" -i "$2" -s 0 --frames --json -w "$3/w.pcap" --html "$3/r.html" --duration 60 2>"$3/live.err" |
	head -n 1 >"$3/first"
echo "${PIPESTATUS[0]}" >"$3/status"
SH
timeout 120 ip netns exec "$ns" bash "$tmp/pipe.sh" "$ra" "$if_b" "$tmp" &
pipe_pid=$!
if live_ready $pipe_pid "$tmp/live.err"; then
	ok
else
	bad "the capture did not start: $(cat "$tmp/live.err")"
fi
t0=$(date +%s)
# frames until the pipeline has ended (at most 30 s of them): the analysis keeps writing
timeout 60 "$replay" -i "$if_a" -q --pps 2000 --loop 0 --duration 30 "$tmp/a.pcap" \
	>/dev/null 2>"$tmp/tx.err" &
tx_pid=$!
wait $pipe_pid
pipe_rc=$?
t1=$(date +%s)
kill -INT $tx_pid 2>/dev/null
wait $tx_pid 2>/dev/null
st=$(cat "$tmp/status" 2>/dev/null)
[ "$pipe_rc" = 0 ] && [ "$st" = 141 ] && ok ||
	bad "| head -1: roce-analyze status '$st' (want 141, SIGPIPE), pipeline $pipe_rc"
# soon: a few seconds after the first frame line (not at --duration 60, not at the sender's
# end after 30 s)
echo "note: the run ended $((t1 - t0)) s after the sender started"
[ $((t1 - t0)) -le 15 ] && ok || bad "| head -1: the run took $((t1 - t0)) s to end"
# the one line head printed is a frame; stderr holds only the start line
python3 -c 'import json, sys; assert json.loads(open(sys.argv[1]).read())["frame"] >= 1' \
	"$tmp/first" && ok || bad "| head -1: first line: $(head -c 200 "$tmp/first")"
[ "$(grep -vc ': listening on ' "$tmp/live.err")" = 0 ] && ok ||
	bad "| head -1: stderr: $(head -c 300 "$tmp/live.err")"
# -s 0 is tcpdump's: the default snapshot length
grep -q "^roce-analyze: listening on $if_b, .*snapshot length 262144 bytes$" "$tmp/live.err" &&
	ok || bad "-s 0: $(head -c 300 "$tmp/live.err")"
# -w: a whole pcap (every record complete) of at least the frame printed; --html complete
if [ -s "$tmp/w.pcap" ]; then
	"$ra" --json "$tmp/w.pcap" >"$tmp/w.json" 2>"$tmp/w.err"
	rc=$?
	n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' \
		"$tmp/w.json" 2>/dev/null)
	[ $rc = 0 ] && [ ! -s "$tmp/w.err" ] && [ "${n:-0}" -ge 1 ] && ok ||
		bad "| head -1: -w file: exit $rc, ${n:-no} frames: $(head -c 300 "$tmp/w.err")"
else
	bad "| head -1: -w file empty or missing"
fi
grep -q '</html>' "$tmp/r.html" 2>/dev/null && ok || bad "| head -1: --html report not complete"

# ---- 2. roce-replay from a FIFO -------------------------------------------------------------
mkfifo "$tmp/in.fifo"
rx_start -
(timeout 60 cat "$tmp/a.pcap" >"$tmp/in.fifo" &)
timeout 60 "$replay" -i "$if_a" -t -q --json "$tmp/in.fifo" >"$tmp/r.json" 2>"$tmp/r.err"
rc=$?
rx_stop
[ $rc = 0 ] && [ ! -s "$tmp/r.err" ] && ok ||
	bad "replay FIFO: exit $rc: $(head -c 300 "$tmp/r.err")"
[ "${rx_out%% bytes*}" = "frames $frames" ] && ok ||
	bad "replay FIFO: received $rx_out, sent $frames"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["packets"] == int(sys.argv[2])' \
	"$tmp/r.json" "$frames" && ok || bad "replay FIFO: statistics: $(head -c 300 "$tmp/r.json")"

# the writer stops in record 17 (500 of its bytes): frames 1..16 sent, then the error
cut=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
o = 24
for _ in range(16):
    o += 16 + struct.unpack_from("<I", d, o + 8)[0]
print(o + 16 + 500)' "$tmp/a.pcap")
rx_start -
(timeout 60 head -c "$cut" "$tmp/a.pcap" >"$tmp/in.fifo" &)
timeout 60 "$replay" -i "$if_a" -t -q "$tmp/in.fifo" >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
rx_stop
[ $rc = 2 ] && [ "$(wc -l <"$tmp/r.err")" = 1 ] &&
	grep -q "^roce-replay: $tmp/in.fifo: frame 17: truncated record data" "$tmp/r.err" && ok ||
	bad "replay FIFO cut in a record: exit $rc: $(head -c 300 "$tmp/r.err")"
[ "${rx_out%% bytes*}" = "frames 16" ] && ok || bad "replay FIFO cut: received $rx_out, want 16"
finish
