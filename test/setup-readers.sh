#!/usr/bin/env bash
# The host readers that judge tracer's dumps, from Debian's own packages:
# the host's perf, and linux-perf in a debootstrap --variant=minbase
# chroot of each suite that is not the host's own:
#   bookworm  perf 6.1
#   trixie    perf 6.12
#   sid       the newest packaged perf (7.x in 2026)
#   perfparser  hotspot's reader (hotspot, no recommends): the host's, or
#             where its Debian has none (trixie), bookworm's in its chroot
# The chroots are built once into $TRACER_READERS_CACHE (default
# /var/cache/tracer-readers, outside the tree) and reused; a half-built
# one is never taken for done (it is built aside and renamed). The mirror
# is the machine's own, read from its apt sources.
#
# Usage: test/setup-readers.sh [bookworm|trixie|sid|perfs|perfparser|all]   (default all;
# perfs: each suite's chroot but the host's)
# Exit 0 when every reader asked for is there; otherwise 1 and one line
# per reader missing, with the reason.
set -u
export DEBIAN_FRONTEND=noninteractive
CACHE=${TRACER_READERS_CACHE:-/var/cache/tracer-readers}
APT=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)

# The machine's Debian mirror: the first URI whose suites name this
# release's codename, in deb822 .sources or one-line lists.
mirror() {
	local code
	code=$(. /etc/os-release && echo "$VERSION_CODENAME")
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null; echo; } | awk -v c="$code" '
		/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) { print u; exit } }
		/^$/ { u = "" }' | grep . ||
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v c="$code" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(http|https|file):/ && $(i + 1) == c) { print $i; exit } }'
}

# chroot_perf SUITE: $CACHE/SUITE with linux-perf installed.
chroot_perf() {
	local s=$1 d=$CACHE/$1 m e
	[ -x "$d/usr/bin/perf" ] && chroot "$d" perf version >/dev/null 2>&1 && return 0
	command -v debootstrap >/dev/null ||
		e=$(apt-get install "${APT[@]}" debootstrap 2>&1) ||
		{ echo "$s: apt-get install debootstrap failed: $(echo "$e" | tail -1)"; return 1; }
	m=$(mirror | head -1)
	[ -n "$m" ] || { echo "$s: no Debian mirror in /etc/apt/sources.list*"; return 1; }
	rm -rf "$d.new"
	mkdir -p "$CACHE"
	debootstrap --variant=minbase "$s" "$d.new" "$m" >"$CACHE/$s.log" 2>&1 ||
		{ echo "$s: debootstrap $s from $m failed: $(tail -1 "$CACHE/$s.log")"; return 1; }
	cp /etc/resolv.conf "$d.new/etc/resolv.conf" 2>/dev/null
	chroot "$d.new" apt-get install "${APT[@]}" linux-perf >>"$CACHE/$s.log" 2>&1 ||
		{ echo "$s: apt-get install linux-perf failed: $(tail -1 "$CACHE/$s.log")"; return 1; }
	chroot "$d.new" apt-get clean
	e=$(chroot "$d.new" perf version 2>&1 >/dev/null) ||
		{ echo "$s: perf does not run in the chroot: chroot $d.new perf version: $e"; return 1; }
	rm -rf "$d" && mv "$d.new" "$d"
}

# pp_in [chroot DIR]: hotspot installed (here, or in the chroot DIR) and
# its perfparser linked as /usr/local/bin/hotspot-perfparser there
pp_in() {
	local e p
	e=$("$@" apt-get install "${APT[@]}" hotspot 2>&1) ||
		{ "$@" apt-get update -qq >/dev/null 2>&1; e=$("$@" apt-get install "${APT[@]}" hotspot 2>&1); } ||
		{ echo "apt-get install hotspot failed: $(echo "$e" | tail -1)"; return 1; }
	"$@" apt-get clean
	p=$("$@" dpkg -L hotspot 2>/dev/null | grep -m1 '/hotspot-perfparser$')
	[ -n "$p" ] || { echo "hotspot has no hotspot-perfparser"; return 1; }
	"$@" ln -sf "$p" /usr/local/bin/hotspot-perfparser
}

# perfparser: the host's hotspot; where the host's Debian has none
# (trixie), bookworm's, in the chroot of perf 6.1 (test/lib.sh's rpp)
perfparser() {
	local e1 e2 p
	command -v hotspot-perfparser >/dev/null && return 0
	p=$(readlink "$CACHE/bookworm/usr/local/bin/hotspot-perfparser")	# (its path there; none: the
	[ -n "$p" ] && [ -x "$CACHE/bookworm$p" ] && return 0		# chroot of perf 6.1 alone)
	e1=$(pp_in) && return 0
	e2=$(chroot_perf bookworm && pp_in chroot "$CACHE/bookworm") && return 0
	echo "perfparser: here: $e1; in $CACHE/bookworm: $e2"
	return 1
}

# perfs: a chroot of each suite but the host's own (its perf is there)
perfs() {
	local s hs rc=0
	hs=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	for s in bookworm trixie sid; do	# (test/lib.sh's RSUITES)
		[ "$s" = "$hs" ] || chroot_perf $s || rc=1
	done
	return $rc
}

[ "$(id -u)" = 0 ] || { echo "setup-readers: needs root (debootstrap, chroot)"; exit 1; }
exec 9>/var/lock/tracer-readers.lock
flock 9	# two test runs build one chroot once
rc=0
for r in ${@:-all}; do
	case $r in
	all) perfs || rc=1; perfparser || rc=1 ;;
	perfs) perfs || rc=1 ;;
	bookworm|trixie|sid) chroot_perf "$r" || rc=1 ;;
	perfparser) perfparser || rc=1 ;;
	*) echo "setup-readers: unknown reader '$r'"; exit 2 ;;
	esac
done
exit $rc
