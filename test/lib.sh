# test/lib.sh - helpers for the shell tests (sourced by test/run.sh).
PASSED=0 FAILED=0 TRACERS=

pass() { PASSED=$((PASSED + 1)); echo "PASS: $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $1${2:+: $2}"; FAILS="${FAILS:-}FAIL: $1${2:+: ${2:0:300}}
"; }
skip() { echo "SKIP: $1: $2"; }
die_setup() { echo "FAIL: setup: $1"; echo "0 passed, 1 failed"; exit 1; }

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	local name=$1; shift
	if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "$*"; fi
}

# testing NAME EXPECTED ACTUAL: toybox style, diff what was expected.
testing() {
	if [ "$2" = "$3" ]; then pass "$1"
	else fail "$1" "expected '$2', got '$3'"; fi
}

# idle_check NAME SECONDS: tracer ($TPID) must not wake up while nothing
# is sent to it. Process activity elsewhere on the machine wakes the
# tracking ring (by design), so then the premise is gone: SKIP.
idle_check() {
	local a b f0 f1
	sleep 0.5
	f0=$(awk '/^processes/ { print $2 }' /proc/stat)
	a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$TPID/status)
	sleep "$2"
	b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$TPID/status)
	f1=$(awk '/^processes/ { print $2 }' /proc/stat)
	if [ "$f0" = "$f1" ] || [ "$a" = "$b" ]; then
		testing "$1" "$a" "$b"
	else
		skip "$1" "$((f1 - f0)) processes started elsewhere meanwhile ($((b - a)) wake-ups)"
	fi
}

# keep FILE...: save the evidence of a failure where it outlives $T.
keep() {
	mkdir -p /tmp/tracer-failed && cp "$@" /tmp/tracer-failed/ && echo "(kept in /tmp/tracer-failed)"
}

