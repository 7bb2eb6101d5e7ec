#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_pfc_ifaces_out.sh - PFC / PAUSE per capture interface in --html, Prometheus and
# --frames: one MAC that sends PFC on two interfaces of a pcapng (swp1 and swp2, a switch's
# ports) makes two timelines and two PFC rows in the page, labelled by the interface name,
# two roce_pfc_sender_* series with interface_id / if_name labels that promtool accepts, and
# --frames lines that name the interface from the first frame of the second one on; a
# one-interface pcapng and a classic pcap keep one timeline, the bare MAC, the label set and
# the frame lines without them.  With main's binary before this test (df8f368^), 9 checks
# fail: the two timelines and two PFC rows (the data block; in Chromium, html_check.py's PFC
# table), the three link-labelled series and the three interface-naming --frames checks.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

PYTHONPATH="$src/tests/cli" python3 - "$tmp" <<'PY' || { echo "FAIL: the captures"; exit 1; }
import struct, sys
from pcapng_blocks import NG, pfc_frame

d = sys.argv[1]
mac = bytes.fromhex("02aabbccdd01")

def pfc(prio, q):
    return pfc_frame(mac, prio, q)

ng = NG()
S = 1_000_000_000
US = 1000
def name(n):
    return ng.opt(2, n.encode())
def roce(psn):
    # a RoCE v2 SEND only on swp1 (the page draws a stream's chart: one QP stream at least)
    bth = struct.pack(">BBHII", 0x04, 0, 0xffff, 0x12, psn) + b"\0" * 16 + b"\0" * 4
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(bth), 0) + bth
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    c = sum(struct.unpack(">10H", ip))
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    ip = ip[:10] + struct.pack(">H", ~c & 0xffff) + ip[12:]
    return bytes.fromhex("02aabbccdd02") + mac + b"\x08\x00" + ip + udp

seq = ((0, 1 * S, pfc(3, 0xffff)), (0, 1 * S + 50 * US, roce(0)),
       (1, 1 * S + 100 * US, pfc(3, 0xffff)), (0, 1 * S + 150 * US, roce(1)),
       (0, 1 * S + 200 * US, pfc(3, 0)), (1, 1 * S + 300 * US, pfc(3, 0)))
two = ng.shb() + ng.idb(tsresol=9, opts=name("swp1")) + ng.idb(tsresol=9, opts=name("swp2"))
for i, t, f in seq:
    two += ng.epb(i, t, f)
open(d + "/two.pcapng", "wb").write(two)
one = ng.shb() + ng.idb(tsresol=9, opts=name("swp1"))
for i, t, f in seq:
    one += ng.epb(0, t, f)
open(d + "/one.pcapng", "wb").write(one)
p = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
for i, t, f in seq:
    p += struct.pack("<IIII", t // S, t % S, len(f), len(f)) + f
open(d + "/one.pcap", "wb").write(p)
PY

opts="--link-speed 1 --pfc-storm-ms 20 --no-icrc"
for c in two one; do
	"$ra" $opts --json --html "$tmp/$c.html" --prometheus-textfile "$tmp/$c.prom" \
		"$tmp/$c.pcapng" >"$tmp/$c.json" 2>"$tmp/$c.err"
	[ $? -le 1 ] || bad "$c: roce-analyze failed: $(cat "$tmp/$c.err")"
done
"$ra" $opts --json --html "$tmp/pcap.html" --prometheus-textfile "$tmp/pcap.prom" \
	"$tmp/one.pcap" >"$tmp/pcap.json" 2>"$tmp/pcap.err"
[ $? -le 1 ] || bad "pcap: roce-analyze failed: $(cat "$tmp/pcap.err")"

# the page's data block: (label, priority) of its timelines and PFC rows
page() { # page.html python-expression over d (the data block): ok when true
	if python3 -c 'import html, json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r"<script type=\"application/json\" id=\"data\">(.*?)</script>",
                         t, re.S).group(1))
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print([(x["src_mac"], x["priority"]) for x in d["timelines"]],
          [(x["src_mac"], x["priority"], x["frames"]) for x in d["pfc"]])
sys.exit(0 if ok else 1)' "$tmp/$1.html" "$2"; then
		ok
	else
		bad "$1.html: $2"
	fi
}
# two links: two timelines (main's binary: one, the MAC's pauses of both merged) and two
# PFC rows, each named by its interface
page two '[(x["src_mac"], x["interface"], x["if_name"], x["closed"]) for x in d["timelines"]]
	  == [("swp1 02:aa:bb:cc:dd:01", 0, "swp1", 1), ("swp2 02:aa:bb:cc:dd:01", 1, "swp2", 1)]'
