# Tripwires and controls: dumps that happen by themselves, judged by perf.

# wait_file FILE SECONDS: until FILE exists and is not empty
wait_file() {
	local i
	for i in $(seq $(($2 * 10))); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}

C=cr$$x$RANDOM; C=${C:0:15}	# the crasher's unique comm
crash() { "$T/$C" "$@" crash; } 2>/dev/null	# quiet: no "Segmentation fault"

# --- 1. trip=segv: a crash dumps within 2 s, with the crash in it ---
rm -f "$T/D"*
if start_tracer "$T/t1" -o "$T/D" 'sched:sched_switch sched:sched_process_exec trip=segv buf=256k'; then
	cp "$T/work" "$T/$C"
	crash sleep 20
	wait_file "$T/D" 2
	# the preset trips on any process's SIGSEGV: another job's first
	# (a crashing perf, seen) takes the dump and its holdoff
	if grep -q "dump 1 (trip segv by pid" "$T/t1.err" && ! grep -q "dump 1 (trip segv by pid [0-9]* ($C))" "$T/t1.err"; then
		skip "trip=segv" "another process's SIGSEGV tripped first: $(grep -o 'dump 1 (trip segv by pid [^)]*)' "$T/t1.err")"
	else
		if wait_file "$T/D" 2 && wait_line "$T/t1" "dump 1 (trip segv" >/dev/null; then
			pass "trip=segv: a crash dumps within 2 s, no signal sent"
		else
			fail "trip=segv: a crash dumps within 2 s" "$(cat "$T/t1.err")"
		fi
		grep -q "dump 1 (trip segv by pid [0-9]* ($C))" "$T/t1.err" && pass "the dump line names the tripwire, pid and comm" ||
			fail "the dump line names the tripwire, pid and comm" "$(grep 'dump 1' "$T/t1.err")"
		perf script -i "$T/D" --ns >"$T/D.txt" 2>/dev/null
		sig=$(grep -n "signal:signal_generate: sig=11 .*comm=$C " "$T/D.txt" | head -1)
		[ -n "$sig" ] && pass "perf script shows signal_generate sig=11 for the crasher" ||
			fail "perf script shows signal_generate sig=11 for the crasher" "$(grep signal_generate "$T/D.txt" | head -3)"
		exe=$(grep -n "sched_process_exec: filename=$T/$C " "$T/D.txt" | head -1)
		[ -n "$exe" ] && [ "${exe%%:*}" -lt "${sig%%:*}" ] && pass "its events just before the crash are there" ||
			fail "its events just before the crash are there" "exec line ${exe%%:*}, signal line ${sig%%:*}"
		grep -qE "^ *$C " "$T/D.txt" && pass "the crasher's comm is known though it is gone" ||
			fail "the crasher's comm is known though it is gone"
	fi
	stop_tracer >/dev/null
fi

# --- 2. after=300ms keeps what happens after the hit ---
M=mk$$x$RANDOM; M=${M:0:15}
cp "$T/work" "$T/$M"
for after in "" ",after=300ms"; do
	rm -f "$T/A"*
	start_tracer "$T/t2" -o "$T/A" "sched:sched_process_exec $(own_segv $C)$after" || continue
	crash
	sleep 0.1; "$T/$M"
	wait_file "$T/A" 3; sleep 0.2
	stop_tracer >/dev/null
	perf script -i "$T/A" >"$T/A.txt" 2>/dev/null
	if [ -n "$after" ]; then
		grep -q "filename=$T/$M " "$T/A.txt" && pass "after=300ms: a marker 100 ms after the crash is in the dump" ||
			fail "after=300ms: a marker 100 ms after the crash is in the dump" "$(cat "$T/t2.err")"
	else
		grep -q "filename=$T/$C " "$T/A.txt" && ! grep -q "filename=$T/$M " "$T/A.txt" &&
			pass "no after: the dump ends at the crash, the marker is not in it" ||
			fail "no after: the dump ends at the crash" "$(grep exec "$T/A.txt" | tail -3)"
	fi
done

