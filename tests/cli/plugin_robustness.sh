#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Robustness of the Wireshark plugin: every sample capture, corrupted with
# `editcap -E 0.02` under several seeds, goes through tshark (one pass,
# two passes, full tree) without a crash, an abort or a dissector bug.
#   plugin_robustness.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
# ROCE_PLUGIN_SEEDS="1 2 3" overrides the seeds.
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"

command -v editcap >/dev/null 2>&1 || skip "editcap not installed"
SEEDS=${ROCE_PLUGIN_SEEDS:-"1 2 3"}
SEED_OPT=
editcap --help 2>&1 | grep -q -- '--seed' && SEED_OPT=1

# the generated capture with every header the plugin knows: roce-gen is part of the same
# build, so a missing or failing roce-gen is a failure, not a smaller test
[ -x "$GEN" ] || { echo "FAIL: $GEN not built"; exit 1; }
gen_facts "$T/work/facts.pcap" || { echo "FAIL: roce-gen could not write the facts capture"; exit 1; }
CAPS=("$T/work/facts.pcap")
for c in "$SRC"/../shared/captures/softroce/*.pcap "$SRC"/../shared/captures/public/*.pcap \
	"$SRC"/captures/*.pcap "$SRC"/tests/data/*.pcap; do
	[ -f "$c" ] && CAPS+=("$c")
done
[ ${#CAPS[@]} -gt 0 ] || skip "no capture to corrupt"

# run_one FILE ARGS...: tshark must end with 0 or 2 and report no bug
run_one() {
	local in=$1 err=$T/work/err.txt rc
	shift
	ts -r "$in" "$@" >/dev/null 2>"$err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
		fail "$(basename "$in") [$*]: tshark exit status $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))")"
		head -3 "$err" | sed 's/^/    /'
		return
	fi
	if grep -qiE "segmentation|abort|core dumped|Dissector bug, protocol RoCE[,:]" "$err"; then
		fail "$(basename "$in") [$*]: $(grep -iE "segmentation|abort|core dumped|Dissector bug, protocol RoCE" "$err" | head -1)"
		return
	fi
	# A dissector bug or assertion elsewhere: only ours if it goes away
	# without the plugin (built-in dissectors have their own bugs, e.g.
	# RPCoRDMA's "tvb && tvb->initialized" assertion in 4.0 with -2).
	if grep -qiE "assert|dissector bug" "$err"; then
		ts -r "$in" --disable-protocol roce "$@" >/dev/null 2>"$err.noplugin"
		if grep -qiE "assert|dissector bug" "$err.noplugin"; then
			NOTES=$((NOTES + 1))
			[ $NOTES -le 3 ] && echo "note: also without the plugin (Wireshark's own): $(grep -iE "assert|dissector bug" "$err" | head -1 | sed 's/.*-- //')"
		else
			fail "$(basename "$in") [$*]: $(grep -iE "assert|dissector bug" "$err" | head -1)"
			return
		fi
	fi
	RUNS=$((RUNS + 1))
}

RUNS=0
NOTES=0
n=0
for c in "${CAPS[@]}"; do
	for s in $SEEDS; do
		n=$((n + 1))
		out=$T/work/corrupt.$n.pcap
		if [ -n "$SEED_OPT" ]; then
			editcap -E 0.02 --seed "$s" "$c" "$out" >/dev/null 2>&1
		else
			editcap -E 0.02 "$c" "$out" >/dev/null 2>&1
		fi
		[ -s "$out" ] || { fail "editcap failed on $(basename "$c")"; continue; }
		chmod a+r "$out"
		run_one "$out" -V
		run_one "$out" -2 -T fields -e roce.icrc.status -e roce.analysis.lost_psns -e roce.finding
		run_one "$out" -q -z expert
		rm -f "$out"
	done
done

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS robustness check(s) failed"
	exit 1
fi
[ $NOTES -gt 0 ] && echo "note: $NOTES run(s) hit dissector bugs that also occur without the plugin"
echo "ok: $RUNS tshark runs over ${#CAPS[@]} captures x seeds {$SEEDS} corrupted with editcap -E 0.02, no crash"
exit 0
