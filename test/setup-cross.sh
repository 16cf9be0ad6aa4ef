#!/usr/bin/env bash
# Install musl cross toolchains from Debian's own packages, so that
#   make CROSS_COMPILE=aarch64-linux-musl-
#   make CROSS_COMPILE=arm-linux-musleabihf-
#   make CROSS_COMPILE=s390x-linux-musl-
#   make CROSS_COMPILE=i386-linux-musl-
#   make CROSS_COMPILE=mipsel-linux-musl-
#   make CROSS_COMPILE=mips64el-linux-musl-
#   make CROSS_COMPILE=powerpc64le-linux-musl-
# work. Recipe per arch: the Debian gnu cross gcc (which pulls in the gnu
# cross binutils) plus the foreign-arch musl-dev, which ships the
# <musl-triplet>-gcc wrapper, musl's crt files, libc.a and a specs file.
#
# Binutils come as <gnu-triplet>-strip etc. (e.g. aarch64-linux-gnu-strip);
# this script also links <musl-triplet>-{strip,objcopy,...} to them in
# /usr/local/bin so that $(CROSS_COMPILE)strip exists.
#
# Usage: test/setup-cross.sh [--qemu] [aarch64|armhf|s390x|i386|mipsel|mips64el|ppc64el ...]
#         (default: aarch64 armhf s390x; 'all' is all seven)
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
	s390x) arches+=(s390x) ;;
	i386|i686|x86) arches+=(i386) ;;
	mipsel) arches+=(mipsel) ;;
	mips64el) arches+=(mips64el) ;;
	ppc64el|ppc64le|powerpc64le) arches+=(ppc64el) ;;
	-h|--help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "setup-cross: unknown arch '$a' (want aarch64, armhf, s390x, i386, mipsel, mips64el, ppc64el)" >&2; exit 2 ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(aarch64 armhf s390x)

# arch -> "dpkg-arch gnu-triplet musl-triplet qemu-name"
spec() {
	case "$1" in
	aarch64) echo "arm64 aarch64-linux-gnu aarch64-linux-musl aarch64" ;;
	armhf)   echo "armhf arm-linux-gnueabihf arm-linux-musleabihf arm" ;;
	s390x)   echo "s390x s390x-linux-gnu s390x-linux-musl s390x" ;;
	# the musl triplet as musl-dev names its gcc wrapper
	# (i386-linux-musl-gcc runs i686-linux-gnu-gcc)
	i386)     echo "i386 i686-linux-gnu i386-linux-musl i386" ;;
	mipsel)   echo "mipsel mipsel-linux-gnu mipsel-linux-musl mipsel" ;;
	mips64el) echo "mips64el mips64el-linux-gnuabi64 mips64el-linux-musl mips64el" ;;
	ppc64el)  echo "ppc64el powerpc64le-linux-gnu powerpc64le-linux-musl ppc64le" ;;
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

pkgs=()
need_update=0
todo=()
for a in "${arches[@]}"; do
	read -r darch gnu musl qemu <<<"$(spec "$a")"
	if cc_works "$musl-gcc"; then
		link_binutils "$gnu" "$musl"
		echo "setup-cross: $a: $musl-gcc already present"
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
	link_binutils "$gnu" "$musl"
	if cc_works "$musl-gcc"; then
		echo "setup-cross: $a: installed $musl-gcc (strip: $musl-strip -> $gnu-strip)"
	else
		echo "setup-cross: $a: $musl-gcc still does not link a static program" >&2
		rc=1
	fi
done

if [ $want_qemu = 1 ]; then
	for a in "${arches[@]}"; do
		read -r darch gnu musl qemu <<<"$(spec "$a")"
		if command -v "qemu-$qemu-static" >/dev/null 2>&1; then
			echo "setup-cross: $a: run with qemu-$qemu-static ./tracer"
		else
			echo "setup-cross: $a: qemu-$qemu-static missing" >&2; rc=1
		fi
	done
fi

end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "setup-cross: done in %.1fs\n", e - s }'
exit $rc