# --- 3. a filter filters; count=3 trips on the third hit only ---
rm -f "$T/F"*
if start_tracer "$T/t3" -o "$T/F" "sched:sched_switch $(own_segv $C),count=3"; then
	run_work "${C:0:12}usr" hold; sleep 0.2
	for i in 1 2 3 4 5; do kill -USR1 $WPID; done
	kill $WPID
	crash; crash
	wait_line "$T/t3" "hit 2 of 3" >/dev/null	# (a busy machine: up to 10 s)
	[ ! -e "$T/F" ] && grep -q "hit 2 of 3" "$T/t3.err" && pass "SIGUSR1s and two of count=3 crashes do not trip" ||
		fail "SIGUSR1s and two of count=3 crashes do not trip" "$(cat "$T/t3.err")"
	crash
	wait_line "$T/t3" "dump 1 (trip signal:signal_generate/sig==11&&comm==\"$C\"/ by" >/dev/null &&
		pass "count=3 trips on the third hit" || fail "count=3 trips on the third hit" "$(cat "$T/t3.err")"
	perf script -i "$T/F" 2>/dev/null | grep "signal_generate: sig=11 " >"$T/F.hits"
	n=$(grep -c "comm=$C " "$T/F.hits")
	[ "$n" = 3 ] && pass "the dump holds the three hits" ||
		fail "the dump holds the three hits" "$n: $(tr -s ' \n' ' ' <"$T/F.hits"; tail -3 "$T/t3.err")"
	stop_tracer >/dev/null
fi

# --- 4. holdoff and dumps=N ---
rm -f "$T/H"*
if start_tracer "$T/t4" -o "$T/H" "sched:sched_switch $(own_segv $C) holdoff=10s dumps=2"; then
	crash
	wait_file "$T/H" 2
	crash; sleep 0.5
	grep -q "within holdoff, not dumped (1 so far)" "$T/t4.err" && [ ! -e "$T/H.1" ] &&
		pass "holdoff=10s: a second crash is counted, not dumped" ||
		fail "holdoff=10s: a second crash is counted, not dumped" "$(cat "$T/t4.err")"
	kill -USR2 $TPID
	for i in $(seq 30); do kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
	wait $TPID; rc=$?
	[ $rc = 0 ] && [ -s "$T/H.1" ] && grep -q "made dumps=2, exiting" "$T/t4.err" &&
		pass "dumps=2: exits 0 after the second dump" || fail "dumps=2: exits 0 after the second dump" "rc=$rc $(cat "$T/t4.err")"
fi
# a dump that failed (its fifo's reader gone) is not made: recording goes
# on, and the next one written is the second (old: exit 1 at the failure)
rm -f "$T/df"*; mkfifo "$T/df.fifo"
cat "$T/df.fifo" >"$T/df.1" & CA=$!; WORKS="$WORKS $CA"
if start_tracer "$T/df" -o "$T/df.fifo" "sched:sched_switch cpu-clock dumps=2"; then
	dump_wait "$T/df" 1 >/dev/null
	kill $CA; wait $CA 2>/dev/null
	dump_wait "$T/df" 2 >/dev/null
	sleep 0.5
	kill -0 $TPID 2>/dev/null && grep -q "dump 2 (signal): writing $T/df.fifo failed, recording goes on" "$T/df.err" &&
		pass "dumps=2: a failed dump 2 is not made, recording goes on" ||
		fail "dumps=2: a failed dump 2 is not made, recording goes on" "$(tail -2 "$T/df.err")"
	cat "$T/df.fifo" >"$T/df.3" & CA=$!; WORKS="$WORKS $CA"
	sleep 0.3; kill -USR2 $TPID; wait_rc $TPID 20; wait $CA 2>/dev/null
	n=$(perf script -i "$T/df.3" 2>/dev/null | grep -c cpu-clock)
	[ "$RC" = 0 ] && [ "$n" -gt 0 ] && grep -q "made dumps=2, exiting" "$T/df.err" &&
		pass "dumps=2: the next one written is the second: exit 0 (perf decodes it: $n samples)" ||
		fail "dumps=2: the next one written is the second, exit 0" "rc=$RC, $n; $(tail -2 "$T/df.err")"
fi
rm -f "$T/O1"*
if start_tracer "$T/t5" -o "$T/O1" "$(own_segv $C) dumps=1"; then
	crash
	for i in $(seq 30); do kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
	wait $TPID; rc=$?
	testing "dumps=1 is one-shot: exit 0 after the trip" "0 yes" "$rc $([ -s "$T/O1" ] && echo yes)"
fi