page two '[(x["src_mac"], x["frames"], x["interface"]) for x in d["pfc"]] ==
	  [("swp1 02:aa:bb:cc:dd:01", 2, 0), ("swp2 02:aa:bb:cc:dd:01", 2, 1)]'
# each link paused 200 us of the 300 us capture: not 400 us (one link's timeline for both)
page two '[round(x["paused_ratio"], 4) for x in d["pfc"]] == [0.6667, 0.6667]'
for c in one pcap; do
	page $c '[(x["src_mac"], x["priority"], x["closed"]) for x in d["timelines"]] ==
		 [("02:aa:bb:cc:dd:01", 3, 1)]'
	page $c '"interface" not in d["pfc"][0] and "interface" not in d["timelines"][0]'
done
# in a browser: the page's PFC table and paused ratios per priority equal --json's
if [ -n "${ROCE_SKIP_BROWSER:-}" ]; then
	:
else
	python3 "$src/tests/cli/html_check.py" report "$tmp/two.html" "$tmp/two.json" \
		"$tmp/two.png" >"$tmp/chk.out" 2>&1
	case $? in
	0) ok ;;
	77) echo "note: no Chromium, the page's rows not checked in a browser" ;;
	*) bad "html_check two: $(cat "$tmp/chk.out")" ;;
	esac
	# the timeline chart's title names the interface only when there are several
	if command -v chromium >/dev/null 2>&1; then
		for c in two one; do
			timeout 120 chromium --headless --no-sandbox --dump-dom \
				"file://$tmp/$c.html" 2>/dev/null |
				grep -o 'Paused intervals per [a-zA-Z, ]*priority' >"$tmp/$c.title"
		done
		check grep -qx 'Paused intervals per capture interface, source MAC and priority' \
			"$tmp/two.title"
		check grep -qx 'Paused intervals per source MAC and priority' "$tmp/one.title"
	fi
fi

# Prometheus: one series per link with interface_id and if_name; none of them with one
# interface, whose series are as before
sender='^roce_pfc_sender_frames_total{interface="[^"]*",mac="02:aa:bb:cc:dd:01",priority="3"'
check grep -q "$sender"',interface_id="0",if_name="swp1"} 2$' "$tmp/two.prom"
check grep -q "$sender"',interface_id="1",if_name="swp2"} 2$' "$tmp/two.prom"
check grep -q '^roce_pfc_sender_xon_frames_total{.*priority="other",interface_id="other",'`
	`'if_name="other"} 0$' "$tmp/two.prom"
for c in one pcap; do
	if grep -q 'interface_id\|if_name' "$tmp/$c.prom"; then
		bad "$c.prom: a link label"
	else
		ok
	fi
	check grep -q "$sender"'} 4$' "$tmp/$c.prom"
done
# --frames: from the first frame of the second interface (frame 3) on, every line names its
# interface; the lines before it, and every line of one interface, do not
"$ra" $opts --frames --json "$tmp/two.pcapng" 2>/dev/null | head -n -1 >"$tmp/two.jl"
check python3 -c 'import json, sys
got = [(j["frame"], j.get("interface"), j.get("if_name"))
       for j in map(json.loads, open(sys.argv[1]))]
want = [(1, None, None), (2, None, None), (3, 1, "swp2"), (4, 0, "swp1"), (5, 0, "swp1"),
        (6, 1, "swp2")]
if got != want:
    print(got)
sys.exit(got != want)' "$tmp/two.jl"
"$ra" $opts --frames "$tmp/two.pcapng" >"$tmp/two.ft" 2>/dev/null
check grep -Eq '^ +2 +0\.000050 v2 10\.0\.0\.1' "$tmp/two.ft"
check grep -Eq '^ +3 +0\.000100 swp2 PFC +02:aa:bb:cc:dd:01 ' "$tmp/two.ft"
check grep -Eq '^ +4 +0\.000150 swp1 v2 10\.0\.0\.1' "$tmp/two.ft"
for c in one.pcapng one.pcap; do
	"$ra" $opts --frames --json "$tmp/$c" >"$tmp/f.jl" 2>/dev/null
	"$ra" $opts --frames "$tmp/$c" >"$tmp/f.txt" 2>/dev/null
	if grep -q '"interface"\|"if_name"\|swp1' "$tmp/f.jl" "$tmp/f.txt"; then
		bad "$c: --frames names an interface"
	else
		ok
	fi
	check grep -Eq '^ +3 +0\.000100 PFC +02:aa:bb:cc:dd:01 ' "$tmp/f.txt"
done

if have_promtool; then
	for c in two one pcap; do
		promtool check metrics <"$tmp/$c.prom" >"$tmp/pt.out" 2>&1 && ok ||
			bad "promtool check metrics $c: $(cat "$tmp/pt.out")"
	done
fi
finish
