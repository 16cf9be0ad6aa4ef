#!/bin/bash
# test/dist.sh [--test] - make dist: a static tracer (defconfig) for every
# arch the QEMU guests test, in dist/ (DIST=DIR elsewhere), named for what
# a board owner knows (uname -m, byte order, float: README and doc/building.md),
# with dist/SHA256SUMS. Installs the toolchains it lacks
# (test/setup-cross.sh); ARCHS="aarch64 mips" builds those only. Each binary is built in a copy of the sources
# (Makefile Kconfig *.c *.h lib/) with make defconfig, so the tree's .config,
# lib/config.h and ./tracer stay as they are.
#   --test  make dist, then judge each binary: a static executable of the
#           arch's ELF class, byte order and machine (readelf -h, -l), that
#           runs -h under qemu-user (qemu-user-static, from setup-cross.sh
#           --qemu); sha256sum -c SHA256SUMS; and a wrong-endian binary
#           fails that judge. Ends with "N passed, N failed" (make
#           test-dist; the last step of make test-qemu).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD OUT=${DIST:-$PWD/dist}

# name, setup-cross.sh arch, CROSS_COMPILE (Debian's gnu triplet), qemu
# (-cpu), and what readelf -h says: class, byte order, machine, flags
# (- for any): armel is ARMv5TE soft float (qemu's arm926 is an ARMv5),
# mips the soft-float one (a 24Kc has no FPU).
TABLE="x86_64   x86_64   x86_64-linux-gnu-        -               ELF64 little X86-64    -
i386     i386     i686-linux-gnu-          i386            ELF32 little 80386     -
aarch64  aarch64  aarch64-linux-gnu-       aarch64         ELF64 little AArch64   -
armhf    armhf    arm-linux-gnueabihf-     arm             ELF32 little ARM       hard-float
armel    armel    arm-linux-gnueabi-       arm/arm926      ELF32 little ARM       soft-float
riscv64  riscv64  riscv64-linux-gnu-       riscv64         ELF64 little RISC-V    -
mips     mips-sf  mips-linux-gnu-          mips/24Kc       ELF32 big    MIPS      -
mipsel   mipsel   mipsel-linux-gnu-        mipsel          ELF32 little MIPS      -
mips64el mips64el mips64el-linux-gnuabi64- mips64el        ELF64 little MIPS      -
ppc64le  ppc64el  powerpc64le-linux-gnu-   ppc64le         ELF64 little PowerPC64 -
s390x    s390x    s390x-linux-gnu-         s390x           ELF64 big    S/390     -"
row() { awk -v n="$1" '$1 == n' <<<"$TABLE"; }

