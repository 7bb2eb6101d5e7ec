#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin on a capture that carries every frame twice (docs/json.md "Capture
# copies"; copies_lib.sh double(): each record written twice in a row): tshark -Y
# roce.analysis.capture_copy finds exactly the frames roce-analyze --frames marks
# capture_copy (every second one), in one pass and in two (-2), with "[Capture copy]" in
# Info and the expert note listed; no frame of the doubled capture is a duplicate or a
# retransmission; the single capture has no copy.
#   plugin_capture_copy.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"
. "$2/tests/cli/copies_lib.sh"
[ -n "$ANALYZE" ] || skip "roce-analyze not built"

"$GEN" -q -w "$T/work/c.pcap" --qps 2 --messages 30 --msg-size 3000 --verbs write,read -s 4 ||
	fail "roce-gen"
double "$T/work/c.pcap" "$T/work/c2.pcap" 0 || fail "doubling"
chmod a+r "$T/work/"*.pcap

want=$("$ANALYZE" --frames --json "$T/work/c2.pcap" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(str(f["frame"]) for f in map(json.loads, sys.stdin)
      if "capture_copy" in f.get("events", [])))')
n=$(echo "$want" | wc -w)
total=$("$ANALYZE" --json "$T/work/c.pcap" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["frames"])')
[ -n "$total" ] && [ "$n" = "$total" ] && ok "roce-analyze: $n capture copies, one per frame" ||
	fail "roce-analyze marks $n frames capture_copy, the single capture has '$total' frames"

for pass in 1 2; do
	args=()
	[ $pass = 2 ] && args=(-2)
	got=$(ts -r "$T/work/c2.pcap" "${args[@]}" -Y roce.analysis.capture_copy -T fields \
		-e frame.number 2>"$T/ts.err" | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		ok "pass $pass: roce.analysis.capture_copy on the $n frames roce-analyze marks"
	else
		fail "pass $pass: frames '${got:0:80}', want '${want:0:80}' ($(head -2 "$T/ts.err"))"
	fi
	got=$(ts -r "$T/work/c2.pcap" "${args[@]}" \
		-Y "roce.analysis.duplicate || roce.analysis.retransmission" 2>/dev/null | wc -l)
	[ "$got" = 0 ] && ok "pass $pass: no duplicate or retransmission" ||
		fail "pass $pass: $got frames are duplicates or retransmissions"
done
got=$(ts -r "$T/work/c2.pcap" -Y roce.analysis.capture_copy 2>/dev/null |
	grep -c "\[Capture copy\]")
[ "$got" = "$n" ] && ok "Info: [Capture copy] on $n frames" || fail "Info tag on $got of $n"
got=$(ts -r "$T/work/c2.pcap" -q -z expert,note 2>/dev/null | grep -c "Frame captured twice")
[ "$got" -ge 1 ] && ok "expert info listed" || fail "tshark -z expert: no capture_copy entry"
got=$(ts -r "$T/work/c.pcap" -Y roce.analysis.capture_copy 2>/dev/null | wc -l)
[ "$got" = 0 ] && ok "single capture: none" || fail "single: $got frames with capture_copy"

[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
echo "all passed"
