# tracer -c: a stream, a frame=text capture and a zstd stream, each of
# two dumps, converted on the host into file-mode perf.data (a file per
# dump), judged by the perf tools that read no stream (host perf 6.1):
# sched timehist (the workload's 30 ms sleep as its wait time), sched
# latency, timechart (an svg naming it), trace -s (its 1500 failed
# closes), inject then script, data convert --to-json and report --stats
# (its samples), and perf script of each file line for line against
# perf script of that dump's bytes of the stream. The same checks on the
# stream itself fail. Bad input (empty, garbage, cut short, a file
# that exists) exits 1, says so, and writes no broken file.

# close (3 on x86_64) only: the whole machine's syscalls fill the rings
# in under a second while others run beside
CCFG='sched:* raw_syscalls:sys_enter/id==3/ raw_syscalls:sys_exit/id==3/ cpu-clock@499 buf=8m'
cw=cvw$$; cw=${cw:0:13}
if ! "$TRACER" -h 2>&1 | grep -q -- '-o FILE \[INPUT\]'; then
	skip "convert" "tracer -c is not built in (CONFIG_CONVERT)"
else
	cp "$T/work" "$T/$cw"
	# on cpu 0: a switch in from idle on another CPU may go unrecorded
	# (seen on cpu 1 here), and timehist then misses the wait
	PIN=; command -v taskset >/dev/null && PIN="taskset -c 0"
	# cvjudge NAME FILE PID: what each tool makes of FILE, for the
	# workload $cw (PID); prints "ok WHAT" or "no WHAT: why" per tool
	cvjudge() {
		local f=$2 p=$3 n s j t
		rm -f "$f".svg "$f".inj "$f".json
		n=$(perf sched timehist -i "$f" 2>/dev/null | awk -v t="$cw[$p]" '$3 == t && $4 + 0 >= 29 && $4 + 0 < 1000' | wc -l)
		[ "$n" -ge 1 ] && echo "ok sched timehist (a wait of 30 ms)" || echo "no sched timehist: $(perf sched timehist -i "$f" 2>&1 | grep -m1 -v '^ *[0-9]')"
		# (a framed dump 2 has both runs: latency sums a comm's tasks, "cvw:(2)")
		perf sched latency -i "$f" 2>/dev/null | grep -Eq "^ *$cw:($p|\([0-9]+\)) " && echo "ok sched latency" ||
			echo "no sched latency: $(perf sched latency -i "$f" 2>&1 | head -1)"
		perf timechart -i "$f" -o "$f.svg" >/dev/null 2>&1; grep -q "<title>$p $cw running" "$f.svg" 2>/dev/null && echo "ok timechart" ||
			echo "no timechart: $(perf timechart -i "$f" -o "$f.svg" 2>&1 | head -1)"
		n=$(cvclose "$f" $cw $p)
		[ "$n" = 1500 ] && echo "ok trace -s (1500 failed closes)" ||
			if cvctl; then echo "no trace -s: close errors '$n'"
			else echo "skip trace -s: perf $(perf version | cut -d' ' -f3) fails on perf record's own file of these events too"; fi
		s=$(perf script -i "$f" 2>/dev/null | md5sum)
		perf inject -i "$f" -o "$f.inj" >/dev/null 2>&1 && [ "$(perf script -i "$f.inj" 2>/dev/null | md5sum)" = "$s" ] &&
			echo "ok inject" || echo "no inject: $(perf inject -i "$f" -o "$f.inj" 2>&1 | head -1)"
		# the samples of the workload's tids, counted by tid: perf 6.8
		# and later name a task's samples after its exit :TID in perf
		# script, and 6.12's json puts a tracepoint's comm field over a
		# sample's comm (sched_waking's is the wakee's)
		t=$(perf script -i "$f" -F comm,tid 2>/dev/null | awk -v c=$cw '$1 == c { print $2 }' | sort -u | tr '\n' ' ')
		n=$(perf script -i "$f" -F tid 2>/dev/null | awk -v t=" $t" 'index(t, " " $1 " ")' | wc -l)
		(perf data convert --to-json "$f.json" -i "$f"; :) >/dev/null 2>&1
		j=$(python3 -c 'import json, sys
t = set(sys.argv[2].split())
print(sum(1 for x in json.load(open(sys.argv[1]))["samples"] if str(x.get("tid")) in t))' "$f.json" "$t" 2>/dev/null)
		[ "$n" -gt 10 ] && [ "$j" = "$n" ] && echo "ok --to-json ($n samples of $cw's tids)" || echo "no --to-json: $j of $n"
		n=$(perf script -i "$f" 2>/dev/null | wc -l)
		perf report --stats -i "$f" 2>/dev/null | grep -m1 "SAMPLE events:" | grep -q " $n " && [ "$n" -gt 100 ] &&
			echo "ok report --stats ($n samples)" || echo "no report --stats: $n in perf script"
	}
	# cvclose FILE COMM PID: its failed closes in perf trace -s
	cvclose() {
		perf trace -s -i "$1" 2>&1 | awk -v t=" $2 ($3)" 'index($0, t) == 1 { on = 1; next } on && /^ [^ ]/ { on = 0 } on && $1 == "close" { print $3 }'
	}
	# cvctl: whether the host perf's trace -s reads perf record's own
	# file of these syscalls (made once; perf 6.12's crashes on it)
	cvctl() {
		local p
		[ -e "$T/cvctl.ok" ] && return 0
		[ -e "$T/cvctl.data" ] && return 1
		cp "$T/work" "$T/${cw}c"
		perf record -N -q -a -e raw_syscalls:sys_enter --filter id==3 -e raw_syscalls:sys_exit --filter id==3 \
			-o "$T/cvctl.data" -- "$T/${cw}c" close 1500 >/dev/null 2>&1
		p=$(perf script -i "$T/cvctl.data" -F comm,pid 2>/dev/null | awk -v c=${cw}c '$1 == c { print $2; exit }')
		[ "$(cvclose "$T/cvctl.data" ${cw}c "$p")" = 1500 ] && : >"$T/cvctl.ok"
	}
	# the first dump of a stream: its bytes up to its FINISHED_ROUND
	cvfirst() {
		python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(); o = 16
while o < len(b):
    t, m, n = struct.unpack_from("<IHH", b, o)
    o += n + ((struct.unpack_from("<I", b, o + 8)[0] + 7) & ~7 if t == 66 else 0)
    if t == 68: break
sys.stdout.buffer.write(b[:o])' "$1"
	}
	for m in stream framed zstd; do
		case $m in
		stream) c= ;;
		framed) c=' frame=text' ;;
		zstd) c=' zstd' ;;
		esac
		if ! start_tracer "$T/cv$m" "$CCFG$c"; then
			fail "convert $m: tracer records" "$(cat "$T/cv$m.err")"
			continue
		fi
		# the last sleep: timehist prints a wait at the task's next
		# switch out, and perf 6.8 and later forget a task at its
		# EXIT, which comes before the last switch (a new ":PID", no wait)
		$PIN "$T/$cw" spin 100 close 1500 sleep 30 spin 20 sleep 2 & p1=$!; wait $p1
		dump_wait "$T/cv$m" 1 >/dev/null
		$PIN "$T/$cw" spin 50 close 1500 sleep 30 spin 20 sleep 2 & p2=$!; wait $p2
		stop_tracer >/dev/null
		rm -f "$T/cv$m.data"*
		"$TRACER" -c -o "$T/cv$m.data" "$T/cv$m.out" 2>"$T/cv$m.cerr"; rc=$?
		[ $rc = 0 ] && [ -s "$T/cv$m.data" ] && [ -s "$T/cv$m.data.1" ] && [ ! -e "$T/cv$m.data.2" ] &&
			pass "convert $m: exit 0, a file per dump: $(grep -v ', ok$' "$T/cv$m.cerr" | sed 's/^tracer: //; s|'"$T"/'||' | tr '\n' ' ')" ||
			{ fail "convert $m: exit 0, two files" "rc=$rc $(cat "$T/cv$m.cerr")"; continue; }
		for d in 1 2; do
			f=$T/cv$m.data; [ $d = 1 ] || f=$f.1
			p=$p1; [ $d = 1 ] || p=$p2
			cvjudge $m "$f" $p >"$T/cv$m.j$d"
			grep -q '^no ' "$T/cv$m.j$d" && { fail "convert $m dump $d: every tool reads it" "$(grep '^no ' "$T/cv$m.j$d" | tr '\n' ';')"; keep "$f" "$T/cv$m.out"; } ||
				pass "convert $m dump $d: $(sed 's/^ok //' "$T/cv$m.j$d" | tr '\n' ';' | sed 's/;/; /g')"
		done
		# the stream itself: the same checks fail (perf 6.1 reads no
		# stream with these tools), so they judge the conversion
		[ $m = framed ] && "$TRACER" -x -n 1 <"$T/cv$m.out" >"$T/cv$m.s1" 2>/dev/null || cvfirst "$T/cv$m.out" >"$T/cv$m.s1"
		cvjudge $m "$T/cv$m.s1" $p1 >"$T/cv$m.js"
		n=$(grep -c '^ok ' "$T/cv$m.js")
		[ "$n" = 0 ] && pass "convert $m: on the stream of dump 1 itself, all 7 checks fail: $(cut -d: -f1 "$T/cv$m.js" | cut -c4- | tr '\n' ',')" ||
			fail "convert $m: the checks fail on the stream itself" "$(tr '\n' ';' <"$T/cv$m.js")"
		# perf script: dump 1's file line for line as the stream of dump 1;
		# both files as the whole stream, sorted and but for the comm: at
		# a round perf holds back the records newer than the round before
		# and merges them with the next dump's, after that dump's names
		# (a kworker's comm changes with its work); a file has its dump's
		# A kernel function a tracepoint prints with %ps
		# (sched_kthread_work_*'s function): a file resolves it, a
		# stream (where perf has no kernel map yet) gives its address:
		# either is the same function.
		ps() { perf script -i "$1" 2>/dev/null | sed -E 's/(function[= ])(0x[0-9a-f]+|[A-Za-z_][A-Za-z0-9_.]*)/\1F/g'; }
		ps "$T/cv$m.s1" >"$T/cv$m.ps"
		ps "$T/cv$m.data" >"$T/cv$m.pc"
		n=$(wc -l <"$T/cv$m.pc")
		[ "$n" -gt 1000 ] && cmp -s "$T/cv$m.ps" "$T/cv$m.pc" &&
			pass "convert $m: perf script of dump 1's file, all $n lines, equals the stream's" ||
			{ fail "convert $m: perf script of dump 1's file equals the stream's" "$n lines: $(diff "$T/cv$m.ps" "$T/cv$m.pc" | head -3 | tr '\n' ' ')"; keep "$T/cv$m".*; }
		if [ $m != framed ]; then
			# the symbol of the workloads' own samples: another job's
			# process that exec'd between the dumps has its samples of
			# dump 1 resolved with dump 2's maps in the stream (the same
			# holding back)
			F=tid,cpu,time,event,trace,ip,sym
			own() { awk -v a=$p1 -v b=$p2 '{ if ($1 != a && $1 != b) sub(/ [^ ]+$/, ""); print }'; }
			fn() { sed -E 's/(function[= ])(0x[0-9a-f]+|[A-Za-z_][A-Za-z0-9_.]*)/\1F/g'; }
			perf script -i "$T/cv$m.out" -F $F 2>/dev/null | own | fn | sort >"$T/cv$m.pa"
			{ perf script -i "$T/cv$m.data" -F $F; perf script -i "$T/cv$m.data.1" -F $F; } 2>/dev/null | own | fn | sort >"$T/cv$m.pb"
			cmp -s "$T/cv$m.pa" "$T/cv$m.pb" && pass "convert $m: perf script of both files, $(wc -l <"$T/cv$m.pb") lines, equals the whole stream's (but the comm)" ||
				{ fail "convert $m: perf script of both files equals the whole stream's" "$(diff "$T/cv$m.pa" "$T/cv$m.pb" | head -3 | tr '\n' ' ')"; keep "$T/cv$m".*; }
		fi
	done

	# big-endian: a mips zstd stream (perf fields little-endian, the
	# tracing data and raw fields big-endian, as a big-endian board writes)
	be=test/fuzz/corpus/print/zstd-mips
	rm -f "$T/cvbe.data"*
	"$TRACER" -c -o "$T/cvbe.data" "$be" 2>"$T/cvbe.err"; rc=$?
	perf script -i "$be" >"$T/cvbe.ps" 2>/dev/null
	perf script -i "$T/cvbe.data" >"$T/cvbe.pc" 2>/dev/null
	n=$(wc -l <"$T/cvbe.pc")
	[ $rc = 0 ] && [ "$n" -gt 1000 ] && cmp -s "$T/cvbe.ps" "$T/cvbe.pc" && perf report --stats -i "$T/cvbe.data" 2>/dev/null | grep -q "SAMPLE events: *$n " &&
		pass "convert a big-endian (mips) zstd stream: perf script, $n lines, as the stream's; report --stats" ||
		fail "convert a big-endian zstd stream" "rc=$rc $(cat "$T/cvbe.err") $n lines $(diff "$T/cvbe.ps" "$T/cvbe.pc" | head -2)"

	# bad input: exit 1, a message, no broken file
	cvbad() {
		local name=$1 in=$2 want=$3
		rm -f "$T/cvb.data"*
		"$TRACER" -c -o "$T/cvb.data" "$in" >/dev/null 2>"$T/cvb.err"; rc=$?
		if [ $rc = 1 ] && grep -q "$want" "$T/cvb.err" && [ ! -e "$T/cvb.data" ]; then
			pass "convert $name: exit 1, '$(tail -1 "$T/cvb.err")', no file"
		else
			fail "convert $name: exit 1, '$want', no file" "rc=$rc $(cat "$T/cvb.err") $(ls "$T"/cvb.data* 2>/dev/null)"
		fi
	}
	: >"$T/cvempty"
	cvbad "empty input" "$T/cvempty" "empty"
	head -c 65536 /dev/urandom >"$T/cvgarbage"
	cvbad "garbage" "$T/cvgarbage" "no framed dump"
	head -c 5000 "$T/cvstream.out" >"$T/cvhead"	# the head, no record whole
	cvbad "a stream cut in its head" "$T/cvhead" "ends inside"
	# cut in dump 1's records: a file of what came whole, and it says so
	sz=$(stat -c %s "$T/cvstream.s1")
	head -c $((sz / 2 + 3)) "$T/cvstream.out" >"$T/cvcut"
	rm -f "$T/cvb.data"*
	"$TRACER" -c -o "$T/cvb.data" "$T/cvcut" 2>"$T/cvb.err"; rc=$?
	n=$(perf script -i "$T/cvb.data" 2>/dev/null | wc -l)
	[ $rc = 1 ] && grep -q "at offset [0-9]" "$T/cvb.err" && grep -q "cut short" "$T/cvb.err" && [ "$n" -gt 100 ] &&
		perf sched timehist -i "$T/cvb.data" >/dev/null 2>&1 &&
		pass "convert a stream cut in a dump: exit 1, '$(tr '\n' ' ' <"$T/cvb.err" | sed 's/tracer: //g; s|'"$T"/'||g')', the file reads ($n samples)" ||
		fail "convert a stream cut in a dump: exit 1, says so, a file perf reads" "rc=$rc $(cat "$T/cvb.err") $n samples"
	# a damaged framed dump: no file for it, the others converted
	awk '/#TRACER BEGIN/ { d++ } d == 1 && /^#T 5 / { next } { print }' "$T/cvframed.out" >"$T/cvfbad"
	rm -f "$T/cvb.data"*
	"$TRACER" -c -o "$T/cvb.data" "$T/cvfbad" 2>"$T/cvb.err"; rc=$?
	[ $rc = 1 ] && grep -q "damaged in the capture: no file" "$T/cvb.err" && [ -s "$T/cvb.data" ] && [ ! -e "$T/cvb.data.1" ] &&
		cmp -s "$T/cvb.data" "$T/cvframed.data.1" &&
		pass "convert a capture with dump 1 damaged: exit 1, no file for it, dump 2's as before" ||
		fail "convert a capture with dump 1 damaged" "rc=$rc $(cat "$T/cvb.err") $(ls "$T"/cvb.data*)"
	# FILE exists: kept, the dump goes to FILE.1 (as -o does)
	echo keep >"$T/cvb.data"
	"$TRACER" -c -o "$T/cvb.data" "$T/cvstream.s1" 2>"$T/cvb.err"; rc=$?
	[ $rc = 0 ] && [ "$(cat "$T/cvb.data")" = keep ] && cmp -s "$T/cvb.data.1" "$T/cvstream.data" &&
		pass "convert to a FILE that exists: kept; the dump in FILE.1, as the first conversion wrote it" ||
		fail "convert to a FILE that exists: kept, FILE.1" "rc=$rc $(cat "$T/cvb.err")"
	cvbad "a file-mode perf.data" "$T/cvstream.data" "already a perf.data file"
	"$TRACER" -c "$T/cvstream.out" 2>"$T/cvb.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-c needs -o FILE" "$T/cvb.err" && pass "convert without -o: exit 2, said" ||
		fail "convert without -o: exit 2" "rc=$rc $(cat "$T/cvb.err")"
	# -o naming what is no file (/dev/null): refused, nothing put in /dev
	"$TRACER" -c -o /dev/null "$T/cvstream.out" 2>"$T/cvb.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-o /dev/null: not a file" "$T/cvb.err" && [ ! -e /dev/null.1 ] &&
		pass "convert -o /dev/null: exit 2, nothing written in /dev" || fail "convert -o /dev/null: exit 2, nothing in /dev" "rc=$rc $(cat "$T/cvb.err"; ls /dev/null.* 2>&1)"
	"$TRACER" -c -o "/dev/tracer-t$$.data" "$T/cvstream.out" 2>"$T/cvb.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-o /dev/tracer-t$$.data: not a file (or in /dev)" "$T/cvb.err" && [ ! -e "/dev/tracer-t$$.data" ] &&
		pass "convert -o /dev/NEWFILE: exit 2, no file made in /dev" ||
		fail "convert -o /dev/NEWFILE: exit 2, no file made in /dev" "rc=$rc $(cat "$T/cvb.err"; ls /dev/tracer-t* 2>&1)"
	rm -f "/dev/tracer-t$$.data"*
	# options after the input, and an option -c does not take: said as they are
	"$TRACER" -c "$T/cvstream.out" -o "$T/cvo.data" 2>"$T/cvb.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-c: '-o' after the input: options go first" "$T/cvb.err" && [ ! -e "$T/cvo.data" ] &&
		pass "convert IN -o FILE: exit 2, '$(cat "$T/cvb.err")'" || fail "convert IN -o FILE: exit 2, options go first" "rc=$rc $(cat "$T/cvb.err")"
	"$TRACER" -c -o "$T/cvo.data" -x "$T/cvstream.out" 2>"$T/cvb.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-c takes -o FILE, -n N and one input, and no other option" "$T/cvb.err" && [ ! -e "$T/cvo.data" ] &&
		pass "convert -o FILE -x: exit 2, '$(cat "$T/cvb.err")'" || fail "convert -o FILE -x: exit 2, no other option" "rc=$rc $(cat "$T/cvb.err")"
	# -n N: dump N only, the file the whole conversion made of it
	for m in stream framed; do
		rm -f "$T/cvo.data"*
		"$TRACER" -c -n 2 -o "$T/cvo.data" "$T/cv$m.out" 2>"$T/cvb.err"; rc=$?
		[ $rc = 0 ] && cmp -s "$T/cvo.data" "$T/cv$m.data.1" && [ ! -e "$T/cvo.data.1" ] && [ "$(perf script -i "$T/cvo.data" 2>/dev/null | wc -l)" -gt 100 ] &&
			pass "convert -n 2 of a $m: one file, dump 2's of the whole conversion, perf script reads it" ||
			fail "convert -n 2 of a $m: one file, dump 2's" "rc=$rc $(cat "$T/cvb.err") $(ls "$T"/cvo.data*)"
	done
	rm -f "$T/cvo.data"*
	"$TRACER" -c -n 3 -o "$T/cvo.data" "$T/cvstream.out" 2>"$T/cvb.err"; rc=$?
	[ $rc = 1 ] && grep -q "dump 3 not converted (2 in the input)" "$T/cvb.err" && [ ! -e "$T/cvo.data" ] &&
		pass "convert -n 3 of 2 dumps: exit 1, '$(tail -1 "$T/cvb.err" | sed 's|'"$T"/'||')', no file" ||
		fail "convert -n 3 of 2 dumps: exit 1, said, no file" "rc=$rc $(cat "$T/cvb.err")"

	# many dumps, each a short-lived process (FORK, COMM, 40 maps, EXIT),
	# and one process alive throughout (in dump 1): each file carries
	# what is alive, not every dump's side-band before it
	python3 - "$T/cvstream.out" "$T/cvmany" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(); o = 16; head = b[:16]; t = {}
