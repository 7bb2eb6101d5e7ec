#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin's "ACKed unseen" expert info: on the editcap reproduction of
# analyze_acked_unseen.sh (a roce-gen RC WRITE capture without the ACK of PSN 3 and the
# WRITE_FIRST of PSN 4) tshark -Y roce.analysis.acked_unseen finds exactly the ACK that
# acknowledges PSN 4 (the frame roce-analyze --frames marks), with
# roce.analysis.acked_unseen_psns 1, in one pass and in two (-2); the uncut capture has none.
#   plugin_acked_unseen.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"
command -v editcap >/dev/null 2>&1 || skip "editcap not installed"
[ -n "$ANALYZE" ] || skip "roce-analyze not built"

"$GEN" -q -w "$T/work/cd.pcap" --qps 1 --messages 40 --msg-size 4096 -s 9 || fail "roce-gen"
editcap -r "$T/work/cd.pcap" "$T/work/cd2.pcap" 1-4 7-200 >/dev/null 2>&1 || fail "editcap"
chmod a+r "$T/work/"*.pcap

want=$("$ANALYZE" --frames --json "$T/work/cd2.pcap" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(str(f["frame"]) for f in map(json.loads, sys.stdin)
      if "acked_unseen" in f.get("events", [])))')
[ -n "$want" ] || fail "roce-analyze marks no frame acked_unseen"

for pass in 1 2; do
	args=()
	[ $pass = 2 ] && args=(-2)
	got=$(ts -r "$T/work/cd2.pcap" "${args[@]}" -Y roce.analysis.acked_unseen -T fields \
		-e frame.number -e roce.analysis.acked_unseen_psns 2>"$T/ts.err" | tr '\t\n' ': ' |
		sed 's/ $//')
	if [ "$got" = "$want:1" ]; then
		ok "pass $pass: roce.analysis.acked_unseen on frame $want"
	else
		fail "pass $pass: frames:psns '$got', want '$want:1' ($(head -2 "$T/ts.err"))"
	fi
done
got=$(ts -r "$T/work/cd2.pcap" -q -z expert,note 2>/dev/null | grep -c "ACKed PSN that wasn't captured")
[ "$got" -ge 1 ] && ok "expert info listed" || fail "tshark -z expert: no acked_unseen entry"
got=$(ts -r "$T/work/cd.pcap" -Y roce.analysis.acked_unseen 2>/dev/null | wc -l)
[ "$got" = 0 ] && ok "uncut: none" || fail "uncut: $got frames with roce.analysis.acked_unseen"

[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
echo "all passed"