# The failures again at the end, where a CI log's tail shows them.
report() {
	[ -z "${FAILS:-}" ] || printf '== the failures again:\n%s' "$FAILS"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

need_root() {
	[ "$(id -u)" = 0 ] || die_setup "the tests open system-wide perf events: run as root"
}

# Host perf is the judge; musl builds the binary. No recommends: they
# are what pulled in Qt, GTK, Mesa and LLVM; what a test needs of a
# package's recommends is named here (gcc's libc6-dev: test/work.c).
APT_INSTALL=(apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)
need_tools() {
	local pkgs=
	command -v perf >/dev/null || pkgs="$pkgs linux-perf"
	command -v musl-gcc >/dev/null || pkgs="$pkgs musl-tools"
	command -v gcc >/dev/null || pkgs="$pkgs gcc"
	# as and ld: gcc 14's (Debian 13) only by its recommends; readelf
	for t in as ld readelf; do command -v $t >/dev/null || { pkgs="$pkgs binutils"; break; }; done
	[ -e /usr/include/stdio.h ] || pkgs="$pkgs libc6-dev"
	command -v file >/dev/null || pkgs="$pkgs file"
	command -v kconfig-conf >/dev/null || pkgs="$pkgs kconfig-frontends"
	command -v socat >/dev/null || pkgs="$pkgs socat"
	command -v nc >/dev/null || pkgs="$pkgs netcat-openbsd"
	command -v busybox >/dev/null || pkgs="$pkgs busybox-static"	# its nc half-closes (t_pull)
	command -v picocom >/dev/null || pkgs="$pkgs picocom"
	command -v python3 >/dev/null || pkgs="$pkgs python3"
	command -v zstd >/dev/null || pkgs="$pkgs zstd"
	command -v pgrep >/dev/null || pkgs="$pkgs procps"
	command -v ip >/dev/null || pkgs="$pkgs iproute2"
	[ -z "$pkgs" ] || DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs >"$T/apt.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs >"$T/apt.log" 2>&1; } ||
		die_setup "apt-get install$pkgs failed: $(tail -3 "$T/apt.log")"
	# the reader matrix of t_readers.sh; a reader that fails shows up
	# there as a SKIP with this log's reason
	test/setup-readers.sh all >"$T/readers.log" 2>&1 || echo "setup-readers failed: $(cat "$T/readers.log")"
	# for the cross-build test; a failure here shows up as its SKIP
	test/setup-cross.sh aarch64 >"$T/cross.log" 2>&1 || echo "setup-cross failed: $(tail -3 "$T/cross.log")"
	# t_build's 32-bit ringtest (qemu-i386 where this kernel runs no i386)
	test/setup-cross.sh --qemu i386 >"$T/cross32.log" 2>&1 || echo "setup-cross failed: $(tail -3 "$T/cross32.log")"
}

build_main() {
	make -s tracer >"$T/build.log" 2>&1 || { cat "$T/build.log"; die_setup "make failed"; }
	TRACER=$TOP/tracer
}

# start_tracer LOG ARGS...: run tracer with stdout into $LOG.out (unless
# ARGS has -o) and wait until it says it is recording. Sets TPID.
start_tracer() {
	local log=$1 i; shift
	: >"$log.err"
	"$TRACER" "$@" >"$log.out" 2>"$log.err" &
	TPID=$!
	TRACERS="$TRACERS $TPID"
	for i in $(seq 100); do
		grep -q "recording" "$log.err" && return 0
		kill -0 $TPID 2>/dev/null || break
		sleep 0.1
	done
	echo "tracer did not start: $(cat "$log.err")"
	return 1
}

# dump_wait LOG N: SIGUSR2, then wait for "dump N:" on stderr.
dump_wait() {
	kill -USR2 $TPID
	wait_line "$1" "dump $2 ("
}

wait_line() {
	local i
	for i in $(seq 100); do
		grep -q "$2" "$1.err" && return 0
		sleep 0.1
	done
	echo "no '$2' in $1.err: $(cat "$1.err")"
	return 1
}

# wait_rc PID SECONDS: RC is its exit status, or "hung" (then it is killed)
wait_rc() {
	local i
	for i in $(seq $(($2 * 10))); do kill -0 $1 2>/dev/null || break; sleep 0.1; done
	if kill -0 $1 2>/dev/null; then kill -9 $1; wait $1 2>/dev/null; RC=hung; return; fi
	wait $1; RC=$?
}

# stop_tracer: SIGINT makes a final dump; returns tracer's exit code.
stop_tracer() {
	kill -INT $TPID 2>/dev/null
	wait $TPID
}

# cpu_restore: cpu1 back online if a test took it offline (CPU_OFF)
cpu_restore() {
	[ -n "${CPU_OFF:-}" ] && echo 1 >/sys/devices/system/cpu/cpu1/online
	CPU_OFF=
}

stop_all() {
	local p
	for p in $TRACERS $WORKS; do kill -9 $p 2>/dev/null; done
	s3_down_all	# (the servers a failed test left)
	wait 2>/dev/null
}

# run_work NAME ARGS...: the workload under a unique name ($T/NAME), in
# the background; sets WPID. Its comm is NAME (up to 15 characters).
run_work() {
	local name=$1; shift
	cp "$T/work" "$T/$name"
	"$T/$name" "$@" &
	WPID=$!
	WORKS="$WORKS $WPID"
}

# copy_src DIR: the sources a build takes (Makefile, Kconfig, the top's
# .c and .h, lib/), without the generated lib/config.h
copy_src() {
	mkdir -p "$1" && cp -r Makefile Kconfig *.c *.h lib "$1/" && rm -f "$1/lib/config.h"
}

# push_build: $T/kc-push/tracer, defconfig with PUSH and TESTHOOKS (a
# wrong clock), built once for the files that push; 0 if it is there
push_build() {
	[ -x "$T/kc-push/tracer" ] && return 0
	rm -rf "$T/kc-push"; copy_src "$T/kc-push"
	make -s -C "$T/kc-push" defconfig >/dev/null 2>&1
	sed -i 's/^# CONFIG_PUSH is not set/CONFIG_PUSH=y/; s/^# CONFIG_TESTHOOKS is not set/CONFIG_TESTHOOKS=y/' "$T/kc-push/.config"
	make -s -C "$T/kc-push" tracer >"$T/kc-push.log" 2>&1
}

# hooked: $HOOKED, a binary of defconfig with Kconfig TESTHOOKS on (its
# test-only switches) and OLDKERNEL (TRACER_FORWARD=1: forward rings, as
# before 4.7), built once per run
HOOKED=
hooked() {
	HOOKED=$T/kc-hooks/tracer
	[ -x "$HOOKED" ] && return
	rm -rf "$T/kc-hooks"; copy_src "$T/kc-hooks"
	make -s -C "$T/kc-hooks" defconfig >/dev/null 2>&1
	sed -i 's/^# CONFIG_TESTHOOKS is not set/CONFIG_TESTHOOKS=y/; s/^# CONFIG_OLDKERNEL is not set/CONFIG_OLDKERNEL=y/' "$T/kc-hooks/.config"
	make -s -C "$T/kc-hooks" tracer >"$T/kc-hooks.log" 2>&1
}

# held PID: wait (30 s at most) until work PID reached its hold step:
# the steps before it are done, however long a busy machine made them
# take (work.c creates $WORK_HELD.PID there; test/run.sh sets it)
held() {
	local i
	for i in $(seq 300); do [ -e "$WORK_HELD.$1" ] && return 0; sleep 0.1; done
	echo "work $1 never reached hold"
	return 1
}

# own_segv COMM: trip=segv for the test's own crasher only: the preset
# trips on any process's SIGSEGV, and another job's (a crashing perf)
# would take the dump, or its holdoff, from the test
own_segv() { echo "trip=signal:signal_generate/sig==11&&comm==\"$1\"/"; }

# no_repeats WHAT STREAM PIDS: the stream describes each of the test's
# processes once unless it changed (test/dupchk.awk counts COMM, MMAP2
# and repeats); leaves perf script's side-band view in STREAM.txt.
no_repeats() {
	local S=$2 P=$3
	perf script -i "$2" --show-task-events --show-mmap-events 2>/dev/null >"$2.txt"
	set -- "$1" $(awk -v pids="$3" -f test/dupchk.awk "$2.txt")
	[ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] && [ "${4:-1}" = 0 ] &&
		pass "$1 repeats no COMM or MMAP2 ($2 COMM, $3 MMAP2)" ||
		fail "$1 repeats no COMM or MMAP2" "$2 COMM, $3 MMAP2, $4 repeats: $(awk -v pids="$P" -v show=1 -f test/dupchk.awk "$S.txt" | grep -m3 '^repeat' | tr '\n' ' ')"
}

# Timestamps of perf script output must never go backwards.
monotonic() {
	perf script -i "$1" -F time --ns 2>/dev/null | tr -d ' :' |
		awk -F. 'NF { t = $1 * 1e9 + $2; if (t < last) bad++; last = t; n++ }
			END { exit !(n > 0 && !bad) }'
}

# ---- the reader matrix: the host's perf, and perf 6.1 (bookworm), 6.12
# (trixie) and the newest (sid), each in a chroot where it is not the
# host's own; each labelled by its `perf version` ----
# readers_up DIR LOG: READERS is "host" and each chroot (under $RCACHE)
# that is built and runs a perf of another version, and a SKIP for each
# other one, naming what failed: its line of LOG (test/setup-readers.sh's
# output), or the command that runs perf in it and that command's error.
# HL: the host perf's version, the judge the others are held to.
# rperf VER ARGS... runs that version. A chroot sees /proc, /sys (perf
# checks the kernel's build-id there) and DIR at the same paths, so a
# dump's paths and the workload's binaries are the same inside. RMNT says how:
#   ns    the mounts live in a private mount namespace of each perf run
#         (unshare -m --propagation private), so they go with it: nothing
#         to undo, and runs side by side never meet.
#   bind  where that cannot be: unshare --propagation changes "/", which
#         fails where / is no mount point (in a chroot). Then each run
#         bind-mounts, runs perf and unmounts, holding $RCACHE/VER.lock so
#         that runs side by side take turns.
RCACHE=${TRACER_READERS_CACHE:-/var/cache/tracer-readers}
RSUITES="bookworm trixie sid"	# (test/setup-readers.sh builds the same)
READERS=host RBIND= RMNT=ns RWHY= HL=

# the chroot's side of rrun: sh -c RPERF_SH sh ROOT DIR PROG ARGS...; in
# bind mode (RMNT=bind in its environment) it undoes its mounts on the
# way out
RPERF_SH='r=$1 d=$2 p=$3; shift 3; u=
	[ "$RMNT" = bind ] && trap '\''for m in $u; do umount "$r$m" 2>/dev/null || umount -l "$r$m"; done'\'' EXIT &&
		trap "exit 130" INT TERM HUP
	for m in /proc /sys "$d"; do
		mount --bind "$m" "$r$m" || { echo "rperf: mount --bind $m $r$m failed" >&2; exit 125; }
		u="$m $u"
	done
	[ "$RMNT" = bind ] || exec chroot "$r" "$p" "$@"
	chroot "$r" "$p" "$@"'

# rrun SUITE PROG ARGS...: PROG of the chroot SUITE, as rperf runs perf
rrun() {
	local v=$1; shift
	if [ "$RMNT" = ns ]; then
		unshare -m --propagation private sh -c "$RPERF_SH" sh "$RCACHE/$v" "$RBIND" "$@"
	else
		RMNT=bind flock "$RCACHE/$v.lock" sh -c "$RPERF_SH" sh "$RCACHE/$v" "$RBIND" "$@"
	fi
}

rperf() {
	local v=$1; shift
	if [ "$v" = host ]; then perf "$@"; return; fi
	rrun "$v" perf "$@"
}

# rcmd VER: what rperf VER runs, for a SKIP
rcmd() {
	case $RMNT in
	ns) echo "unshare -m --propagation private sh -c 'mount --bind M $RCACHE/$1M (M: /proc /sys $RBIND); chroot $RCACHE/$1 perf version'" ;;
	*) echo "flock $RCACHE/$1.lock sh -c 'mount --bind M $RCACHE/$1M (M: /proc /sys $RBIND); chroot $RCACHE/$1 perf version; umount ...' (bind mounts here, as $RWHY)" ;;
	esac
}

