#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hostile_args.sh - the three tools' command lines under hostile values: every option that
# takes a value (as --help-all lists them) gets 0, -1, 2^64, 10x, "", NaN, 1e308, 0x;
# never a crash, a hang or a sanitizer report, and a refused value is one line naming the
# option plus the --help hint, exit 2.  Then the cases the matrix cannot express: files
# that are not files (a directory, /dev/null, a FIFO, a device), outputs that cannot be
# written (a full device, a missing directory), a closed pipe on stdout, and the defects
# this audit fixed.  Runs in the ASan build too (no timing is asserted; the timeout only
# turns a hang into a failure).  roce-replay needs no interface: every case fails before
# one is opened, or names the missing one.
set -u
build=$1 src=$2
. "$src/tests/cli/testlib.sh"
ra=$build/cli/roce-analyze rg=$build/cli/roce-gen rr=$build/cli/roce-replay
for b in "$ra" "$rg" "$rr"; do
	[ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
noif=nosuch$$

# run CMD...: exit status in $rc, stdout in $tmp/out, stderr in $tmp/err
run() {
	timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# sane WHAT: no crash (signal), no hang (timeout's 124), no sanitizer report
sane() {
	if [ "$rc" -ge 124 ]; then
		bad "$1: exit $rc (crash or hang): $(head -c 300 "$tmp/err")"
		return 1
	fi
	if grep -qE 'runtime error|Sanitizer|AddressSanitizer' "$tmp/err"; then
		bad "$1: sanitizer report: $(head -c 600 "$tmp/err")"
		return 1
	fi
	return 0
}
# refused PROG OPT WHAT: exit 2, "PROG: " and OPT on the first line, only the hint after it
refused() {
	local prog=$1 opt=$2 what=$3
	if [ "$rc" != 2 ]; then
		bad "$what: exit $rc, not 2: $(head -c 300 "$tmp/err")"
	elif ! head -n 1 "$tmp/err" | grep -qF -- "$prog: " ||
	     ! head -n 1 "$tmp/err" | grep -qF -- "$opt"; then
		bad "$what: first line does not name $opt: $(head -n 1 "$tmp/err")"
	elif [ "$(wc -l <"$tmp/err")" -gt 2 ]; then
		bad "$what: more than a line and the hint: $(head -c 300 "$tmp/err")"
	else
		ok
	fi
}
# expect RC PATTERN CMD...: exit RC, stderr matching PATTERN (ERE; "" = empty stderr)
expect() {
	local want=$1 pat=$2
	shift 2
	run "$@"
	sane "$*" || return
	if [ "$rc" != "$want" ]; then
		bad "$*: exit $rc, not $want: $(head -c 300 "$tmp/err")"
	elif [ -z "$pat" ] && [ -s "$tmp/err" ]; then
		bad "$*: stderr not empty: $(head -c 300 "$tmp/err")"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
		bad "$*: stderr does not match '$pat': $(head -c 300 "$tmp/err")"
	else
		ok
	fi
}

"$rg" -w "$tmp/g.pcap" -m 20 --loss 0.1 -q || { bad "roce-gen"; finish; exit; }

# options with a value: "  -c, --count=N   ..." in --help-all
value_opts() {
	"$1" --help-all | sed -nE 's/^ +(-[a-zA-Z], )?(--[a-z0-9-]+)=[A-Z].*/\2/p'
}
hostile=(0 -1 18446744073709551616 10x "" nan 1e308 0x)
# values that no option of the three tools takes (the others may be valid for some)
is_bad() {
	case $1 in -1|18446744073709551616|10x|nan|1e308|0x) return 0 ;; esac
	return 1
}

# roce-analyze: file names and free text are checked below, not by the matrix
for o in $(value_opts "$ra"); do
	case $o in --read|--interface|--write|--filter|--extract|--html|--prometheus|\
		--prometheus-textfile|--relinquish-privileges) continue ;; esac
	for v in "${hostile[@]}"; do
		run "$ra" "$o" "$v" "$tmp/g.pcap"
		sane "roce-analyze $o '$v'" || continue
		if [ "$rc" = 0 ]; then
			is_bad "$v" && bad "roce-analyze $o '$v' accepted" || ok
		elif is_bad "$v" || ! grep -q ' need' "$tmp/err"; then
			refused roce-analyze "$o" "roce-analyze $o '$v'"
		else
			ok      # a valid value of a -i option without -i: refused, naming -i
		fi
	done
