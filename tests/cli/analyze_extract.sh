#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# roce-analyze --extract: on every sample capture (and the real captures when
# ../shared is there) the extract keeps every anomaly's frame, re-analysing it
# finds every anomaly type of the source, each record is byte-identical to the
# source frame its "frame N of FILE" comment names, it keeps the frames an
# anomaly causes (ACKs and READ responses whose ref_frame names an anomaly's
# frame; NAKs and CNPs are anomalies), --context N keeps the
# frames around each anomaly, and a .pcap name gives classic pcap.
#   analyze_extract.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: $0 BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: $0 BUILD_DIR SOURCE_DIR}
. "$SRC/tests/cli/testlib.sh"
A=$BUILD/cli/roce-analyze
CHK=$SRC/tests/cli/extract_check.py
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }

CAPS=("$SRC"/captures/*.pcap)
# and one with every kind of trouble: loss (NAKs, resends, their ACKs), RNR, timeouts,
# CE marks and their CNPs, bad ICRCs, READs
G=$BUILD/cli/roce-gen
if "$G" -w "$tmp/gen_mix.pcap" --qps 4 --messages 300 --msg-size 8192 --rate 10e9 \
	--verbs write:3,read:1,send:1 --loss 0.5% --rnr-rate 1% --timeout-rate 0.3% \
	--ce-rate 2% --bad-icrc-rate 0.1% -q 2>"$tmp/gen.err"; then
	CAPS+=("$tmp/gen_mix.pcap")
else
	bad "roce-gen could not write the mixed capture: $(head -2 "$tmp/gen.err")"
fi
SHARED=$SRC/../shared/captures/softroce
if [ -d "$SHARED" ]; then
	CAPS+=("$SHARED"/*.pcap)
else
	echo "note: $SHARED absent: real captures skipped"
fi

# anomalies FILE.json: "type frame" lines (unrecovered is reported at the end of the
# capture, on no frame of its own, and is left out)
anomalies() {
	python3 -c 'import json,sys
for a in json.load(open(sys.argv[1]))["anomalies"]:
    if a["type"] != "unrecovered": print(a["type"], a["frame"])' "$1"
}
types() { python3 -c 'import json,sys; print(" ".join(sorted({a["type"] for a in json.load(open(sys.argv[1]))["anomalies"]})))' "$1"; }

total_anoms=0
total_caused=0
for c in "${CAPS[@]}"; do
	b=$(basename "$c" .pcap)
	"$A" --json --max-anomalies 100000 "$c" >"$tmp/$b.json" 2>/dev/null
	[ $? -le 1 ] || { bad "$b: roce-analyze --json failed"; continue; }
	for ctxn in 0 5; do
		x=$tmp/$b.$ctxn.pcapng
		"$A" -q --extract "$x" --context $ctxn "$c" 2>"$tmp/err"
		rc=$?
		[ $rc -le 1 ] || { bad "$b: --extract --context $ctxn exit $rc: $(head -1 "$tmp/err")"; continue; }
		# byte-identical to the frames the comments name
		if ! python3 "$CHK" frames "$c" "$x" >"$tmp/kept" 2>"$tmp/chk"; then
			bad "$b: --context $ctxn: $(head -3 "$tmp/chk")"
			continue
		fi
		ok
		kept=" $(cat "$tmp/kept") "
		# every anomaly's frame, and with context the frames around it
		missing=
		last=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' "$tmp/$b.json")
		while read -r t f; do
			[ "$ctxn" = 0 ] && total_anoms=$((total_anoms + 1))
			for ((d = -ctxn; d <= ctxn; d++)); do
				n=$((f + d))
				[ $n -ge 1 ] || continue
				# frames past the end of the source do not exist
				[ $n -le "$last" ] || continue
				[[ $kept == *" $n "* ]] || missing="$missing $t@$n"
			done
		done < <(anomalies "$tmp/$b.json")
		# the frames an anomaly's frame causes: those whose ref_frame names it (the ACK
		# of a resent request, a READ response); NAKs and CNPs are anomalies themselves
		while read -r f; do
			[[ $kept == *" $f "* ]] || missing="$missing caused@$f"
			[ "$ctxn" = 0 ] && total_caused=$((total_caused + 1))
		done < <("$A" --frames --json "$c" 2>/dev/null | python3 -c 'import json, sys
an = {int(l.split()[1]) for l in open(sys.argv[1])}
for l in sys.stdin:
    f = json.loads(l)
    if f.get("ref_frame") in an:
        print(f["frame"])' <(anomalies "$tmp/$b.json"))
		if [ -n "$missing" ]; then
			bad "$b: --context $ctxn: frames not extracted:$missing"
		else
			ok
		fi
		# --context 0 (the default): only frames with an event or finding of their own and
		# the frames linked to them, no neighbour; the same file as without --context
		if [ "$ctxn" = 0 ]; then
			extra=$("$A" --frames --json "$c" 2>/dev/null | python3 -c 'import json, sys
kept = set(map(int, sys.argv[1].split()))
ev, refs = set(), {}
for l in sys.stdin:
    f = json.loads(l)
    if f.get("events") or f.get("findings"):
        ev.add(f["frame"])
    if "ref_frame" in f:
        refs[f["frame"]] = f["ref_frame"]
print(" ".join(map(str, sorted(kept - ev - {f for f, r in refs.items() if r in ev}))))' "$kept")
			[ -z "$extra" ] && ok || bad "$b: --context 0: frames of no event: $extra"
			"$A" -q --extract "$tmp/$b.noctx.pcapng" "$c" 2>/dev/null
			cmp -s "$x" "$tmp/$b.noctx.pcapng" && ok ||
				bad "$b: --context 0 differs from no --context"
		fi
		# re-analysing the extract finds every anomaly type of the source
		"$A" --json "$x" >"$tmp/$b.x.json" 2>/dev/null
		want=$(types "$tmp/$b.json")
		got=" $(types "$tmp/$b.x.json") "
		for t in $want; do
			# unrecovered: at the end of the capture; pfc_storm: needs the whole pause
			# episode (often thousands of frames) before the frame that enters it
			case $t in unrecovered | pfc_storm) continue ;; esac
			# the sequence anomalies need the stream's previous frame: in the context
			case $ctxn:$t in 0:psn_gap | 0:duplicate | 0:out_of_order | 0:retransmission) continue ;; esac
			[[ $got == *" $t "* ]] || bad "$b: --context $ctxn: re-analysed extract lacks $t (has:$got)"
		done
		ok
	done
done
# the checks above compared something
[ "$total_anoms" -gt 0 ] && ok || bad "no anomalies in the sample captures?"
[ "$total_caused" -gt 0 ] && ok || bad "no frame caused by an anomaly's frame was checked"
for t in nak cnp rnr_nak retransmission; do
	grep -q "^$t " <(anomalies "$tmp/gen_mix.json") && ok || bad "gen_mix has no $t anomaly"
done

# the storm frame itself is kept (its re-analysis needs the pause episode, see above)
grep -qw "$(python3 -c 'import json,sys; print([a["frame"] for a in json.load(open(sys.argv[1]))["anomalies"] if a["type"] == "pfc_storm"][0])' "$tmp/pfc_storm.json")" \
	<(python3 "$CHK" frames "$SRC/captures/pfc_storm.pcap" "$tmp/pfc_storm.0.pcapng") && ok ||
	bad "pfc_storm: the storm frame is not extracted"

# the extract is much smaller than a mostly clean source
n=$(python3 "$CHK" frames "$SRC/captures/pfc_storm.pcap" "$tmp/pfc_storm.0.pcapng" | wc -w)
[ "$n" -ge 1 ] && [ "$n" -lt 100 ] && ok || bad "pfc_storm: $n frames extracted, want 1..99"

# .pcap by name: classic pcap, the same frames (no comments there)
"$A" -q --extract "$tmp/loss.pcap" "$SRC/captures/rocev2_write_loss.pcap"
check python3 "$CHK" plain "$tmp/loss.pcap"
ng=$(python3 "$CHK" frames "$SRC/captures/rocev2_write_loss.pcap" "$tmp/rocev2_write_loss.0.pcapng" | wc -w)
pc=$(capinfos -c -M "$tmp/loss.pcap" 2>/dev/null | awk '/Number of packets/ { print $NF }')
if command -v capinfos >/dev/null 2>&1; then
	[ "$ng" = "$pc" ] && ok || bad ".pcap extract has $pc frames, pcapng $ng"
fi

# usage errors
# --context without --extract, even 0 (what -s, -B, -w do without -i): a usage error
for n in 2 0; do
	"$A" -q --context $n "$SRC/captures/rocev2_write_loss.pcap" 2>"$tmp/err"
	[ $? -eq 2 ] && grep -q "^roce-analyze: --context needs --extract$" "$tmp/err" && ok ||
		bad "--context $n without --extract: want exit 2: $(head -1 "$tmp/err")"
done
"$A" -q --extract - "$SRC/captures/rocev2_write_loss.pcap" 2>/dev/null
[ $? -eq 2 ] && ok || bad "--extract -: want exit 2"
"$A" -q --extract "$tmp/nodir/x.pcapng" "$SRC/captures/rocev2_write_loss.pcap" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "nodir" "$tmp/err" && ok || bad "unwritable --extract: want exit 2 naming the file"

finish
