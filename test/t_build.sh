# Build: a static binary, its size printed; the ring walker's unit tests;
# the Kconfig targets; a cross build when a musl cross compiler is there.

out=$(make -s -B tracer 2>&1)
case "$out" in *"tracer: "*" bytes"*) pass "make prints the size" ;; *) fail "make prints the size" "$out" ;; esac
case "$(file -b tracer)" in *"statically linked"*) pass "file says statically linked" ;;
*) fail "file says statically linked" "$(file -b tracer)" ;; esac

if cc_out=$(${CC:-musl-gcc} -static -O1 -I. -o "$T/ringtest" test/ringtest.c ring.c 2>&1); then
	while read -r line; do
		case "$line" in PASS:*) pass "${line#PASS: }" ;; FAIL:*) fail "${line#FAIL: }" ;; esac
	done < <("$T/ringtest")
else
	fail "ringtest builds" "$cc_out"
fi

# Each Kconfig target in a scratch copy, so ./tracer stays the default.
for cfg in allnoconfig allyesconfig defconfig; do
	rm -rf "$T/kc"; mkdir "$T/kc"
	cp Makefile Kconfig *.c *.h "$T/kc/" 2>/dev/null; rm -f "$T/kc/config.h"
	if make -s -C "$T/kc" $cfg >/dev/null 2>&1 && make -s -C "$T/kc" tracer >"$T/kc.log" 2>&1; then
		pass "make $cfg builds ($(wc -c < "$T/kc/tracer") bytes)"
	else
		fail "make $cfg builds" "$(tail -5 "$T/kc.log")"
	fi
	case $cfg in allnoconfig)
		out=$("$T/kc/tracer" 'sched:sched_switch' 2>&1 >/dev/null); rc=$?
		case "$rc:$out" in 2:*"not built in"*) pass "allnoconfig: tracepoints say not built in" ;;
		*) fail "allnoconfig: tracepoints say not built in" "rc=$rc $out" ;; esac
		out=$("$T/kc/tracer" -l 2>&1 >/dev/null); rc=$?
		case "$rc:$out" in 2:*"not built in"*) pass "allnoconfig: -l says not built in" ;;
		*) fail "allnoconfig: -l says not built in" "rc=$rc $out" ;; esac
	esac
done
grep -q '^#define CFG_TRACEPOINTS [01]$' "$T/kc/config.h" && pass "config.h has 0/1 CFG_ macros" ||
	fail "config.h has 0/1 CFG_ macros" "$(cat "$T/kc/config.h")"

if command -v aarch64-linux-musl-gcc >/dev/null; then
	rm -rf "$T/x"; mkdir "$T/x"; cp Makefile Kconfig *.c *.h "$T/x/"; rm -f "$T/x/config.h"
	if make -s -C "$T/x" CROSS_COMPILE=aarch64-linux-musl- >"$T/x.log" 2>&1; then
		case "$(file -b "$T/x/tracer")" in *aarch64*"statically linked"*|*"ARM aarch64"*static*)
			pass "cross build for aarch64: $(file -b "$T/x/tracer" | cut -d, -f1-2)" ;;
		*) fail "cross build for aarch64" "$(file -b "$T/x/tracer")" ;; esac
	else
		fail "cross build for aarch64" "$(tail -5 "$T/x.log")"
	fi
else
	skip "cross build for aarch64" "aarch64-linux-musl-gcc not installed (test/setup-cross.sh installs it)"
fi
