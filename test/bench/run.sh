#!/usr/bin/env bash
# test/bench/run.sh - tracer's benchmarks (`make bench`); never part of `make test`.
#
#   1. hot path: ns per close(-1) with nothing, tracer (default: its
#      tracepoints in an ftrace instance), tracer engine=perf (lean
#      layout), tracer `full engine=perf` (perf's layout), perf
#      record --overwrite, perf record (forward), the bare kernel floor
#      (test/bench/bare.c, default and lean layout) and an ftrace instance
#      made by hand (the kernel's own cost), interleaved
#      round by round (the machine is shared, absolute numbers are noisy)
#   2. idle: voluntary context switches and CPU time of idle recorders
#   3. dump: the blind window (a ring or an instance paused), filled
#      first and under raw_syscalls:* at full speed, and the write speed
#   4. size: stripped static binary per arch and Kconfig variant
#   5. memory: RSS of an idle tracer without its ring mappings; the
#      anonymous memory at buf= 128k, 1m, 16m on both engines; the
#      start and exit of '*:*'
#   6. dur: what an armed trip=wakeup>5ms adds per switch and wakeup, in
#      the x86_64 6.1 guest (the host has no hist triggers): round trips
#      with no tracer, a config, it armed, interleaved
#
# Prints a markdown report and writes it to test/bench/results.md. Progress
# goes to stderr. Needs root. Knobs (environment):
#   CALLS=3000000 ROUNDS=5 (fewer when rounds are slow: 3, or 2 when even
#   those would not fit the budget)
#   BUDGET=540 (seconds for everything; the idle phase gets what is left,
#   60 s at most, 20 s at least)  IDLE_SECS=N (fixed idle duration)
#   TRACER=path (a prebuilt tracer; default: built from a copy of the tree)
#   PHASES="size hot dump mem idle dur" (a subset, for trying things out)
#   OUT=file (default test/bench/results.md)
set -u
export LC_ALL=C
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=$TOP/test/bench
CALLS=${CALLS:-3000000}
ROUNDS=${ROUNDS:-5}
BUDGET=${BUDGET:-540}
PHASES=${PHASES:-size hot dump mem idle dur}
OUT=${OUT:-$BENCH/results.md}
START=$(date +%s)
NCPU=$(nproc)
T=$(mktemp -d /tmp/tracer-bench.XXXXXX)
PIDS=""			# everything we started in the background
FTRACE_SAVED=0

elapsed() { echo $(($(date +%s) - START)); }
log() { echo "[bench $(elapsed)s] $*" >&2; }

# ---- cleanup: background recorders, ftrace state, scratch ----

ftrace_restore() {
	[ "$FTRACE_SAVED" = 1 ] || return 0
	rmdir "$FTI" 2>/dev/null
	FTRACE_SAVED=0
}

cleanup() {
	local p
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	ftrace_restore
	rm -rf "$T"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

bg_add() { PIDS="$PIDS $1"; }
bg_del() { PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' '); }

# stop PID [SIG]: signal it, wait up to 30 s, then SIGKILL.
stop() {
	local p=$1 i
	kill -"${2:-INT}" "$p" 2>/dev/null
	for i in $(seq 300); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	bg_del "$p"
}

# wait_for FILE STRING [TENTHS] [PID]: until FILE holds STRING.
wait_for() {
	local i
	for i in $(seq "${3:-100}"); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 1
		sleep 0.1
	done
	return 1
}

# perf_started PID: its events are open (2 per CPU or more), then 1 s
# for perf to synthesize /proc and enable them.
perf_started() {
	local i n
	for i in $(seq 100); do
		n=$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c perf_event)
		[ "$n" -ge $((2 * NCPU)) ] && { sleep 1; return 0; }
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ---- setup ----

[ "$(id -u)" = 0 ] || { echo "bench: needs root (system-wide perf events, ftrace)" >&2; exit 1; }
pkgs=
command -v perf >/dev/null || pkgs="$pkgs linux-perf"
command -v musl-gcc >/dev/null || pkgs="$pkgs musl-tools"
command -v gcc >/dev/null || pkgs="$pkgs gcc"
[ -e /usr/include/stdio.h ] || pkgs="$pkgs libc6-dev"	# gcc only recommends it
command -v python3 >/dev/null || pkgs="$pkgs python3"
APT_INSTALL=(apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)
if [ -n "$pkgs" ]; then
	log "apt-get install$pkgs"
	DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs >"$T/apt.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs >"$T/apt.log" 2>&1; } ||
		log "apt-get failed: $(tail -2 "$T/apt.log")"
