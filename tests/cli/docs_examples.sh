#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# docs_examples.sh - the examples of the docs that run offline do what the docs say:
# every scenario file of docs/roce-gen.md is accepted by roce-gen (one of them once was
# not), its bad-file messages are the ones roce-gen prints, and the roce-analyze output
# README.md quotes for captures/rocev2_write_loss.pcap is the output of today's
# roce-analyze, line for line (lines cut with "..." compared up to the cut).
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# the ```ini blocks of docs/roce-gen.md, one file each
awk -v d="$tmp" '/^```ini$/ { n++; on = 1; next } /^```/ { on = 0 }
	on { print > (d "/ex" n ".ini") }' "$src/docs/roce-gen.md"
n=$(ls "$tmp"/ex*.ini 2> /dev/null | wc -l)
[ "$n" -ge 5 ] && ok || bad "docs/roce-gen.md: $n scenario examples found"
for f in "$tmp"/ex*.ini; do
	# -w after --scenario overrides the file's [output] write; -m keeps the big ones short
	m=-m
	grep -q '^\[frame ' "$f" && m=
	if "$rg" --scenario "$f" -w "$tmp/out.pcap" ${m:+-m 50} -q 2> "$tmp/err"; then
		"$ra" -q "$tmp/out.pcap" && ok || bad "$(basename "$f"): roce-analyze exit $?"
	else
		bad "docs/roce-gen.md example $(basename "$f") refused: $(cat "$tmp/err")"
		sed 's/^/    /' "$f"
	fi
done

# the bad-file message the docs show for lossy.ini with loss = 1.5
lossy=$(grep -l '^# lossy.ini' "$tmp"/ex*.ini | head -n 1)
want=$(grep -m 1 "^roce-gen: --scenario lossy.ini:" "$src/docs/roce-gen.md")
if [ -n "$lossy" ] && [ -n "$want" ]; then
	sed 's/^loss = .*/loss = 1.5/' "$lossy" > "$tmp/lossy.ini"
	(cd "$tmp" && "$rg" --scenario lossy.ini -q > /dev/null 2> "$tmp/err")
	rc=$?
	[ $rc -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] && ok ||
		bad "bad lossy.ini: exit $rc, printed '$(cat "$tmp/err")', docs say '$want'"
else
	bad "docs/roce-gen.md: no lossy.ini example or no message for it"
fi

# README.md's quoted roce-analyze report
awk '/^\$ roce-analyze captures\/rocev2_write_loss.pcap$/ { on = 1; next }
	on && /^```/ { exit } on { print }' "$src/README.md" > "$tmp/readme.txt"
[ "$(wc -l < "$tmp/readme.txt")" -ge 10 ] && ok || bad "README.md: no quoted report"
(cd "$src" && "$ra" captures/rocev2_write_loss.pcap) > "$tmp/report.txt"
while IFS= read -r line; do
	[ "$line" = ... ] && continue
	pre=${line% ...}
	if [ "$pre" != "$line" ]; then
		grep -qF -- "$pre" "$tmp/report.txt"
	else
		grep -qxF -- "$line" "$tmp/report.txt"
	fi && ok || bad "README.md line not in the report: $line"
done < "$tmp/readme.txt"
finish