done

# roce-gen: every setting, with a valid output
for o in $(value_opts "$rg"); do
	case $o in --write|--interface|--scenario) continue ;; esac
	for v in "${hostile[@]}"; do
		run "$rg" "$o" "$v" -w "$tmp/x.pcap" -m 2 -q
		sane "roce-gen $o '$v'" || continue
		if [ "$rc" = 0 ]; then
			is_bad "$v" && bad "roce-gen $o '$v' accepted" || ok
		elif [ "$o" = --count ] && grep -q 'cannot be combined' "$tmp/err"; then
			ok      # -c with -m
		else
			refused roce-gen "$o" "roce-gen $o '$v'"
		fi
	done
done

# roce-replay: an accepted value ends at the missing interface
for o in $(value_opts "$rr"); do
	case $o in --interface) continue ;; esac
	for v in "${hostile[@]}"; do
		run "$rr" -i "$noif" "$o" "$v" "$tmp/g.pcap"
		sane "roce-replay $o '$v'" || continue
		if grep -q "$noif: no such interface" "$tmp/err"; then
			is_bad "$v" && bad "roce-replay $o '$v' accepted" || ok
		else
			refused roce-replay "$o" "roce-replay $o '$v'"
		fi
	done
done

# numbers past 2^64 (however written) are out of range, not "not a number": the option as
# typed and the value on the first line, as a value just past the option's maximum says
# range PROG OPT VAL ARGS...: exit 2, "PROG: OPT VAL: out of range" first
range() {
	local prog=$1 opt=$2 val=$3 n
	shift 3
	n=$(basename "$prog")
	run "$prog" "$opt" "$val" "$@"
	sane "$n $opt $val" || return
	if [ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qF -- "$n: $opt $val: out of range"; then
		ok
	else
		bad "$n $opt $val: exit $rc: $(head -n 1 "$tmp/err")"
	fi
}
for v in 99999999999999999999 18446744073709551616 1e30 1e308; do
	for o in -c --count --context --max-flows --pfc-storm-ms --max-anomalies --udp-port \
		--pmtu --threads -s --snaplen -B --prometheus-max-streams; do
		range "$ra" "$o" "$v" "$tmp/g.pcap"
	done
	for o in -c -m --messages -s --seed; do
		[ "$o" = -c ] && a=() || a=(-c 1)
		case $o in -m|--messages) a=() ;; esac
		range "$rg" "$o" "$v" -w "$tmp/x.pcap" -q "${a[@]}"
	done
	for o in -l --loop -L --limit --threads --burst --vlan --psn-offset --sport; do
		range "$rr" "$o" "$v" -i "$noif" "$tmp/g.pcap"
	done
done
range "$ra" -c -1 "$tmp/g.pcap"
range "$rr" --loop -5 -i "$noif" "$tmp/g.pcap"
# roce-gen's bounded settings say the same past 2^64 as just past their maximum
for ov in "--qps 1048577" "--first-psn 16777216" "--pmtu 8192"; do
	set -- $ov
	run "$rg" "$1" "$2" -w "$tmp/x.pcap" -q -m 1
	want=$(head -n 1 "$tmp/err" | sed "s/$2/V/")
	for v in 99999999999999999999 1e30; do
		run "$rg" "$1" "$v" -w "$tmp/x.pcap" -q -m 1
		[ "$rc" = 2 ] && [ "$(head -n 1 "$tmp/err" | sed "s/$v/V/")" = "$want" ] && ok ||
			bad "roce-gen $1 $v: $(head -n 1 "$tmp/err"), not as $1 $2: $want"
	done
done
# roce-gen's rates and packet rates: past their maximum (1000T), 1e30 too
for o in --rate --pps; do
	range "$rg" "$o" 1e30 -w "$tmp/x.pcap" -q -m 1
	range "$rg" "$o" 2000T -w "$tmp/x.pcap" -q -m 1
