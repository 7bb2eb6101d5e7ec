#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_basic.sh - roce-gen without faults: usage errors exit 2, the same seed gives the same
# bytes, pcap and pcapng by name, every RoCE version, and roce-analyze finds a clean file
# with the frame/ICRC/ACK counts the generator reports.
set -u
build=$1 src=$2
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

usage() {
	"$rg" "$@" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "roce-gen: " "$tmp/err"; then ok; else bad "roce-gen $*: exit $rc (want 2)"; fi
}
usage --qps 0 -w "$tmp/x.pcap"
usage --verbs write,frobnicate -w "$tmp/x.pcap"
usage --msg-size uniform:10-5 -w "$tmp/x.pcap"
usage --msg-size 64,uniform:10-20 -w "$tmp/x.pcap"
grep -q "'uniform:10-20' in a list" "$tmp/err" && ok ||
	bad "size list with a range: $(cat "$tmp/err")"
usage --pmtu 1000 -w "$tmp/x.pcap"
usage --loss 1.5 -w "$tmp/x.pcap"
usage --drop-psn 1x -w "$tmp/x.pcap"
usage --pfc quanta=5 -w "$tmp/x.pcap"
usage -m 5
usage -w "$tmp/x.pcap" extra-argument
usage --roce v6 --src-ip 10.0.0.1 -w "$tmp/x.pcap"
usage --roce v3 -w "$tmp/x.pcap"
usage -w "$tmp/x.pcap" -i lo

"$rg" --help | grep -q -- "--roce" && ok || bad "--help lists --roce"
# -V and --version print the program version and exit 0, as tcpdump's and tcpreplay's: never
# with a value, whatever word follows; a RoCE version after them (the old spelling
# "--version v1") is named in a note on stderr, and nothing is generated
for v in -V --version; do
	"$rg" $v > "$tmp/v.out" 2> "$tmp/v.err"
	rc=$?
	[ $rc = 0 ] && grep -q "^roce-gen " "$tmp/v.out" && [ ! -s "$tmp/v.err" ] && ok ||
		bad "$v: exit $rc: $(head -c 200 "$tmp/v.out") / $(head -c 200 "$tmp/v.err")"
	"$rg" $v foo > "$tmp/v.out" 2> "$tmp/v.err"
	rc=$?
	[ $rc = 0 ] && grep -q "^roce-gen " "$tmp/v.out" && [ ! -s "$tmp/v.err" ] && ok ||
		bad "$v foo: exit $rc: $(head -c 200 "$tmp/v.out") / $(head -c 200 "$tmp/v.err")"
	rm -f "$tmp/old.pcap"
	"$rg" $v v6 -w "$tmp/old.pcap" -m 20 -q > "$tmp/v.out" 2> "$tmp/v.err"
	rc=$?
	[ $rc = 0 ] && grep -q "^roce-gen " "$tmp/v.out" && [ ! -e "$tmp/old.pcap" ] && ok ||
		bad "$v v6 -w: exit $rc, $(head -c 200 "$tmp/v.out")"
	[ "$(cat "$tmp/v.err")" = "roce-gen: note: -V/--version takes no value: 'v6' is not read as the RoCE version (that is --roce v6)" ] &&
		ok || bad "$v v6: stderr: $(head -c 300 "$tmp/v.err")"
done
# the RoCE version: --roce; "--version=v1" (not to be confused with the version request) is
# still its deprecated alias: the same bytes, a warning; an unknown value is refused naming
# --roce
"$rg" -w "$tmp/new.pcap" --roce v6 -m 20 -q 2> "$tmp/new.err" || bad "--roce v6 failed"
[ ! -s "$tmp/new.err" ] && ok || bad "--roce v6 printed something on stderr"
"$rg" -w "$tmp/old1.pcap" --version=v1 -m 20 -q 2> "$tmp/old.err" ||
	bad "--version=v1 (deprecated) failed"
"$rg" -w "$tmp/new1.pcap" --roce v1 -m 20 -q || bad "--roce v1 failed"
check cmp -s "$tmp/old1.pcap" "$tmp/new1.pcap"
[ "$(cat "$tmp/old.err")" = "roce-gen: warning: --version=v1 is deprecated, use --roce v1" ] &&
	ok || bad "--version=v1: stderr: $(head -c 300 "$tmp/old.err")"
