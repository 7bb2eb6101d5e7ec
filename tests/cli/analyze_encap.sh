#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_encap.sh - RoCE inside GRE / ERSPAN I-III / VXLAN / Geneve / MPLS (roce-gen --encap;
# mpls with 1 label, 8 labels and as an Ethernet pseudowire, --mpls-pw):
# the analysis of the wrapped capture is the analysis of the same traffic unwrapped (every
# key of --json and of every --frames --json line but summary.encapsulation, the file
# name and, for gre and mpls (IP inside, no inner Ethernet header), the byte counts and the link
# layer's VLAN and MACs), with loss,
# bad ICRCs, READ loss, duplicates, CE/CNPs, PFC, RoCE v1 and v2 over IPv6, with --threads
# 2, with the pcap snap length cutting the wrapped frames and with an ERSPAN mirror cutting
# the inner frames (T bit), the MPLS captures also as LINKTYPE_MPLS (219: the Ethernet
# header taken off, the frame starts with the label stack); summary.encapsulation counts every frame under its
# encapsulation; the text report has its one line; tshark decodes as InfiniBand inside
# each encapsulation as many frames as roce-analyze counts RoCE frames.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
rg=$build/cli/roce-gen
[ -x "$ra" ] && [ -x "$rg" ] || { echo "SKIP: tools not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
encaps="erspan1 erspan2 erspan3 gre vxlan geneve mpls mpls8 mplspw"
# encap_opts E: roce-gen options of encapsulation E (mpls8, mplspw: mpls with options)
encap_opts() {
	case $1 in
	mpls8) echo "--encap mpls --mpls-labels 16,17,18,19,20,21,22,1048575" ;;
	mplspw) echo "--encap mpls --mpls-pw" ;;
	*) echo "--encap $1" ;;
	esac
}
# ename E: the encapsulation's name in the reports
ename() { case $1 in mpls*) echo mpls ;; *) echo "$1" ;; esac; }

# summary KEY FILE.json: the summary's KEY
summary() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["summary"][sys.argv[1]])' "$@"
}

# same WRAPPED.json PLAIN.json ENCAP [FRAMES]: the JSON documents agree as described above
# (ENCAP "-": no encapsulation object expected); FRAMES: the summary's count for ENCAP
same() {
	python3 - "$@" <<'PY'
import json, sys
wf, pf, enc = sys.argv[1], sys.argv[2], sys.argv[3]
def norm(d, drop_bytes):
    if isinstance(d, dict):
        return {k: norm(v, drop_bytes) for k, v in d.items()
                if not (drop_bytes and k in ("bytes", "len", "wirelen", "caplen", "vlan",
                                             "pcp", "src_mac", "dst_mac")) and
                k not in ("name", "encapsulation")}
    if isinstance(d, list):
        return [norm(v, drop_bytes) for v in d]
    return d
def parse(fn):
    txt = open(fn).read()
    try:
        return [json.loads(txt)]
    except ValueError:
        return [json.loads(l) for l in txt.splitlines() if l.strip()]
w, p = parse(wf), parse(pf)
rep = w[-1]
e = rep["summary"].get("encapsulation")
if enc == "-":
    if e is not None:
        print("  unexpected encapsulation object %r" % e); sys.exit(1)
else:
    if "encapsulation" in p[-1]["summary"]:
        print("  the plain capture has an encapsulation object"); sys.exit(1)
    want = int(sys.argv[4]) if len(sys.argv) > 4 else rep["summary"]["frames"]
    enc = enc if not enc.startswith("mpls") else "mpls"
    for k in ("erspan1", "erspan2", "erspan3", "gre", "vxlan", "geneve", "mpls"):
        if e.get(k) != (want if k == enc else 0):
            print("  encapsulation %r, expected %s: %d" % (e, enc, want)); sys.exit(1)
drop = enc in ("gre", "mpls", "mpls8")
a, b = norm(w, drop), norm(p, drop)
if a != b:
    print("  %s: %d vs %d lines" % (wf, len(a), len(b)))
    for x, y in zip(a, b):
        if x != y:
            if isinstance(x, dict):
                for k in sorted(set(x) | set(y)):
                    if x.get(k) != y.get(k):
                        print("  key %s: wrapped %.300r plain %.300r" % (k, x.get(k), y.get(k)))
                        break
            break
    sys.exit(1)
if rep["summary"]["roce_frames"] == 0:
    print("  no RoCE frames"); sys.exit(1)
PY
}

