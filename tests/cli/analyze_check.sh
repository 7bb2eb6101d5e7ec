#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_check.sh - roce-analyze --check on files: Nagios status line with performance data
# and exit status 0 OK / 1 WARNING / 2 CRITICAL / 3 UNKNOWN; default thresholds (bad ICRC and
# PFC storms critical, lost PSNs a warning), --warn/--crit, usage and input errors UNKNOWN.
set -u
build=$1 src=$2
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

"$rg" -w "$tmp/ok.pcap" -m 200 > /dev/null || bad "gen ok"
"$rg" -w "$tmp/icrc.pcap" -m 200 --bad-icrc-psn 50 > /dev/null || bad "gen icrc"
"$rg" -w "$tmp/pfc.pcap" -m 200 --pfc prio=3,length=300ms > /dev/null || bad "gen pfc"
"$rg" -w "$tmp/loss.pcap" -m 200 --drop-psn 20 > /dev/null || bad "gen loss"
"$rg" -w "$tmp/ce.pcap" -m 200 --ce-rate 0.1 > /dev/null || bad "gen ce"

# expect RC PATTERN ARGS...: exit status RC, exactly one stdout line matching PATTERN
expect() {
	local want=$1 pat=$2 rc
	shift 2
	"$ra" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$*: exit $rc, expected $want: $(cat "$tmp/out" "$tmp/err")"
	elif [ "$(wc -l < "$tmp/out")" -ne 1 ] || ! grep -Eq "$pat" "$tmp/out"; then
		bad "$*: output '$(cat "$tmp/out")' does not match '$pat'"
	else
		ok
	fi
}

expect 0 '^ROCE OK - 1000 frames, .* \| frames=1000c;; .*icrc_bad=0;;0 ' --check -r "$tmp/ok.pcap"
expect 2 '^ROCE CRITICAL - icrc_bad>0 \(icrc_bad=1\).* \| .*icrc_bad=1;;0 ' --check "$tmp/icrc.pcap"
expect 2 '^ROCE CRITICAL - pfc_storms>0 \(pfc_storms=1\) \|.* pfc_paused_ratio=1;; ' \
	--check "$tmp/pfc.pcap"
expect 1 '^ROCE WARNING - lost_psns>0 \(lost_psns=1\) \|' --check "$tmp/loss.pcap"
# own thresholds replace the defaults
expect 0 '^ROCE OK' --check --crit 'lost_psns>5' "$tmp/loss.pcap"
expect 2 '^ROCE CRITICAL - lost_psns>=1 ' --check --crit 'lost_psns>=1' --warn 'frames>1' \
	"$tmp/loss.pcap"
expect 1 '^ROCE WARNING - frames>10 \(frames=1000\) \| frames=1000c;10; ' \
	--check --warn 'frames>10' --crit 'gbps>1000' "$tmp/ok.pcap"
expect 2 '^ROCE CRITICAL - pfc_paused_ratio>0.5 ' --check --crit 'pfc_paused_ratio>0.5' \
	"$tmp/pfc.pcap"
expect 0 '^ROCE OK' --check --warn 'frames<5' "$tmp/ok.pcap"
# rates (per second of the capture's span) and ratios, as the issue's examples
expect 2 '^ROCE CRITICAL - lost_psns_per_s>10 \(lost_psns_per_s=[0-9.e+]+\) \|' \
	--check --crit 'lost_psns_per_s>10' "$tmp/loss.pcap"
expect 0 '^ROCE OK' --check --crit 'lost_psns_per_s>1000000000' "$tmp/loss.pcap"
expect 1 '^ROCE WARNING - cnp_per_s>1000 \(cnp_per_s=[0-9.e+]+\) \|' --check --warn 'cnp_per_s>1000' \
	"$tmp/ce.pcap"
expect 2 '^ROCE CRITICAL - ce_ratio>0.05 ' --check --crit 'ce_ratio>0.05,pfc_paused_ratio>0.05' \
	"$tmp/ce.pcap"
expect 2 '^ROCE CRITICAL - pfc_paused_ratio>0.05 ' --check --crit 'pfc_paused_ratio>0.05' \
	"$tmp/pfc.pcap"
# the rate is the count over the capture's time span (the report's duration_s)
"$ra" --check --warn 'cnp_per_s>1000' "$tmp/ce.pcap" > "$tmp/out"
"$ra" --json "$tmp/ce.pcap" > "$tmp/ce.json"
python3 - "$tmp/out" "$tmp/ce.json" <<'PY' && ok || bad "cnp_per_s is not cnps / duration_s"
import json, re, sys
line, s = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))["summary"]
v = float(re.search(r" cnp_per_s=([0-9.e+]+);", line).group(1))
assert s["cnps"] > 0 and abs(v - s["cnps"] / s["duration_s"]) <= 1e-4 * v, (v, s["cnps"], s["duration_s"])
PY
# filter applies: the bad ICRC is outside the filter
expect 0 '^ROCE OK - 0 frames' --check -r "$tmp/icrc.pcap" 'host 192.0.2.1'
# UNKNOWN: input error, usage errors (the Nagios convention wins over exit 2)
expect 3 '^ROCE UNKNOWN - .*nonexist.pcap' --check "$tmp/nonexist.pcap"
expect 3 "^ROCE UNKNOWN - --warn 'foo>1': unknown metric" --check --warn 'foo>1' "$tmp/ok.pcap"
expect 3 "^ROCE UNKNOWN - --crit 'icrc_bad>x'" --crit 'icrc_bad>x' --check "$tmp/ok.pcap"
expect 3 '^ROCE UNKNOWN - --check cannot be combined' --check --csv "$tmp/ok.pcap"
# -q, as roce-analyze(1) says: the status line is still printed (the one output a check has)
expect 2 '^ROCE CRITICAL - ' -q --check "$tmp/icrc.pcap"
# without --check, thresholds are a usage error (exit 2)
"$ra" --warn 'frames>1' "$tmp/ok.pcap" > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--warn without --check"
finish
