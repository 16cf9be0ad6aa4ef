# push=: a store that lies (test/fakes3.py on 127.0.0.1) and a spool
# directory others may write. The store's answers are met by a build of
# the PUSH code with clang, ASan and UBSan (glibc, as test/fuzz/run.sh
# builds its harnesses): an ASan report aborts it, UBSan's name a file,
# and those of push.c and s3.c count); the spool and the config by
# the musl build as shipped (t_push's, built here when t_push did not run).

PB=$T/kc-push/tracer AB=$T/kc-asan/tracer
if [ ! -x "$PB" ]; then
	rm -rf "$T/kc-push"; copy_src "$T/kc-push"
	make -s -C "$T/kc-push" defconfig >/dev/null 2>&1
	sed -i 's/^# CONFIG_PUSH is not set/CONFIG_PUSH=y/; s/^# CONFIG_TESTHOOKS is not set/CONFIG_TESTHOOKS=y/' "$T/kc-push/.config"
	make -s -C "$T/kc-push" tracer >"$T/kc-push.log" 2>&1 || fail "a build with PUSH" "$(tail -5 "$T/kc-push.log")"
fi
SAN="-fsanitize=address,undefined"
if ! command -v clang >/dev/null; then
	skip "push: the store's answers under ASan and UBSan" "no clang (test/fuzz/run.sh installs it)"
	AB=
else
	rm -rf "$T/kc-asan"; copy_src "$T/kc-asan"
	cp "$T/kc-push/.config" "$T/kc-asan/.config" 2>/dev/null
	make -s -C "$T/kc-asan" tracer CC=clang NOSTRIP=1 CFLAGS="-D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $SAN -w" \
		LDFLAGS="$SAN" >"$T/kc-asan.log" 2>&1 || { fail "a clang ASan+UBSan build with PUSH" "$(tail -5 "$T/kc-asan.log")"; AB=; }
fi
printf '[default]\naws_access_key_id = AK\naws_secret_access_key = Sk3%s\n' "$(head -c 30 /dev/urandom | base64 | tr -dc A-Za-z0-9)" >"$T/fkey"
chmod 600 "$T/fkey"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1	# (tracer's memory is taken once, never given back)

# fake MODE: the lying store (FS its pid, FP its port, $T/fs.MODE.log what it saw)
fake() {
	local i
	: >"$T/fs.$1.log"
	/usr/bin/python3 test/fakes3.py "$1" "$T/fs.$1.log" >"$T/fs.$1.out" 2>&1 &
	FS=$!; WORKS="$WORKS $FS"
	for i in $(seq 50); do grep -q '^ready' "$T/fs.$1.out" && break; sleep 0.1; done
	FP=$(awk '/^ready/ { print $2 }' "$T/fs.$1.out")
}
# fstart MODE [BUCKET]: the store, and the ASan tracer pushing to it (TPID)
fstart() {
	fake "$1"
	TRACER=$AB start_tracer "$T/f$1" -o /dev/null "push=http://127.0.0.1:$FP/${2:-bk}/f s3key=$T/fkey cpu-clock@9 procs=0"
}
# upto LOG N S: wait S s at most until N uploads arrived
upto() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(grep -c ' arrived: ' "$1.err")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# san LOG: what the sanitizers reported of the push code, or nothing
san() { grep -m2 -a 'AddressSanitizer\|push\.c.*runtime error\|s3\.c.*runtime error' "$1.err" | cut -c1-200 | tr '\n' ' '; }
fend() { kill -INT $TPID 2>/dev/null; wait_rc $TPID 30; kill $FS 2>/dev/null; }

