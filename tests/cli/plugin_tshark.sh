#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin under tshark: registration, field values on a
# generated capture with known facts, one pass == two passes, agreement with
# roce-analyze --json, and no false ICRC errors on the real captures.
#   plugin_tshark.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"

HAVE_PY=1
command -v python3 >/dev/null 2>&1 || HAVE_PY=
COUNTS=$SRC/plugin/tests/roce_counts.py
mapfile -t FARGS < <(roce_field_args)

# fields FILE OUT [tshark args]: all roce fields, one row per frame
fields() {
	local in=$1 out=$2
	shift 2
	ts -r "$in" "$@" -T fields -E header=y -E occurrence=a -E separator=/t "${FARGS[@]}" \
		>"$out" 2>"$out.err"
}

# value FILE.tsv FRAME FIELD: the field's value(s) on one frame
value() {
	awk -F'\t' -v fr="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["frame.number"] == fr { print $c[f] }' "$1"
}

# count FILE.tsv FIELD [VALUE]: frames where FIELD is present (or == VALUE)
count() {
	awk -F'\t' -v f="$2" -v v="${3-}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		($c[f] != "" && (v == "" || $c[f] == v)) { n++ } END { print n + 0 }' "$1"
}

expect() { # expect WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi
}

# ---- 1. registration ----
if ts -G plugins 2>/dev/null | grep -q "roce.so"; then
	ok "tshark -G plugins lists roce.so"
else
	fail "tshark -G plugins does not list roce.so"
	ts -G folders 2>&1 | sed 's/^/    /'
	exit 1
fi
ALL=$(roce_fields)
for f in roce.version roce.icrc roce.icrc.computed roce.icrc.status roce.icrc.bad \
	roce.opcode roce.opcode.name roce.bth.fecn roce.bth.becn roce.dqpn roce.psn \
	roce.analysis.psn_gap roce.analysis.lost_psns roce.analysis.expected_psn \
	roce.analysis.duplicate roce.analysis.out_of_order roce.analysis.retransmission \
	roce.analysis.retransmission.cause roce.analysis.nak roce.analysis.rnr_nak \
	roce.analysis.rtt roce.analysis.acks_frame roce.analysis.ecn_ce roce.analysis.cnp \
	roce.pfc.priority roce.pfc.pause_us roce.pfc.storm roce.finding roce.malformed; do
	grep -qx "$f" <<<"$ALL" || fail "field $f not registered"
done
ok "$(wc -l <<<"$ALL") roce.* fields registered"
ts -G defaultprefs 2>/dev/null | grep -q '^#roce.validate_icrc' || fail "preference roce.validate_icrc missing"
for p in link_speed pmtu pfc_storm_ms udp_ports; do
	ts -G defaultprefs 2>/dev/null | grep -q "^#roce.$p" || fail "preference roce.$p missing"
done

# ---- 2. known facts on a generated capture ----
if [ ! -x "$GEN" ]; then
	fail "generator $GEN missing"
