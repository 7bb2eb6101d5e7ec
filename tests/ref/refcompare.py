#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the reference model's per-stream counters with roce-analyze --json.

  refcompare.py NAME REF.jsonl ANALYZE.json [XFAIL_FILE]

REF.jsonl: one object per stream from roce-psnref.  ANALYZE.json: the
report of roce-analyze --json on the same input.  Prints one line per
difference as "NAME|stream|counter ref=N analyzer=M".  A difference listed
in XFAIL_FILE (lines "NAME|stream|counter  reason", '#' comments) is an
expected failure: printed with "XFAIL", not counted.  A listed entry that no
longer differs is printed as "XPASS" and counted as a failure, so the list
cannot go stale.  Exit status 1 when something unexpected was found.
"""
import json
import sys

# Counters both sides define the same way (see tests/ref/psnref.c).
COUNTERS = ("frames", "icrc_bad", "psn_gaps", "lost_psns", "duplicates", "out_of_order",
            "unrecovered_psns", "retransmissions", "gbn_episodes_total", "acks", "naks",
            "rnr_naks", "cnps")


def key(row):
    return "%d:%s>%s:%d" % (row["version"], row["src"], row["dst"], row["dqpn"])


def main():
    name, refp, anap = sys.argv[1:4]
    xfail = {}
    if len(sys.argv) > 4:
        with open(sys.argv[4], encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    k, _, why = line.partition(" ")
                    xfail[k] = why.strip()
    ref = {}
    with open(refp, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            ref[key(r)] = r
    ana = {}
    with open(anap, encoding="utf-8") as f:
        for q in json.load(f)["qps"]:
            q = dict(q)
            q["gbn_episodes_total"] = sum(q["gbn_episodes"].values())
            ana[key(q)] = q
    bad = 0
    seen = set()
    for k in sorted(set(ref) | set(ana)):
        if k not in ref or k not in ana:
            print("%s|%s|stream only in %s" % (name, k, "ref" if k in ref else "analyzer"))
            bad += 1
            continue
        for c in COUNTERS:
            tag = "%s|%s|%s" % (name, k, c)
            if ref[k][c] != ana[k][c]:
                if tag in xfail:
                    seen.add(tag)
                    print("XFAIL %s ref=%s analyzer=%s (%s)" % (tag, ref[k][c], ana[k][c],
                                                               xfail[tag]))
                else:
                    print("%s ref=%s analyzer=%s" % (tag, ref[k][c], ana[k][c]))
                    bad += 1
            elif tag in xfail:
                print("XPASS %s: listed as an expected failure but agrees now" % tag)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
