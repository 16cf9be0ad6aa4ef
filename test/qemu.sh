#!/bin/bash
# test/qemu.sh ARCH [KERNEL] - tracer end to end in a QEMU (TCG) guest
# booting a distribution kernel of the line KERNEL for ARCH, judged by
# host perf with --symfs and the kernel's System.map.
#
#   make test-qemu                       (every guest of the set below)
#   make test-qemu ARCH=aarch64 KERNEL=5.10
#   make test-qemu ARCH=mips CPU=24Kc    (big-endian MIPS, no FPU: soft-float binaries)
#   bash test/qemu.sh x86_64 4.9
#
# ARCH: x86_64, aarch64, armhf, s390x, i386, mipsel, mips64el, ppc64el
# (Debian's kernels, 6.1 unless KERNEL says), riscv64 (Debian 13's 6.12),
# mips (big-endian, the kernel, busybox and musl of
# ../shared/kernels/mips-be-6.1.176; -cpu 24Kf, or CPU=24Kc).
# KERNEL: 5.10 (Debian 11), 6.1 (Debian 12), 6.12 (Debian 13), taken
# from the mirror of the machine's apt sources (test/aptsuite.sh, the
# System.map out of the -dbg package by test/debpick.py); 4.9 and 4.4
# (x86_64, ../shared/kernels: no modules, drivers built in). On 4.4,
# which has no backward ring buffers, defconfig's tracer (OLDKERNEL on,
# as make dist builds it) runs every scenario; r checks that a build
# without OLDKERNEL refuses at start and says why.
# ARCH=all (the default of make test-qemu) runs the set in GUESTS below.
#
# Stages (each timed): setup (apt: qemu, cpio, cross toolchain; the kernel
# and busybox-static .debs of ARCH, cached), build (tracer for ARCH from a
# copy of the work tree, the workload /bin/wk_hot with symbols, the host
# tracer for -x), initramfs (busybox, tracer, wk_hot, modules, /init =
# test/qemu-init.sh), boot (the guest runs the scenarios and powers off),
# decode (perf script/report of the three transports, PASS/FAIL lines;
# then the reader matrix: the other perfs of test/setup-readers.sh (6.1,
# 6.12, the newest) must decode every dump field for field as the host's).
#
# Transports: a) -o PORT on a dedicated port (x86 and MIPS ttyS1, ppc64el
# the second spapr-vty hvc1, else virtio console hvc0) captured by QEMU
# into a file; b) frame=text on the console shared with the kernel,
# extracted with `tracer -x`; c) tracer | nc -l in the guest, read by the
# host through hostfwd on 127.0.0.1 only.
#
# Signal numbers are the target's (SIGUSR1 is 10, on MIPS 16), taken from
# the cross toolchain's musl <signal.h>: the filters in TRACER_CONFIG and
# the sig= the decode checks look for.
#
# d: what used to break, after c: -o on a file that exists (left as it
# is, the dump goes to FILE.1), a count=300 tripwire (every hit counted,
# 64 KiB pages too), SIGBUS trips trip=segv, an exited process's comm,
# symbols and build-id (none before 4.11: no statx) after 300 short
# ones, cpu2 offline and back with an exec on it the moment tracer says
# it records it again (x86_64: 4 CPUs; aarch64: 8), every CPU's ring
# merged in time order (aarch64: 8 CPUs).
#
# n: numbered records: a workload on cpu 0 closes fds 100000, 100001, ...
# in order (raw_syscalls:sys_enter/id==close/ buf=16m cpus=0 zstd), about 1.7
# times what the ring holds, through the kernel's read path (6.10+:
# mapped pages; before, snapshot swaps where the kernel has
# TRACER_SNAPSHOT, else consuming reads), then SIGINT: the final dump
# holds the newest close and every one before it that cpu 0's ring held
# (the kernel's entries), in order, and its line does not say it covers
# all since the start. Not on aarch64 and armhf 5.10 nor the 24Kc, which
# read as their 6.1 and 24Kf guests do (ONLY=n runs it there).
#
# h: hardware counters (aarch64 6.1, a QEMU of its own under -icount
# shift=2): tracer -l lists cycles and instructions and not cache-misses,
# which tracer says this CPU's PMU lacks; 'cycles@999 instructions@999
# stack' while wk_hot spins 1000 ms on each CPU: both on every CPU,
# kernel callchains named, the spins' periods against their length.
#
# B: make bench's dur phase (ONLY=B, never by default): pingpong round
# trips with no tracer, a config, the config with trip=wakeup>5ms armed,
# 10 rounds; test/bench/run.sh reads the QT B lines of qt.txt.
#
# Environment: QEMU_TIMEOUT (s, default 400), TRACER_QEMU_CACHE (default
# /var/cache/tracer-qemu), ONLY=abcdn (scenarios to run; x86_64 6.12
# adds p, a boot of its own that panics five times, P_BOOTS=5; aarch64 6.1
# adds h, one under -icount shift=H_SHIFT, default 2), SMP (default 2;
# 4 on x86_64, 8 on aarch64, 1 on MIPS), KERNEL, CPU,
# HOSTPORT (default 9000 + arch index), TRACER_SRC (the tree whose
# Makefile Kconfig *.c *.h lib/ are built, default this work tree),
# TRACER_KERNELS (default ../shared/kernels). Everything of a run stays
# in $TRACER_QEMU_CACHE/ARCH/run-KERNEL[-CPU]: console.log, a.data,
# b.data*, c.data, *.script, *.report, root/ (the --symfs).
# Ends with "N passed, N failed"; exit 1 when anything failed.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
. test/lib.sh

ARCH=${1:-${ARCH:-x86_64}}
KERNEL=${2:-${KERNEL:-}} CPU=${CPU:-}
CACHE=${TRACER_QEMU_CACHE:-/var/cache/tracer-qemu}
TIMEOUT=${QEMU_TIMEOUT:-400}	# (aarch64 6.1 with w and d: over 180 s; w idles 2 x 60 s on x86_64)
ONLY_GIVEN=${ONLY:+1}
ONLY=${ONLY:-abcdn}
SRC=${TRACER_SRC:-$TOP}
export DEBIAN_FRONTEND=noninteractive

# the set ARCH=all runs: ARCH KERNEL [CPU], the first eight as before
GUESTS="x86_64/6.1 aarch64/6.1 armhf/6.1 s390x/6.1 i386/6.1 mipsel/6.1 mips64el/6.1 ppc64el/6.1
x86_64/4.9 x86_64/5.10 x86_64/6.12 x86_64/4.4 aarch64/5.10 armhf/5.10 riscv64/6.12 mips/6.1 mips/6.1/24Kc x86_64/pmsg"
# First every guest's setup, one at a time (apt, the toolchains, the
# kernels), and the reader chroots once; then the guests in one lane, or
# with QEMU_LANES=2 in two at once: those whose QEMU runs in one host
# thread (x86's TCG, MIPS's one vCPU) in one, the others in the other.
# (On this 2-CPU host two lanes were no faster: TCG keeps both CPUs busy,
# and each guest took about twice as long.)
LANE1="x86_64/6.1 x86_64/4.9 x86_64/5.10 x86_64/6.12 x86_64/4.4 x86_64/pmsg i386/6.1 mipsel/6.1 mips/6.1"
if [ "$ARCH" = all ]; then
	P=0 F=0 S= L1= L2=
	qc=${TRACER_QEMU_CACHE:-/var/cache/tracer-qemu}
	mkdir -p "$qc"
	test/setup-readers.sh perfs >"$qc.readers.log" 2>&1 ||
		echo "setup-readers failed (the reader matrix will SKIP): $(cat "$qc.readers.log")"
	export QEMU_READERS_DONE=1
	for g in $GUESTS; do
		IFS=/ read -r a k c <<<"$g"
		QEMU_SETUP_ONLY=1 KERNEL=$k CPU=$c bash "$0" "$a" >"/tmp/tracer-qemu-${g//\//-}.log" 2>&1 ||
			echo "== $g: setup: $(tail -1 "/tmp/tracer-qemu-${g//\//-}.log")"
		case " $LANE1 " in *" $g "*) L1="$L1 $g" ;; *) L2="$L2 $g" ;; esac
	done
	[ "${QEMU_LANES:-1}" = 2 ] || L1="$L1 $L2" L2=
	lane() {
		local g a k c l
		for g in "$@"; do
			IFS=/ read -r a k c <<<"$g"
			l=/tmp/tracer-qemu-${g//\//-}.log
			KERNEL=$k CPU=$c bash "$0" "$a" >"$l" 2>&1
			cat "$l"; echo "== $g: $(tail -1 "$l")"
		done
	}
	lane $L1 &
	p1=$!
	lane $L2
	wait $p1
	# and last, with the toolchains all there: make dist, judged
	bash test/dist.sh --test >/tmp/tracer-qemu-dist.log 2>&1
	cat /tmp/tracer-qemu-dist.log; echo "== dist: $(tail -1 /tmp/tracer-qemu-dist.log)"
	for g in $GUESTS dist; do
		l=/tmp/tracer-qemu-${g//\//-}.log
		set -- $(tail -1 "$l")
		[ "${2:-}" = passed, ] && P=$((P + $1)) F=$((F + $3)) || F=$((F + 1))
		S="$S== $g: $(tail -1 "$l"), $(sed -n 's/^== total [^:]*: //p' "$l")$(grep -m1 '^SKIP' "$l" | sed 's/^/ /')
"
	done
	printf '%s' "$S"
	for g in $GUESTS dist; do	# the failures again, where a CI log's tail shows them
		sed -n '/^== the failures again:/,$p' "/tmp/tracer-qemu-${g//\//-}.log" 2>/dev/null | grep '^FAIL' | sed "s|^|$g: |"
	done
	echo "$P passed, $F failed"
	[ $F = 0 ]; exit
fi

# ---------------------------------------------------------------- stages
T0=$(date +%s.%N) STAGE= STAGE_T=
stage() {
	local now; now=$(date +%s.%N)
	[ -n "$STAGE" ] && awk -v s="$STAGE_T" -v e="$now" -v n="$STAGE" 'BEGIN { printf "== stage %s: %.1fs\n", n, e - s }'
	STAGE=$1 STAGE_T=$now
	[ -n "$1" ] && echo "== $1 ($ARCH)"
}
finish() {
	stage ""
	[ -z "${S3D:-}" ] || bash test/s3.sh stop "$S3D" 2>/dev/null
	awk -v s="$T0" -v e="$(date +%s.%N)" -v a="$ARCH" 'BEGIN { printf "== total %s: %.1fs\n", a, e - s }'
	echo "results in $R"
	report
	exit
}
setup_fail() { fail "setup: $1" "${2:-}"; finish; }

# ------------------------------------------------------------ arch table
# QEMU_ARGS: machine; CON_ARGS: console chardev; PORT_ARGS: the dedicated
# port (%PORT% = capture file); NIC: the network device; MODS: modules to
# load (dependencies are added); SMP_DEF: CPUs unless SMP says.
SMP_DEF=2
case $ARCH in
x86_64)
	DARCH=amd64 KMETA=linux-image-amd64 QPKG=qemu-system-x86 QEMU=qemu-system-x86_64
	CROSS= WCC=musl-gcc IDX=0 SMP_DEF=4	# d: cpu2 goes offline and back
	QEMU_ARGS=(-M pc -cpu max -m 512M)
	CON=ttyS0 PORT_DEV=/dev/ttyS1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -serial chardev:port)
	NIC=e1000 MODS="e1000" ;;
aarch64)
	DARCH=arm64 KMETA=linux-image-arm64 QPKG=qemu-system-arm QEMU=qemu-system-aarch64
	CROSS=aarch64-linux-musl- IDX=1 SMP_DEF=8	# d: eight rings merged
	QEMU_ARGS=(-M virt -cpu cortex-a57 -m 512M)
	CON=ttyAMA0 PORT_DEV=/dev/hvc0
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-device virtio-serial-device -chardev "file,id=port,path=%PORT%" -device virtconsole,chardev=port)
	NIC=virtio-net-device MODS="virtio_mmio virtio_console virtio_net" ;;
armhf)
	DARCH=armhf KMETA=linux-image-armmp-lpae QPKG=qemu-system-arm QEMU=qemu-system-arm
	CROSS=arm-linux-musleabihf- IDX=2
	QEMU_ARGS=(-M virt -cpu cortex-a15 -m 512M)
	CON=ttyAMA0 PORT_DEV=/dev/hvc0
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-device virtio-serial-device -chardev "file,id=port,path=%PORT%" -device virtconsole,chardev=port)
	NIC=virtio-net-device MODS="virtio_mmio virtio_console virtio_net" ;;
s390x)
	DARCH=s390x KMETA=linux-image-s390x QPKG=qemu-system-misc QEMU=qemu-system-s390x
	CROSS=s390x-linux-musl- IDX=3
	QEMU_ARGS=(-M s390-ccw-virtio -cpu max -m 512M)
	CON=ttysclp0 PORT_DEV=/dev/hvc0
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -device sclpconsole,chardev=con)
	PORT_ARGS=(-device virtio-serial-ccw -chardev "file,id=port,path=%PORT%" -device virtconsole,chardev=port)
	NIC=virtio-net-ccw MODS="virtio_console virtio_net" ;;
i386)
	DARCH=i386 KMETA=linux-image-686 QPKG=qemu-system-x86 QEMU=qemu-system-i386
	CROSS=i386-linux-musl- IDX=4
	QEMU_ARGS=(-M pc -cpu max -m 512M)
	CON=ttyS0 PORT_DEV=/dev/ttyS1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -serial chardev:port)
	NIC=e1000 MODS="e1000" ;;
# MIPS Malta: the console and the port are the Super I/O UARTs ttyS0 and
# ttyS1, the NIC a PCI pcnet. -smp 1: with two CPUs under TCG the MIPS
# guest's clocks jump (CP0 count/compare timers per CPU): RCU stalls,
# "timer wakeup didn't happen", and scenario a hung until QEMU_TIMEOUT
# (SMP=2, Debian 6.1.0-50-4kc-malta, QEMU 7.2). The checks hold on one CPU.
mipsel)
	DARCH=mipsel KMETA=linux-image-4kc-malta QPKG=qemu-system-mips QEMU=qemu-system-mipsel
	CROSS=mipsel-linux-musl- IDX=5 SMP_DEF=1
	QEMU_ARGS=(-M malta -cpu 34Kf -m 256M)
	CON=ttyS0 PORT_DEV=/dev/ttyS1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -serial chardev:port)
	NIC=pcnet MODS="pcnet32" ;;
mips64el)
	DARCH=mips64el KMETA=linux-image-5kc-malta QPKG=qemu-system-mips QEMU=qemu-system-mips64el
	CROSS=mips64el-linux-musl- IDX=6 SMP_DEF=1
	QEMU_ARGS=(-M malta -cpu 5KEf -m 256M)
	CON=ttyS0 PORT_DEV=/dev/ttyS1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -serial chardev:port)
	NIC=pcnet MODS="pcnet32" ;;
# POWER9 pseries (64 KiB pages): the Spectre caps off, which TCG cannot
# provide; console and port on spapr-vty (hvc0, hvc1) at explicit regs,
# the default one collides with the nvram's.
ppc64el)
	DARCH=ppc64el KMETA=linux-image-powerpc64le QPKG=qemu-system-ppc QEMU=qemu-system-ppc64
	CROSS=powerpc64le-linux-musl- IDX=7
	QEMU_ARGS=(-M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -cpu power9 -m 512M)
	CON=hvc0 PORT_DEV=/dev/hvc1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -device spapr-vty,chardev=con,reg=0x71000010)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -device spapr-vty,chardev=port,reg=0x71000011)
	NIC=spapr-vlan MODS="ibmveth" ;;
# riscv64: Debian 13's kernel (no riscv64 before it), QEMU's bundled
# OpenSBI, virtio-mmio devices as on aarch64
riscv64)
	DARCH=riscv64 KMETA=linux-image-riscv64 QPKG=qemu-system-misc QEMU=qemu-system-riscv64
	CROSS=riscv64-linux-musl- IDX=8 KDEF=6.12
	QEMU_ARGS=(-M virt -cpu rv64 -m 512M)
	CON=ttyS0 PORT_DEV=/dev/hvc0
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-device virtio-serial-device -chardev "file,id=port,path=%PORT%" -device virtconsole,chardev=port)
	NIC=virtio-net-device MODS="virtio_mmio virtio_console virtio_net" ;;
