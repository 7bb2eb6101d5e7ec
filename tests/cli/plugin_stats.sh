#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tshark -z roce,qp and -z roce,pfc (the plugin's statistics) and the GUI's
# Statistics > RoCE trees (-z roce_qp,tree, -z roce_pfc,tree): on every
# sample capture (captures/, and the real captures when ../shared is there)
# and on two generated ones with unrecovered and ACKed-unseen PSNs, each row
# equals roce-analyze --json's qps / pfc+pause rows.
#   plugin_stats.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"

[ -n "$ANALYZE" ] || skip "roce-analyze not built"
command -v python3 >/dev/null 2>&1 || skip "python3 missing"
CMP=$SRC/plugin/tests/roce_stats.py

CAPS=("$SRC"/captures/*.pcap)
SHARED=$SRC/../shared/captures
if [ -d "$SHARED" ]; then
	while IFS= read -r c; do CAPS+=("$c"); done < <(find "$SHARED" -name '*.pcap' -o -name '*.pcapng' | sort)
else
	echo "note: $SHARED absent: real captures skipped"
fi

# captures whose streams have unrecovered and ACKed-unseen PSNs (the trees' rows of those must
# carry the analyzer's values, not only zeros): a roce-gen capture with loss on UC (no resend:
# the PSNs stay missing) and RC, and the editcap reproduction of ACKed unseen
# (tests/cli/acked_unseen_lib.sh)
tmp=$T/work
bad() { fail "$*"; }
. "$SRC/tests/cli/acked_unseen_lib.sh"
if cut_ack_capture "$GEN"; then
	CAPS+=("$tmp/cd2.pcap")
fi
"$GEN" -q -w "$tmp/gen_unrec.pcap" --qps 2 --messages 200 --verbs write,uc_write \
	--loss 0.02 -s 5 ||
	fail "roce-gen --loss failed"
CAPS+=("$tmp/gen_unrec.pcap")
QROWS=0
PROWS=0
# the trees are registered statistics (tshark -z help lists them; the GUI menu has them)
ts -z help >"$T/work/zhelp" 2>&1
for z in roce_qp,tree roce_pfc,tree roce,qp roce,pfc; do
	grep -qx " *$z" "$T/work/zhelp" && ok "-z help lists $z" || fail "-z help does not list $z"
done
for c in "${CAPS[@]}"; do
	b=$(basename "$c")
	[ "$c" -ef "$T/work/$b" ] || cp "$c" "$T/work/$b"
	chmod a+r "$T/work/$b"
	"$ANALYZE" --json "$c" >"$T/work/$b.json" 2>/dev/null
	rc=$?
	if [ $rc -gt 1 ] || [ ! -s "$T/work/$b.json" ]; then
		fail "$b: roce-analyze --json failed (exit $rc)"
		continue
	fi
	ts -r "$T/work/$b" -q -z roce,qp -z roce,pfc -z roce_qp,tree -z roce_pfc,tree \
		>"$T/work/$b.z" 2>"$T/work/$b.z.err"
	if ! grep -q '^RoCE Queue Pairs' "$T/work/$b.z" || ! grep -q '^RoCE PFC/PAUSE' "$T/work/$b.z"; then
		fail "$b: tshark -z roce,qp / roce,pfc printed no table"
		head -3 "$T/work/$b.z.err" | sed 's/^/    /'
		continue
	fi
	# the two tables, separated
	awk '/^RoCE Queue Pairs/ { on = 1 } /^RoCE PFC/ { on = 0 } on' "$T/work/$b.z" >"$T/work/$b.qp"
	awk '/^RoCE PFC/ { on = 1 } /^RoCE Queue Pairs/ { on = 0 } on' "$T/work/$b.z" >"$T/work/$b.pfc"
	for k in qp pfc; do
		if python3 "$CMP" $k "$T/work/$b.$k" "$T/work/$b.json" >"$T/work/$b.$k.cmp"; then
			ok "$b: $(cat "$T/work/$b.$k.cmp")"
		else
			fail "$b: -z roce,$k differs from roce-analyze --json"
			sed 's/^/    /' "$T/work/$b.$k.cmp" | head -20
		fi
	done
	# the GUI's Statistics > RoCE trees (stats_tree), as tshark prints them
	for k in qptree pfctree; do
		if python3 "$CMP" $k "$T/work/$b.z" "$T/work/$b.json" >"$T/work/$b.$k.cmp"; then
			ok "$b: $(cat "$T/work/$b.$k.cmp")"
		else
			fail "$b: -z roce_${k%tree},tree differs from roce-analyze --json"
			sed 's/^/    /' "$T/work/$b.$k.cmp" | head -20
		fi
	done
	QROWS=$((QROWS + $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["qps"]))' "$T/work/$b.json")))
	PROWS=$((PROWS + $(grep -c '^..:..:..:..:..:..' "$T/work/$b.pfc")))
done
# the comparison must have compared something: the sample captures have streams and PFC rows,
# the generated ones unrecovered and ACKed-unseen PSNs
sum_of() {
	python3 -c 'import json,sys
print(sum(q[sys.argv[2]] for q in json.load(open(sys.argv[1]))["qps"]))' "$1" "$2"
}
v=$(sum_of "$T/work/gen_unrec.pcap.json" unrecovered_psns)
[ "${v:-0}" -gt 0 ] && ok "gen_unrec.pcap: $v unrecovered PSNs compared" ||
	fail "gen_unrec.pcap: no unrecovered PSNs (${v:-none}): the tree rows went unchecked"
v=$(sum_of "$T/work/cd2.pcap.json" acked_unseen_psns)
[ "${v:-0}" -gt 0 ] && ok "cd2.pcap: $v ACKed unseen PSNs compared" ||
	fail "cd2.pcap: no ACKed unseen PSNs (${v:-none}): the tree rows went unchecked"
[ "$QROWS" -gt 0 ] || fail "no QP rows compared at all"
[ "$PROWS" -gt 0 ] || fail "no PFC rows compared at all"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS check(s) failed"
	exit 1
fi
echo "all plugin statistics checks passed ($QROWS QP rows, $PROWS PFC rows)"
exit 0
