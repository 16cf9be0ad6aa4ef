#!/usr/bin/env bash
# The x86_64 kernel with pstore pmsg that test/qemu.sh's x86_64/pmsg guest
# boots (scenario m). No Debian kernel has PSTORE_PMSG, and
# ../shared/kernels is read-only, so it is built here from Debian's own
# linux-source-6.1, once, into a folder outside the tree, and reused:
#
#   test/mkpmsg.sh DIR    -> DIR/bzImage DIR/System.map DIR/config DIR/.done
#
# About 5 minutes on 2 CPUs, most of it the compile. The recipe is the
# one of ../shared/kernels/README.md: tinyconfig, then what the guest
# needs (serial console, initramfs, e1000, perf events, ftrace with
# syscalls and snapshot), plus PSTORE PSTORE_RAM PSTORE_PMSG
# PSTORE_CONSOLE and PANIC_TIMEOUT=1; no modules. A half-built folder is
# never taken for done (it is built aside and renamed).
set -u
DIR=${1:?usage: test/mkpmsg.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -e "$DIR/.done" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
die() { echo "mkpmsg: $*" >&2; exit 1; }
pkgs=
for p in make:make gcc:gcc flex:flex bison:bison bc:bc xz:xz-utils; do
	command -v "${p%%:*}" >/dev/null || pkgs="$pkgs ${p#*:}"
done
[ -e /usr/include/libelf.h ] || pkgs="$pkgs libelf-dev"	# objtool
command -v curl >/dev/null || pkgs="$pkgs curl"	# test/aptsuite.sh
# linux-source-6.1 from the machine's apt where it has that exact package
# (bookworm); apt-get takes a name it does not know as a regex, and on
# trixie installed linux-source-6.12 for it. Elsewhere bookworm's .deb
# through test/aptsuite.sh, unpacked here, nothing installed.
TXZ=/usr/src/linux-source-6.1.tar.xz SRCDEB=
if [ ! -e $TXZ ]; then
	if apt-cache pkgnames linux-source-6.1 | grep -qx linux-source-6.1; then pkgs="$pkgs linux-source-6.1"
	else SRCDEB=1; fi
fi
if [ -n "$pkgs" ]; then
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 $pkgs >/dev/null ||
		die "apt-get install$pkgs failed"
fi
B=$DIR.build
rm -rf "$B"; mkdir -p "$B" || die "mkdir $B"
if [ -n "$SRCDEB" ]; then
	d=$(cd "$B" && "$HERE"/aptsuite.sh bookworm amd64 download linux-source-6.1) ||
		die "no linux-source-6.1 in apt nor in bookworm (test/aptsuite.sh)"
	dpkg-deb -x "$B/$d" "$B/deb" && rm -f "$B/$d" || die "dpkg-deb -x $d"
	TXZ=$B/deb$TXZ
	echo "mkpmsg: $d from bookworm"
fi
tar -C "$B" -xJf "$TXZ" || die "unpack linux-source-6.1"
rm -rf "$B/deb"
S=$(echo "$B"/linux-source-*)
[ -d "$S" ] || die "no source tree in $B"
cd "$S" || exit 1
make -s ARCH=x86_64 tinyconfig >/dev/null || die "tinyconfig"
# MISC_FILESYSTEMS hides PSTORE; NETDEVICES ETHERNET NET_VENDOR_INTEL hide E1000
scripts/config $(for o in 64BIT SMP HOTPLUG_CPU SIGNALFD EPOLL FUTEX POSIX_TIMERS MULTIUSER SHMEM TMPFS \
	KALLSYMS KALLSYMS_ALL PRINTK PRINTK_TIME DEVTMPFS BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT \
	TTY SERIAL_8250 SERIAL_8250_CONSOLE PCI NET INET UNIX PACKET NETDEVICES ETHERNET NET_VENDOR_INTEL \
	E1000 ACPI PERF_EVENTS FTRACE FTRACE_SYSCALLS EVENT_TRACING TRACER_SNAPSHOT RELOCATABLE PROC_FS \
	SYSFS MAGIC_SYSRQ HIGH_RES_TIMERS RTC_CLASS RTC_DRV_CMOS DEVMEM DEVPORT UNIX98_PTYS \
	MISC_FILESYSTEMS PSTORE PSTORE_RAM PSTORE_PMSG PSTORE_CONSOLE; do echo "-e $o"; done) \
	--set-val PANIC_TIMEOUT 1 -d RETPOLINE -d STACK_VALIDATION -d MODULES || die "scripts/config"
rm -f include/config/auto.conf
make -s ARCH=x86_64 olddefconfig >/dev/null || die "olddefconfig"
for o in PSTORE_PMSG PSTORE_RAM FTRACE_SYSCALLS E1000 SERIAL_8250_CONSOLE; do
	grep -q "^CONFIG_$o=y" .config || die "CONFIG_$o did not stay on"
done
make -s ARCH=x86_64 -j"$(nproc)" bzImage >"$B/make.log" 2>&1 || die "make bzImage: $(tail -5 "$B/make.log")"
T=$DIR.new
rm -rf "$T"; mkdir -p "$T"
cp arch/x86/boot/bzImage System.map "$T/" && cp .config "$T/config" || die "copy the kernel out"
echo "$(make -s kernelversion) from Debian's linux-source-6.1, built by test/mkpmsg.sh" >"$T/README"
touch "$T/.done"
cd / && rm -rf "$DIR" "$B" && mv "$T" "$DIR" || die "rename $T"
