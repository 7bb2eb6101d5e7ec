#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_check.sh - roce-analyze -i --check and --interval on its own veth pair (txlib.sh):
# clean traffic is OK, a bad ICRC is CRITICAL, a PFC storm is CRITICAL, capture drops (a
# tiny -B and a fast send) are UNKNOWN, a missing interface or privilege is UNKNOWN with the
# reason;
# --interval --json prints one JSON object per line whose frames add up to the final report;
# --flow-timeout expires idle streams without traffic, the interval lines count them.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
tx_setup 1

"$rg" -w "$tmp/ok.pcap" -m 200 > /dev/null || bad "gen ok"
"$rg" -w "$tmp/icrc.pcap" -m 200 --bad-icrc-psn 50 > /dev/null || bad "gen icrc"
"$rg" -w "$tmp/pfc.pcap" -m 20 --pfc prio=3,length=300ms > /dev/null || bad "gen pfc"
"$rg" -w "$tmp/big.pcap" -m 20000 --msg-size 64 > /dev/null || bad "gen big"

# check WANT_RC PATTERN FILE [REPLAY-TIMING] -- ANALYZE-ARGS...
check_live() {
	local want=$1 pat=$2 file=$3 timing=$4 rc
	shift 5
	ip netns exec "$ns" "$ra" -i "$if_b" --check --duration 4 "$@" > "$tmp/out" 2> "$tmp/err" &
	local pid=$!
	live_ready $pid "$tmp/err" || bad "$file: the capture did not start: $(cat "$tmp/err")"
	timeout 60 "$replay" -i "$if_a" -q $timing "$file" > /dev/null || bad "replay $file"
	wait $pid
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$file: exit $rc, expected $want: $(cat "$tmp/out" "$tmp/err")"
	elif ! grep -Eq "$pat" "$tmp/out"; then
		bad "$file: '$(cat "$tmp/out")' does not match '$pat'"
	else
		ok
	fi
}

check_live 0 '^ROCE OK - 1000 frames' "$tmp/ok.pcap" "--pps 5000" -- -B 65536
check_live 2 '^ROCE CRITICAL - icrc_bad>0 \(icrc_bad=1\)' "$tmp/icrc.pcap" "--pps 5000" -- -B 65536
# (received times jitter on a shared machine: a replay or capture held up for tens of ms under
# a sanitizer broke 1 Gb/s's 33 ms pauses in two; at 0.1 Gb/s each XOFF pauses 335 ms, so the
# 200 us refreshes stay one continuous pause of 300 ms, as on the wire, unless a frame is
# late by more than a third of a second)
check_live 2 '^ROCE CRITICAL - pfc_storms>0 \(pfc_storms=1\)' "$tmp/pfc.pcap" "" -- -B 65536 \
	--link-speed 0.1
# capture drops, for certain: the smallest buffer (one 256 KiB block), and the analysis
# stopped (SIGSTOP) while 20,000 frames arrive
ip netns exec "$ns" "$ra" -i "$if_b" --check --duration 4 -B 1 > "$tmp/out" 2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
kill -STOP $pid
timeout 60 "$replay" -i "$if_a" -q --topspeed "$tmp/big.pcap" > /dev/null || bad "replay big"
kill -CONT $pid
wait $pid
rc=$?
[ $rc -eq 3 ] && grep -Eq '^ROCE UNKNOWN - the capture dropped [1-9][0-9]* frames' "$tmp/out" &&
	ok || bad "capture drops: exit $rc: $(cat "$tmp/out" "$tmp/err")"

ip netns exec "$ns" "$ra" -i nosuch0 --check > "$tmp/out" 2> /dev/null
[ $? -eq 3 ] && grep -q "^ROCE UNKNOWN - nosuch0: no such interface" "$tmp/out" && ok ||
	bad "missing interface: $(cat "$tmp/out")"
# no CAP_NET_RAW: UNKNOWN with the reason, one line
ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all "$ra" -i "$if_b" --check --duration 1 > "$tmp/out" 2> /dev/null
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l < "$tmp/out")" -eq 1 ] &&
	grep -q "^ROCE UNKNOWN - $if_b: permission denied: live capture needs CAP_NET_RAW" "$tmp/out" &&
	ok || bad "no privilege: rc $rc: $(cat "$tmp/out")"

# --interval --json: JSON Lines, then the report; the intervals' frames add up
ip netns exec "$ns" "$ra" -i "$if_b" -B 65536 --json --interval 0.5 --duration 4 \
	> "$tmp/iv.out" 2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
timeout 60 "$replay" -i "$if_a" -q --pps 2000 "$tmp/icrc.pcap" > /dev/null || bad "replay"
wait $pid
[ $? -eq 0 ] && ok || bad "--interval exit: $(cat "$tmp/err")"
python3 - "$tmp/iv.out" <<'PY' && ok || bad "--interval lines"
import json, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
iv = []
while lines and lines[0].startswith("{\"time\""):
    iv.append(json.loads(lines.pop(0)))
report = json.loads("\n".join(lines))
assert len(iv) >= 4, len(iv)
assert all(0.4 < x["interval_s"] < 1.5 for x in iv), [x["interval_s"] for x in iv]
s = report["summary"]
# the lines cover the run up to the last tick; the report all of it
assert sum(x["frames"] for x in iv) <= s["frames"] and s["frames"] == 1003, s["frames"]
assert sum(x["frames"] for x in iv) > 0
assert sum(x["icrc_bad"] for x in iv) <= 1 and s["icrc_bad"] == 1
assert "pfc_paused_ratio_by_priority" in iv[0]
PY

# --flow-timeout: once the traffic stops its streams expire, with no frame to move time on;
# the interval lines report them
ip netns exec "$ns" "$ra" -i "$if_b" -B 65536 --json --interval 0.5 --flow-timeout 0.5 \
	--duration 4 > "$tmp/ft.out" 2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/ok.pcap" > /dev/null || bad "replay"
wait $pid
[ $? -eq 0 ] && ok || bad "--flow-timeout exit: $(cat "$tmp/err")"
python3 - "$tmp/ft.out" <<'PY' && ok || bad "--flow-timeout: streams did not expire"
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"time"')]
exp = sum(x["expired_flows"] for x in iv)
# ok.pcap: one QP, requests and ACKs: 2 streams
assert exp == 2, [x["expired_flows"] for x in iv]
PY
finish
