#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_packet_buffered.sh - roce-analyze -U (--packet-buffered, tcpdump's -U) on a veth pair
# (private namespaces, txlib.sh), one RoCE frame sent by roce-gen -c 1 -i:
#   1. -w - -U > CAP: when the "listening on" line appears, CAP already holds the pcap file
#      header; when the frame's --frames line appears (stderr), CAP holds that header and
#      the frame's whole record, while roce-analyze still runs (the flush comes before the
#      analysis of the frame, so this is no race); SIGINT then ends it, exit 0, and -r reads
#      the one frame back;
#   2. -w FILE -U, and -w FILE -U -C 1 -W 2 (the first ring file, FILE0): the same, in the file;
#   3. -w FILE without -U: when the frame's --frames line appears, FILE is still empty
#      (header and record, about 1.1 KB, wait in stdio's buffer of a block), and complete
#      after the stop;
#   4. without -w (-r) -U is accepted and changes nothing: the --json report of a capture is
#      that of the same run without it.
# Waits are bounded (10 s per frame, 20 s for the start); they are timeouts, not assertions.
# No root or no `ip netns`: skipped (77).
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
command -v ip > /dev/null || { echo "SKIP: no ip command (iproute2)"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }

# ---- 4. -U without -w (no capture needed) ----------------------------------------------------
cap=$src/captures/all_opcodes.pcap
"$ra" --json -r "$cap" > "$tmp/plain.json" 2> "$tmp/plain.err"
rc0=$?
"$ra" -U --json -r "$cap" > "$tmp/u.json" 2> "$tmp/u.err"
rc1=$?
"$ra" --packet-buffered --json -r "$cap" > "$tmp/u2.json" 2> "$tmp/u2.err"
rc2=$?
[ $rc0 = 0 ] && [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ ! -s "$tmp/u.err" ] && [ ! -s "$tmp/u2.err" ] &&
	cmp -s "$tmp/plain.json" "$tmp/u.json" && cmp -s "$tmp/plain.json" "$tmp/u2.json" && ok ||
	bad "-U -r: exit $rc1/$rc2 (plain $rc0), or a different report: $(head -c 300 "$tmp/u.err")"

tx_setup 1

# pcap_state FILE: "header" (the 24-byte file header only), "one" (header and one whole
# record), "empty", "missing", or what else it is
pcap_state() {
	python3 - "$1" <<'PY'
import os, struct, sys
if not os.path.exists(sys.argv[1]):
    print("missing"); sys.exit()
d = open(sys.argv[1], "rb").read()
if not d:
    print("empty"); sys.exit()
if len(d) < 24 or d[:4] != bytes.fromhex("4d3cb2a1"):
    print("bad header (%d bytes)" % len(d)); sys.exit()
if len(d) == 24:
    print("header"); sys.exit()
if len(d) < 40:
    print("part of a record header (%d bytes)" % len(d)); sys.exit()
incl = struct.unpack("<I", d[32:36])[0]
print("one" if len(d) == 40 + incl else "%d bytes, a record of %d" % (len(d), incl))
PY
}

# frame_seen FILE PID: wait (10 s at most) for --frames' line of frame 1 in FILE; 1 if PID
# exited first or it never came
frame_seen() {
	wait_for '^ *1  *[0-9.]* v2 .*RC_' "$1" "$2" 200
}

send_one() {
	timeout 30 ip netns exec "$ns_a" "$rg" -c 1 -i "$if_a" -q 2> "$tmp/gen.err" ||
		bad "roce-gen -c 1 -i: $(head -c 300 "$tmp/gen.err")"
}

# stop NAME PID: SIGINT, exit status 0
stop() {
	kill -INT "$2" 2> /dev/null
	wait "$2"
	local rc=$?
	[ $rc = 0 ] && ok || bad "$1: exit $rc after SIGINT"
}

# read_back NAME FILE: roce-analyze -r reads one frame
read_back() {
	local n
	n=$("$ra" --json -r "$2" 2> "$tmp/back.err" | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["summary"]["frames"])' 2> /dev/null)
	[ "$n" = 1 ] && ok ||
		bad "$1: read back ${n:-no} frames (want 1): $(head -c 300 "$tmp/back.err")"
}

# ---- 1. -w - -U > CAP --------------------------------------------------------------------------
ip netns exec "$ns" "$ra" -i "$if_b" -w - -U --frames --duration 60 \
	> "$tmp/cap.pcap" 2> "$tmp/live.err" &
pid=$!
if live_ready $pid "$tmp/live.err"; then
	st=$(pcap_state "$tmp/cap.pcap")
	[ "$st" = header ] && ok ||
		bad "-w - -U: at the start line stdout holds '$st', not the header"
	send_one
	if frame_seen "$tmp/live.err" $pid; then
		st=$(pcap_state "$tmp/cap.pcap")
		[ "$st" = one ] && ok || bad "-w - -U: after frame 1's line stdout holds '$st'"
		kill -0 $pid 2> /dev/null && ok || bad "-w - -U: roce-analyze is no longer running"
	else
		bad "-w - -U: frame 1 was not seen: $(head -c 300 "$tmp/live.err")"
	fi
	stop "-w - -U" $pid
	read_back "-w - -U" "$tmp/cap.pcap"
else
	bad "-w - -U: the capture did not start: $(head -c 300 "$tmp/live.err")"
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
fi

# ---- 2. and 3. -w FILE, with and without -U ------------------------------------------------
# run NAME FILE WANT_START WANT_FRAME ARGS...: the capture into FILE (ARGS name it), its
# --frames lines on stdout; FILE's state at the start line and at frame 1's line
run() {
	local name=$1 file=$2 want0=$3 want1=$4 st
	shift 4
	rm -f "$tmp"/w.pcap*
	ip netns exec "$ns" "$ra" -i "$if_b" "$@" --frames --duration 60 \
		> "$tmp/frames.txt" 2> "$tmp/live.err" &
	pid=$!
	if ! live_ready $pid "$tmp/live.err"; then
		bad "$name: the capture did not start: $(head -c 300 "$tmp/live.err")"
		kill $pid 2> /dev/null
		wait $pid 2> /dev/null
		return
	fi
	st=$(pcap_state "$file")
	[ "$st" = "$want0" ] && ok || bad "$name: at the start line the file holds '$st' ($want0)"
	send_one
	if frame_seen "$tmp/frames.txt" $pid; then
		st=$(pcap_state "$file")
		[ "$st" = "$want1" ] && ok ||
			bad "$name: after frame 1's line the file holds '$st' ($want1)"
		kill -0 $pid 2> /dev/null && ok || bad "$name: roce-analyze is no longer running"
	else
		bad "$name: frame 1 was not seen: $(head -c 300 "$tmp/frames.txt" "$tmp/live.err")"
	fi
	stop "$name" $pid
	st=$(pcap_state "$file")
	[ "$st" = one ] && ok || bad "$name: after the stop the file holds '$st'"
	read_back "$name" "$file"
}

run "-w FILE -U" "$tmp/w.pcap" header one -w "$tmp/w.pcap" -U
run "-w FILE -U -C 1 -W 2" "$tmp/w.pcap0" header one -w "$tmp/w.pcap" -U -C 1 -W 2
run "-w FILE" "$tmp/w.pcap" empty empty -w "$tmp/w.pcap"
finish
