#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# man_options.sh - for each tool, the options --help lists and the options its man page
# documents (the tags of its .TP entries) are the same set, short and long; and the tools
# follow the conventions of tcpdump and tcpreplay: --help, -h, --version and -V exit 0
# with their text on stdout and nothing on stderr; an unknown option or a missing value
# exits 2 with one line on stderr naming the option, then the --help hint.
set -u
build=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

n=0
for t in roce-analyze roce-gen roce-replay; do
	bin=$build/cli/$t man=$src/docs/man/$t.1
	[ -x "$bin" ] || continue
	n=$((n + 1))
	[ -f "$man" ] || { bad "$t: no man page $man"; continue; }

	# --help-all: the option lines ("  -c, --count=N   text", "  --json   text")
	"$bin" --help-all > "$tmp/help" 2> "$tmp/err"
	[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "$t --help-all: exit or stderr"
	sed -nE 's/^ +((-[a-zA-Z]), )?(--[a-z0-9-]+).*/\2 \3/p' "$tmp/help" | tr ' ' '\n' |
		grep -v -e '^$' -e '^--help-all$' | sort -u > "$tmp/help.opts"
	# the man page: the options named in the tag line of every .TP entry
	awk '/^\.TP/ { getline; print }' "$man" |
		grep -oE -- '\\-(\\-[a-z0-9][a-z0-9\\-]*|[a-zA-Z])\b' | sed 's/\\//g' |
		sort -u > "$tmp/man.opts"
	[ "$(wc -l < "$tmp/help.opts")" -ge 10 ] && ok || bad "$t: --help lists too few options"
	for o in $(comm -23 "$tmp/help.opts" "$tmp/man.opts"); do
		bad "$t: --help lists $o, the man page's OPTIONS do not"
	done
	for o in $(comm -13 "$tmp/help.opts" "$tmp/man.opts"); do
		bad "$t: the man page documents $o, --help does not list it"
	done
	[ -z "$(comm -3 "$tmp/help.opts" "$tmp/man.opts")" ] && ok
	# every line of an option list is an option: glib wraps nothing, and a description
	# continued by hand (a "\n" in it) was indented like no other column
	awk '/Options:$/ { on = 1; next } /^$/ { on = 0 } on && !/^  -/' "$tmp/help" > "$tmp/cont"
	[ ! -s "$tmp/cont" ] && ok || bad "$t --help-all: lines that are no option: $(cat "$tmp/cont")"
	# the usage line in a UTF-8 locale: "[OPTION…]" (not "?", which glib prints when the
	# program left its locale unset), no word twice (roce-replay's said "FILE... FILE...")
	u=$(LC_ALL=C.UTF-8 "$bin" --help | sed -n 2p)
	case $u in "  $t [OPTION…]"*) ok ;; *) bad "$t --help: usage line: $u" ;; esac
	[ -z "$(tr ' ' '\n' <<<"$u" | grep -v '^$' | sort | uniq -d)" ] && ok ||
		bad "$t --help: a word twice in the usage line: $u"

	for o in --help -h --version -V; do
		"$bin" $o > "$tmp/out" 2> "$tmp/err"
		rc=$?
		[ $rc -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && ok ||
			bad "$t $o: exit $rc, stdout $(wc -c < "$tmp/out") bytes," \
			    "stderr: $(cat "$tmp/err")"
	done
	first=$(sed -n 1p "$tmp/out")
	[ "${first%% *}" = "$t" ] && ok || bad "$t -V: first line $first"

	# usage errors: exit 2, the option on the first line, the hint on the second, no more
	for args in "--no-such-option" "-c"; do
		"$bin" $args > "$tmp/out" 2> "$tmp/err"
		rc=$?
		opt=${args##* }
		if [ $rc -eq 2 ] && head -n 1 "$tmp/err" | grep -q -- "^$t: .*$opt" &&
		   [ "$(wc -l < "$tmp/err")" -le 2 ] && [ ! -s "$tmp/out" ]; then
			ok
		else
			bad "$t $args: exit $rc, stderr: $(cat "$tmp/err")"
		fi
	done
done
[ $n -gt 0 ] || { echo "SKIP: no tools built"; exit 77; }
finish
