#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""capcompare.py - roce-analyze against tshark on one capture file.

usage: capcompare.py ROCE-ANALYZE FILE [ok|bad] [--ref REF] [--stdin]

tshark: frame.number, frame.time_epoch and the BTH PSN of every frame, its exit status and
error.  roce-analyze --frames --json: the frames read (summary.frames), each RoCE frame's
number, time and PSN, ICRC "ok".  They must agree; where tshark stops with an error,
roce-analyze must stop at the same frame: exit 2, one stderr line naming the file and the
frame after the last one tshark read (or no frame when tshark read none), and the report of
the frames before it.  Prints nothing and exits 0 when they agree, else one line per
difference and exits 1.

--ref REF (a compressed FILE, capcorpus.py --compressed): the frames expected are those tshark
reads in the plain capture REF ("-": none), the bytes that decompress before the damage.
tshark on FILE must read them too (ok), or stop with an error (bad) after a prefix of them:
it may stop earlier than roce-analyze, as a decompressor call that fails hands out none of
the bytes it decompressed (roce-analyze's calls end at each block).  bad: roce-analyze must
stop with an error after exactly REF's frames.  bad-stale: as bad, but only tshark's error on
FILE is compared, not its frames (see capcorpus.py).  --stdin: both read FILE from standard input
("-"), and the error names "<stdin>".
"""
import json
import os
import re
import subprocess
import sys

args = sys.argv[1:]
use_stdin = "--stdin" in args
if use_stdin:
    args.remove("--stdin")
ref = None
if "--ref" in args:
    i = args.index("--ref")
    ref = args[i + 1]
    del args[i:i + 2]
ra, path = args[0], args[1]
want = args[2] if len(args) > 2 else None
bad = []


def tshark(f, stdin=False):
    """rows (number, time, PSN) and (failed, error text) of tshark reading f"""
    t = subprocess.run(["tshark", "-n", "-r", "-" if stdin else f, "-T", "fields",
                        "-e", "frame.number", "-e", "frame.time_epoch",
                        "-e", "infiniband.bth.psn"],
                       stdin=open(f, "rb") if stdin else subprocess.DEVNULL,
                       capture_output=True, text=True)
    err = "\n".join(l for l in t.stderr.splitlines() if "Running as user" not in l and
                    "dangerous" not in l).strip()
    return [l.split("\t") for l in t.stdout.splitlines() if l], t.returncode != 0 or bool(err), err


trows, tfail, terr = tshark(path, use_stdin)
if ref is not None:
    # the frames of the bytes before the damage (tshark on the plain reference, cached)
    if ref == "-":
        rrows, rfail = [], False
    else:
        cache = ref + ".tshark.json"
        if not os.path.exists(cache):
            json.dump(tshark(ref)[:2], open(cache, "w"))
        rrows, rfail = json.load(open(cache))
    if want == "ok" and (tfail or trows != rrows):
        bad.append("tshark on the compressed file: %s, %d frames; on the plain one %d"
                   % (terr.replace("\n", " ") or "no error", len(trows), len(rrows)))
    if want == "bad-stale":
        # (capcorpus.py: tshark's frames of such a file are not compared, its error is)
        want = "bad"
        trows = [] if tfail else trows
    if want == "bad" and (not tfail or trows != rrows[:len(trows)]):
        bad.append("tshark on the compressed file: %s, %d frames (want an error after a "
                   "prefix of %d)" % (terr.replace("\n", " ") or "no error", len(trows),
                                      len(rrows)))
    trows, tfail = rrows, want == "bad"
    terr = terr or "(the plain capture ends there)"
elif want == "ok" and tfail:
    bad.append("tshark rejects it (expected to read it): %s" % terr.replace("\n", " "))
if want == "bad" and not tfail:
    bad.append("tshark reads it (expected an error)")

r = subprocess.run([ra, "--frames", "--json", "-" if use_stdin else path],
                   stdin=open(path, "rb") if use_stdin else subprocess.DEVNULL,
                   capture_output=True)
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
    name = "<stdin>" if use_stdin else path.rsplit("/", 1)[-1]
    if len(elines) != 1:
        bad.append("roce-analyze error is not one line: %r" % rerr)
    elif name not in elines[0]:
        bad.append("error does not name the file: %s" % rerr)
    else:
        # the frame named right after the file: the next one, or "after" the last one read;
        # none (the file's header) or frame 1 when tshark read none
        m = re.search(r"%s: (after )?frame (\d+): " % re.escape(name), elines[0])
        if m and (int(m.group(2)) != (tframes if m.group(1) else tframes + 1)) or \
           not m and tframes:
            bad.append("error does not name frame %d (tshark read %d): %s" %
                       (tframes + 1, tframes, elines[0]))
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
    print("%s%s: %s" % (path.rsplit("/", 1)[-1], " (stdin)" if use_stdin else "", b))
sys.exit(1 if bad else 0)