# big-endian MIPS (most OpenWrt routers): no Debian port since 11; the
# kernel, busybox and musl of ../shared/kernels/mips-be-6.1.176 (Malta,
# drivers built in). -cpu 24Kf has an FPU; CPU=24Kc (ath79's core) has
# none, and runs soft-float binaries (test/setup-cross.sh mips-sf).
mips)
	DARCH=mips QPKG=qemu-system-mips QEMU=qemu-system-mips
	CROSS=mips-linux-musl- IDX=9 SMP_DEF=1
	[ "$CPU" = 24Kc ] && CROSS=mips-linux-muslsf- IDX=10
	QEMU_ARGS=(-M malta -cpu "${CPU:-24Kf}" -m 256M)
	CON=ttyS0 PORT_DEV=/dev/ttyS1
	CON_ARGS=(-chardev "file,id=con,path=%CON%" -serial chardev:con)
	PORT_ARGS=(-chardev "file,id=port,path=%PORT%" -serial chardev:port)
	NIC=pcnet MODS="pcnet32" ;;
*)
	echo "usage: $0 x86_64|aarch64|armhf|s390x|i386|mipsel|mips64el|ppc64el|riscv64|mips|all [KERNEL]"; exit 2 ;;
esac
SMP=${SMP:-$SMP_DEF}
# TCG: x86 guests run their vCPUs in one host thread: with a thread per
# vCPU on a loaded 2-CPU host, the kernel's cross-CPU code patching broke
# twice in a few runs (6.12: an int3 Oops in sched_clock_cpu at boot; 6.1:
# a 45 s soft lockup in smp_call_function_many_cond under tracer). The
# other arches keep a thread per vCPU: armhf hangs at boot in one thread
# (after "uart-pl011 9000000.pl011: no DMA platform data", 5.10 and 6.1).
case $ARCH in x86_64|i386) TCG=${TCG:-single} ;; *) TCG=${TCG:-multi} ;; esac
[ -n "$CROSS" ] && WCC=${CROSS}gcc
KERNEL=${KERNEL:-${KDEF:-6.1}}
case $CPU in ''|24Kc|24Kf) ;; *) echo "CPU=$CPU: only MIPS's 24Kf (the default) and 24Kc"; exit 2 ;; esac
[ -z "$CPU" ] || [ $ARCH = mips ] || { echo "CPU= is for ARCH=mips"; exit 2; }
HOSTPORT=${HOSTPORT:-$((9000 + IDX))}
R=$CACHE/$ARCH/run-$KERNEL${CPU:+-$CPU}
ROOT=$R/root
DEBS=$CACHE/debs
KERNELS=${TRACER_KERNELS:-$TOP/../shared/kernels}

# where the kernel comes from: a Debian suite (SUITE), or a folder of
# ../shared/kernels (LOCAL)
SUITE= LOCAL= OLDK=
case $ARCH:$KERNEL in
mips:6.1) LOCAL=mips-be-6.1.176 ;;
mips:*) echo "ARCH=mips: KERNEL=6.1 only (../shared/kernels/mips-be-6.1.176)"; exit 2 ;;
x86_64:4.9) LOCAL=x86_64-4.9.337 ;;
x86_64:4.4) LOCAL=x86_64-4.4.178 OLDK=1; [ -n "$ONLY_GIVEN" ] || ONLY=riabcdn ;;
x86_64:3.18) LOCAL=x86_64-3.18.140 OLDK=1; [ -n "$ONLY_GIVEN" ] || ONLY=rabcdn ;;	# not in GUESTS: TRACER_KERNELS with it (doc/kernels.md)
x86_64:pmsg) LOCAL=x86_64-6.1.192-pmsg ONLY=m ;;	# pstore pmsg (scenario m)
*:5.10) SUITE=bullseye ;;
*:6.1) SUITE=bookworm ;;
x86_64:6.12) SUITE=trixie; [ -n "$ONLY_GIVEN" ] || ONLY=abcdnp ;;
*:6.12) SUITE=trixie ;;
*) echo "KERNEL=$KERNEL: 5.10, 6.1 or 6.12 (Debian's), or 4.9, 4.4, 3.18 and pmsg on x86_64"; exit 2 ;;
esac

# n on every guest but a second one of an arch that reads the same way
# (aarch64 and armhf 5.10: snapshot swaps, as their 6.1; mips 24Kc)
case $ARCH:$KERNEL:$CPU in aarch64:5.10:|armhf:5.10:|mips:6.1:24Kc) [ -n "$ONLY_GIVEN" ] || ONLY=${ONLY/n/} ;; esac
# s (push= into the host's S3 server) once per arch: its 6.1 guest (riscv64: 6.12)
case $ARCH:$KERNEL:$CPU in *:6.1:|riscv64:6.12:) [ -n "$ONLY_GIVEN" ] || ONLY=${ONLY}s ;; esac
# k (the console shared with a shell, a boot of its own) on x86_64 6.1
case $ARCH:$KERNEL:$CPU in x86_64:6.1:) [ -n "$ONLY_GIVEN" ] || ONLY=${ONLY}k ;; esac
# w (duration tripwires) where Debian's kernels have hist triggers and
# synthetic events (6.1, 6.12), and where they have not (5.10, 4.9: the
# refusal), on x86_64, and on armhf 6.1 (two CPUs: aarch64's eight are
# slow under TCG). (blocked>T once did not fire on aarch64: musl's
# vfork() is a fork() there, so the workload's parent never waited in D
# state; it clones with CLONE_VFORK now.)
case $ARCH:$KERNEL in x86_64:5.10|x86_64:6.1|x86_64:6.12|x86_64:4.9|armhf:6.1) [ -n "$ONLY_GIVEN" ] || ONLY=${ONLY}w ;; esac
# h (hardware counters, a boot of its own under -icount) on aarch64 6.1
case $ARCH:$KERNEL in aarch64:6.1) [ -n "$ONLY_GIVEN" ] || ONLY=${ONLY}h ;; esac

need_root
# a guest of ../shared/kernels without them says SKIP before any setup:
# the cross toolchain of mips needs their musl too (pmsg builds its own)
if [ -n "$LOCAL" ] && [ "$KERNEL" != pmsg ] && [ ! -d "$KERNELS/$LOCAL" ]; then
	skip "$ARCH $KERNEL${CPU:+ $CPU}" "no $KERNELS/$LOCAL (set TRACER_KERNELS to the folder of ../shared/kernels)"
	echo "0 passed, 0 failed"; exit 0
fi

# ------------------------------------------------------------------ setup
stage setup
[ -n "${QEMU_READERS_DONE:-}" ] || test/setup-readers.sh perfs >"$CACHE.readers.log" 2>&1 ||
	echo "setup-readers failed (the reader matrix will SKIP): $(cat "$CACHE.readers.log")"
mkdir -p "$DEBS" "$CACHE/$ARCH" || setup_fail "mkdir $CACHE"
rm -rf "$R"; mkdir -p "$R"
pkgs=
command -v "$QEMU" >/dev/null || pkgs="$pkgs $QPKG"
command -v cpio >/dev/null || pkgs="$pkgs cpio"
command -v perf >/dev/null || pkgs="$pkgs linux-perf"
command -v musl-gcc >/dev/null || pkgs="$pkgs musl-tools"
command -v modinfo >/dev/null || pkgs="$pkgs kmod"
command -v busybox >/dev/null || pkgs="$pkgs busybox-static"	# its applet list
command -v zstd >/dev/null || pkgs="$pkgs zstd"	# the judge of b's frames
command -v xz >/dev/null || pkgs="$pkgs xz-utils"
command -v curl >/dev/null || pkgs="$pkgs curl"	# test/aptsuite.sh
command -v python3 >/dev/null || pkgs="$pkgs python3"	# test/debpick.py
# a PCI NIC's option ROM (QEMU refuses to start without it): ipxe-qemu,
# which qemu-system-x86 depends on but qemu-system-mips only recommends
case $NIC in pcnet|e1000) [ -e /usr/lib/ipxe/qemu/efi-$NIC.rom ] || pkgs="$pkgs ipxe-qemu" ;; esac
if [ -n "$pkgs" ]; then
	echo "apt-get install$pkgs"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $pkgs >"$R/apt.log" 2>&1 ||
		setup_fail "apt-get install$pkgs" "$(tail -3 "$R/apt.log")"
fi
if [ -n "$CROSS" ] && ! command -v "$WCC" >/dev/null; then
	a=$ARCH; [ "$CPU" = 24Kc ] && a=mips-sf
	test/setup-cross.sh "$a" >"$R/cross.log" 2>&1 || setup_fail "test/setup-cross.sh $a" "$(tail -3 "$R/cross.log")"