done
# not numbers, and numbers in range not written as integers, say so
expect 2 "^roce-analyze: -c 'abc': not a number$" "$ra" -c abc "$tmp/g.pcap"
expect 2 "^roce-analyze: -c '1e3': not a whole number" "$ra" -c 1e3 "$tmp/g.pcap"
expect 2 "^roce-replay: --loop '2.5': not a whole number" "$rr" --loop 2.5 -i "$noif" \
	"$tmp/g.pcap"
expect 2 "^roce-gen: --seed 'x': not a number$" "$rg" --seed x -w "$tmp/x.pcap" -q -m 1

# --help and --version: exit 0, on stdout, nothing on stderr; a missing value is named
for p in "$ra" "$rg" "$rr"; do
	n=$(basename "$p")
	for h in --help -h --help-all --version -V; do
		expect 0 "" "$p" "$h"
		[ -s "$tmp/out" ] && ok || bad "$n $h: nothing on stdout"
	done
	run "$p" --no-such-option
	refused "$n" --no-such-option "$n --no-such-option"
done
run "$ra" "$tmp/g.pcap" -c
refused roce-analyze "-c" "roce-analyze FILE -c (missing value)"
run "$rg" -w
refused roce-gen "-w" "roce-gen -w (missing value)"

# roce-gen: outputs that cannot be written say why, in one line, exit 1
if [ -c /dev/full ]; then
	expect 1 "^roce-gen: /dev/full: No space left on device$" "$rg" -w /dev/full -m 10 -q
	expect 1 "^roce-gen: /dev/full: No space left on device$" "$rg" -w /dev/full -m 10000 -q
	expect 1 "^roce-gen: <stdout>: No space left on device$" sh -c "'$rg' -w - -m 10 -q >/dev/full"
	# the summary is output too
	expect 1 "^roce-gen: error writing the summary: No space left" \
		sh -c "'$rg' -w '$tmp/x.pcap' -m 10 >/dev/full"
	expect 1 "error writing the summary" sh -c "'$rg' -w '$tmp/x.pcap' -m 10 --json >/dev/full"
fi
expect 2 "^roce-gen: $tmp/no/dir/x.pcap: No such file or directory" "$rg" -w "$tmp/no/dir/x.pcap"
expect 2 "^roce-gen: $tmp: Is a directory" "$rg" -w "$tmp" -m 1
run "$rg" -w "" -m 1
refused roce-gen "-w" "roce-gen -w ''"
run "$rg" -i "" -m 1
refused roce-gen "-i" "roce-gen -i ''"
expect 2 "^roce-gen: $noif: no such interface" "$rg" -i "$noif" -m 1
# --scenario: what is not a small text file is refused, naming the option (/dev/zero was
# read without end)
for f in /dev/zero "$tmp" "$tmp/missing.ini"; do
	run "$rg" --scenario "$f" -w "$tmp/x.pcap"
	sane "roce-gen --scenario $f" && refused roce-gen "--scenario $f" "roce-gen --scenario $f"
done
expect 0 "" "$rg" --scenario /dev/null -w "$tmp/x.pcap" -m 1 -q
# settings repeated: the last one counts; conflicting ones are refused
expect 0 "" "$rg" -w "$tmp/x.pcap" -w "$tmp/y.pcap" -m 1 -q
[ -s "$tmp/y.pcap" ] && ok || bad "roce-gen -w A -w B: B not written"
run "$rg" -w "$tmp/x.pcap" -i "$noif" -m 1
refused roce-gen "-w and -i" "roce-gen -w -i"
run "$rg" -w "$tmp/x.pcap" -m 1 -c 1
refused roce-gen "-c" "roce-gen -m -c"
run "$rg" -w "$tmp/x.pcap" extra
refused roce-gen "extra" "roce-gen extra argument"

# --prometheus-textfile is replaced by rename(): never over a device, a FIFO or
# /dev/stdout's link (as root it once turned /dev/full into a regular file)
mknod "$tmp/full" c 1 7 2>/dev/null && {
	expect 2 "prometheus-textfile.*not a regular file" "$ra" --prometheus-textfile "$tmp/full" \
		"$tmp/g.pcap"
	[ -c "$tmp/full" ] && ok || bad "--prometheus-textfile replaced a device node"
}
mkfifo "$tmp/fifo"
expect 2 "prometheus-textfile.*not a regular file" "$ra" --prometheus-textfile "$tmp/fifo" \
	"$tmp/g.pcap"
