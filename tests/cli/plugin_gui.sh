#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Statistics > RoCE > Queue Pairs and Statistics > RoCE > PFC and PAUSE in the
# Wireshark GUI (the plugin's stats_trees), driven for real: wireshark (Qt) on
# a private Xvfb display opens a sample capture with the freshly built plugin
# (loaded like the tshark tests: personal plugin folder of a temporary HOME,
# run as an unprivileged user, see plugin/tests/plugin_common.sh); xdotool
# opens each dialog through the Statistics menu (Alt+S, last entry "RoCE",
# its submenu) and presses the dialog's Copy button.  Checked:
#   - a window titled "... Queue Pairs · CAPTURE" / "... PFC and PAUSE · CAPTURE"
#     appears;
#   - the screen dump (Xvfb -fbdir) of the dialog is not blank, kept as
#     BUILD/test-artifacts/plugin_gui_CAPTURE_qp.png / _pfc.png;
#   - the tree the dialog copied to the clipboard has one node per stream /
#     per (MAC, priority) with the same counters as roce-analyze --json
#     (plugin/tests/roce_stats.py qptree / pfctree, the comparison
#     plugin_stats.sh makes for tshark -z roce_qp,tree).
# Needs wireshark-qt, xvfb, xdotool, xclip (scripts/setup.sh installs them);
# exit 77 when one is missing.  Xvfb and wireshark are stopped at exit.
#   plugin_gui.sh BUILD_DIR SOURCE_DIR
set -u
. "${2:?usage: $0 BUILD_DIR SOURCE_DIR}/plugin/tests/plugin_common.sh"

[ -n "$ANALYZE" ] || skip "roce-analyze not built"
for t in wireshark Xvfb xdotool xclip python3; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed"
done
WS_VER=$(wireshark --version 2>/dev/null | sed -n '1s/^Wireshark \([0-9]*\.[0-9]*\).*/\1/p')
[ "$WS_VER" = "$XY" ] || skip "plugin built for Wireshark $XY, the GUI is ${WS_VER:-unknown}"
CMP=$SRC/plugin/tests/roce_stats.py
ART=$BUILD/test-artifacts
mkdir -p "$ART"

