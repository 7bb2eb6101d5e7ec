#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# setup.sh - install missing Debian packages, then configure and build.
#
#   scripts/setup.sh [BUILD_DIR] [extra cmake args...]
#
# Installs (as root, or through sudo) only what dpkg says is missing, so a
# second run on a prepared machine touches nothing.  BUILD_DIR defaults to
# ./build.  Exit status: 0 on success, non-zero when a step failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
shift || true

# Everything the build, the tests and the benchmarks use.
pkgs=(build-essential cmake pkg-config ca-certificates
      zlib1g-dev libzstd-dev liblz4-dev libisal-dev libglib2.0-dev libpcap-dev
      wireshark-dev tshark wireshark-common tcpreplay
      libxdp-dev libbpf-dev netsniff-ng tcpdump
      clang libclang-rt-14-dev python3 gzip zstd lz4 bc iproute2 procps util-linux
      dpkg-dev file locales man-db groff-base debootstrap curl prometheus libmicrohttpd-dev systemd
      chromium wireshark-qt xvfb xauth xdotool xclip x11-utils)

missing=()
for p in "${pkgs[@]}"; do
	# a package waiting for a trigger (man-db) is installed too
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -Eq 'install ok (installed|triggers-pending|triggers-awaited)'; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer for it.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections || true
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$jobs"