[ -p "$tmp/fifo" ] && ok || bad "--prometheus-textfile replaced a FIFO"
expect 2 "prometheus-textfile" "$ra" --prometheus-textfile "" "$tmp/g.pcap"
expect 2 "prometheus-textfile" "$ra" --prometheus-textfile - "$tmp/g.pcap"
# the last write failing is the run's failure, not a warning
expect 2 "prometheus-textfile: $tmp/no/dir/x.prom" "$ra" -q --prometheus-textfile \
	"$tmp/no/dir/x.prom" "$tmp/g.pcap"
expect 0 "" "$ra" -q --prometheus-textfile "$tmp/x.prom" "$tmp/g.pcap"
grep -q '^roce_frames_total' "$tmp/x.prom" && ok || bad "textfile: $(head -3 "$tmp/x.prom")"

# roce-analyze: empty names and lists are refused naming the option; a --check whose
# status line cannot be written is UNKNOWN, not a verdict
run "$ra" -r "" "$tmp/g.pcap"
refused roce-analyze "-r ''" "roce-analyze -r ''"
expect 2 "empty file name" "$ra" ""
run "$ra" --check --warn "" "$tmp/g.pcap"
[ "$rc" = 3 ] && grep -q "^roce-analyze: --warn '': empty threshold list" "$tmp/err" && ok ||
	bad "--check --warn '': exit $rc, $(head -1 "$tmp/err")"
run "$ra" --warn ",," "$tmp/g.pcap"
refused roce-analyze "--warn" "roce-analyze --warn ',,'"
run "$ra" --max-memory 2000000G "$tmp/g.pcap"
refused roce-analyze "--max-memory '2000000G'" "roce-analyze --max-memory 2000000G"
if [ -c /dev/full ]; then
	expect 3 "error writing output: No space left" sh -c "'$ra' --check '$tmp/g.pcap' >/dev/full"
	for a in "" --json --csv --frames "--frames --json" "--interval 0.001"; do
		expect 2 "^roce-analyze: error writing output: No space left on device$" \
			sh -c "'$ra' $a '$tmp/g.pcap' >/dev/full"
	done
	expect 2 "^roce-analyze: --extract: /dev/full: No space left" "$ra" --extract /dev/full \
		"$tmp/g.pcap"
	expect 2 "^roce-analyze: --html: /dev/full: No space left" "$ra" -q --html /dev/full \
		"$tmp/g.pcap"
	[ -c /dev/full ] && ok || bad "/dev/full is no longer a device"
fi
# inputs that are not capture files
expect 0 "" "$ra" -q /dev/null
expect 2 "^roce-analyze: $tmp: read error: Is a directory$" "$ra" "$tmp"
expect 2 "^roce-analyze: /dev/zero: not a pcap" "$ra" /dev/zero
expect 2 "^roce-analyze: $tmp/missing.pcap: No such file or directory$" "$ra" "$tmp/missing.pcap"
mkfifo "$tmp/in.fifo"
(cat "$tmp/g.pcap" >"$tmp/in.fifo" &)
expect 0 "" "$ra" -q "$tmp/in.fifo"
expect 0 "" sh -c "'$ra' -q - <'$tmp/g.pcap'"
expect 2 "stdin \(-\) given more than once" "$ra" - -
expect 2 "^roce-analyze: -c: No such file" "$ra" -- -c
expect 2 "$noif" "$ra" -i "$noif" --duration 1
expect 2 "cannot be combined" "$ra" -i "$noif" "$tmp/g.pcap" -r "$tmp/g.pcap"
expect 2 "^roce-analyze: -w needs -i" "$ra" -w "$tmp/w.pcap" "$tmp/g.pcap"
# -s and --context without their partner: refused whatever the value, 0 (their default) too
for v in 0 100; do
	expect 2 "^roce-analyze: -s needs -i$" "$ra" -s $v "$tmp/g.pcap"
	expect 2 "^roce-analyze: -s needs -i$" "$ra" --snaplen=$v "$tmp/g.pcap"
	expect 2 "^roce-analyze: --context needs --extract$" "$ra" --context $v "$tmp/g.pcap"
