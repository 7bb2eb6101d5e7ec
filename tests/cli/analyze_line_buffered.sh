#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analyze_line_buffered.sh - roce-analyze -l (tcpdump's "make stdout line buffered") on a
# capture read from a pipe whose writer stays open ("tcpdump -w - | roce-analyze -l --frames -
# | grep nak"): the first --frames line (text and JSON Lines) and the first --interval row
# reach the reader of stdout, itself a pipe, before the input ends.  Without -l, stdout into a
# pipe is block-buffered: no line comes until the input ends (the check that the harness can
# tell the two apart), then all of them.  The output with and without -l is the same.
# The only time bound is a generous one on a line arriving at all.
set -u
build=$1 src=$2
. "$src/tests/cli/testlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }

# a.pcap small: its --frames output (5 lines) fits in stdout's buffer (64 KiB; under 4 KiB,
# a pipe's block size, which glibc used for it before) and without -l nothing comes early;
# nak.pcap has NAKs to grep for, and spans more than one 1 ms --interval (10k frames/s; the
# retry timeout of a lost message tail made it long before roce-gen revealed such tails)
"$rg" -w "$tmp/a.pcap" -m 1 -q || { bad "roce-gen"; finish; exit; }
"$rg" -w "$tmp/nak.pcap" --qps 2 -m 8 --loss 0.05 --pps 10000 -q ||
	{ bad "roce-gen"; finish; exit; }
"$ra" --frames "$tmp/nak.pcap" | grep -q nak || bad "nak.pcap has no NAK to grep for"
[ "$("$ra" --frames --json "$tmp/a.pcap" | head -n -1 | wc -c)" -lt 4096 ] && ok ||
	bad "a.pcap's --frames --json lines are not under 4 KiB"

# run ARGS...: roce-analyze ARGS - ($in, a.pcap unless said) with stdin a FIFO this shell keeps open (fd 7) and stdout a
# FIFO it reads (fd 8).  The whole capture is written (by cat in the background: the output
# may fill its pipe first), then one line is waited for (60 s at most, or $wait) while the
# input is still open: $first, empty when none came.  Then the input is closed, the rest
# read: $rest (every line, the first included), $rc.
run() {
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in" "$tmp/out"
	"$ra" "$@" - < "$tmp/in" > "$tmp/out" 2> "$tmp/err" &
	local pid=$!
	exec 7> "$tmp/in"
	exec 8< "$tmp/out"
	cat "${in:-$tmp/a.pcap}" >&7 &
	local cat_pid=$!
	first=
	IFS= read -r -t "${wait:-60}" first <&8
	exec 7>&-
	rest=$first$'\n'$(cat <&8)
	exec 8<&-
	wait $cat_pid
	wait $pid
	rc=$?
}

for args in "--frames" "--frames --json"; do
	run -l $args
	[ -n "$first" ] && ok || bad "-l $args: no line before the input ended"
	[ $rc = 0 ] && [ ! -s "$tmp/err" ] && ok || bad "-l $args: exit $rc: $(head -c 300 "$tmp/err")"
	with=$rest
	# without -l: no line while the input is open (a short wait suffices: the lines are held
	# in stdio's buffer until the end, however long one waits), all of them after
	wait=2 run $args
	[ -z "$first" ] && ok || bad "$args without -l: a line before the input ended: $first"
	[ $rc = 0 ] && ok || bad "$args without -l: exit $rc: $(head -c 300 "$tmp/err")"
	[ "$with" = "${rest#$'\n'}" ] && ok || bad "$args: the output differs with -l"
done
# the first line is frame 1's
run -l --frames
[ "$(awk '{ print $1 }' <<<"$first")" = 1 ] && ok || bad "-l --frames: first line: $first"
run -l --frames --json
python3 -c 'import json, sys; assert json.loads(sys.argv[1])["frame"] == 1' "$first" 2> /dev/null && ok ||
	bad "-l --frames --json: first line: $first"
# | grep nak: grep (itself line-buffered here) passes the NAK lines on before the input ends
rm -f "$tmp/in" "$tmp/out"
mkfifo "$tmp/in" "$tmp/out"
("$ra" -l --frames - < "$tmp/in" | grep --line-buffered nak > "$tmp/out") &
pid=$!
exec 7> "$tmp/in"
exec 8< "$tmp/out"
cat "$tmp/nak.pcap" >&7 &
cat_pid=$!
first=
IFS= read -r -t 60 first <&8
exec 7>&-
cat <&8 > /dev/null
exec 8<&-
wait $cat_pid
wait $pid
grep -q '\[.*nak.*\]' <<<"$first" && ok || bad "-l --frames | grep nak: first line: '$first'"
# --interval rows (capture time; JSON Lines): the first one too
in=$tmp/nak.pcap run -l --interval 0.001 --json
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert "interval_s" in d' \
	"$first" 2> /dev/null && ok || bad "-l --interval: first line: $first"
# -l is in --help
"$ra" --help | grep -qE '^  -l, --line-buffered ' && ok || bad "--help does not list -l"
finish
