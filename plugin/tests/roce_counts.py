#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Count the roce plugin's per-frame results and compare them with roce-analyze.

  roce_counts.py counts FIELDS.tsv
      print "name value" lines computed from `tshark -T fields -E header=y
      -E occurrence=a -e frame.number -e roce.* ...` output
  roce_counts.py compare FIELDS.tsv ANALYZE.json [name ...]
      compare those counts with roce-analyze --json's "summary"; exit 1 and
      print the differences when they disagree
"""
import json
import sys

# name in roce-analyze's JSON summary -> how to count it from the tshark columns
def counts(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {h: i for i, h in enumerate(header)}
        c = {k: 0 for k in ("roce_frames", "rocev1_frames", "rocev2_frames", "icrc_ok",
                            "icrc_bad", "icrc_unverified", "malformed", "psn_gaps",
                            "lost_psns", "duplicates", "out_of_order", "retransmissions",
                            "naks", "rnr_naks", "cnps", "ecn_ce", "pfc_frames",
                            "pause_frames", "pfc_storms", "rtt_samples")}

        def get(row, name):
            i = col.get(name)
            return row[i] if i is not None and i < len(row) else ""

        def n_occ(v):
            return len(v.split(",")) if v else 0

        for line in f:
            row = line.rstrip("\n").split("\t")
            kind = get(row, "roce.kind")
            if kind == "roce":
                c["roce_frames"] += 1
                ver = get(row, "roce.version")
                if ver == "1":
                    c["rocev1_frames"] += 1
                elif ver == "2":
                    c["rocev2_frames"] += 1
                st = get(row, "roce.icrc.status")
                if st == "1":
                    c["icrc_ok"] += 1
                elif st == "2":
                    c["icrc_bad"] += 1
                else:
                    c["icrc_unverified"] += 1
            elif kind == "pfc":
                c["pfc_frames"] += 1
            elif kind == "pause":
                c["pause_frames"] += 1
            if get(row, "roce.malformed"):
                c["malformed"] += 1
            if get(row, "roce.analysis.psn_gap"):
                c["psn_gaps"] += 1
                lost = get(row, "roce.analysis.lost_psns")
                c["lost_psns"] += sum(int(x) for x in lost.split(",") if x)
            for key, field in (("duplicates", "roce.analysis.duplicate"),
                               ("out_of_order", "roce.analysis.out_of_order"),
                               ("retransmissions", "roce.analysis.retransmission"),
                               ("naks", "roce.analysis.nak"),  # NAKs incl. RNR NAKs
                               ("rnr_naks", "roce.analysis.rnr_nak"),
                               ("cnps", "roce.analysis.cnp"),
                               ("ecn_ce", "roce.analysis.ecn_ce"),
                               ("rtt_samples", "roce.analysis.rtt")):
                if get(row, field):
                    c[key] += 1
            c["pfc_storms"] += n_occ(get(row, "roce.pfc.storm"))
    return c


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "counts":
        for k, v in counts(sys.argv[2]).items():
            print(k, v)
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        c = counts(sys.argv[2])
        with open(sys.argv[3], encoding="utf-8") as f:
            summary = json.load(f)["summary"]
        names = sys.argv[4:] or [k for k in c if k in summary]
        bad = 0
        for k in names:
            if k not in summary:
                print("  %-16s plugin %-8s roce-analyze: (absent)" % (k, c.get(k)))
                continue
            if c.get(k) != summary[k]:
                print("  %-16s plugin %-8s roce-analyze %s" % (k, c.get(k), summary[k]))
                bad = 1
        return bad
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