fi
# the kernel, its System.map, its modules (MODDIR, empty: drivers built
# in) and busybox
if [ "$KERNEL" = pmsg ] && [ ! -d "$KERNELS/$LOCAL" ]; then
	# no Debian kernel has PSTORE_PMSG: build one (about 5 minutes, once)
	L=$CACHE/$ARCH/pmsg-kernel
	[ -e "$L/.done" ] || echo "building the pmsg kernel (test/mkpmsg.sh $L)"
	test/mkpmsg.sh "$L" >"$R/mkpmsg.log" 2>&1 || setup_fail "test/mkpmsg.sh $L" "$(tail -3 "$R/mkpmsg.log")"
	LOCAL=x86_64-$(sed -n '1s/ .*//p' "$L/README")-pmsg KVER=${LOCAL#*-}
	KDIR=$L KPKG=$LOCAL KIMG=$L/bzImage SMAP=$L/System.map MODDIR= KSRC=$L
elif [ -n "$LOCAL" ]; then
	L=$KERNELS/$LOCAL
	KDIR=$CACHE/$ARCH/$LOCAL
	if [ ! -e "$KDIR/.done" ]; then
		rm -rf "$KDIR"; mkdir -p "$KDIR"
		for f in "$L"/*; do
			case $f in *.xz) xz -dc "$f" >"$KDIR/$(basename "${f%.xz}")" ;; *.tar.*) ;; *) cp "$f" "$KDIR/" ;; esac || setup_fail "unpack $f"
		done
		touch "$KDIR/.done"
	fi
	KPKG=$LOCAL KVER=${LOCAL#*-}; KVER=${KVER#be-}
	KIMG=$(ls "$KDIR"/bzImage "$KDIR"/vmlinux 2>/dev/null | head -1)
	[ -n "$KIMG" ] || setup_fail "no bzImage or vmlinux in $L"
	SMAP=$KDIR/System.map MODDIR=
	if [ -e "$KDIR/busybox" ]; then BB=$KDIR/busybox; chmod 755 "$BB"; BDEB=$L/busybox.xz; fi
	KSRC="$L"
fi
# fetch SUITE PKG: one exact .deb of SUITE into $DEBS (cached); prints its path
fetch() {
	local f
	f=$(ls "$DEBS/${2}_"*"_$DARCH.deb" 2>/dev/null | tail -1)
	if [ -z "$f" ]; then
		f=$(cd "$DEBS" && "$TOP/test/aptsuite.sh" "$1" "$DARCH" download "$2" 2>>"$R/apt.log") && f=$DEBS/$f
	fi
	echo "$f"
}
if [ -n "$SUITE" ]; then
	KPKG=$(test/aptsuite.sh "$SUITE" "$DARCH" kernel "$KMETA" 2>>"$R/apt.log") ||
		setup_fail "no linux-image package for $DARCH in $SUITE ($KMETA)" "$(tail -3 "$R/apt.log")"
	KDEB=$(fetch "$SUITE" "$KPKG"); [ -n "$KDEB" ] || setup_fail "download $KPKG ($SUITE $DARCH)" "$(tail -3 "$R/apt.log")"
	KDIR=$CACHE/$ARCH/${KPKG}
	if [ ! -e "$KDIR/.done" ]; then
		rm -rf "$KDIR"; mkdir -p "$KDIR"
		dpkg -x "$KDEB" "$KDIR" && touch "$KDIR/.done" || setup_fail "dpkg -x $KDEB"
	fi
	# the kernel: vmlinuz, or vmlinux alone (ppc64el ships no vmlinuz)
	KIMG=$(ls "$KDIR"/boot/vmlinuz-* "$KDIR"/boot/vmlinux-* 2>/dev/null | head -1)
	[ -n "$KIMG" ] || setup_fail "no boot/vmlinuz-* or boot/vmlinux-* in $KPKG"
	SMAP=$(ls "$KDIR"/boot/System.map-* | head -1)
	KVER=$(basename "$KIMG"); KVER=${KVER#vmlinu[xz]-}
	# Debian's System.map is a one-line placeholder ("The real System.map
	# is in the linux-image-<version>-dbg package"): read the real one out
	# of the -dbg package (about 800 MB) as it downloads, which stops at
	# System.map, near the start of its data.tar; keep it.
	if [ "$(wc -l <"$SMAP")" -lt 100 ]; then
		SMAP=$KDIR/System.map-$KVER
		if [ ! -s "$SMAP" ]; then
			u=$(test/aptsuite.sh "$SUITE" "$DARCH" uri "$KPKG-dbg" 2>>"$R/apt.log") ||
				setup_fail "no $KPKG-dbg in $SUITE $DARCH" "$(tail -3 "$R/apt.log")"
			echo "the package's System.map is a placeholder; reading the real one from $u"
			python3 test/debpick.py "$u" "/System.map-$KVER" "$SMAP.tmp" >>"$R/apt.log" 2>&1 &&
				[ "$(wc -l <"$SMAP.tmp")" -gt 100 ] && mv "$SMAP.tmp" "$SMAP" ||
				{ rm -f "$SMAP.tmp"; setup_fail "no System.map-$KVER in $u" "$(tail -2 "$R/apt.log")"; }
		fi
	fi
	# modules: /lib/modules, or /usr/lib/modules (merged /usr, Debian 13)
	MODDIR=$(ls -d "$KDIR/lib/modules/$KVER" "$KDIR/usr/lib/modules/$KVER" 2>/dev/null | head -1)
	[ -n "$MODDIR" ] || setup_fail "no lib/modules/$KVER or usr/lib/modules/$KVER in $KPKG"
	KSRC=$(basename "$KDEB")
fi
# busybox: the guest's own (mips), or Debian's static one (bookworm's;
# trixie's where bookworm has no such arch)
if [ -z "${BB:-}" ]; then
	BS=bookworm; [ $ARCH = riscv64 ] && BS=trixie
	BDEB=$(fetch $BS busybox-static); [ -n "$BDEB" ] || setup_fail "download busybox-static ($BS $DARCH)" "$(tail -3 "$R/apt.log")"
	BBDIR=$CACHE/$ARCH/busybox
	if [ ! -e "$BBDIR/.done" ]; then
		rm -rf "$BBDIR"; mkdir -p "$BBDIR"
		dpkg -x "$BDEB" "$BBDIR" && touch "$BBDIR/.done" || setup_fail "dpkg -x $BDEB"
	fi
	BB=$(ls "$BBDIR"/bin/busybox "$BBDIR"/usr/bin/busybox 2>/dev/null | head -1)	# merged /usr in 13
	[ -n "$BB" ] || setup_fail "no bin/busybox or usr/bin/busybox in $BDEB"
fi
echo "kernel $KVER ($KSRC), busybox $(basename "$BDEB"), $($QEMU --version | head -1)"

[ -z "${QEMU_SETUP_ONLY:-}" ] || { stage ""; echo "0 passed, 0 failed"; exit 0; }

# ------------------------------------------------------------------ build
stage build
B=$R/build
mkdir -p "$B/guest" "$B/host"
for d in guest host; do
	cp -r "$SRC/Makefile" "$SRC/Kconfig" "$SRC"/*.c "$SRC"/*.h "$SRC/lib" "$B/$d/" 2>/dev/null
	rm -f "$B/$d/lib/config.h"
done
if make -C "$B/guest" CROSS_COMPILE="$CROSS" tracer >"$B/guest.log" 2>&1; then
	pass "build: tracer for $ARCH ($(wc -c <"$B/guest/tracer") bytes)"
else
	fail "build: tracer for $ARCH" "$(tail -5 "$B/guest.log")"; finish
fi
# variant TAG 'SYM...': $B/guest-TAG/tracer, the guest's with Kconfig
# SYMs on (off in defconfig), -SYM off; 1 if it does not build (said)
variant() {
	local d=$B/guest-$1 y
	mkdir -p "$d"; cp -r "$B/guest/"{Makefile,Kconfig,*.c,*.h,lib} "$d/"; rm -f "$d/lib/config.h"
	if make -C "$d" defconfig >"$d.log" 2>&1 && sed -i "$(for y in $2; do case $y in -*) printf 's/^CONFIG_%s=y/# CONFIG_%s is not set/;' ${y#-} ${y#-} ;;
		*) printf 's/^# CONFIG_%s is not set/CONFIG_%s=y/;' $y $y ;; esac; done)" "$d/.config" &&
		make -C "$d" CROSS_COMPILE="$CROSS" tracer >>"$d.log" 2>&1; then
		pass "build: tracer with ${2// / and } for $ARCH ($(wc -c <"$d/tracer") bytes)"
	else
		fail "build: tracer with ${2// / and } for $ARCH" "$(tail -5 "$d.log")"; return 1
	fi
}
# p: PERSIST; s: PUSH; r (before 4.7): a build without OLDKERNEL
[ -n "${ONLY##*p*}" ] || variant p PERSIST || finish
[ -z "$OLDK" ] || variant o -OLDKERNEL || finish
# d's fw on every guest: forward perf rings, forced by a test hook
[ -n "${ONLY##*d*}" ] || variant f "OLDKERNEL TESTHOOKS" || finish
[ -n "${ONLY##*s*}" ] || variant s PUSH || ONLY=${ONLY/s/}
if [ -z "$CROSS" ]; then HOST_TRACER=$B/guest/tracer
elif make -C "$B/host" tracer >"$B/host.log" 2>&1; then HOST_TRACER=$B/host/tracer
else fail "build: host tracer for -x" "$(tail -5 "$B/host.log")"; HOST_TRACER=false; fi
# the target's signal numbers, from the toolchain's musl <signal.h>
read -r SIGUSR1 SIGSEGV SIGBUS < <(printf '#include <signal.h>\nSIGUSR1 SIGSEGV SIGBUS\n' | $WCC -E -P -x c - 2>/dev/null | tail -1)
case "$SIGUSR1 $SIGSEGV $SIGBUS" in
[0-9]*" "[0-9]*" "[0-9]*) echo "signals of $ARCH: SIGUSR1 $SIGUSR1, SIGSEGV $SIGSEGV, SIGBUS $SIGBUS" ;;
*) fail "build: SIGUSR1, SIGSEGV and SIGBUS from $WCC's <signal.h>" "got '$SIGUSR1 $SIGSEGV $SIGBUS'"; finish ;;
esac
TRACER_CONFIG="sched:sched_switch sched:sched_process_exec signal:signal_generate/sig==$SIGUSR1/ cpu-clock@199 trip=segv buf=256k"
# a, b and d record their tracepoints through the ftrace engine (the
# default); c records tracepoints alone on perf rings: the lean layout
# without ids, whose event the dump finds from the raw data, in the
# target's byte order
TRACER_CONFIG_C="sched:sched_switch sched:sched_process_exec signal:signal_generate/sig==$SIGUSR1/ trip=segv buf=256k engine=perf"
# d1: a count=300 tripwire on SIGUSR1 and trip=segv (SIGBUS); d2: the
# tracking table after 300 short processes, hotplug, every CPU merged
D1_CONFIG="sched:sched_switch trip=signal:signal_generate/sig==$SIGUSR1/,count=300 trip=segv buf=64k"
D2_CONFIG="sched:sched_switch sched:sched_process_exec signal:signal_generate/sig==$SIGUSR1/ cpu-clock@199 buf=128k"
PR_CONFIG="sched:* raw_syscalls:* signal:* printk:console cpu-clock@99 buf=64k"
# n: close's number on ARCH (musl's <sys/syscall.h>); N_CLOSES about 1.7
# times what 16 MiB holds of sys_enter's records: 68 bytes with a 64-bit
# kernel's longs, 40 with a 32-bit one's
read -r NR_CLOSE < <(printf '#include <sys/syscall.h>\nSYS_close\n' | $WCC -E -P -x c - 2>/dev/null | tail -1)
case $NR_CLOSE in [0-9]*) ;; *) fail "build: SYS_close from $WCC's <sys/syscall.h>" "got '$NR_CLOSE'"; finish ;; esac
N_REC=68; case $ARCH in i386|armhf|mipsel|mips) N_REC=40 ;; esac
N_CLOSES=$((16 * 1048576 / N_REC * 17 / 10))
N_CONFIG="raw_syscalls:sys_enter/id==$NR_CLOSE/ buf=16m cpus=0 zstd"
# h: both counters with callchains; rings that hold all of H_MS ms
H_CONFIG="sched:sched_process_exec cycles@999 instructions@999 stack buf=2m" H_MS=1000 H_SHIFT=${H_SHIFT:-2}
mkdir -p "$ROOT/bin"
if $WCC -g -O1 -fno-inline -static -Wl,--build-id -o "$ROOT/bin/wk_hot" test/work.c >"$B/work.log" 2>&1; then
	pass "build: wk_hot for $ARCH, static, with symbols and a build-id"
	# no FPU on a 24Kc: the binaries must be soft float
	if [ "$CPU" = 24Kc ]; then
		s=$(readelf -A "$ROOT/bin/wk_hot" 2>/dev/null | grep -m1 'FP ABI')
		case $s in *"Soft float"*) pass "build: soft-float binaries for the 24Kc (wk_hot: $(echo $s))" ;;
		*) fail "build: soft-float binaries for the 24Kc" "wk_hot: ${s:-no FP ABI}" ;; esac
	fi
else
	fail "build: wk_hot" "$(tail -5 "$B/work.log")"; finish
fi

# ------------------------------------------------------------- initramfs
stage initramfs
mkdir -p "$ROOT"/{bin,sbin,etc,proc,sys,dev,run,tmp,lib/modules}
cp "$BB" "$ROOT/bin/busybox" || setup_fail "cp $BB"
# applet links from the host's busybox list (the same Debian build for
# every arch)
for a in $(busybox --list 2>/dev/null); do
	[ "$a" = busybox ] || ln -sf busybox "$ROOT/bin/$a"
done
[ -e "$ROOT/bin/sh" ] || ln -sf busybox "$ROOT/bin/sh"
cp "$B/guest/tracer" "$ROOT/bin/tracer"
# before 4.7: r, a build without OLDKERNEL, refuses; defconfig's records
[ -z "$OLDK" ] || cp "$B/guest-o/tracer" "$ROOT/bin/tracer-noold"
[ -n "${ONLY##*d*}" ] || cp "$B/guest-f/tracer" "$ROOT/bin/tracer-f"
[ -z "${ONLY##*p*}" ] && cp "$B/guest-p/tracer" "$ROOT/bin/tracer-p"
# s: a real S3 server on the host's loopback (test/s3.sh), which the
# guest reaches at 10.0.2.2; its credentials in the guest's /etc/s3key
S3D= PUSH_URL=
if [ -z "${ONLY##*s*}" ]; then
	S3D=$R/s3; rm -rf "$S3D" "$ROOT/etc/s3key"
	out=$(bash test/s3.sh start "$S3D" 2>"$R/s3.log"); rc=$?
	if [ $rc = 0 ]; then
		for kv in $out; do export "S3_$kv"; done
		PUSH_URL=http://10.0.2.2:${S3_ENDPOINT##*:}/$S3_BUCKET/g$$
		mkdir -p "$ROOT/etc"
		printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_ACCESS" "$S3_SECRET" >"$ROOT/etc/s3key"
		chmod 600 "$ROOT/etc/s3key"
		cp "$B/guest-s/tracer" "$ROOT/bin/tracer-s"
	else
		[ $rc = 3 ] && skip "s: push= into S3" "no S3 server: its packages could not be installed: $(tail -2 "$R/s3.log" | tr '\n' ' ')" ||
			fail "s: the host's S3 server starts" "$(tail -3 "$R/s3.log" | tr '\n' ' ')"
		ONLY=${ONLY/s/}; S3D=
	fi
fi
cp test/qemu-init.sh "$ROOT/init"; chmod 755 "$ROOT/init"
mknod -m 600 "$ROOT/dev/console" c 5 1

# mod_path NAME: the .ko of a module (names use _ or -)
mod_path() {
	find "$MODDIR/kernel" \( -name "$1.ko*" -o -name "${1//_/-}.ko*" \) | head -1
}
# mod_order NAME...: NAME and its dependencies, dependencies first
declare -A SEEN
mod_order() {
	local m p d
	for m in "$@"; do
		[ -n "${SEEN[$m]:-}" ] && continue
		SEEN[$m]=1
		p=$(mod_path "$m")
		if [ -z "$p" ]; then
			grep -q "/$m.ko" "$MODDIR/modules.builtin" 2>/dev/null || echo "!$m"
			continue
		fi
		d=$(modinfo -F depends "$p" 2>/dev/null | tr ',' ' ')
		[ -n "$d" ] && mod_order $d
		echo "$m"
	done
}
ORDER=; [ -n "$MODDIR" ] && ORDER=$(mod_order $MODS)
LOAD=
for m in $ORDER; do
	case $m in '!'*) fail "initramfs: module ${m#!} not found in $KPKG"; continue ;; esac
	p=$(mod_path "$m")
	case $p in
	*.xz) xz -dc "$p" >"$ROOT/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$p" >"$ROOT/lib/modules/$m.ko" ;;
	*.gz) gzip -dc "$p" >"$ROOT/lib/modules/$m.ko" ;;
	*) cp "$p" "$ROOT/lib/modules/$m.ko" ;;
	esac
	LOAD="$LOAD $m"
done
WORK_MASK=1; [ "$SMP" -ge 2 ] && WORK_MASK=2
# under TCG, aarch64/armhf/s390x are slower; give each dump its time
cat >"$ROOT/etc/qemu-test.conf" <<EOF
MODULES="$LOAD"
PORT_DEV=$PORT_DEV
CON=$CON
TRACER_CONFIG='$TRACER_CONFIG'
TRACER_CONFIG_C='$TRACER_CONFIG_C'
D1_CONFIG='$D1_CONFIG'
D2_CONFIG='$D2_CONFIG'
PR_CONFIG='$PR_CONFIG'
N_CONFIG='$N_CONFIG'
H_CONFIG='$H_CONFIG'
H_MS=$H_MS
N_CLOSES=$N_CLOSES
WORK_MASK=$WORK_MASK
SIGUSR1=$SIGUSR1
SETTLE_US=2500000
DUMP_WAIT=60
ONLY=$ONLY
PUSH_URL='$PUSH_URL'
EOF
(cd "$ROOT" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$R/initrd.gz" ||
	setup_fail "cpio"
echo "initramfs: $(wc -c <"$R/initrd.gz") bytes, modules:$LOAD"

# qt_join: a console log, \r gone, and a guest line a kernel message ran
# into joined again ("QT d1 err: ... signal_genera[   15.63] serial8250:
# too much work for irq4", then "te/sig==10/: hit 94 of 300, ..."), or
# one that came after a kernel message not yet ended ("[    4.96]
# wk_hot[79]: segfault at 0 ... error 4QT a: crash=79")
qt_join() {
	tr -d '\r' | awk '
		held != "" { $0 = held $0; held = "" }
		/^\[ *[0-9]+\.[0-9]+\] / && (i = index($0, "QT ")) > 1 { $0 = substr($0, i) }
		/^QT / && match($0, /\[ *[0-9]+\.[0-9]+\] /) && RSTART > 1 { held = substr($0, 1, RSTART - 1); next }
		{ print }'
}

# reboot_qemu TAG SECONDS APPEND [QEMU ARGS]: the guest in a QEMU of its
# own that reboots on the guest's panic (panic=1, no -no-reboot) and
# keeps its RAM, 1 GiB of it (with 512 MiB, 6.12's persistent region lay
# near the top and lost a CPU's buffer on every reboot, whatever the
# guest did); its console joined in $R/TAG.log, QEMU's exit in QRC
reboot_qemu() {
	local tag=$1 secs=$2 app=$3 a q ca pa
	shift 3
	mapfile -t ca < <(CONLOG=$R/$tag.console.log subst "${CON_ARGS[@]}")
	mapfile -t pa < <(for a in "${PORT_ARGS[@]}"; do echo "${a//%PORT%/$R/$tag.port}"; done)
	: >"$R/$tag.console.log"; : >"$R/$tag.port"
	q=(timeout -k 10 "$secs" "$QEMU" "${QEMU_ARGS[@]/512M/1G}" -accel "tcg,thread=$TCG" -smp 2 -nodefaults -display none
		-monitor none -kernel "$KIMG" -initrd "$R/initrd.gz" -append "console=$CON panic=1 $app rdinit=/init"
		"${ca[@]}" "${pa[@]}" -netdev user,id=n -device "$NIC,netdev=n" "$@")
	printf '%q ' "${q[@]}" >"$R/$tag.qemu.cmd"; echo >>"$R/$tag.qemu.cmd"
	echo "qemu: $(cat "$R/$tag.qemu.cmd")"
	"${q[@]}" >"$R/$tag.qemu.out" 2>&1; QRC=$?
	qt_join <"$R/$tag.console.log" >"$R/$tag.log"
}

# ------------------------------------------------------------------ boot
stage boot
CONLOG=$R/console.log
# more than two CPUs (for d): a, b and c run on two as elsewhere (their
# dumps, and the console's time for b's, stay as they are); d brings
# the others online
MAXCPUS=; [ "$SMP" -gt 2 ] && MAXCPUS=" maxcpus=2"
subst() { local a; for a in "$@"; do a=${a//%CON%/$CONLOG}; echo "${a//%PORT%/$R/a.data}"; done; }
mapfile -t CA < <(subst "${CON_ARGS[@]}")
mapfile -t PA < <(subst "${PORT_ARGS[@]}")
: >"$CONLOG"; : >"$R/a.data"
QCMD=(timeout -k 10 "$TIMEOUT" "$QEMU" "${QEMU_ARGS[@]}" -accel "tcg,thread=$TCG" -smp "$SMP" -nodefaults -display none -monitor none
	-no-reboot -kernel "$KIMG" -initrd "$R/initrd.gz"
	-append "console=$CON panic=-1 rdinit=/init$MAXCPUS"
	"${CA[@]}" "${PA[@]}"
	-netdev "user,id=n,hostfwd=tcp:127.0.0.1:$HOSTPORT-:9000" -device "$NIC,netdev=n")
printf '%q ' "${QCMD[@]}" >"$R/qemu.cmd"; echo >>"$R/qemu.cmd"
echo "qemu: $(cat "$R/qemu.cmd")"
"${QCMD[@]}" >"$R/qemu.out" 2>&1 &
QPID=$!

# c: connect when the guest listens; retry while nobody accepts
(
	: >"$R/c.data"
	while kill -0 $QPID 2>/dev/null; do
		if grep -q "QT c: listening" "$CONLOG"; then
			cat </dev/tcp/127.0.0.1/$HOSTPORT >"$R/c.part" 2>/dev/null
			if [ -s "$R/c.part" ]; then mv "$R/c.part" "$R/c.data"; exit 0; fi
		fi
		sleep 0.3
	done
) &
NCPID=$!
# d: the dump files, one tar through nc once the guest says "serving"
(
	: >"$R/d.tar"
	while kill -0 $QPID 2>/dev/null; do
		if grep -aq "QT d: serving" "$CONLOG"; then
			cat </dev/tcp/127.0.0.1/$HOSTPORT >"$R/d.part" 2>/dev/null
			if [ -s "$R/d.part" ]; then mv "$R/d.part" "$R/d.tar"; exit 0; fi
		fi
		sleep 0.3
	done
) &
NDPID=$!
# n: its dump, the same way once the guest says "n: serving"
(
	: >"$R/n.data"
	while kill -0 $QPID 2>/dev/null && ! grep -aq "QT n: served" "$CONLOG"; do
		if grep -aq "QT n: serving" "$CONLOG"; then
			cat </dev/tcp/127.0.0.1/$HOSTPORT >"$R/n.part" 2>/dev/null
			if [ -s "$R/n.part" ]; then mv "$R/n.part" "$R/n.data"; exit 0; fi
		fi
		sleep 0.3
	done
) &
NNPID=$!
# An s390x guest sometimes halts after poweroff -f without QEMU exiting
# (and then ignores SIGTERM): once the guest says it is done, give QEMU
# a few seconds, then end it.
(
	while kill -0 $QPID 2>/dev/null; do
		if grep -aq "QT all done" "$CONLOG"; then
			sleep 5
			pkill -9 -P $QPID 2>/dev/null
			exit 0
		fi
		sleep 0.5
	done
) &
DONEPID=$!
wait $QPID; QRC=$?
kill $DONEPID 2>/dev/null; wait $DONEPID 2>/dev/null
sleep 0.5; kill $NCPID $NDPID $NNPID 2>/dev/null; wait $NCPID $NDPID $NNPID 2>/dev/null
# the guest's lines (qt_join)
qt_join <"$CONLOG" | grep -a '^QT ' >"$R/qt.all"
grep -av ' err: ' "$R/qt.all" >"$R/qt.txt"
cat "$R/qt.txt"
if [ $QRC = 124 ]; then fail "boot: guest finished within ${TIMEOUT}s" "timed out; tail: $(tail -c 600 "$CONLOG" | tr -d '\r')"
elif grep -q "QT all done" "$R/qt.txt"; then pass "boot: guest ran all scenarios and powered off (qemu exit $QRC)"
else fail "boot: guest ran all scenarios" "qemu exit $QRC: $(tail -c 600 "$CONLOG" | tr -d '\r'; cat "$R/qemu.out")"; fi
grep -q "QT root is read-only" "$R/qt.txt" && pass "guest: root is read-only" || fail "guest: root is read-only"
grep -a "insmod .* failed\|network setup failed" "$R/qt.txt" | while read -r l; do echo "note: $l"; done

# ---------------------------------------------------------------- decode
stage decode
readers_up "$CACHE" "$CACHE.readers.log"	# a SKIP for each chroot that fails, and why
# (a value ends at a space, or at a kernel message the console ran into it:
# "crash=173[   14.079667] wk_hot[173]: segfault ...")
qt() { sed -n "s/^QT $1: $2=\([^ []*\).*/\1/p" "$R/qt.txt" | head -1; }
# the reference symbol perf relocates by: _text, or _stext where kallsyms
# lacks _text (Debian arm64, armhf)
read -r KTEXT KSYM < <(sed -n 's/^QT ref \([0-9a-f]*\) T \(.*\)/\1 \2/p' "$R/qt.txt")
MTEXT=$(awk -v s="${KSYM:-_text}" '$3 == s { print $1; exit }' "$SMAP")
# a 32-bit MIPS System.map writes addresses sign-extended to 64 bits
[ ${#KTEXT} = 8 ] && [ ${#MTEXT} = 16 ] && MTEXT=${MTEXT:8}
if [ -n "$KTEXT" ] && [ "$KTEXT" != "$MTEXT" ]; then echo "KASLR: runtime $KSYM $KTEXT, System.map $MTEXT: relocated by $(printf '%x' $((0x$KTEXT - 0x$MTEXT)))"
else echo "KASLR: runtime ${KSYM:-_text} ${KTEXT:-?}, System.map $MTEXT: not relocated (no KASLR on this guest)"; fi

# decode TAG FILE: perf script and perf report of FILE, then the checks
decode() {
	local tag=$1 f=$2 w c tp cpu s rc n k ki kr
	local sym=(--symfs="$ROOT" --kallsyms="$SMAP")
	w=$(qt "$tag" work) c=$(qt "$tag" crash) tp=$(qt "$tag" tracer)
	if [ ! -s "$f" ]; then fail "$tag: dump data ($(basename "$f")) is empty"; return; fi
	perf script -i "$f" "${sym[@]}" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>"$f.script.err"; rc=$?
	n=$(grep -c . "$f.script")
	if [ $rc = 0 ] && [ "$n" -gt 0 ]; then pass "$tag: perf script decodes $(basename "$f") ($(wc -c <"$f") bytes, $n samples)"
	else fail "$tag: perf script decodes $(basename "$f")" "rc=$rc, $n lines: $(head -c 400 "$f.script.err")"; return; fi
	perf report -i "$f" "${sym[@]}" --stdio --sort comm,dso,sym >"$f.report" 2>"$f.report.err"; rc=$?
	[ $rc = 0 ] && grep -q '%' "$f.report" && pass "$tag: perf report --stdio exits 0" ||
		fail "$tag: perf report --stdio exits 0" "rc=$rc: $(head -c 400 "$f.report.err")"
	[ -n "$w" ] || { fail "$tag: the guest printed the workload pid"; return; }
	n=$(awk -v p="$tp" '$1 == "tracer" && $2 == p"/"p' "$f.script" | wc -l)
	[ "$n" -gt 0 ] && pass "$tag: $n events of tracer itself, pid/tid $tp/$tp" ||
		fail "$tag: events of tracer itself, pid $tp" "$(grep -m2 ' tracer ' "$f.script")"
	# sched_process_exec of /bin/wk_hot by the workload's pid, with its comm
	s=$(awk -v p="$w" '$2 == p"/"p && /sched:sched_process_exec:/ && /filename=\/bin\/wk_hot /' "$f.script" | head -1)
	[ -n "$s" ] && [ "$(echo "$s" | awk '{ print $1 }')" = wk_hot ] &&
		pass "$tag: sched_process_exec filename=/bin/wk_hot, comm wk_hot, pid/tid $w/$w" ||
		fail "$tag: sched_process_exec of pid $w" "$(grep -m3 sched_process_exec "$f.script")"
	s=$(awk -v p="$w" '$1 == "wk_hot" && $2 == p"/"p && /signal:signal_generate:/' "$f.script" | head -1)
	case "$s" in *" sig=$SIGUSR1 "*"comm=wk_hot pid=$w "*) pass "$tag: signal_generate sig=$SIGUSR1 (SIGUSR1) comm=wk_hot pid=$w" ;;
	*) fail "$tag: signal_generate sig=$SIGUSR1 (SIGUSR1) comm=wk_hot pid=$w" "${s:-$(grep -m3 signal_generate "$f.script")}" ;; esac
	# pinned by taskset: every event of the workload after its exec on CPU WORK_MASK-1
	cpu=$(printf '[%03d]' $((WORK_MASK - 1)))
	s=$(awk -v p="$w" '$2 == p"/"p && /sched:sched_process_exec:/ { t = $4 + 0 }
		$2 == p"/"p && t && $4 + 0 >= t { n[$3]++ } END { for (c in n) printf " %d %s", n[c], c }' "$f.script")
	case "$s" in " "*" $cpu") pass "$tag: all events of wk_hot $w after its exec on cpu $cpu (taskset $WORK_MASK):$s" ;;
	*) fail "$tag: events of wk_hot $w after its exec on cpu $cpu" "count cpu:$s" ;; esac
	if [ $tag = c ]; then	# tracepoints alone: no cpu-clock samples to check
		grep -aq "^QT c err: tracer: recording .*no ids" "$R/qt.all" &&
			pass "c: tracepoints alone: the kernel writes no ids, the dump names every event" ||
			fail "c: tracepoints alone: the kernel writes no ids" "$(grep -a -m1 '^QT c err: tracer: recording' "$R/qt.all")"
		[ "${3:-}" = nocrash ] || crash_check "$tag" "$f"
		return
	fi
	# user symbols: cpu-clock samples of the workload in work_hot_loop
	n=$(awk -v p="$w" '$2 == p"/"p && /cpu-clock:/' "$f.script" | wc -l)
	k=$(awk -v p="$w" '$2 == p"/"p && /cpu-clock:/ && /work_hot_loop/' "$f.script" | wc -l)
	[ "$k" -gt 0 ] && grep -q 'work_hot_loop' "$f.report" &&
		pass "$tag: user symbols: $k of $n cpu-clock samples of wk_hot in work_hot_loop (/bin/wk_hot)" ||
		fail "$tag: user symbols: work_hot_loop in cpu-clock samples of pid $w" "$n samples: $(awk -v p="$w" '$2 == p"/"p && /cpu-clock:/' "$f.script" | head -3)"
	# kernel symbols across KASLR: resolved names, and the idle task in an
	# idle function (MIPS: __r4k_wait; pseries: snooze_loop, or the H_CEDE
	# hypercall in plpar_hcall_norets_notrace)
	ki=$(grep 'cpu-clock:' "$f.script" | grep -c 'kernel.kallsyms')
	kr=$(grep 'cpu-clock:' "$f.script" | grep 'kernel.kallsyms' | grep -vc 'unknown')
	s=$(awk '$2 == "0/0" && /cpu-clock:/' "$f.script" | grep -m1 -E '[ _](default_idle|arch_cpu_idle|cpu_do_idle|native_safe_halt|pv_native_safe_halt|cpu_idle_poll|do_idle|psw_idle|enabled_wait|default_idle_call|cpuidle_enter_state|arch_cpu_idle_exit|r4k_wait|snooze_loop|dedicated_cede_loop|cede_processor|plpar_hcall_norets_notrace)')
	[ "$kr" -gt 0 ] && [ $((kr * 2)) -ge "$ki" ] && [ -n "$s" ] &&
		pass "$tag: kernel symbols via System.map across KASLR: $kr of $ki kernel samples named, idle: $(echo "$s" | awk '{ print $(NF-1) }')" ||
		fail "$tag: kernel symbols via System.map across KASLR" "$kr of $ki named; swapper: $(awk '$2 == "0/0" && /cpu-clock:/' "$f.script" | head -2)"
	[ "${3:-}" = nocrash ] || crash_check "$tag" "$f"
}