if [ -n "$AB" ] && [ -x "$AB" ]; then
	# a store that drips its answer, a byte every 5 s: one try ends
	# within 30 s of sending (started first; judged at the end)
	fake drip; DFS=$FS
	TRACER=$AB start_tracer "$T/fdrip" -o /dev/null "push=http://127.0.0.1:$FP/bk/f s3key=$T/fkey cpu-clock@9 procs=0" &&
		{ DT=$TPID; dump_wait "$T/fdrip" 1 >/dev/null; d0=$SECONDS; }

	# one forged RequestTimeTooSkewed (a Date in 2100), then the honest
	# store refuses that time with its own Date: corrected again, it arrives
	if fstart skew; then
		dump_wait "$T/fskew" 1 >/dev/null
		upto "$T/fskew" 1 20; a=$(grep -c ' arrived: ' "$T/fskew.err")
		fend
		testing "push: a forged RequestTimeTooSkewed, then the store's true Date: the dump arrives ($(cut -d' ' -f7- "$T/fs.skew.log" | tr '\n' ' '))$(san "$T/fskew")" \
			"1 ''" "$a '$(san "$T/fskew")'"
	fi
	# "HTTP/1." alone, bucket logs200: no status, not arrived; sent again
	if fstart short logs200; then
		dump_wait "$T/fshort" 1 >/dev/null
		upto "$T/fshort" 1 20
		testing "push: an answer of 'HTTP/1.' alone (bucket logs200) is none: arrived only when stored (arrived, stored)" \
			"1 1 ''" "$(grep -c ' arrived: ' "$T/fshort.err") $(grep -c -- '-> 200' "$T/fs.short.log") '$(san "$T/fshort")'"
		fend
	fi
	# a Date with a 20-digit year; then a head without Date whose body
	# ends the 4 KiB buffer with "Date: Fri, 1 Jan"; a Content-Length of
	# 2^64-1 on a 200 kept open
	for m in bigdate enddate biglen; do
		fstart $m || continue
		dump_wait "$T/f$m" 1 >/dev/null
		wait_line "$T/f$m" "refused it\|arrived: " >/dev/null
		[ $m = biglen ] || dump_wait "$T/f$m" 2 >/dev/null
		upto "$T/f$m" 1 20
		kill -0 $TPID 2>/dev/null; alive=$?
		fend
		testing "push: a store's $m answer: no sanitizer report, tracer lives, a dump arrives ($(grep -m1 -o 'refused it: [^;]*\|arrived: .*' "$T/f$m.err"))" \
			"'' 0 1" "'$(san "$T/f$m")' $alive $(grep -c ' arrived: ' "$T/f$m.err" | sed 's/^[1-9][0-9]*$/1/')"
	done
	# "100 Continue" before the 200: one PUT, arrived
	if fstart continue; then
		dump_wait "$T/fcontinue" 1 >/dev/null
		upto "$T/fcontinue" 1 10; sleep 2
		testing "push: '100 Continue', then 200: arrived at the first PUT (arrived, PUTs)" "1 1 ''" \
			"$(grep -c ' arrived: ' "$T/fcontinue.err") $(grep -c PUT "$T/fs.continue.log") '$(san "$T/fcontinue")'"
		fend
	fi
	# a 301: refused, said, not tried again until the next dump
	if fstart redirect; then
		dump_wait "$T/fredirect" 1 >/dev/null
		sleep 8
		testing "push: a 301: '$(grep -m1 -o 'refused it: [^;]*' "$T/fredirect.err")', one PUT in 8 s" "1 1 ''" \
			"$(grep -c 'refused it: HTTP 301' "$T/fredirect.err") $(grep -c PUT "$T/fs.redirect.log") '$(san "$T/fredirect")'"
		fend
	fi
	# a chunked 200 on a connection kept open: arrived at its head
	if fstart chunked; then
		dump_wait "$T/fchunked" 1 >/dev/null
		upto "$T/fchunked" 1 15
		testing "push: a chunked 200, the connection kept open: arrived within 15 s (no 30 s stall), one PUT" "1 1 ''" \
			"$(grep -c ' arrived: ' "$T/fchunked.err") $(grep -c PUT "$T/fs.chunked.log") '$(san "$T/fchunked")'"
		fend
	fi
	# a <Code> with an escape and a newline: printed escaped
	if fstart code; then
		dump_wait "$T/fcode" 1 >/dev/null
		wait_line "$T/fcode" "refused it" >/dev/null
		fend
		testing "push: a <Code> holding ESC and a newline: printed escaped ($(grep -m1 -o 'HTTP 403 [^;]*' "$T/fcode.err"))" \
			"0 0 1" "$(grep -c $'\033' "$T/fcode.err") $(grep -c '^tracer: FORGED' "$T/fcode.err") $(grep -cF 'Evil\x1b[2J\x0atracer' "$T/fcode.err" | sed 's/^[1-9][0-9]*$/1/')"
	fi
	# 413 EntityTooLarge for the first dump: dropped, said; the next two arrive
	if fstart toolarge; then
		dump_wait "$T/ftoolarge" 1 >/dev/null
		wait_line "$T/ftoolarge" "refused" >/dev/null
		dump_wait "$T/ftoolarge" 2 >/dev/null; dump_wait "$T/ftoolarge" 3 >/dev/null
		upto "$T/ftoolarge" 2 20
		fend
		testing "push: 413 EntityTooLarge drops that dump ('$(grep -m1 -o 'refused [^ ]* for good[^;]*' "$T/ftoolarge.err")'), the later ones arrive" \
			"1 3" "$(grep -c 'for good: HTTP 413 EntityTooLarge' "$T/ftoolarge.err") $(grep -c ' arrived: ' "$T/ftoolarge.err")"
	fi
	# the drip, 30 s and more after its dump
	if [ -n "${DT:-}" ]; then
		for i in $(seq 300); do grep -q 'within 30 s' "$T/fdrip.err" && break; [ $((SECONDS - d0)) -gt 45 ] && break; sleep 0.1; done
		testing "push: an answer dripped a byte every 5 s: the try cut within 45 s, said" "1 ''" \
			"$(grep -c 'no whole answer within 30 s' "$T/fdrip.err" | sed 's/^[1-9][0-9]*$/1/') '$(san "$T/fdrip")'"
		TPID=$DT FS=$DFS fend
	fi
