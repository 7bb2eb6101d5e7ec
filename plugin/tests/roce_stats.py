#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare `tshark -q -z roce,qp` / `-z roce,pfc` output with roce-analyze --json.

  roce_stats.py qp  TSHARK_OUT ANALYZE_JSON
  roce_stats.py pfc TSHARK_OUT ANALYZE_JSON
Exit 0 when every row matches (same rows, same counters), 1 otherwise (differences printed).
"""
import json
import sys


def us(v):
    return "-" if v is None else "%.3f" % float(v)


def tshark_rows(path, kind):
    rows = []
    on = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("Stream ") or line.startswith("Source_MAC "):
            on = True
            continue
        if line.startswith("====="):
            on = False
            continue
        if on and line.strip():
            rows.append(tuple(line.split()))
    return sorted(rows)


def json_rows(path, kind):
    j = json.load(open(path, encoding="utf-8"))
    rows = []
    if kind == "qp":
        for q in j.get("qps", []):
            rows.append(("v%d" % q["version"], q["src"], ">", q["dst"], "qp", "0x%06x" % q["dqpn"])
                        + tuple(str(q[k]) for k in ("frames", "bytes", "psn_gaps", "lost_psns",
                                                    "duplicates", "out_of_order",
                                                    "retransmissions", "naks", "rnr_naks",
                                                    "cnps", "ecn_ce"))
                        + (us(q["rtt_us"]["p50"]), us(q["rtt_us"]["p99"])))
    else:
        for p in j.get("pfc", []) + j.get("pause", []):
            prio = "pause" if p.get("priority") is None else str(p["priority"])
            rows.append((p["src_mac"], prio) + tuple(str(p[k]) for k in ("frames", "xoff", "xon"))
                        + (us(p["paused_us"]), us(p["longest_pause_us"]), str(p["storms"])))
    return sorted(rows)


def main():
    kind, ts, js = sys.argv[1:4]
    a, b = tshark_rows(ts, kind), json_rows(js, kind)
    if a == b:
        print("%d %s rows equal" % (len(a), kind))
        return 0
    for r in sorted(set(a) - set(b)):
        print("tshark only: " + " ".join(r))
    for r in sorted(set(b) - set(a)):
        print("json only:   " + " ".join(r))
    if len(a) != len(b):
        print("rows: tshark %d, json %d" % (len(a), len(b)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
