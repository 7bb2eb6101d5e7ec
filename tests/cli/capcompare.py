#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""capcompare.py - roce-analyze against tshark on one capture file.

usage: capcompare.py ROCE-ANALYZE FILE [ok|bad]

tshark: frame.number, frame.time_epoch and the BTH PSN of every frame, its exit status and
error.  roce-analyze --frames --json: the frames read (summary.frames), each RoCE frame's
number, time and PSN, ICRC "ok".  They must agree; where tshark stops with an error,
roce-analyze must stop at the same frame: exit 2, one stderr line naming the file and the
frame after the last one tshark read (or no frame when tshark read none), and the report of
the frames before it.  Prints nothing and exits 0 when they agree, else one line per
difference and exits 1.
"""
import json
import subprocess
import sys

ra, path = sys.argv[1], sys.argv[2]
want = sys.argv[3] if len(sys.argv) > 3 else None
bad = []

t = subprocess.run(["tshark", "-n", "-r", path, "-T", "fields", "-e", "frame.number",
                    "-e", "frame.time_epoch", "-e", "infiniband.bth.psn"],
                   capture_output=True, text=True)
terr = "\n".join(l for l in t.stderr.splitlines() if "Running as user" not in l and
                 "dangerous" not in l).strip()
trows = [l.split("\t") for l in t.stdout.splitlines() if l]
tfail = t.returncode != 0 or bool(terr)
if want == "ok" and tfail:
    bad.append("tshark rejects it (expected to read it): %s" % terr.replace("\n", " "))
if want == "bad" and not tfail:
    bad.append("tshark reads it (expected an error)")

r = subprocess.run([ra, "--frames", "--json", path], capture_output=True)
rerr = r.stderr.decode("utf-8", "replace").strip()
lines = r.stdout.decode("utf-8", "replace").splitlines()
summary = None
rows = []
try:
    objs = [json.loads(l, parse_float=str) for l in lines]
    if objs:
        summary = objs[-1]["summary"]
        rows = [o for o in objs[:-1] if o.get("kind") == "roce"]
except (ValueError, KeyError) as e:
    bad.append("roce-analyze output is not JSON Lines: %s" % e)

tframes = len(trows)
if tfail:
    if r.returncode != 2:
        bad.append("tshark: %s; roce-analyze exit %d (want 2)" % (terr.replace("\n", " "),
                                                                   r.returncode))
    elines = [l for l in rerr.splitlines() if ": warning: " not in l]
    if len(elines) != 1:
        bad.append("roce-analyze error is not one line: %r" % rerr)
    elif tframes:
        if ("frame %d:" % (tframes + 1)) not in elines[0] and \
           ("after frame %d:" % tframes) not in elines[0]:
            bad.append("error does not name frame %d (tshark read %d): %s" %
                       (tframes + 1, tframes, elines[0]))
    name = path.rsplit("/", 1)[-1]
    if rerr and name not in rerr:
        bad.append("error does not name the file: %s" % rerr)
    if tframes and summary is None:
        bad.append("no report of the %d frames before the error" % tframes)
else:
    if r.returncode != 0:
        bad.append("roce-analyze exit %d: %s" % (r.returncode, rerr))
if summary is not None and summary["frames"] != tframes:
    bad.append("frames: tshark %d, roce-analyze %d" % (tframes, summary["frames"]))
if summary is None and tframes and not tfail:
    bad.append("no report")

# per RoCE frame: number, time, PSN
tr = [(int(f[0]), f[1], int(f[2], 0)) for f in trows if len(f) > 2 and f[2]]
rr = []
for o in rows:
    ts = o["ts"] if o["ts"] is not None else ""      # tshark: no frame.time_epoch
    rr.append((o["frame"], ts, o["psn"]))
    if o.get("icrc") not in ("ok", "unverified"):    # unverified: a cut frame
        bad.append("frame %d: icrc %s" % (o["frame"], o.get("icrc")))
        break
if tr != rr:
    for x, y in zip(tr, rr):
        if x != y:
            bad.append("first RoCE frame that differs: tshark %r, roce-analyze %r" % (x, y))
            break
    else:
        bad.append("RoCE frames: tshark %d, roce-analyze %d" % (len(tr), len(rr)))

for b in bad:
    print("%s: %s" % (path.rsplit("/", 1)[-1], b))
sys.exit(1 if bad else 0)