while o < len(b):
    ty, m, n = struct.unpack_from("<IHH", b, o)
    ext = (struct.unpack_from("<I", b, o + 8)[0] + 7) & ~7 if ty == 66 else 0
    r = b[o:o + n + ext]
    if ty >= 64 and ty != 68 and not t: head += r
    elif ty in (1, 3, 4, 7, 10) and n >= 24 and ty not in t: t[ty] = bytearray(r)
    o += n + ext
mm = t.get(10) or t.get(1)
def side(ty, pid, name=None, addr=0):
    r = bytearray(t[ty] if ty != 10 else mm)
    if ty in (4, 7): struct.pack_into("<IIII", r, 8, pid, 1, pid, 1)
    else: struct.pack_into("<II", r, 8, pid, pid)
    if ty == 3: r[16:16 + 8] = name.encode().ljust(8, b"\0")[:8]
    if ty in (1, 10): struct.pack_into("<Q", r, 16, addr)
    return bytes(r)
rnd = struct.pack("<IHH", 68, 0, 8)
out = head + side(7, 99990) + side(3, 99990, "cvlive") + side(10, 99990, addr=0x400000) + rnd
for i in range(1, 301):
    p = 100000 + i
    out += side(7, p) + side(3, p, "cvk%d" % i) + b"".join(side(10, p, addr=0x1000000 * (j + 1)) for j in range(40)) + side(4, p) + rnd
