#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install_pkgconfig.sh - `cmake --install` lays out libroce (archive, headers, libroce.pc)
# so that a program outside the tree builds against it with pkg-config alone.
set -u
build=$1
command -v pkg-config >/dev/null && command -v cc >/dev/null || { echo "SKIP: no pkg-config/cc"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

DESTDIR=$tmp/root cmake --install "$build" --prefix /opt/roce >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
for f in lib/libroce.a lib/pkgconfig/libroce.pc include/roce/roce.h include/roce/pkt.h \
         include/roce/opcodes.def include/roce/anomalies.def include/roce/analyzer.h include/roce/build.h; do
	check test -f "$tmp/root/opt/roce/$f"
done
cat > "$tmp/use.c" <<'C'
#include <roce/build.h>
#include <roce/icrc.h>
#include <roce/pkt.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct roce_frame_spec s;
	struct roce_pkt p;
	unsigned char buf[256];
	size_t len;
	roce_frame_spec_init(&s);
	if (roce_build(&s, buf, sizeof buf, &len) != ROCE_OK)
		return 1;
	if (roce_decode(ROCE_LINKTYPE_ETHERNET, buf, len, len, NULL, &p) != ROCE_OK)
		return 1;
	printf("%s %s\n", roce_opcode_name(p.bth.opcode), p.icrc_status == ROCE_ICRC_OK ? "ok" : "bad");
	return 0;
}
C
export PKG_CONFIG_PATH=$tmp/root/opt/roce/lib/pkgconfig
flags=$(pkg-config --cflags --libs --static libroce) || { echo "FAIL: pkg-config libroce"; exit 1; }
# a sanitizer build's archive needs the sanitizer runtimes at link time
san=""
grep -q '^ROCE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
cc_bin=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
check "${cc_bin:-cc}" -std=c11 $san -o "$tmp/use" "$tmp/use.c" $flags
check test "$("$tmp/use")" = "RC_SEND_ONLY ok"
finish
