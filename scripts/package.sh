#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# package.sh - build the Debian packages with CPack.
#
#   scripts/package.sh [BUILD_DIR] [extra cmake args...]
#
# Installs what is missing and configures BUILD_DIR (default ./out/pkg) for the packages:
# prefix /usr, the plugin in Wireshark's own plugin folder, gzip'd man pages, copyright
# files (-DROCE_PACKAGING=ON), no tests; builds it and runs `cpack -G DEB`.  Writes
#   BUILD_DIR/packages/libroce0_<version>-1_<arch>.deb
#   BUILD_DIR/packages/libroce-dev_<version>-1_<arch>.deb
#   BUILD_DIR/packages/roce-tools_<version>-1_<arch>.deb
#   BUILD_DIR/packages/wireshark-roce-plugin_<version>-1_<arch>.deb  (when wireshark-dev is there)
# and prints their paths.  Install them with `apt-get install ./BUILD_DIR/packages/*.deb`.
# Exit status: 0 on success, non-zero when a step failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/out/pkg}
shift || true

"$here/scripts/setup.sh" "$build" -DCMAKE_INSTALL_PREFIX=/usr -DROCE_PACKAGING=ON \
	-DROCE_BUILD_TESTS=OFF "$@" >&2
build=$(cd "$build" && pwd)
rm -rf "$build/packages"
(cd "$build" && cpack -G DEB >"$build/cpack.log" 2>&1) || { cat "$build/cpack.log" >&2; exit 1; }
ls "$build"/packages/*.deb
