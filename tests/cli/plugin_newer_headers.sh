#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compile plugin/packet-roce.c and plugin/roce-stats.c against newer Wireshark headers than the
# installed ones (Debian trixie = 4.4, sid = 4.6 at the time of writing),
# fetched from Debian's own mirror with a private apt configuration: the
# system's packages and apt state are not touched.
#   plugin_newer_headers.sh BUILD_DIR SOURCE_DIR      (exit 77 = skipped)
#
# Opt-in, because it downloads ~20 MB of package lists: it runs only with
# ROCE_TEST_NEWER_HEADERS=1 (suites: ROCE_TEST_NEWER_SUITES, default
# "trixie sid"), or with ROCE_WS_HEADERS=DIR[:DIR...] pointing at already
# extracted header trees (DIR/usr/include/wireshark).  It skips (77) when
# neither is set, or when the mirror cannot be reached.
set -u
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
BLD=$(cd "$1" && pwd)
MIRROR=${ROCE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
skip() { echo "SKIP: $*"; exit 77; }

command -v cc >/dev/null 2>&1 || skip "no C compiler"
GLIB=$(pkg-config --cflags glib-2.0 2>/dev/null) || skip "glib-2.0 development files missing"

T=$(mktemp -d "${TMPDIR:-/tmp}/roce-ws-headers.XXXXXX")
trap 'rm -rf "$T"' EXIT
ROOTS=()
if [ -n "${ROCE_WS_HEADERS-}" ]; then
	IFS=: read -r -a ROOTS <<<"$ROCE_WS_HEADERS"
elif [ "${ROCE_TEST_NEWER_HEADERS-}" = 1 ]; then
	command -v apt-get >/dev/null 2>&1 || skip "apt-get not available"
	command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not available"
	A=$T/apt
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/prefs.d" "$A/debs"
	: >"$A/sources.list"
	for s in ${ROCE_TEST_NEWER_SUITES:-trixie sid}; do
		echo "deb $MIRROR $s main" >>"$A/sources.list"
	done
	cat >"$A/apt.conf" <<-EOF
	Dir::Etc::sourcelist "$A/sources.list";
	Dir::Etc::sourceparts "-";
	Dir::Etc::preferencesparts "$A/prefs.d";
	Dir::State::Lists "$A/lists";
	Dir::State::status "/var/lib/dpkg/status";
	Dir::Cache "$A/cache";
	Dir::Cache::archives "$A/cache/archives";
	Acquire::Retries "0";
	Acquire::http::Timeout "20";
	APT::Sandbox::User "root";
	EOF
	export APT_CONFIG=$A/apt.conf
	timeout 300 apt-get -q update >"$T/update.log" 2>&1 || { tail -3 "$T/update.log"; skip "cannot reach $MIRROR"; }
	grep -q '^Err' "$T/update.log" && { grep '^Err' "$T/update.log" | head -3; skip "cannot reach $MIRROR"; }
	for v in $(apt-cache madison libwireshark-dev 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u); do
		r=$T/ws-$v
		mkdir -p "$r" "$A/debs/$v"
		(cd "$A/debs/$v" && timeout 300 apt-get -q download "libwireshark-dev=$v" "libwsutil-dev=$v" \
			"libwiretap-dev=$v" "wireshark-dev=$v" >"$T/download-$v.log" 2>&1) ||
			{ tail -3 "$T/download-$v.log"; skip "cannot download the $v headers"; }
		for d in "$A/debs/$v"/*.deb; do dpkg-deb -x "$d" "$r"; done
		ROOTS+=("$r")
	done
	[ ${#ROOTS[@]} -gt 0 ] || skip "no libwireshark-dev in ${ROCE_TEST_NEWER_SUITES:-trixie sid}"
else
	skip "set ROCE_TEST_NEWER_HEADERS=1 (downloads from $MIRROR) or ROCE_WS_HEADERS=DIR"
fi

# The plugin's own compile flags (plugin/CMakeLists.txt and the top level).
FLAGS=(-std=c11 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Wshadow -Wstrict-prototypes
	-Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers -Werror)
FAILS=0
for r in "${ROOTS[@]}"; do
	inc=$r/usr/include/wireshark
	[ -f "$inc/ws_version.h" ] || { echo "FAIL: $inc/ws_version.h missing"; FAILS=$((FAILS + 1)); continue; }
	ver=$(awk '/define WIRESHARK_VERSION_(MAJOR|MINOR|MICRO)/ { printf "%s%s", s, $3; s = "." }' "$inc/ws_version.h")
	# shellcheck disable=SC2086
	if cc "${FLAGS[@]}" -c -o "$T/roce-$ver.o" -DPLUGIN_VERSION='"test"' -I"$SRC/lib/include" -I"$BLD/lib/include" \
			-isystem "$inc" $GLIB "$SRC/plugin/packet-roce.c" 2>"$T/cc-$ver.log" &&
		cc "${FLAGS[@]}" -c -o "$T/stats-$ver.o" -I"$SRC/lib/include" -I"$BLD/lib/include" \
			-isystem "$inc" $GLIB "$SRC/plugin/roce-stats.c" 2>>"$T/cc-$ver.log"; then
		syms=$(nm "$T/roce-$ver.o" | awk '$2 ~ /^[TDR]$/ && $3 ~ /^(plugin_|wireshark_load_module)/ { print $3 }' | sort | tr '\n' ' ')
		echo "ok: compiles against Wireshark $ver headers; entry points: $syms"
		case " $syms " in
		*" plugin_register "*|*" wireshark_load_module "*) ;;
		*) echo "FAIL: $ver: no plugin entry point"; FAILS=$((FAILS + 1)) ;;
		esac
	else
		echo "FAIL: does not compile against Wireshark $ver headers:"
		head -20 "$T/cc-$ver.log" | sed 's/^/    /'
		FAILS=$((FAILS + 1))
	fi
done
[ "$FAILS" -eq 0 ] || exit 1
exit 0
