# Build: a static binary, its size printed; the ring walker's unit tests;
# the Kconfig targets; a cross build when a musl cross compiler is there.

out=$(make -s -B tracer 2>&1)
case "$out" in *"tracer: "*" bytes"*) pass "make prints the size" ;; *) fail "make prints the size" "$out" ;; esac
case "$(file -b tracer)" in *"statically linked"*) pass "file says statically linked" ;;
*) fail "file says statically linked" "$(file -b tracer)" ;; esac

if cc_out=$(${CC:-musl-gcc} -static -O1 -I. -Ilib -o "$T/ringtest" test/ringtest.c ring.c 2>&1); then
	while read -r line; do
		case "$line" in PASS:*) pass "${line#PASS: }" ;; FAIL:*) fail "${line#FAIL: }" ;;
		SKIP:*) line=${line#SKIP: }; skip "${line%: *}" "${line##*: }" ;; esac
	done < <("$T/ringtest")
else
	fail "ringtest builds" "$cc_out"
fi
# and a 32-bit build's (a head that wraps at 4 GiB): i386, natively
# where this kernel runs i386 binaries, else under qemu-i386
if ! command -v i386-linux-musl-gcc >/dev/null; then
	skip "ringtest, 32-bit build" "no i386-linux-musl-gcc (test/setup-cross.sh --qemu i386 installs it)"
elif ! cc_out=$(i386-linux-musl-gcc -static -O1 -I. -Ilib -o "$T/ringtest32" test/ringtest.c ring.c 2>&1); then
	fail "ringtest builds for i386" "$cc_out"
else
	run32=; "$T/ringtest32" >/dev/null 2>&1 || run32=$(command -v qemu-i386-static)
	if ! "$T/ringtest32" >/dev/null 2>&1 && [ -z "$run32" ]; then
		skip "ringtest, 32-bit build" "this kernel runs no i386 binary, and no qemu-i386-static"
	else
		while read -r line; do
			case "$line" in PASS:*) pass "i386: ${line#PASS: }" ;; FAIL:*) fail "i386: ${line#FAIL: }" ;; esac
		done < <($run32 "$T/ringtest32")
	fi
fi

# No file names a path of one machine: shared files are ../shared beside
# the checkout, or a variable (TRACER_KERNELS).
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
	bad=$(git ls-files -z | xargs -0 grep -InE '(^|[^$A-Za-z0-9_.}-])/(work|home|root|Users)/' 2>/dev/null | head -3)
	testing "no file in the tree names a path of one machine" "" "$bad"
else
	skip "no file names a path of one machine" "not a git checkout"
fi

# Layers (the Makefile's LAYERS, bottom up): no file calls a file above
# it, so nothing calls up into tracer.c; and no file holds two concerns.
layers=$(make -s layers)
rm -rf "$T/lay"; mkdir -p "$T/lay/lib"; bad=
for f in $layers; do
	${CC:-musl-gcc} -Os -I. -Ilib -c -o "$T/lay/$f.o" $f.c 2>/dev/null || bad="$bad $f.c:build"
	nm -u "$T/lay/$f.o" 2>/dev/null | awk '{ print $2 }' | sort >"$T/lay/$f.u"
	nm --defined-only "$T/lay/$f.o" 2>/dev/null | awk '$2 ~ /[TDBRC]/ { print $3 }' | sort >"$T/lay/$f.d"
done
for f in $layers; do
	above=0
	for g in $layers; do
		[ $g = $f ] && above=1 && continue
		[ $above = 1 ] || continue
		x=$(comm -12 "$T/lay/$f.u" "$T/lay/$g.d" | tr '\n' ' ')
		[ -n "$x" ] && bad="$bad $f.c->$g.c:$x"
	done
done
testing "layers: each file calls only the files below it ($layers)" "" "$bad"
big=$(wc -l *.c lib/*.c | awk '$2 != "total" && $1 > 900 { printf "%s ", $2 }')
testing "no source file over 900 lines" "" "$big"
# Functions short enough to read at once: no function (from its
# signature's line to its closing brace at column 0) over 100 lines.
long=$(awk '/^[a-z].*\(/ && !/;[ \t]*$/ { s = FNR; n = $0; sub(/\(.*/, "", n); sub(/.*[ *]/, "", n) }
	/^}/ && s { if (FNR - s + 1 > 100) printf "%s:%s() %d lines ", FILENAME, n, FNR - s + 1; s = 0 }' *.c lib/*.c)
[ -z "$long" ] && pass "no function over 100 lines" || fail "no function over 100 lines" "$long"

