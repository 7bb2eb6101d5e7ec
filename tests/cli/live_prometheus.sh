#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_prometheus.sh - roce-analyze -i --prometheus on its own veth pair (txlib.sh): /metrics
# is scraped over HTTP (curl) inside the namespace, passes promtool check metrics, counts
# what was sent (frames, bad ICRC), other paths are 404; bound to 127.0.0.1 by default.
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
sleep 1
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/a.pcap" > /dev/null || bad "replay"
sleep 1.5
ip netns exec "$ns" timeout 10 curl -sf http://127.0.0.1:9464/metrics > "$tmp/m.txt" && ok ||
	bad "scrape failed: $(cat "$tmp/err")"
grep -q "^roce_frames_total{interface=\"$if_b\"} $frames$" "$tmp/m.txt" && ok ||
	bad "frames: $(grep '^roce_frames_total' "$tmp/m.txt"), sent $frames"
grep -q "^roce_icrc_bad_total{interface=\"$if_b\"} 1$" "$tmp/m.txt" && ok || bad "icrc_bad"
if have_promtool; then
	promtool check metrics < "$tmp/m.txt" > "$tmp/pt" 2>&1 && ok ||
		bad "promtool check metrics: $(cat "$tmp/pt")"
fi
code=$(ip netns exec "$ns" timeout 10 curl -s -o /dev/null -w '%{http_code}' \
	http://127.0.0.1:9464/other)
[ "$code" = 404 ] && ok || bad "other path: $code"
# bound to 127.0.0.1 only: the veth's address does not answer
ip -n "$ns" addr add 192.0.2.77/24 dev "$if_b"
ip netns exec "$ns" timeout 5 curl -s -o /dev/null http://192.0.2.77:9464/metrics &&
	bad "listening beyond localhost" || ok
wait $pid
[ $? -eq 0 ] && ok || bad "exit: $(cat "$tmp/err")"
finish