done
# -w - (the capture on stdout, the report on stderr) is taken; not with rotation
expect 2 "$noif" "$ra" -i "$noif" -w -
expect 2 "^roce-analyze: -C and -W cannot be used with -w -" "$ra" -i "$noif" -w - -C 1
# options after the file and repeated options, as getopt_long and tcpdump take them
expect 0 "" "$ra" -q "$tmp/g.pcap" -c 5
expect 0 "" "$ra" -q -c 5 -c 7 "$tmp/g.pcap"
# a closed pipe on stdout: the conventional quiet end (SIGPIPE, as cat), no message, but
# after the files the run writes are complete (being killed left them empty)
"$rg" -w "$tmp/big.pcap" -m 20000 --loss 0.01 -q
"$ra" --frames --extract "$tmp/e.pcap" --html "$tmp/r.html" "$tmp/big.pcap" 2>"$tmp/err" |
	head -n 1 >/dev/null
st=${PIPESTATUS[0]}
[ "$st" = 141 ] && [ ! -s "$tmp/err" ] && ok || bad "| head -1: exit $st, $(head -c 300 "$tmp/err")"
[ "$(head -c 4 "$tmp/e.pcap" | od -An -tx1 | tr -d ' ')" = 4d3cb2a1 ] && ok ||
	bad "| head -1: --extract file not written: $(wc -c <"$tmp/e.pcap") bytes"
grep -q '</html>' "$tmp/r.html" && ok || bad "| head -1: --html report not written"
for a in --frames "--frames --json"; do
	"$ra" $a "$tmp/big.pcap" 2>"$tmp/err" | head -n 1 >/dev/null
	st=${PIPESTATUS[0]}
	[ ! -s "$tmp/err" ] && { [ "$st" = 141 ] || [ "$st" = 0 ]; } && ok ||
		bad "roce-analyze $a | head -1: exit $st, stderr: $(head -c 300 "$tmp/err")"
done

# roce-replay: one interface, named; the rest fails before any is opened
run "$rr" -i "" "$tmp/g.pcap"
refused roce-replay "-i ''" "roce-replay -i ''"
run "$rr" -i "$noif" -i "$noif" "$tmp/g.pcap"
refused roce-replay "-i given more than once" "roce-replay -i A -i B"
expect 2 "only one of" "$rr" -i "$noif" -t --pps 5 "$tmp/g.pcap"
expect 2 "only one of" "$rr" -i "$noif" --multiplier 2 --pps 5 "$tmp/g.pcap"
# pacing options exclude each other as tcpreplay's do, --multiplier 1 (the default) too: one
# line naming both, as typed, in their order
pace=(--multiplier -x --pps -p --mbps -M --gbps --topspeed -t)
pval() { case $1 in --topspeed|-t) ;; --multiplier|-x) echo 1 ;; *) echo 5 ;; esac; }
canon() { case $1 in -x) echo --multiplier ;; -p) echo --pps ;; -M) echo --mbps ;;
	-t) echo --topspeed ;; *) echo "$1" ;; esac; }
for a in "${pace[@]}"; do
	for b in "${pace[@]}"; do
		[ "$(canon "$a")" = "$(canon "$b")" ] && continue
		run "$rr" -i "$noif" $a $(pval "$a") $b $(pval "$b") "$tmp/g.pcap"
		sane "roce-replay $a $b" || continue
		if [ "$rc" = 2 ] && head -n 1 "$tmp/err" | grep -qF -- "roce-replay: $a and $b: only one of" &&
		   [ "$(wc -l <"$tmp/err")" = 2 ]; then
			ok
		else
			bad "roce-replay $a $b: exit $rc: $(head -n 1 "$tmp/err")"
		fi
	done
done
# the same option again: its last value counts (as elsewhere), not a conflict
for a in "--multiplier 2 -x 3" "--pps 5 --pps 6" "--gbps 1 --gbps 2" "-t --topspeed"; do
	expect 2 "$noif: no such interface" "$rr" -i "$noif" $a "$tmp/g.pcap"
done
expect 2 "stdin \(-\) given more than once" "$rr" -i "$noif" - -
expect 2 "no input file" "$rr" -i "$noif"

finish
