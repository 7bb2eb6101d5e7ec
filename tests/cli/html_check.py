#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""html_check.py - load a roce-analyze --html page in headless Chromium and check it.

Drives Chromium through the DevTools protocol over --remote-debugging-pipe (fd 3: commands
in, fd 4: replies out, NUL-separated JSON), with the Python standard library only.  Every
console message, uncaught exception, log entry of level warning/error (Content-Security-
Policy violations are reported there) and JavaScript dialog is recorded.

  html_check.py report PAGE.html REPORT.json SHOT.png [FRAMES.jsonl]
      no console output or errors, the page finished (body[data-ready]), the charts are
      there and drawn, the summary cards, the per-QP, PFC and anomaly tables equal the
      roce-analyze --json report of the same run; a screenshot of the page is saved.
      With the run's --frames --json, the paused ratios leave out the part of a pause
      requested past the last frame.
  html_check.py xss PAGE.html PAYLOAD...
      no dialog, no console error, window.__xss unset, no <img>, only the page's two
      <script> elements, no on* attribute anywhere, and every PAYLOAD appears as text.
  html_check.py timing PAGE.html [LOADS]
      loads the page LOADS times (default 1), each in a fresh tab, and prints the median
      milliseconds from navigation start to the charts drawn: the page's "roce-ready"
      performance mark (its script ran to the end) followed by two painted animation frames.
  html_check.py shot PAGE.html OUT.png [HEIGHT [SCALE [SELECTOR]]]
      a screenshot of HEIGHT pixels (default 1400) at SCALE (default 0.75) from the top, or
      from the heading before the element SELECTOR matches, for docs.