fi
HAVE_PERF=0
perf --version >/dev/null 2>&1 && HAVE_PERF=1

TFS=/sys/kernel/tracing
[ -d $TFS/events ] || mount -t tracefs nodev $TFS 2>/dev/null
[ -d $TFS/events ] || { TFS=/sys/kernel/debug/tracing; mount -t debugfs nodev /sys/kernel/debug 2>/dev/null; }
[ -d $TFS/events/raw_syscalls ] || { echo "bench: no raw_syscalls tracepoints in tracefs" >&2; exit 1; }
FTI=$TFS/instances/bench$$	# the ftrace row's instance

# The tree is edited by others while this runs: build from a snapshot
# of it, or from HEAD when the snapshot does not build.
SRC=$T/src
snapshot() {	# DIR: Makefile, Kconfig and the sources of the work tree
	mkdir -p "$1" && cp -r "$TOP"/Makefile "$TOP"/Kconfig "$TOP"/*.c "$TOP"/*.h "$TOP"/lib "$1"/ && rm -f "$1"/lib/config.h "$1"/.config
}
SRC_DESC="$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '?')"
if [ -n "${TRACER:-}" ]; then
	SRC_DESC="$TRACER (given)"
	snapshot "$SRC"
else
	snapshot "$SRC"
	log "building tracer from a snapshot of the work tree ($SRC_DESC)"
	if ! make -s -C "$SRC" tracer >"$T/build.log" 2>&1; then
		log "the work tree does not build ($(grep -m1 error "$T/build.log")); using HEAD"
		rm -rf "$SRC" && mkdir -p "$SRC" && git -C "$TOP" archive HEAD | tar -x -C "$SRC" &&
			rm -f "$SRC"/lib/config.h "$SRC"/.config && make -s -C "$SRC" tracer >"$T/build.log" 2>&1 ||
			{ cat "$T/build.log" >&2; exit 1; }
		SRC_DESC="$(git -C "$TOP" rev-parse --short HEAD) (HEAD; the work tree did not build)"
	fi
	TRACER=$SRC/tracer
fi
musl-gcc -O2 -static -o "$T/memcpy" "$BENCH/memcpy.c" || log "memcpy.c does not build: no blind-window ratio"
gcc -O2 -Wall -o "$T/closeloop" "$BENCH/closeloop.c" && gcc -O2 -Wall -o "$T/bare" "$BENCH/bare.c" ||
	{ echo "bench: building the helpers failed" >&2; exit 1; }
CLOSELOOP=$T/closeloop

# Does this build have the full layout key (its default being lean)?
LEAN=0
"$TRACER" 'raw_syscalls:sys_enter full' </dev/null >/dev/null 2>"$T/lean.err" &
p=$!; bg_add $p
wait_for "$T/lean.err" recording 50 $p && LEAN=1
stop $p
log "tracer: $TRACER, $(wc -c <"$TRACER") bytes, full layout: $([ $LEAN = 1 ] && echo yes || echo no)"

{
	echo "uname -a	$(uname -a)"
	echo "CPU	$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "nproc	$NCPU"
	echo "memory	$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "date	$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel	$(uname -r)"
	echo "perf	$(perf --version 2>/dev/null || echo none)"
	echo "tracer	$(wc -c <"$TRACER") bytes (x86_64 defconfig as built here), source $SRC_DESC"
	echo "PMU	$(ls /sys/bus/event_source/devices 2>/dev/null | tr '\n' ' ')"
	echo "load at start	$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$T/machine.tsv"

# ---- 4. size (first: it needs no quiet machine) ----

size_phase() {
	local arches="x86_64:none" a syms s jobs=$T/size.jobs
	log "size: cross toolchains (test/setup-cross.sh)"
	timeout 900 bash "$TOP/test/setup-cross.sh" all riscv64 mips mips-sf >"$T/cross.log" 2>&1 ||
		log "setup-cross: $(tail -1 "$T/cross.log")"
	for a in aarch64:aarch64-linux-musl- armhf:arm-linux-musleabihf- s390x:s390x-linux-musl- \
		i386:i386-linux-musl- mipsel:mipsel-linux-musl- mips64el:mips64el-linux-musl- \
		ppc64el:powerpc64le-linux-musl- riscv64:riscv64-linux-musl- mips:mips-linux-musl- \
		mips-sf:mips-linux-muslsf-; do
		command -v "${a#*:}gcc" >/dev/null && arches="$arches $a"
	done
	syms=$(awk '/^config / { print $2 }' "$SRC/Kconfig")
	# "DEP SYM" for every SYM that depends on DEP
	awk '/^config / { c = $2 } $1 == "depends" && $2 == "on" {
		for (i = 3; i <= NF; i++) if ($i ~ /^[A-Z0-9_]+$/) print $i, c }' "$SRC/Kconfig" >"$T/deps"
	: >"$jobs"
	for a in $arches; do
		echo "${a%%:*} ${a#*:} defconfig -" >>"$jobs"
		echo "${a%%:*} ${a#*:} allnoconfig -" >>"$jobs"
		for s in $syms; do echo "${a%%:*} ${a#*:} defconfig $s" >>"$jobs"; done
	done
	log "size: $(wc -l <"$jobs") builds ($(echo $arches | sed 's/:[^ ]*//g'))"
	export SRC T
	xargs -P "$NCPU" -L 1 bash -c "$(cat <<'JOB'
arch=$0 cross=$1 base=$2 off=$3
[ "$cross" = none ] && cross=
dir=$T/size/$arch-$base-$off
mkdir -p "$dir" && cp -r "$SRC"/Makefile "$SRC"/Kconfig "$SRC"/*.c "$SRC"/*.h "$SRC"/lib "$dir"/ && cd "$dir" || exit 0
rm -f lib/config.h .config
make -s "$base" CROSS_COMPILE=$cross >/dev/null 2>&1
also=
if [ "$off" != - ]; then
	# the symbol alone, and what depends on it (as kconfig would)
	todo=$off
	while [ -n "$todo" ]; do
		set -- $todo; s=$1; shift; todo="$*"
		sed -i "s/^CONFIG_$s=y\$/# CONFIG_$s is not set/" .config
		for d in $(awk -v s="$s" '$1 == s { print $2 }' "$T/deps"); do
			grep -q "^CONFIG_$d=y" .config && { also="$also $d"; todo="$todo $d"; }
		done
	done
fi
rm -f lib/config.h tracer
if make -s lib/config.h tracer CROSS_COMPILE=$cross >build.log 2>&1; then
	# text+data: the bytes the segments load (the file adds its ELF and
	# program headers; section headers are gone, see sstrip in Makefile)
	td=$(( $(readelf -lW tracer 2>/dev/null | awk '$1 == "LOAD" { printf "%s+", $5 } END { print 0 }') ))
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$base" "$off" "$(wc -c < tracer)" "${td:-?}" "${also# }"
else
	printf '%s\t%s\t%s\tFAIL\t?\t%s\n' "$arch" "$base" "$off" "$(grep -m1 -i error build.log)"
fi
cd / && rm -rf "$dir"
JOB
)" <"$jobs" >"$T/size.tsv"
}

# ---- 1. hot path ----

FT_OK=1
ftrace_check() {
	[ -d $TFS/instances ] && return
	FT_OK=0
	log "no ftrace instances here: no ftrace row"
}

# on CONFIG: start recording; sets CUR (a pid or empty); fails if it can't.
CUR=
on() {
	CUR=
	case $1 in
	base) ;;
	tracer|tracer_perf|tracer_full)
		"$TRACER" "raw_syscalls:* buf=1m$([ "$1" = tracer_full ] && echo ' full')$([ "$1" != tracer ] && echo ' engine=perf')" >/dev/null 2>"$T/on.err" &
		CUR=$!; bg_add $CUR
		wait_for "$T/on.err" recording 100 $CUR || return 1 ;;
	bare|bare_lean|bare_time)
		"$T/bare" $([ "$1" = bare_lean ] && echo -l) $([ "$1" = bare_time ] && echo -t) -p 256 2>"$T/on.err" &
		CUR=$!; bg_add $CUR
		wait_for "$T/on.err" recording 100 $CUR || return 1 ;;
	perf_ow)
		perf record --overwrite -a -e 'raw_syscalls:*' -m 256 -o "$T/x.data" 2>"$T/on.err" &
		CUR=$!; bg_add $CUR
		perf_started $CUR || return 1 ;;
	perf_fwd)
		perf record -a -e 'raw_syscalls:*' -o /dev/null 2>"$T/on.err" &
		CUR=$!; bg_add $CUR
		perf_started $CUR || return 1 ;;
	ftrace)	# the kernel's own: an instance as tracer makes it, by hand
		FTRACE_SAVED=1
		mkdir $FTI && echo 1024 >$FTI/buffer_size_kb && echo perf >$FTI/trace_clock &&
			echo 1 >$FTI/events/raw_syscalls/enable && echo 1 >$FTI/tracing_on ;;
	esac
}

off() {
	case $1 in
	ftrace) ftrace_restore ;;
	*) [ -n "$CUR" ] && stop "$CUR" INT; rm -f "$T/x.data" "$T/x.data.old" ;;
	esac
	CUR=
}

# Other people's perf users on this machine skew every row alike (their
# events on raw_syscalls would add to the baseline too): note them.
foreign_perf() {
	local d p c
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		case " $PIDS $$ " in *" $p "*) continue ;; esac
		if ls -l "$d/fd" 2>/dev/null | grep -q 'perf_event'; then
			c=$(cat "$d/comm" 2>/dev/null)
			echo "$p:$c"
		fi
	done | tr '\n' ' '
}

hot_phase() {
	local configs="base tracer tracer_perf tracer_full perf_ow perf_fwd bare_lean bare bare_time ftrace" cfgs=() c r i n t0 ns dt
	[ $LEAN = 1 ] || configs=${configs/tracer_full /}
	[ $HAVE_PERF = 1 ] || configs=${configs/perf_ow perf_fwd /}
	ftrace_check
	[ $FT_OK = 1 ] || configs=${configs/ ftrace/}
	read -ra cfgs <<<"$configs"
	n=${#cfgs[@]}
	: >"$T/hot.tsv"
	: >"$T/hot.notes"
	: >"$T/hot.disturbed"
	# the hot path may use 60% of the budget, and must leave 150 s for the rest
	local hot_start=$(date +%s) budget=$((BUDGET * 60 / 100)) rounds=$ROUNDS
	[ $budget -gt $((BUDGET - $(elapsed) - 150)) ] && budget=$((BUDGET - $(elapsed) - 150))
	for ((r = 0; r < rounds; r++)); do
		# someone else's system-wide recorder adds to every row: wait
		# (up to 45 s) for it to end; a round that had one is marked
		local fp=$(foreign_perf) until=$(($(date +%s) + 45)) fp_end
		[ -n "$fp" ] && log "hot: waiting up to 45 s for other perf users to end: $fp"
		while [ -n "$fp" ] && [ "$(date +%s)" -lt $until ]; do
			sleep 1; fp=$(foreign_perf)
		done
		echo "round $((r + 1)): load $(cut -d' ' -f1-3 /proc/loadavg), other perf users: ${fp:-none}" >>"$T/hot.notes"
		for ((i = 0; i < n; i++)); do
			c=${cfgs[(i + r) % n]}	# rotate the order each round
			if ! on "$c"; then
				log "hot: $c did not start: $(head -c 300 "$T/on.err" 2>/dev/null)"
				echo "$c did not start in round $((r + 1)): $(head -c 200 "$T/on.err" 2>/dev/null)" >>"$T/hot.notes"
				off "$c"
				continue
			fi
			ns=$(taskset -c 0 "$CLOSELOOP" "$CALLS")
			off "$c"
			echo "$r	$c	$ns" >>"$T/hot.tsv"
			log "hot: round $((r + 1))/$rounds $c: $ns ns/call"
		done
		fp_end=$(foreign_perf)
		[ -n "$fp$fp_end" ] && echo "$r" >>"$T/hot.disturbed"
		[ -n "$fp_end" ] && echo "round $((r + 1)) end: other perf users: $fp_end" >>"$T/hot.notes"
		# keep to the budget: 3 rounds, or 2 if even those would not fit
		dt=$(($(date +%s) - hot_start))
		if [ $((r + 1)) -lt $rounds ] &&
		   { { [ $r -ge 2 ] && [ $((dt + dt / (r + 1))) -gt $budget ]; } ||
		     { [ $r -ge 1 ] && [ $dt -gt $budget ]; }; }; then
			log "hot: stopping after $((r + 1)) rounds (${dt}s; budget ${budget}s)"
			echo "stopped after $((r + 1)) of $rounds rounds to keep the time budget" >>"$T/hot.notes"
			rounds=$((r + 1))
		fi
	done
	echo "$CALLS	$rounds	$LEAN" >"$T/hot.meta"
}

# ---- 3. dump: blind window and write speed ----

# fill BYTES: close(-1) on every CPU until each ring got BYTES twice over
# (a raw_syscalls enter+exit pair is about 200 bytes).
fill() {
	local c n=$(($1 / 100 + 20000)) ps=
	for ((c = 0; c < NCPU; c++)); do
		taskset -c $c "$CLOSELOOP" $n >/dev/null & ps="$ps $!"
	done
	wait $ps
}

# load_on / load_off: close(-1) at full speed on every CPU, for dumps
# taken under raw_syscalls:* at full speed (LOADPIDS)
LOADPIDS=
load_on() {
	local c
	for ((c = 0; c < NCPU; c++)); do
		taskset -c $c "$CLOSELOOP" 2000000000 >/dev/null & LOADPIDS="$LOADPIDS $!"
		bg_add $!
	done
}
load_off() { [ -z "$LOADPIDS" ] || { kill $LOADPIDS; wait $LOADPIDS; } 2>/dev/null; LOADPIDS=; }

# dumps SINK BUF N TIMEOUT_TENTHS TRACER_ARGS...: N filled dumps, one line each in dump.tsv
# (a SINK ending in -load: each taken while close(-1) runs at full
# speed on every CPU, the rings wrapping as they are copied)
dumps() {
	local sink=$1 buf=$2 n=$3 to=$4 k p bytes line
	shift 4
	: >"$T/d.err"
	"$TRACER" "$@" >/dev/null 2>"$T/d.err" &
	p=$!; bg_add $p
	if ! wait_for "$T/d.err" recording 100 $p; then
		log "dump: tracer did not start: $(cat "$T/d.err")"
		stop $p KILL
		return
	fi
	bytes=$(awk -v b="$buf" 'BEGIN { n = b + 0; if (b ~ /k$/) n *= 1024; if (b ~ /m$/) n *= 1048576; print n }')
	case $sink in *-load) load_on; sleep 1 ;; esac
	for ((k = 1; k <= n; k++)); do
		case $sink in *-load) sleep 0.3 ;; *) fill "$bytes" ;; esac
		kill -USR2 $p
		if ! wait_for "$T/d.err" "dump $k (" "$to" $p; then
			log "dump: no dump $k to $sink (buf=$buf): $(tail -2 "$T/d.err")"
			break
		fi
		line=$(grep "dump $k (" "$T/d.err")
		echo "$line" | sed -n "s/.*: \([0-9]*\) bytes, \([0-9]*\) records, \([0-9]*\) CPUs, paused \([0-9.]*\) us, wrote in \([0-9]*\) us.*/$sink	$buf	$bytes	$k	\1	\2	\3	\4	\5/p" >>"$T/dump.tsv"
		log "dump: $sink buf=$buf: ${line#tracer: }"
	done
	load_off
	# the final dump of a slow sink would take long: a second SIGINT ends it
	kill -INT $p 2>/dev/null
	sleep 0.3
	stop $p INT
}

