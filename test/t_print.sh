# tracer -p: a dump printed as text, judged by host perf on the same
# dump. For each mode (stream, file, framed, zstd; and the perf engine
# for tracepoints) the same workload runs under
# 'sched:* raw_syscalls:* signal:* printk:console cpu-clock', and
#  - every line's comm, tid, cpu, time and event equal perf script -F
#    comm,tid,cpu,time,event, line for line;
#  - every tracepoint field equals what perf decodes (test/perfdump.py,
#    a perf-script Python dumper; compared by test/pcmp.py).
# Then: live (tracer | tracer -p prints a dump before tracer ends), a
# task that exited before the dump keeps its name, and bad input
# (truncated, damaged, not perf.data) says where, prints what it could,
# exits 1, and ends.

PCFG='sched:* raw_syscalls:* signal:* printk:console cpu-clock@499'
pw=prt$$; pw=${pw:0:13}
if ! "$TRACER" -h 2>&1 | grep -q -- '-p \[FILE\]'; then
	skip "print" "tracer -p is not built in (CONFIG_PRINT)"
else
	# pwork: the workload, the same in every mode: syscalls, signals, a
	# console message, and a process that exits before the dump
	# (the console line first: the kernel prints it from its printk
	# thread, which a busy machine runs late, 0.05 s was not enough; the
	# rings hold the workload's time of raw_syscalls:* under load)
	pwork() {
		echo "<4>$pw says hello on the console" >/dev/kmsg
		"$T/$pw" spin 100 signal close 2000 signal
		sleep 0.05
	}
	cp "$T/work" "$T/$pw"
	# every mode: LOG, then tracer's arguments
	for m in stream file framed zstd perf; do
		case $m in
		stream) set -- 'buf=8m' ;;
		file) rm -f "$T/pf.data"*; set -- -o "$T/pf.data" 'buf=8m' ;;
		framed) set -- 'buf=8m frame=text' ;;
		zstd) set -- 'buf=8m zstd' ;;
		perf) set -- 'buf=8m engine=perf' ;;
		esac
		a=("$@"); a[${#a[@]} - 1]="${a[${#a[@]} - 1]} $PCFG"
		if ! start_tracer "$T/p$m" "${a[@]}"; then
			fail "print $m: tracer records" "$(cat "$T/p$m.err")"
			continue
		fi
		pwork
		dump_wait "$T/p$m" 1 >/dev/null
		pwork
		stop_tracer >/dev/null
		case $m in
		file) in=$T/pf.data dumps="$T/pf.data $T/pf.data.1" ;;
		framed) in=$T/p$m.out
			rm -f "$T/px.data"*
			"$TRACER" -x -o "$T/px.data" <"$in" 2>/dev/null
			dumps="$T/px.data $T/px.data.1" ;;
		*) in=$T/p$m.out dumps=$in ;;
		esac
		if [ $m = file ]; then	# a file per dump
			{ "$TRACER" -p "$T/pf.data" && "$TRACER" -p "$T/pf.data.1"; } >"$T/p$m.txt" 2>"$T/p$m.perr"; rc=$?
		else
			"$TRACER" -p "$in" >"$T/p$m.txt" 2>"$T/p$m.perr"; rc=$?
		fi
		[ $rc = 0 ] && [ ! -s "$T/p$m.perr" -o $m = framed ] && pass "print $m: exit 0$( [ $m = framed ] && echo ", $(tr '\n' ' ' <"$T/p$m.perr")")" ||
			fail "print $m: exit 0, no complaint" "rc=$rc $(head -c 300 "$T/p$m.perr")"
		: >"$T/p$m.ps"
		for f in $dumps; do perf script -i "$f" -F comm,tid,cpu,time,event >>"$T/p$m.ps" 2>/dev/null; done
		print_cols "print $m" "$T/p$m.txt" "$T/p$m.ps"
		print_fields "print $m" "$T/p$m.txt" "" $dumps
		# what the acceptance names is there (printk:console: the kernel
		# sends a /dev/kmsg line to the console tracepoint when it prints it)
		for e in sched:sched_switch raw_syscalls:sys_enter raw_syscalls:sys_exit signal:signal_generate signal:signal_deliver cpu-clock printk:console; do
			grep -q " $e: " "$T/p$m.txt" || { fail "print $m: $e printed" "$(grep -c . "$T/p$m.txt") lines"; continue 2; }
		done
		pass "print $m: sched, raw_syscalls, signal, printk:console and cpu-clock lines"
	done

	# many events: every record printed, as perf prints them (once past
	# 256 events the rest were dropped without a word)
	for c in 'syscalls:* sched:*' '*:*'; do
		rm -f "$T/pmany.data"*
		if ! start_tracer "$T/pmany" -o "$T/pmany.data" "buf=1m $c"; then
			fail "print '$c': tracer records" "$(cat "$T/pmany.err")"
			continue
		fi
		pwork
		stop_tracer >/dev/null
		ne=$(grep -o 'recording [0-9]* events' "$T/pmany.err" | grep -o '[0-9]*')
		"$TRACER" -p "$T/pmany.data" >"$T/pmany.txt" 2>"$T/pmany.perr"; rc=$?
		perf script -i "$T/pmany.data" -F comm,tid,cpu,time,event >"$T/pmany.ps" 2>/dev/null
		[ $rc = 0 ] && [ ! -s "$T/pmany.perr" ] && [ "${ne:-0}" -gt 256 ] &&
			pass "print '$c': $ne events, exit 0" || fail "print '$c': more than 256 events, exit 0" "$ne events, rc=$rc $(head -c 300 "$T/pmany.perr")"
		print_cols "print '$c'" "$T/pmany.txt" "$T/pmany.ps"
		print_fields "print '$c'" "$T/pmany.txt" "" "$T/pmany.data"
	done

	# the process that exited before each dump: named (its COMM came
	# from the tracking ring), not ":pid"
	pp=$(grep -m1 -o "signal_generate: sig=10 errno=0 code=0 comm=$pw pid=[0-9]*" "$T/pstream.txt" | sed 's/.*pid=//')
	nm=$(awk -v p="${pp:-x}" '$2 == p && / signal:signal_deliver: / { print $1 }' "$T/pstream.txt" | sort -u | tr '\n' ' ')
	[ -n "$pp" ] && [ "$nm" = "$pw " ] && ! kill -0 "$pp" 2>/dev/null &&
		pass "print: $pw ($pp), gone before the dump, is named on its signal_deliver lines" ||
		fail "print: $pw, gone before the dump, is named" "pid '$pp', names '$nm'"

	# live: tracer | tracer -p prints dump 1 while tracer still runs
	"$TRACER" "buf=256k sched:sched_process_exec cpu-clock@99" 2>"$T/plive.err" | "$TRACER" -p >"$T/plive.txt" 2>&1 &
	for i in $(seq 50); do grep -q recording "$T/plive.err" && break; sleep 0.1; done
	lp=$(pgrep -f "^$TRACER buf=256k sched:sched_process_exec" | head -1)
	TRACERS="$TRACERS $lp"
	"$T/$pw" spin 50
	kill -USR2 "$lp" 2>/dev/null
	for i in $(seq 100); do grep -q "filename=$T/$pw " "$T/plive.txt" && break; sleep 0.1; done
	kill -0 "$lp" 2>/dev/null && grep -q "filename=$T/$pw " "$T/plive.txt" &&
		pass "live: tracer | tracer -p printed dump 1 (the exec of $pw) while tracer runs" ||
		fail "live: tracer | tracer -p printed dump 1 while tracer runs" "$(tail -3 "$T/plive.txt"; cat "$T/plive.err")"
	kill -INT "$lp" 2>/dev/null
	wait

	# bad input: says where, prints what it could, exits 1, ends
	f=$T/pstream.out
	sz=$(stat -c %s "$f")
	head -c $((sz / 2 + 3)) "$f" >"$T/pcut"
	timeout 20 "$TRACER" -p "$T/pcut" >"$T/pcut.txt" 2>"$T/pcut.err"; rc=$?
	[ $rc = 1 ] && grep -q 'at offset [0-9]' "$T/pcut.err" && [ "$(grep -c . "$T/pcut.txt")" -gt 10 ] &&
		pass "a stream cut in the middle: exit 1, '$(head -1 "$T/pcut.err")', $(grep -c . "$T/pcut.txt") lines printed" ||
		fail "a stream cut in the middle: exit 1, the offset, what could be printed" "rc=$rc $(head -2 "$T/pcut.err"); $(grep -c . "$T/pcut.txt") lines"
	cp "$f" "$T/pbad"
	printf '\377\377\377\377\377\377\377\377' | dd of="$T/pbad" bs=1 seek=$((sz / 3)) conv=notrunc 2>/dev/null
	timeout 20 "$TRACER" -p "$T/pbad" >"$T/pbad.txt" 2>"$T/pbad.err"; rc=$?
	case $rc in 0|1) pass "a damaged stream: exit $rc, $(grep -c . "$T/pbad.txt") lines$(head -1 "$T/pbad.err" | sed 's/^/, /')" ;;
	*) fail "a damaged stream: exit 0 or 1, no crash" "rc=$rc $(head -2 "$T/pbad.err")" ;; esac
	# a record's size zeroed, half way: the walk cannot go on past it
	o=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(); o = 16