open(sys.argv[2], "wb").write(out)
PY
	rm -f "$T/cvm.data"*
	"$TRACER" -c -o "$T/cvm.data" "$T/cvmany" 2>"$T/cvm.err"; rc=$?
	a=$(stat -c %s "$T/cvm.data.1" 2>/dev/null); z=$(stat -c %s "$T/cvm.data.300" 2>/dev/null)
	ev=$(perf script --show-task-events -i "$T/cvm.data.300" 2>/dev/null)
	[ $rc = 0 ] && [ -n "$z" ] && [ "$z" -le $((a + a / 10)) ] && echo "$ev" | grep -q "COMM.*cvlive" && echo "$ev" | grep -q "COMM.*cvk300" &&
		! echo "$ev" | grep -q "cvk299" &&
		pass "convert 301 dumps of short-lived processes: the last file $z bytes, the second $a; it names the live task, not the ones gone" ||
		fail "convert 301 dumps: each file about its dump's size, names what is alive" "rc=$rc second $a last $z bytes; $(echo "$ev" | grep -c cvk) cvk lines; $(tail -2 "$T/cvm.err")"

	# memory: hostile and huge inputs stay within the stated bound
	# (doc/convert.md: 192 MiB), measured as the peak RSS
	cvmem() {	# NAME WANT: input on stdin; "RC KB" out
		/usr/bin/time -f "%x %M" -o "$T/cvmem.t" "$TRACER" -c -o "$T/cvmem.data" 2>"$T/cvmem.err"
		tail -1 "$T/cvmem.t"
	}
	rm -f "$T/cvmem.data"*
	read rc kb < <(python3 -c '
import struct, sys
w = sys.stdout.buffer; w.write(b"PERFILE2" + struct.pack("<Q", 16))
r = struct.pack("<IHHII", 64, 0, 65528, 0, 128) + bytes(65528 - 16)
for i in range(2400): w.write(r)' 2>/dev/null | cvmem)
	[ "$rc" = 1 ] && [ "$kb" -lt 196608 ] && grep -q "attrs of over 4 MiB" "$T/cvmem.err" &&
		pass "convert 150 MiB of HEADER_ATTR: exit 1, peak RSS $kb KiB, '$(head -1 "$T/cvmem.err")'" ||
		fail "convert 150 MiB of HEADER_ATTR: within 192 MiB, said" "rc=$rc peak $kb KiB $(head -2 "$T/cvmem.err")"
	rm -f "$T/cvmem.data"*
	read rc kb < <(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(); o = 16
while True:
    t, m, n = struct.unpack_from("<IHH", b, o)
    if t < 64 or t == 68: break
    o += n + ((struct.unpack_from("<I", b, o + 8)[0] + 7) & ~7 if t == 66 else 0)
w = sys.stdout.buffer; w.write(b[:o])
r = struct.pack("<IHH", 67, 0, 4096) + bytes(4088)
for i in range(38400): w.write(r)
w.write(b[o:])' "$T/cvstream.s1" 2>/dev/null | cvmem)
	n=$(perf script -i "$T/cvmem.data" 2>/dev/null | wc -l)
	[ "$rc" = 1 ] && [ "$kb" -lt 196608 ] && grep -q "build-ids over 16 MiB.*the rest dropped" "$T/cvmem.err" && [ "$n" -gt 100 ] &&
		pass "convert a stream with 150 MiB of HEADER_BUILD_ID: exit 1, peak RSS $kb KiB, said, its dump's file reads ($n samples)" ||
		fail "convert 150 MiB of HEADER_BUILD_ID: within 192 MiB, said, the dump written" "rc=$rc peak $kb KiB, $n samples, $(head -2 "$T/cvmem.err")"
fi