# zdumps ROUND: the default config, uncompressed and with zstd, each
# dumped once over a pty drained at 11520 bytes/s (115200 8N1), after
# the same churn (short processes and a workload); one line each in
# zdump.tsv: mode bytes raw-bytes write-ms
zdumps() {
	local m p ps pty line
	for m in plain zstd; do
		rm -f "$T/pty.path"
		python3 "$BENCH/ptysink.py" 11520 >"$T/pty.path" 2>"$T/pty.err" &
		ps=$!; bg_add $ps
		wait_for "$T/pty.path" /dev/ 50 $ps || { log "zstd: no pty"; stop $ps TERM; continue; }
		pty=$(head -1 "$T/pty.path")
		: >"$T/z.err"
		"$TRACER" -o "$pty" "$([ $m = zstd ] && echo zstd) baud=115200" 2>"$T/z.err" &
		p=$!; bg_add $p
		if wait_for "$T/z.err" recording 100 $p; then
			churn
			kill -USR2 $p
			if wait_for "$T/z.err" "dump 1 (" 1800 $p; then
				line=$(grep "dump 1 (" "$T/z.err")
				echo "$line" | sed -n "s/.*: \([0-9]*\) bytes\( (zstd, from \([0-9]*\))\)*, .* wrote in \([0-9]*\) us.*/$m	\1	\3	\4/p" >>"$T/zdump.tsv"
				log "zstd: $m: ${line#tracer: }"
			fi
		fi
		kill -INT $p 2>/dev/null; sleep 0.3; stop $p INT
		stop $ps TERM
	done
}