# rlabel VER: "6.1.187", "6.12.117", "7.2.13": what its perf says
rlabel() { rperf "$1" version 2>/dev/null | awk '{ print $3 }'; }

# the host's Debian suite (none on another distribution)
host_suite() { (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}"); }

readers_up() {
	local s d e rc l seen hs
	READERS=host RBIND=$1 RMNT=ns RWHY=	# (again from scratch: a second call adds no reader twice)
	HL=$(rlabel host) hs=$(host_suite)
	seen=" ${HL%.*} "	# versions by major.minor: each once
	if ! e=$(unshare -m --propagation private true 2>&1); then
		RMNT=bind RWHY="'unshare -m --propagation private true' failed: $e"
		echo "readers: $RWHY; bind mounts around each perf run instead"
	fi
	for s in $RSUITES; do
		[ "$s" = "$hs" ] && continue	# the host's perf is that one
		if [ ! -x "$RCACHE/$s/usr/bin/perf" ]; then
			skip "reader matrix: perf of $s" "no chroot $RCACHE/$s: $(grep -m1 "^$s:" "$2" 2>/dev/null ||
				echo "test/setup-readers.sh $s failed, and said nothing in ${2:-its log}")"
			continue
		fi
		for d in /proc /sys "$RBIND"; do mkdir -p "$RCACHE/$s$d"; done
		e=$(rperf $s version 2>&1 >/dev/null); rc=$?
		if [ $rc != 0 ]; then
			skip "reader matrix: perf of $s" "$(rcmd $s): exit $rc: $(echo "$e" | tr -s '\n ' '  ')"
			continue
		fi
		l=$(rlabel $s)
		case $seen in
		*" ${l%.*} "*) echo "readers: perf of $s is $l, a version the matrix has: not twice" ;;
		*) READERS="$READERS $s" seen="$seen${l%.*} " ;;
		esac
	done
}