# build NAME CROSS: dist/tracer-NAME, from a copy in $W/NAME
build() {
	local d=$W/$1
	mkdir -p "$d" && cp -r Makefile Kconfig ./*.c ./*.h lib "$d/" && rm -f "$d/lib/config.h" &&
	make -s -C "$d" defconfig >/dev/null &&
	make -C "$d" CROSS_COMPILE="$2" tracer >"$d/build.log" 2>&1 &&
	cp "$d/tracer" "$OUT/tracer-$1" && return
	echo "dist: tracer-$1 (CROSS_COMPILE=$2) failed:" >&2; tail -5 "$d/build.log" >&2; return 1
}

dist() {
	local t0 arches names n a cross rc=0
	t0=$(date +%s)
	names=$(awk '{ print $1 }' <<<"$TABLE")
	# ARCHS="aarch64 mips": those only (the others in dist/ stay)
	for n in ${ARCHS:-}; do
		[ -n "$(row "$n")" ] || { echo "dist: ARCHS: no arch '$n' (one of:" $names")" >&2; return 2; }
	done
	names=${ARCHS:-$names}
	arches=$(for n in $names; do row "$n"; done | awk '{ print $2 }')
	# shellcheck disable=SC2086
	test/setup-cross.sh ${QEMU:+--qemu} $arches 2>&1 | grep -v 'already present$' ||
		{ echo "dist: test/setup-cross.sh failed (above); building what it can" >&2; rc=1; }
	W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
	mkdir -p "$OUT" && rm -f "$OUT/SHA256SUMS"
	for n in $names; do rm -f "$OUT/tracer-$n"; done	# none left from an older build
	for n in $names; do
		read -r n a cross _ <<<"$(row "$n")"
		build "$n" "$cross" || rc=1
	done
	(cd "$OUT" && sha256sum tracer-* >SHA256SUMS) || rc=1
	for n in $names; do [ -f "$OUT/tracer-$n" ] && printf '%-22s %6d bytes\n' "${OUT#"$TOP"/}/tracer-$n" "$(wc -c <"$OUT/tracer-$n")"; done
	echo "dist: $(echo $names | wc -w) built, $(ls "$OUT" | grep -c '^tracer-') binaries and SHA256SUMS in ${OUT#"$TOP"/} in $(( $(date +%s) - t0 ))s"
	return $rc
}

# judge NAME FILE: what in FILE is not a static tracer-NAME (empty: all is)
judge() {
	local n a cross q class data mach flags h
	read -r n a cross q class data mach flags <<<"$(row "$1")"
	h=$(readelf -h "$2" 2>&1) || { echo "readelf -h: $h"; return; }
	f() { sed -n "s/^ *$1: *//p" <<<"$h"; }
	[ "$(f Class)" = "$class" ] || echo "class $(f Class), want $class"
	[[ $(f Data) == *"$data endian"* ]] || echo "byte order: $(f Data), want $data endian"
	[[ $(f Machine) == *"$mach"* ]] || echo "machine $(f Machine), want $mach"
	[ "$flags" = - ] || [[ $(f Flags) == *"$flags"* ]] || echo "flags $(f Flags), want $flags"
	[[ $(f Type) == EXEC* ]] || echo "type $(f Type), want EXEC (no PIE)"
	! readelf -lW "$2" | grep -qE '^ *(INTERP|DYNAMIC) ' || echo "not static: $(readelf -lW "$2" | grep -E '^ *(INTERP|DYNAMIC) ' | tr -s ' ' | tr '\n' ';')"
}

# run NAME: tracer-NAME -h, under qemu-user but for x86_64
run() {
	local n a cross q cpu
	read -r n a cross q _ <<<"$(row "$1")"
	IFS=/ read -r q cpu <<<"$q"
	if [ "$q" = - ]; then "$OUT/tracer-$n" -h
	else "qemu-$q-static" ${cpu:+-cpu "$cpu"} "$OUT/tracer-$n" -h; fi
}

test_dist() {
	local n e o q names t0
	. test/lib.sh
	t0=$(date +%s)
	QEMU=1 dist; e=$?
	[ $e = 0 ] && pass "make dist: every binary built" || fail "make dist: every binary built" "exit $e"
	names=$(awk '{ print $1 }' <<<"$TABLE")
	for n in $names; do
		if [ ! -f "$OUT/tracer-$n" ]; then fail "tracer-$n: built"; continue; fi
		e=$(judge "$n" "$OUT/tracer-$n")
		[ -z "$e" ] && pass "tracer-$n: static $(row "$n" | awk '{ print $5, $6 "-endian", $7, $8 == "-" ? "" : $8 " " }')executable" ||
			fail "tracer-$n: a static executable for $n" "$(echo $e)"
		o=$(run "$n" 2>&1); e=$?
		q=$(row "$n" | awk '{ split($4, q, "/"); print $4 == "-" ? "the host" : "qemu-" q[1] "-static" (q[2] ? " -cpu " q[2] : "") }')
		[ $e = 0 ] && [[ $o == "usage: tracer "* ]] && pass "tracer-$n: -h under $q" ||
			fail "tracer-$n: -h under $q" "exit $e: ${o:0:200}"
	done
	o=$(cd "$OUT" && sha256sum -c SHA256SUMS 2>&1)
	[ $? = 0 ] && [ "$(grep -c ': OK$' <<<"$o")" = "$(echo "$names" | wc -w)" ] &&
		pass "SHA256SUMS: sha256sum -c passes for all $(echo "$names" | wc -w)" || fail "SHA256SUMS: sha256sum -c" "$o"
	# the judge itself: the big-endian MIPS binary taken for mipsel
	e=$(judge mipsel "$OUT/tracer-mips")
	[[ $e == *"want little endian"* ]] && pass "judge: tracer-mips is refused as mipsel ($e)" ||
		fail "judge: tracer-mips is refused as mipsel" "got '$e'"
	echo "== total dist: $(( $(date +%s) - t0 ))s"	# (as test/qemu.sh's guests say theirs)
	report
}

case ${1:-} in
--test) test_dist ;;
'') dist ;;
*) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