else
	F=$T/work/facts.pcap
	gen_facts "$F" || fail "generator failed"
	chmod a+r "$F"
	fields "$F" "$T/work/facts.tsv"
	[ -s "$T/work/facts.tsv.err" ] && sed 's/^/    stderr: /' "$T/work/facts.tsv.err" | head -5
	grep -qi "dissector bug\|assert" "$T/work/facts.tsv.err" && fail "tshark reported a dissector bug"
	FT=$T/work/facts.tsv
	NROCE=$(count "$FT" roce.kind roce)
	expect "RoCE frames" "$NROCE" 31
	expect "ICRC good frames" "$(count "$FT" roce.icrc.status 1)" 30
	expect "ICRC bad frames" "$(count "$FT" roce.icrc.status 2)" 1
	expect "ICRC bad frame number" "$(awk -F'\t' 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["roce.icrc.status"]=="2"{print $1}' "$FT")" 22
	expect "roce.icrc.bad experts" "$(count "$FT" roce.icrc.bad)" 1
	# wire ICRC of frame 1 == computed, and in wire byte order (LSB first)
	W=$(value "$FT" 1 roce.icrc); C=$(value "$FT" 1 roce.icrc.computed)
	expect "frame 1 ICRC wire == computed" "$W" "$C"
	B=$(ts -r "$F" -Y frame.number==1 -T fields -e frame.len 2>/dev/null)
	HEX=$(ts -r "$F" -Y frame.number==1 -x 2>/dev/null | awk '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  /{ for (i = 2; i <= 17; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) printf "%s", $i }')
	LAST4=${HEX: -8}
	LE=$(printf '0x%s%s%s%s' "${LAST4:6:2}" "${LAST4:4:2}" "${LAST4:2:2}" "${LAST4:0:2}")
	[ "$B" -gt 60 ] && expect "frame 1 roce.icrc is the last 4 bytes read LSB first" "$W" "$LE"
	# the bad-ICRC request (PSN 111) is dropped as the receiver drops it: 112 is a gap of 1
	expect "PSN gap frames" "$(count "$FT" roce.analysis.psn_gap)" 2
	expect "PSN gap at frame 27 (PSN 112)" "$(value "$FT" 27 roce.analysis.psn_gap)" 1
	expect "lost PSNs on frame 27" "$(value "$FT" 27 roce.analysis.lost_psns)" 1
	expect "PSN gap at frame 15 (PSN 110)" "$(value "$FT" 15 roce.analysis.psn_gap)" 1
	expect "lost PSNs on frame 15" "$(value "$FT" 15 roce.analysis.lost_psns)" 3
	expect "expected PSN on frame 15" "$(value "$FT" 15 roce.analysis.expected_psn | cut -d, -f1)" 107
	expect "NAK syndrome on frame 16" "$(value "$FT" 16 roce.analysis.nak.syndrome)" 0x60
	[ -n "$(value "$FT" 16 roce.analysis.nak.expert)" ] && ok "NAK expert on frame 16" || fail "no NAK expert on frame 16"
	[ -n "$(value "$FT" 24 roce.analysis.rnr_nak)" ] && ok "RNR NAK expert on frame 24" || fail "no RNR NAK expert on frame 24"
	RETX=$(count "$FT" roce.analysis.retransmission)
	[ "$RETX" -ge 3 ] && ok "retransmissions flagged ($RETX)" || fail "retransmissions: $RETX, want >= 3"
	expect "retransmission cause on frame 17" "$(value "$FT" 17 roce.analysis.retransmission.cause)" nak
	RTT=$(count "$FT" roce.analysis.rtt)
	[ "$RTT" -ge 7 ] && ok "RTT on $RTT ACKs" || fail "RTT on $RTT ACKs, want >= 7"
	expect "RTT of frame 2" "$(value "$FT" 2 roce.analysis.rtt)" 0.000010000
	expect "frame 2 acks frame" "$(value "$FT" 2 roce.analysis.acks_frame)" 1
	expect "ECN CE frame" "$(awk -F'\t' 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["roce.analysis.ecn_ce"]!=""{print $1}' "$FT")" 27
	expect "CNP opcode name (frame 28)" "$(value "$FT" 28 roce.opcode.name)" CNP
	expect "CNP opcode (frame 28)" "$(value "$FT" 28 roce.opcode)" 0x81
	expect "CNP BECN (frame 28)" "$(value "$FT" 28 roce.bth.becn)" 1
	expect "CNP analysis (frame 28)" "$(value "$FT" 28 roce.analysis.cnp)" 1
	expect "RoCE v1 frame 29" "$(value "$FT" 29 roce.version)" 1
	expect "RoCE v1 ICRC" "$(value "$FT" 29 roce.icrc.status)" 1
	expect "IPv6 ICRC (frame 30)" "$(value "$FT" 30 roce.icrc.status)" 1
	expect "XRC opcode name (frame 31)" "$(value "$FT" 31 roce.opcode.name)" XRC_SEND_ONLY
	expect "XRC SRQ (frame 31)" "$(value "$FT" 31 roce.xrc_srq)" 0x001234
	expect "PFC frames" "$(count "$FT" roce.kind pfc)" 801
	expect "PFC priority (frame 32)" "$(value "$FT" 32 roce.pfc.priority)" 3
	expect "PFC 0xFFFF quanta at 100G (frame 32)" "$(value "$FT" 32 roce.pfc.pause_us)" 335.539
	STORM=$(count "$FT" roce.pfc.storm)
	expect "PFC storm flagged" "$STORM" 1
	expect "PAUSE pause_us" "$(awk -F'\t' 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["roce.kind"]=="pause"{print $c["roce.pause.pause_us"]}' "$FT")" 335.539
	# PFC/PAUSE items sit on the MAC Control bytes (libroce sets l3_off to
	# the MAC Control opcode): same positions as the built-in macc fields
	pos() { # pos FILTER FIELD: pdml position of FIELD in the first matching frame
		ts -r "$F" -Y "$1" -T pdml 2>/dev/null |
			awk -v f="$2" 'index($0, "name=\"" f "\"") { if (match($0, / pos="[0-9]+"/)) { print substr($0, RSTART + 6, RLENGTH - 7); exit } }'
	}
	P1=$(pos frame.number==32 macc.cbfc.enbv)
	[ -n "$P1" ] && expect "PFC enable vector on the frame bytes" "$(pos frame.number==32 roce.pfc.enable)" "$P1"
	P1=$(pos frame.number==32 macc.cbfc.pause_time.c3)
	[ -n "$P1" ] && expect "PFC priority 3 quanta on the frame bytes" "$(pos frame.number==32 roce.pfc.quanta)" "$P1"
	P1=$(pos 'roce.kind == "pause"' macc.pause_time)
	[ -n "$P1" ] && expect "PAUSE quanta on the frame bytes" "$(pos 'roce.kind == "pause"' roce.pause.quanta)" "$P1"
	# expert summary
	ts -r "$F" -q -z expert >"$T/work/expert.txt" 2>&1
	for m in "Bad ICRC" "PSN gap" "NAK for PSN" "RNR NAK" "Retransmission" "PFC storm"; do
		grep -q "$m" "$T/work/expert.txt" && ok "-z expert lists \"$m\"" || fail "-z expert lacks \"$m\""
	done
	# the link speed preference changes pause_us (0xFFFF quanta at 25G = 1342.157 us)
	V=$(ts -r "$F" -o roce.link_speed:25 -Y frame.number==32 -T fields -e roce.pfc.pause_us 2>/dev/null)
	if awk -v v="$V" 'BEGIN { exit !(v > 1342.15 && v < 1342.165) }'; then
		ok "pause_us at 25 Gb/s = $V"
	else
		fail "pause_us at 25 Gb/s: got '$V', want 1342.157"
	fi
	# validate_icrc off: everything unverified
	expect "ICRC status with validate_icrc off" "$(ts -r "$F" -o roce.validate_icrc:FALSE -Y 'roce.icrc.status != 0' -T fields -e frame.number 2>/dev/null | wc -l)" 0
