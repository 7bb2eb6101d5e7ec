#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin on RoCE inside a tunnel or mirror encapsulation: the known-facts
# capture (plugin_facts.ini) written by roce-gen --encap as ERSPAN I/II/III, GRE, VXLAN,
# Geneve and MPLS (1 and 8 labels, a pseudowire) gives, frame by frame, the plugin's
# fields of the plain capture (ICRC status,
# opcode, PSN, PSN analysis, NAK, RTT, ECN CE, CNP, PFC), and the plugin's items sit on the
# bytes Wireshark's own InfiniBand dissector shows inside the tunnel (libroce's offsets
# are the inner frame's: the plugin adds where it starts).
#   plugin_encap.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"
[ -x "$GEN" ] || skip "roce-gen not built"

F="-e frame.number -e roce.kind -e roce.icrc.status -e roce.opcode -e roce.dqpn -e roce.psn
-e roce.analysis.psn_gap -e roce.analysis.lost_psns -e roce.analysis.expected_psn
-e roce.analysis.duplicate -e roce.analysis.retransmission -e roce.analysis.nak
-e roce.analysis.rnr_nak -e roce.analysis.rtt -e roce.analysis.acks_frame
-e roce.analysis.ecn_ce -e roce.analysis.cnp -e roce.pfc.priority -e roce.pfc.storm
-e roce.finding"
# shellcheck disable=SC2086
fields() { ts -r "$1" -T fields -E occurrence=a -E separator=/t $F >"$2" 2>"$2.err"; }
# pos FILE FRAME FIELD: the pdml position of FIELD in that frame
pos() {
	ts -r "$1" -Y "frame.number==$2" -T pdml 2>/dev/null |
		awk -v f="$3" 'index($0, "name=\"" f "\"") { if (match($0, / pos="[0-9]+"/)) {
			print substr($0, RSTART + 6, RLENGTH - 7); exit } }'
}

P=$T/work/plain.pcap
gen_facts "$P" || fail "roce-gen failed"
chmod a+r "$P"
fields "$P" "$T/work/plain.tsv"
n=$(awk -F'\t' '$2 == "roce"' "$T/work/plain.tsv" | wc -l)
[ "$n" -gt 20 ] && ok "plain: $n RoCE frames" || fail "plain: $n RoCE frames"
grep -q $'\t2\t' "$T/work/plain.tsv" && ok "plain: a bad ICRC" || fail "plain: no bad ICRC"

for e in erspan1 erspan2 erspan3 gre vxlan geneve mpls mpls8 mplspw; do
	W=$T/work/$e.pcap
	case $e in
	mpls8) o="--encap mpls --mpls-labels 16,17,18,19,20,21,22,23" ;;
	mplspw) o="--encap mpls --mpls-pw" ;;
	*) o="--encap $e" ;;
	esac
	# shellcheck disable=SC2086
	"$GEN" --scenario "$SRC/plugin/tests/plugin_facts.ini" $o -w "$W" -q ||
		{ fail "$e: roce-gen failed"; continue; }
	chmod a+r "$W"
	fields "$W" "$T/work/$e.tsv"
	grep -qi "dissector bug\|assert" "$T/work/$e.tsv.err" && fail "$e: tshark reported a dissector bug"
	if cmp -s "$T/work/plain.tsv" "$T/work/$e.tsv"; then
		ok "$e: every frame's plugin fields are the plain capture's"
	else
		fail "$e: plugin fields differ from the plain capture's"
		diff "$T/work/plain.tsv" "$T/work/$e.tsv" | head -4 | sed 's/^/    /'
	fi
	# frame 1 (a request) and 2: the plugin's PSN and DestQP on Wireshark's own bytes (not
	# for the pseudowire: Wireshark tells its control word by a vendor table, and misreads
	# the scenario's locally administered MACs, docs/json.md; analyze_encap.sh checks it
	# with a vendor's MACs)
	[ "$e" = mplspw ] && continue
	for fr in 1 2; do
		a=$(pos "$W" $fr infiniband.bth.psn) b=$(pos "$W" $fr roce.psn)
		[ -n "$a" ] && [ "$a" = "$b" ] && ok "$e frame $fr: roce.psn at $b" ||
			fail "$e frame $fr: roce.psn at '$b', infiniband.bth.psn at '$a'"
		a=$(pos "$W" $fr infiniband.bth.destqp) b=$(pos "$W" $fr roce.dqpn)
		[ -n "$a" ] && [ "$a" = "$b" ] && ok "$e frame $fr: roce.dqpn at $b" ||
			fail "$e frame $fr: roce.dqpn at '$b', infiniband.bth.destqp at '$a'"
	done
done
echo "$FAILS check(s) failed"
[ "$FAILS" -eq 0 ]
