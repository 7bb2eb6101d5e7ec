#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_prometheus.sh - roce-analyze --prometheus-textfile: the file holds the report's
# counters under Prometheus names (roce_..._total, seconds), is well-formed text exposition
# format (checked here, and by promtool check metrics: scripts/setup.sh installs it), the
# example rules in docs/prometheus pass promtool check rules, and the file is replaced
# atomically: a reader polling it while it is rewritten never sees a partial file.
set -u
build=$1 src=$2
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

"$rg" -w "$tmp/a.pcap" --qps 4 --random-psn -m 300 --loss 0.02 --bad-icrc-rate 0.01 \
	--ce-rate 0.02 --pfc prio=3,length=300ms > /dev/null || bad "gen"
"$ra" --json --prometheus-textfile "$tmp/m.prom" "$tmp/a.pcap" > "$tmp/a.json" || bad "run"

cat > "$tmp/val.py" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), "no final newline"
typed, seen, vals = {}, set(), {}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\} (\S+)$')
for line in text.splitlines():
    if line.startswith("# HELP "):
        continue
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ")
        assert name not in typed, "TYPE twice: " + name
        typed[name] = kind
        continue
    m = sample.match(line)
    assert m, "bad line: " + line
    name = m.group(1)
    assert name in typed, "sample before TYPE: " + name
    assert name.startswith("roce_")
    if typed[name] == "counter":
        assert name.endswith("_total"), name
    float(m.group(3))
    assert (name, m.group(2)) not in seen, "duplicate series " + line
    seen.add((name, m.group(2)))
    vals.setdefault(name, 0.0)
    vals[name] += float(m.group(3))
if len(sys.argv) > 2:
    s = json.load(open(sys.argv[2]))["summary"]
    for prom, key in [("roce_frames_total", "frames"), ("roce_icrc_bad_total", "icrc_bad"),
                      ("roce_psn_gaps_total", "psn_gaps"), ("roce_lost_psns_total", "lost_psns"),
                      ("roce_cnps_total", "cnps"), ("roce_pfc_storms_total", "pfc_storms"),
                      ("roce_naks_total", "naks"), ("roce_bytes_total", "bytes")]:
        assert vals[prom] == s[key], (prom, vals[prom], s[key])
    assert vals["roce_pfc_paused_seconds_total"] > 0.2
PY
python3 "$tmp/val.py" "$tmp/m.prom" "$tmp/a.json" && ok || bad "textfile content/format"
grep -q '^roce_frames_total{interface="'"$tmp"'/a.pcap"} ' "$tmp/m.prom" && ok || bad "interface label"
if have_promtool; then
	promtool check metrics < "$tmp/m.prom" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check metrics: $(cat "$tmp/pt.out")"
fi
# the example alert rules and scrape configuration in docs/
if have_promtool; then
	promtool check rules "$src/docs/prometheus/roce-alerts.yml" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check rules: $(cat "$tmp/pt.out")"
	(cd "$src/docs/prometheus" && promtool check config prometheus.yml) > "$tmp/pt.out" 2>&1 &&
		ok || bad "promtool check config: $(cat "$tmp/pt.out")"
fi
ls "$tmp" | grep -q 'm.prom.tmp' && bad "temporary file left behind" || ok

# per-stream and per-sender series with a cap: 24 streams, 5 get series, the rest is "other";
# 3 PFC/PAUSE senders, 2 get series
"$rg" -w "$tmp/q.pcap" --hosts 2 --qps 6 -m 900 --msg-size exp:3000 --loss 0.01 --ce-rate 0.02 \
	--pfc prio=3,length=5ms --pfc prio=5,length=3ms,mac=02:00:00:00:01:01 \
	--pause length=2ms,mac=02:00:00:00:01:02 > /dev/null || bad "gen q"
"$ra" --json --prometheus-max-streams 5 --prometheus-max-senders 2 \
	--prometheus-textfile "$tmp/q.prom" "$tmp/q.pcap" > "$tmp/q.json" || bad "run q"
cat > "$tmp/series.py" <<'PY'
import json, re, sys
text, j = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
cap_s, cap_p = int(sys.argv[3]), int(sys.argv[4])
ser = {}
for line in text.splitlines():
    m = re.match(r'^(\w+)\{(.*)\} (\S+)$', line)
    if m:
        lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        ser.setdefault(m.group(1), []).append((lab, float(m.group(3))))
def val(name):
    return ser[name][0][1]
