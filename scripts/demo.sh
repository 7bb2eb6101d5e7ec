#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - install what is missing, build, and run roce-analyze on a bundled capture.
#
#   scripts/demo.sh [roce-analyze options...]
#
# Defaults to the sample with a loss / NAK / go-back-N episode, ECN CE, CNPs and a bad ICRC.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh" "$here/out/main" >/dev/null
cd "$here"
if (($#)); then
	exec out/main/cli/roce-analyze "$@"
fi
exec out/main/cli/roce-analyze captures/rocev2_write_loss.pcap