# to_lt_mpls IN OUT: the pcap IN, every frame Ethernet + EtherType 0x8847, as LINKTYPE_MPLS
to_lt_mpls() {
	python3 - "$@" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"), "not a little-endian pcap"
hdr = bytearray(d[:24])
struct.pack_into("<I", hdr, 20, 219)
out, o = [bytes(hdr)], 24
while o < len(d):
    ts, tu, cl, wl = struct.unpack_from("<IIII", d, o)
    f = d[o + 16:o + 16 + cl]
    o += 16 + cl
    assert f[12:14] == b"\x88\x47", "a frame without EtherType 0x8847"
    out.append(struct.pack("<IIII", ts, tu, cl - 14, wl - 14) + f[14:])
open(sys.argv[2], "wb").write(b"".join(out))
PY
}

# scenarios: each a set of roce-gen options (with faults)
scen=(
	"-m 300 --verbs write,read,send --loss 0.03 --bad-icrc-rate 0.02 --seed 3"
	"-m 200 --verbs read,write_imm,send_imm --read-loss-rate 0.05 --dup-rate 0.02
	 --ce-rate 0.05 --qps 3 --seed 5 --pfc prio=3,quanta=500,refresh=20us,length=200us,start=10us"
	"-m 150 --roce v6 --verbs write,send --loss 0.02 --reorder-rate 0.02 --vlan 12:3 --seed 7"
	"-m 150 --roce v1 --verbs write,read --bad-icrc-rate 0.03 --seed 9"
)
i=0
for s in "${scen[@]}"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$rg" -q $s -w "$tmp/plain$i.pcap" || { bad "scenario $i: roce-gen failed"; continue; }
	"$ra" --json "$tmp/plain$i.pcap" >"$tmp/plain$i.json" 2>/dev/null
	"$ra" --frames --json "$tmp/plain$i.pcap" >"$tmp/plainf$i.json" 2>/dev/null
	"$ra" "$tmp/plain$i.pcap" >"$tmp/plain$i.txt" 2>/dev/null
	check same "$tmp/plain$i.json" "$tmp/plain$i.json" -
	grep -q "Encapsulated:" "$tmp/plain$i.txt" &&
		bad "scenario $i: plain text report has the line" || ok
	for e in $encaps; do
		w=$tmp/w$i-$e.pcap
		# shellcheck disable=SC2086
		# shellcheck disable=SC2046
		"$rg" -q $s $(encap_opts "$e") -w "$w" ||
			{ bad "scenario $i $e: roce-gen failed"; continue; }
		"$ra" --json "$w" >"$tmp/w.json" 2>/dev/null
		same "$tmp/w.json" "$tmp/plain$i.json" "$e" && ok || bad "scenario $i $e: --json differs"
		"$ra" --frames --json "$w" >"$tmp/wf.json" 2>/dev/null
		same "$tmp/wf.json" "$tmp/plainf$i.json" "$e" && ok ||
			bad "scenario $i $e: --frames --json differs"
		# LINKTYPE_MPLS (scenario 1: no PFC or VLAN frames outside the stack)
		if [ "$i" -eq 1 ] && [ "$(ename "$e")" = mpls ]; then
			if to_lt_mpls "$w" "$tmp/lt.pcap"; then
				# files[].linktype says 219; everything else as unwrapped
				"$ra" --json "$tmp/lt.pcap" >"$tmp/lt.json" 2>/dev/null
				check grep -q '"linktype": 219' "$tmp/lt.json"
				sed -i 's/"linktype": 219/"linktype": 1/' "$tmp/lt.json"
				same "$tmp/lt.json" "$tmp/plain$i.json" "$e" && ok ||
					bad "scenario $i $e: LINKTYPE_MPLS --json differs"
				"$ra" --frames --json "$tmp/lt.pcap" >"$tmp/ltf.json" 2>/dev/null
				sed -i 's/"linktype": \{0,1\}219/"linktype": 1/' "$tmp/ltf.json"
				same "$tmp/ltf.json" "$tmp/plainf$i.json" "$e" && ok ||
					bad "scenario $i $e: LINKTYPE_MPLS --frames --json differs"
			else
				bad "scenario $i $e: LINKTYPE_MPLS copy failed"
			fi
		fi
		"$ra" --threads 2 --json "$w" >"$tmp/w2.json" 2>/dev/null
		same "$tmp/w2.json" "$tmp/plain$i.json" "$e" && ok ||
			bad "scenario $i $e: --threads 2 --json differs"
		n=$(summary frames "$tmp/w.json")
		"$ra" "$w" >"$tmp/w.txt" 2>/dev/null
		grep -q "^  Encapsulated: *$n ($(ename "$e") $n)\$" "$tmp/w.txt" && ok ||
			bad "scenario $i $e: text line missing: $(grep Encap "$tmp/w.txt")"
	done