qps, s = j["qps"], j["summary"]
keyof = lambda q: (str(q["version"]), q["src"], q["dst"], str(q["dqpn"]))
jq = {keyof(q): q for q in qps}
# the busiest streams (ties: the first seen) have the series
top = [keyof(q) for q in sorted(qps, key=lambda q: -q["frames"])[:cap_s]]
for name, key in [("roce_stream_frames_total", "frames"), ("roce_stream_bytes_total", "bytes"),
                  ("roce_stream_lost_psns_total", "lost_psns"),
                  ("roce_stream_psn_gaps_total", "psn_gaps"), ("roce_stream_cnps_total", "cnps"),
                  ("roce_stream_ecn_ce_frames_total", "ecn_ce"),
                  ("roce_stream_naks_total", "naks")]:
    rows = ser[name]
    own = [(l, v) for l, v in rows if l["src"] != "other"]
    other = [v for l, v in rows if l["src"] == "other"]
    assert len(own) == min(cap_s, len(qps)) and len(other) == 1, (name, len(own), len(other))
    assert sorted((l["version"], l["src"], l["dst"], l["dqpn"]) for l, _ in own) == sorted(top), name
    for l, v in own:
        assert v == jq[(l["version"], l["src"], l["dst"], l["dqpn"])][key], (name, l, v)
    tot = sum(q[key] for q in qps)
    assert sum(v for _, v in rows) == tot, (name, sum(v for _, v in rows), tot)
assert val("roce_streams_folded") == len(qps) - min(cap_s, len(qps))
assert val("roce_streams_labelled") == min(cap_s, len(qps))
pf = j.get("pfc", []) + j.get("pause", [])
rows = ser["roce_pfc_sender_frames_total"]
assert len([1 for l, _ in rows if l["mac"] != "other"]) == min(cap_p, len(pf)), rows
assert sum(v for _, v in rows) == sum(p["frames"] for p in pf)
ps = sum(v for _, v in ser["roce_pfc_sender_paused_seconds_total"])
assert abs(ps - sum(p["paused_us"] for p in pf) / 1e6) < 1e-6, ps
assert val("roce_pfc_senders_folded") == len(pf) - min(cap_p, len(pf))
print(len(qps), "streams", len(pf), "senders")
PY
python3 "$tmp/series.py" "$tmp/q.prom" "$tmp/q.json" 5 2 > "$tmp/s.out" 2>&1 && ok ||
	bad "stream series: $(cat "$tmp/s.out")"
grep -q '^roce_stream_frames_total{.*src="other",dst="other",dqpn="other"} ' "$tmp/q.prom" && ok ||
	bad "no other series"
if have_promtool; then
	promtool check metrics < "$tmp/q.prom" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check metrics (series): $(cat "$tmp/pt.out")"
fi
# a cap above the number of streams: every stream has its series, "other" is 0
"$ra" -q --prometheus-max-streams 1000 --prometheus-textfile "$tmp/q2.prom" "$tmp/q.pcap"
grep -qE '^roce_stream_frames_total\{.*src="other".*\} 0$' "$tmp/q2.prom" &&
	grep -qE '^roce_streams_folded\{.*\} 0$' "$tmp/q2.prom" && ok || bad "cap above the streams"
# streams that expire while the file is read (--flow-timeout, intervals): their counts stay
# in "other", so the series still add up to every RoCE frame of the run
"$rg" -w "$tmp/e.pcap" --qps 8 -m 400 --pps 2000 > /dev/null || bad "gen e"
"$ra" --json -q --flow-timeout 0.002 --interval 0.01 --prometheus-max-streams 3 \
	--prometheus-textfile "$tmp/e.prom" "$tmp/e.pcap" > /dev/null
"$ra" --json --flow-timeout 0.002 "$tmp/e.pcap" > "$tmp/e.json"
python3 - "$tmp/e.prom" "$tmp/e.json" <<'PY' > "$tmp/e.out" 2>&1 && ok || bad "expired: $(cat "$tmp/e.out")"
import json, re, sys
s = json.load(open(sys.argv[2]))["summary"]
t = open(sys.argv[1]).read()
exp = float(re.search(r'^roce_streams_expired_total\{.*\} (\S+)$', t, re.M).group(1))
assert exp > 10, exp
tot = sum(float(m.group(1)) for m in re.finditer(r'^roce_stream_frames_total\{.*\} (\S+)$',
                                                  t, re.M))
assert tot == s["roce_frames"], (tot, s["roce_frames"])
PY

# atomic replacement: rewritten many times (one run per write) while a reader polls it
python3 - "$tmp/m.prom" <<'PY' &
import os, sys, time
path, end, reads, bad = sys.argv[1], time.time() + 3, 0, 0
last = None
while time.time() < end:
    try:
        t = open(path).read()
    except FileNotFoundError:
        bad += 1
        continue
    reads += 1
    if not t.endswith("\n") or "roce_streams_evicted_total" not in t:
        bad += 1
print("reads", reads, "bad", bad)
sys.exit(1 if bad or reads < 10 else 0)
PY
reader=$!
end=$((SECONDS + 3))
while [ $SECONDS -lt $end ]; do
	"$ra" -q --prometheus-textfile "$tmp/m.prom" "$tmp/a.pcap" || { bad "rewrite"; break; }
done
wait $reader && ok || bad "reader saw a partial or missing file"
finish
