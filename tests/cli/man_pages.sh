#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# man_pages.sh - every tool has a man page, every man page renders without a groff warning
# (man --warnings, with the default and with all warnings) and has the sections of
# docs/STYLE.md, and every program that `cmake --install` puts into bin/ has its man page in
# share/man/man1 beside it.
set -u
build=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
command -v man >/dev/null || { echo "SKIP: man (man-db) not installed"; exit 77; }
list=$build/roce-tools.list
[ -f "$list" ] || { echo "SKIP: no tools in this build"; exit 77; }
tools=$(awk -F'\t' '$1 != "man" { print $1 }' "$list")
pages=$(awk -F'\t' '$1 == "man" { print $2 }' "$list")
[ -n "$tools" ] || { echo "SKIP: no tools in this build"; exit 77; }

for t in $tools; do
	check test -n "$(printf '%s\n' $pages | grep "/$t\.1$")"
done
for p in $pages; do
	for w in "" "=all"; do
		LC_ALL=C MANWIDTH=80 man --warnings$w -l "$p" >"$tmp/out" 2>"$tmp/err"
		if [ -s "$tmp/err" ]; then
			bad "man --warnings$w $(basename "$p"):"
			sed 's/^/    /' "$tmp/err"
		else
			ok
		fi
	done
	check test "$(wc -l <"$tmp/out")" -gt 20
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO" BUGS; do
		grep -q "^$sec\$" "$tmp/out" || bad "$(basename "$p"): no $sec section"
	done
	# no words run together: an alternating macro (.BR a b c d) with plain words among its
	# arguments drops their spaces (roce-gen.1 once printed "roce-analyze);thepacketswapped")
	LC_ALL=C MANWIDTH=200 man -l "$p" 2>/dev/null |
		grep -oE '[^[:space:]]{48,}' >"$tmp/long"
	[ ! -s "$tmp/long" ] && ok || bad "$(basename "$p"): words run together: $(cat "$tmp/long")"
	# NAME line: "tool - summary", the tool named like the file
	name=$(basename "$p" .1)
	check grep -Eq "^ +$name +- " "$tmp/out"
done

# installed tree: a man page for every program
DESTDIR=$tmp/root cmake --install "$build" --prefix /usr/local >/dev/null 2>&1 || bad "cmake --install"
for b in "$tmp"/root/usr/local/bin/*; do
	[ -e "$b" ] || continue
	n=$(basename "$b")
	if [ -f "$tmp/root/usr/local/share/man/man1/$n.1" ] || [ -f "$tmp/root/usr/local/share/man/man1/$n.1.gz" ]; then
		ok
	else
		bad "bin/$n is installed without share/man/man1/$n.1"
	fi
done
check test -n "$(ls "$tmp"/root/usr/local/bin/ 2>/dev/null)"
finish
