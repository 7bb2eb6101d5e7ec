#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tshark with the roce plugin vs without it, on one large generated capture.
#   bench/plugin_bench.sh BUILD_DIR [FRAMES] [REPEATS]
# FRAMES defaults to 500000 RoCE v2 frames from roce-gen (RC SEND_ONLY of 64 bytes, an
# ACK after every 15th: every 16th frame),
# REPEATS to 3 (the best run counts).  Runs tshark as an unprivileged user
# when started as root (tshark ignores personal plugins for root).
# Prints a Markdown table on stdout.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [FRAMES] [REPEATS]}" && pwd)
N=${2:-500000}
R=${3:-3}
SO=$(ls "$BUILD"/wireshark-plugins/*/epan/roce.so 2>/dev/null | head -n 1)
[ -n "$SO" ] || { echo "plugin not built in $BUILD" >&2; exit 77; }
XY=$(basename "$(dirname "$(dirname "$SO")")")
GEN=$BUILD/cli/roce-gen
[ -x "$GEN" ] || { echo "$GEN not built" >&2; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (package time) is needed" >&2; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/roce-plugin-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -p "$T/with/.local/lib/wireshark/plugins/$XY/epan" "$T/without"
cp "$SO" "$T/with/.local/lib/wireshark/plugins/$XY/epan/"
"$GEN" -w "$T/bench.pcap" -c "$N" --verbs send --msg-size 64 --ack-every 15 --pps 1M -q
USER_=
if [ "$(id -u)" = 0 ]; then
	USER_=${ROCE_TEST_USER:-rocetest}
	id "$USER_" >/dev/null 2>&1 || useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$USER_"
	chown -R "$USER_" "$T/with" "$T/without"
fi
chmod -R a+rX "$T"

# best of R runs: "wall cpu" seconds (cpu = user + sys of tshark, which
# other load on the machine disturbs less than the wall clock): run HOME ARGS...
run() {
	local home=$1 bw= bc= out w c
	shift
	for _ in $(seq "$R"); do
		if [ -n "$USER_" ]; then
			out=$(runuser -u "$USER_" -- env -i PATH="$PATH" HOME="$home" \
				/usr/bin/time -f "TIME %e %U %S" tshark -r "$T/bench.pcap" "$@" 2>&1 >/dev/null | grep '^TIME')
		else
			out=$(env HOME="$home" /usr/bin/time -f "TIME %e %U %S" tshark -r "$T/bench.pcap" "$@" 2>&1 >/dev/null | grep '^TIME')
		fi
		w=$(awk '{ print $2 }' <<<"$out")
		c=$(awk '{ printf "%.2f", $3 + $4 }' <<<"$out")
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w; fi
		if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN { exit !(a < b) }'; then bc=$c; fi
	done
	echo "$bw $bc"
}

SIZE=$(du -m "$T/bench.pcap" | cut -f1)
echo "tshark $(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([^ ]*\).*/\1/p'), $N frames ($SIZE MB), best of $R, $(nproc) CPU(s)"
echo
echo "| tshark mode | wall without (s) | wall with (s) | CPU without (s) | CPU with (s) | CPU overhead |"
echo "|---|---:|---:|---:|---:|---:|"
# Modes that dissect every frame: the default one line per frame, a tap, a
# display filter, fields, two passes (plain `tshark -r f -q` skips dissection
# altogether, so post-dissectors do not run there).
for mode in "" "-q -z io,stat,0" "-q -Y infiniband.bth.psn>=0" "-T fields -e frame.number -e infiniband.bth.psn" "-2 -q -z io,stat,0"; do
	# shellcheck disable=SC2086
	read -r aw ac < <(run "$T/without" $mode)
	# shellcheck disable=SC2086
	read -r bw bc < <(run "$T/with" $mode)
	pct=$(awk -v a="$ac" -v b="$bc" 'BEGIN { printf "%+.1f%%", (b - a) * 100 / a }')
	echo "| \`tshark -r f $mode\` | $aw | $bw | $ac | $bc | $pct |"
done