# churn: what a default config records on a busy board: 40 short
# processes and a workload, over 2 s
churn() {
	local i
	for ((i = 0; i < 40; i++)); do ls /usr/bin >/dev/null; done
	"$CLOSELOOP" 20000 >/dev/null
	sleep 2
}

dump_phase() {
	local ps pty b r ev
	: >"$T/dump.tsv"
	: >"$T/zdump.tsv"
	# memcpy of one ring, same libc, same machine, same run
	[ -x "$T/memcpy" ] && "$T/memcpy" 65536 1048576 16777216 >"$T/memcpy.tsv"
	# devnull: the default engine (ftrace's ring for tracepoints);
	# devnull-perf: perf rings, the same events
	for b in 64k 1m 16m; do
		dumps devnull $b 3 300 "raw_syscalls:* buf=$b"
		dumps devnull-perf $b 3 300 "raw_syscalls:* buf=$b engine=perf"
	done
	# the same, each dump taken under raw_syscalls:* at full speed
	for b in 64k 1m 16m; do
		dumps devnull-load $b 5 300 "raw_syscalls:* buf=$b"
		dumps devnull-perf-load $b 5 300 "raw_syscalls:* buf=$b engine=perf"
	done
	# the window where tracer's own ioctls fire no tracepoint
	dumps devnull-nosys 64k 3 300 "sched:sched_switch cpu-clock@999 buf=64k"
	for r in 1 2; do zdumps $r; done
	# perf record -z on the same events, the same churn: its ratio
	if [ $HAVE_PERF = 1 ]; then
		ev=$("$TRACER" -h | sed -n '/^Default:/,$p' | tail -n +2 | tr ' \n' '\n\n' | grep -v '^buf=' | grep . | sed 's/@49$//' | paste -sd,)
		perf record -z -a -F 49 -e "$ev" -o "$T/z.perf" -- bash -c "$(declare -f churn); CLOSELOOP=$CLOSELOOP churn" >/dev/null 2>"$T/zperf.err"
		sed -n 's/.*wrote \([0-9.]*\) MB .*compressed (original \([0-9.]*\) MB, ratio is \([0-9.]*\)).*/perf-z	\1	\2	\3/p' "$T/zperf.err" >>"$T/zdump.tsv"
		rm -f "$T/z.perf"
	fi
	# a pty, drained at full speed and at 115200 baud (11520 bytes/s)
	for b in 64k:0:3 1m:0:3 64k:11520:2; do
		# the child creates the file: no stale path from the last round
		rm -f "$T/pty.path"
		python3 "$BENCH/ptysink.py" "$(echo $b | cut -d: -f2)" >"$T/pty.path" 2>"$T/pty.err" &
		ps=$!; bg_add $ps
		wait_for "$T/pty.path" /dev/ 50 $ps || { log "dump: no pty"; stop $ps TERM; continue; }
		pty=$(head -1 "$T/pty.path")
		[ -c "$pty" ] || { log "dump: $pty is not a tty"; stop $ps TERM; continue; }
		if [ "$(echo $b | cut -d: -f2)" = 0 ]; then
			dumps pty-fast "${b%%:*}" "${b##*:}" 600 -o "$pty" "raw_syscalls:* buf=${b%%:*} baud=115200"
		else
			dumps pty-115200 "${b%%:*}" "${b##*:}" 1200 -o "$pty" "raw_syscalls:* buf=${b%%:*} baud=115200"
		fi
		stop $ps TERM
	done
}