# The configuration matrix: defconfig, allnoconfig, allyesconfig, and
# defconfig with each symbol off alone. Each is built in a scratch copy
# (./tracer stays the default one), must still record cpu-clock into a
# dump host perf reads, and must say "not built in" for what is off.
syms=$(awk '/^config / { print $2 }' Kconfig)
# notbuilt SYM: a command line that asks for SYM's feature
probe() {
	case $1 in
	TRACEPOINTS) echo "sched:sched_switch" ;; LIST) echo "-l" ;; CALLCHAIN) echo "cpu-clock stack" ;;
	TRIPWIRE) echo "trip=segv" ;; SERIAL) echo "cpu-clock baud=9600" ;; FRAME) echo "cpu-clock frame=text" ;;
	TRACK) echo "cpu-clock procs=5" ;; ZSTD) echo "cpu-clock zstd" ;;
	LEAN) echo "cpu-clock lean" ;; COVER) echo "cpu-clock trim" ;; PERSIST) echo "-b" ;;
	esac
}
for cfg in defconfig allnoconfig allyesconfig $(for s in $syms; do echo "no-$s"; done); do
	k="$T/kc-$cfg"; rm -rf "$k"; mkdir "$k"
	copy_src "$k" 2>/dev/null
	case $cfg in
	no-*) make -s -C "$k" defconfig >/dev/null 2>&1
	      sed -i "s/^CONFIG_${cfg#no-}=y/# CONFIG_${cfg#no-} is not set/" "$k/.config" ;;
	*) make -s -C "$k" $cfg >/dev/null 2>&1 ;;
	esac
	if ! make -s -C "$k" tracer >"$k.log" 2>&1; then
		fail "$cfg builds" "$(tail -5 "$k.log")"; continue
	fi
	: >"$k.err"; "$k/tracer" 'cpu-clock@499' >"$k.out" 2>"$k.err" & p=$!
	for i in $(seq 50); do grep -q recording "$k.err" && break; sleep 0.1; done
	"$T/work" spin 50; kill -INT $p; wait $p
	n=$(perf script -i "$k.out" 2>/dev/null | grep -c 'cpu-clock:')
	[ "$n" -gt 0 ] && pass "$cfg: $(wc -c < "$k/tracer") bytes, records cpu-clock, perf reads it ($n samples)" ||
		fail "$cfg: records cpu-clock, perf reads it" "$(cat "$k.err")"
	case $cfg in no-*|allnoconfig)
		for s in $syms; do
			[ "$cfg" = "no-$s" ] || [ "$cfg" = allnoconfig ] || continue
			a=$(probe $s); [ -n "$a" ] || continue
			case $a in -*) out=$("$k/tracer" $a 2>&1 >/dev/null </dev/null) ;;
			*) out=$("$k/tracer" "$a" 2>&1 >/dev/null </dev/null) ;; esac; rc=$?
			case "$rc:$out" in 2:*"not built in"*) pass "$cfg: '$a' says not built in" ;;
			*) fail "$cfg: '$a' says not built in" "rc=$rc $out" ;; esac
		done ;;
	esac
	# -o FILE: a seekable perf.data (header size 104) with PERF_FILE,
	# a standalone pipe-mode stream (header size 16) without; perf reads both.
	case $cfg in defconfig|no-PERF_FILE)
		rm -f "$k.file"*
		: >"$k.ferr"; "$k/tracer" -o "$k.file" 'cpu-clock@499' 2>"$k.ferr" & p=$!
		for i in $(seq 50); do grep -q recording "$k.ferr" && break; sleep 0.1; done
		"$T/work" spin 50; kill -INT $p; wait $p
		hs=$(od -An -tu8 -j8 -N8 "$k.file" 2>/dev/null | tr -d ' ')
		n=$(perf script -i "$k.file" 2>/dev/null | grep -c 'cpu-clock:')
		want=104; [ $cfg = no-PERF_FILE ] && want=16
		[ "$hs" = $want ] && [ "$n" -gt 0 ] && pass "$cfg: -o FILE has header size $hs, perf reads $n samples" ||
			fail "$cfg: -o FILE has header size $want, perf reads it" "size '$hs', $n samples; $(cat "$k.ferr")" ;;
	esac
	# PROC: a process that was running before tracer started is named
	# from /proc at the dump; without PROC, from TRACK's snapshot of
	# /proc at start. Without both (allnoconfig) nothing names it, so
	# perf shows its pid alone.
	case $cfg in defconfig|no-PROC|allnoconfig)
		cp "$T/work" "$T/pre_$$"; "$T/pre_$$" spin 3000 & w=$!
		sleep 0.3
		: >"$k.perr"; "$k/tracer" 'cpu-clock@499' >"$k.pout" 2>"$k.perr" & p=$!
		for i in $(seq 50); do grep -q recording "$k.perr" && break; sleep 0.1; done
		sleep 0.3; kill -INT $p; wait $p; kill $w 2>/dev/null; wait $w 2>/dev/null
		s=$(perf script -F comm,pid -i "$k.pout" 2>/dev/null | awk -v w=$w '$NF == w' | sort | uniq -c)
		n=$(echo "$s" | grep -c "pre_$$")
		if [ $cfg != allnoconfig ]; then
			[ -n "$s" ] && [ "$n" -gt 0 ] && pass "$cfg: a process older than tracer is named" ||
				fail "$cfg: a process older than tracer is named" "pid $w: '$s'"
		else
			[ -n "$s" ] && [ "$n" = 0 ] && pass "allnoconfig: a process older than tracer has its pid only" ||
				fail "allnoconfig: a process older than tracer has its pid only" "pid $w: '$s'"
		fi
		rm -f "$T/pre_$$" ;;
	esac
	case $cfg in no-PRINT|allnoconfig)
		out=$("$k/tracer" -p "$k.pout" 2>&1 >/dev/null); rc=$?
		case "$rc:$out" in 2:*"not built in"*) pass "$cfg: '-p' says not built in" ;;
		*) fail "$cfg: '-p' says not built in" "rc=$rc $out" ;; esac ;;
	esac
	case $cfg in no-LONG_HELP)
		n=$("$k/tracer" -h | wc -l)
		[ "$n" -le 4 ] && pass "no-LONG_HELP: -h is short ($n lines)" || fail "no-LONG_HELP: -h is short" "$n lines" ;;
	esac
