#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_pfc_ifaces.sh - PFC / PAUSE per capture interface: one MAC that sends PFC on two
# interfaces of a pcapng (a switch's ports) makes two entries and two pauses, each named by
# its interface number and if_name in the JSON rows, storm anomalies and text table; another
# section's interface with another name is a third; the same (id, if_name) in a second input
# file is the same interface (rotated files).  A one-interface pcapng, a pcapng whose frames
# all come from one of its interfaces and a classic pcap carry no interface field.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# At 1 Gbit/s 0xffff quanta are 33.553920 ms; storms from 20 ms.
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
# section 1: swp1 (id 0) and swp2 (id 1); XOFF on both 100 us apart, XON on swp1 only
two = ng.shb() + ng.idb(tsresol=9, opts=name("swp1")) + ng.idb(tsresol=9, opts=name("swp2"))
two += ng.epb(0, 1 * S, pfc(3, 0xffff))
two += ng.epb(1, 1 * S + 100 * US, pfc(3, 0xffff))
two += ng.epb(0, 1 * S + 200 * US, pfc(3, 0))
# section 2: id 0 again, but swp3: another interface
two += ng.shb() + ng.idb(tsresol=9, opts=name("swp3"))
two += ng.epb(0, 2 * S, pfc(3, 0))
open(d + "/two.pcapng", "wb").write(two)
# a second file (rotated): swp2 again (id 1, with an unused id 0 before it): its XON ends
# nothing of swp1's
rot = ng.shb() + ng.idb(tsresol=9, opts=name("swp1")) + ng.idb(tsresol=9, opts=name("swp2"))
rot += ng.epb(1, 3 * S, pfc(3, 0))
open(d + "/rot.pcapng", "wb").write(rot)
# the same three frames on one interface: one pause, refreshed, ended by the XON
one = ng.shb() + ng.idb(tsresol=9, opts=name("swp1"))
one += ng.epb(0, 1 * S, pfc(3, 0xffff))
one += ng.epb(0, 1 * S + 100 * US, pfc(3, 0xffff))
one += ng.epb(0, 1 * S + 200 * US, pfc(3, 0))
open(d + "/one.pcapng", "wb").write(one)
# two interfaces described, frames from the second only
idle = ng.shb() + ng.idb(tsresol=9, opts=name("swp1")) + ng.idb(tsresol=9, opts=name("swp2"))
for t, q in ((1 * S, 0xffff), (1 * S + 100 * US, 0xffff), (1 * S + 200 * US, 0)):
    idle += ng.epb(1, t, pfc(3, q))
open(d + "/idle.pcapng", "wb").write(idle)
# classic pcap (ns)
p = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
for t, q in ((1 * S, 0xffff), (1 * S + 100 * US, 0xffff), (1 * S + 200 * US, 0)):
    f = pfc(3, q)
    p += struct.pack("<IIII", t // S, t % S, len(f), len(f)) + f
open(d + "/one.pcap", "wb").write(p)
PY

opts="--link-speed 1 --pfc-storm-ms 20"
run() { # out-name args...: the JSON report
	local out=$1
	shift
	"$ra" --json $opts "$@" >"$tmp/$out.json" 2>"$tmp/$out.err"
	[ $? -le 1 ] || bad "roce-analyze $* failed: $(cat "$tmp/$out.err")"
}
run two "$tmp/two.pcapng"
run rot "$tmp/two.pcapng" "$tmp/rot.pcapng"
run one "$tmp/one.pcapng"
run idle "$tmp/idle.pcapng"
run pcap "$tmp/one.pcap"

jcheck() { # file python-expression over j (the report): ok when true
	if python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$tmp/$1.json" "$2"; then
		ok
	else
		bad "$1: $2"
	fi
}
rows='[(r["interface"], r["if_name"], r["xoff"], r["xon"], r["paused_us"], r["storms"])
       for r in j["pfc"]]'
# two links on one MAC: swp1 paused 200 us (XON), swp2 to its deadline (a storm)
jcheck two "$rows == [(0, 'swp1', 1, 1, 200.0, 0), (1, 'swp2', 1, 0, 33553.92, 1),
                      (2, 'swp3', 0, 1, 0.0, 0)]"
jcheck two 'all(r["src_mac"] == "02:aa:bb:cc:dd:01" and r["priority"] == 3 for r in j["pfc"])'
jcheck two '[(a["interface"], a["if_name"], a["frame"]) for a in j["anomalies"]
             if a["type"] == "pfc_storm"] == [(1, "swp2", 4)]'
jcheck two 'j["summary"]["pfc_storms"] == 1'
# the same from stdin (the read() buffer path) and with --threads 2
"$ra" --json $opts - <"$tmp/two.pcapng" >"$tmp/stdin.json" 2>/dev/null
"$ra" --json $opts --threads 2 "$tmp/two.pcapng" >"$tmp/thr.json" 2>/dev/null
for f in stdin thr; do
	jcheck $f "[(r['interface'], r['if_name'], r['paused_us']) for r in j['pfc']] ==
		   [(0, 'swp1', 200.0), (1, 'swp2', 33553.92), (2, 'swp3', 0.0)]"
done
# the second file's (1, swp2) is interface 1; its unused id 0 is no interface
jcheck rot "$rows == [(0, 'swp1', 1, 1, 200.0, 0), (1, 'swp2', 1, 1, 33553.92, 1),
                      (2, 'swp3', 0, 1, 0.0, 0)]"
jcheck rot '[r["frames"] for r in j["pfc"]] == [2, 2, 1]'
jcheck rot '[(a["interface"], a["if_name"], a["frame"], a["file"].endswith("rot.pcapng"))
             for a in j["anomalies"] if a["type"] == "pfc_storm"] == [(1, "swp2", 1, True)]'
# one interface: one pause of 200 us, no interface field anywhere
for f in one idle pcap; do
	jcheck $f '[(r["xoff"], r["xon"], r["paused_us"], r["storms"]) for r in j["pfc"]] ==
		[(2, 1, 200.0, 0)]'
	if grep -q '"interface"\|"if_name"' "$tmp/$f.json"; then
		bad "$f: an interface field"
	else
		ok
	fi
done
pfc_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pfc"])' "$1"; }
check cmp -s <(pfc_of "$tmp/one.json") <(pfc_of "$tmp/pcap.json")

# text: an IFACE column (the if_name) with several interfaces, none with one
"$ra" $opts "$tmp/two.pcapng" >"$tmp/two.txt" 2>&1
check grep -q 'IFACE *SRC MAC' "$tmp/two.txt"
check grep -Eq '^ *swp2 +02:aa:bb:cc:dd:01 +3 +1 +1 +0 ' "$tmp/two.txt"
check grep -Eq 'pfc_storm +swp2 02:aa:bb:cc:dd:01 prio 3' "$tmp/two.txt"
"$ra" $opts "$tmp/one.pcapng" >"$tmp/one.txt" 2>&1
if grep -q 'IFACE' "$tmp/one.txt"; then bad "one.pcapng: an IFACE column"; else ok; fi
check grep -Eq '^ *02:aa:bb:cc:dd:01 +3 +3 +2 +1 ' "$tmp/one.txt"
finish
