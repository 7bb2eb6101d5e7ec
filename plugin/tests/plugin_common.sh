# SPDX-License-Identifier: GPL-2.0-or-later
# Shared set-up for tests/cli/plugin_*.sh (sourced, not a test by itself).
#
# tshark ignores WIRESHARK_PLUGIN_DIR and the personal plugin folder when it
# runs as root (started_with_special_privs()), and CI runs as root: so the
# tests run tshark as an unprivileged user with a temporary HOME whose
# ~/.local/lib/wireshark/plugins/<X.Y>/epan/ holds the freshly built roce.so.
#
# Provides: BUILD SRC T (temp dir, removed on exit) XY SO GEN ANALYZE, gen_facts OUT,
#           ts ARGS...  (tshark as the test user), fail MSG, ok MSG, FAILS.

BUILD=${1:?usage: $0 BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: $0 BUILD_DIR SOURCE_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$SRC" && pwd)

skip() { echo "SKIP: $*"; exit 77; }

command -v tshark >/dev/null 2>&1 || skip "tshark not installed"
SO=$(ls "$BUILD"/wireshark-plugins/*/epan/roce.so 2>/dev/null | head -n 1)
[ -n "$SO" ] && [ -f "$SO" ] || skip "plugin not built ($BUILD/wireshark-plugins/X.Y/epan/roce.so)"
XY=$(basename "$(dirname "$(dirname "$SO")")")
# the known-facts capture comes from roce-gen and plugin/tests/plugin_facts.ini
GEN=$BUILD/cli/roce-gen
gen_facts() { "$GEN" --scenario "$SRC/plugin/tests/plugin_facts.ini" -w "$1" -q; }
ANALYZE=$BUILD/cli/roce-analyze
[ -x "$ANALYZE" ] || ANALYZE=

TS_VER=$(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$TS_VER" ] && [ "$TS_VER" != "$XY" ] && skip "plugin built for Wireshark $XY, tshark is $TS_VER"

T=$(mktemp -d "${TMPDIR:-/tmp}/roce-plugin-test.XXXXXX")
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
chmod 755 "$T"
mkdir -p "$T/home/.local/lib/wireshark/plugins/$XY/epan" "$T/work"
cp "$SO" "$T/home/.local/lib/wireshark/plugins/$XY/epan/roce.so"

TEST_USER=
if [ "$(id -u)" = 0 ]; then
	TEST_USER=${ROCE_TEST_USER:-rocetest}
	if ! id "$TEST_USER" >/dev/null 2>&1; then
		useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$TEST_USER" 2>/dev/null ||
			skip "cannot create the unprivileged user $TEST_USER"
	fi
	chown -R "$TEST_USER" "$T/home" "$T/work"
fi
chmod -R a+rX "$T"

# tshark as the unprivileged user, with the temporary HOME (personal plugins
# and a pristine preferences folder).
ts() {
	if [ -n "$TEST_USER" ]; then
		runuser -u "$TEST_USER" -- env -i PATH="$PATH" HOME="$T/home" LC_ALL=C tshark "$@"
	else
		env HOME="$T/home" LC_ALL=C tshark "$@"
	fi
}

FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

# Every roce.* field and expert field the plugin registers.
roce_fields() {
	ts -G fields 2>/dev/null | awk -F'\t' '($1 == "F" || $1 == "E") && $3 ~ /^roce\./ { print $3 }' | sort -u
}

# -e arguments for all roce fields (frame.number first).
roce_field_args() {
	printf -- '-e\nframe.number\n'
	roce_fields | while read -r f; do printf -- '-e\n%s\n' "$f"; done
}
