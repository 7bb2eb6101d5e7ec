#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - set up (install missing packages), build and run every test.
#
#   scripts/test.sh            all configurations below
#   QUICK=1 scripts/test.sh    only the main build
#
# Configurations, each in its own build directory under ./out/:
#   main    RelWithDebInfo, -Werror, ISA-L CRC, CLI + Wireshark plugin
#   asan    ASan + UBSan, every unit and CLI test
#   zlib    built without ISA-L: the zlib CRC path
#   tsan    ThreadSanitizer (RelWithDebInfo): the unit tests and the threaded reader's tests
#   fuzz    clang + libFuzzer: each fuzz target runs briefly on its corpus
# Exit status: 0 when every configuration passed, 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$here/out
mkdir -p "$out"
failed=()
npass=0 nfail=0

run() { # name, then the command
	local name=$1; shift
	echo "=== $name: $*"
	if ! "$@"; then
		failed+=("$name")
		echo "=== $name: FAILED"
	fi
}

# ctest in a build dir; adds its counts to the totals printed at the end
ctest_in() {
	local dir=$1 log rc total bad
	shift
	log=$(mktemp)
	(cd "$dir" && ctest --output-on-failure "$@") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	read -r bad total < <(sed -n 's/.* tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 \2/p' "$log" | tail -n 1)
	rm -f "$log"
	if [ -n "${total:-}" ]; then
		npass=$((npass + total - bad))
		nfail=$((nfail + bad))
	elif [ "$rc" != 0 ]; then
		nfail=$((nfail + 1))
	fi
	return "$rc"
}

run main-build "$here/scripts/setup.sh" "$out/main" -DROCE_WERROR=ON
run main-test ctest_in "$out/main" -j2

if [ "${QUICK:-0}" != 1 ]; then
	run asan-build cmake -S "$here" -B "$out/asan" -DCMAKE_BUILD_TYPE=Debug \
		-DROCE_SANITIZE=ON -DROCE_BUILD_PLUGIN=OFF -DROCE_WERROR=ON
	run asan-make cmake --build "$out/asan" -j2
	# (the Debian package test runs once, in the main build: its packages are not sanitized)
	run asan-test ctest_in "$out/asan" -j2 -E '^fuzz_' -LE '^deb$'

	run zlib-build cmake -S "$here" -B "$out/zlib" -DCMAKE_BUILD_TYPE=Debug \
		-DROCE_WITH_ISAL=OFF -DROCE_BUILD_PLUGIN=OFF -DROCE_SANITIZE=ON -DROCE_WERROR=ON
	run zlib-make cmake --build "$out/zlib" -j2
	run zlib-test ctest_in "$out/zlib" -j2 -R '^test_'

	# ThreadSanitizer: roce-analyze --threads 2 (the capture reader's helper thread), its
	# read() reader of classic pcap and the unit tests; TSAN_OPTIONS makes any report fail
	# the test (exit 66)
	run tsan-build cmake -S "$here" -B "$out/tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DROCE_TSAN=ON -DROCE_BUILD_PLUGIN=OFF -DROCE_WERROR=ON
	run tsan-make cmake --build "$out/tsan" -j2
	# (tests/tsan.supp: the races that are part of a design, each with its reason)
	export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$here/tests/tsan.supp"
	run tsan-test ctest_in "$out/tsan" -j2 \
		-R '^test_|^cli_analyze_(threads|truncated|shrink_cut|read_buffer)$'
	unset TSAN_OPTIONS

	if command -v clang >/dev/null; then
		run fuzz-build env CC=clang cmake -S "$here" -B "$out/fuzz" -DCMAKE_BUILD_TYPE=Debug \
			-DROCE_BUILD_FUZZERS=ON -DROCE_SANITIZE=ON -DROCE_BUILD_PLUGIN=OFF
		run fuzz-make cmake --build "$out/fuzz" -j2
		run fuzz-test ctest_in "$out/fuzz" -R '^fuzz_'
	fi
fi

if ((${#failed[@]})); then
	echo "test.sh: FAILED: ${failed[*]}"
	echo "test.sh: $npass passed, $((nfail > 0 ? nfail : 1)) failed"
	exit 1
fi
echo "test.sh: all configurations passed"
echo "test.sh: $npass passed, $nfail failed"