# readers TAG FILE: every other perf of the reader matrix decodes the
# guest's dump as the host's ($HL) did in decode: the same lines, field for field
# (column widths differ between versions)
readers() {
	local tag=$1 f=$2 v l
	local sym=(--symfs="$ROOT" --kallsyms="$SMAP")
	[ -s "$f.script" ] || return
	tr -s ' ' <"$f.script" >"$f.host"
	# perf 6.8 and later forget a task at its PERF_RECORD_EXIT, so its
	# last records (the switch away as it dies) show as ":TID" there,
	# in perf record's own files too: a task's comm after its exit
	# (6.1's view) is not compared; from its first (3.18 writes two)
	perf script -i "$f" --show-task-events -F tid,time 2>/dev/null |
		awk '/PERF_RECORD_EXIT/ { sub(":", "", $2); print $1, $2 }' >"$f.exits"
	exitnorm() {
		awk 'FNR == NR { if (!($1 in ex)) ex[$1] = $2; next }
		     { for (i = 2; i < NF && !($i ~ /^-?[0-9]+\/-?[0-9]+$/ && $(i + 1) ~ /^\[[0-9]+\]$/); i++) ;
		       split($i, p, "/"); t = $(i + 2); sub(":", "", t)
		       if (i < NF && (p[2] in ex) && t + 0 >= ex[p[2]] + 0) {
			       $1 = ":" p[2]; for (k = 2; k < i; k++) $k = ""; $0 = $0; $1 = $1 } }
		     { print }' "$f.exits" -
	}
	exitnorm <"$f.host" >"$f.host.n"; mv "$f.host.n" "$f.host"
	for v in $READERS; do
		[ $v = host ] && continue
		l=$(rlabel $v)
		rperf $v script -i "$f" "${sym[@]}" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso 2>"$f.$v.err" |
			tr -s ' ' | exitnorm >"$f.$v"
		cmp -s "$f.host" "$f.$v" && pass "$tag: perf $l decodes $(basename "$f") as $HL does ($(wc -l <"$f.$v") lines)" ||
			fail "$tag: perf $l decodes $(basename "$f") as $HL does" "$(diff "$f.host" "$f.$v" | grep -m4 '^[<>]'; head -c 300 "$f.$v.err")"
	done
}

# crash_check TAG FILE: the crash that tripped trip=segv is in the dump
crash_check() {
	local tag=$1 f=$2 c s
	c=$(qt "$tag" crash)
	[ -s "$f.script" ] || perf script -i "$f" -F comm,pid,tid,cpu,time,event,trace >"$f.script" 2>"$f.script.err"
	s=$(grep 'signal:signal_generate:' "$f.script" | grep -m1 " sig=$SIGSEGV .*comm=wk_hot pid=$c ")
	[ -n "$c" ] && [ -n "$s" ] && pass "$tag: trip=segv hit in $(basename "$f"): signal_generate sig=$SIGSEGV comm=wk_hot pid=$c" ||
		fail "$tag: trip=segv hit in $(basename "$f"): signal_generate sig=$SIGSEGV pid=$c" "$(grep -m3 "sig=$SIGSEGV" "$f.script"; head -c 300 "$f.script.err")"
}

# guest-side verdicts of a transport: three dumps with their reasons, exit 0
guest_checks() {
	local tag=$1 e
	e=$(grep -a "^QT $tag err: " "$R/qt.all")
	grep -q "^QT $tag: tracer=" "$R/qt.txt" || { fail "$tag: tracer started in the guest" "$(echo "$e" | head -5)"; return 1; }
	echo "$e" | grep -q "dump 1 (signal)" && echo "$e" | grep -q "dump 2 (trip segv by pid $(qt "$tag" crash) (wk_hot))" &&
		echo "$e" | grep -q "dump 3 (exit)" &&
		pass "$tag: guest: dump 1 (signal), dump 2 (trip segv by the crash), dump 3 (exit)" ||
		fail "$tag: guest: three dumps with their reasons" "$(echo "$e" | grep -v 'bytes written,' | head -8)"
	# the engine of the tracepoints, and how this kernel lets it read them
	if [ $tag != c ]; then
		FTHOW=$(echo "$e" | sed -n 's/.*tracepoints in ftrace instance tracer\.[0-9.]*, by \([a-z ]*\);.*/\1/p' | head -1)
		[ -n "$FTHOW" ] && pass "$tag: the tracepoints in an ftrace instance, by $FTHOW ($KVER)" ||
			fail "$tag: the tracepoints in an ftrace instance" "$(echo "$e" | grep -m2 'recording\|ftrace')"
	fi
	grep -q "^QT $tag: tracer exit=0" "$R/qt.txt" &&
		pass "$tag: guest: tracer exit 0" || fail "$tag: guest: tracer exit 0" "$(grep "^QT $tag: tracer exit" "$R/qt.txt")"
	return 0
}

if [ -z "${ONLY##*r*}" ]; then
	echo "-- r: tracer on a kernel it cannot record on ($KVER)"
	for rr in r rg; do	# rg: 'sched:sched_* engine=perf', a glob on perf rings
		e=$(grep -a "^QT $rr err: " "$R/qt.all" | sed "s/^QT $rr err: //")
		s=$(grep "^QT $rr: tracer exit=" "$R/qt.txt")
		case "$s" in *"exit=1 stdout=0 bytes"*) echo "$e" | grep -qx "tracer: this kernel has no backward ring buffers: a build without OLDKERNEL needs Linux 4.7" &&
			! echo "$e" | grep -q "left out" ;; *) false ;; esac &&
			pass "$rr: a build without OLDKERNEL refuses at start, exit 1, nothing on stdout: $(echo "$e" | tail -1)" ||
			fail "$rr: a build without OLDKERNEL refuses at start, exit 1, and says why" "${s:-no exit line}; $(echo "$e" | head -3)"
	done
fi

if [ -z "${ONLY##*i*}" ]; then
	echo "-- i: tracer's wake-ups while idle ($KVER)"
	for m in tp def load; do
		x=$(sed -n "s/^QT i: $m: wake-ups=\([0-9]*\) in 20 s.*/\1/p" "$R/qt.txt")
		echo "wake-ups in 20 s, $m: ${x:-none said}"
	done
	x=$(sed -n 's/^QT i: tp: wake-ups=\([0-9]*\) .*/\1/p' "$R/qt.txt")
	[ "$x" = 0 ] && pass "i: tracepoints only, idle: 0 wake-ups in 20 s" ||
		fail "i: tracepoints only, idle: 0 wake-ups in 20 s" "${x:-no count}; $(grep -a -m3 '^QT i' "$R/qt.all")"
fi

if [ -z "${ONLY##*s*}" ]; then
	echo "-- s: push= from the guest into the host's S3 server"
	m=$(sed -n 's/^QT guest up: \([^ ]*\) \([^,]*\),.*/\1 \2/p' "$R/qt.txt")
	keys=$(python3 test/s3check.py list "g$$/" 2>&1 | awk '{ print $1 }')
	trip=$(echo "$keys" | grep -- '-trip-segv\.data$')
	testing "s: the guest's tripwire dump and its final one arrived (boto3 lists them)" "2 1 1" \
		"$(echo "$keys" | grep -c .) $(echo "$trip" | grep -c .) $(echo "$keys" | grep -c -- '-exit\.data$')"
	if [ -n "$trip" ]; then
		python3 test/s3check.py head "$trip" >"$R/s.head" 2>&1
		python3 test/s3check.py get "$trip" "$R/s.data" >/dev/null 2>&1
		n=$(perf script -i "$R/s.data" 2>/dev/null | grep -c "signal:signal_generate: sig=$SIGSEGV .*comm=wk_hot")
		[ "$n" -ge 1 ] && grep -qx "kernel=${m% *}" "$R/s.head" && grep -qx "machine=${m#* }" "$R/s.head" &&
			grep -q "^reason=trip segv by pid [0-9]* (wk_hot)$" "$R/s.head" &&
			pass "s: host perf decodes it ($n SIGSEGV of wk_hot); head_object: $(grep -v '^boot-id\|^tracer' "$R/s.head" | tr '\n' ' ')" ||
			fail "s: the object decodes, with its metadata" "$n SIGSEGV; guest '$m'; $(tr '\n' ' ' <"$R/s.head")"
	fi
	bash test/s3.sh stop "$S3D" 2>/dev/null; S3D=
fi

if [ -z "${ONLY##*a*}" ]; then
	echo "-- a: -o $PORT_DEV, a dedicated port captured to a file"
	guest_checks a && { decode a "$R/a.data"; readers a "$R/a.data"; }
	check "a: two or more dumps in one stream, times in order" monotonic "$R/a.data"
fi