done

# snap length: the pcap record cut 128 bytes into the inner frame, wrapped and plain
# (editcap -s keeps the original length: the ICRC is unverifiable)
overhead() {   # bytes the encapsulation adds in front of the first frame's inner bytes
	python3 - "$1" "$2" <<'PY'
import struct, sys
def first(fn):
    d = open(fn, "rb").read(24 + 16)
    return struct.unpack("<I", d[24 + 12:24 + 16])[0]
print(first(sys.argv[1]) - first(sys.argv[2]))
PY
}
if command -v editcap >/dev/null; then
	editcap -F nsecpcap -s 128 "$tmp/plain1.pcap" "$tmp/cut.pcap" >/dev/null 2>&1
	"$ra" --json "$tmp/cut.pcap" >"$tmp/cut.json" 2>/dev/null
	[ "$(summary icrc_unverified "$tmp/cut.json")" -gt 100 ] && ok ||
		bad "editcap -s 128: expected unverified ICRCs"
	for e in $encaps; do
		case $e in gre|mpls|mpls8) continue ;; esac     # (no inner Ethernet header)
		o=$(overhead "$tmp/w1-$e.pcap" "$tmp/plain1.pcap")
		editcap -F nsecpcap -s $((128 + o)) "$tmp/w1-$e.pcap" "$tmp/wcut.pcap" >/dev/null 2>&1
		"$ra" --json "$tmp/wcut.pcap" >"$tmp/wcut.json" 2>/dev/null
		same "$tmp/wcut.json" "$tmp/cut.json" "$e" && ok || bad "$e: snap length cut differs"
	done
	# an ERSPAN mirror cutting the inner frames to 128 bytes (T bit): as the snap length
	for e in erspan2 erspan3; do
		# shellcheck disable=SC2086
		"$rg" -q ${scen[0]} --encap "$e" --mirror-snaplen 128 -w "$tmp/m.pcap" ||
			{ bad "$e --mirror-snaplen: roce-gen failed"; continue; }
		"$ra" --json "$tmp/m.pcap" >"$tmp/m.json" 2>/dev/null
		same "$tmp/m.json" "$tmp/cut.json" "$e" && ok || bad "$e: mirror cut (T bit) differs"
	done
else
	bad "editcap not installed (scripts/setup.sh installs tshark, which brings it)"
fi
"$rg" -q -m 5 --mirror-snaplen 128 --encap vxlan -w "$tmp/x.pcap" 2>/dev/null &&
	bad "--mirror-snaplen with vxlan accepted" || ok
"$rg" -q -m 5 --encap nvgre -w "$tmp/x.pcap" 2>/dev/null && bad "--encap nvgre accepted" || ok

# tshark: as many frames decoded as InfiniBand inside each encapsulation as RoCE frames
if command -v tshark >/dev/null; then
	# a pseudowire: Wireshark tells the control word by its vendor table (docs/json.md), so
	# a vendor's MACs here (with roce-gen's locally administered ones it misreads them)
	# shellcheck disable=SC2086
	"$rg" -q ${scen[0]} --encap mpls --mpls-pw --src-mac 0c:42:a1:00:00:0a \
		--dst-mac 0c:42:a1:00:00:0b -w "$tmp/w1-mplspw.pcap" || bad "mplspw: roce-gen failed"
	for e in $encaps; do
		f=$tmp/w1-$e.pcap
		n=$(tshark -n -r "$f" -Y 'infiniband.bth' 2>/dev/null | wc -l)
		p=$(tshark -n -r "$f" -Y "infiniband.bth && $(ename "${e%[0-9]}")" 2>/dev/null |
			wc -l)
		r=$(summary roce_frames "$tmp/plain1.json")
		if [ "$n" -eq "$r" ] && [ "$p" -eq "$r" ] && [ "$r" -gt 0 ]; then ok; else
			bad "$e: tshark decodes $n InfiniBand frames ($p inside $e), roce-analyze $r"
		fi
	done
else
	bad "tshark not installed (scripts/setup.sh installs it)"
fi
finish
