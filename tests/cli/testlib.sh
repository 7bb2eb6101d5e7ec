# SPDX-License-Identifier: GPL-2.0-or-later
# testlib.sh - sourced by the tool tests in tests/cli: a temporary directory removed on
# exit, pass/fail counters and the closing line.
#   ok                count a passed check
#   bad MESSAGE...    count a failed check, print "FAIL: MESSAGE"
#   check CMD...      run CMD: ok if it succeeds, bad otherwise
#   have_promtool     true if promtool is installed, otherwise a failed check (scripts/setup.sh
#                     installs it: the checks it makes must not skip silently)
#   finish            print "N passed, M failed"; status 0 only when nothing failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { if "$@"; then ok; else bad "$*"; fi; }
have_promtool() {
	command -v promtool > /dev/null && return 0
	bad "promtool not installed (scripts/setup.sh installs Debian's prometheus)"
	return 1
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