done
grep -q '^#define CFG_TRACEPOINTS [01]$' "$T/kc-defconfig/lib/config.h" && pass "config.h has 0/1 CFG_ macros" ||
	fail "config.h has 0/1 CFG_ macros" "$(cat "$T/kc-defconfig/lib/config.h")"

# The kernel's own kconfig tool reads our Kconfig, and agrees on defaults.
if command -v kconfig-conf >/dev/null; then
	rm -rf "$T/kf"; mkdir "$T/kf"; cp Kconfig "$T/kf/"
	if (cd "$T/kf" && KCONFIG_CONFIG=.config kconfig-conf --alldefconfig Kconfig >"$T/kf.log" 2>&1); then
		a=$(grep -E '^(# )?CONFIG_' "$T/kf/.config" | sort); b=$(grep -E '^(# )?CONFIG_' "$T/kc-defconfig/.config" | sort)
		testing "kconfig-conf --alldefconfig equals make defconfig" "$b" "$a"
	else
		fail "kconfig-conf accepts Kconfig" "$(cat "$T/kf.log")"
	fi
else
	skip "kconfig-conf accepts Kconfig" "kconfig-frontends is not installed and apt could not install it"
fi

if command -v aarch64-linux-musl-gcc >/dev/null; then
	rm -rf "$T/x"; copy_src "$T/x"
	# after a native build: CROSS_COMPILE alone must rebuild
	make -s -C "$T/x" >"$T/x.log" 2>&1
	if make -s -C "$T/x" CROSS_COMPILE=aarch64-linux-musl- >"$T/x.log" 2>&1; then
		case "$(file -b "$T/x/tracer")" in *aarch64*"statically linked"*|*"ARM aarch64"*static*)
			pass "cross build for aarch64: $(file -b "$T/x/tracer" | cut -d, -f1-2)" ;;
		*) fail "cross build for aarch64" "$(file -b "$T/x/tracer")" ;; esac
	else
		fail "cross build for aarch64" "$(tail -5 "$T/x.log")"
	fi
	make -s -C "$T/x" >"$T/x.log" 2>&1
	case "$(file -b "$T/x/tracer")" in *x86-64*) pass "make after a cross build builds native again" ;;
	*) fail "make after a cross build builds native again" "$(file -b "$T/x/tracer")" ;; esac
	# Debian's gnu triplet: its musl wrapper builds
	if make -s -C "$T/x" CROSS_COMPILE=aarch64-linux-gnu- >"$T/x.log" 2>&1; then
		case "$(file -b "$T/x/tracer")" in *aarch64*static*) pass "CROSS_COMPILE=aarch64-linux-gnu- builds with aarch64-linux-musl-gcc" ;;
		*) fail "CROSS_COMPILE=aarch64-linux-gnu- builds with aarch64-linux-musl-gcc" "$(file -b "$T/x/tracer")" ;; esac
	else
		fail "CROSS_COMPILE=aarch64-linux-gnu- builds with aarch64-linux-musl-gcc" "$(tail -5 "$T/x.log")"
	fi
	# a failed build leaves no tracer of the arch before
	make -s -C "$T/x" CROSS_COMPILE=nosuch-linux-gnu- >"$T/x.log" 2>&1; e=$?
	if [ $e != 0 ] && [ ! -e "$T/x/tracer" ] && grep -q "no nosuch-linux-gnu-gcc" "$T/x.log"; then
		pass "a build with a missing compiler fails, says so, and leaves no tracer"
	else
		fail "a build with a missing compiler fails, says so, and leaves no tracer" "exit $e, $(ls "$T/x/tracer" 2>&1), $(head -c 300 "$T/x.log")"
	fi
else
	skip "cross build for aarch64" "aarch64-linux-musl-gcc not installed (test/setup-cross.sh installs it)"
fi
