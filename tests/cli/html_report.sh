#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-analyze --html in a real browser (headless Chromium, html_check.py): for sample
# captures and generated ones (one with PFC frames only), the page loads without a console
# message, draws its charts, and its summary, per-QP, PFC and anomaly tables equal
# roce-analyze --json of the same run; a screenshot of each goes to BUILD/test-artifacts/.
# The page's Content-Security-Policy names the SHA-256 of its inline script and style sheet
# and nothing else.  A pcapng whose comment, interface name and description and whose file
# name carry <script> and <img onerror> payloads shows them as text and runs none.  --html
# changes nothing of the --json output; bad --html arguments are usage errors.
#   html_report.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: $0 BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: $0 BUILD_DIR SOURCE_DIR}
. "$SRC/tests/cli/testlib.sh"
A=$BUILD/cli/roce-analyze
G=$BUILD/cli/roce-gen
CHK=$SRC/tests/cli/html_check.py
ART=$BUILD/test-artifacts
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }
if ! command -v chromium >/dev/null 2>&1; then
	echo "SKIP: chromium not installed (scripts/setup.sh installs it)"
	exit 77
fi
mkdir -p "$ART"

# csp_ok PAGE: the policy allows exactly the page's inline script and style by hash
csp_ok() {
	python3 - "$1" <<'EOF'
import base64, hashlib, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1)
def h(s):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
ok = (len(scripts) == 1 and "default-src 'none'" in csp and "unsafe" not in csp
      and "script-src %s;" % h(scripts[0]) in csp and "style-src %s;" % h(style) in csp
      and "http" not in csp.replace("http-equiv", ""))
print("csp:", csp[:160])
sys.exit(0 if ok else 1)
EOF
}

# ---- known captures, and a generated one with loss, CNPs and PFC ------------------------
CAPS=("$SRC/captures/rocev2_write_loss.pcap" "$SRC/captures/pfc_storm.pcap"
      "$SRC/captures/rocev2_ipv6_read.pcap" "$SRC/captures/malformed.pcap")
# (10 Gbit/s: about 15 ms of traffic; the pause train of 3 ms is a storm at 1 ms)
if "$G" -w "$tmp/gen_mix.pcap" --qps 8 --messages 2000 --msg-size 8192 --rate 10e9 \
	--verbs write:3,read:1,send:1 --loss 0.5% --rnr-rate 1% --timeout-rate 0.3% \
	--ce-rate 2% --bad-icrc-rate 0.1% --pfc prio=3,refresh=50us,length=3ms,start=2ms \
	--pfc prio=5,refresh=20us,length=200us,start=9ms -q 2>"$tmp/gen.err"; then
	CAPS+=("$tmp/gen_mix.pcap")
else
	bad "roce-gen could not write the mixed capture: $(head -2 "$tmp/gen.err")"
fi
# PFC frames and no RoCE stream (a switch port's capture): an empty stream selector
if "$G" -w "$tmp/gen_pfc_only.pcap" --messages 0 -q \
	--pfc prio=3,refresh=50us,length=3ms,start=0 2>"$tmp/gen.err"; then
	CAPS+=("$tmp/gen_pfc_only.pcap")
else
	bad "roce-gen could not write the PFC-only capture: $(head -2 "$tmp/gen.err")"
fi
for c in "${CAPS[@]}"; do
	b=$(basename "$c" .pcap)
	args=()
	[ "$b" = gen_mix ] && args=(--pfc-storm-ms 1)
	"$A" "${args[@]}" --json --html "$tmp/$b.html" "$c" >"$tmp/$b.json" 2>"$tmp/$b.err"
	rc=$?
	[ $rc -le 1 ] || { bad "$b: roce-analyze --html exit $rc: $(head -2 "$tmp/$b.err")"; continue; }
	check test -s "$tmp/$b.html"
	csp_ok "$tmp/$b.html" >/dev/null || bad "$b: Content-Security-Policy does not match the page"
	"$A" "${args[@]}" --frames --json "$c" >"$tmp/$b.frames" 2>/dev/null
	if python3 "$CHK" report "$tmp/$b.html" "$tmp/$b.json" "$ART/html_report_$b.png" \
		"$tmp/$b.frames" >"$tmp/$b.chk" 2>&1; then
		ok
	else
		bad "$b: browser check"
		sed 's/^/    /' "$tmp/$b.chk" | head -30
	fi
	# --html adds a file and changes nothing of the other output
	"$A" "${args[@]}" --json "$c" >"$tmp/$b.plain.json" 2>/dev/null
	cmp -s "$tmp/$b.json" "$tmp/$b.plain.json" || bad "$b: --json differs with --html"
done

