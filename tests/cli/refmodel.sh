#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# refmodel.sh - the analyzer against an independent reference model of the PSN rules
# (tests/ref/psnref.c, written from docs/json.md and the spec, not from the analyzer).
# Both run over every capture in captures/ and ../shared/captures/ and over random
# traffic generated here, seeded, by roce-gen and by tests/ref/refgen.c: loss,
# duplication, reordering, bad ICRC (refgen: with corrupted PSNs), NAK / RNR NAK /
# timeout go-back-N, READ re-reads from the middle of a message: fixed scenarios, and
# random mixes over REFMODEL_SEEDS seeds (default 24) from seed REFMODEL_FIRST (default 1;
# a campaign by hand: REFMODEL_FIRST=401 REFMODEL_SEEDS=500 bash tests/cli/refmodel.sh
# BUILD SRC tries seeds 401-900; a failure prints its seed and the generator command).
# Per stream they must
# give the same frames, icrc_bad, psn_gaps, lost_psns, duplicates, out_of_order,
# unrecovered_psns, retransmissions, go-back-N episodes (total), acks, naks, rnr_naks
# and cnps. The model has no capture copies (docs/json.md "Capture copies"): roce-gen's
# and refgen's duplicate fault writes the copy 10 us after the frame before it, past the
# analyzer's copy window, as a duplicate on the wire.
#
# Differences where one side is known to be wrong are listed in
# tests/ref/expected-failures.txt with both values pinned and the reason: they are
# reported as XFAIL. An entry whose values change (STALE), that starts agreeing
# (XPASS), or whose input or stream is gone (STALE) fails the test, so the list stays
# true. ../shared missing: its captures are skipped, the rest still runs.
set -u
build=$1 src=$2
ra=$build/cli/roce-analyze
ref=$build/tests/ref/roce-psnref
gen=$build/tests/ref/roce-refgen
rg=$build/cli/roce-gen
xfail=$src/tests/ref/expected-failures.txt
[ -x "$ra" ] || { echo "SKIP: $ra not built"; exit 77; }
[ -x "$ref" ] && [ -x "$gen" ] || { echo "SKIP: reference model not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
# the interpreter itself, once: a version manager's shim costs seconds per call on a busy
# machine, and the comparison runs once per input
py=$(python3 -c 'import sys; print(sys.executable)')
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

names=()
compare() { # compare NAME FILE
	names+=("$1")
	if ! "$ref" "$2" >"$tmp/$1.ref" 2>"$tmp/err"; then
		bad "$1: reference model failed: $(cat "$tmp/err")"
		return
	fi
	"$ra" --json "$2" >"$tmp/$1.json" 2>"$tmp/err"
	if [ $? -gt 2 ] || [ ! -s "$tmp/$1.json" ]; then
		bad "$1: roce-analyze failed: $(cat "$tmp/err")"
		return
	fi
	if "$py" "$src/tests/ref/refcompare.py" "$1" "$tmp/$1.ref" "$tmp/$1.json" "$xfail" \
		>"$tmp/$1.cmp"; then
		ok
	else
		bad "$1: reference model and roce-analyze disagree"
	fi
	grep -v '^XFAIL' "$tmp/$1.cmp" | sed 's/^/    /'
	nx=$(grep -c '^XFAIL' "$tmp/$1.cmp")
	[ "$nx" -eq 0 ] || echo "$1: $nx expected failure(s) (tests/ref/expected-failures.txt)"
}

n=0
for f in "$src"/captures/*.pcap; do
	compare "$(basename "$f" .pcap)" "$f"
	n=$((n + 1))
done
if [ -d "$src/../shared/captures" ]; then
	for f in "$src"/../shared/captures/softroce/*.pcap "$src"/../shared/captures/public/*.pcap; do
		[ -f "$f" ] || continue
		# every shared capture gets a report with a "qps" list, also the native InfiniBand
		# ERF sample (no RoCE frame: an empty list, compared as such with the model's)
		if ! "$ra" --json "$f" 2>/dev/null | grep -q '"qps"'; then
			bad "$(basename "$f"): roce-analyze --json printed no \"qps\""
			continue
		fi
		compare "$(basename "$f" .pcap)" "$f"
		n=$((n + 1))
	done
else
	echo "note: ../shared/captures not found: only the repository's captures and generated traffic"
fi

# Traffic from tests/ref/refgen.c (kept next to roce-gen's: it also corrupts PSNs under
# a bad ICRC and lets original READ responses arrive after a re-read burst):
# NAME SEED OPS IMPAIRMENTS (l loss, c bad ICRC, d duplication,
# o reordering, r RNR NAK, t timeout, x READ re-reads)
while read -r name seed ops imp; do
	"$gen" "$seed" "$tmp/$name.pcap" "$ops" "$imp" || { bad "$name: generator failed"; continue; }
	compare "$name" "$tmp/$name.pcap"
	n=$((n + 1))
done <<'SCEN'
gen-clean 1 300 -
gen-loss-1 1 300 l
gen-loss-2 2 300 l
gen-dup 1 300 d
gen-reorder 1 300 o
gen-corrupt 1 300 c
gen-rnr-timeout 1 300 rt
gen-reread 1 300 lx
gen-all-1 1 300 lcdortx
gen-all-2 2 300 lcdortx
SCEN
# roce-gen traffic (cli/gen): NAME then its options
if [ -x "$rg" ]; then
	M="-m 400 --qps=2 --random-psn --verbs=write,send,read:2,atomic --msg-size=uniform:1-8192"
	while read name args; do # (no -r: a trailing backslash continues a line)
		# shellcheck disable=SC2086
		if ! "$rg" -q -w "$tmp/$name.pcap" $M $args 2>"$tmp/err"; then
			bad "$name: roce-gen failed: $(cat "$tmp/err")"
			continue
		fi
		compare "$name" "$tmp/$name.pcap"
		n=$((n + 1))
	done <<'SCEN'
rg-clean --roce=v2
rg-loss --loss=3% --roce=v1
rg-dup --dup-rate=3% --roce=v6
rg-reorder --reorder-rate=3%
rg-rnr-timeout --rnr-rate=5% --timeout-rate=3%
rg-reread --read-loss-rate=5%
rg-icrc --bad-icrc-rate=2% --bad-payload-rate=1%
rg-all --loss=2% --dup-rate=2% --reorder-rate=2% --rnr-rate=3% --timeout-rate=2% \
	--read-loss-rate=3% --bad-icrc-rate=1% --roce=v6 --seed=7
rg-unrel --verbs=uc_write,uc_write_imm,uc_send,uc_send_imm,ud_send,write --loss=3% \
	--dup-rate=3% --reorder-rate=3% --bad-icrc-rate=1% --bad-payload-rate=1% --ce-rate=2% --seed=5
SCEN
else
	echo "note: $rg not built: no roce-gen traffic"
fi
# Random mixes, REFMODEL_SEEDS seeds (default 24) from REFMODEL_FIRST (default 1): per seed, refgen with a random subset
# of its impairments and roce-gen with random fault rates (loss and NAK go-back-N,
# duplication, reordering, RNR, timeouts, READ re-reads, bad ICRC / payload), RoCE
# version, verbs, PMTU, QPs and ACK coalescing. The choices follow from the seed alone
# (bash's RANDOM seeded with it), so a failure names its seed and the command that
# makes the same traffic.
nseeds=${REFMODEL_SEEDS:-24} first=${REFMODEL_FIRST:-1}
# (no $(...) around RANDOM: a subshell reseeds it)
pct() { args+=" --$1=$((RANDOM % ($2 + 1))).$((RANDOM % 10))%"; } # 0.0% .. N.9%
for ((seed = first; seed < first + nseeds; seed++)); do
	RANDOM=$seed
	imp=
	for c in l c d o r t x; do
		[ $((RANDOM % 2)) -eq 0 ] || imp+=$c
	done
	[ -n "$imp" ] || imp=lx
	ops=$((100 + RANDOM % 200))
	name=rand-refgen-$seed
	f0=$fail
	if "$gen" $((1000 + seed)) "$tmp/$name.pcap" $ops $imp; then
		compare "$name" "$tmp/$name.pcap"
		n=$((n + 1))
	else
		bad "$name: generator failed"
	fi
	[ "$fail" -eq "$f0" ] || echo "    seed $seed: roce-refgen $((1000 + seed)) FILE $ops $imp"
	[ -x "$rg" ] || continue
	vers=(v1 v2 v6)
	pmtus=(256 512 1024 2048 4096)
	verbs=write:$((RANDOM % 4)),send:$((RANDOM % 4)),read:$((1 + RANDOM % 4))
	verbs+=,atomic:$((RANDOM % 2)),write_imm:$((RANDOM % 2)),xrc:$((RANDOM % 2)),ud_send:$((RANDOM % 2))
	verbs+=,uc_write:$((RANDOM % 3)),uc_write_imm:$((RANDOM % 2)),uc_send:$((RANDOM % 3))
	verbs+=,uc_send_imm:$((RANDOM % 2))
	args="-m $((150 + RANDOM % 250)) --seed=$seed --random-psn --roce=${vers[RANDOM % 3]}"
	args+=" --pmtu=${pmtus[RANDOM % 5]} --qps=$((1 + RANDOM % 3)) --ack-every=$((1 + RANDOM % 4))"
	args+=" --verbs=$verbs --msg-size=uniform:1-$((1024 + RANDOM % 16384))"
	pct loss 4
	pct dup-rate 3
	pct reorder-rate 3
	pct rnr-rate 4
	pct timeout-rate 3
	pct read-loss-rate 5
	pct bad-icrc-rate 2
	pct bad-payload-rate 1
	name=rand-rg-$seed
	f0=$fail
	# shellcheck disable=SC2086
	if "$rg" -q -w "$tmp/$name.pcap" $args 2>"$tmp/err"; then
		compare "$name" "$tmp/$name.pcap"
		n=$((n + 1))
	else
		bad "$name: roce-gen failed: $(cat "$tmp/err")"
	fi
	[ "$fail" -eq "$f0" ] || echo "    seed $seed: roce-gen -w FILE $args"
done
# every entry of the expected failures must belong to an input compared above (only a
# note for an input this run left out: ../shared missing, or random seeds 1-24 not all run)
partial=
[ -d "$src/../shared/captures" ] || partial=--partial
[ "$first" -le 1 ] && [ $((first + nseeds)) -gt 24 ] || partial=--partial
if "$py" "$src/tests/ref/refcompare.py" --unused "$xfail" $partial "${names[@]}" \
	>"$tmp/unused"; then
	ok
else
	bad "tests/ref/expected-failures.txt lists inputs not compared"
fi
sed 's/^/    /' "$tmp/unused"
echo "$n inputs compared"
finish
