#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_privs.sh - roce-analyze -i -Z USER on its own veth pair (txlib.sh): once the capture
# is open the process runs as USER (real, effective and saved uid and gid, no capabilities
# left), the -w file is created as USER, the capture still counts every frame sent; an
# unknown user is a one-line error (exit 2).  The systemd unit example in docs/ is verified
# (systemd-analyze verify) and its ExecStart runs as an unprivileged user with exactly the
# unit's capability set (CAP_NET_RAW, ambient and bounding, no new privileges): the
# capture counts every frame and the textfile is written.
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
tx_setup 1
uid=$(id -u nobody) gid=$(id -g nobody)

"$rg" -w "$tmp/a.pcap" -m 100 > /dev/null || bad "gen"
# frames_of FILE: summary.frames of the report in FILE: the whole file (--json) or its last
# line (--interval --json writes JSON Lines, the final report last)
frames_of() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read().strip()
try:
    r = json.loads(t)
except ValueError:
    r = json.loads(t.splitlines()[-1])
print(r["summary"]["frames"])
PY
}
"$ra" --json "$tmp/a.pcap" > "$tmp/a.json"
n=$(frames_of "$tmp/a.json")
chmod 755 "$tmp" && mkdir "$tmp/out" && chmod 777 "$tmp/out"
ip netns exec "$ns" "$ra" -i "$if_b" -B 65536 -Z nobody --json --duration 4 \
	-w "$tmp/out/z.pcap" > "$tmp/z.json" 2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
st=$(grep -E '^(Uid|Gid|CapEff|CapPrm):' /proc/$pid/status | tr -s '\t ' ' ')
grep -q "^Uid: $uid $uid $uid $uid$" <<< "$st" && ok || bad "-Z uids: $st"
grep -q "^Gid: $gid $gid $gid $gid$" <<< "$st" && ok || bad "-Z gids: $st"
grep -q "^CapEff: 0000000000000000$" <<< "$st" && ok || bad "-Z capabilities: $st"
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/a.pcap" > /dev/null || bad "replay"
wait $pid
[ $? -eq 0 ] && ok || bad "-Z run exit: $(cat "$tmp/err")"
zn=$(frames_of "$tmp/z.json" 2>/dev/null)
[ -n "$n" ] && [ "$zn" = "$n" ] && ok || bad "-Z run frames: $zn, file: $n"
[ "$(stat -c %u "$tmp/out/z.pcap" 2>/dev/null)" = "$uid" ] && ok || bad "-w file not owned by nobody"

ip netns exec "$ns" "$ra" -i "$if_b" -Z no-such-user-x --duration 1 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no-such-user-x: no such user" "$tmp/err" &&
	ok || bad "unknown user: $(cat "$tmp/err")"
# the systemd unit example: only CAP_NET_RAW
unit=$src/docs/systemd/roce-check@.service
caps=$(sed -n 's/^AmbientCapabilities=//p' "$unit")
bset=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
[ "$caps" = CAP_NET_RAW ] && [ "$bset" = CAP_NET_RAW ] && grep -q '^NoNewPrivileges=yes$' "$unit" &&
	grep -q '^DynamicUser=yes$' "$unit" && ok || bad "unit capabilities: '$caps' '$bset'"
if command -v systemd-analyze > /dev/null; then
	mkdir "$tmp/unit"
	sed "s#^ExecStart=/usr/bin/roce-analyze #ExecStart=$ra #" "$unit" > "$tmp/unit/roce-check@.service"
	systemd-analyze verify "$tmp/unit/roce-check@$if_b.service" > "$tmp/sa.out" 2>&1 &&
		[ ! -s "$tmp/sa.out" ] && ok || bad "systemd-analyze verify: $(cat "$tmp/sa.out")"
else
	bad "systemd-analyze not installed (scripts/setup.sh installs systemd)"
fi
# ExecStart as the dynamic user would run it: uid/gid nobody, no groups, no new privileges,
# CAP_NET_RAW the only capability (inheritable, ambient, bounding); the textfile goes to a
# directory nobody may write, like ReadWritePaths=
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
cmd=${cmd//%i/$if_b}
d=/var/lib/node-exporter
cmd=${cmd//"$d"/$tmp/out}
read -ra argv <<< "$cmd"
argv[0]=$ra
ip netns exec "$ns" setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs \
	--inh-caps=-all,+net_raw --ambient-caps=-all,+net_raw --bounding-set=-all,+net_raw \
	"${argv[@]}" --duration 4 > "$tmp/u.json" 2> "$tmp/err" &
pid=$!
live_ready $pid "$tmp/err" || bad "the capture did not start: $(cat "$tmp/err")"
st=$(grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs):' /proc/$pid/status | tr -s '\t ' ' ')
grep -q "^Uid: $uid $uid $uid $uid$" <<< "$st" && grep -q "^CapEff: 0000000000002000$" <<< "$st" &&
	grep -q "^CapBnd: 0000000000002000$" <<< "$st" && grep -q "^NoNewPrivs: 1$" <<< "$st" && ok ||
	bad "unit's ExecStart: not as nobody with CAP_NET_RAW only: $st"
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/a.pcap" > /dev/null || bad "replay"
wait $pid
[ $? -eq 0 ] && ok || bad "unit's ExecStart exit: $(cat "$tmp/err")"
un=$(frames_of "$tmp/u.json" 2>/dev/null)
[ -n "$n" ] && [ "$un" = "$n" ] && ok ||
	bad "unit's ExecStart frames: $un, file: $n; $(tail -c 300 "$tmp/u.json")"
grep -q "^roce_frames_total{interface=\"$if_b\"} " "$tmp/out/roce-$if_b.prom" &&
	[ "$(stat -c %u "$tmp/out/roce-$if_b.prom")" = "$uid" ] && ok ||
	bad "unit's textfile: $(ls -l "$tmp/out")"
finish