# ---- 5. memory ----

rss_parts() {	# PID: "rss-without-rings rss-of-rings VmRSS" in KiB
	awk '/^[0-9a-f]+-[0-9a-f]+ / { ring = ($6 ~ /perf_event/) }
	     /^Rss:/ { if (ring) r += $2; else o += $2 }
	     END { printf "%d %d", o, r }' /proc/"$1"/smaps
	echo " $(awk '/^VmRSS/ { print $2 }' /proc/"$1"/status)"
}

anon_kb() { awk '/^Anonymous:/ { a += $2 } END { print a + 0 }' /proc/"$1"/smaps; }

# anonymous memory after a dump of full rings (what tracer holds besides
# the kernel's rings), against the rings' total, per engine and buf=;
# one line each in anon.tsv: engine buf anon-KiB rings-KiB
anon_rows() {
	local e b p kb
	: >"$T/anon.tsv"
	for e in ftrace perf; do
		for b in 128k 1m 16m; do
			"$TRACER" -o /dev/null "raw_syscalls:* buf=$b engine=$e" >/dev/null 2>"$T/a.err" &
			p=$!; bg_add $p
			if wait_for "$T/a.err" recording 100 $p; then
				kb=$(awk -v b="$b" 'BEGIN { n = b + 0; if (b ~ /m$/) n *= 1024; print n }')
				fill $((kb * 1024))
				kill -USR2 $p
				wait_for "$T/a.err" "dump 1 (" 300 $p &&
					echo "$e	$b	$(anon_kb $p)	$((kb * NCPU))" >>"$T/anon.tsv"
			fi
			stop $p INT
		done
	done
}