"$rg" -w "$tmp/x.pcap" --version=foo > "$tmp/v.out" 2> "$tmp/v.err"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/v.out" ] &&
	grep -q "^roce-gen: --version=foo: --version takes no value (the RoCE version is --roce v1, v2 or v6)$" \
	"$tmp/v.err" && ok || bad "--version=foo: exit $rc: $(head -c 300 "$tmp/v.err")"
"$rg" --help | grep -q -- "--drop-psn" && ok || bad "--help lists --drop-psn"

mix="--verbs write:3,write_imm,send,send_imm,read:2,atomic,ud_send,xrc --msg-size 0,64,1000,4097,9000"
for v in v1 v2 v6; do
	"$rg" -w "$tmp/a_$v.pcap" --roce $v --qps 3 --hosts 2 $mix --random-psn --seed 9 -m 300 \
		--json > "$tmp/a_$v.json" || bad "roce-gen $v failed"
	"$rg" -w "$tmp/b_$v.pcap" --roce $v --qps 3 --hosts 2 $mix --random-psn --seed 9 -m 300 -q
	check cmp -s "$tmp/a_$v.pcap" "$tmp/b_$v.pcap"
	"$rg" -w "$tmp/c_$v.pcap" --roce $v --qps 3 --hosts 2 $mix --random-psn --seed 10 -m 300 -q
	cmp -s "$tmp/a_$v.pcap" "$tmp/c_$v.pcap" && bad "seeds 9 and 10 give the same bytes" || ok
	"$ra" --json "$tmp/a_$v.pcap" > "$tmp/an_$v.json" || bad "roce-analyze $v exit $?"
	python3 - "$tmp/a_$v.json" "$tmp/an_$v.json" "$v" <<'PY' && ok || bad "$v: analyzer differs"
import json, sys
g = json.load(open(sys.argv[1]))["summary"]
a = json.load(open(sys.argv[2]))["summary"]
v = sys.argv[3]
bad = [k for k in g if a.get(k) != g[k]]
for k in bad:
    print("  %s: roce-gen %r, roce-analyze %r" % (k, g[k], a.get(k)))
if a["malformed"] != 0 or a["frames"] < 300:
    print("  malformed %d, frames %d" % (a["malformed"], a["frames"])); bad.append(1)
if (a["rocev1_frames"] > 0) != (v == "v1"):
    print("  wrong RoCE version"); bad.append(1)
sys.exit(1 if bad else 0)
PY
done

# -c counts frames; pcapng by name; timestamps spaced by --pps
"$rg" -w "$tmp/n.pcapng" -c 1234 --pps 1M -q || bad "pcapng"
"$ra" --json "$tmp/n.pcapng" > "$tmp/n.json"
python3 - "$tmp/n.json" <<'PY' && ok || bad "pcapng / -c / --pps"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
ok = d["files"][0]["format"] == "pcapng" and s["frames"] == 1234 and s["duration_s"] == "0.001233000" or float(s["duration_s"]) == 0.001233
if not ok:
    print("  format %s frames %d duration %s" % (d["files"][0]["format"], s["frames"], s["duration_s"]))
sys.exit(0 if ok else 1)
PY
# scenario files: settings from the file, options after it override; a bad file exits 2
# with FILE:LINE
cat > "$tmp/s.ini" <<'INI'
# two QPs, WRITE and READ
[traffic]
qps = 2
verbs = write, read
messages = 10

[output]
write = OUT
INI
sed -i "s|OUT|$tmp/s.pcap|" "$tmp/s.ini"
"$rg" --scenario "$tmp/s.ini" -m 20 --json > "$tmp/s.json" || bad "--scenario"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['messages'] == 20 else 1)" \
	"$tmp/s.json" && ok || bad "--scenario then -m 20"
