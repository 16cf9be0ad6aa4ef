# sha: lib/sha.c (SHA-256, HMAC-SHA-256) and lib/s3.c (the SigV4 signer
# of S3 uploads) against published vectors (test/shatest.c says where
# each comes from): one pass or fail per vector. Then made-up data of
# many lengths against python3's hashlib and hmac, an independent
# implementation. Built for the host and, as the code builds words from
# bytes for any byte order and alignment, for big-endian MIPS (soft
# float, -cpu 24Kc as an ath79 router) and 32-bit ARM, run under
# qemu-user where the toolchain and qemu are here.

SHA_SRC="test/shatest.c lib/sha.c lib/s3.c lib/lib.c"

# sha_run NAME OUT: judge shatest's vector lines in OUT.out (its exit
# status in OUT.rc), one pass/fail each, then its lens output against
# python's.
sha_run() {
	local name=$1 out=$2 line n=0 names
	while IFS= read -r line; do
		case $line in
		"ok "*) pass "sha $name: ${line#ok }"; n=$((n + 1)) ;;
		"FAIL "*) fail "sha $name: ${line#FAIL }" ;;
		*) fail "sha $name: a line shatest should not print" "$line" ;;
		esac
	done <"$out.out"
	# a crash half way leaves vectors unjudged: the same names as on
	# the host, and exit 0 when all passed
	names=$(sed 's/:.*//; s/^[a-zA-Z]* //' "$out.out")
	if [ "$name" = host ]; then
		echo "$names" >"$T/sha.names"
		[ "$(cat "$out.rc")" = 0 ] && [ "$n" -ge 20 ] &&
			pass "sha $name: shatest exits 0 after $n vectors" ||
			fail "sha $name: shatest exits 0 after all its vectors" "exit $(cat "$out.rc"), $n ok"
	else
		[ "$names" = "$(cat "$T/sha.names")" ] && [ "$(cat "$out.rc")" = 0 ] &&
			pass "sha $name: shatest exits 0 after the same $n vectors as on the host" ||
			fail "sha $name: shatest exits 0 after the same vectors as on the host" "exit $(cat "$out.rc"), $n ok"
	fi
	if [ ! -s "$T/sha.lens.py" ]; then
		skip "sha $name: digests and signing keys as python3's hashlib and hmac" "python3 did not run: $(head -c 200 "$T/sha.py.err")"
	elif cmp -s "$out.lens" "$T/sha.lens.py"; then
		pass "sha $name: digests of 308 lengths (0 to 65537 bytes, in pieces) and signing keys of 101 secrets (0 to 100 bytes) as python3's hashlib and hmac"
	else
		fail "sha $name: digests and signing keys as python3's hashlib and hmac" "$(diff "$out.lens" "$T/sha.lens.py" | head -3)"
	fi
}

# The same made-up data as shatest's lens(): byte i is i * 31 + 7.
python3 - >"$T/sha.lens.py" 2>"$T/sha.py.err" <<'PY' || : >"$T/sha.lens.py"
import hashlib, hmac
p = bytes((i * 31 + 7) & 255 for i in range(65537))
for n in list(range(301)) + [511, 512, 513, 1000, 4095, 4096, 65537]:
    print(n, hashlib.sha256(p[:n]).hexdigest(), hmac.new(p[:n % 150], p[:n], hashlib.sha256).hexdigest())
# SigV4's signing key (the HMAC chain of the AWS docs) of secrets of 0
# to 100 letters
for n in range(101):
    k = b"AWS4" + bytes(65 + i % 26 for i in range(n))
    for m in (b"20261127", b"us-east-1", b"s3", b"aws4_request"):
        k = hmac.new(k, m, hashlib.sha256).digest()
    print("key", n, k.hex())
PY

# sha_arch NAME CC FILE-PATTERN QEMU...: build with CC (-Oz, as the
# Makefile builds), check the binary is of the arch, run it (under QEMU).
sha_arch() {
	local name=$1 cc=$2 pat=$3 o=$T/shatest-$1; shift 3
	if ! $cc -static -Oz -Wall -Wextra -Wno-unused-parameter -I. -Ilib -o "$o" $SHA_SRC >"$o.log" 2>&1; then
		fail "sha $name: shatest builds with $cc" "$(head -c 300 "$o.log")"
		return
	fi
	case "$(file -b "$o")" in $pat) ;;
	*) fail "sha $name: shatest is a $name binary" "$(file -b "$o")"; return ;; esac
	"$@" "$o" >"$o.out" 2>"$o.err"; echo $? >"$o.rc"
	"$@" "$o" lens >"$o.lens" 2>>"$o.err"
	sha_run "$name" "$o"
}

sha_arch host musl-gcc '*x86-64*statically linked*'
if ! command -v mips-linux-muslsf-gcc >/dev/null; then
	skip "sha mips (big-endian)" "no mips-linux-muslsf-gcc (test/setup-cross.sh mips-sf builds it)"
elif ! command -v qemu-mips-static >/dev/null; then
	skip "sha mips (big-endian)" "no qemu-mips-static (test/setup-cross.sh --qemu mips-sf installs qemu-user-static)"
else
	sha_arch mips mips-linux-muslsf-gcc '*MSB*MIPS*statically linked*' qemu-mips-static -cpu 24Kc
fi
if ! command -v arm-linux-musleabihf-gcc >/dev/null; then
	skip "sha armhf" "no arm-linux-musleabihf-gcc (test/setup-cross.sh armhf installs it)"
elif ! command -v qemu-arm-static >/dev/null; then
	skip "sha armhf" "no qemu-arm-static (test/setup-cross.sh --qemu armhf installs qemu-user-static)"
else
	sha_arch armhf arm-linux-musleabihf-gcc '*32-bit LSB*ARM*statically linked*' qemu-arm-static
fi