if [ -z "${ONLY##*b*}" ]; then
	echo "-- b: frame=text on the console ($CON), extracted with tracer -x"
	if guest_checks b; then
		tr -d '\r' <"$CONLOG" | awk '/#TRACER BEGIN/ { f = 1 } f && !/^#T / && !/#TRACER/ { n++ } /#TRACER END/ { f = 0 } END { print n + 0 }' >"$R/b.mixed"
		echo "console: $(cat "$R/b.mixed") kernel/other lines inside the frames"
		"$HOST_TRACER" -x -o "$R/b.data" <"$CONLOG" >"$R/b.x.out" 2>"$R/b.x.err"; rc=$?
		[ $rc = 0 ] && [ -s "$R/b.data" ] && [ -s "$R/b.data.1" ] && [ -s "$R/b.data.2" ] &&
			pass "b: tracer -x -o extracts three dumps from the console log" ||
			fail "b: tracer -x -o extracts three dumps from the console log" "rc=$rc: $(cat "$R/b.x.err") files: $(ls "$R" | grep '^b.data' | tr '\n' ' ')"
		"$HOST_TRACER" -x <"$CONLOG" >"$R/b.last" 2>"$R/b.last.err"; rc=$?
		[ $rc = 0 ] && cmp -s "$R/b.last" "$R/b.data.2" && pass "b: tracer -x (no -n) is the last dump" ||
			fail "b: tracer -x (no -n) is the last dump" "rc=$rc: $(cat "$R/b.last.err")"
		"$HOST_TRACER" -x -n 1 <"$CONLOG" 2>/dev/null | cmp -s - "$R/b.data" && pass "b: tracer -x -n 1 is dump 1" ||
			fail "b: tracer -x -n 1 is dump 1"
		# damage one frame line of dump 1: -x names it and fails
		# (dump 1's marker is the first, whatever kernel message lands in
		# it; a char changed: one put in is a message, taken out again)
		awk '/#TRACER BEGIN/ { f = 1 } f && /^#T 5 / && !done { c = substr($0, 10, 1); $0 = substr($0, 1, 9) (c == "Q" ? "R" : "Q") substr($0, 11); done = 1 } { print }' "$CONLOG" >"$R/b.bad"
		err=$("$HOST_TRACER" -x -n 1 <"$R/b.bad" 2>&1 >/dev/null); rc=$?
		case "$rc:$err" in [1-9]*:*line*) pass "b: a damaged console line fails -x and is named: $(echo "$err" | head -1)" ;;
		*) fail "b: a damaged console line fails -x and is named" "rc=$rc: $err" ;; esac
		# compressed by the guest's encoder (this arch's word size and
		# byte order): each record one frame that zstd -d takes, and
		# perf reads it as the same stream decompressed
		out=$(python3 "$TOP/test/unzstd.py" "$R/b.data" "$R/b.raw" 2>&1); rc=$?
		set -- $out
		perf script -i "$R/b.data" --ns >"$R/b.zs" 2>/dev/null
		perf script -i "$R/b.raw" --ns >"$R/b.zr" 2>/dev/null
		[ $rc = 0 ] && [ "${2:-0}" -gt 0 ] && [ "${10:-1}" = 0 ] && [ -s "$R/b.zs" ] && cmp -s "$R/b.zs" "$R/b.zr" &&
			pass "b: zstd: $2 frames zstd -d takes, aligned; perf reads them as decompressed ($(wc -l <"$R/b.zs") lines)" ||
			fail "b: zstd: frames zstd -d takes, read as decompressed" "rc=$rc $out; $(diff "$R/b.zs" "$R/b.zr" | head -2)"
		# each framed dump stands alone: the workload in dump 1, the crash in dump 2
		decode b "$R/b.data" nocrash
		readers b "$R/b.data"
		crash_check b "$R/b.data.1"
		check "b: dump 3 decodes alone" perf script -i "$R/b.data.2"
	fi
fi

if [ -z "${ONLY##*c*}" ]; then
	echo "-- c: tracer | nc -l -p 9000 in the guest, host reads 127.0.0.1:$HOSTPORT"
	grep -q "QT c: host connected" "$R/qt.txt" && pass "c: host connected through hostfwd" || fail "c: host connected through hostfwd"
	guest_checks c && { decode c "$R/c.data"; readers c "$R/c.data"; }
	check "c: two or more dumps in one stream, times in order" monotonic "$R/c.data"
fi

# n: the numbered closes through this kernel's read path
if [ -z "${ONLY##*n*}" ]; then
	echo "-- n: $N_CLOSES numbered closes overfill cpu 0's 16 MiB ring"
	e=$(grep -a "^QT n err: " "$R/qt.all" | sed 's/^QT n err: //')
	# the path this kernel offers: 6.10+ maps the ring; before, snapshot
	# swaps where it has TRACER_SNAPSHOT, else consuming reads
	kc=$(ls "$KDIR"/boot/config-* "$KDIR"/config 2>/dev/null | head -1)
	if [ "$(printf '%s\n' 6.10 "$KVER" | sort -V | head -1)" = 6.10 ]; then want="mapped pages"
	elif grep -q '^CONFIG_TRACER_SNAPSHOT=y' "$kc" 2>/dev/null; then want="snapshot swaps"
	else want="consuming reads"; fi
	how=$(echo "$e" | sed -n 's/.*tracepoints in ftrace instance tracer\.[0-9.]*, by \([a-z ]*\);.*/\1/p' | head -1)
	w=$(qt n work) x=$(sed -n 's/^QT n: work=[0-9]* exit=\([0-9]*\).*/\1/p' "$R/qt.txt")
	ent=$(sed -n 's/^QT n: work=.* entries=\([0-9]*\).*/\1/p' "$R/qt.txt")
	ovr=$(sed -n 's/^QT n: work=.* overrun=\([0-9]*\).*/\1/p' "$R/qt.txt")
	if ! grep -q "^QT n: tracer=" "$R/qt.txt"; then
		fail "n: tracer started in the guest" "$(echo "$e" | head -5)"
	elif [ "$how" != "$want" ]; then
		fail "n: $KVER reads the instance by $want (${kc##*/})" "by ${how:-?}: $(echo "$e" | grep -m1 recording)"
	elif [ "$x" != 0 ] || [ -z "$ent" ] || [ ! -s "$R/n.data" ]; then
		fail "n: the workload closed $N_CLOSES fds, the ring's entries, the dump" "$(grep '^QT n: \(work\|serving\)' "$R/qt.txt"); $(wc -c <"$R/n.data") bytes from the guest"
	else
		pass "n: $KVER reads the instance by $how; the ring holds $ent of cpu 0's closes ($ovr overwritten)"
		# count first last breaks of wk_hot's closes of 100000 + 0..N-1 (its
		# pid, the syscall number, the first argument, in hex)
		set -- $(numbered "$R/n.data" "$w" "$NR_CLOSE" "$N_CLOSES" 2>"$R/n.script.err")
		# all the ring held, less 1% (closes of others on cpu 0, pages
		# overwritten after the count was read)
		[ "${1:-0}" -ge $((ent - ent / 100)) ] && [ "${3:-}" = $((N_CLOSES - 1)) ] && [ "${4:-}" = 0 ] &&
			pass "n: by $how: the final dump holds the newest close and the $1 before it, in order (100000+$2..$3; the ring held $ent)" ||
			fail "n: by $how: the final dump holds the newest close and all the ring held, in order" "${1:-0} closes, 100000+${2:-?}..${3:-?} of 0..$((N_CLOSES - 1)), ${4:-?} breaks, the ring held $ent; $(head -c 300 "$R/n.script.err")"
		s=$(echo "$e" | grep -m1 "dump 1 (exit)")
		case "$s" in
		"") fail "n: dump 1 (exit)" "$(echo "$e" | grep 'dump\|tracer:' | head -4)" ;;
		*"covers all since"*) fail "n: by $how: a ring that wrapped is not said to cover all" "$s" ;;
		*) pass "n: by $how: the dump line says the ring wrapped ($(echo "$s" | grep -o 'covers [^,]*'))" ;;
		esac
		# read pages: the kernel counts what it overwrote before them
		o=$(echo "$s" | sed -n 's/.*[( ]\([0-9]*\) before them overwritten).*/\1/p')
		[ "$how" = "mapped pages" ] || { [ "${o:-0}" -gt 0 ] &&
			pass "n: by $how: the dump line counts what the kernel overwrote ($(echo "$s" | grep -o '[a-z ]*[0-9]* before them overwritten'))" ||
			fail "n: by $how: the dump line counts what the kernel overwrote" "$s"; }
	fi
fi

if [ -z "${ONLY##*d*}" ]; then
	echo "-- d1: -o on a file that exists, trip count=300, SIGBUS trips segv"
	rm -rf "$R/d"; mkdir -p "$R/d"
	[ -s "$R/d.tar" ] && tar -x -C "$R/d" -f "$R/d.tar" &&
		pass "d: the dump files through nc: $(ls "$R/d" | tr '\n' ' ')" ||
		fail "d: the dump files through nc" "$(grep '^QT d: \(serving\|nc\)' "$R/qt.txt"); $(wc -c <"$R/d.tar") bytes of tar"
	e=$(grep -a "^QT d1 err: " "$R/qt.all" | sed 's/^QT d1 err: //')
	if grep -q "^QT d1: tracer=" "$R/qt.txt"; then
		# the hits counted up (several at a wake-up: the event's
		# counter), never past 299, then one dump for the 300th
		n=$(echo "$e" | grep -c "hit [0-9]* of 300,")
		echo "$e" | sed -n 's/.* hit \([0-9]*\) of 300,.*/\1/p' >"$R/d1.hits"
		sort -n -u -c "$R/d1.hits" 2>/dev/null && [ "$n" -gt 0 ] && [ "$(tail -1 "$R/d1.hits")" -le 299 ] &&
			pass "d1: trip count=300: hits counted up to $(tail -1 "$R/d1.hits") in order ($n lines)" ||
			fail "d1: trip count=300: hits 1 to 299 reported" "$n lines, last: $(echo "$e" | grep "hit [0-9]* of 300," | tail -1); $(grep "^QT d1: sent" "$R/qt.txt")"
		n=$(echo "$e" | grep -c "^tracer: dump [0-9]* (trip signal:signal_generate")
		s=$(echo "$e" | grep -m1 "dump [0-9]* (trip signal:signal_generate")
		[ "$n" = 1 ] && case "$s" in *"dump 1 (trip "*) true ;; *) false ;; esac &&
			pass "d1: trip count=300: exactly one dump, dump 1: ${s%%): *})" ||
			fail "d1: trip count=300: exactly one dump, dump 1" "$n dump lines: $(echo "$e" | grep 'dump [0-9]* (' | head -3)"
		# kill -BUS trips trip=segv (SIGBUS $SIGBUS on $ARCH)
		b=$(qt d1 bus) x=$(sed -n 's/^QT d1: bus=[0-9]* exit=\([0-9]*\).*/\1/p' "$R/qt.txt")
		s=$(echo "$e" | grep -m1 "dump 2 (trip segv by pid ")
		[ -n "$s" ] && [ "$x" = $((128 + SIGBUS)) ] &&
			pass "d1: kill -BUS (SIGBUS $SIGBUS, wk_hot $b exit $x) trips trip=segv: ${s%%): *})" ||
			fail "d1: kill -BUS (SIGBUS $SIGBUS) trips trip=segv" "wk_hot $b exit ${x:-?}; $(echo "$e" | grep 'dump [0-9]* (\|segv' | head -4)"
		echo "$e" | grep -q "dump 3 (exit)" && grep -q "^QT d1: tracer exit=0" "$R/qt.txt" &&
			pass "d1: dump 3 (exit), tracer exit 0" ||
			fail "d1: dump 3 (exit), tracer exit 0" "$(grep "^QT d1: tracer exit" "$R/qt.txt"); $(echo "$e" | grep 'dump 3' | head -2)"
	else
		fail "d1: tracer started in the guest" "$(echo "$e" | head -5)"
	fi
	# -o on a regular file that exists: left as it was, the dumps go to .1 ...
	grep -q "^QT d1: existing file unchanged" "$R/qt.txt" &&
		pass "d1: -o /run/d.data (exists): the file is left unchanged" ||
		fail "d1: -o /run/d.data (exists): the file is left unchanged" "$(grep '^QT d1: existing' "$R/qt.txt")"
	s=$(echo "$e" | grep -m1 "^tracer: dump 1 (")
	case "$s" in *" to /run/d.data.1"*) grep -q "^QT d1: d.data.1 [0-9]* bytes, magic PERFILE2" "$R/qt.txt" ;; *) false ;; esac &&
		pass "d1: dump 1 went to /run/d.data.1, a perf.data file ($(sed -n 's/^QT d1: d.data.1 \([0-9]*\) bytes.*/\1/p' "$R/qt.txt") bytes, PERFILE2)" ||
		fail "d1: dump 1 went to /run/d.data.1" "${s:-no dump 1}; $(grep '^QT d1: \(files\|d.data\)' "$R/qt.txt" | tr '\n' ' ')"
	# the hits are in the dumps: 300 SIGUSR1 to the workload in dump 1, the SIGBUS in dump 2
	w=$(sed -n 's/^QT d1: tracer=[0-9]* work=\([0-9]*\).*/\1/p' "$R/qt.txt") b=$(qt d1 bus)
	if [ -s "$R/d/d.data.1" ]; then
		perf script -i "$R/d/d.data.1" -F comm,pid,tid,cpu,time,event,trace >"$R/d/d.data.1.script" 2>"$R/d/d.data.1.script.err"
		n=$(grep 'signal:signal_generate:' "$R/d/d.data.1.script" | grep -c " sig=$SIGUSR1 .*comm=wk_hot pid=$w ")
		[ "$n" = 300 ] && pass "d1: dump 1 holds the 300 hits: signal_generate sig=$SIGUSR1 comm=wk_hot pid=$w" ||
			fail "d1: dump 1 holds the 300 hits (signal_generate sig=$SIGUSR1 pid=$w)" "$n of them; $(head -c 300 "$R/d/d.data.1.script.err")"
	fi
	if [ -s "$R/d/d.data.2" ]; then
		perf script -i "$R/d/d.data.2" -F comm,pid,tid,cpu,time,event,trace >"$R/d/d.data.2.script" 2>"$R/d/d.data.2.script.err"
		s=$(grep 'signal:signal_generate:' "$R/d/d.data.2.script" | grep -m1 " sig=$SIGBUS .*comm=wk_hot pid=$b ")
		[ -n "$s" ] && pass "d1: dump 2 holds the hit: signal_generate sig=$SIGBUS (SIGBUS) comm=wk_hot pid=$b" ||
			fail "d1: dump 2 holds the hit: signal_generate sig=$SIGBUS (SIGBUS) pid=$b" "$(grep -m2 'signal_generate' "$R/d/d.data.2.script"; head -c 300 "$R/d/d.data.2.script.err")"
	fi

	echo "-- d2: -o /run/d2.data after 300 short processes, hotplug, every CPU"
	e=$(grep -a "^QT d2 err: " "$R/qt.all" | sed 's/^QT d2 err: //')
	if ! grep -q "^QT d2: tracer=" "$R/qt.txt"; then
		fail "d2: tracer started in the guest" "$(echo "$e" | head -5)"
	elif [ -s "$R/d/d2.data" ] && [ -s "$R/d/d2.data.1" ]; then
		pass "d2: two dump files, d2.data and d2.data.1 ($(wc -c <"$R/d/d2.data") and $(wc -c <"$R/d/d2.data.1") bytes)"
		echo "$e" | grep -q "dump 1 (signal)" && echo "$e" | grep -q "dump 2 (exit)" && grep -q "^QT d2: tracer exit=0" "$R/qt.txt" &&
			pass "d2: guest: dump 1 (signal), dump 2 (exit), tracer exit 0" ||
			fail "d2: guest: dump 1 (signal), dump 2 (exit), tracer exit 0" "$(grep '^QT d2: tracer exit' "$R/qt.txt"); $(echo "$e" | grep 'dump [0-9]* (' | head -3)"
		sym=(--symfs="$ROOT" --kallsyms="$SMAP")
		for f in "$R/d/d2.data" "$R/d/d2.data.1"; do
			perf script -i "$f" "${sym[@]}" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>"$f.script.err" ||
				fail "d2: perf script decodes $(basename "$f")" "$(head -c 400 "$f.script.err")"
		done
		# the tracking table: the wk_hot that spun and exited before dump 1
		# (after 300 short processes) still has its comm and its symbols
		# (from its exec of /bin/wk_hot on: before, it was the shell and
		# taskset; perf 6.8 and later name a sample after its exit :PID)
		p=$(qt d2 spun)
		x='$2 == p"/"p && /sched:sched_process_exec:/ && /filename=\/bin\/wk_hot / { t = $4 + 0 } $2 == p"/"p && t && $4 + 0 >= t && /cpu-clock:/'
		n=$(awk -v p="$p" "$x" "$R/d/d2.data.script" | wc -l)
		c=$(awk -v p="$p" "$x"' && $1 != "wk_hot" && $1 != ":" p' "$R/d/d2.data.script" | wc -l)
		k=$(awk -v p="$p" "$x"' && $1 == "wk_hot" && /work_hot_loop/' "$R/d/d2.data.script" | wc -l)
		# (ex, not e: e is the guest's stderr, judged below)
		ex=$(awk -v p="$p" "$x"' && $1 == ":" p' "$R/d/d2.data.script" | wc -l)
		[ "$ex" = 0 ] && ex= || ex=" ($ex after its exit, named :$p by this perf)"
		[ -n "$p" ] && [ "$n" -gt 0 ] && [ "$c" = 0 ] && [ "$k" -gt 0 ] &&
			pass "d2: exited after 300 short processes: wk_hot $p's $n cpu-clock samples after its exec have comm wk_hot$ex, $k in work_hot_loop" ||
			fail "d2: exited after 300 short processes: wk_hot ${p:-?}'s cpu-clock samples, comm wk_hot, work_hot_loop" "$n samples, $c with another comm, $k in work_hot_loop: $(awk -v p="$p" '$2 == p"/"p && /cpu-clock:/' "$R/d/d2.data.script" | head -3)"
		# the build-id of the exited wk_hot's binary, which tracer reads
		# from the file (statx, 4.11): in its map record, or (before
		# 4.11) the map without one
		bid=$(readelf -n "$ROOT/bin/wk_hot" 2>/dev/null | awk '/Build ID:/ { print $3 }')
		perf script -i "$R/d/d2.data" --show-mmap-events 2>/dev/null | grep " $p/$p: .*r-xp /bin/wk_hot\$" >"$R/d/d2.maps"
		n=$(grep -c . "$R/d/d2.maps") k=$(grep -c "<$bid>\]" "$R/d/d2.maps")
		if [ -z "$bid" ] || [ -z "$p" ]; then
			fail "d2: the build-id of /bin/wk_hot" "readelf -n: '${bid:-none}', pid '${p:-none}'"
		elif [ "$(printf '%s\n' 4.11 "$KVER" | sort -V | head -1)" = 4.11 ]; then
			[ "$k" -gt 0 ] && pass "d2: $KVER has statx: wk_hot $p's map of /bin/wk_hot carries its build-id $bid" ||
				fail "d2: wk_hot $p's map of /bin/wk_hot carries its build-id $bid" "$n maps: $(head -2 "$R/d/d2.maps")"
		else
			[ "$n" -gt 0 ] && [ "$k" = 0 ] && pass "d2: $KVER has no statx: wk_hot $p's map of /bin/wk_hot, without a build-id" ||
				fail "d2: $KVER: wk_hot $p's map of /bin/wk_hot, without a build-id" "$n maps, $k with one: $(head -2 "$R/d/d2.maps")"
		fi
		# CPU hotplug: cpu2 offline and back during the recording
		h=$(qt d2 hotplug)
		if [ "$SMP" -lt 3 ]; then
			echo "d2: $SMP CPUs, no cpu2: no hotplug here"
		elif [ -z "$h" ]; then
			fail "d2: cpu2 went offline and came back" "$(grep '^QT d2: ' "$R/qt.txt" | grep -v 'begin\|tracer=' | head -4)"
		else
			echo "$e" | grep -q "cpu 2 went offline" && echo "$e" | grep -q "cpu 2 is back online: recording it again" &&
				pass "d2: stderr: cpu 2 went offline, cpu 2 is back online: recording it again" ||
				fail "d2: stderr: cpu 2 went offline, cpu 2 is back online: recording it again" "$(echo "$e" | grep 'cpu 2' | head -3)"
			n=$(awk -v p="$h" '$2 == p"/"p && $3 == "[002]"' "$R/d/d2.data.1.script" | wc -l)
			k=$(awk -v p="$h" '$1 == "wk_hot" && $2 == p"/"p && $3 == "[002]" && /cpu-clock:/ && /work_hot_loop/' "$R/d/d2.data.1.script" | wc -l)
			s=$(awk -v p="$h" '$2 == p"/"p && $3 == "[002]" && /signal:signal_generate:/' "$R/d/d2.data.1.script" | head -1)
			[ "$n" -gt 0 ] && [ "$k" -gt 0 ] && [ -n "$s" ] &&
				pass "d2: cpu 2's records after it came back: wk_hot $h on [002]: $n records, $k cpu-clock in work_hot_loop, its SIGUSR1" ||
				fail "d2: cpu 2's records after it came back (wk_hot $h on [002])" "$n records, $k cpu-clock in work_hot_loop, signal: ${s:-none}; cpus of $h: $(awk -v p="$h" '$2 == p"/"p { print $3 }' "$R/d/d2.data.1.script" | sort | uniq -c | tr '\n' ' ')"
		fi
		# every CPU's ring, merged in time order
		ncpu=$(sed -n 's/^QT d: \([0-9]*\) cpus online.*/\1/p' "$R/qt.txt")
		s=$(awk '{ print $3 }' "$R/d/d2.data.1.script" | sort -u | tr -d '[]' | awk '{ printf "%s%d", (NR > 1 ? "," : ""), $1 }')
		w=$(seq 0 $((${ncpu:-1} - 1)) | tr '\n' , | sed 's/,$//')
		[ "$s" = "$w" ] && pass "d2: records of all $ncpu CPUs in dump 2 ($s; spinners on $(sed -n 's/^QT d2: spinners on \([0-9]*\) cpus/\1/p' "$R/qt.txt") CPUs)" ||
			fail "d2: records of all ${ncpu:-?} CPUs in dump 2" "cpus $s, want $w"
		for f in d2.data d2.data.1; do
			check "d2: $f: timestamps never go backwards ($(grep -c . "$R/d/$f.script") records, ${ncpu:-?} rings)" monotonic "$R/d/$f"
		done
	else
		fail "d2: two dump files, d2.data and d2.data.1" "$(grep '^QT d: serving' "$R/qt.txt"); from the tar: $(ls "$R/d" 2>/dev/null | tr '\n' ' ')"
	fi
