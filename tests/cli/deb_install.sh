#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deb_install.sh - the Debian packages install, work and leave nothing behind in a clean
# Debian 12 root (ctest label "deb"; slow the first time, see below).
#
#   deb_install.sh BUILD_DIR SOURCE_DIR
#
# 1. scripts/package.sh builds the packages into BUILD_DIR/deb-pkg (or take the *.deb files
#    of ROCE_DEB_PACKAGES=DIR).
# 2. A Debian 12 (bookworm) minbase root with tshark, made with debootstrap from the mirror
#    apt uses here, is cached in ROCE_DEB_ROOT_CACHE (default SOURCE_DIR/out/debian12-root;
#    the first run downloads about 100 MB and takes a few minutes; later runs copy it).
# 3. In a copy of that root (chroot; /proc mounted in a private mount namespace only):
#    `apt-get install ./*.deb` (dependencies from the mirror, cached beside the root),
#    package versions = the project version, every tool's --version and man page, a real
#    analysis, and as the unprivileged user nobody (tshark as root ignores plugin
#    folders) `tshark -G plugins` lists roce.so from Wireshark's system plugin folder and the
#    plugin's fields work on a sample capture; then `apt-get purge` + `autoremove --purge`,
#    and every path outside dpkg/apt's own bookkeeping and logs is as before, /usr and /etc
#    byte for byte.
# Skips (77) when not root, or without debootstrap, or when the mirror cannot be reached.
set -u
build=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"
skip() { echo "SKIP: $*"; exit 77; }
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
for t in debootstrap chroot unshare dpkg-deb flock; do
	command -v "$t" >/dev/null || skip "$t not installed (scripts/setup.sh installs it)"
done
V=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
arch=$(dpkg --print-architecture)

# the mirror apt uses here (deb822 .sources or sources.list), else Debian's default
mirror=${ROCE_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && / bookworm( |$)/ && u { print u; exit }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null)
fi
if [ -z "$mirror" ]; then
	mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