while o < len(b) // 2:
    t, m, n = struct.unpack_from("<IHH", b, o)
    o += n + ((struct.unpack_from("<I", b, o + 8)[0] + 7) & ~7 if t == 66 else 0)
print(o)' "$f")
	cp "$f" "$T/pzero"
	printf '\0\0' | dd of="$T/pzero" bs=1 seek=$((o + 6)) conv=notrunc 2>/dev/null
	timeout 20 "$TRACER" -p "$T/pzero" >"$T/pzero.txt" 2>"$T/pzero.err"; rc=$?
	[ $rc = 1 ] && grep -q "at offset $o\$" "$T/pzero.err" && [ "$(grep -c . "$T/pzero.txt")" -gt 10 ] &&
		pass "a record of size 0 at $o: exit 1, '$(head -1 "$T/pzero.err")', $(grep -c . "$T/pzero.txt") lines before it" ||
		fail "a record of size 0 at $o: exit 1, that offset, the lines before it" "rc=$rc $(head -2 "$T/pzero.err"); $(grep -c . "$T/pzero.txt") lines"
	echo "this is not perf.data" >"$T/pnot"
	timeout 20 "$TRACER" -p "$T/pnot" >/dev/null 2>"$T/pnot.err"; rc=$?
	[ $rc = 1 ] && [ -s "$T/pnot.err" ] && pass "not perf.data: exit 1, '$(head -1 "$T/pnot.err")'" ||
		fail "not perf.data: exit 1 and a word" "rc=$rc $(cat "$T/pnot.err")"
	timeout 20 "$TRACER" -p "$T/no-such-file" >/dev/null 2>"$T/pnof.err"; rc=$?
	[ $rc = 1 ] && grep -q "no-such-file" "$T/pnof.err" && pass "a missing file: exit 1, '$(cat "$T/pnof.err")'" ||
		fail "a missing file: exit 1, named" "rc=$rc $(cat "$T/pnof.err")"
	"$TRACER" -p a b >/dev/null 2>&1; rc=$?
	testing "-p with two files: usage error" 2 "$rc"

	# a file-mode dump cut short: what its data holds up to the cut is
	# printed (its tracing data, after the data, is gone: tracepoints by
	# number), then where, exit 1
	sz=$(stat -c %s "$T/pf.data")
	head -c $((sz / 2)) "$T/pf.data" >"$T/pfcut"
	timeout 20 "$TRACER" -p "$T/pfcut" >"$T/pfcut.txt" 2>"$T/pfcut.err"; rc=$?
	[ $rc = 1 ] && grep -q 'cut short.* at offset [0-9]' "$T/pfcut.err" && [ "$(grep -c . "$T/pfcut.txt")" -gt 10 ] &&
		pass "a file cut in the middle: exit 1, '$(head -1 "$T/pfcut.err")', $(grep -c . "$T/pfcut.txt") lines printed" ||
		fail "a file cut in the middle: exit 1, where, what could be printed" "rc=$rc $(head -2 "$T/pfcut.err"); $(grep -c . "$T/pfcut.txt") lines"
	# the lines before the cut are the whole file's first ones (but the
	# tracepoints' names and fields, which the tracing data gives)
	n=$(grep -c . "$T/pfcut.txt")
	"$TRACER" -p "$T/pf.data" 2>/dev/null | head -n "$n" | awk '{ print $1, $2, $3, $4 }' >"$T/pfcut.want"
	[ "$n" -gt 10 ] && awk '{ print $1, $2, $3, $4 }' "$T/pfcut.txt" | cmp -s - "$T/pfcut.want" &&
		pass "a file cut in the middle: its $n lines are the whole file's first" ||
		fail "a file cut in the middle: its lines are the whole file's first" "$(awk '{ print $1, $2, $3, $4 }' "$T/pfcut.txt" | diff - "$T/pfcut.want" | head -3)"

	# empty input is an error; so is /dev/zero, quickly and in little memory
	for e in "/dev/null" "< /dev/null"; do
		err=$(eval timeout 20 "\"$TRACER\" -p $e" 2>&1 >/dev/null); rc=$?
		case "$rc:$err" in 1:*empty*) pass "-p $e: exit 1, '$err'" ;; *) fail "-p $e: exit 1, said" "rc=$rc '$err'" ;; esac
	done
	for x in "-p /dev/zero" "-x < /dev/zero"; do
		err=$(eval timeout 20 prlimit --as=$((64 << 20)) "\"$TRACER\" $x" 2>&1 >/dev/null); rc=$?
		case "$rc:$err" in 1:*"NUL bytes"*) pass "$x: exit 1 in 64 MiB, '$(echo "$err" | head -1)'" ;;
		*) fail "$x: exit 1 in 64 MiB, said" "rc=$rc '$(echo "$err" | head -2)'" ;; esac
	done

	# bounded memory (README: tracer -p holds 56 MiB at most, -x to
	# stdout 2 dumps of 64 MiB): ~100 MB inputs made of this test's dumps,
	# the body of their records 30 times over, with no round until the
	# end, so every record waits for it: as a stream and framed (on a
	# pipe) and a file; -p prints each record, -x -o writes it whole
	cat >"$T/pbig.py" <<'PY'
