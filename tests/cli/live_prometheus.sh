#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_prometheus.sh - roce-analyze -i --prometheus on its own veth pair (txlib.sh): /metrics
# is scraped over HTTP (curl) inside the namespace, passes promtool check metrics, counts
# what was sent (frames, bad ICRC), has the per-stream series with interface and QP labels,
# other paths are 404; bound to 127.0.0.1 by default, to the address given otherwise.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
"$ra" -i lo --prometheus :1 --duration 0.01 2>&1 | grep -q "without libmicrohttpd" &&
	{ echo "SKIP: built without libmicrohttpd"; exit 77; }
tx_setup 1
ip -n "$ns" link set lo up

"$rg" -w "$tmp/a.pcap" -m 200 --bad-icrc-psn 50 > /dev/null || bad "gen"
"$ra" --json "$tmp/a.pcap" > "$tmp/a.json"
frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' \
	"$tmp/a.json")

ip netns exec "$ns" "$ra" -i "$if_b" -B 65536 -q --prometheus :9464 --duration 6 \
	2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/a.pcap" > /dev/null || bad "replay"
sleep 1.5
ip netns exec "$ns" timeout 10 curl -sf http://127.0.0.1:9464/metrics > "$tmp/m.txt" && ok ||
	bad "scrape failed: $(cat "$tmp/err")"
# (the HTTP requests first: the run ends after --duration)
code=$(ip netns exec "$ns" timeout 10 curl -s -o /dev/null -w '%{http_code}' \
	http://127.0.0.1:9464/other)
[ "$code" = 404 ] && ok || bad "other path: $code"
# bound to 127.0.0.1 only: the veth's address does not answer
ip -n "$ns" addr add 192.0.2.77/24 dev "$if_b"
ip netns exec "$ns" timeout 5 curl -s -o /dev/null http://192.0.2.77:9464/metrics &&
	bad "listening beyond localhost" || ok
grep -q "^roce_frames_total{interface=\"$if_b\"} $frames$" "$tmp/m.txt" && ok ||
	bad "frames: $(grep '^roce_frames_total' "$tmp/m.txt"), sent $frames"
grep -q "^roce_icrc_bad_total{interface=\"$if_b\"} 1$" "$tmp/m.txt" && ok || bad "icrc_bad"
# per-stream series (interface, version, src, dst, dqpn); they add up to the RoCE frames
python3 - "$tmp/m.txt" "$tmp/a.json" "$if_b" <<'PY' && ok || bad "stream series in the scrape"
import json, re, sys
t, s, ifc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))["summary"], sys.argv[3]
rows = re.findall(r'^roce_stream_frames_total\{(.*)\} (\S+)$', t, re.M)
own = [r for r in rows if 'src="other"' not in r[0]]
assert len(own) == s["streams"], (len(own), s["streams"])
assert all(('interface="%s"' % ifc) in r[0] and 'dqpn="' in r[0] for r in own), own
assert sum(float(v) for _, v in rows) == s["roce_frames"]
assert re.search(r'^roce_streams_folded\{[^}]*\} 0$', t, re.M)
PY
if have_promtool; then
	promtool check metrics < "$tmp/m.txt" > "$tmp/pt" 2>&1 && ok ||
		bad "promtool check metrics: $(cat "$tmp/pt")"
fi
wait $pid
[ $? -eq 0 ] && ok || bad "exit: $(cat "$tmp/err")"

# told otherwise: ADDR:PORT binds that address (and not 127.0.0.1)
ip netns exec "$ns" "$ra" -i "$if_b" -q --prometheus 192.0.2.77:9465 --duration 3 \
	2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
ip netns exec "$ns" timeout 5 curl -sf http://192.0.2.77:9465/metrics > "$tmp/m2.txt" &&
	grep -q "^roce_frames_total{interface=\"$if_b\"} 0$" "$tmp/m2.txt" && ok ||
	bad "scrape on the given address: $(cat "$tmp/err")"
ip netns exec "$ns" timeout 5 curl -s -o /dev/null http://127.0.0.1:9465/metrics &&
	bad "bound to 127.0.0.1 too" || ok
wait $pid
[ $? -eq 0 ] && ok || bad "exit (given address): $(cat "$tmp/err")"

# libmicrohttpd is opened for --prometheus only (promhttp.c), not linked; where it is
# missing, --prometheus is a one-line error and the analysis without it still reports
if command -v readelf > /dev/null; then
	readelf -d "$ra" | grep -q 'NEEDED.*microhttpd' && bad "roce-analyze links libmicrohttpd" ||
		ok
fi
lib=$(ldconfig -p | awk '/libmicrohttpd\.so\.12 .*x86-64|libmicrohttpd\.so\.12 \(libc6\)/ { print $NF; exit }')
if [ -n "$lib" ] && command -v unshare > /dev/null && unshare -m true 2> /dev/null; then
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift &&
		"$@" -i lo --prometheus :1 --duration 0.01 > /dev/null 2> "$0.err";
		echo $? > "$0.rc"; "$@" --json "$0" > "$0.json"' "$tmp/a.pcap" "$lib" "$ra"
	[ "$(cat "$tmp/a.pcap.rc")" != 0 ] && [ "$(wc -l < "$tmp/a.pcap.err")" = 1 ] &&
		grep -q "^roce-analyze: --prometheus: libmicrohttpd: " "$tmp/a.pcap.err" && ok ||
		bad "--prometheus without libmicrohttpd: rc $(cat "$tmp/a.pcap.rc"), $(cat "$tmp/a.pcap.err")"
	grep -q '"frames": [1-9]' "$tmp/a.pcap.json" && ok || bad "no libmicrohttpd: no report"
fi
finish