fi

# ---- spool=DIR in a sticky directory others may write (as /tmp) ----
W=$(mktemp -d /tmp/tracer-spool.XXXXXX); chmod 1777 "$W"
echo "root's" >"$T/victim"
cat >"$W.plant.py" <<'EOF'
# as nobody: plant in DIR before tracer PID starts; then, when DIR.done
# exists, read what may be read; prints "read N"
import hashlib, os, sys, time
d, pid, victim, how = sys.argv[1:5]
fds = []
def held(name):
    fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o666)
    os.fchmod(fd, 0o666)
    fds.append(fd)
dot, plain = "%s/.%s.tmp" % (d, pid), "%s/%s.tmp" % (d, pid)
if how == "a":
    os.symlink(victim, dot)
    held(plain)
    body = b"forged" * 100
    t = "evil/forged.data\n%s\nx-amz-acl:public-read\nx-amz-meta-board:evil\n" % hashlib.sha256(body).hexdigest()
    with open(d + "/000000000000.push", "wb") as f:
        f.write(body + t.encode() + b"%08x\n" % len(t))
elif how == "b":
    os.symlink(victim, plain)
    held(dot)
else:
    os.mkfifo(d + "/000000000001.push")
print("planted", flush=True)
while not os.path.exists(d + ".done"):
    time.sleep(0.1)
n = sum(len(os.read(fd, 1 << 20)) for fd in fds)
for f in os.listdir(d):
    try:
        if f.endswith(".push") and not f.startswith("00000000000"):
            n += len(open(d + "/" + f, "rb").read())
    except OSError:
        pass
print("read", n, flush=True)
EOF
cat >"$T/planted.sh" <<EOF
#!/bin/sh
# tracer with its pid known before it starts: nobody plants for it
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$W.plant.py" "$W" \$\$ "$T/victim" \$PLANT >"$T/plant.\$PLANT" 2>&1 &
i=0; while ! grep -q planted "$T/plant.\$PLANT" && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
exec "$PB" "\$@"
EOF
chmod 755 "$T/planted.sh"
fake ok
export PLANT
for how in a b c; do
	PLANT=$how
	rm -f "$W.done"
	if TRACER=$T/planted.sh start_tracer "$T/sp$how" -o /dev/null "push=http://127.0.0.1:$FP/bk/pre spool=$W s3key=$T/fkey cpu-clock@9 procs=0"; then
		dump_wait "$T/sp$how" 1 >/dev/null
		upto "$T/sp$how" 1 20
		stop_tracer >/dev/null
		touch "$W.done"
		for i in $(seq 50); do grep -q '^read' "$T/plant.$how" && break; sleep 0.1; done
	else
		fail "push: spool=DIR with nobody's plants ($how): tracer starts, does not hang" "$(cat "$T/plant.$how" "$T/sp$how.err")"
		kill -9 $TPID 2>/dev/null
	fi
	touch "$W.done"
done
testing "push: spool=DIR (1777) where nobody planted a link to root's file at .PID.tmp and PID.tmp: root's file unchanged" "root's" "$(cat "$T/victim")"
testing "push: nobody, holding 0666 files planted at .PID.tmp and PID.tmp, reads no byte of the dumps" "read 0|read 0" \
	"$(grep '^read' "$T/plant.a")|$(grep '^read' "$T/plant.b")"
testing "push: no PUT outside push='s prefix (a forged *.push of nobody's with a well-formed trailer is not sent)" "" \
	"$(grep -v ' PUT /bk/pre/' "$T/fs.ok.log")"
testing "push: nobody's forged *.push and FIFO are left alone, said" "1 1" \
	"$(grep -c '000000000000.push: not tracer.s own file' "$T/spa.err") $(grep -c '000000000001.push: not tracer.s own file' "$T/spc.err")"