# pbig.py MODE IN K: IN's records, their body K times over, as one big
# dump: MODE stream (IN a stream; no round until the end), framed (that
# stream framed as frame=text), or file (IN a file-mode perf.data; the
# data K times over, the sections after it moved).
import struct, sys, zlib, base64
mode, src, k = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3])
out = sys.stdout.buffer
if mode == "file":
    h = bytearray(src[:104])
    dof, dn = struct.unpack_from("<QQ", h, 40)
    body, tail = src[dof:dof + dn], src[dof + dn:]
    n = bin(struct.unpack_from("<Q", h, 72)[0]).count("1")
    secs = bytearray(tail[:16 * n])
    for i in range(n):
        struct.pack_into("<Q", secs, 16 * i, struct.unpack_from("<Q", secs, 16 * i)[0] + dn * (k - 1))
    struct.pack_into("<Q", h, 48, dn * k)
    out.write(h + src[104:dof])
    for i in range(k):
        out.write(body)
    out.write(secs + tail[16 * n:])
    sys.exit(0)
head, body, o = [src[:16]], [], 16
while o + 8 <= len(src):
    t, m, n = struct.unpack_from("<IHH", src, o)
    if t == 66:
        n += (struct.unpack_from("<I", src, o + 8)[0] + 7) & ~7
    (body if t < 64 else head if t != 68 else []).append(src[o:o + n])
    o += n