fi
# pr: the guest's tracer -p on its own dumps, against host perf
if [ -z "${ONLY##*d*}" ]; then
	be=; case $ARCH in s390x|mips) be=be ;; esac
	for m in stream file framed zstd; do
		f=$R/d/pr-$m.data
		if ! [ -s "$f" ] || ! [ -e "$R/d/pr-$m.txt" ]; then
			fail "pr: $m: a dump and its tracer -p text from the guest" "$(grep "^QT pr: $m" "$R/qt.all")"
			continue
		fi
		x=$(grep -a -m1 "^QT pr: $m: tracer -p exit=" "$R/qt.all" | sed 's/^QT pr: [a-z]*: //')
		case $x in "tracer -p exit=0 "*) pass "pr: $m: in the guest, $x" ;; *) fail "pr: $m: tracer -p in the guest exits 0" "$x" ;; esac
		if [ $m = framed ]; then
			rm -f "$R/d/prx.data"*
			"$HOST_TRACER" -x -o "$R/d/prx.data" <"$f" 2>/dev/null
			set -- "$R/d/prx.data"*
		else
			set -- "$f"
		fi
		: >"$R/d/pr-$m.ps"
		for x; do perf script -i "$x" -F comm,tid,cpu,time,event >>"$R/d/pr-$m.ps" 2>/dev/null; done
		print_cols "pr: $m: the guest's tracer -p" "$R/d/pr-$m.txt" "$R/d/pr-$m.ps"
		print_fields "pr: $m: the guest's tracer -p" "$R/d/pr-$m.txt" "$be" "$@"
		[ $m = file ] || continue
		# the 'sched:* ... cpu-clock@99' file in the reader matrix: the
		# samples of wk_hot (named by its exec's COMM: its exec
		# tracepoint may be gone, raw_syscalls:* fill 64 KiB), then
		# every perf as the host's
		perf script -i "$f" --symfs="$ROOT" --kallsyms="$SMAP" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso \
			>"$f.script" 2>/dev/null
		x=$(awk '$1 == "wk_hot" && /cpu-clock:/ && / work_hot_loop / { n++ } END { print n + 0 }' "$f.script")
		[ "$x" -gt 0 ] && pass "pr: file: $x cpu-clock samples of wk_hot in work_hot_loop" ||
			fail "pr: file: cpu-clock samples of wk_hot in work_hot_loop" "$(grep -m2 'wk_hot' "$f.script")"
		readers "pr: file" "$f"
	done
fi
# pl: a dump pulled in the guest (listen= on loopback, root, no key)
if [ -z "${ONLY##*d*}" ]; then
	f=$R/d/pl.data
	e=$(grep -a "^QT pl err: " "$R/qt.all" | sed 's/^QT pl err: //')
	x=$(perf script -i "$f" --symfs="$ROOT" -F comm,event,ip,sym 2>/dev/null | awk '$1 == "wk_hot" && /cpu-clock:/ && / work_hot_loop/ { n++ } END { print n + 0 }')
	echo "$e" | grep -q "dump 1 (pulled by 127\.0\.0\.1:[0-9]*): .* to the connection" && [ "$x" -gt 0 ] &&
		pass "pl: a pulled dump (listen=127.0.0.1:9100): perf decodes $x cpu-clock samples of wk_hot" ||
		fail "pl: a pulled dump that perf decodes, wk_hot's samples in it" "$x samples; $(echo "$e" | grep -m2 'dump\|listen')"
fi
# fw: forward perf rings (OLDKERNEL, TRACER_FORWARD=1) on this arch's
# word size, byte order and pages: both dumps hold wk_hot's exec and its
# samples, named
if [ -z "${ONLY##*d*}" ]; then
	e=$(grep -a "^QT fw err: " "$R/qt.all" | sed 's/^QT fw err: //')
	for f in "$R/d/fw.data" "$R/d/fw.data.1"; do
		x=$(perf script -i "$f" --symfs="$ROOT" -F comm,event,trace,ip,sym 2>/dev/null |
			awk '/sched:sched_process_exec: filename=\/bin\/wk_hot / { e++ } $1 == "wk_hot" && /cpu-clock:/ && / work_hot_loop/ { n++ } END { print e + 0, n + 0 }')
		echo "$e" | grep -q "perf rings forward" && [ "${x% *}" -ge 1 ] && [ "${x#* }" -ge 10 ] &&
			pass "fw: $(basename "$f"): forward perf rings drained into tracer's own: wk_hot's exec, ${x#* } samples in work_hot_loop" ||
			fail "fw: $(basename "$f"): forward perf rings: wk_hot's exec and samples" "exec, samples: $x; $(echo "$e" | head -3)"
	done
fi
# o (with i): recording off and on, in the guest
if [ -z "${ONLY##*i*}" ] && [ -z "${ONLY##*d*}" ]; then
	x=$(perf script -i "$R/d/o.data" -F comm 2>/dev/null | awk '$1 == "wk_off" { f++ } $1 == "wk_on" { n++ } END { print f + 0, n + 0 }')
	[ "${x% *}" = 0 ] && [ "${x#* }" -gt 0 ] &&
		pass "o: SIGUSR1 off: no sample of wk_off; SIGCONT on: ${x#* } of wk_on" ||
		fail "o: SIGUSR1 off drops wk_off's samples, SIGCONT on keeps wk_on's" "wk_off, wk_on: $x; $(grep -a -m4 '^QT o err' "$R/qt.all")"
	x=$(perf script -i "$R/d/g.data" -F comm,event,trace 2>/dev/null | grep -c 'sched:sched_process_exec: filename=/bin/wk_hot ')
	[ "$x" = 1 ] && pass "g: 'sched:sched_process_* engine=perf': wk_hot's exec, on a forward perf ring" ||
		fail "g: 'sched:sched_process_* engine=perf' records wk_hot's exec" "$x execs; $(grep -a -m4 '^QT g err' "$R/qt.all")"
fi
# B: make bench's dur phase (test/bench/run.sh reads the rounds from
# qt.txt): every run measured; a tripwire that fired is said (its dump
# weighs on that run)
if [ -z "${ONLY##*B*}" ]; then
	testing "B: 30 runs measured (10 rounds: no tracer, a config, it with trip=wakeup>5ms)" 30 \
		"$(grep -c '^QT B: round [0-9]* [a-z]* [0-9][0-9]*$' "$R/qt.txt")"
	grep '^QT B: .*\(fired\|did not start\)' "$R/qt.txt" | sed 's/^QT /note: /'
fi