kill $FS 2>/dev/null

# a dump cut short by kill -9 (caught in the middle: SIGSTOP right after
# the signal that dumps) leaves a PID.tmp; the next start removes it
W2=$T/sp9; mkdir -p "$W2"; chmod 700 "$W2"; caught=
if TRACER=$PB start_tracer "$T/sk" -o /dev/null "push=http://127.0.0.1:1/bk/pre spool=$W2 s3key=$T/fkey spool=1000 cpu-clock@99 procs=0 buf=4m"; then
	for i in $(seq 60); do
		kill -USR2 $TPID; sleep 0.0$((i % 10)); kill -STOP $TPID
		ls -A "$W2" | grep -q 'tmp$' && { caught=$(ls -A "$W2" | grep 'tmp$'); break; }
		kill -CONT $TPID; sleep 0.2
	done
	kill -9 $TPID; kill -CONT $TPID 2>/dev/null; wait $TPID 2>/dev/null
fi
if [ -z "$caught" ]; then
	skip "push: a dump cut short by kill -9 is removed at the next start" "no dump caught in its middle in 60 tries"
elif TRACER=$PB start_tracer "$T/sk2" -o /dev/null "push=http://127.0.0.1:1/bk/pre spool=$W2 s3key=$T/fkey spool=1000 cpu-clock@9 procs=0"; then
	testing "push: a dump cut short by kill -9 ($caught) is removed at the next start" "" "$(ls -A "$W2" | grep 'tmp$')"
	kill -9 $TPID; wait $TPID 2>/dev/null
fi

# after an upload no copy of the secret is left in tracer's memory
fake ok
if TRACER=$PB start_tracer "$T/sw" -o /dev/null "push=http://127.0.0.1:$FP/bk/w s3key=$T/fkey cpu-clock@9 procs=0"; then
	dump_wait "$T/sw" 1 >/dev/null
	upto "$T/sw" 1 20
	testing "push: after an upload (arrived), copies of the secret in tracer's writable memory (stack, data, heap)" "1 0" \
		"$(grep -c ' arrived: ' "$T/sw.err") $(/usr/bin/python3 test/memscan.py $TPID "$(sed -n 's/^aws_secret_access_key = //p' "$T/fkey")")"
	stop_tracer >/dev/null
fi
kill $FS 2>/dev/null

# ---- the config ----
mkdir -p "$T/sp777" "$T/spnb"; chmod 777 "$T/sp777"; chown 65534 "$T/spnb"
cp "$T/fkey" "$T/fkey602"; chmod 602 "$T/fkey602"; cp "$T/fkey" "$T/fkeynb"; chown 65534 "$T/fkeynb"
# a session token longer than 127 bytes
{ cat "$T/fkey"; printf 'aws_session_token = %0200d\n' 0; } >"$T/fkeytok"; chmod 600 "$T/fkeytok"
# each: the config, and a word its refusal must say
while IFS='|' read -r c w; do
	case $c in *s3key=*) k= ;; *) k="s3key=$T/fkey" ;; esac
	timeout 10 "$PB" -o /dev/null "$c $k cpu-clock@9 procs=0" >/dev/null 2>"$T/sbad.err"; rc=$?
	[ $rc = 2 ] && grep -q "config: .*$w" "$T/sbad.err" && pass "push: '${c:0:90}': exit 2, $(head -1 "$T/sbad.err" | sed 's/^tracer: //' | cut -c1-200)" ||
		fail "push: '${c:0:90}': exit 2, saying $w" "rc=$rc $(head -c 300 "$T/sbad.err")"
done <<EOF
push=http://127.0.0.1:1/bk?x=1|a bucket is
push=http://@tracer$$/bk|HOST is letters, digits
push=http://s3.tracer.test/bk via=@tracer$$|not an IPv4 address
push=http://127.0.0.1:1/$(printf 'b%.0s' $(seq 63))/$(printf '\303\251%.0s' $(seq 50))|percent-encoded
push=http://127.0.0.1:1/bk/a/../b|beginning with
push=http://127.0.0.1:1/bk spool=$T/sp777|no sticky bit
push=http://127.0.0.1:1/bk spool=$T/spnb|another user
push=http://127.0.0.1:1/bk s3key=$T/fkey602|group or others
push=http://127.0.0.1:1/bk s3key=$T/fkeynb|another user
push=http://127.0.0.1:1/bk s3key=$T/fkeytok|aws_session_token
EOF
rm -rf "$W" "$W.done" "$W.plant.py"