# pp_up: PP runs hotspot's perfparser, PPV says whose: the host's, or
# bookworm's in its chroot (test/setup-readers.sh; trixie has no hotspot).
# After readers_up (RBIND, RMNT).
PP= PPV=
pp_up() {
	local p d
	PP= PPV=
	if command -v hotspot-perfparser >/dev/null; then PP=hotspot-perfparser PPV=host
	elif p=$(readlink "$RCACHE/bookworm/usr/local/bin/hotspot-perfparser") && [ -n "$p" ] &&
	     [ -x "$RCACHE/bookworm$p" ]; then	# (its path there; none: the chroot of perf 6.1 alone)
		for d in /proc /sys "$RBIND"; do mkdir -p "$RCACHE/bookworm$d"; done
		PP=rpp PPV=bookworm
	fi
	[ -n "$PP" ]
}
rpp() { rrun bookworm hotspot-perfparser "$@"; }

# pp_complaints: perfparser's complaints (its stderr) that count: not
# those of a file missing here for a binary the test did not run (a
# process in a container or a chroot: its paths are not this machine's),
# "Could not find ELF file for PATH", "Failed to open debug info file
# PATH", a dwfl error "No such file"... Of the test's own binaries (in
# $T) every complaint counts, and so does every other one: a header, an
# event type, an address, a callchain perfparser could not decode.
pp_complaints() {
	awk -v T="$T/" '/[Cc]ould not find|[Nn]ot found|[Nn]o such file|[Cc]annot open|[Cc]an.t open|[Ff]ailed to open|[Cc]ould not open/ &&
		!index($0, T) { next } { print }'
}