Exit status: 0 all checks passed, 1 a check failed, 77 Chromium not found.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="html_check.")
        r_cmd, self.w_cmd = os.pipe()
        self.r_out, w_out = os.pipe()
        # the child's fd 3 reads commands, fd 4 writes replies
        r_hi, w_hi = _dup_hi(r_cmd), _dup_hi(w_out)

        def child():
            os.dup2(r_hi, 3)
            os.dup2(w_hi, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child, close_fds=False,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (r_cmd, w_out, r_hi, w_hi):
            os.close(fd)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_msg(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from Chromium")
            r, _, _ = select.select([self.r_out], [], [], left)
            if not r:
                continue
            chunk = os.read(self.r_out, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=30.0):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.w_cmd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_msg(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=30.0):
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_msg(deadline)
            if m.get("method") == method:
                return m
            if "method" in m:
                self.events.append(m)

    def open(self, url, width=1280, height=900):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.target = t["targetId"]
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = a["sessionId"]
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.send(m)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def eval(self, expr, timeout=30.0):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"].get("text"))
        return r["result"].get("value")

    def wait_ready(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.eval("document.body && document.body.dataset.ready || ''") == "1":
                return True
            time.sleep(0.05)
        return False

    def problems(self):
        """Console messages, exceptions, warnings/errors in the log, dialogs."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p.get("type"), " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s %s" % (d.get("text"),
                                                 d.get("exception", {}).get("description", "")))
            elif m == "Log.entryAdded":
                en = p.get("entry", {})
                if en.get("level") in ("warning", "error"):
                    out.append("log %s/%s: %s" % (en.get("source"), en.get("level"),
                                                  en.get("text")))
            elif m == "Page.javascriptDialogOpening":
                out.append("dialog: %s" % p.get("message"))
        return out

    def screenshot(self, path, height=None, scale=1.0, y=0):
        size = self.eval("[document.documentElement.scrollWidth, "
                         "document.documentElement.scrollHeight]")
        r = self.send("Page.captureScreenshot",
                      {"format": "png", "captureBeyondViewport": True,
                       "clip": {"x": 0, "y": y, "width": size[0],
                                "height": min(size[1] - y, height or 16000), "scale": scale}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w_cmd)
        os.close(self.r_out)
        shutil.rmtree(self.profile, ignore_errors=True)


def _dup_hi(fd):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 10)


FAILS = []


def expect(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


# the DOM, as the checks read it
EXTRACT = r"""
(function () {
  function rows(id) {
    const t = document.getElementById(id);
    if (!t) return null;
    return Array.from(t.tBodies[0].rows).filter(r => r.cells.length > 1)
      .map(r => Array.from(r.cells).map(c => c.dataset.v));
  }
  const charts = {};
  for (const s of document.querySelectorAll('svg.chart')) {
    charts[s.id] = {
      width: s.getBoundingClientRect().width,
      paths: Array.from(s.querySelectorAll('path.series')).filter(p => p.getAttribute('d')).length,
      tx: s.querySelectorAll('path.tx').length, ack: s.querySelectorAll('path.ack').length,
      points: s.querySelectorAll('.pt').length,
      pauses: s.querySelectorAll('rect.pause').length,
      storms: s.querySelectorAll('rect.storm').length,
    };
  }
  const summary = {};
  for (const c of document.querySelectorAll('#summary [data-key]'))
    summary[c.dataset.key] = c.dataset.value;
  return JSON.stringify({ charts: charts, summary: summary, qps: rows('qps'), pfc: rows('pfc'), pfcprio: rows('pfc-prio'),
    anomalies: rows('anomalies'),
    qpcols: Array.from(document.querySelectorAll('#qps th')).map(h => h.textContent),
    streams: document.querySelectorAll('#stream-select option').length,
    sel_has_tx: (function () {
      const d = JSON.parse(document.getElementById('data').textContent);
      const sel = document.getElementById('stream-select');
      if (!sel || sel.value === '') return false;
      const s = d.streams[Number(sel.value)];
      return s.tx_lo.some(v => v !== null);
    })() });
})()
"""

CHARTS = ["chart-throughput", "chart-events", "chart-cnp", "chart-ce", "chart-errors",
          "chart-psn", "chart-pfc"]
# summary card -> key of roce-analyze --json "summary"
SUMMARY_KEYS = ["frames", "bytes", "roce_frames", "icrc_bad", "malformed", "psn_gaps",
                "lost_psns", "unrecovered_psns", "acked_unseen_psns", "duplicates", "out_of_order",
                "retransmissions", "naks", "rnr_naks", "acks", "cnps", "ecn_ce", "pfc_frames",
                "pause_frames", "pfc_storms"]


def overshoot_us(frames):
    """Per (src_mac, priority as the page names it): how far the pause requested by the
    sender's last frame reaches past the capture's last frame, us (the PFC table counts a
    pause open at the end to its deadline; the page's paused ratio stops at the last frame).
    A frame's pause replaces the running one, so only the last frame of a key matters."""
    end = max(f["time_relative"] for f in frames)
    last = {}
    for f in frames:
        if f["kind"] == "pause":
            last[(f["src_mac"], "PAUSE")] = (f["time_relative"], f["pause_us"])
        elif f["kind"] == "pfc":
            for i in range(8):
                if f["enable"] & (1 << i):
                    last[(f["src_mac"], str(i))] = (f["time_relative"], f["pause_us"][i])
    return {k: max(0.0, t * 1e6 + us - end * 1e6) for k, (t, us) in last.items()}


def page_mac(p):
    """The page's label of a --json PFC entry's sender: with several capture interfaces
    (the entry has "interface") its if_name (or "if N") before the MAC."""
    if "interface" not in p:
        return p["src_mac"]
    return (p.get("if_name") or "if %d" % p["interface"]) + " " + p["src_mac"]


def check_report(b, page, rep, shot, frames=None):
    over = overshoot_us(frames) if frames else {}
    dom = json.loads(b.eval(EXTRACT))
    for c in CHARTS:
        expect(c in dom["charts"] and dom["charts"][c]["width"] > 300, "chart %s drawn" % c)
    ch = dom["charts"]
    s = rep["summary"]
    expect(ch.get("chart-throughput", {}).get("paths", 0) >= 1, "throughput has a line")
    for k in SUMMARY_KEYS:
        expect(k in s, "--json summary has %s" % k)
        expect(dom["summary"].get(k) == str(s.get(k)),
               "summary %s: page %s, --json %s" % (k, dom["summary"].get(k), s.get(k)))
    qps = rep.get("qps", [])
    if qps:
        expect(dom["streams"] >= 1, "stream selector lists streams")
        if dom["sel_has_tx"]:
            expect(ch.get("chart-psn", {}).get("tx", 0) >= 1, "PSN graph has first transmissions")
    if s.get("psn_gaps", 0) + s.get("retransmissions", 0) > 0:
        expect(ch.get("chart-psn", {}).get("points", 0) >= 1,
               "PSN graph marks gaps/retransmissions")
    # per-QP table: one row per stream, counters equal
    expect(len(dom["qps"]) == len(qps), "qps rows: page %d, --json %d" % (len(dom["qps"]), len(qps)))
    cols = ["src", "dst", "dqpn", "transport", "frames", "bytes", "psn_gaps", "lost_psns",
            "duplicates", "out_of_order", "retransmissions", "naks", "rnr_naks", "cnps",
            "ecn_ce", "unrecovered_psns", "acked_unseen_psns"]
    page_rows = {}
    for r in dom["qps"]:
        page_rows[(r[0], r[1], int(r[2]))] = r
    for q in qps:
        r = page_rows.get((q["src"], q["dst"], q["dqpn"]))
        expect(r is not None, "qp %s > %s %d in the page" % (q["src"], q["dst"], q["dqpn"]))
        if r is None:
            continue
        for i, k in enumerate(cols):
            if i < 4:
                continue
            expect(r[i] == str(q[k]), "qp %s>%s/%d %s: page %s, --json %s" %
                   (q["src"], q["dst"], q["dqpn"], k, r[i], q[k]))
    # PFC table
    pfc = rep.get("pfc", []) + rep.get("pause", [])
    expect(len(dom["pfc"]) == len(pfc), "pfc rows: page %d, --json %d" % (len(dom["pfc"]), len(pfc)))
    pr = {(r[0], r[1]): r for r in dom["pfc"]}
    for p in pfc:
        key = (page_mac(p), "PAUSE" if p["priority"] is None else str(p["priority"]))
        r = pr.get(key)
        expect(r is not None and r[2] == str(p["frames"]) and r[8] == str(p["storms"]),
               "pfc %s: frames/storms equal" % (key,))
    # paused ratio per priority: sources, paused time, mean and max ratio over the duration
    dur = float(s.get("duration_s") or 0)
    byprio = {}
    for p in pfc:
        k = "PAUSE" if p["priority"] is None else str(p["priority"])
        e = byprio.setdefault(k, [0, 0.0, 0.0, 0, 0.0])
        us = max(0.0, float(p["paused_us"] or 0) - over.get((p["src_mac"], k), 0.0))
        e[0] += 1
        e[1] += float(p["paused_us"] or 0) * 1000
        e[2] = max(e[2], us / 1e6 / dur if dur else 0)
        e[3] += p["storms"]
        e[4] += us * 1000
    got = {r[0]: r for r in (dom.get("pfcprio") or [])}
    expect(sorted(got) == sorted(byprio), "paused ratio rows: page %s, --json %s" %
           (sorted(got), sorted(byprio)))
    for k, (n, paused, mx, storms, inside) in byprio.items():
        r = got.get(k)
        if r is None:
            continue
        mean = inside / 1e9 / dur / n if dur else 0
        expect(int(r[1]) == n and int(r[5]) == storms and
               abs(float(r[2]) - paused) <= 1000 * n and
               abs(float(r[3]) - mean) <= 1e-6 + 1e-4 * mean and
               abs(float(r[4]) - mx) <= 1e-6 + 1e-4 * mx,
               "paused ratio of priority %s: page %s, --json n=%d paused=%.0f ns mean=%.6f max=%.6f"
               % (k, r[1:], n, paused, mean, mx))
    if pfc:
        expect(ch.get("chart-pfc", {}).get("pauses", 0) >= 1, "PFC timeline has paused intervals")
    if s.get("pfc_storms", 0):
        expect(ch.get("chart-pfc", {}).get("storms", 0) >= 1, "PFC timeline highlights storms")
    # anomalies: the same frames
    an = rep.get("anomalies", [])
    expect(len(dom["anomalies"]) == len(an),
           "anomaly rows: page %d, --json %d" % (len(dom["anomalies"]), len(an)))
    expect(sorted(int(r[0]) for r in dom["anomalies"]) == sorted(a["frame"] for a in an),
           "anomaly frame numbers equal")
    check_marks(b, rep)
    check_interaction(b)
    b.screenshot(shot)
    expect(os.path.getsize(shot) > 10000, "screenshot written")


# every stream of the selector shown in turn: the classes of the PSN graph's marks, and the
# time series' paths, over all of them
MARKS = r"""
(async function () {
  const frame = () => new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
  const sel = document.getElementById('stream-select');
  const seen = {};
  const opts = sel ? Array.from(sel.options).map(o => o.value) : [];
  const keep = sel ? sel.value : null;
  for (const v of opts) {
    sel.value = v;
    sel.dispatchEvent(new Event('change'));
    await frame();              // the charts redraw in the next animation frame
    for (const e of document.querySelectorAll('#chart-psn .pt, #chart-psn .pt-gap, ' +
        '#chart-psn .pt-readrange, #chart-psn path.tx, #chart-psn path.resp, ' +
        '#chart-psn path.ack, #chart-psn path.cnp'))
      for (const c of e.classList)
        seen[c] = (seen[c] || 0) + 1;
  }
  if (sel) { sel.value = keep; sel.dispatchEvent(new Event('change')); await frame(); }
  const paths = {};
  for (const id of ['chart-throughput', 'chart-events', 'chart-cnp', 'chart-ce', 'chart-errors'])
    paths[id] = Array.from(document.querySelectorAll('#' + id + ' path.series'))
      .filter(p => /[0-9]/.test(p.getAttribute('d') || '')).length;
  return JSON.stringify({ seen: seen, paths: paths, streams: opts.length });
})()
"""


def check_marks(b, rep):
    """The PSN graphs (all streams) mark what the run had: retransmissions by cause, gaps
    with their lost range, NAKs, RNR NAKs, READ requests with their response range, ACKs,
    CNPs; the time series charts have lines for what happened."""
    m = json.loads(b.eval(MARKS))
    seen, paths = m["seen"], m["paths"]
    s = rep["summary"]
    if not rep.get("qps") or m["streams"] == 0:
        return
    want = []
    gbn = s.get("gbn_episodes", {})
    for cause in ("nak", "rnr", "timeout"):
        if gbn.get(cause, 0):
            want.append("retx-" + cause)
    if s.get("psn_gaps", 0):
        want += ["pt-gap"]
    if s.get("naks", 0):
        want.append("pt-nak")
    if s.get("rnr_naks", 0):
        want.append("pt-rnr")
    if s.get("opcodes", {}).get("RC_RDMA_READ_REQUEST", 0):
        want += ["pt-read", "pt-readrange", "resp"]
    if s.get("acks", 0):
        want.append("ack")
    if s.get("cnps", 0):
        want.append("cnp")
    want.append("tx")
    for c in want:
        expect(seen.get(c, 0) >= 1, "PSN graphs mark %s (%d streams; seen %s)" %
               (c, m["streams"], sorted(seen)))
    # total and per-stream throughput; events, CNP, CE and error lines when they happened
    expect(paths.get("chart-throughput", 0) >= 2, "throughput: total and per stream (%d lines)"
           % paths.get("chart-throughput", 0))
    if s.get("retransmissions", 0) or s.get("psn_gaps", 0):
        expect(paths.get("chart-events", 0) >= 1, "loss and recovery chart has lines")
    if s.get("cnps", 0):
        expect(paths.get("chart-cnp", 0) >= 1, "CNP rate has a line")
    if s.get("ecn_ce", 0):
        expect(paths.get("chart-ce", 0) >= 1, "CE ratio has a line")
    if s.get("icrc_bad", 0) or s.get("malformed", 0):
        expect(paths.get("chart-errors", 0) >= 1, "ICRC / malformed chart has lines")


def check_interaction(b):
    """Wheel zooms every chart's time axis, dragging pans, hover shows a tooltip, a click
    on a column header sorts the table."""
    def label():
        return b.eval("document.querySelector('.toolbar .note').textContent")

    def ticks():
        return b.eval("Array.from(document.querySelectorAll('#chart-errors .axis text'))"
                      ".map(t => t.textContent).join('|')")
    box = b.eval("(function () { const e = document.getElementById('chart-throughput');"
                 " e.scrollIntoView(); const r = e.getBoundingClientRect();"
                 " return [r.left, r.top, r.width, r.height]; })()")
    x, y = box[0] + box[2] / 2, box[1] + box[3] / 2
    before, before_ticks = label(), ticks()
    b.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y,
                                        "deltaX": 0, "deltaY": -300})
    time.sleep(0.3)
    after = label()
    expect(after != before and after.startswith("Showing"), "wheel zooms (%r)" % after)
    expect(ticks() != before_ticks, "zoom redraws the other charts' time axis")
    b.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x, "y": y,
                                        "button": "left", "clickCount": 1})
    b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x - 200, "y": y,
                                        "button": "left"})
    b.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x - 200, "y": y,
                                        "button": "left", "clickCount": 1})
    time.sleep(0.3)
    panned = label()
    expect(panned != after, "drag pans (%r)" % panned)
    b.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x + 5, "y": y})
    time.sleep(0.2)
    tip = b.eval("(function () { const t = document.getElementById('tip');"
                 " return [t.style.display, t.textContent]; })()")
    expect(tip[0] == "block" and "bin" in tip[1], "hover shows the bin's values (%r)" % tip)
    b.eval("document.getElementById('reset-zoom').click()")
    time.sleep(0.2)
    expect(label() != panned, "Reset zoom")
    # sort the per-QP table by frames: descending on the first click
    order = b.eval(r"""(function () {
      const t = document.getElementById('qps');
      const i = Array.from(t.tHead.rows[0].cells).findIndex(h => h.textContent === 'frames');
      t.tHead.rows[0].cells[i].click();
      return Array.from(t.tBodies[0].rows).map(r => Number(r.cells[i].dataset.v));
    })()""")
    expect(order == sorted(order, reverse=True), "click on a header sorts the table")