# '*:*': seconds to the start line, and from SIGINT to the exit (its
# final dump included), the events it records; one line in star.tsv
star_row() {
	local p a b c
	: >"$T/star.tsv"
	a=$(date +%s%N)
	"$TRACER" -o /dev/null '*:*' >/dev/null 2>"$T/star.err" &
	p=$!; bg_add $p
	if wait_for "$T/star.err" recording 600 $p; then
		b=$(date +%s%N)
		sleep 1
		c=$(date +%s%N)
		kill -INT $p
		wait $p 2>/dev/null
		echo "$(( (b - a) / 1000000 ))	$(( ($(date +%s%N) - c) / 1000000 ))	$(grep -o 'recording [0-9]* events' "$T/star.err" | grep -o '[0-9]*')	$(grep -o 'in ftrace instance\|perf rings' "$T/star.err" | head -1)" >>"$T/star.tsv"
	else
		stop $p INT
	fi
}

mem_phase() {
	local p
	anon_rows
	star_row
	: >"$T/mem.tsv"
	"$TRACER" >/dev/null 2>"$T/m.err" &
	p=$!; bg_add $p
	if wait_for "$T/m.err" recording 100 $p; then
		sleep 1
		echo "idle, before any dump	$(rss_parts $p)" >>"$T/mem.tsv"
		kill -USR2 $p
		wait_for "$T/m.err" "dump 1 (" 100 $p && sleep 0.2 &&
			echo "idle, after one dump	$(rss_parts $p)" >>"$T/mem.tsv"
	fi
	stop $p INT
}

