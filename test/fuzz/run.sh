#!/bin/bash
# test/fuzz/run.sh - build the libFuzzer harnesses (ASan + UBSan, glibc clang)
# and run each one.
#
#   test/fuzz/run.sh [SECONDS | runs=N] [TARGET...]	(default: 60 s, all targets)
#
# TARGETs: cfg ring dump extract track zstd ftrace print store pull conv. The build goes to $FUZZ_DIR
# (/var/cache/tracer-fuzz, else $TMPDIR), over a copy of the sources
# with every CONFIG_ symbol on; nothing is written in the tree but
# crashes. Each target first runs every input of test/fuzz/corpus/TARGET
# (the regression inputs), then fuzzes for the time or the number of
# runs given; new inputs it finds go to $FUZZ_DIR/work/TARGET, not into
# the tree. A crash, a leak, a timeout (an input that runs more than
# 5 s: a loop without end) or running out of memory is copied into
# test/fuzz/corpus/TARGET/, so it stays a regression input: fix the code, or
# the next run fails on it at once.
# One line per target: "fuzz TARGET: ok, N runs in S s, ..." or
# "fuzz TARGET: CRASH ..."; exits 0 if every target ran clean, 1 if one
# crashed, 2 if the build failed, 77 if clang or libFuzzer can't be had.
# Environment: FUZZ_DIR; FUZZ_TIMEOUT, seconds an input may run (5);
# FUZZ_FLAGS, more libFuzzer flags
# (-use_value_profile=1, ...); FUZZ_CFLAGS, more compiler flags;
# FUZZ_SRC, the tree to build (default: this one); FUZZ_KEEPGOING=1,
# go on past crashes (libFuzzer's -fork=1 -ignore_crashes=1), leaving
# the known crash inputs out, and save every new one.
cd "$(dirname "$0")/../.." || exit 2
TOP=$PWD
ALL="cfg ring dump extract track zstd ftrace print store pull conv"
LIMIT=${1:-60}
TMO=${FUZZ_TIMEOUT:-5}
[ $# -gt 0 ] && shift
TARGETS=${*:-$ALL}
case $LIMIT in
runs=[0-9]*) RUNFLAG="-runs=${LIMIT#runs=}" ;;
[0-9]*) RUNFLAG="-max_total_time=$LIMIT" ;;
*) echo "usage: test/fuzz/run.sh [SECONDS | runs=N] [$ALL]" >&2; exit 2 ;;
esac
for t in $TARGETS; do
	case " $ALL " in *" $t "*) ;; *) echo "fuzz: no target $t ($ALL)" >&2; exit 2 ;; esac
done

if [ -z "${FUZZ_DIR:-}" ]; then
	FUZZ_DIR=/var/cache/tracer-fuzz
	mkdir -p "$FUZZ_DIR" 2>/dev/null && [ -w "$FUZZ_DIR" ] || FUZZ_DIR=${TMPDIR:-/tmp}/tracer-fuzz
fi
B=$FUZZ_DIR
mkdir -p "$B" || exit 2