fi
mirror=${mirror:-http://deb.debian.org/debian}

# 1. the packages
pkgs=${ROCE_DEB_PACKAGES:-}
if [ -z "$pkgs" ]; then
	if ! nice "$src/scripts/package.sh" "$build/deb-pkg" >"$tmp/package.log" 2>&1; then
		tail -n 30 "$tmp/package.log"
		bad "scripts/package.sh failed"
		finish
		exit 1
	fi
	pkgs=$build/deb-pkg/packages
fi
debs=("$pkgs"/*.deb)
[ -e "${debs[0]}" ] || { bad "no packages in $pkgs"; finish; exit 1; }
names=()
for d in "${debs[@]}"; do
	n=$(dpkg-deb -f "$d" Package)
	names+=("$n")
	check test "$(dpkg-deb -f "$d" Version)" = "$V-1"
	check test "$(basename "$d")" = "${n}_$V-1_$arch.deb"
done
echo "packages: ${names[*]}"
for n in libroce0 libroce-dev roce-tools; do
	check grep -qx "$n" < <(printf '%s\n' "${names[@]}")
done

# 2. the cached clean root
cache=${ROCE_DEB_ROOT_CACHE:-$src/out/debian12-root}
mkdir -p "$cache/archives/partial"
exec 9>"$cache/lock"
flock 9
if [ ! -x "$cache/root/usr/bin/tshark" ]; then
	echo "creating the Debian 12 root in $cache/root from $mirror (once)"
	rm -rf "$cache/root.new"
	# in a private mount namespace: the /proc debootstrap mounts in the new root goes with
	# it, also when the test is killed (a timeout), so that a later rm -rf can remove the tree
	if ! nice unshare --mount --propagation private debootstrap --variant=minbase \
			--include=tshark bookworm "$cache/root.new" "$mirror" \
			>"$cache/debootstrap.log" 2>&1; then
		tail -n 5 "$cache/debootstrap.log"
		rm -rf "$cache/root.new"
		skip "debootstrap from $mirror failed (no network?), see $cache/debootstrap.log"
	fi
	cp /etc/resolv.conf "$cache/root.new/etc/resolv.conf" 2>/dev/null || true
	if ! chroot "$cache/root.new" apt-get update -qq >"$cache/apt-update.log" 2>&1; then
		rm -rf "$cache/root.new"
		skip "apt-get update in the new root failed, see $cache/apt-update.log"
	fi
	chroot "$cache/root.new" apt-get clean
	mv "$cache/root.new" "$cache/root"
fi
R=$tmp/root
cp -a "$cache/root" "$R"
flock -u 9
mkdir -p "$R/tmp/debs"
cp "${debs[@]}" "$R/tmp/debs/"
indebs=()
for d in "${debs[@]}"; do indebs+=("/tmp/debs/$(basename "$d")"); done
cp "$src/captures/rocev2_write_loss.pcap" "$R/tmp/"
chmod -R a+rX "$R/tmp"

# run in the root: /proc and the shared apt archive mounted in a private mount namespace
inroot() {
	unshare --mount --propagation private -- sh -c '
		R=$1 A=$2; shift 2
		mount -t proc proc "$R/proc" && mount --bind "$A" "$R/var/cache/apt/archives" &&
			exec chroot "$R" "$@"' inroot "$R" "$cache/archives" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"
}
# every path (with its type) except dpkg/apt bookkeeping, caches, logs and scratch space;
# and the content of every regular file under /usr and /etc (ld.so.cache aside)
snapshot() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/log -o \
		-path ./var/cache -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o \
		-path ./var/lib/ucf -o -path ./run \) -prune -o -printf '%p %y\n' | LC_ALL=C sort) >"$1.paths"
	(cd "$R" && find ./usr ./etc -xdev -type f ! -path ./etc/ld.so.cache -print0 |
		LC_ALL=C sort -z | xargs -0 md5sum) >"$1.sums"
}
snapshot "$tmp/before"

# download what the packages need (once: the archive is cached); refresh the lists if stale
deps_ok=no
for try in 1 2; do
	if inroot apt-get install -y -q --no-install-recommends --download-only "${indebs[@]}" \
			>"$tmp/download.log" 2>&1; then
		deps_ok=yes
		break
	fi
	cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
	inroot apt-get update -qq >/dev/null 2>&1 || break
done
if [ "$deps_ok" != yes ]; then
	tail -n 5 "$tmp/download.log"
	grep -Eq 'Failed to fetch|Temporary failure resolving|Could not resolve|Unable to connect|Could not connect' \
		"$tmp/download.log" && skip "cannot download the packages' dependencies from $mirror"
	bad "apt-get cannot resolve the packages' dependencies"
	finish
	exit 1
fi

# 3. install, use, remove
if inroot apt-get install -y -q --no-install-recommends "${indebs[@]}" >"$tmp/install.log" 2>&1; then
	ok
else
	tail -n 20 "$tmp/install.log"
	bad "apt-get install ./*.deb in the clean root"
fi
for n in "${names[@]}"; do
	st=$(inroot dpkg-query -W -f='${Status} ${Version}' "$n" 2>/dev/null)
	check test "$st" = "install ok installed $V-1"
done
out=$(inroot roce-analyze --version 2>&1)
echo "roce-analyze --version: $(head -n 1 <<<"$out")"
check test "$(head -n 1 <<<"$out")" = "roce-analyze $V (roce-tools)"
# every program of roce-tools runs (its libraries are there) and has its man page
tools=$(inroot dpkg-query -L roce-tools 2>/dev/null | grep '^/usr/bin/')
check test -n "$tools"
for t in $tools; do
	n=$(basename "$t")
	first=$(inroot "$t" --version 2>&1 | head -n 1)
	case "$first" in "$n $V "*|"$n $V") ok ;; *) bad "$n --version in the root: $first" ;; esac
	check test -f "$R/usr/share/man/man1/$n.1.gz"
done
# the sample capture's PSN gaps as its expected summary (captures/*.summary.json) has them
gaps=$(grep -o '"psn_gaps": *[0-9]*' "$src/captures/rocev2_write_loss.summary.json" | head -n 1 |
	grep -o '[0-9]*$')
check test -n "$gaps"
inroot roce-analyze --json /tmp/rocev2_write_loss.pcap >"$tmp/report.json" 2>&1
check grep -q "\"psn_gaps\": $gaps," "$tmp/report.json"
# a BPF filter makes roce-analyze dlopen() libpcap: the package must depend on it by name
for d in "${debs[@]}"; do
	if [ "$(dpkg-deb -f "$d" Package)" = roce-tools ]; then
		check grep -q 'libpcap0\.8' <<<"$(dpkg-deb -f "$d" Depends)"
	fi
done
inroot roce-analyze --json -f 'udp port 4791' /tmp/rocev2_write_loss.pcap >"$tmp/filtered.json" 2>&1
check grep -q "\"psn_gaps\": $gaps," "$tmp/filtered.json"
check test -f "$R/usr/share/man/man1/roce-analyze.1.gz"
check test -f "$R/usr/share/doc/roce-tools/copyright"
check test -n "$(inroot ldconfig -p | grep 'libroce\.so\.0 ')"
check test -n "$(ls "$R"/usr/lib/*/pkgconfig/libroce.pc "$R"/usr/include/roce/version.h 2>/dev/null)"
if grep -qx wireshark-roce-plugin < <(printf '%s\n' "${names[@]}"); then
	plug=$(inroot runuser -u nobody -- env HOME=/nonexistent tshark -G plugins 2>&1 | grep -E '^roce\.so[[:space:]]')
	echo "tshark -G plugins (as nobody): $plug"
	check test "$(awk '{ print $2 }' <<<"$plug")" = "$V"
	case "$(awk '{ print $4 }' <<<"$plug")" in
	/usr/lib/*/wireshark/plugins/*/epan/roce.so) ok ;;
	*) bad "plugin not loaded from Wireshark's system folder: $plug" ;;
	esac
	# one flagged frame per gap
	nframes=$(inroot runuser -u nobody -- env HOME=/nonexistent tshark -r /tmp/rocev2_write_loss.pcap \
		-Y roce.analysis.psn_gap -T fields -e frame.number 2>&1 | grep -c '^[0-9][0-9]*$')
	check test "$nframes" = "$gaps"
else
	echo "note: no plugin package (built without wireshark-dev)"
fi

inroot apt-get purge -y -q "${names[@]}" >"$tmp/purge.log" 2>&1 || { tail "$tmp/purge.log"; bad "apt-get purge"; }
inroot apt-get autoremove --purge -y -q >>"$tmp/purge.log" 2>&1 || bad "apt-get autoremove"
check test -z "$(inroot dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null | grep -E '^(libroce|roce-|wireshark-roce)')"
snapshot "$tmp/after"
if diff "$tmp/before.paths" "$tmp/after.paths" >"$tmp/paths.diff"; then ok; else
	bad "paths differ after removal (< before, > after):"; head -n 20 "$tmp/paths.diff"
fi
if diff "$tmp/before.sums" "$tmp/after.sums" >"$tmp/sums.diff"; then ok; else
	bad "files under /usr or /etc changed after removal:"; head -n 20 "$tmp/sums.diff"
fi
finish