head, body, rnd = b"".join(head), b"".join(body), struct.pack("<IHH", 68, 0, 8)
if mode == "stream":
    out.write(head + body * k + rnd)
    sys.exit(0)
w, crc, ln, total, pend = out.write, 0, 0, 0, b""
w(b"some boot log\n#TRACER BEGIN 1\n")
for c in [head] + [body] * k + [rnd]:
    pend += c
    crc, total = zlib.crc32(c, crc), total + len(c)
    ls = []
    for i in range(0, len(pend) - 47, 48):
        d = pend[i:i + 48]
        ls.append(b"#T %d %s %08x\n" % (ln, base64.b64encode(d), zlib.crc32(d)))
        ln += 1
    w(b"".join(ls))
    pend = pend[len(pend) // 48 * 48:]
if pend:
    w(b"#T %d %s %08x\n" % (ln, base64.b64encode(pend), zlib.crc32(pend)))
w(b"#TRACER END 1 %d %08x\n" % (total, crc))
PY
	ls1=$("$TRACER" -p "$T/pstream.out" 2>/dev/null | grep -c .)
	lf1=$("$TRACER" -p "$T/pf.data" 2>/dev/null | grep -c .)
	k=$(( (100 << 20) / $(stat -c %s "$T/pstream.out") + 1 ))
	kf=$(( (100 << 20) / $(stat -c %s "$T/pf.data") + 1 ))
	for m in stream framed file; do
		if [ $m = file ]; then
			python3 "$T/pbig.py" file "$T/pf.data" $kf >"$T/pbig.data"
			in=$(stat -c %s "$T/pbig.data") want=$((kf * lf1))
			prlimit --as=$((56 << 20)) "$TRACER" -p "$T/pbig.data" 2>"$T/pbig.err" | grep -c . >"$T/pbig.n"
			rm -f "$T/pbig.data"
		else
			in=$((k * $(stat -c %s "$T/pstream.out"))) want=$((k * ls1))
			python3 "$T/pbig.py" $m "$T/pstream.out" $k 2>/dev/null |
				prlimit --as=$((56 << 20)) "$TRACER" -p 2>"$T/pbig.err" | grep -c . >"$T/pbig.n"
		fi
		got=$(cat "$T/pbig.n")
		[ "$got" = "$want" ] && ! grep -qv "bytes, ok" "$T/pbig.err" &&
			pass "-p in 56 MiB: a $m of $((in >> 20)) MiB, all $got lines" ||
			fail "-p in 56 MiB: a $m of $((in >> 20)) MiB, all $want lines" "$got lines; $(head -2 "$T/pbig.err")"
	done
	python3 "$T/pbig.py" stream "$T/pstream.out" $k >"$T/pbig.want"
	rm -f "$T/pbig.x"
	python3 "$T/pbig.py" framed "$T/pstream.out" $k 2>/dev/null | prlimit --as=$((16 << 20)) "$TRACER" -x -o "$T/pbig.x" 2>"$T/pbig.err"; rc=$?
	[ $rc = 0 ] && cmp -s "$T/pbig.x" "$T/pbig.want" &&
		pass "-x -o in 16 MiB: a dump of $(($(stat -c %s "$T/pbig.want") >> 20)) MiB, bit-identical" ||
		fail "-x -o in 16 MiB: a dump of 100 MiB, bit-identical" "rc=$rc $(head -2 "$T/pbig.err")"
	python3 "$T/pbig.py" stream "$T/pstream.out" $((k / 2)) >"$T/pbig.want"
	python3 "$T/pbig.py" framed "$T/pstream.out" $((k / 2)) 2>/dev/null | prlimit --as=$((160 << 20)) "$TRACER" -x >"$T/pbig.x" 2>"$T/pbig.err"; rc=$?
	[ $rc = 0 ] && cmp -s "$T/pbig.x" "$T/pbig.want" &&
		pass "-x to stdout in 160 MiB: a dump of $(($(stat -c %s "$T/pbig.want") >> 20)) MiB, bit-identical" ||
		fail "-x to stdout in 160 MiB: a dump of 50 MiB, bit-identical" "rc=$rc $(head -2 "$T/pbig.err")"
	rm -f "$T/pbig.x" "$T/pbig.want"

	# a frame line whose number is garbled (its bytes whole: the CRC
	# covers them): a corrupt line, named by the number it should have
	sed '0,/^#T 5 /s//#T 18446744073709551615 /' "$T/pframed.out" >"$T/pgarb"
	err=$("$TRACER" -x -n 1 <"$T/pgarb" 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in *18446744073709551614*) fail "-x: a garbled frame line number" "rc=$rc $err" ;;
	1:*"is corrupt (frame line 5: its number is garbled)"*) pass "-x: a garbled frame line number: exit 1, '$(echo "$err" | head -1)'" ;;
	*) fail "-x: a garbled frame line number: exit 1, said" "rc=$rc $err" ;; esac
fi

# --- framed data that is not perf.data: -p says so and exits 1, and
# never spins (random bytes, zeros, a "PERFILE2" magic then noise) ---
head -c 100000 /dev/zero >"$T/fz.zero"
{ printf PERFILE2; head -c 5000 /dev/urandom; } >"$T/fz.magic"
for f in "" "$T/fz.zero" "$T/fz.magic"; do
	python3 test/mkframe.py $f >"$T/fz.txt"
	out=$(timeout 10 "$TRACER" -p "$T/fz.txt" 2>&1 >/dev/null); rc=$?
	case "$rc:$out" in 1:*"not a perf.data stream"*) pass "-p on framed non-perf data (${f:-random}): says so, exit 1" ;;
	*) fail "-p on framed non-perf data (${f:-random}): says so, exit 1" "rc=$rc ${out:0:200}" ;; esac
done
