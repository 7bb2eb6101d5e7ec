#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare `tshark -q -z roce,qp` / `-z roce,pfc` output with roce-analyze --json.

  roce_stats.py qp  TSHARK_OUT ANALYZE_JSON
  roce_stats.py pfc TSHARK_OUT ANALYZE_JSON
  roce_stats.py qptree / pfctree TSHARK_OUT ANALYZE_JSON   (-z roce_qp,tree / roce_pfc,tree)
Exit 0 when every row matches (same rows, same counters), 1 otherwise (differences printed).
"""
import json
import re
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


QP_CHILDREN = ("Bytes", "PSN gaps", "Lost PSNs", "Unrecovered PSNs", "ACKed unseen PSNs",
               "Duplicates", "Out of order",
               "Retransmissions", "NAKs", "RNR NAKs", "CNPs", "ECN CE")
PFC_CHILDREN = ("XOFF", "XON", "Paused (us)", "Longest pause (us)", "Storms")


def tree_rows(path, kind):
    """-z roce_qp,tree / roce_pfc,tree (stats_tree, plain format): a node per stream or
    sender at depth 1 (its count: frames), its counters as children at depth 2."""
    nodes = []
    on = False
    dashes = 0
    title = "RoCE/Queue Pairs:" if kind == "qptree" else "RoCE/PFC and PAUSE:"
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.strip() == title:
            on = True
            continue
        if not on:
            continue
        if line.startswith("-----"):
            dashes += 1         # under the column titles, and at the end of the tree
            if dashes == 2:
                break
            continue
        if line.startswith("====="):
            break
        m = re.match(r"^( *)(\S.*?)\s{2,}(\d+)(\s|$)", line)
        if m:
            nodes.append((len(m.group(1)), m.group(2), m.group(3)))
    rows = []
    cur = None
    for depth, name, count in nodes:
        if cur is None or depth <= cur[0]:
            if cur:
                rows.append(cur[1])
            cur = (depth, {"": name, "frames": count})
        else:
            cur[1][name] = count
    if cur:
        rows.append(cur[1])
    out = []
    for r in rows:
        if kind == "qptree":
            out.append(tuple(r[""].split()) + (r["frames"],)
                       + tuple(r.get(k, "?") for k in QP_CHILDREN)
                       + (r.get("RTT p50 (us)", "-"), r.get("RTT p99 (us)", "-")))
        else:
            out.append(tuple(r[""].split()) + (r["frames"],)
                       + tuple(r.get(k, "?") for k in PFC_CHILDREN))
    return sorted(out)


def c32(v):
    return str(min(int(v), 2147483647))


def us_int(v):
    return "-" if v is None else str(int(float(v) + 1e-9))


def json_tree_rows(path, kind):
    j = json.load(open(path, encoding="utf-8"))
    rows = []
    if kind == "qptree":
        for q in j.get("qps", []):
            rows.append(("v%d" % q["version"], q["src"], ">", q["dst"], "qp", "0x%06x" % q["dqpn"])
                        + tuple(c32(q[k]) for k in ("frames", "bytes", "psn_gaps", "lost_psns",
                                                    "unrecovered_psns", "acked_unseen_psns",
                                                    "duplicates", "out_of_order",
                                                    "retransmissions", "naks", "rnr_naks",
                                                    "cnps", "ecn_ce"))
                        + (us_int(q["rtt_us"]["p50"]), us_int(q["rtt_us"]["p99"])))
    else:
        for p in j.get("pfc", []) + j.get("pause", []):
            name = (p["src_mac"], "PAUSE") if p.get("priority") is None else \
                (p["src_mac"], "priority", str(p["priority"]))
            rows.append(name + tuple(c32(p[k]) for k in ("frames", "xoff", "xon"))
                        + (us_int(p["paused_us"]), us_int(p["longest_pause_us"]),
                           c32(p["storms"])))
    return sorted(rows)


def main():
    kind, ts, js = sys.argv[1:4]
    if kind.endswith("tree"):
        a, b = tree_rows(ts, kind), json_tree_rows(js, kind)
    else:
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
