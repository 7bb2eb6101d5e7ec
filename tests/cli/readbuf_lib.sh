# SPDX-License-Identifier: GPL-2.0-or-later
# readbuf_lib.sh - sourced by analyze_read_buffer.sh and analyze_read_buffer_ng.sh (after
# testlib.sh, with $ra and $tmp set): the read() buffer against the mapping, same output.

# run OUT BUF ARGS...: roce-analyze with the read() buffer BUF (0: the mapping), stdout, stderr
# and the exit status into OUT.{o,e,rc}
run() {
	local out=$1 b=$2
	shift 2
	ROCE_CAP_READ_BUF=$b ROCE_CAP_READ_MEAN=0 "$ra" "$@" >"$out.o" 2>"$out.e"
	echo $? >"$out.rc"
}

# same NAME BUF ARGS...: the read() buffer of BUF bytes gives what the mapping gives
same() {
	local name=$1 b=$2
	shift 2
	run "$tmp/m" 0 "$@"
	run "$tmp/r" "$b" "$@"
	if ! cmp -s "$tmp/m.rc" "$tmp/r.rc"; then
		bad "$name: exit $(cat "$tmp/m.rc") mapped, $(cat "$tmp/r.rc") with buffer $b"
	elif ! cmp -s "$tmp/m.o" "$tmp/r.o"; then
		bad "$name ($b): stdout differs: $(diff "$tmp/m.o" "$tmp/r.o" | head -n 6)"
	elif ! cmp -s "$tmp/m.e" "$tmp/r.e"; then
		bad "$name ($b): stderr differs: $(diff "$tmp/m.e" "$tmp/r.e" | head -n 4)"
	else
		ok
	fi
}
