#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install_pkgconfig.sh - `cmake --install` keeps everything under the prefix (the Wireshark
# plugin too, in <prefix>/lib/wireshark/plugins/X.Y/epan), DESTDIR staging works, and a
# program outside the tree builds against the installed libroce with exactly the README's
# commands, against the shared library and against the static archive, and runs.
set -u
build=$1 src=$2
command -v pkg-config >/dev/null && command -v cc >/dev/null || { echo "SKIP: no pkg-config/cc"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
shared=no
[ -e "$build/lib/libroce.so" ] && shared=yes
plugin=$(ls "$build"/wireshark-plugins/*/epan/roce.so 2>/dev/null | head -n 1)
sys_plugin=$(ls /usr/lib/*/wireshark/plugins/*/epan/roce.so /usr/lib/wireshark/plugins/*/epan/roce.so \
	2>/dev/null | head -n 1)

# 1. DESTDIR staging: every file under DESTDIR/prefix, nothing elsewhere
DESTDIR=$tmp/root cmake --install "$build" --prefix /opt/roce >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
P=$tmp/root/opt/roce
outside=$(cd "$tmp/root" && find . ! -type d ! -path './opt/roce/*')
check test -z "$outside"
[ -z "$outside" ] || echo "  outside the prefix: $outside"
for f in "$libdir/libroce.a" "$libdir/pkgconfig/libroce.pc" include/roce/roce.h include/roce/pkt.h \
         include/roce/version.h include/roce/opcodes.def include/roce/anomalies.def include/roce/analyzer.h include/roce/build.h \
         bin/roce-analyze share/man/man1/roce-analyze.1; do
	check test -f "$P/$f"
done
if [ "$shared" = yes ]; then
	check test -f "$P/$libdir/libroce.so.$version"
	check test "$(readlink "$P/$libdir/libroce.so.${version%%.*}")" = "libroce.so.$version"
	check test -L "$P/$libdir/libroce.so"
fi
if [ -n "$plugin" ]; then
	xy=$(basename "$(dirname "$(dirname "$plugin")")")
	if grep -q '^ROCE_PLUGIN_SYSTEM_DIR:BOOL=ON' "$build/CMakeCache.txt"; then
		echo "note: ROCE_PLUGIN_SYSTEM_DIR=ON, the plugin goes to Wireshark's folder"
	else
		check test -f "$P/$libdir/wireshark/plugins/$xy/epan/roce.so"
	fi
fi

# 2. cmake --install --prefix P (no DESTDIR): nothing lands outside P, not even the plugin
cmake --install "$build" --prefix "$tmp/p" >"$tmp/install2.log" 2>&1 || bad "cmake --install --prefix"
check test -x "$tmp/p/bin/roce-analyze"
check cmp -s "$P/$libdir/libroce.a" "$tmp/p/$libdir/libroce.a"
if ! grep -q '^ROCE_PLUGIN_SYSTEM_DIR:BOOL=ON' "$build/CMakeCache.txt"; then
	check test -z "$(grep -v "$tmp/p/" "$tmp/install2.log" | grep -E 'Installing|Up-to-date')"
	now_sys=$(ls /usr/lib/*/wireshark/plugins/*/epan/roce.so /usr/lib/wireshark/plugins/*/epan/roce.so \
		2>/dev/null | head -n 1)
	check test "$now_sys" = "$sys_plugin"
fi

# 3. the README's commands, verbatim (cc replaced by this build's compiler + sanitizer flags)
readme_line() { grep -m1 -- "$1" "$src/README.md"; }
cc_shared=$(grep -- '^cc -o use use.c' "$src/README.md" | sed -n 1p)
run_shared=$(readme_line '^LD_LIBRARY_PATH=.* ./use$')
cc_static=$(grep -- '^cc -o use use.c' "$src/README.md" | sed -n 2p)
check test -n "$cc_shared"
check test -n "$run_shared"
check test -n "$cc_static"
case "$cc_shared" in *"pkg-config --cflags --libs libroce"*) ok ;; *) bad "README shared command: $cc_shared" ;; esac
case "$cc_static" in *"--static --libs libroce"*) ok ;; *) bad "README static command: $cc_static" ;; esac

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
	printf("%s %s %s\n", roce_opcode_name(p.bth.opcode),
	       p.icrc_status == ROCE_ICRC_OK ? "ok" : "bad", ROCE_VERSION_STRING);
	return 0;
}
C
export PKG_CONFIG_PATH=$P/$libdir/pkgconfig
check test "$(pkg-config --modversion libroce)" = "$version"
check test "$(pkg-config --variable=libdir libroce)" -ef "$P/$libdir"
# a sanitizer build's objects need the sanitizer runtimes at link time
san=""
grep -q '^ROCE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
cc_bin=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
mycc() { "${cc_bin:-cc}" $san "$@"; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
want="RC_SEND_ONLY ok $version"
cd "$tmp"
if [ "$shared" = yes ]; then
	rm -f use
	if eval "mycc ${cc_shared#cc }"; then
		ok
		check test -n "$(needed use | grep -x 'libroce.so.0')"
		out=$(eval "$run_shared")
		check test "$out" = "$want"
		# without the README's LD_LIBRARY_PATH the prefix's library is not found
		check test -z "$(env -u LD_LIBRARY_PATH ./use 2>/dev/null)"
		# the README's alternative: an rpath to pkg-config's libdir
		if grep -q -- '-Wl,-rpath,$(pkg-config --variable=libdir libroce)' "$src/README.md"; then
			rm -f use
			eval "mycc ${cc_shared#cc } -Wl,-rpath,\$(pkg-config --variable=libdir libroce)"
			check test "$(env -u LD_LIBRARY_PATH ./use)" = "$want"
		else
			bad "README no longer names the rpath alternative"
		fi
	else
		bad "README shared build: $cc_shared"
	fi
else
	echo "note: no shared libroce in this build, the shared recipe is not tried"
fi
rm -f use
if eval "mycc ${cc_static#cc }"; then
	ok
	check test -z "$(needed use | grep '^libroce')"
	check test "$(env -u LD_LIBRARY_PATH ./use)" = "$want"
else
	bad "README static build: $cc_static"
fi
# the installed analyzer.h in an outside C11 program, warnings as errors: the shared
# counters read under both names (s.psn_gaps, s.counters.psn_gaps), anomalies.def expands
cat > "$tmp/an.c" <<'C'
#include <roce/analyzer.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct roce_summary sum;

	memset(&sum, 0, sizeof sum);
	sum.psn_gaps = 2;
	if (sum.counters.psn_gaps != 2 || roce_anomaly_count(&sum, ROCE_AN_PSN_GAP) != 2)
		return 1;
	printf("%s %s %d\n", roce_anomaly_name(ROCE_AN_PSN_GAP), roce_event_name(ROCE_EV_ACK_RTT),
	       ROCE_AN_COUNT);
	return 0;
}
C
rm -f an
# (linked like the README's static recipe: -lroce alone would pick libroce.so, not on the
# loader's path here)
if mycc -std=c11 -Wall -Wextra -pedantic -Werror -o an an.c $(pkg-config --cflags libroce) \
		-l:libroce.a -Wl,--as-needed $(pkg-config --static --libs libroce); then
	ok
	check test "$(./an)" = "psn_gap ack_rtt 14"
else
	bad "an outside program using analyzer.h does not build with -Wall -Wextra -pedantic -Werror"
fi
# fully static (cc -static): only where every dependency has a static archive
if [ -z "$san" ] && ! grep -q -- '-lisal' <(pkg-config --static --libs libroce); then
	rm -f use
	check mycc -static -o use use.c $(pkg-config --cflags --libs --static libroce)
	check test "$(./use)" = "$want"
else
	echo "note: no fully static link (ISA-L has no static archive on Debian, or a sanitizer build)"
fi
finish
