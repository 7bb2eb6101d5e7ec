# SPDX-License-Identifier: GPL-2.0-or-later
# testlib.sh - sourced by the tool tests in tests/cli: a temporary directory removed on
# exit, pass/fail counters and the closing line.
#   ok                count a passed check
#   bad MESSAGE...    count a failed check, print "FAIL: MESSAGE"
#   check CMD...      run CMD: ok if it succeeds, bad otherwise
#   finish            print "N passed, M failed"; status 0 only when nothing failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { if "$@"; then ok; else bad "$*"; fi; }
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