# ---- 2. idle ----

ctx() { awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 } END { print v, n }' /proc/"$1"/status; }
ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }	# utime + stime

idle_phase() {
	local secs=$1 names=(tracer tracer_trip tracer_procs0 perf_ow) ps=() i p f0 f1 a b
	: >"$T/idle.tsv"
	: >"$T/idle.notes"
	"$TRACER" >/dev/null 2>"$T/i0.err" & ps+=($!)
	"$TRACER" 'trip=segv trip=oom' >/dev/null 2>"$T/i1.err" & ps+=($!)
	"$TRACER" 'procs=0' >/dev/null 2>"$T/i2.err" & ps+=($!)
	if [ $HAVE_PERF = 1 ]; then
		perf record --overwrite -a -e 'raw_syscalls:*' -o "$T/idle.data" 2>"$T/i3.err" & ps+=($!)
	fi
	for p in "${ps[@]}"; do bg_add $p; done
	for i in 0 1 2; do wait_for "$T/i$i.err" recording 100 "${ps[i]}" || log "idle: ${names[i]} did not start: $(cat "$T/i$i.err")"; done
	[ ${#ps[@]} -gt 3 ] && perf_started "${ps[3]}"
	sleep 1
	f0=$(awk '/^processes/ { print $2 }' /proc/stat)
	for i in "${!ps[@]}"; do a[i]="$(ctx "${ps[i]}") $(ticks "${ps[i]}")"; done
	log "idle: $secs s"
	sleep "$secs"
	for i in "${!ps[@]}"; do b[i]="$(ctx "${ps[i]}") $(ticks "${ps[i]}")"; done
	f1=$(awk '/^processes/ { print $2 }' /proc/stat)
	for i in "${!ps[@]}"; do
		echo "${names[i]}	$secs	${a[i]}	${b[i]}	$((f1 - f0))	$(getconf CLK_TCK)" >>"$T/idle.tsv"
		stop "${ps[i]}" INT 2>/dev/null
	done
	# perf 6.1 may abort when it stops (seen: "assertion failed at
	# util/build-id.c:1010", then "stack smashing detected"): say so
	if [ -s "$T/i3.err" ] && grep -q 'assertion\|smashing\|Segmentation' "$T/i3.err"; then
		echo "perf record --overwrite (default -m) crashed when stopped with SIGINT, after the window: $(grep -m2 'assertion\|smashing\|Segmentation' "$T/i3.err" | tr '\n' ' ')" >>"$T/idle.notes"
	fi
	rm -f "$T/idle.data"*
}

# ---- 6. duration tripwires: an armed trip=wakeup>5ms, in a guest ----
# The host's kernel has no hist triggers; Debian's 6.1 in QEMU (TCG)
# has them: test/qemu.sh's scenario B runs the rounds there.
dur_phase() {
	local r=${TRACER_QEMU_CACHE:-/var/cache/tracer-qemu}/x86_64/run-6.1

	log "dur: an armed trip=wakeup>5ms in the x86_64 6.1 guest (QEMU, some minutes)"
	ONLY=B QEMU_READERS_DONE=1 bash "$TOP/test/qemu.sh" x86_64 6.1 >"$T/dur.log" 2>&1
	sed -n 's/^QT B: round \([0-9]*\) \([a-z]*\) \([0-9][0-9]*\)$/\1\t\2\t\3/p' "$r/qt.txt" >"$T/dur.tsv" 2>/dev/null
	sed -n 's/^note: //p' "$T/dur.log" >"$T/dur.notes"
	[ -s "$T/dur.tsv" ] || echo "no rounds came from the guest: $(tail -3 "$T/dur.log" | tr '\n' ' ')" >>"$T/dur.notes"
	log "dur: done"
}

# ---- run ----

has() { case " $PHASES " in *" $1 "*) ;; *) return 1 ;; esac; }
has size && { size_phase; log "size: done"; }
has hot && hot_phase
has dump && dump_phase
has mem && mem_phase
if ! has idle; then
	:
elif [ -n "${IDLE_SECS:-}" ]; then
	idle=$IDLE_SECS
else
	idle=$((BUDGET - $(elapsed) - 15))
	[ $idle -gt 60 ] && idle=60
	[ $idle -lt 20 ] && idle=20
fi
has idle && idle_phase "$idle"
has dur && dur_phase
echo "load at end	$(cut -d' ' -f1-3 /proc/loadavg)" >>"$T/machine.tsv"
echo "run time	$(elapsed) s" >>"$T/machine.tsv"
python3 "$BENCH/report.py" "$T" | tee "$OUT"
log "done in $(elapsed) s; report in $OUT"
