#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# captures_expected.sh - the committed sample captures are reproducible and analyse as expected.
#   1. roce-gen regenerates every captures/*.pcap byte for byte from its scenario file
#      captures/<name>.ini (md5 of each regenerated file = md5 of the committed one);
#   2. roce-analyze --json on each one matches captures/<name>.summary.json: every key listed
#      there (summary counters, and the listed qps/pfc rows' fields) must be equal.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

for f in "$src"/captures/*.pcap; do
	name=$(basename "$f")
	ini=${f%.pcap}.ini
	if [ ! -f "$ini" ]; then
		bad "$name has no scenario ${ini#$src/}"
	elif ! "$rg" --scenario "$ini" -w "$tmp/$name" -q; then
		bad "roce-gen --scenario ${ini#$src/} failed"
	elif [ "$(md5sum < "$f")" = "$(md5sum < "$tmp/$name")" ]; then
		ok
	else
		bad "$name differs from what roce-gen --scenario ${ini#$src/} generates"
	fi
	exp=${f%.pcap}.summary.json
	if [ ! -f "$exp" ]; then
		echo "FAIL: $name has no expected summary ${exp#$src/}"
		fail=$((fail + 1))
		continue
	fi
	"$ra" --json "$f" > "$tmp/$name.json"
	rc=$?
	if python3 - "$exp" "$tmp/$name.json" "$rc" <<'PY'
import json, sys
exp = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
rc = int(sys.argv[3])
bad = []
if exp.get("exit_status", 0) != rc:
    bad.append("exit status %d, expected %d" % (rc, exp.get("exit_status", 0)))
for k, v in exp.get("summary", {}).items():
    if got["summary"].get(k) != v:
        bad.append("summary.%s = %r, expected %r" % (k, got["summary"].get(k), v))
def match(rows, want, keys):
    for r in rows:
        if all(r.get(k) == want[k] for k in keys if k in want):
            return r
    return None
for table, keys in (("qps", ("src", "dst", "dqpn")), ("pfc", ("src_mac", "priority"))):
    for want in exp.get(table, []):
        r = match(got.get(table, []), want, keys)
        if r is None:
            bad.append("%s: no row %r" % (table, {k: want.get(k) for k in keys}))
            continue
        for k, v in want.items():
            if isinstance(v, dict):
                for kk, vv in v.items():
                    if r.get(k, {}).get(kk) != vv:
                        bad.append("%s[%s].%s.%s = %r, expected %r" % (table, want.get(keys[0]), k, kk, r.get(k, {}).get(kk), vv))
            elif r.get(k) != v:
                bad.append("%s[%s].%s = %r, expected %r" % (table, want.get(keys[0]), k, r.get(k), v))
for k, v in exp.get("findings", {}).items():
    if got["summary"].get("findings", {}).get(k) != v:
        bad.append("summary.findings.%s = %r, expected %r" % (k, got["summary"].get("findings", {}).get(k), v))
for want in exp.get("anomaly_types", {}).items():
    n = sum(1 for a in got.get("anomalies", []) if a.get("type") == want[0])
    if n != want[1]:
        bad.append("anomalies of type %s: %d, expected %d" % (want[0], n, want[1]))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
	then
		pass=$((pass + 1))
	else
		echo "FAIL: $name: roce-analyze --json differs from ${exp#$src/}"
		fail=$((fail + 1))
	fi
done
finish
