#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# version_agree.sh - the one version number of the top CMakeLists.txt is what <roce/version.h>,
# libroce (roce_version() and the soname file), libroce.pc, every tool's --version, every man
# page's footer, the Wireshark plugin's `tshark -G plugins` line and the Debian packages
# (CPack configuration) say.
# As root, tshark runs as the unprivileged system user `rocetest` (ROCE_TEST_USER overrides),
# created if missing (useradd -r, no home, nologin) and deliberately left in place: the
# plugin tests (plugin/tests/plugin_common.sh) use the same user and may run at the same
# time under ctest -j, so removing it at exit could pull it from under them.  Remove it
# by hand with `userdel rocetest` when no test runs.
set -u
build=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
build=$(cd "$build" && pwd)
V=$(sed -n 's/^project(roce-tools VERSION \([0-9][0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
echo "version: ${V:-none}"
check test -n "$V"
check test "$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")" = "$V"
check grep -qx "#define ROCE_VERSION_STRING \"$V\"" "$build/lib/include/roce/version.h"
check grep -qx "Version: $V" "$build/lib/libroce.pc"
if [ -e "$build/lib/libroce.so" ]; then
	check test -e "$build/lib/libroce.so.$V"
fi
# no other hard-coded version string in the sources
stray=$(grep -rn --include='*.[ch]' -E 'VERSION(_STRING)? +"[0-9]+\.[0-9]+\.[0-9]+"' \
	"$src/lib" "$src/cli" "$src/plugin" 2>/dev/null)
check test -z "$stray"
[ -z "$stray" ] || echo "  $stray"

list=$build/roce-tools.list
if [ -f "$list" ]; then
	while IFS=$'\t' read -r name path; do
		if [ "$name" = man ]; then
			th=$(grep -m1 '^\.TH ' "$path")
			case "$th" in *"\"roce-tools $V\""*) ok ;; *) bad "$(basename "$path"): $th" ;; esac
			continue
		fi
		out=$("$path" --version 2>&1)
		first=$(printf '%s\n' "$out" | head -n 1)
		case "$first" in "$name $V "*|"$name $V") ok ;; *) bad "$name --version: $first" ;; esac
		# the library line: the tool runs the libroce of the same version
		check grep -q "^libroce $V " <<<"$out"
	done <"$list"
	check test "$(grep -cv '^man' "$list")" -ge 1
fi

# the plugin, as tshark lists it (as an unprivileged user: tshark as root ignores plugin folders)
so=$(ls "$build"/wireshark-plugins/*/epan/roce.so 2>/dev/null | head -n 1)
if [ -n "$so" ] && command -v tshark >/dev/null; then
	xy=$(basename "$(dirname "$(dirname "$so")")")
	mkdir -p "$tmp/plugins/$xy/epan" "$tmp/home"
	cp "$so" "$tmp/plugins/$xy/epan/"
	chmod -R a+rX "$tmp"
	chmod 755 "$tmp"
	user=()
	if [ "$(id -u)" = 0 ]; then
		u=${ROCE_TEST_USER:-rocetest}
		id "$u" >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$u" 2>/dev/null
		user=(runuser -u "$u" --)
	fi
	line=$("${user[@]}" env -i PATH="$PATH" HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" \
		tshark -G plugins 2>&1 | grep -E '^roce\.so[[:space:]]')
	echo "tshark -G plugins: $line"
	check test "$(awk '{ print $2 }' <<<"$line")" = "$V"
else
	echo "note: plugin or tshark not there, the plugin's version is not checked"
fi

# the Debian packages: CPack's version, and the package files when built (scripts/package.sh)
if [ -f "$build/CPackConfig.cmake" ]; then
	check grep -q "^set(CPACK_PACKAGE_VERSION \"$V\")" "$build/CPackConfig.cmake"
fi
for d in "$build"/packages/*.deb; do
	[ -e "$d" ] || continue
	dv=$(dpkg-deb -f "$d" Version)
	case "$dv" in "$V"-*) ok ;; *) bad "$(basename "$d"): Version $dv" ;; esac
done
finish