# --- 5. presets oom, oops, exit, proven for real ---
CG=
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/tracer-test-$$; mkdir -p $CG && echo 32M >$CG/memory.max && echo 0 >$CG/memory.swap.max 2>/dev/null
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/tracer-test-$$; mkdir -p $CG && echo 32M >$CG/memory.limit_in_bytes
fi
if [ -z "$CG" ]; then
	skip "trip=oom" "no memory cgroup to provoke an OOM kill safely"
elif start_tracer "$T/t6" -o "$T/OOM" 'trip=oom dumps=1'; then
	E=ea$$x$RANDOM; E=${E:0:15}; cp "$T/work" "$T/$E"
	eat() { (echo $BASHPID >$CG/cgroup.procs; exec "$T/$E" eat 200); } 2>/dev/null
	eat
	for i in $(seq 30); do kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
	wait $TPID
	perf script -i "$T/OOM" 2>/dev/null | grep -q "oom:mark_victim: pid=[0-9]* comm=$E " &&
		pass "trip=oom: an OOM kill in a 32M cgroup dumps, with mark_victim" ||
		fail "trip=oom: an OOM kill dumps" "$(cat "$T/t6.err")"
fi
[ -n "$CG" ] && rmdir $CG 2>/dev/null

# The kernel's console tracepoint sees what is written to /dev/kmsg.
if start_tracer "$T/t7" -o "$T/OP" 'trip=oops dumps=1'; then
	echo "<4>WARNING: CPU: 0 PID: $$ tracer test $C" >/dev/kmsg
	for i in $(seq 30); do kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
	wait $TPID
	perf script -i "$T/OP" 2>/dev/null | grep -q "printk:console: .*WARNING: CPU: 0 PID: $$ tracer test $C" &&
		pass "trip=oops: a WARNING line dumps (via /dev/kmsg)" || fail "trip=oops: a WARNING line dumps" "$(cat "$T/t7.err")"
fi
# Any non-zero exit on the system trips this one (even a grep -q), so
# the check is that our exit(3) made a dump and our exit(0) did not.
rm -f "$T/EX"*
if start_tracer "$T/t8" -o "$T/EX" 'trip=exit'; then
	"$T/work" exit 0 & p0=$!; wait $p0
	"$T/$C" exit 3 & p3=$!; wait $p3
	wait_line "$T/t8" "trip exit by pid $p3 " >/dev/null
	stop_tracer >/dev/null
	grep -q "trip exit by pid $p3 " "$T/t8.err" && ! grep -q "trip exit by pid $p0 " "$T/t8.err" &&
		pass "trip=exit: exit(3) dumps, exit(0) does not" || fail "trip=exit: exit(3) dumps" "$(cat "$T/t8.err")"
	cat "$T/EX"* >/dev/null 2>&1
	for f in "$T/EX"*; do perf script -i "$f" 2>/dev/null; done | grep -q "^ *[^ ]* *$p3 .*sys_enter_exit_group: error_code: 0x0*3$" &&
		pass "trip=exit: the dump shows the exit_group(3)" || fail "trip=exit: the dump shows the exit_group(3)"
fi
err=$("$TRACER" 'trip=nosuchpreset' 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"'trip=nosuchpreset' at 1"*) pass "an unknown tripwire is a config error" ;;
*) fail "an unknown tripwire is a config error" "rc=$rc $err" ;; esac
# durations (DURATION): malformed ones name the token; on a kernel
# without synthetic events (this host's, Debian 11's 5.10) a refusal
# naming the options (the guests of test/qemu.sh scenario w record them)
for c in 'trip=nosuch>5ms' 'trip=wakeup>5' 'trip=wakeup>0ms' 'trip=wakeup/pid==1>5ms' 'trip=wakeup>2000s' \
	'trip=sched:a(x)..sched:b>1ms' 'trip=sched:a()..sched:b(y)>1ms' 'trip=a(x)..sched:b(y)>1ms' 'trip=sched:a(x)/f..sched:b(y)/>1ms'; do
	err=$("$TRACER" "cpu-clock $c" 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in 2:*"'$c' at 11: "*) pass "'$c': exit 2, $(echo "$err" | sed "s/.*at 11: //")" ;;
	*) fail "'$c': exit 2, naming it" "rc=$rc $err" ;; esac
done
if [ -e "$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)/synthetic_events" ]; then
	skip "trip=wakeup>5ms on a kernel without synthetic events" "this one has them (test/qemu.sh w records them)"
