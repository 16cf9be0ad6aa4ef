# The README's one-arch build, make dist ARCHS=x86_64: the toolchain as
# make dist installs it, stripped as make dist strips (no section
# headers), into DIST with its SHA256SUMS, and the host's ./tracer left
# as it was (make CROSS_COMPILE=... wrote over it). The whole of make
# dist is make test-qemu's last step.
h0=$(sha256sum "$TRACER" | cut -d' ' -f1)
rm -rf "$T/dist"
DIST="$T/dist" timeout 600 make -s -C "$TOP" dist ARCHS=x86_64 >"$T/dist.log" 2>&1; rc=$?
f=$T/dist/tracer-x86_64
if [ "$rc" = 0 ] && [ -x "$f" ]; then
	[ "$(ls "$T/dist" | tr '\n' ' ')" = "SHA256SUMS tracer-x86_64 " ] && (cd "$T/dist" && sha256sum -c --quiet SHA256SUMS) &&
		pass "make dist ARCHS=x86_64: tracer-x86_64 and its SHA256SUMS only" ||
		fail "make dist ARCHS=x86_64: tracer-x86_64 and its SHA256SUMS only" "$(ls "$T/dist")"
	readelf -S "$f" 2>&1 | grep -q "no sections" && "$f" -h 2>&1 | grep -q "^usage: tracer" &&
		pass "make dist ARCHS=x86_64: stripped of section headers, runs -h" ||
		fail "make dist ARCHS=x86_64: stripped of section headers, runs -h" "$(readelf -S "$f" 2>&1 | head -2)"
else
	fail "make dist ARCHS=x86_64 builds tracer-x86_64" "rc=$rc: $(tail -3 "$T/dist.log")"
fi
testing "make dist ARCHS=x86_64: the host's ./tracer as it was" "$h0" "$(sha256sum "$TRACER" | cut -d' ' -f1)"
out=$(DIST="$T/dist" make -s -C "$TOP" dist ARCHS=x86 2>&1); rc=$?
case "$rc:$out" in [1-9]*"dist: ARCHS: no arch 'x86' (one of: x86_64 i386 aarch64"*) pass "make dist ARCHS=x86: says which arches there are, fails" ;;
*) fail "make dist ARCHS=x86: says which arches there are, fails" "rc=$rc $out" ;; esac