# ---- untrusted strings: pcapng comment, interface name/description, file name ------------
P_SCRIPT='<script>window.__xss="comment"</script>'
P_IMG='<img src=x onerror="window.__xss=1">'
P_END='</script><script>window.__xss=2</script><!--'
P_FILE='<img src=y onerror=window.__xss=3>'
python3 - "$SRC/captures/rocev2_write_loss.pcap" "$tmp/$P_FILE.pcapng" \
	"$P_SCRIPT" "$P_IMG" "$P_END" <<'EOF'
import struct, sys
src, out, comment, ifname, ifdesc = sys.argv[1:6]
def opt(code, s):
    b = s.encode()
    return struct.pack("<HH", code, len(b)) + b + b"\0" * (-len(b) % 4)
def block(t, body):
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
data = open(src, "rb").read()
magic, _, _, _, _, snap, lt = struct.unpack("<IHHiIII", data[:24])
assert magic in (0xa1b2c3d4, 0xa1b23c4d), "little-endian pcap expected"
ns = magic == 0xa1b23c4d
shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) +
            opt(1, comment) + opt(2, "<b>hw</b> & co") + opt(4, "roce \u2028 test") + b"\0" * 4)
idb = block(1, struct.pack("<HHI", lt, 0, snap) + opt(2, ifname) + opt(3, ifdesc) +
            opt(1, "if comment </script>") +
            (struct.pack("<HHB3x", 9, 1, 9) if ns else b"") + b"\0" * 4)
out_b = [shb, idb]
off = 24
while off + 16 <= len(data):
    sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
    pkt = data[off + 16:off + 16 + incl]
    off += 16 + incl
    ts = sec * (1000000000 if ns else 1000000) + usec
    out_b.append(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, incl, orig) +
                       pkt + b"\0" * (-len(pkt) % 4)))
open(out, "wb").write(b"".join(out_b))
EOF
"$A" --html "$tmp/xss.html" -q "$tmp/$P_FILE.pcapng"
check test $? -le 1
if [ -s "$tmp/xss.html" ]; then
	# no payload's markup survives as markup in the file itself
	n_script=$(grep -o '<script' "$tmp/xss.html" | wc -l)
	[ "$n_script" -eq 2 ] || bad "xss: $n_script <script> tags in the file (2 expected)"
	grep -q '<img' "$tmp/xss.html" && bad "xss: an <img> tag in the file"
	grep -q 'u003cscript' "$tmp/xss.html" || bad "xss: the comment is not in the data block"
	csp_ok "$tmp/xss.html" >/dev/null || bad "xss: Content-Security-Policy does not match"
	if python3 "$CHK" xss "$tmp/xss.html" "$P_SCRIPT" "$P_IMG" "$P_END" "$P_FILE" \
		"if comment </script>" "<b>hw</b> & co" >"$tmp/xss.chk" 2>&1; then
		ok
	else
		bad "xss: browser check"
		sed 's/^/    /' "$tmp/xss.chk" | head -30
	fi
else
	bad "xss: no page written"
fi

# ---- a pause requested past the end of the capture ----------------------------------------
# PAUSE 0xffff (33.5 ms at 1 Gbit/s) at 2 us and 4 us of a 7 us capture: the PFC table's
# paused time runs to the deadline (docs/json.md), the paused ratio is over the capture:
# (last frame - first PAUSE) / duration, not 4600 as before
"$G" -w "$tmp/late.pcap" -m 20 --pause quanta=65535,refresh=2us,length=4us,start=2us -q
"$A" --frames --json --link-speed 1 "$tmp/late.pcap" >"$tmp/late.jsonl"
"$A" --html "$tmp/late.html" --link-speed 1 -q "$tmp/late.pcap"
if python3 - "$tmp/late.jsonl" "$tmp/late.html" <<'EOF'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
rel = [f["time_relative"] for f in lines[:-1]]
first = min(f["time_relative"] for f in lines[:-1] if f["kind"] == "pause")
want = (max(rel) - first) / (max(rel) - min(rel))
got = [float(x) for x in re.findall(r'"paused_ratio":([0-9.e+-]+)', open(sys.argv[2]).read())]
print("paused_ratio", got, "want", want)
sys.exit(0 if len(got) == 1 and 0.3 < want < 1 and abs(got[0] - want) < 1e-3 else 1)
EOF
then ok; else bad "paused ratio of a pause past the end of the capture"; fi

# ---- usage --------------------------------------------------------------------------------
c=$SRC/captures/rocev2_write_loss.pcap
"$A" --html - "$c" >/dev/null 2>"$tmp/u1"
check test $? -eq 2
check grep -q -- '--html' "$tmp/u1"
"$A" --html "$tmp/no/such/dir/x.html" "$c" >/dev/null 2>"$tmp/u2"
check test $? -eq 2
check grep -q 'no/such/dir' "$tmp/u2"
# a missing input: the page is still written (what was analysed: nothing), exit 2
"$A" --html "$tmp/missing.html" "$tmp/missing.pcap" >/dev/null 2>&1
check test $? -eq 2
check grep -q 'id="data"' "$tmp/missing.html"

finish