# w: duration tripwires (see test/qemu-init.sh): on a kernel without
# synthetic events a refusal that names the options; else the late
# wakeup and the slow read each trip once, with words the workload's
# delay explains (within 20%), the short ones do not; the dump holds
# the wakeup, the switch that ended it and the synthetic event; nothing
# of tracer's stays, after a SIGKILL neither once the next one started;
# another user's synthetic event and triggers stay and still count.
if [ -z "${ONLY##*w*}" ]; then
	e=$(grep -a "^QT w err: " "$R/qt.all" | sed 's/^QT w err: //')
	if grep -aq "^QT w: no synthetic events" "$R/qt.txt"; then
		x=$(sed -n 's/^QT w: no synthetic events: tracer exit=\([0-9]*\).*/\1/p' "$R/qt.txt")
		case $KERNEL in 4.*|3.*|5.10)	# (Debian's 5.10: no HIST_TRIGGERS, no SYNTH_EVENTS)
			[ "$x" = 2 ] && echo "$e" | grep -q "CONFIG_HIST_TRIGGERS and CONFIG_SYNTH_EVENTS (Linux 4.17 or later)" &&
				pass "w: Linux $KERNEL has no synthetic events: exit 2, '$(echo "$e" | head -1 | sed 's/^tracer: //')'" ||
				fail "w: no synthetic events: exit 2, naming the kernel options" "exit $x; $e" ;;
		*) fail "w: this kernel ($KERNEL) has synthetic events" "the guest found no $TFS/synthetic_events: $e" ;;
		esac
	else
		read -r lp pp < <(sed -n 's/^QT w: late pid \([0-9]*\), pipe pid \([0-9]*\).*/\1 \2/p' "$R/qt.txt")
		testing "w: delays below 50 ms (10 ms late, a 10 ms read): no dump" 0 "$(sed -n 's/^QT w: short: \([0-9]*\) dumps.*/\1/p' "$R/qt.txt")"
		l=$(echo "$e" | grep "trip wakeup")
		ms=$(echo "$l" | sed -n "s/.*dump 1 (trip wakeup \([0-9]*\)\.[0-9] ms: pid $lp (wk_late) on cpu [0-9]*).*/\1/p")
		[ "$(echo "$l" | grep -c 'dump [0-9]* (trip wakeup')" = 1 ] && [ -n "$ms" ] && [ "$ms" -ge 160 ] && [ "$ms" -le 240 ] &&
			pass "w: trip=wakeup/comm==\"wk_late\"/>50ms: one dump, $(echo "$l" | grep -o 'trip wakeup[^)]*)') for a wakeup held 200 ms" ||
			fail "w: trip=wakeup>50ms: one dump, naming wk_late ($lp) and about 200 ms" "$(echo "$e" | grep -m3 'trip\|dump')"
		l=$(echo "$e" | grep "trip syscall")
		# (its comm from /proc, while it lives: wk_pipe may be gone)
		ms=$(echo "$l" | sed -n "s/.*dump 2 (trip syscall \([0-9]*\)\.[0-9] ms: pid $pp\( (wk_pipe)\)\{0,1\}, read on cpu [0-9]*).*/\1/p")
		[ "$(echo "$l" | grep -c 'dump [0-9]* (trip syscall')" = 1 ] && [ -n "$ms" ] && [ "$ms" -ge 240 ] && [ "$ms" -le 360 ] &&
			pass "w: trip=syscall/comm==\"wk_pipe\"/>50ms: one dump, $(echo "$l" | grep -o 'trip syscall[^)]*)') for a read held 300 ms" ||
			fail "w: trip=syscall>50ms: one dump, naming read, wk_pipe ($pp) and about 300 ms" "$(echo "$e" | grep -m3 'trip\|dump')"
		# the dump: the synthetic event, the wakeup and the switch it measured
		f=$R/d/w.data
		x=$(perf script -i "$f" -F event,trace 2>/dev/null | awk -v p="$lp" '
			/tr_dur_[0-9]*_0:/ && $0 ~ "[ ,]pid=" p "[ ,]" { s++ }
			/sched:sched_waking:/ && $0 ~ " pid=" p " " { w++ }
			/sched:sched_switch:/ && $0 ~ "next_pid=" p " " { c++ }
			END { print s + 0, w + 0, c + 0 }')
		read -r x1 x2 x3 _ <<<"$x 0 0 0"
		[ "$x1" -ge 1 ] && [ "$x2" -ge 1 ] && [ "$x3" -ge 1 ] &&
			pass "w: perf $(perf version | cut -d' ' -f3) decodes the wakeup's dump: its synthetic event ($x1), wk_late's sched_waking ($x2) and switch-in ($x3)" ||
			fail "w: the wakeup's dump holds the synthetic event, the waking and the switch" "counts: $x; $(perf script -i "$f" -F event,trace 2>&1 | grep -m3 'tr_dur_\|rror')"
		# tracer -p prints the synthetic events (the crossings, lat=)
		x=$("$HOST_TRACER" -p "$f" 2>&1 | grep -c "tr_dur_[0-9]*_0: .*lat=")
		[ "$x" -ge 1 ] && pass "w: tracer -p prints the wakeup's synthetic event ($x lines)" ||
			fail "w: tracer -p prints the synthetic event" "$("$HOST_TRACER" -p "$f" 2>&1 | grep -m3 'tr_dur\|tracer')"
		# the reader matrix: every dump of w, as the host's perf reads it
		# engine=perf: the dump on perf rings, from the tripwire
		x=$(grep -a '^QT wp err: ' "$R/qt.all" | sed 's/^QT wp err: //')
		pp=$(sed -n 's/^QT w: perf engine: pipe pid \([0-9]*\).*/\1/p' "$R/qt.txt")
		n=$(perf script -i "$R/d/wp.data" -F event,trace 2>/dev/null | grep -c "sched:sched_switch:")
		# (perf can't open a synthetic event, ENODEV: it alone is in an
		# ftrace instance; the lat of wk_pipe's read is over 50 ms; perf
		# 6.1 puts commas between fields)
		sy=$(perf script -i "$R/d/wp.data" -F event,trace 2>/dev/null | grep "synthetic:tr_dur_" |
			grep -c "lat=[0-9]*,\? pid=${pp:-x}[, ]")
		y=$(perf script -i "$R/d/wp.data" -F event,trace 2>/dev/null | grep "synthetic:tr_dur_" |
			sed -n "s/.*lat=\([0-9]*\),\{0,1\} pid=${pp:-x}[, ].*/\1/p" | awk '$1 >= 50000' | wc -l)
		[ "$(echo "$x" | grep -c "trip syscall [0-9.]* ms: pid ${pp:-x}\( (wk_pipe)\)\?, read on cpu")" = 1 ] &&
		    echo "$x" | grep "recording " | grep -q "(1 tracepoints in ftrace instance .*; [1-9][0-9]* on perf rings)" &&
		    [ "$n" -gt 0 ] && [ "$sy" -ge 1 ] && [ "$y" = "$sy" ] &&
			pass "w: engine=perf: the tripwire fires once ($(echo "$x" | grep -o 'trip syscall[^)]*)')), perf decodes the dump: $n switches from perf rings, wk_pipe's synthetic event from the instance ($sy, lat over 50 ms)" ||
			fail "w: engine=perf: the tripwire fires, the dump from perf rings with the synthetic event" "$n switches, $sy synthetic of wk_pipe, $y of them over 50 ms; $(echo "$x" | grep -m3 'trip\|dump\|recording'; perf script -i "$R/d/wp.data" -F event,trace 2>&1 | grep -m2 'tr_dur_\|rror')"
		for f in "$R/d/w.data" "$R/d/wx.data" "$R/d/wy.data" "$R/d/wp.data"; do
			[ -s "$f" ] || { fail "w: $(basename "$f") came from the guest"; continue; }
			perf script -i "$f" --symfs="$ROOT" --kallsyms="$SMAP" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>/dev/null
			readers w "$f"
		done
		testing "w: a second tracer beside (trip=wakeup>1s): it ran and made its final dump only" 1 \
			"$(grep -a '^QT wb err: ' "$R/qt.all" | grep -c 'dump [0-9]* (')"
		testing "w: after SIGINT, nothing of tracer's in tracefs" "0 instances, 0 synthetic events" "$(sed -n 's/^QT w: left: //p' "$R/qt.txt")"
		x=$(grep -a '^QT wx err: ' "$R/qt.all" | sed 's/^QT wx err: //')
		bp=$(sed -n 's/^QT w: blocked pid \([0-9]*\).*/\1/p' "$R/qt.txt")
		ms=$(echo "$x" | sed -n "s/.*dump [0-9]* (trip blocked \([0-9]*\)\.[0-9] ms: pid $bp (wk_blk) on cpu [0-9]*).*/\1/p")
		testing "w: trip=blocked>100ms: a vfork parent's 10 ms in D state: no dump" 0 "$(sed -n 's/^QT w: blocked short: \([0-9]*\) dumps.*/\1/p' "$R/qt.txt")"
		if [ "$(echo "$x" | grep -c 'trip blocked')" = 1 ] && [ -n "$ms" ] && [ "$ms" -ge 240 ] && [ "$ms" -le 360 ]; then
			pass "w: trip=blocked/prev_comm==\"wk_blk\"/>100ms: one dump, $(echo "$x" | grep -o 'trip blocked[^)]*)') for 300 ms in D state"
		else
			fail "w: trip=blocked>100ms: one dump, naming wk_blk ($bp) and about 300 ms" "$(echo "$x" | grep -m3 'trip\|dump')"
		fi
		i=$(echo "$x" | sed -n 's/.*dump [0-9]* (trip irq \([0-9]*\)\.[0-9] ms: irq [0-9]* on cpu [0-9]*).*/\1/p')
		[ -n "$i" ] && [ "$(echo "$i" | awk '$1 >= 10000' | wc -l)" = 0 ] &&
			pass "w: trip=irq>1us dumps ($(echo "$x" | grep -m1 -o 'trip irq[^)]*)')), trip=irq>10s does not" ||
			fail "w: trip=irq>1us dumps, trip=irq>10s does not" "$(echo "$x" | grep -m3 'trip\|dump')"
		# softirq, oncpu, the generic form (fork to the child's exit)
		x=$(grep -a '^QT wy err: ' "$R/qt.all" | sed 's/^QT wy err: //')
		i=$(echo "$x" | sed -n 's/.*dump [0-9]* (trip softirq \([0-9]*\)\.[0-9] ms: [A-Z_]* on cpu [0-9]*).*/\1/p')
		[ -n "$i" ] && [ "$(echo "$i" | awk '$1 >= 10000' | wc -l)" = 0 ] &&
			pass "w: trip=softirq>1us dumps ($(echo "$x" | grep -m1 -o 'trip softirq[^)]*)')), trip=softirq>10s does not" ||
			fail "w: trip=softirq>1us dumps, trip=softirq>10s does not" "$(echo "$x" | grep -m3 'trip\|dump\|config')"
		read -r hp gp < <(sed -n 's/^QT w: hog pid \([0-9]*\), gen pid \([0-9]*\).*/\1 \2/p' "$R/qt.txt")
		testing "w: oncpu>50ms and fork..exit>100ms: a 10 ms spin and a 10 ms life: no dump" 0 "$(sed -n 's/^QT w: oncpu, fork..exit short: \([0-9]*\) dumps.*/\1/p' "$R/qt.txt")"
		ms=$(echo "$x" | sed -n "s/.*dump [0-9]* (trip oncpu \([0-9]*\)\.[0-9] ms: pid ${hp:-x} (wk_hog) on cpu [0-9]*).*/\1/p")
		# (one dump; a preemption may split the spin, its second part
		# within holdoff)
		[ "$(echo "$x" | grep -c 'dump [0-9]* (trip oncpu')" = 1 ] && [ -n "$ms" ] && [ "$ms" -ge 50 ] && [ "$ms" -le 480 ] &&
			pass "w: trip=oncpu/next_comm==\"wk_hog\"/>50ms: one dump, $(echo "$x" | grep -o 'trip oncpu[^)]*)') for a 400 ms spin" ||
			fail "w: trip=oncpu>50ms: one dump, naming wk_hog ($hp) and at most 400 ms" "$(echo "$x" | grep -m3 'trip\|dump\|config')"
		ms=$(echo "$x" | sed -n "s/.*dump [0-9]* (trip sched_process_fork..sched_process_exit \([0-9]*\)\.[0-9] ms: pid=${gp:-x} on cpu [0-9]*).*/\1/p")
		[ "$(echo "$x" | grep -c 'dump [0-9]* (trip sched_process_fork')" = 1 ] && [ -n "$ms" ] && [ "$ms" -ge 290 ] && [ "$ms" -le 450 ] &&
			pass "w: trip=sched:sched_process_fork(child_pid)..sched:sched_process_exit(pid)/comm==\"wk_gen\"/>100ms: one dump, $(echo "$x" | grep -o 'trip sched_process_fork[^)]*)') for a 300 ms life" ||
			fail "w: the generic form, fork to exit >100ms: one dump, naming pid $gp and about 300 ms" "$(echo "$x" | grep -m3 'trip\|dump\|config')"
		x=$(sed -n 's/^QT w: idle unarmed: wake-ups=\([0-9]*\) in \([0-9]*\) s.*/\1 \2/p' "$R/qt.txt")
		y=$(sed -n 's/^QT w: idle armed: wake-ups=\([0-9]*\) in \([0-9]*\) s.*/\1/p' "$R/qt.txt")
		[ -n "$x" ] && [ -n "$y" ] && [ "$y" -le "${x% *}" ] &&
			pass "w: armed with trip=wakeup/comm==\"wk_hot\"/>1s and trip=syscall/comm==\"wk_hot\"/>1s, ${x#* } s of wk_hot's wakeups and syscalls under both: $y wake-ups of tracer, unarmed ${x% *}" ||
			fail "w: armed, a load under both thresholds: no wake-up more than unarmed" "unarmed: ${x:-no count}, armed: ${y:-no count}; $(grep -a -m3 '^QT wi' "$R/qt.all")"
		k=$(sed -n 's/^QT w: killed: \([0-9]*\) instances, \([0-9]*\) .*/\1 \2/p' "$R/qt.txt")
		a=$(sed -n 's/^QT w: after: \(.*\)/\1/p' "$R/qt.txt")
		n=$(grep -a '^QT wn err: ' "$R/qt.all" | grep -c 'its tracer was killed')
		[ "${k% *}" -ge 1 ] && [ "${k#* }" -ge 1 ] && [ "$a" = "0 instances, 0 synthetic events" ] && [ "$n" -ge 2 ] &&
			pass "w: SIGKILL left $k (instances, synthetic events); the next start removed them, said ($n lines), and after its SIGTERM: $a" ||
			fail "w: what a SIGKILL left goes at the next start" "killed: $k; after: $a; $(grep -a '^QT wn err' "$R/qt.all" | head -4)"
		o=$(sed -n 's/^QT w: other: \(.*\)/\1/p' "$R/qt.txt")
		read -r o1 _ _ o4 _ o6 _ <<<"$o ."	# "1 event, hits N then M"
		[ "$o1" = 1 ] && [ "${o4:-0}" -ge 1 ] 2>/dev/null && [ "${o6:-0}" -gt "${o4:-0}" ] 2>/dev/null &&
			pass "w: another user's synthetic event and hist triggers stay, and still count ($o)" ||
			fail "w: another user's synthetic event and hist triggers stay and count" "$o"
	fi
fi
# ---------------------------------------------------------------- persist
# p: surviving a crash, in a QEMU of its own that reboots on the guest's
# panic (no -no-reboot) and keeps its RAM: the persistent instance
# boot_map on memory reserve_mem= holds at the same place each boot
# (nokaslr). Each boot writes the boot before with tracer -b, framed on
# the console, then records with persist=, runs wk_bootN and panics.
if [ -z "${ONLY##*p*}" ]; then
	stage persist
	PB=${P_BOOTS:-5}
	P_APP="nokaslr reserve_mem=4M:4096:trace trace_instance=boot_map@trace tracer_p"
	reboot_qemu p $((60 + 40 * PB)) "$P_APP P_BOOTS=$PB"
	grep -a '^QT p' "$R/p.log" | grep -v ' err: ' | head -40
	n=$(grep -ac '^QT p: panic' "$R/p.log")
	grep -aq '^QT all done' "$R/p.log" && [ "$n" = "$PB" ] &&
		pass "p: $PB boots that panicked (sysrq c, panic=1) and a last one; qemu exit $QRC" ||
		fail "p: $PB boots that panicked and a last one" "qemu exit $QRC, $n panics: $(grep -a '^QT p' "$R/p.log" | tail -4; tail -c 400 "$R/p.log")"
	sym=(--symfs="$ROOT" --kallsyms="$SMAP")
	for k in $(seq 1 "$PB"); do
		e=$(grep -a "^QT p$k err: " "$R/p.log" | sed "s/^QT p$k err: //")
		grep -aq "^QT p: b$k exit=0" "$R/p.log" && pass "p$k: tracer -b exits 0 in boot $((k + 1))" ||
			{ fail "p$k: tracer -b exits 0 in boot $((k + 1))" "$(grep -a "^QT p: b$k exit" "$R/p.log"): $(echo "$e" | head -4)"; continue; }
		# what it says: each CPU's span, and what it guessed
		echo "$e" | grep -q "^tracer: -b: cpu [0-9]*: [0-9]* records" && echo "$e" | grep -q "pids are tids" &&
			pass "p$k: stderr: $(echo "$e" | grep -c ': -b: cpu ') CPUs' spans, and what it guessed: $(echo "$e" | grep -o '[0-9]* tasks named')" ||
			fail "p$k: stderr: each CPU's span and what it guessed" "$(echo "$e" | head -5)"
		# the frames that boot k+1 wrote of boot k
		awk -v b="QT p: b$k begin" -v x="QT p: b$k exit" 'index($0, b) == 1 { f = 1; next } index($0, x) == 1 { f = 0 } f' \
			"$R/p.log" >"$R/p$k.cap"
		f=$R/p$k.data
		rm -f "$f"
		"$HOST_TRACER" -x -o "$f" <"$R/p$k.cap" >/dev/null 2>"$R/p$k.x.err"
		perf script -i "$f" "${sym[@]}" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>"$f.script.err"
		m=$(grep -c . "$f.script")
		[ "$m" -gt 0 ] && pass "p$k: tracer -x, then perf 6.1 decodes the boot before ($(wc -c <"$f") bytes, $m records)" ||
			{ fail "p$k: tracer -x, then perf 6.1 decodes the boot before" "$(cat "$R/p$k.x.err"; head -c 300 "$f.script.err")"; continue; }
		# the workload of that boot: its exec, by its name, and its switches
		s=$(grep 'sched:sched_process_exec:' "$f.script" | grep -m1 "filename=/run/wk_boot$k ")
		w=$(grep 'sched:sched_switch:' "$f.script" | grep -c "prev_comm=wk_boot$k ")
		[ -n "$s" ] && [ "$(echo "$s" | awk '{ print $1 }')" = "wk_boot$k" ] && [ "$w" -gt 0 ] &&
			pass "p$k: the workload of boot $k: exec of /run/wk_boot$k with comm wk_boot$k, $w of its sched_switch" ||
			fail "p$k: the workload of boot $k: exec of /run/wk_boot$k, comm wk_boot$k, its sched_switch" "exec: '${s:-none}', $w switches; $(grep -m2 'process_exec' "$f.script")"
		# up to the panic: the last record within a second of it (the
		# guest's uptime just before sysrq c; the records' clock is perf's)
		pt=$(sed -n "s/^QT p: panic$k uptime=\([0-9.]*\).*/\1/p" "$R/p.log" | head -1)
		lt=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break } } END { printf "%.6f", t }' "$f.script")
		awk -v p="${pt:-0}" -v l="$lt" 'BEGIN { exit !(p > 0 && l - p <= 1 && p - l <= 1) }' &&
			pass "p$k: the last record at $lt s, the panic at $pt s (uptime)" ||
			fail "p$k: the last record within a second of the panic" "last $lt, panic ${pt:-?}"
		readers "p$k" "$f"
	done
	# pd: the region damaged: QEMU's loader writes 64 KiB of 0xff one MiB
	# into it at every reset (the address as the kernel reported it
	# above), after a boot that recorded: tracer -b says what it found
	# or that nothing holds a boot before, and nothing crashes
	pa=$(sed -n 's/.*mapped boot instance boot_map at physical memory 0x\([0-9a-f]*\) .*/\1/p' "$R/p.log" | head -1)
	if [ -z "$pa" ]; then
		fail "pd: the region's address from the kernel's boot line" "$(grep -a -m2 'boot_map' "$R/p.log")"
	else
		head -c 65536 /dev/zero | tr '\0' '\377' >"$R/pd.ff"
		reboot_qemu pd 100 "$P_APP P_BOOTS=1 tracer_pd" \
			-device "loader,file=$R/pd.ff,addr=0x$(printf '%x' $((0x$pa + 0x100000)))"
		grep -a '^QT p\(d\)\?' "$R/pd.log" | head -12
		e=$(grep -a '^QT p1 err: ' "$R/pd.log" | sed 's/^QT p1 err: //')
		x=$(sed -n 's/^QT p: b1 exit=\([0-9]*\).*/\1/p' "$R/pd.log" | head -1)
		# (boot 1's panic is ours: what counts is boot 2's)
		o=$(awk '/^QT p: boot 2/ { f = 1 } f' "$R/pd.log" | grep -a -c -E 'BUG:|Oops|general protection|Call Trace')
		k=$(grep -a '^QT pd kernel: ' "$R/pd.log" | grep -v 'mismatch of magic' | head -1 | sed 's/^QT pd kernel: //')
		case "$x" in
		0|1) [ "$o" = 0 ] && echo "$e" | grep -q '^tracer: -b: ' &&
			pass "pd: a damaged region: the kernel said '$k'; tracer -b exit $x: $(echo "$e" | grep -m1 '^tracer: -b: ' | cut -c1-120)" ||
			fail "pd: a damaged region: a clear word, no crash" "exit $x, $o oops lines: $(echo "$e" | head -3)" ;;
		*) fail "pd: a damaged region: tracer -b exits 0 or 1" "exit '${x:-none}' (qemu $QRC): $(echo "$e" | head -3; grep -a -m3 -E 'BUG:|Oops' "$R/pd.log")" ;;
		esac
	fi
