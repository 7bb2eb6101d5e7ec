#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_privs.sh - roce-analyze -i -Z USER on its own veth pair (txlib.sh): once the capture
# is open the process runs as USER (real, effective and saved uid and gid, no capabilities
# left), the -w file is created as USER, the capture still counts every frame sent; an
# unknown user is a one-line error (exit 2).
. "$2/tests/cli/testlib.sh"
. "$2/tests/cli/txlib.sh"
rg=$build/cli/roce-gen
ra=$build/cli/roce-analyze
[ -x "$rg" ] && [ -x "$ra" ] || { echo "SKIP: tools not built"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
tx_setup 1
uid=$(id -u nobody) gid=$(id -g nobody)

"$rg" -w "$tmp/a.pcap" -m 100 > /dev/null || bad "gen"
n=$("$ra" --json "$tmp/a.pcap" | grep -m1 '"frames"')
chmod 755 "$tmp" && mkdir "$tmp/out" && chmod 777 "$tmp/out"
ip netns exec "$ns" "$ra" -i "$if_b" -B 65536 -Z nobody --json --duration 4 \
	-w "$tmp/out/z.pcap" > "$tmp/z.json" 2> "$tmp/err" &
pid=$!
sleep 1
st=$(grep -E '^(Uid|Gid|CapEff|CapPrm):' /proc/$pid/status | tr -s '\t ' ' ')
grep -q "^Uid: $uid $uid $uid $uid$" <<< "$st" && ok || bad "-Z uids: $st"
grep -q "^Gid: $gid $gid $gid $gid$" <<< "$st" && ok || bad "-Z gids: $st"
grep -q "^CapEff: 0000000000000000$" <<< "$st" && ok || bad "-Z capabilities: $st"
timeout 60 "$replay" -i "$if_a" -q --pps 5000 "$tmp/a.pcap" > /dev/null || bad "replay"
wait $pid
[ $? -eq 0 ] && ok || bad "-Z run exit: $(cat "$tmp/err")"
[ -n "$n" ] && [ "$(grep -m1 '"frames"' "$tmp/z.json")" = "$n" ] && ok ||
	bad "-Z run frames: $(grep -m1 '"frames"' "$tmp/z.json"), file: $n"
[ "$(stat -c %u "$tmp/out/z.pcap" 2>/dev/null)" = "$uid" ] && ok || bad "-w file not owned by nobody"

ip netns exec "$ns" "$ra" -i "$if_b" -Z no-such-user-x --duration 1 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no-such-user-x: no such user" "$tmp/err" &&
	ok || bad "unknown user: $(cat "$tmp/err")"
finish