fi

# ---- 2b. Info column: libroce's names where the built-in table has none ----
if [ -f "$SRC/captures/all_opcodes.pcap" ]; then
	cp "$SRC/captures/all_opcodes.pcap" "$T/work/" && chmod a+r "$T/work/all_opcodes.pcap"
	IT=$T/work/info.tsv
	ts -r "$T/work/all_opcodes.pcap" -T fields -E separator=/t -e frame.number -e roce.opcode \
		-e roce.opcode.name -e _ws.col.Info >"$IT" 2>/dev/null
	# info COLUMN VALUE: the Info text of the frame whose column COLUMN is VALUE
	info() { awk -F'\t' -v c="$1" -v v="$2" '$c == v { sub(/ *$/, "", $4); print $4 }' "$IT"; }
	# every opcode libroce names (all of them in this capture) has a name in Info
	expect "Info columns with \"Unknown OpCode\"" "$(grep -c 'Unknown OpCode' "$IT")" 0
	expect "CNP Info" "$(info 2 0x81)" "CNP QP=0x000181"
	NX=$(awk -F'\t' '$3 ~ /^XRC_/ && index($4, $3 " QP=0x") == 1' "$IT" | wc -l)
	expect "XRC frames whose Info starts with their name" "$NX" \
		"$(awk -F'\t' '$3 ~ /^XRC_/' "$IT" | wc -l)"
	[ "$NX" -ge 20 ] && ok "$NX XRC frames named in Info" || fail "only $NX XRC frames named"
	expect "FLUSH Info" "$(info 2 0x1c)" "RC_FLUSH QP=0x00011c"
	expect "known opcode Info unchanged" "$(info 1 1)" "RC Send First QP=0x000100"