fi


# ------------------------------------------------------------------- pmsg
# m: a dump into pstore's pmsg (x86_64/pmsg: a 6.1 kernel built with
# PSTORE_PMSG by test/mkpmsg.sh, or ../shared/kernels/x86_64-*-pmsg), in a QEMU of its
# own that reboots on the guest's panic and keeps its RAM: boot 1 dumps
# with -o /dev/pmsg0 'frame=text zstd' and panics; boot 2 copies
# /sys/fs/pstore/pmsg-ramoops-0 to the console, whence tracer -x takes it.
if [ -z "${ONLY##*m*}" ]; then
	stage pmsg
	reboot_qemu m 120 "memmap=2M\$0x3f000000 ramoops.mem_address=0x3f000000 ramoops.mem_size=0x200000 ramoops.pmsg_size=0x100000 ramoops.record_size=0x10000 tracer_m"
	grep -a '^QT m' "$R/m.log" | head -20
	e=$(grep -a '^QT m err: ' "$R/m.log" | sed 's/^QT m err: //')
	echo "$e" | grep -q "dump 1 (signal): .* to /dev/pmsg0" && grep -aq '^QT m: panic' "$R/m.log" &&
		pass "m: boot 1: dump 1 to /dev/pmsg0 (frame=text zstd), then the panic" ||
		fail "m: boot 1: dump 1 to /dev/pmsg0, then the panic" "qemu exit $QRC: $(echo "$e" | head -4; grep -a '^QT m' "$R/m.log" | head -4)"
	grep -aq '^QT m: pstore .*pmsg-ramoops-0' "$R/m.log" && pass "m: boot 2: $(grep -a -m1 '^QT m: pstore' "$R/m.log" | sed 's/^QT m: //')" ||
		fail "m: boot 2: pmsg-ramoops-0 in /sys/fs/pstore" "qemu exit $QRC: $(grep -a '^QT m' "$R/m.log" | tail -3; tail -c 300 "$R/m.log")"
	awk 'index($0, "QT m: pmsg begin") == 1 { f = 1; next } index($0, "QT m: pmsg end") == 1 { f = 0 } f' "$R/m.log" >"$R/m.cap"
	f=$R/m.data
	rm -f "$f"
	"$HOST_TRACER" -x -o "$f" <"$R/m.cap" >/dev/null 2>"$R/m.x.err"; rc=$?
	perf script -i "$f" --symfs="$ROOT" --kallsyms="$SMAP" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>"$f.script.err"
	n=$(grep -c . "$f.script")
	s=$(grep 'sched:sched_process_exec:' "$f.script" | grep -m1 'filename=/run/wk_pmsg ')
	[ $rc = 0 ] && [ -n "$s" ] && [ "$(echo "$s" | awk '{ print $1 }')" = wk_pmsg ] &&
		pass "m: tracer -x on pmsg-ramoops-0 after the reboot: $(grep -o 'dump 1: [0-9]* bytes, ok' "$R/m.x.err"); perf 6.1: $n records, the exec of /run/wk_pmsg" ||
		fail "m: tracer -x on pmsg-ramoops-0 after the reboot, perf decodes the exec of wk_pmsg" "rc=$rc: $(cat "$R/m.x.err"); $n records; $(head -c 300 "$f.script.err")"
	[ -s "$f" ] && readers m "$f"
fi

# ---------------------------------------------------------------- console
# k: a board's console shared with its shell, in a QEMU of its own whose
# console is a unix socket that test/gconsole.py drives: the README's
# board commands typed as written (onto the board with nc, run from /tmp
# on the read-only root, kill -USR2/-INT, tracer -p, a key in /tmp and a
# pull, -o the console with frame=text). Each dump judged by perf script:
# wk_hot's exec, which the shell ran while tracer recorded.
if [ -z "${ONLY##*k*}" ]; then
	stage console
	K=$R/k; rm -rf "$K"; mkdir -p "$K"
	mapfile -t ca < <(for a in "${CON_ARGS[@]}"; do echo "${a/file,id=con,path=%CON%/socket,id=con,path=$K/con.sock,server=on,wait=on}"; done)
	q=(timeout -k 10 300 "$QEMU" "${QEMU_ARGS[@]}" -accel "tcg,thread=$TCG" -smp 2 -nodefaults -display none -monitor none
		-no-reboot -kernel "$KIMG" -initrd "$R/initrd.gz" -append "console=$CON panic=-1 rdinit=/init tracer_k" "${ca[@]}"
		-netdev "user,id=n,hostfwd=tcp:127.0.0.1:$((HOSTPORT + 100))-:9999,hostfwd=tcp:127.0.0.1:$((HOSTPORT + 200))-:9000"
		-device "$NIC,netdev=n")
	printf '%q ' "${q[@]}" >"$K/qemu.cmd"; echo >>"$K/qemu.cmd"
	"${q[@]}" >"$K/qemu.out" 2>&1 &
	qp=$!
	timeout 280 python3 test/gconsole.py "$K/con.sock" "$K" "$B/guest/tracer" $((HOSTPORT + 100)) >"$K/res" 2>&1
	sleep 3; kill $qp 2>/dev/null; wait $qp
	while read -r w l; do
		case $w in ok:) pass "k: $l" ;; bad:) fail "k: $l" "$(tail -c 400 "$K/console.out" | tr -d '\r')" ;; *) echo "k: $w $l" ;; esac
	done <"$K/res"
	grep -q '^ok: ' "$K/res" || fail "k: test/gconsole.py ran" "$(tail -3 "$K/res"; cat "$K/qemu.out")"
	"$HOST_TRACER" -x -o "$K/con.data" <"$K/console.out" >"$K/x.err" 2>&1
	[ -s "$K/con.data" ] && [ -s "$K/con.data.1" ] && pass "k: tracer -x takes both console dumps out: $(tr '\n' ' ' <"$K/x.err")" ||
		fail "k: tracer -x takes both console dumps out" "$(cat "$K/x.err")"
	for f in t.data t.data.1 pull.data con.data con.data.1; do
		[ -s "$K/$f" ] || continue
		s=$(perf script -i "$K/$f" -F comm,event,trace 2>"$K/$f.err" | grep -c 'sched:sched_process_exec:.*wk_hot')
		[ "${s:-0}" -gt 0 ] && pass "k: $f: perf script shows wk_hot's exec ($s)" ||
			fail "k: $f: perf script shows wk_hot's exec" "$(head -c 300 "$K/$f.err")"
	done
fi

# --------------------------------------------------------------- hardware
# h: hardware counters, in a QEMU of its own. QEMU's PMUv3 counts cycles
# off its virtual clock at 1 GHz, and instructions (INST_RETIRED) only
# under precise instruction counting (-icount shift=N, one TCG thread;
# without it the PMU does not advertise the event and the kernel says
# ENOENT), where each instruction moves that clock 2^N ns. Its count is
# the machine's, not the vCPU's: each CPU's counter runs at 10^9 / 2^N a
# second of the clock. So wk_hot's H_MS ms of CPU time on each CPU come
# to about H_MS * 10^6 cycles and 2^N times fewer instructions there.
if [ -z "${ONLY##*h*}" ]; then
	stage hardware
	TCG=single reboot_qemu h 300 tracer_h -icount "shift=$H_SHIFT"
	grep -a '^QT h' "$R/h.log" | grep -v ' err: ' | head -20
	e=$(grep -a '^QT h err: ' "$R/h.log" | sed 's/^QT h err: //')
	# tracer -l: the PMU's events; an event it lacks, said so
	l=$(sed -n 's/^QT h list: \([a-z-]*\)\t\[hardware\]$/\1/p' "$R/h.log" | tr '\n' ' ')
	case " $l" in *" cycles "*) ;; *) l="$l(no cycles)" ;; esac
	case " $l" in *" instructions "*) ;; *) l="$l(no instructions)" ;; esac
	case " $l" in *" cache-misses "*) l="$l(cache-misses too)" ;; esac
	case $l in *"("*) fail "h: tracer -l lists the PMU's cycles and instructions, not cache-misses" "$l; $(grep -a '^QT h list: ' "$R/h.log" | head -3)" ;;
	*) pass "h: tracer -l lists the PMU's hardware events: $l(not cache-misses)" ;; esac
	x=$(grep -a -m1 '^QT h: cache-misses exit=' "$R/h.log" | sed 's/^QT h: //')
	case $x in "cache-misses exit=1 tracer: cache-misses: this CPU's PMU lacks it"*) pass "h: $x" ;;
	*) fail "h: cache-misses: exit 1, this CPU's PMU lacks it" "${x:-no word}" ;; esac
	f=$R/h.data
	cp "$R/h.port" "$f"
	echo "$e" | grep -q "dump 1 (exit)" && grep -aq '^QT h: tracer exit=0' "$R/h.log" &&
		pass "h: '$H_CONFIG' recorded, dump 1 (exit), tracer exit 0 ($(wc -c <"$f") bytes)" ||
		fail "h: '$H_CONFIG' recorded, dump 1 (exit), tracer exit 0" "qemu exit $QRC: $(echo "$e" | head -4; grep -a '^QT h' "$R/h.log" | tail -3)"
	sym=(--symfs="$ROOT" --kallsyms="$SMAP")
	perf script -i "$f" "${sym[@]}" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso >"$f.script" 2>"$f.script.err"; rc=$?
	perf script -i "$f" -F comm,pid,cpu,event,period >"$f.period" 2>/dev/null
	# per CPU and event: samples; per event: kernel frames, those named
	# (stack: kernel callchains); per wk_hot pid and event: the sum of
	# periods, its CPU, samples
	awk '/^[^ \t]/ { ev = ""; for (i = 3; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { c = substr($i, 2) + 0; break }
			if ($(i + 2) ~ /^(cycles|instructions):$/) { ev = $(i + 2); sub(":", "", ev); n[c " " ev]++ }
			next }
	     ev != "" && /\(\[kernel\.kallsyms\]\)$/ { k[ev]++; if ($2 !~ /^\[unknown\]$|^[0-9a-f]+$/) kn[ev]++ }
	     END { for (x in n) print "n", x, n[x]; for (x in k) print "k", x, k[x], kn[x] + 0 }' "$f.script" >"$f.sum"
	awk '$1 == "wk_hot" && $5 ~ /^(cycles|instructions):$/ { sub(":", "", $5); s[$2 " " $5] += $4; c[$2 " " $5] = $3; n[$2 " " $5]++ }
	     END { for (x in s) print "p", x, s[x], c[x], n[x] }' "$f.period" >>"$f.sum"
	m=$(grep -c . "$f.script")
	if [ $rc != 0 ] || [ "$m" = 0 ]; then
		fail "h: perf script decodes h.data" "rc=$rc: $(head -c 300 "$f.script.err")"
	else
		pass "h: perf script decodes h.data ($m lines)"
		ncpu=$(sed -n 's/^QT h: tracer=[0-9]* cpus=\([0-9]*\).*/\1/p' "$R/h.log")
		for ev in cycles instructions; do
			s= o=1
			for c in $(seq 0 $((${ncpu:-1} - 1))); do
				k=$(awk -v x="$c" -v e=$ev '$1 == "n" && $2 == x && $3 == e { print $4 }' "$f.sum")
				s="$s cpu$c ${k:-0}"; [ "${k:-0}" -gt 0 ] || o=
			done
			[ -n "$ncpu" ] && [ -n "$o" ] && pass "h: $ev samples on all $ncpu CPUs:$s" || fail "h: $ev samples on every CPU (${ncpu:-?})" "$s"
			read -r k kn < <(awk -v e=$ev '$1 == "k" && $2 == e { print $3, $4 }' "$f.sum")
			# nearly all kernel frames have a name from System.map
			[ "${k:-0}" -gt 0 ] && [ $((kn * 10)) -ge $((k * 9)) ] &&
				pass "h: $ev: kernel callchains decoded: $kn of $k kernel frames named ($(awk '/kallsyms\]\)$/ && $2 != "[unknown]" { print $2; exit }' "$f.script"), ...)" ||
				fail "h: $ev: kernel callchains decoded" "${kn:-0} of ${k:-0} kernel frames named: $(grep -m3 'kallsyms' "$f.script")"
		done
		# each spin: its CPU, its samples (at 999 Hz about one a ms), the
		# sum of their periods: within a factor of 3 of H_MS ms on all
		# CPUs together, and on each at most 3 times it, at least a tenth:
		# QEMU runs the vCPUs in turn in its one thread, and all but the
		# first take their overflow interrupts late, an overflow beyond a
		# period is no sample, and their sums came to 0.38 to 0.66 of
		# the length in 10 runs (cpu 0's 0.93 to 0.98)
		lo=$((H_MS * 1000000 / 10)) hi=$((H_MS * 1000000 * 3)) d=$((1 << H_SHIFT)) tc=0 ti=0
		grep -a '^QT h: spin cpu=' "$R/h.log" | sed 's/^QT h: spin cpu=\([0-9]*\) pid=\([0-9]*\).*/\1 \2/' >"$f.spins"
		[ -s "$f.spins" ] || fail "h: the spins' pids" "$(grep -a '^QT h' "$R/h.log" | tail -3)"
		while read -r c p; do
			read -r cy cc cn < <(awk -v p="$p" '$1 == "p" && $2 == p && $3 == "cycles" { print $4, $5, $6 }' "$f.sum")
			read -r in ic inn < <(awk -v p="$p" '$1 == "p" && $2 == p && $3 == "instructions" { print $4, $5, $6 }' "$f.sum")
			w="wk_hot $p on cpu $c: ${cy:-0} cycles in ${cn:-0} samples on ${cc:-?}, ${in:-0} instructions in ${inn:-0} on ${ic:-?}"
			[ "${cc:-}" = "[$(printf %03d "$c")]" ] && [ "${ic:-}" = "$cc" ] && [ "${cn:-0}" -ge $((H_MS / 10)) ] && [ "${inn:-0}" -ge $((H_MS / 10)) ] &&
				[ "${cy:-0}" -ge $lo ] && [ "${cy:-0}" -le $hi ] && [ "${in:-0}" -ge $((lo / d)) ] && [ "${in:-0}" -le $((hi / d)) ] &&
				[ $((cy * 2)) -ge $((in * d)) ] && [ "$cy" -le $((in * d * 2)) ] &&
				pass "h: $w (spin $H_MS ms: cycles $lo..$hi, instructions $((lo / d))..$((hi / d)), their ratio $d within 2x)" ||
				fail "h: $w: want $((H_MS / 10))+ samples, cycles $lo..$hi, instructions $((lo / d))..$((hi / d)), cycles/instructions $d within 2x" "$(echo "$e" | grep -m1 'dump 1')"
			tc=$((tc + ${cy:-0})) ti=$((ti + ${in:-0}))
		done <"$f.spins"
		k=$(grep -c . "$f.spins") t=$((H_MS * 1000000))
		[ "$k" -gt 0 ] && [ $tc -ge $((k * t / 3)) ] && [ $tc -le $((k * t * 3)) ] && [ $ti -ge $((k * t / 3 / d)) ] && [ $ti -le $((k * t * 3 / d)) ] &&
			pass "h: the $k spins of $H_MS ms together: $tc cycles, $ti instructions (within a factor of 3 of $((k * t)) and $((k * t / d)))" ||
			fail "h: the ${k:-0} spins of $H_MS ms together: cycles within a factor of 3 of $((k * t)), instructions of $((k * t / d))" "$tc cycles, $ti instructions"
	fi
	readers h "$f"
fi

finish
