#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lib_exports.sh - libroce.so exports exactly the public API: every defined dynamic symbol
# (nm -D --defined-only) is a roce_* function or object declared ROCE_API in a public header
# (lib/include/roce/*.h), every such declaration is exported, nothing internal leaks
# (an_* helpers, static-library internals, CRC provider symbols), and the soname is
# libroce.so.<major of the project version>.
set -u
build=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
command -v nm >/dev/null && command -v readelf >/dev/null || { echo "SKIP: no binutils"; exit 77; }
so=$build/lib/libroce.so
[ -e "$so" ] || { echo "SKIP: no shared libroce in this build (ROCE_BUILD_SHARED=OFF or a fuzz build)"; exit 77; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
major=${version%%.*}

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check test "$soname" = "libroce.so.$major"
check test -e "$build/lib/libroce.so.$version"

# Declared API: the identifier right before the first '(' or '[' after ROCE_API.
grep -hv "^#" "$src"/lib/include/roce/*.h | tr '\n' ' ' | grep -o 'ROCE_API [^;(\[{]*[(\[]' |
	sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) *[(\[]$/\1/' | sort -u >"$tmp/declared"
nm -D --defined-only "$so" | awk '{ print $3 }' | sort -u >"$tmp/exported"

check test "$(wc -l <"$tmp/declared")" -ge 30
if ! diff -u "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
	bad "exported symbols differ from the ROCE_API declarations (- declared only, + exported only):"
	grep '^[-+][a-z_A-Z]' "$tmp/diff"
else
	ok
fi
leaks=$(grep -v '^roce_' "$tmp/exported")
check test -z "$leaks"
[ -z "$leaks" ] || echo "  not roce_*: $leaks"
# the archive does hold internal global symbols; they must stay out of the .so
nm --defined-only "$build/lib/libroce.a" 2>/dev/null | awk '$2 ~ /^[TDRB]$/ { print $3 }' |
	grep -v '^roce_' | sort -u >"$tmp/internal"
echo "internal global symbols in libroce.a: $(wc -l <"$tmp/internal") (e.g. $(head -n 2 "$tmp/internal" | tr '\n' ' '))"
check test -z "$(comm -12 "$tmp/internal" "$tmp/exported")"
# a program can call the API through the shared library alone
cat >"$tmp/v.c" <<'C'
#include <roce/roce.h>
#include <stdio.h>
int main(void) { puts(roce_version()); return 0; }
C
cc_bin=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
san=""
grep -q '^ROCE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=address,undefined"
check "${cc_bin:-cc}" $san -I"$src/lib/include" -I"$build/lib/include" -o "$tmp/v" "$tmp/v.c" \
	-L"$build/lib" -lroce
check test "$(LD_LIBRARY_PATH=$build/lib "$tmp/v")" != ""
case "$(LD_LIBRARY_PATH=$build/lib "$tmp/v")" in
"libroce $version "*) ok ;;
*) bad "roce_version() does not start with libroce $version" ;;
esac
finish
