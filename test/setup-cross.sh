#!/usr/bin/env bash
# Install musl cross toolchains from Debian's own packages, so that
#   make CROSS_COMPILE=aarch64-linux-musl-
#   make CROSS_COMPILE=arm-linux-musleabihf-
#   make CROSS_COMPILE=arm-linux-musleabi-      (armel: ARMv5TE, soft float)
#   make CROSS_COMPILE=s390x-linux-musl-
#   make CROSS_COMPILE=i386-linux-musl-
#   make CROSS_COMPILE=mipsel-linux-musl-
#   make CROSS_COMPILE=mips64el-linux-musl-
#   make CROSS_COMPILE=powerpc64le-linux-musl-
#   make CROSS_COMPILE=riscv64-linux-musl-      (riscv64)
#   make CROSS_COMPILE=mips-linux-musl-         (mips: big-endian, hard float)
#   make CROSS_COMPILE=mips-linux-muslsf-       (mips-sf: big-endian, soft float)
#   make                                        (x86_64: musl-tools' musl-gcc)
# and so does the Debian gnu triplet of each (the Makefile maps
# aarch64-linux-gnu- to aarch64-linux-musl-gcc, mips-linux-gnu- to the
# soft-float one, ...).
# work. Recipe per arch: the Debian gnu cross gcc (which pulls in the gnu
# cross binutils) plus the foreign-arch musl-dev, which ships the
# <musl-triplet>-gcc wrapper, musl's crt files, libc.a and a specs file.
# Bookworm has no musl-dev for the last three (Debian 13 none for mipsel
# and mips64el either: it dropped both ports); their musl goes into a
# prefix, /usr/local/lib/tracer-cross/<arch>, with a specs file and a
# /usr/local/bin/<musl-triplet>-gcc wrapper as musl-dev's (no dpkg
# architecture is added and dpkg does not know these files):
#   riscv64  trixie's musl-dev:riscv64 (test/aptsuite.sh), unpacked with
#            dpkg-deb -x, its specs' paths moved to the prefix.
#   mipsel, mips64el  on a host whose suite has no such architecture
#            (Debian 13): bookworm's musl-dev, the same way (its gnu
#            cross gcc is Debian 13's gcc-mipsel-linux-gnu, ...).
#   mips     musl 1.2.3 built for mips-linux-gnu, the tarball in
#            $TRACER_KERNELS, else ../shared/kernels beside the checkout
#            (mips-be-6.1.176/musl-1.2.3-mips-be.tar.xz).
#   mips-sf  bookworm's musl source package built with -msoft-float, and a
#            soft-float libgcc (see setup_mips_sf); the build is cached in
#            /var/cache/tracer-cross ($TRACER_CROSS_CACHE). For MIPS CPUs
#            without an FPU (ath79, qemu -cpu 24Kc).
#
# Binutils come as <gnu-triplet>-strip etc. (e.g. aarch64-linux-gnu-strip);
# this script also links <musl-triplet>-{strip,objcopy,...} to them in
# /usr/local/bin so that $(CROSS_COMPILE)strip exists.
#
# Usage: test/setup-cross.sh [--qemu] [aarch64|armhf|armel|s390x|i386|mipsel|mips64el|ppc64el|riscv64|mips|mips-sf|x86_64 ...]
#         (default: aarch64 armhf s390x; 'all' is the first seven, those
#         Debian packages whole: riscv64, mips and mips-sf are named)
#   --qemu  also install qemu-user-static (qemu-aarch64-static, ...) to run
#           the cross-built binaries.
# Idempotent: an arch whose compiler already works is skipped without apt;
# 'apt-get update' runs only when an architecture was added or a package
# is unknown to apt's lists. Must run as root (or via sudo).
set -euo pipefail

start=$(date +%s.%N)
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-y --no-install-recommends -o DPkg::Lock::Timeout=300)
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

want_qemu=0
arches=()
for a in "$@"; do
	case "$a" in
	--qemu) want_qemu=1 ;;
	all) arches+=(aarch64 armhf s390x i386 mipsel mips64el ppc64el) ;;
	aarch64|arm64) arches+=(aarch64) ;;
	armhf|arm) arches+=(armhf) ;;
	armel) arches+=(armel) ;;
	x86_64|amd64) arches+=(x86_64) ;;
	s390x) arches+=(s390x) ;;
	i386|i686|x86) arches+=(i386) ;;
	mipsel) arches+=(mipsel) ;;
	mips64el) arches+=(mips64el) ;;
	ppc64el|ppc64le|powerpc64le) arches+=(ppc64el) ;;
	riscv64|riscv) arches+=(riscv64) ;;
	mips|mipsbe) arches+=(mips) ;;
	mips-sf|mipssf) arches+=(mips-sf) ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "setup-cross: unknown arch '$a' (want aarch64, armhf, armel, s390x, i386, mipsel, mips64el, ppc64el, riscv64, mips, mips-sf, x86_64)" >&2; exit 2 ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(aarch64 armhf s390x)

