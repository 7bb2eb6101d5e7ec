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
if command -v promtool > /dev/null; then
	promtool check metrics < "$tmp/m.prom" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check metrics: $(cat "$tmp/pt.out")"
fi
# the example alert rules and scrape configuration in docs/
if command -v promtool > /dev/null; then
	promtool check rules "$src/docs/prometheus/roce-alerts.yml" > "$tmp/pt.out" 2>&1 && ok ||
		bad "promtool check rules: $(cat "$tmp/pt.out")"
	(cd "$src/docs/prometheus" && promtool check config prometheus.yml) > "$tmp/pt.out" 2>&1 &&
		ok || bad "promtool check config: $(cat "$tmp/pt.out")"
fi
ls "$tmp" | grep -q 'm.prom.tmp' && bad "temporary file left behind" || ok

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
