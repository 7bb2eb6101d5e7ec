#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the reference model's per-stream counters with roce-analyze --json.

  refcompare.py NAME REF.jsonl ANALYZE.json [XFAIL_FILE]
  refcompare.py --unused XFAIL_FILE [--partial] NAME...

REF.jsonl: one object per stream from roce-psnref.  ANALYZE.json: the
report of roce-analyze --json on the same input.  Prints one line per
difference as "NAME|stream|counter ref=N analyzer=M".

A difference listed in XFAIL_FILE is an expected failure.  Its lines pin the
values:

  NAME|stream|counter ref=N analyzer=M REASON

('#' starts a comment).  A listed difference with exactly the pinned values
is printed with "XFAIL" and not counted.  Everything else about an entry
fails, so the list cannot go stale: the values differ from the pinned ones
(STALE), the counters agree now (XPASS), the stream is gone (STALE).  The
second form lists the entries whose input was not compared at all (STALE;
with --partial, when some inputs could not run, only a note).  Exit status
1 when something unexpected was found.
"""
import json
import re
import sys

# Counters both sides define the same way (see tests/ref/psnref.c).
COUNTERS = ("frames", "icrc_bad", "psn_gaps", "lost_psns", "duplicates", "out_of_order",
            "unrecovered_psns", "retransmissions", "gbn_episodes_total", "acks", "naks",
            "rnr_naks", "cnps", "acked_unseen_psns")

ENTRY = re.compile(r"^(?P<tag>[^|\s]+\|[^|\s]+\|(?P<counter>\w+))\s+ref=(?P<ref>\d+)\s+"
                   r"analyzer=(?P<ana>\d+)\s+(?P<why>\S.*)$")


def load_xfail(path):
    """{tag: (ref, analyzer, reason)}; exits 1 on a line that is not an entry."""
    xfail = {}
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = ENTRY.match(line)
            if not m or m.group("counter") not in COUNTERS:
                print("%s:%d: not \"NAME|stream|counter ref=N analyzer=M REASON\": %s"
                      % (path, no, line))
                sys.exit(1)
            if m.group("tag") in xfail:
                print("%s:%d: %s listed twice" % (path, no, m.group("tag")))
                sys.exit(1)
            xfail[m.group("tag")] = (int(m.group("ref")), int(m.group("ana")),
                                     m.group("why").strip())
    return xfail


def key(row):
    return "%d:%s>%s:%d" % (row["version"], row["src"], row["dst"], row["dqpn"])


def unused(argv):
    path = argv[0]
    partial = "--partial" in argv[1:]
    names = set(a for a in argv[1:] if a != "--partial")
    bad = 0
    for tag in sorted(load_xfail(path)):
        name = tag.split("|", 1)[0]
        if name in names:
            continue
        if partial:
            print("note: %s: input not compared in this run" % tag)
        else:
            print("STALE %s: input not compared (no longer exists?)" % tag)
            bad += 1
    return 1 if bad else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--unused":
        return unused(sys.argv[2:])
    name, refp, anap = sys.argv[1:4]
    xfail = {}
    if len(sys.argv) > 4:
        xfail = {t: v for t, v in load_xfail(sys.argv[4]).items()
                 if t.split("|", 1)[0] == name}
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
    for k in sorted(set(ref) | set(ana)):
        if k not in ref or k not in ana:
            print("%s|%s|stream only in %s" % (name, k, "ref" if k in ref else "analyzer"))
            bad += 1
            continue
        for c in COUNTERS:
            tag = "%s|%s|%s" % (name, k, c)
            got = (ref[k][c], ana[k][c])
            pin = xfail.pop(tag, None)
            if pin is None:
                if got[0] != got[1]:
                    print("%s ref=%s analyzer=%s" % (tag, got[0], got[1]))
                    bad += 1
            elif got[0] == got[1]:
                print("XPASS %s: listed as an expected failure but agrees now (%s)"
                      % (tag, got[0]))
                bad += 1
            elif got != pin[:2]:
                print("STALE %s ref=%s analyzer=%s: pinned ref=%s analyzer=%s (%s)"
                      % (tag, got[0], got[1], pin[0], pin[1], pin[2]))
                bad += 1
            else:
                print("XFAIL %s ref=%s analyzer=%s (%s)" % (tag, got[0], got[1], pin[2]))
    for tag in sorted(xfail):
        print("STALE %s: no such stream in this input" % tag)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