# ---- clang with libFuzzer ----
probe() {
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' >"$B/probe.c"
	clang -fsanitize=fuzzer,address,undefined -o "$B/probe" "$B/probe.c" >"$B/probe.log" 2>&1
}
# No recommends (llvm-N-dev and the rest); libFuzzer and the sanitizer
# runtimes are libclang-rt-N-dev, which clang only recommends: named here,
# N from the clang there is or the one apt would install.
APT_INSTALL=(apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)
if ! probe; then
	pkgs=clang
	v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
	[ -n "$v" ] || v=$(apt-cache show --no-all-versions clang 2>/dev/null | sed -n 's/^Depends:.*clang-\([0-9][0-9]*\).*/\1/p' | head -1)
	[ -n "$v" ] && pkgs="clang libclang-rt-$v-dev"
	echo "fuzz: installing $pkgs" >&2
	{ DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs ||
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" $pkgs; }; } >"$B/apt.log" 2>&1
	if ! probe; then
		v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
		[ -n "$v" ] && DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" "libclang-rt-$v-dev" >>"$B/apt.log" 2>&1
		probe || { echo "fuzz: no clang with libFuzzer (apt-get install clang failed: $(tail -1 "$B/apt.log"))"; exit 77; }
	fi
fi

# ---- build, over a snapshot of the sources ----
# The sources may change under us (someone is editing): build from one
# copy, with every feature on, so what ran is what was built.
S=$B/src
rm -rf "$S" && mkdir -p "$S" "$B/obj" "$B/bin" || exit 2
cp -r "${FUZZ_SRC:-$TOP}"/*.c "${FUZZ_SRC:-$TOP}"/*.h "${FUZZ_SRC:-$TOP}"/lib "${FUZZ_SRC:-$TOP}"/Kconfig "${FUZZ_SRC:-$TOP}"/Makefile "$S"/ || exit 2
awk '/^config / { print "#define CFG_" $2 " 1" }' "$S/Kconfig" >"$S/lib/config.h"
LAYERS=$(make -s -C "$S" layers | sed 's,lib/,,g')
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CF="-D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -Wall -Wno-unused-parameter -Wno-unused-function -I$S -I$S/lib -I$TOP/test/fuzz ${FUZZ_CFLAGS:-}"
build_fail() { echo "fuzz: build failed: $1"; sed -n 1,40p "$B/build.log"; exit 2; }
: >"$B/build.log"
for l in $LAYERS; do
	[ "$l" = tracer ] && continue
	x=
	[ "$l" = lib ] && x="-Dxmalloc=lib_xmalloc -Dxrealloc=lib_xrealloc -Dxstrdup=lib_xstrdup -Dxstrndup=lib_xstrndup"
	f=$S/lib/$l.c; [ -e "$f" ] || f=$S/$l.c	# (ring.c is at the top)
	clang $CF $SAN -fsanitize=fuzzer-no-link $x -c -o "$B/obj/$l.o" "$f" >>"$B/build.log" 2>&1 ||
		build_fail "$l.c"
done
# f_zstd checks the encoder with libzstd
case " $TARGETS " in *" zstd "*)
	[ -e /usr/include/zstd.h ] || DEBIAN_FRONTEND=noninteractive "${APT_INSTALL[@]}" libzstd-dev >>"$B/apt.log" 2>&1 ||
		{ echo "fuzz: no libzstd-dev for f_zstd"; exit 2; } ;;
esac
# Each harness includes the file under test (to reach its statics) and
# links the other layers.
inc() { case $1 in extract) echo frame ;; conv) echo convert ;; dump) echo "lean dump" ;; store) echo push ;; *) echo "$1" ;; esac; }
for t in $TARGETS; do
	objs=
	for l in $LAYERS; do
		case " tracer $(inc $t) " in *" $l "*) ;; *) objs="$objs $B/obj/$l.o" ;; esac
	done
	# f_zstd's judge is libzstd, the library perf decompresses with
	lz=; [ $t = zstd ] && lz=-lzstd
	clang $CF $SAN -fsanitize=fuzzer -o "$B/bin/f_$t" "$TOP/test/fuzz/f_$t.c" $objs $lz >>"$B/build.log" 2>&1 ||
		build_fail "test/fuzz/f_$t.c"
done

# ---- run ----
# why TARGET INPUT: the report of a crash in one line: what, and where
# in tracer's code (the first frames outside the sanitizers and libFuzzer).
# A timeout input loops again here: the same -timeout ends it.
why() {
	local o
	o=$(cd "$B" && UBSAN_OPTIONS=print_stacktrace=1 timeout -s KILL $((3 * TMO + 30)) \
		"$B/bin/f_$1" -timeout=$TMO "$2" 2>&1 >/dev/null)
	printf '%s | %s\n' \
		"$(echo "$o" | grep -m1 -oE 'AddressSanitizer: [a-z-]+|LeakSanitizer: [a-z ]+|[a-z]+\.c:[0-9]+:[0-9]+: runtime error: .*|fz: check failed: .*|ERROR: libFuzzer: [a-z-]+' | cut -c1-110)" \
		"$(echo "$o" | awk '/^ +#[0-9]+ / { s = 1; print; next } s { exit }' | grep ' in ' | grep -vE ' in (__asan|__ubsan|__interceptor|__sanitizer|fuzzer::|LLVMFuzzer|main|_start|abort|__libc)' |
		   grep -v '/f_[a-z]*\.c' | head -3 | sed -E 's/.* in ([A-Za-z_0-9.]+) .*\/([a-z]+\.c:?[0-9:]*).*/\1 \2/' | paste -sd ' ' -)"
}

maxlen() { case $1 in cfg) echo 4096 ;; ring) echo 40000 ;; extract|ftrace|print|conv) echo 65536 ;; *) echo 16384 ;; esac; }
rc=0
for t in $TARGETS; do
	C=$TOP/test/fuzz/corpus/$t W=$B/work/$t A=$B/art/$t
	mkdir -p "$C" "$W" "$A"
	rm -f "$A"/*
	d=
	[ -f "$TOP/test/fuzz/$t.dict" ] && d="-dict=$TOP/test/fuzz/$t.dict"
	log=$B/$t.log
	t0=$(date +%s)
	# stdout and stderr of the code under test go to /dev/null (the
	# messages of die() and msg() on every bad input); libFuzzer and
	# the sanitizers keep a copy of stderr for their reports.
	k= seeds=$C
	if [ -n "${FUZZ_KEEPGOING:-}" ]; then
		# past the crashes known already: not their inputs
		k="-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1"
		seeds=$B/seeds/$t
		rm -rf "$seeds" && mkdir -p "$seeds" && cp "$C"/* "$seeds"/ 2>/dev/null
		rm -f "$seeds"/crash-* "$seeds"/leak-* "$seeds"/timeout-* "$seeds"/oom-*
	fi
	(cd "$B" && UBSAN_OPTIONS=print_stacktrace=1 "$B/bin/f_$t" $k $RUNFLAG -max_len=$(maxlen $t) -timeout=$TMO -rss_limit_mb=2048 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$A/" $d ${FUZZ_FLAGS:-} "$W" "$seeds") >"$log" 2>&1
	r=$?
	t1=$(date +%s)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	[ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
	[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)	# -fork
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	arts=$(ls "$A" 2>/dev/null)
	if [ $r = 0 ] && [ -z "$arts" ]; then
		echo "fuzz $t: ok, ${runs:-?} runs in $((t1 - t0)) s, $cov, corpus $(ls "$C" | wc -l) + $(ls "$W" | wc -l) found"
		continue
	fi
	rc=1
	echo "fuzz $t: CRASH (exit $r) after ${runs:-?} runs in $((t1 - t0)) s; log: $log"
	for a in $arts; do
		cp "$A/$a" "$C/$a" && echo "fuzz $t:   test/fuzz/corpus/$t/$a: $(why "$t" "$A/$a")"
	done
	[ -n "$arts" ] || grep -m1 -E '(ERROR|runtime error|fz: check failed)' "$log" | sed "s/^/fuzz $t:   /"
done
exit $rc