[ -s "$tmp/s.pcap" ] && ok || bad "scenario's write = FILE"
printf '[traffic]\nqps = 2\n[faults]\nloss = 2.5\n' > "$tmp/bad.ini"
"$rg" --scenario "$tmp/bad.ini" -w "$tmp/x.pcap" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^roce-gen: --scenario $tmp/bad.ini:4: \[faults\] loss" "$tmp/err" &&
	ok || bad "bad scenario: exit $rc, $(cat "$tmp/err")"
"$rg" --scenario "$tmp/missing.ini" -w "$tmp/x.pcap" 2> /dev/null
[ $? -eq 2 ] && ok || bad "missing scenario file must exit 2"
# Frames decode cleanly in tshark: no expert error on a mix of every verb, faults, VLAN, PFC
# and PAUSE, v2 and v6 (the InfiniBand dissector's payload heuristics, which try to read
# RDMA payloads as NFS/SMB/EoIB..., are turned off; tshark flags the zero UDP checksum of
# RoCE v2 over IPv6, which RoCE allows and rxe sends too)
if command -v tshark > /dev/null 2>&1; then
	heur=""
	for h in smc smb_direct rpcordma nvme-rdma lnet iser infiniband.eoib infiniband_sdp fcoib; do
		heur="$heur --disable-heuristic $h"
	done
	for v in v2 v6 v1; do
		"$rg" -w "$tmp/ts_$v.pcap" --roce $v $mix --qps 2 -m 300 --loss 0.05 --ce-rate 0.05 \
			--rnr-rate 0.1 --read-loss-rate 0.05 --bad-payload-rate 0.02 --vlan 5:2 \
			--pfc prio=3,length=1ms --pause quanta=10 -q
		tshark $heur -r "$tmp/ts_$v.pcap" -q -z expert,error 2> /dev/null |
			grep -E "^ +[0-9]+ " | grep -v "Illegal checksum value (0)" > "$tmp/ts_$v.err"
		if [ -s "$tmp/ts_$v.err" ]; then bad "tshark errors on $v: $(head -3 "$tmp/ts_$v.err")"; else ok; fi
		n=$(tshark -r "$tmp/ts_$v.pcap" 2> /dev/null | wc -l)
		[ "$n" -gt 300 ] && ok || bad "tshark read $n frames of ts_$v.pcap"
	done
fi
# The text summary has --json's "transports" too: one line for each transport with frames
# (RC, UC, UD here; no XRC line), the same numbers as the JSON.
tr="--verbs write,uc_send,ud_send,read --loss 3% --dup-rate 2% --bad-icrc-rate 1% -m 300"
"$rg" -w "$tmp/tr.pcap" $tr > "$tmp/tr.txt" || bad "roce-gen $tr failed"
"$rg" -w "$tmp/tr.pcap" $tr --json > "$tmp/tr.json" || bad "roce-gen $tr --json failed"
python3 - "$tmp/tr.txt" "$tmp/tr.json" <<'PY' && ok || bad "text summary's transports"
import json, re, sys
text = open(sys.argv[1]).read()
want = json.load(open(sys.argv[2]))["transports"]
got = {}
for m in re.finditer(r"^  (RC|UC|UD|XRC) +(.*)$", text, re.M):
    got[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", m.group(2))}
ok = sorted(got) == ["RC", "UC", "UD"] and all(got[t] == want[t] for t in got)
ok = ok and "Expected by transport" in text and sum(want["UC"].values()) > 0
if not ok:
    print("  text %r\n  json %r" % (got, want))
sys.exit(0 if ok else 1)
PY
"$rg" -w "$tmp/tr.pcap" -m 0 --pfc prio=3,length=1ms > "$tmp/tr0.txt"
grep -q "by transport" "$tmp/tr0.txt" && bad "pause frames only: a transport heading" || ok
# -w -: the frames on stdout, the summary (here --json) on stderr, as roce-gen(1) says
"$rg" -w - -m 3 --json > "$tmp/so.pcap" 2> "$tmp/se.json" &&
	"$ra" -q "$tmp/so.pcap" && python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["summary"]["roce_frames"] != 15)' \
	"$tmp/se.json" && ok || bad "-w - --json: $(head -c 200 "$tmp/se.json")"
finish