else
	err=$("$TRACER" 'trip=wakeup>5ms' 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in 2:*"'trip=wakeup>5ms' at 1: this kernel has no synthetic events"*"CONFIG_HIST_TRIGGERS and CONFIG_SYNTH_EVENTS (Linux 4.17 or later)"*)
		pass "trip=wakeup>5ms, no synthetic events here: exit 2, $(echo "$err" | sed 's/.*at 1: //')" ;;
	*) fail "trip=wakeup>5ms without synthetic events: exit 2, naming the kernel options" "rc=$rc $err" ;; esac
fi
err=$("$TRACER" 'trip=segv,count=0' 2>&1 >/dev/null); rc=$?
testing "trip=segv,count=0 exits 2" 2 $rc
err=$("$TRACER" 'trip=segv after=5' 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"'after=5' at 11"*) pass "after= needs a unit" ;; *) fail "after= needs a unit" "rc=$rc $err" ;; esac

# --- 6. SIGUSR1 turns recording off, SIGCONT on again ---
if start_tracer "$T/t9" 'sched:sched_process_exec'; then
	kill -USR1 $TPID; wait_line "$T/t9" "recording off" >/dev/null
	cp "$T/work" "$T/${C:0:12}off"; "$T/${C:0:12}off"
	dump_wait "$T/t9" 1
	kill -CONT $TPID; wait_line "$T/t9" "recording on" >/dev/null
	cp "$T/work" "$T/${C:0:12}on"; "$T/${C:0:12}on"
	stop_tracer >/dev/null
	perf script -i "$T/t9.out" >"$T/t9.txt" 2>/dev/null
	! grep -q "filename=$T/${C:0:12}off " "$T/t9.txt" && pass "SIGUSR1 off: a workload's events are absent" ||
		fail "SIGUSR1 off: a workload's events are absent"
	grep -q "filename=$T/${C:0:12}on " "$T/t9.txt" && pass "SIGCONT on: events are recorded again" ||
		fail "SIGCONT on: events are recorded again" "$(cat "$T/t9.err")"
fi

# --- 7. armed tripwires cost no wake-ups ---
if start_tracer "$T/ti" 'trip=segv trip=oom trip=signal:signal_generate/sig==31/'; then
	idle_check "tripwires armed, idle 5 s: voluntary context switches do not grow" 5
	stop_tracer >/dev/null
fi

# --- 8. count= holds in a burst: 150 SIGCONTs from a loop, as fast as
# bash sends them, overflow the tripwire's 8 KiB ring, and no record
# comes after them (the kernel says how many it lost only in front of
# a later one); the event's own counter has every hit. The filters name
# our target: others' SIGCONTs do not count. A second tripwire wants
# 151: the burst must not trip it.
rm -f "$T/B"*
sleep 60 & SP=$!; WORKS="$WORKS $SP"
# tracer and the loop on one CPU: tracer reads its ring only when the
# loop gives the CPU up, so the burst overflows it on any machine
if ! command -v taskset >/dev/null; then
	skip "count=150 in a burst" "no taskset"
elif start_tracer "$T/tb" -o "$T/B" "sched:sched_switch trip=signal:signal_generate/sig==18&&pid==$SP/,count=150 \
    trip=signal:signal_generate/sig>17&&sig<19&&pid==$SP/,count=151"; then
	taskset -pc 0 $TPID >/dev/null
	taskset -c 0 bash -c "for i in \$(seq 150); do kill -CONT $SP; done"
	wait_line "$T/tb" "dump 1 (trip signal:signal_generate/sig==18&&pid" >/dev/null &&
		pass "count=150: a burst of 150 trips (every hit counted)" ||
		fail "count=150: a burst of 150 trips" "$(grep -v 'hit [0-9]* of' "$T/tb.err" | tail -3); $(grep -c 'hit [0-9]* of' "$T/tb.err") hit lines, the last: $(grep 'hit [0-9]* of' "$T/tb.err" | tail -1)"
	sleep 0.3
	stop_tracer >/dev/null
	! grep -q "dump [0-9]* (trip signal:signal_generate/sig>17" "$T/tb.err" &&
		grep -q "trip signal:signal_generate/sig>17.*hit 150 of 151" "$T/tb.err" &&
		pass "count=151: the same burst counts 150 and does not trip" ||
		fail "count=151: the same burst counts 150 and does not trip" "$(grep 'sig>17' "$T/tb.err" | tail -2)"
fi
kill $SP 2>/dev/null
