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
	# (the console line last, just before the dump: under load the rings
	# hold well under a second of raw_syscalls:*)
	pwork() {
		"$T/$pw" spin 100 signal close 2000 signal
		echo "<4>$pw says hello on the console" >/dev/kmsg
		sleep 0.05
	}
	cp "$T/work" "$T/$pw"
	# every mode: LOG, then tracer's arguments
	for m in stream file framed zstd perf; do
		case $m in
		stream) set -- 'buf=2m' ;;
		file) rm -f "$T/pf.data"*; set -- -o "$T/pf.data" 'buf=2m' ;;
		framed) set -- 'buf=2m frame=text' ;;
		zstd) set -- 'buf=2m zstd' ;;
		perf) set -- 'buf=2m engine=perf' ;;
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
fi
