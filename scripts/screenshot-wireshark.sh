#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# screenshot-wireshark.sh - regenerate docs/img/wireshark-roce.png, the screenshot of
# Wireshark's GUI with the plugin's "RoCE Analysis" tree expanded on the PSN-gap frame.
#
#   scripts/screenshot-wireshark.sh [BUILD_DIR [OUT.png]]
#
# BUILD_DIR defaults to out/main (build it first: cmake --build out/main), OUT.png to
# docs/img/wireshark-roce.png. It generates the sample capture with
# roce-gen and plugin/tests/plugin_facts.ini, starts its own Xvfb (1280x960, first free display), runs
# wireshark with the freshly built roce.so in a temporary HOME (as the unprivileged user
# rocetest when run as root: Wireshark ignores personal plugins for root), opens the capture
# with a display filter listing the analysis events, selects the PSN-gap frame, expands the
# roce subtree with the keyboard (xdotool) and grabs the screen (ImageMagick import).
# An on-demand docs tool, not a test. Exits 77 when Xvfb, wireshark, xdotool or ImageMagick
# is missing or the plugin is not built. Leaves no process or temporary file behind.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$here/out/main}
OUT=${2:-$here/docs/img/wireshark-roce.png}
W=1280
H=960
FRAME=15 # the PSN gap (expected 107, got 110) in the "facts" capture
FILTER='roce.analysis.psn_gap || roce.analysis.nak || roce.analysis.retransmission || roce.icrc.status == 2 || roce.analysis.cnp || roce.analysis.ecn_ce || roce.pfc.storm'

skip() { echo "SKIP: $*" >&2; exit 77; }
die() { echo "screenshot-wireshark: $*" >&2; exit 1; }

for tool in Xvfb wireshark xdotool import convert; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || skip "no build directory ${1:-$here/out/main}"
SO=$(ls "$BUILD"/wireshark-plugins/*/epan/roce.so 2>/dev/null | head -n 1)
[ -n "$SO" ] && [ -f "$SO" ] || skip "plugin not built ($BUILD/wireshark-plugins/X.Y/epan/roce.so)"
XY=$(basename "$(dirname "$(dirname "$SO")")")
GEN=$BUILD/cli/roce-gen
[ -x "$GEN" ] || skip "capture generator not built ($GEN)"
WS_VER=$(wireshark --version 2>/dev/null | sed -n '1s/.*Wireshark \([0-9]*\.[0-9]*\).*/\1/p')
[ -z "$WS_VER" ] || [ "$WS_VER" = "$XY" ] || skip "plugin built for Wireshark $XY, wireshark is $WS_VER"

T=
XVFB_PID=
WS_PID=
cleanup() {
	local pid pids=
	# wireshark itself (a child of runuser when run as root), then runuser, then Xvfb.
	if [ -n "$WS_PID" ]; then pids="$(pgrep -P "$WS_PID" 2>/dev/null | tr '\n' ' ')"; fi
	pids="$pids $WS_PID $XVFB_PID"
	for pid in $pids; do
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
	done
	for pid in $WS_PID $XVFB_PID; do wait "$pid" 2>/dev/null || true; done
	if [ -n "$T" ]; then rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

T=$(mktemp -d "${TMPDIR:-/tmp}/roce-screenshot.XXXXXX")
chmod 755 "$T"
HOMEDIR=$T/home
CONF=$HOMEDIR/.config/wireshark
mkdir -p "$HOMEDIR/.local/lib/wireshark/plugins/$XY/epan" "$CONF" "$T/run"
cp "$SO" "$HOMEDIR/.local/lib/wireshark/plugins/$XY/epan/roce.so"
CAP=$T/roce-sample.pcap
"$GEN" --scenario "$(dirname "$0")/../plugin/tests/plugin_facts.ini" -w "$CAP" -q

# A pristine profile: fixed main window geometry and pane sizes, no byte view (the
# details pane gets the lower half), no welcome-page state to restore.
cat >"$CONF/recent_common" <<EOF
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: $W
gui.geometry_main_height: $H
gui.geometry_main_maximized: FALSE
gui.geometry_main_upper_pane: 400
gui.geometry_main_lower_pane: 0
privs.warn_if_elevated: FALSE
privs.warn_if_no_npf: FALSE
EOF
cat >"$CONF/recent" <<EOF
gui.toolbar_main_show: TRUE
gui.filter_toolbar_show: TRUE
gui.packet_list_show: TRUE
gui.tree_view_show: TRUE
gui.byte_view_show: FALSE
gui.packet_diagram_show: FALSE
gui.statusbar_show: TRUE
EOF

RUN_AS=()
if [ "$(id -u)" = 0 ]; then
	U=${ROCE_TEST_USER:-rocetest}
	if ! id "$U" >/dev/null 2>&1; then
		useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$U" 2>/dev/null ||
			skip "cannot create the unprivileged user $U"
	fi
	chown -R "$U" "$HOMEDIR" "$T/run"
	RUN_AS=(runuser -u "$U" --)
fi
chmod -R a+rX "$T"
chmod 700 "$T/run"

# Our own X server on the first free display (-displayfd picks it), reachable only through
# its local socket (without -auth, Xvfb accepts local clients, such as the unprivileged user).
exec 3>"$T/display"
Xvfb -displayfd 3 -screen 0 "${W}x${H}x24" -nolisten tcp -nolisten unix-abstract \
	>"$T/xvfb.log" 2>&1 &
XVFB_PID=$!
exec 3>&-
for _ in $(seq 100); do
	[ -s "$T/display" ] && break
	kill -0 "$XVFB_PID" 2>/dev/null || { cat "$T/xvfb.log" >&2; die "Xvfb failed"; }
	sleep 0.1
done
[ -s "$T/display" ] || die "Xvfb did not report its display"
export DISPLAY=:$(head -n 1 "$T/display")

"${RUN_AS[@]}" env -i PATH="$PATH" HOME="$HOMEDIR" DISPLAY="$DISPLAY" \
	XDG_RUNTIME_DIR="$T/run" LC_ALL=C.UTF-8 LANG=C.UTF-8 QT_QPA_PLATFORM=xcb \
	wireshark -r "$CAP" -Y "$FILTER" -g "$FRAME" >"$T/wireshark.log" 2>&1 &
WS_PID=$!

# The main window is titled after the capture file once it is loaded.
WIN=$(timeout 60 xdotool search --sync --onlyvisible --name 'roce-sample' 2>/dev/null | head -n 1) ||
	true
if [ -z "$WIN" ]; then
	cat "$T/wireshark.log" >&2
	die "no Wireshark window after 60 s"
fi
xdotool windowmove "$WIN" 0 0 windowsize "$WIN" "$W" "$H"
sleep 3

# Focus the packet details pane (lower half; a click away from the expander arrows),
# select its last top-level item (the roce post-dissector tree), expand it with all its
# subtrees (Shift+Right), then scroll the pane to its end with the mouse wheel (which
# keeps the "RoCE Analysis" line selected) so the whole subtree is in view. (Typed text
# would go to the display filter, so no type-ahead.)
xdotool mousemove --window "$WIN" 700 $((H * 3 / 4)) click 1
sleep 0.5
xdotool key End
sleep 0.3
xdotool key shift+Right
sleep 0.5
xdotool click --repeat 40 --delay 20 5
sleep 0.3
xdotool mousemove 0 0 # no hover highlight, no tooltip
sleep 2

mkdir -p "$(dirname "$OUT")"
import -window root "$T/shot.png"
convert "$T/shot.png" -strip -colors 256 -define png:exclude-chunks=date,time "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
