#!/bin/bash
# test/aptsuite.sh SUITE DARCH CMD ARG - one package of one Debian suite
# and architecture from the machine's own mirror (the first URI of its
# apt sources), so that a bookworm host takes bullseye's or trixie's
# packages (kernels of other lines, riscv64) without touching its own
# sources, lists or dpkg architectures. The index lives under
# $TRACER_APT_CACHE/SUITE-DARCH (default /var/cache/tracer-apt) and is
# fetched when missing or a day old.
#   aptsuite.sh bullseye amd64 kernel linux-image-amd64  the linux-image-X.Y... the metapackage names
#   aptsuite.sh trixie riscv64 uri PKG                   the .deb's URL
#   aptsuite.sh trixie riscv64 download PKG              the .deb into the current directory, checked
#                                                        against the index's SHA256; prints its name
# The index is apt's, checked against the suite's signed Release. A
# mirror caught in a sync serves an index that does not match its Release
# (seen: trixie riscv64 and armhf, a point release behind): then the
# mirror's index is used as it is, with a warning on stderr, and each
# .deb is still checked against it.
set -u
S=$1 A=$2 CMD=$3 P=$4
D=${TRACER_APT_CACHE:-/var/cache/tracer-apt}/$S-$A
warn() { echo "aptsuite: $*" >&2; }

mirror() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null; echo; } |
		awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' | grep . ||
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(http|https|file):/ && $i !~ /security/) { print $i; exit } }' | grep .
}
M=$(mirror | head -1)
[ -n "$M" ] || { warn "no Debian mirror in /etc/apt/sources.list*"; exit 1; }
M=${M%/}
if [ -z "$(find "$D/Packages" -mmin -1440 2>/dev/null)" ]; then
	mkdir -p "$D/lists/partial" "$D/cache/archives/partial" || exit 1
	touch "$D/status"
	echo "deb [arch=$A] $M $S main" >"$D/sources.list"
	if apt-get -q -o "Dir::Etc::SourceList=$D/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
	    -o "Dir::State::Lists=$D/lists" -o "Dir::State::Status=$D/status" -o "Dir::Cache=$D/cache" \
	    -o "APT::Architecture=$A" -o "APT::Architectures=$A" -o Debug::NoLocking=1 -o Acquire::Retries=3 \
	    update >"$D/update.log" 2>&1 && f=$(ls "$D"/lists/*_main_binary-"$A"_Packages* 2>/dev/null | head -1) && [ -n "$f" ]; then
		/usr/lib/apt/apt-helper cat-file "$f" >"$D/Packages.new" && mv "$D/Packages.new" "$D/Packages"
		rm -rf "$D/lists" "$D"/cache/*.bin	# apt's copies (150 MB a suite and arch): Packages is what is read
	else
		warn "$S $A: the mirror's index does not match its signed Release ($(grep -m1 -o 'File has unexpected size[^?]*?\|Hash Sum mismatch' "$D/update.log" || tail -1 "$D/update.log")); using $M/dists/$S/main/binary-$A/Packages.xz as it is"
		curl -sfL "$M/dists/$S/main/binary-$A/Packages.xz" | xz -dc >"$D/Packages.new" && [ -s "$D/Packages.new" ] &&
			mv "$D/Packages.new" "$D/Packages" || { warn "$S $A: no index from $M"; exit 1; }
	fi
fi
# field PKG NAME: a field of PKG's newest stanza
field() {
	awk -v p="$1" -v f="$2:" '/^Package: / { on = $2 == p } on && $1 == f { sub(/^[^ ]* /, ""); v = $0 } END { if (v != "") print v }' "$D/Packages" | grep .
}
case $CMD in
kernel)	field "$P" Depends | tr ',' '\n' | awk '{ $1 = $1 } /^linux-image-[0-9]/ { print $1; exit }' | grep . ;;
uri)	echo "$M/$(field "$P" Filename)" ;;
download)
	f=$(field "$P" Filename) && h=$(field "$P" SHA256) || { warn "$S $A: no package $P"; exit 1; }
	n=$(basename "$f")
	curl -sfL -o "$n.part" "$M/$f" || { warn "download of $M/$f failed"; rm -f "$n.part"; exit 1; }
	[ "$(sha256sum <"$n.part" | cut -d' ' -f1)" = "$h" ] || { warn "$n: SHA256 differs from the index"; rm -f "$n.part"; exit 1; }
	mv "$n.part" "$n" && echo "$n" ;;
*) warn "unknown command $CMD"; exit 2 ;;
esac