else
	fail "captures/all_opcodes.pcap missing"
fi

# ---- 3. one pass == two passes, and agreement with roce-analyze ----
# on the generated capture, every capture of the repository, every real one in
# ../shared (which must also show no bad ICRC), and random traffic with loss,
# reordering, duplication, bad ICRCs and READ re-reads (tests/ref/refgen.c)
CAPS=()
REAL=()
[ -n "${F-}" ] && [ -f "$F" ] && CAPS+=("$F")
for c in "$SRC"/captures/*.pcap; do
	mkdir -p "$T/work/repo" && cp "$c" "$T/work/repo/" && chmod -R a+rX "$T/work/repo"
	CAPS+=("$T/work/repo/$(basename "$c")")
done
for c in "$SRC"/../shared/captures/softroce/*.pcap "$SRC"/../shared/captures/public/*.pcap; do
	[ -f "$c" ] || continue
	cp "$c" "$T/work/" && chmod a+r "$T/work/$(basename "$c")"
	CAPS+=("$T/work/$(basename "$c")")
	REAL+=("$T/work/$(basename "$c")")
done
[ ${#REAL[@]} -gt 0 ] || echo "note: no real captures found under $SRC/../shared/captures"
REFGEN=$BUILD/tests/ref/roce-refgen
if [ -x "$REFGEN" ]; then
	mkdir -p "$T/work/gen"
	for g in "1 lcdortx" "2 lcdortx" "3 lx" "4 o"; do
		set -- $g
		"$REFGEN" "$1" "$T/work/gen/random-$1-$2.pcap" 300 "$2" || fail "refgen $g failed"
		CAPS+=("$T/work/gen/random-$1-$2.pcap")
	done
	chmod -R a+rX "$T/work/gen"
else
	echo "note: $REFGEN not built: no random traffic"
fi
if [ -x "$BUILD/cli/roce-gen" ]; then
	mkdir -p "$T/work/gen"
	"$BUILD/cli/roce-gen" -q -w "$T/work/gen/roce-gen-all.pcap" -m 300 --qps=2 --random-psn \
		--verbs=write,send,read:2,atomic --msg-size=uniform:1-8192 --loss=2% --dup-rate=2% \
		--reorder-rate=2% --rnr-rate=3% --timeout-rate=2% --read-loss-rate=3% \
		--bad-icrc-rate=1% --ce-rate=2% --pfc=prio=3,length=1ms --roce=v6 --seed=7 ||
		fail "roce-gen failed"
	# XRC, CNPs and RoCE v1 with every request fault, another seed
	"$BUILD/cli/roce-gen" -q -w "$T/work/gen/roce-gen-xrc.pcap" -m 300 --qps=3 --random-psn \
		--verbs=xrc:2,write,send,read:2,write_imm --msg-size=uniform:1-6000 --pmtu=512 \
		--loss=2% --dup-rate=2% --reorder-rate=2% --rnr-rate=3% --timeout-rate=2% \
		--read-loss-rate=4% --bad-icrc-rate=1% --bad-payload-rate=1% --ce-rate=3% \
		--ack-every=3 --roce=v1 --seed=11 || fail "roce-gen (xrc) failed"
	chmod -R a+rX "$T/work/gen"
	CAPS+=("$T/work/gen/roce-gen-all.pcap" "$T/work/gen/roce-gen-xrc.pcap")
	# roce-gen's CNPs and XRC frames are named in Info too
	ts -r "$T/work/gen/roce-gen-xrc.pcap" -T fields -E separator=/t -e roce.opcode.name \
		-e _ws.col.Info >"$T/work/xrc-info.tsv" 2>/dev/null
	expect "roce-gen XRC/CNP capture: Info columns with \"Unknown OpCode\"" \
		"$(grep -c 'Unknown OpCode' "$T/work/xrc-info.tsv")" 0
	NX=$(awk -F'\t' '($1 ~ /^XRC_/ || $1 == "CNP") && index($2, $1 " QP=0x") == 1' \
		"$T/work/xrc-info.tsv" | wc -l)
	[ "$NX" -ge 500 ] && ok "roce-gen: $NX XRC/CNP frames named in Info" ||
		fail "roce-gen: only $NX XRC/CNP frames named in Info"
fi

for c in "${CAPS[@]}"; do
	b=$(basename "$c" .pcap)
	fields "$c" "$T/work/$b.1.tsv"
	fields "$c" "$T/work/$b.2.tsv" -2
	if cmp -s "$T/work/$b.1.tsv" "$T/work/$b.2.tsv"; then
		ok "$b: one pass == two passes ($(($(wc -l <"$T/work/$b.1.tsv") - 1)) frames)"
	else
		fail "$b: one-pass and two-pass output differ"
		diff "$T/work/$b.1.tsv" "$T/work/$b.2.tsv" | head -5 | sed 's/^/    /'
	fi
	if grep -qi "dissector bug\|assert\|segmentation" "$T/work/$b.1.tsv.err" "$T/work/$b.2.tsv.err"; then
		# ours only if it goes away without the plugin (Wireshark 4.0's RPCoRDMA
		# asserts "tvb && tvb->initialized" with -2 on some RDMA payloads)
		ts -r "$c" -2 --disable-protocol roce -T fields -e frame.number >/dev/null \
			2>"$T/work/$b.np.err"
		if grep -qi "segmentation\|Dissector bug, protocol RoCE[,:]" "$T/work/$b.1.tsv.err" \
			"$T/work/$b.2.tsv.err" || ! grep -qi "dissector bug\|assert" "$T/work/$b.np.err"; then
			fail "$b: tshark reported a dissector bug"
			head -3 "$T/work/$b.1.tsv.err" "$T/work/$b.2.tsv.err" | sed 's/^/    /'
		else
			W=$(grep -hi "dissector bug\|assert" "$T/work/$b.2.tsv.err" | head -1)
			echo "note: $b: ${W#*-- } (also without the plugin)"
		fi
	fi
	for r in "${REAL[@]}"; do
		[ "$r" = "$c" ] || continue
		bad=$(count "$T/work/$b.1.tsv" roce.icrc.status 2)
		expect "$b: no false ICRC errors" "$bad" 0
	done
	if [ -n "$ANALYZE" ] && [ -n "$HAVE_PY" ]; then
		"$ANALYZE" --json "$c" >"$T/work/$b.json" 2>"$T/work/$b.json.err"
		rc=$?
		if [ $rc -gt 1 ] || [ ! -s "$T/work/$b.json" ]; then
			fail "$b: roce-analyze --json failed (exit $rc)"
			head -3 "$T/work/$b.json.err" | sed 's/^/    /'
		elif python3 "$COUNTS" compare "$T/work/$b.1.tsv" "$T/work/$b.json" \
				roce_frames rocev1_frames rocev2_frames icrc_ok icrc_bad icrc_unverified \
				malformed psn_gaps lost_psns duplicates \
				out_of_order retransmissions naks rnr_naks cnps ecn_ce pfc_frames \
				pause_frames pfc_storms >"$T/work/$b.cmp"; then
			ok "$b: counts equal roce-analyze --json"
		else
			fail "$b: counts differ from roce-analyze --json"
			sed 's/^/    /' "$T/work/$b.cmp"
		fi
	fi
done
[ -n "$ANALYZE" ] || echo "note: $BUILD/cli/roce-analyze not built: roce-analyze comparison skipped"
[ -n "$HAVE_PY" ] || echo "note: python3 missing: roce-analyze comparison skipped"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS check(s) failed"
	exit 1
fi
echo "all plugin checks passed"
exit 0