# tracer -p judged by host perf (test/t_print.sh, test/qemu.sh):
# print_cols NAME PRINTED PERFSCRIPT: tracer -p's lines (side-band left
# out) against perf script -F comm,tid,cpu,time,event, line for line.
# perf 6.8 and later forget a task at its PERF_RECORD_EXIT and name its
# later records :TID (a 1-CPU guest has some): there the comm is not
# compared, and the lines are counted.
print_cols() {
	awk '{ print $1, $2, $3, $4, $5 }' "$3" >"$3.5"
	grep -v ' PERF_RECORD_' "$2" | awk -v e="$2.exited" 'NR == FNR { c[NR] = $1; t[NR] = $2; next }
		{ if (c[FNR] == ":" $2 && t[FNR] == $2 && c[FNR] != $1) { $1 = c[FNR]; x++ } print $1, $2, $3, $4, $5 }
		END { print x + 0 >e }' "$3.5" - >"$2.5"
	local n x; n=$(wc -l <"$2.5") x=$(cat "$2.exited")
	[ "$x" = 0 ] && x= || x=" ($x after their task's exit, where perf names it :TID)"
	[ "$n" -gt 100 ] && cmp -s "$2.5" "$3.5" &&
		pass "$1: comm, tid, cpu, time, event of all $n lines equal perf script's$x" ||
		fail "$1: comm, tid, cpu, time, event equal perf script's" "$n lines vs $(wc -l <"$3.5"): $(diff "$2.5" "$3.5" | head -4 | tr '\n' ' ')"
}
# print_fields NAME PRINTED be|"" DUMP...: every tracepoint field as perf
# decodes it (test/perfdump.py, compared by test/pcmp.py)
print_fields() {
	local n=$1 p=$2 be=$3 f o; shift 3
	: >"$p.perf"
	for f in "$@"; do perf script -i "$f" -s test/perfdump.py >>"$p.perf" 2>/dev/null; done
	o=$(python3 test/pcmp.py "$p" "$p.perf" $be 2>&1) && pass "$n: tracepoint fields equal perf's: $o" ||
		fail "$n: tracepoint fields equal perf's" "$(echo "$o" | head -3 | tr '\n' ' ')"
}

# numbered FILE PID NR N: of PID's syscall NR in FILE whose first
# argument is 100000 + i (i < N: test/work.c's close N), "count first
# last breaks", judged by host perf (raw_syscalls:sys_enter); perf's
# complaints on stderr
numbered() {
	perf script -i "$1" -F pid,trace | python3 -c '
import sys
pid, nr, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = first = last = bad = 0
for l in sys.stdin:
    f = l.split()
    if len(f) < 4 or f[0] != pid or f[2] != nr:
        continue
    v = int(f[3].strip("(,"), 16) - 100000
    if not 0 <= v < n:
        continue
    if c and v != last + 1:
        bad += 1
    if not c:
        first = v
    c += 1
    last = v
print(c, first, last, bad)' "$2" "$3" "$4"
}

# ---- S3: a real S3 server (test/s3.sh: Swift + s3api on 127.0.0.1) in
# $T for the push= tests; test/s3check.py judges what it holds ----
# s3_up [NAME]: start one in $T/NAME (s3) and export what s3check.py
# reads: S3_DIR S3_ENDPOINT S3_ACCESS S3_SECRET S3_BUCKET S3_REGION.
# Fails (1) with S3_WHY saying why; 3: the packages could not be
# installed (a SKIP, saying S3_WHY). Started again on a NAME stopped
# with --keep: the same data, port and credentials.
S3_DIRS=
s3_up() {
	local d=$T/${1:-s3} out kv rc
	out=$("$TOP/test/s3.sh" start "$d" 2>"$d.log"); rc=$?
	[ $rc = 0 ] || { S3_WHY=$(tail -3 "$d.log" | tr '\n' ' '); return $rc; }
	for kv in $out; do export "S3_$kv"; done
	case " $S3_DIRS " in *" $d "*) ;; *) S3_DIRS="$S3_DIRS $d" ;; esac
}

# s3_down [DIR [--keep]]: stop it (S3_DIR), its DIR removed unless --keep
s3_down() {
	local d=${1:-$S3_DIR}
	"$TOP/test/s3.sh" stop "$d" ${2:-} 2>>"$d.log"
	[ "${2:-}" = --keep ] || S3_DIRS=$(echo " $S3_DIRS " | sed "s| $d | |")
}

s3_down_all() {
	local d
	for d in $S3_DIRS; do [ -d "$d/run" ] && "$TOP/test/s3.sh" stop "$d" 2>/dev/null; done
	S3_DIRS=
}

# s3_procs DIR: the pids of processes whose command line names DIR
# (test/s3.sh's servers all do): none once it stopped
s3_procs() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' '\n' <$p/cmdline 2>/dev/null | grep -qF "$1/" && printf '%s ' ${p#/proc/}
	done
}

# s3c ARGS...: test/s3check.py on the server s3_up exported
s3c() { /usr/bin/python3 "$TOP/test/s3check.py" "$@"; }