XPID=
WPID=
stop_wireshark() {
	if [ -n "$WPID" ]; then
		kill "$WPID" 2>/dev/null
		# runuser passes the signal on; wireshark also dies with its display
		for _ in $(seq 50); do kill -0 "$WPID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$WPID" 2>/dev/null
		wait "$WPID" 2>/dev/null
		WPID=
	fi
}
cleanup() {
	stop_wireshark
	if [ -n "$XPID" ]; then
		kill "$XPID" 2>/dev/null
		wait "$XPID" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# a private display: Xvfb picks a free number and writes it to fd 3 when ready
mkdir -p "$T/fb" "$T/run"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -ac -fbdir "$T/fb" \
	3>"$T/dpy" >"$T/xvfb.log" 2>&1 &
XPID=$!
for _ in $(seq 100); do [ -s "$T/dpy" ] && break; sleep 0.1; done
[ -s "$T/dpy" ] || { cat "$T/xvfb.log"; skip "Xvfb did not start"; }
export DISPLAY=:$(tr -d '\n' <"$T/dpy")
XWD=$T/fb/Xvfb_screen0
[ -n "$TEST_USER" ] && chown "$TEST_USER" "$T/run"
chmod 700 "$T/run"

start_wireshark() {
	local cap=$1
	if [ -n "$TEST_USER" ]; then
		runuser -u "$TEST_USER" -- env -i PATH="$PATH" HOME="$T/home" DISPLAY="$DISPLAY" \
			XDG_RUNTIME_DIR="$T/run" LC_ALL=C.UTF-8 wireshark -r "$cap" \
			>"$T/work/wireshark.log" 2>&1 &
	else
		env HOME="$T/home" XDG_RUNTIME_DIR="$T/run" LC_ALL=C.UTF-8 wireshark -r "$cap" \
			>"$T/work/wireshark.log" 2>&1 &
	fi
	WPID=$!
}

# wait_window REGEX SECONDS: the id of the first window whose name matches
wait_window() {
	local id
	for _ in $(seq $(($2 * 5))); do
		id=$(xdotool search --name "$1" 2>/dev/null | head -n 1)
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.2
	done
	return 1
}

# dialog CAPTURE KIND: open Statistics > RoCE > (PFC and PAUSE | Queue Pairs), check it
dialog() {
	local cap=$1 kind=$2 base main title down="" d="" geo X Y WIDTH HEIGHT n shot clip
	base=$(basename "$cap")
	case $kind in
	qp) title="Queue Pairs"; down=Down ;;   # the submenu is sorted: PFC and PAUSE first
	pfc) title="PFC and PAUSE" ;;
	esac
	main=$(wait_window "^${base//./\\.}\$" 60) || { fail "$base: wireshark's main window never showed the file"; return; }
	for attempt in 1 2 3; do
		xdotool key Escape Escape 2>/dev/null
		xdotool windowfocus --sync "$main" 2>/dev/null
		sleep 0.5
		xdotool key alt+s; sleep 0.7
		xdotool key Up; sleep 0.3          # from the first entry up: the last one, RoCE
		xdotool key Right; sleep 0.5
		[ -n "$down" ] && { xdotool key $down; sleep 0.3; }
		xdotool key Return
		d=$(wait_window "$title" 15) && break
	done
	shot=$ART/plugin_gui_${base%.*}_$kind.png
	if [ -z "$d" ]; then
		python3 "$SRC/tests/cli/xwd_png.py" "$XWD" "$shot" >/dev/null
		fail "$base: Statistics > RoCE > $title did not open a window (screen: $shot)"
		return
	fi
	ok "$base: Statistics > RoCE > $title opened \"$(xdotool getwindowname "$d")\""
	sleep 2                                 # the tree is computed when the dialog opens
	geo=$(xdotool getwindowgeometry --shell "$d") && eval "$geo"
	n=$(python3 "$SRC/tests/cli/xwd_png.py" "$XWD" "$shot" "$X" "$Y" "$WIDTH" "$HEIGHT")
	if [ "${n:-0}" -ge 8 ]; then
		ok "$base: $title dialog drawn ($n colours), screenshot $shot"
	else
		fail "$base: $title dialog looks blank (${n:-?} colours; $shot)"
	fi
	# Copy: the first of the dialog's three buttons at the bottom right (Copy, Save as..., Close)
	# (up to three clicks, 5 s apart: on a loaded machine one click was lost once, the
	# dialog drawn and the pointer on Copy but nothing copied)
	echo -n "-" | xclip -selection clipboard -i
	clip=$T/work/$base.$kind.clip
	for _ in 1 2 3; do
		xdotool mousemove $((X + WIDTH - 235)) $((Y + HEIGHT - 23)) click 1
		for _ in $(seq 25); do
			xclip -selection clipboard -o >"$clip" 2>/dev/null
			grep -q "^RoCE/$title:" "$clip" && break 2
			sleep 0.2
		done
	done
	if ! grep -q "^RoCE/$title:" "$clip"; then
		python3 "$SRC/tests/cli/xwd_png.py" "$XWD" "$shot" >/dev/null
		fail "$base: the dialog's Copy button put no RoCE/$title tree on the clipboard (screen: $shot)"
	elif python3 "$CMP" "${kind}tree" "$clip" "$T/work/$base.json" >"$clip.cmp"; then
		ok "$base: GUI $title: $(cat "$clip.cmp")"
		ROWS=$((ROWS + $(grep -o '^[0-9]*' "$clip.cmp")))
	else
		fail "$base: GUI $title differs from roce-analyze --json"
		sed 's/^/    /' "$clip.cmp" | head -20
	fi
	xdotool windowfocus --sync "$d" key Escape 2>/dev/null
	for _ in $(seq 25); do xdotool search --name "$title" >/dev/null 2>&1 || break; sleep 0.2; done
}

ROWS=0
# rocev2_write_loss: two QP streams with loss, NAKs and resends; pfc_storm: PFC, PAUSE, a storm
for spec in rocev2_write_loss.pcap:qp pfc_storm.pcap:qp,pfc; do
	b=${spec%%:*}
	cp "$SRC/captures/$b" "$T/work/$b" && chmod a+r "$T/work/$b"
	"$ANALYZE" --json "$T/work/$b" >"$T/work/$b.json" 2>/dev/null
	[ -s "$T/work/$b.json" ] || { fail "$b: roce-analyze --json failed"; continue; }
	start_wireshark "$T/work/$b"
	# with the CI's other tests loading both CPUs, a start was once seen not to show its
	# window within a minute: say so with wireshark's last words, and start it once more
	if ! wait_window "^${b//./\\.}\$" 90 >/dev/null; then
		echo "note: $b: no main window after 90 s, starting wireshark again" \
			"($(tail -n 3 "$T/work/wireshark.log" 2>/dev/null | tr '\n' ' '))"
		stop_wireshark
		start_wireshark "$T/work/$b"
	fi
	IFS=, read -ra kinds <<<"${spec#*:}"
	for k in "${kinds[@]}"; do
		dialog "$T/work/$b" "$k"
	done
	stop_wireshark
done
[ "$ROWS" -gt 0 ] || fail "no GUI row compared at all"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS check(s) failed"
	exit 1
fi
echo "all GUI statistics checks passed ($ROWS rows)"
exit 0