def check_xss(b, payloads):
    res = json.loads(b.eval(r"""JSON.stringify({
      xss: window.__xss === undefined ? null : String(window.__xss),
      imgs: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      onattr: Array.from(document.querySelectorAll('*')).some(e =>
        Array.from(e.attributes).some(a => a.name.toLowerCase().startsWith('on'))),
      text: document.body.innerText,
      title: document.title })"""))
    expect(res["xss"] is None, "no payload ran (window.__xss = %s)" % res["xss"])
    expect(res["imgs"] == 0, "no <img> element (%d)" % res["imgs"])
    expect(res["scripts"] == 2, "only the page's two <script> elements (%d)" % res["scripts"])
    expect(not res["onattr"], "no on* attribute in the DOM")
    for p in payloads:
        expect(p in res["text"] or p in res["title"], "payload shown as text: %r" % p)


def timing(b, page, loads):
    """Median ms from navigation start to the charts painted, over loads fresh tabs."""
    drawn, marks = [], []
    for _ in range(loads):
        b.open("file://" + page)
        r = b.send("Runtime.evaluate", {"awaitPromise": True, "returnByValue": True,
                   "expression": """new Promise(function (ok) {
                       (function wait() {
                           var m = performance.getEntriesByName('roce-ready');
                           if (!m.length) {
                               if (performance.now() > 30000) return ok([-1, -1]);
                               return setTimeout(wait, 2);
                           }
                           requestAnimationFrame(function () { requestAnimationFrame(function () {
                               ok([m[0].startTime, performance.now()]); }); });
                       })(); })"""}, timeout=60)
        if "exceptionDetails" in r:
            print("timing: %s" % r["exceptionDetails"].get("text"))
            return 1
        mark, now = r["result"]["value"]
        if mark < 0:
            print("timing: the page never set its roce-ready mark")
            return 1
        marks.append(mark)
        drawn.append(now)
        b.send("Target.closeTarget", {"targetId": b.target}, session=False)
        b.session = None
    drawn.sort()
    marks.sort()
    print("%.0f ms (script done %.0f ms)" % (drawn[len(drawn) // 2], marks[len(marks) // 2]))
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("report", "xss", "timing", "shot"):
        print(__doc__)
        return 2
    exe = find_chromium()
    if not exe:
        print("SKIP: chromium not installed")
        return 77
    page = os.path.abspath(argv[2])
    b = Browser(exe)
    if argv[1] == "timing":
        try:
            return timing(b, page, int(argv[3]) if len(argv) > 3 else 1)
        finally:
            b.close()
    try:
        b.open("file://" + page)
        ready = b.wait_ready()
        if argv[1] == "shot":
            y = 0
            if len(argv) > 6:
                y = int(b.eval("(function (e) { return e ? e.closest('section') ?"
                               " e.closest('section').getBoundingClientRect().top + scrollY - 8"
                               " : e.getBoundingClientRect().top + scrollY : 0; })"
                               "(document.querySelector(%s))" % json.dumps(argv[6])))
            b.screenshot(argv[3], int(argv[4]) if len(argv) > 4 else 1400,
                         float(argv[5]) if len(argv) > 5 else 0.75, y)
            return 0 if ready else 1
        expect(ready, "page ready (its script ran to the end)")
        if argv[1] == "report":
            with open(argv[3]) as f:
                rep = json.load(f)
            frames = None
            if len(argv) > 5:       # --frames --json of the run: pauses past its end
                with open(argv[5]) as f:
                    frames = [json.loads(l) for l in f][:-1]
            check_report(b, page, rep, argv[4], frames)
        else:
            check_xss(b, argv[3:])
        time.sleep(0.2)       # late console messages
        b.eval("1")
        for p in b.problems():
            expect(False, "browser reported: " + p)
    finally:
        b.close()
    print("%s: %d problem(s)" % (os.path.basename(page), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
