#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_bounds.sh - the stream table is capped and says what it evicted:
# --max-flows 1 on a capture with two streams evicts (counter, flow_evicted anomalies naming the
# stream, --fail-on flow_evicted exits 1) and the summary counters stay exact; --max-flows 2 does not.
# --max-memory: 40,000 streams (generated) under a 2M cap evict the same way, and every row of the
# report (streamed, not copied) is a live stream; sizes below 1M or not a size are refused.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
cap=$src/captures/rocev2_write_loss.pcap
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

"$ra" --json --max-flows 1 "$cap" > "$tmp/1.json"
check test $? = 0
"$ra" --json --max-flows 2 "$cap" > "$tmp/2.json"
check test $? = 0
check python3 - "$tmp/1.json" "$tmp/2.json" <<'PY'
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
s1, s2 = one["summary"], two["summary"]
ev = [a for a in one["anomalies"] if a["type"] == "flow_evicted"]
assert s1["evicted_flows"] > 0, s1["evicted_flows"]
assert len(ev) == min(s1["evicted_flows"], 1000), (len(ev), s1["evicted_flows"])
assert all("src" in a and "dst" in a and "dqpn" in a for a in ev)
assert len(one["qps"]) <= 1, len(one["qps"])
assert s2["evicted_flows"] == 0 and len(two["qps"]) == 2
# totals do not depend on the table size
for k in ("frames", "roce_frames", "icrc_bad", "naks", "cnps", "ecn_ce"):
    assert s1[k] == s2[k], (k, s1[k], s2[k])
PY
"$ra" -q --max-flows 1 --fail-on flow_evicted "$cap"
check test $? = 1
"$ra" -q --max-flows 2 --fail-on flow_evicted "$cap"
check test $? = 0

if [ -x "$rg" ]; then
	"$rg" -q -w "$tmp/many.pcap" --hosts=100 --qps=200 --verbs=send,read --msg-size=64 \
		--random-psn -m 40000
	check test $? = 0
	"$ra" --json --max-memory 2M "$tmp/many.pcap" > "$tmp/mem.json"
	check test $? = 0
	"$ra" --json "$tmp/many.pcap" > "$tmp/nomem.json"
	check test $? = 0
	check python3 - "$tmp/mem.json" "$tmp/nomem.json" <<'PY'
import json, sys
capped, free = (json.load(open(p)) for p in sys.argv[1:3])
s, f = capped["summary"], free["summary"]
assert f["evicted_flows"] == 0 and f["streams"] == len(free["qps"]) == 40000, f["streams"]
assert s["evicted_flows"] > 0, s["evicted_flows"]
assert s["streams"] == len(capped["qps"]) < 40000, (s["streams"], len(capped["qps"]))
assert s["streams"] + s["evicted_flows"] >= 40000  # (an evicted stream seen again is new)
assert s["anomaly_counts"]["flow_evicted"] == s["evicted_flows"]
for k in ("frames", "roce_frames", "acks", "naks", "ecn_capable"):
    assert s[k] == f[k], (k, s[k], f[k])
PY
else
	echo "SKIP: roce-gen not built (--max-memory part)"
fi
for bad in 10 512K 1X "" 2000000000G; do
	"$ra" -q --max-memory "$bad" "$cap" 2> "$tmp/err"
	check test $? = 2
	check grep -q "max-memory" "$tmp/err"
done
"$ra" -q --max-memory 1M "$cap"
check test $? = 0
finish