# arch -> "dpkg-arch gnu-triplet musl-triplet qemu-name"
spec() {
	case "$1" in
	aarch64) echo "arm64 aarch64-linux-gnu aarch64-linux-musl aarch64" ;;
	armhf)   echo "armhf arm-linux-gnueabihf arm-linux-musleabihf arm" ;;
	armel)   echo "armel arm-linux-gnueabi arm-linux-musleabi arm" ;;
	# musl-tools' musl-gcc, with the native gcc
	x86_64)  echo "amd64 x86_64-linux-gnu musl x86_64" ;;
	s390x)   echo "s390x s390x-linux-gnu s390x-linux-musl s390x" ;;
	# the musl triplet as musl-dev names its gcc wrapper
	# (i386-linux-musl-gcc runs i686-linux-gnu-gcc)
	i386)     echo "i386 i686-linux-gnu i386-linux-musl i386" ;;
	mipsel)   echo "mipsel mipsel-linux-gnu mipsel-linux-musl mipsel" ;;
	mips64el) echo "mips64el mips64el-linux-gnuabi64 mips64el-linux-musl mips64el" ;;
	ppc64el)  echo "ppc64el powerpc64le-linux-gnu powerpc64le-linux-musl ppc64le" ;;
	# no musl-dev in bookworm: set up by setup_<arch> below
	riscv64)  echo "riscv64 riscv64-linux-gnu riscv64-linux-musl riscv64" ;;
	mips)     echo "mips mips-linux-gnu mips-linux-musl mips" ;;
	mips-sf)  echo "mips mips-linux-gnu mips-linux-muslsf mips" ;;
	esac
}
# the arch's suite: is DARCH one of the host suite's architectures (by
# the Release files of apt's lists; none yet: assume so)
suite_has() {
	local r
	r=$(cat /var/lib/apt/lists/*Release 2>/dev/null | grep '^Architectures:') || return 0
	grep -qw -- "$1" <<<"$r"
}
is_local() {
	case "$1" in
	riscv64|mips|mips-sf) return 0 ;;
	mipsel|mips64el) ! suite_has "$1" ;;
	*) return 1 ;;
	esac
}

# A compiler "works" if it can link a static program.
cc_works() {
	local cc=$1 tmp
	command -v "$cc" >/dev/null 2>&1 || return 1
	tmp=$(mktemp -d)
	printf 'int main(void){return 0;}\n' > "$tmp/t.c"
	if "$cc" -static -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1; then
		rm -rf "$tmp"; return 0
	fi
	rm -rf "$tmp"; return 1
}

# A partial failure (one index with a bad size while a mirror syncs, seen
# for bookworm-security armhf) leaves the rest of the lists updated: warn
# and go on; the install below says whether anything needed is missing.
apt_update() {
	echo "setup-cross: apt-get update"
	$SUDO apt-get update -qq -o Acquire::Retries=3 ||
		echo "setup-cross: warning: apt-get update reported errors; going on" >&2
}

link_binutils() {	# musl-triplet tools -> gnu-triplet tools
	local gnu=$1 musl=$2 t
	for t in strip objcopy objdump readelf nm size ar ranlib ld as addr2line; do
		if ! command -v "$musl-$t" >/dev/null 2>&1 && [ -x "/usr/bin/$gnu-$t" ]; then
			$SUDO ln -sf "/usr/bin/$gnu-$t" "/usr/local/bin/$musl-$t"
		fi
	done
}

# --- riscv64, mips, mips-sf: musl in a prefix of its own -----------------
TESTDIR=$(cd "$(dirname "$0")" && pwd)
XPREFIX=/usr/local/lib/tracer-cross
CACHE=${TRACER_CROSS_CACHE:-/var/cache/tracer-cross}

# write_specs FILE PREFIX LDSO [GCCDIR]: the specs file of Debian's
# musl-dev (musl's tools/musl-gcc.specs.sh, with trixie's static-pie
# lines) for musl in PREFIX/include and PREFIX/lib. Its cc1 keeps what
# gcc's MIPS cc1 does with -EB and -EL: gcc 14 (Debian 13) adds one of
# them itself, and says "unrecognized command-line option '-EL'" when no
# spec takes it. With GCCDIR, libgcc.a,
# crtbeginS.o and crtendS.o come from GCCDIR and gcc's own library
# directory is not searched (mips-sf: gcc's there are hard float).
write_specs() {
	local f=$1 p=$2 ldso=$3 g=${4:-} libdirs libgcc cb ce
	if [ -n "$g" ]; then
		libdirs="-L$p/lib -L$g" libgcc=$g/libgcc.a cb=$g/crtbeginS.o ce=$g/crtendS.o
	else
		libdirs="-L$p/lib -L .%s" libgcc="libgcc.a%s %:if-exists(libgcc_eh.a%s)"
		cb=crtbeginS.o%s ce=crtendS.o%s
	fi
	cat >"$f" <<EOF
%rename cpp_options old_cpp_options

*cpp_options:
-nostdinc -isystem $p/include -isystem include%s %(old_cpp_options)

*cc1:
%(cc1_cpu) %{EB:-meb} %{EL:-mel} -nostdinc -isystem $p/include -isystem include%s

*link_libgcc:
$libdirs

*libgcc:
$libgcc

*startfile:
%{shared:;static-pie:$p/lib/rcrt1.o; :$p/lib/Scrt1.o} $p/lib/crti.o $cb

*endfile:
$ce $p/lib/crtn.o

*link:
-dynamic-linker $ldso -nostdlib %{shared:-shared} %{static:-static} %{static-pie:-static -pie --no-dynamic-linker} %{rdynamic:-export-dynamic}

*esp_link:


*esp_options:


*esp_cpp_options:


EOF
}

# write_wrapper MUSL GNU SPECS [FLAG]: /usr/local/bin/MUSL-gcc, as
# musl-dev's (FLAG after the caller's arguments, so that it stays).
write_wrapper() {
	printf '#!/bin/sh\nexec "${REALGCC:-%s-gcc}" "$@"%s -specs "%s"\n' \
		"$2" "${4:+ $4}" "$3" >"/usr/local/bin/$1-gcc.new"
	chmod 755 "/usr/local/bin/$1-gcc.new"
	mv -f "/usr/local/bin/$1-gcc.new" "/usr/local/bin/$1-gcc"
}

# The machine's Debian mirror, as test/aptsuite.sh finds it.
mirror() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null; echo; } |
		awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' | grep . ||
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || :; } |	# (a glob that matches nothing: no failure for pipefail and the ERR trap)
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(http|https|file):/ && $i !~ /security/) { print $i; exit } }' | grep .
}

# musl_deb SUITE ARCH: SUITE's musl-dev:ARCH (test/aptsuite.sh), unpacked
# as it is into $XPREFIX/ARCH (usr/lib/<musl-triplet>, ...), not into /
# where dpkg would not know the files; its specs' paths are moved there.
musl_deb() {
	local S=$1 a=$2 darch gnu m qemu P=$XPREFIX/$2 deb
	read -r darch gnu m qemu <<<"$(spec "$a")"
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT	# (not local: the trap runs as this arch's subshell ends)
	deb=$(cd "$tmp" && "$TESTDIR/aptsuite.sh" "$S" "$darch" download musl-dev)
	rm -rf "$P.new"; mkdir -p "$P.new"
	dpkg-deb -x "$tmp/$deb" "$P.new"
	sed -i -e "s#/usr/\(lib\|include\)/$m#$P/usr/\1/$m#g" \
		-e 's/^%(cc1_cpu) /%(cc1_cpu) %{EB:-meb} %{EL:-mel} /' "$P.new/usr/lib/$m/musl-gcc.specs"	# as write_specs
	rm -f "$P.new/usr/bin/$m-gcc"	# its paths are /usr's: written below
	[ "$a" != riscv64 ] || riscv64_fix "$P.new/usr/lib/$m"
	rm -rf "$P"; mv "$P.new" "$P"
	write_wrapper "$m" "$gnu" "$P/usr/lib/$m/musl-gcc.specs"
	echo "setup-cross: $a: $deb ($S) unpacked in $P, its specs' paths moved there"
}

# riscv64: trixie's musl-dev 1.2.5 (bookworm has none). Bookworm's ld
# 2.40 crashes (SIGSEGV) linking trixie's crt1.o/Scrt1.o/rcrt1.o as they
# are: they lose their debug info (that alone makes hello, tracer and
# test/work.c link), and libc.a loses .riscv.attributes (its arch string
# names extensions newer than ld 2.40: zaamo, zalrsc), which code needs
# nothing of.
riscv64_fix() {
	local L=$1 f
	riscv64-linux-gnu-objcopy --remove-section=.riscv.attributes "$L/libc.a"
	for f in crt1.o Scrt1.o rcrt1.o; do riscv64-linux-gnu-objcopy --strip-debug "$L/$f"; done
	echo "setup-cross: riscv64: libc.a without .riscv.attributes, crt1.o Scrt1.o rcrt1.o without debug info (for ld 2.40)"
}
setup_riscv64() { musl_deb trixie riscv64; }
# mipsel, mips64el on Debian 13, which has no such ports: bookworm's
setup_mipsel() { musl_deb bookworm mipsel; }
setup_mips64el() { musl_deb bookworm mips64el; }

kernels_dir() {	# the folder of ../shared/kernels, as test/qemu.sh finds it
	local d
	for d in "${TRACER_KERNELS:-}" "$TESTDIR/../../shared/kernels"; do
		if [ -n "$d" ] && [ -d "$d" ]; then (cd "$d" && pwd); return 0; fi
	done
	return 1
}

# mips (big-endian, MIPS32r2, hard float: qemu -cpu 24Kf): musl 1.2.3 as
# built for the mips-be-6.1.176 kernel (include/ and lib/, no specs file),
# in $XPREFIX/mips, and a specs file as musl-dev's.
setup_mips() {
	local P=$XPREFIX/mips K T=mips-be-6.1.176/musl-1.2.3-mips-be.tar.xz
	if ! K=$(kernels_dir) || [ ! -f "$K/$T" ]; then
		echo "setup-cross: mips: no $T: not in \$TRACER_KERNELS (${TRACER_KERNELS:-unset})," \
			"nor in $TESTDIR/../../shared/kernels;" \
			"set TRACER_KERNELS to the folder of ../shared/kernels" >&2
		return 1
	fi
	rm -rf "$P.new"; mkdir -p "$P.new"
	tar -xJf "$K/$T" -C "$P.new"
	write_specs "$P.new/lib/musl-gcc.specs" "$P" /lib/ld-musl-mips.so.1
	rm -rf "$P"; mv "$P.new" "$P"
	write_wrapper mips-linux-musl mips-linux-gnu "$P/lib/musl-gcc.specs"
	echo "setup-cross: mips: $K/$T unpacked in $P, with a specs file"
}

# mips-sf (big-endian, MIPS32r2, soft float: CPUs without an FPU, as
# ath79 and qemu -cpu 24Kc). Hard-float code does run there, on the
# kernel's FPU emulator, but a workload died on it after some ten caught
# signals; so everything here is -msoft-float, which the wrapper adds.
# - musl: bookworm's source package from the mirror's pool (the .dsc by
#   the SHA256 below, taken from bookworm's Sources.xz under its signed
#   InRelease; the tarballs checked against the .dsc): upstream's tarball
#   plus debian/ (1.2.3-1 has no patches; its rules add fts, as here),
#   configured with CFLAGS='-msoft-float -O2' (not Debian's -g and
#   hardening flags), so that musl takes its mips-sf subarch.
# - libgcc: gcc-mips-linux-gnu has no soft-float multilib (-print-multi-lib:
#   ., n32, 64) and its libgcc.a is hard float: __adddf3 is add.d on $f12,
#   $f14. ld 2.40 only warns on the float-ABI mix, and the program reads
#   "FP ABI: Soft float" while it runs FPU instructions on registers the
#   caller did not set. So this libgcc.a is gcc's less every member that
#   touches an FPU register (200 of 1875: float arithmetic, conversions,
#   complex, powi, MIPS16 stubs, fixed-point to float), the float-ABI tags
#   (.gnu.attributes, .MIPS.abiflags) taken off the rest (integer code:
#   __divdi3, __lshrdi3, __clzsi2, ...), plus soft-float routines built
#   with -msoft-float: glibc's soft-fp (from bookworm's glibc-source; gcc's
#   libgcc/soft-fp is a copy of it) for what libgcc's soft-fp builds for
#   SF and DF, and __mul?c3, __div?c3, __powi?f2 as libgcc2.c has them
#   (gcc 11's division; musl's complex functions call __muldc3).
#   crtbeginS.o and crtendS.o (integer code) lose their tags too. No
#   libgcc_eh.a (its unwinder saves FPU registers): C needs none.
# Both are kept in $CACHE (musl by its version, libgcc by a hash of gcc's
# files) so that setting the prefix up again builds nothing.
MUSL_SRC=1.2.3-1
MUSL_DSC_SHA256=243a7462e9c751da662c4c61d4c96b6318c796ba302b72f6cdf74ea5427a9b4f

build_musl_sf() {	# build_musl_sf TMP DEST
	local tmp=$1 dest=$2 M d h n dsc=musl_$MUSL_SRC.dsc
	M=$(mirror | head -1); M=${M%/}
	[ -n "$M" ] || { echo "setup-cross: mips-sf: no Debian mirror in /etc/apt/sources.list*" >&2; return 1; }
	d=$M/pool/main/m/musl
	cd "$tmp"
	curl -sfL -o "$dsc" "$d/$dsc" || { echo "setup-cross: mips-sf: no $d/$dsc" >&2; return 1; }
	[ "$(sha256sum <"$dsc" | cut -d' ' -f1)" = "$MUSL_DSC_SHA256" ] ||
		{ echo "setup-cross: mips-sf: $dsc: SHA256 differs from the one in this script" >&2; return 1; }
	awk '/^Checksums-Sha256:/ { c = 1; next } c && /^ / { print $1, $3; next } { c = 0 }' "$dsc" |
	while read -r h n; do
		case $n in *.asc) continue ;; esac
		curl -sfL -o "$n" "$d/$n" || { echo "setup-cross: mips-sf: download of $d/$n failed" >&2; exit 1; }
		[ "$(sha256sum <"$n" | cut -d' ' -f1)" = "$h" ] ||
			{ echo "setup-cross: mips-sf: $n: SHA256 differs from $dsc" >&2; exit 1; }
	done
	echo "setup-cross: mips-sf: musl $MUSL_SRC from $d ($(echo musl_*.tar.*) checked against $dsc)"
	tar -xzf "musl_${MUSL_SRC%-*}.orig.tar.gz"
	cd "musl-${MUSL_SRC%-*}"
	tar -xJf "../musl_$MUSL_SRC.debian.tar.xz"
	if [ -s debian/patches/series ]; then
		grep -v '^#' debian/patches/series | while read -r n; do [ -z "$n" ] || patch -sp1 <"debian/patches/$n"; done
	fi
	mkdir -p src/fts	# debian/rules' copy_fts
	cp debian/musl-fts/fts.c debian/musl-fts/config.h src/fts/
	cp debian/musl-fts/fts.h include/
	echo "setup-cross: mips-sf: building musl (configure --target=mips-linux-gnu CFLAGS='-msoft-float -O2' --disable-shared)"
	if ! { ./configure --target=mips-linux-gnu CROSS_COMPILE=mips-linux-gnu- CFLAGS="-msoft-float -O2" \
	         --prefix=/ --disable-shared --disable-wrapper &&
	       grep -qx 'SUBARCH = -sf' config.mak &&
	       make -j"$(nproc)" && make install DESTDIR="$dest.new"; } >"$tmp/musl.log" 2>&1; then
		tail -15 "$tmp/musl.log" >&2
		echo "setup-cross: mips-sf: musl's build failed (or it is not the mips-sf subarch)" >&2
		return 1
	fi
	cd "$tmp"
}

# fpu FILE...: the objects (archive members) in FILE that touch an FPU
# register or the FPU control register, or branch on an FPU condition
fpu() {
	mips-linux-gnu-objdump -d "$@" | awk '/file format/ { m = $1; sub(/:$/, "", m) }
		/\$f[0-9]/ || /\t(cfc1|ctc1|bc1[tf]l?)\t/ { fp[m] = 1 } END { for (x in fp) print x }'
}

build_libgcc_sf() {	# build_libgcc_sf TMP DEST
	local tmp=$1 dest=$2 lg gd deb S f m o fns
	local -a CF=(-msoft-float -O2 -fPIC -fno-stack-protector)
	lg=$(mips-linux-gnu-gcc -print-libgcc-file-name); gd=$(dirname "$lg")
	cd "$tmp"
	if ! apt-get download -q -o APT::Sandbox::User=root glibc-source >apt.log 2>&1; then
		apt_update
		apt-get download -q -o APT::Sandbox::User=root glibc-source >apt.log 2>&1 ||
			{ tail -3 apt.log >&2; return 1; }
	fi
	deb=$(echo glibc-source_*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/glibc/glibc-*.tar.xz' |
		tar -xJ --wildcards 'glibc-*/soft-fp/*' 'glibc-*/sysdeps/mips/mips32/sfp-machine.h' 'glibc-*/stdlib/longlong.h' 'glibc-*/COPYING.LIB'
	S=$(echo "$tmp"/glibc-[0-9]*); mkdir sf lg
	echo "setup-cross: mips-sf: soft-float libgcc from $deb's soft-fp and gcc's $lg"
	cp "$S"/soft-fp/*.h "$S/stdlib/longlong.h" sf/
	cp "$S/sysdeps/mips/mips32/sfp-machine.h" sf/mips32-sfp-machine.h
	cat >sf/sfp-machine.h <<'EOF'
/* glibc's mips32 sfp-machine.h and what libgcc's adds to it */
#include "mips32-sfp-machine.h"
#define __LITTLE_ENDIAN 1234
#define __BIG_ENDIAN 4321
#ifdef _MIPSEB
# define __BYTE_ORDER __BIG_ENDIAN
#else
# define __BYTE_ORDER __LITTLE_ENDIAN
#endif
#define strong_alias(name, aliasname) \
  extern __typeof (name) aliasname __attribute__ ((alias (#name)));
EOF
	cat >sf/libgcc2-fp.c <<'EOF'
/* libgcc2.c's __mul?c3, __div?c3 (gcc 11's) and __powi?f2, for T */
#define isnan __builtin_isnan
#define isinf __builtin_isinf
#define isfinite __builtin_isfinite
#define INF ((T)__builtin_inf ())
T _Complex MUL (T a, T b, T c, T d)
{
  T ac = a * c, bd = b * d, ad = a * d, bc = b * c, x = ac - bd, y = ad + bc;
  T _Complex r;
  if (isnan (x) && isnan (y))
    {
      _Bool recalc = 0;
      if (isinf (a) || isinf (b))
	{
	  a = COPYSIGN (isinf (a) ? 1 : 0, a); b = COPYSIGN (isinf (b) ? 1 : 0, b);
	  if (isnan (c)) c = COPYSIGN (0, c);
	  if (isnan (d)) d = COPYSIGN (0, d);
	  recalc = 1;
	}
      if (isinf (c) || isinf (d))
	{
	  c = COPYSIGN (isinf (c) ? 1 : 0, c); d = COPYSIGN (isinf (d) ? 1 : 0, d);
	  if (isnan (a)) a = COPYSIGN (0, a);
	  if (isnan (b)) b = COPYSIGN (0, b);
	  recalc = 1;
	}
      if (!recalc && (isinf (ac) || isinf (bd) || isinf (ad) || isinf (bc)))
	{
	  if (isnan (a)) a = COPYSIGN (0, a);
	  if (isnan (b)) b = COPYSIGN (0, b);
	  if (isnan (c)) c = COPYSIGN (0, c);
	  if (isnan (d)) d = COPYSIGN (0, d);
	  recalc = 1;
	}
      if (recalc)
	{
	  x = INF * (a * c - b * d);
	  y = INF * (a * d + b * c);
	}
    }
  __real__ r = x; __imag__ r = y;
  return r;
}
T _Complex DIV (T a, T b, T c, T d)
{
  T denom, ratio, x, y;
  T _Complex r;
  if (FABS (c) < FABS (d))
    {
      ratio = c / d; denom = (c * ratio) + d;
      x = ((a * ratio) + b) / denom; y = ((b * ratio) - a) / denom;
    }
  else
    {
      ratio = d / c; denom = (d * ratio) + c;
      x = ((b * ratio) + a) / denom; y = (b - (a * ratio)) / denom;
    }
  if (isnan (x) && isnan (y))
    {
      if (c == 0.0 && d == 0.0 && (!isnan (a) || !isnan (b)))
	{
	  x = COPYSIGN (INF, c) * a; y = COPYSIGN (INF, c) * b;
	}
      else if ((isinf (a) || isinf (b)) && isfinite (c) && isfinite (d))
	{
	  a = COPYSIGN (isinf (a) ? 1 : 0, a); b = COPYSIGN (isinf (b) ? 1 : 0, b);
	  x = INF * (a * c + b * d); y = INF * (b * c - a * d);
	}
      else if ((isinf (c) || isinf (d)) && isfinite (a) && isfinite (b))
	{
	  c = COPYSIGN (isinf (c) ? 1 : 0, c); d = COPYSIGN (isinf (d) ? 1 : 0, d);
	  x = 0.0 * (a * c + b * d); y = 0.0 * (b * c - a * d);
	}
    }
  __real__ r = x; __imag__ r = y;
  return r;
}
T POWI (T x, int m)
{
  unsigned int n = m < 0 ? -(unsigned int) m : (unsigned int) m;
  T y = n % 2 ? x : 1;
  while (n >>= 1)
    {
      x = x * x;
      if (n % 2)
	y = y * x;
    }
  return m < 0 ? 1 / y : y;
}
EOF
	# libgcc's soft-fp list for SF and DF (t-softfp, t-softfp-sfdf)
	fns="extendsfdf2 truncdfsf2"
	for m in sf df; do
		fns="$fns add${m}3 sub${m}3 mul${m}3 div${m}3 neg${m}2 eq${m}2 ge${m}2 le${m}2 unord${m}2"
		fns="$fns fix${m}si fixuns${m}si floatsi${m} floatunsi${m} fix${m}di fixuns${m}di floatdi${m} floatundi${m}"
	done
	for f in $fns; do mips-linux-gnu-gcc "${CF[@]}" -Isf -c "$S/soft-fp/$f.c" -o "sf/$f.o"; done
	mips-linux-gnu-gcc "${CF[@]}" -DT=float -DMUL=__mulsc3 -DDIV=__divsc3 -DPOWI=__powisf2 \
		-DCOPYSIGN=__builtin_copysignf -DFABS=__builtin_fabsf -c sf/libgcc2-fp.c -o sf/libgcc2-sf.o
	mips-linux-gnu-gcc "${CF[@]}" -DT=double -DMUL=__muldc3 -DDIV=__divdc3 -DPOWI=__powidf2 \
		-DCOPYSIGN=__builtin_copysign -DFABS=__builtin_fabs -c sf/libgcc2-fp.c -o sf/libgcc2-df.o
	mkdir -p "$dest.new"
	cp "$lg" lg/libgcc.a
	mapfile -t o < <(fpu lg/libgcc.a)
	[ ${#o[@]} -gt 0 ] || { echo "setup-cross: mips-sf: no FPU code found in $lg (objdump failed?)" >&2; return 1; }
	mips-linux-gnu-ar d lg/libgcc.a "${o[@]}"
	mips-linux-gnu-objcopy -R .gnu.attributes -R .MIPS.abiflags lg/libgcc.a "$dest.new/libgcc.a"
	mips-linux-gnu-ar rs "$dest.new/libgcc.a" sf/*.o
	[ -z "$(fpu "$dest.new/libgcc.a")" ] || { echo "setup-cross: mips-sf: FPU code left in libgcc.a" >&2; return 1; }
	for f in crtbeginS.o crtendS.o crtbegin.o crtend.o crtbeginT.o; do
		[ -z "$(fpu "$gd/$f")" ] || { echo "setup-cross: mips-sf: $gd/$f uses the FPU" >&2; return 1; }
		mips-linux-gnu-objcopy -R .gnu.attributes -R .MIPS.abiflags "$gd/$f" "$dest.new/$f"
	done
	cp "$S/COPYING.LIB" "$dest.new/COPYING.LIB.soft-fp"
	echo "setup-cross: mips-sf: libgcc.a: $(mips-linux-gnu-ar t "$lg" | wc -l) members of gcc's," \
		"${#o[@]} with FPU code taken out, $(find sf -name '*.o' | wc -l) soft-float ones added"
}

setup_mips_sf() {
	local P=$XPREFIX/mips-sf C=$CACHE/mips-sf-musl-$MUSL_SRC G gd key t out
	gd=$(dirname "$(mips-linux-gnu-gcc -print-libgcc-file-name)")
	key=$(cat "$gd"/libgcc.a "$gd"/crt*.o | sha256sum | cut -c1-12)
	G=$CACHE/mips-sf-libgcc-$key
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT	# (not local: the trap runs as this arch's subshell ends)
	mkdir -p "$CACHE"
	if [ -f "$C/.done" ]; then
		echo "setup-cross: mips-sf: musl from the cache, $C"
	else
		rm -rf "$C" "$C.new"
		build_musl_sf "$tmp" "$C"
		touch "$C.new/.done"; mv "$C.new" "$C"
	fi
	if [ -f "$G/.done" ]; then
		echo "setup-cross: mips-sf: libgcc from the cache, $G"
	else
		rm -rf "$G" "$G.new"
		build_libgcc_sf "$tmp" "$G"
		touch "$G.new/.done"; mv "$G.new" "$G"
	fi
	rm -rf "$P.new"; mkdir -p "$P.new"
	cp -a "$C/include" "$C/lib" "$P.new/"
	mkdir "$P.new/lib/gcc"; cp -a "$G"/*.o "$G"/libgcc.a "$G"/COPYING.LIB.soft-fp "$P.new/lib/gcc/"
	write_specs "$P.new/lib/musl-gcc.specs" "$P" /lib/ld-musl-mips-sf.so.1 "$P/lib/gcc"
	rm -rf "$P"; mv "$P.new" "$P"
	write_wrapper mips-linux-muslsf mips-linux-gnu "$P/lib/musl-gcc.specs" -msoft-float
	# a static program with float arithmetic: soft float by its tags,
	# and not one FPU instruction in it
	t=$tmp/fp
	printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
		'int main(int argc, char **argv) { volatile double d = argc * 1.5; volatile float f = (float)d / 3;' \
		'printf("%g %g %lld %g\n", d * 2.25 - 1, (double)f, (long long)(d * 1e12), strtod("0.1", 0) * 3); return 0; }' >"$t.c"
	/usr/local/bin/mips-linux-muslsf-gcc -O2 -static -o "$t" "$t.c"
	mips-linux-gnu-readelf -A "$t" | grep -q 'FP ABI: Soft float' ||
		{ echo "setup-cross: mips-sf: a test program is not soft float:" >&2; mips-linux-gnu-readelf -A "$t" >&2; return 1; }
	[ -z "$(fpu "$t")" ] || { echo "setup-cross: mips-sf: a test program has FPU instructions" >&2; return 1; }
	if command -v qemu-mips-static >/dev/null 2>&1; then
		out=$(qemu-mips-static -cpu 24Kc "$t")
		[ "$out" = "2.375 0.5 1500000000000 0.3" ] ||
			{ echo "setup-cross: mips-sf: a test program printed '$out' under qemu-mips-static -cpu 24Kc" >&2; return 1; }
		echo "setup-cross: mips-sf: a float test ran right under qemu-mips-static -cpu 24Kc"
	fi
	echo "setup-cross: mips-sf: musl and the soft-float libgcc in $P; the wrapper adds -msoft-float;" \
		"a static float test program: 'FP ABI: Soft float', no FPU instructions"
}

pkgs=()
need_update=0
todo=()
for a in "${arches[@]}"; do
	read -r darch gnu musl qemu <<<"$(spec "$a")"
	if cc_works "$musl-gcc"; then
		[ "$a" = x86_64 ] || link_binutils "$gnu" "$musl"
		echo "setup-cross: $a: $musl-gcc already present"
	elif [ "$a" = x86_64 ]; then
		todo+=("$a")
		pkgs+=(musl-tools gcc)
	elif is_local "$a"; then
		# the gnu cross gcc alone (no dpkg architecture added), and
		# what setup_<arch> runs: curl for the mirror, xz for tarballs,
		# make for musl's build
		todo+=("$a")
		command -v "$gnu-gcc" >/dev/null 2>&1 || pkgs+=("gcc-$gnu")
		command -v curl >/dev/null 2>&1 || pkgs+=(curl)
		command -v xz >/dev/null 2>&1 || pkgs+=(xz-utils)
		[ "$a" != mips-sf ] || command -v make >/dev/null 2>&1 || pkgs+=(make)
	else
		todo+=("$a")
		if ! dpkg --print-foreign-architectures | grep -qx "$darch" &&
		   [ "$(dpkg --print-architecture)" != "$darch" ]; then
			$SUDO dpkg --add-architecture "$darch"
			need_update=1
		fi
		pkgs+=("gcc-$gnu" "musl-dev:$darch")
	fi
	if [ $want_qemu = 1 ] && ! command -v "qemu-$qemu-static" >/dev/null 2>&1; then
		pkgs+=(qemu-user-static)
	fi
done

# riscv64, mips and mips-sf write /usr/local and /var/cache: as root.
if [ -n "$SUDO" ]; then
	for a in "${todo[@]}"; do
		if is_local "$a"; then exec sudo -- "$0" "$@"; fi
	done
fi

if [ ${#pkgs[@]} -gt 0 ]; then
	# Deduplicate (qemu-user-static may be listed once per arch).
	mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++')
	if [ $need_update = 0 ]; then
		for p in "${pkgs[@]}"; do
			apt-cache show --no-all-versions "$p" >/dev/null 2>&1 || { need_update=1; break; }
		done
	fi
	if [ $need_update = 1 ]; then apt_update; fi
	echo "setup-cross: apt-get install ${pkgs[*]}"
	if ! $SUDO apt-get install -qq "${APT_OPTS[@]}" "${pkgs[@]}" >/dev/null; then
		# Stale lists (404 on a superseded .deb): refresh once and retry.
		echo "setup-cross: install failed; apt-get update and retry"
		apt_update
		$SUDO apt-get install -qq "${APT_OPTS[@]}" "${pkgs[@]}" >/dev/null
	fi
fi

rc=0
for a in "${todo[@]}"; do
	read -r darch gnu musl qemu <<<"$(spec "$a")"
	if is_local "$a"; then
		# in a subshell under set -e (which a function called from an
		# 'if' would not have): the first failing step ends this arch
		t0=$(date +%s)
		set +e
		( set -eE
		  trap '[[ $BASH_COMMAND == return* ]] || echo "setup-cross: $a: failed (line $LINENO: $BASH_COMMAND)" >&2' ERR
		  "setup_${a//-/_}" )
		st=$?
		set -e
		if [ $st != 0 ]; then
			echo "setup-cross: $a: no $musl-gcc" >&2; rc=1; continue
		fi
		echo "setup-cross: $a: set up in $(( $(date +%s) - t0 ))s"
	fi
	[ "$a" = x86_64 ] || link_binutils "$gnu" "$musl"
	if cc_works "$musl-gcc"; then
		echo "setup-cross: $a: installed $musl-gcc$([ "$a" = x86_64 ] || echo " (strip: $musl-strip -> $gnu-strip)")"
	else
		echo "setup-cross: $a: $musl-gcc still does not link a static program" >&2
		rc=1
	fi
done

if [ $want_qemu = 1 ]; then
	for a in "${arches[@]}"; do
		read -r darch gnu musl qemu <<<"$(spec "$a")"
		if command -v "qemu-$qemu-static" >/dev/null 2>&1; then
			echo "setup-cross: $a: run with qemu-$qemu-static$([ "$a" != mips-sf ] || echo ' -cpu 24Kc') ./tracer"
		else
			echo "setup-cross: $a: qemu-$qemu-static missing" >&2; rc=1
		fi
	done
fi

end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "setup-cross: done in %.1fs\n", e - s }'
exit $rc
