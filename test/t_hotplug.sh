# CPU hotplug: a CPU that goes offline and comes back is recorded again,
# and what it recorded before it went away stays in the dump. cpu1 is
# put back online on every exit path (run.sh's EXIT trap: cpu_restore).

CPU1=/sys/devices/system/cpu/cpu1/online
H=hp$$x$RANDOM; H=${H:0:11}
if [ ! -w "$CPU1" ] || [ "$(cat "$CPU1")" != 1 ]; then
	skip "CPU hotplug" "cpu1 can't be taken offline here ($CPU1: $(cat "$CPU1" 2>&1))"
else
	for lay in lean full tp; do
		evs="sched:sched_switch cpu-clock@199"; [ $lay = full ] && evs="$evs full"
		[ $lay = tp ] && evs="sched:sched_switch signal:signal_generate"
		start_tracer "$T/hp$lay" "$evs buf=4m" || continue
		cp "$T/work" "$T/${H}a"; cp "$T/work" "$T/${H}b"
		taskset -c 1 "$T/${H}a" spin 200 sleep 10 signal
		if ! echo 0 >"$CPU1" 2>/dev/null; then
			skip "$lay: CPU hotplug" "echo 0 > $CPU1 failed"; stop_tracer >/dev/null; break
		fi
		CPU_OFF=1
		wait_line "$T/hp$lay" "cpu 1 went offline" >/dev/null
		dump_wait "$T/hp$lay" 1 >/dev/null
		grep -q "dump 1 (signal): .* 2 CPUs (1 offline), paused" "$T/hp$lay.err" &&
			pass "$lay: a dump while cpu1 is offline says so" ||
			fail "$lay: a dump while cpu1 is offline says so" "$(grep 'dump 1' "$T/hp$lay.err")"
		# the line, then at once an exec on that CPU: its comm and maps
		# must be recorded (the line comes once cpu1's events and its
		# tracking ring are open again)
		( for i in $(seq 20000); do grep -q "cpu 1 is back online" "$T/hp$lay.err" && break; done
		  taskset -c 1 "$T/${H}b" spin 200 sleep 10 signal ) & HB=$!
		echo 1 >"$CPU1"; CPU_OFF=
		wait_rc $HB 20
		stop_tracer >/dev/null
		perf script -i "$T/hp$lay.out" -F comm,cpu,event,ip,sym,trace 2>/dev/null >"$T/hp$lay.txt"
		for w in a b; do
			when=$([ $w = a ] && echo "before it went offline" || echo "after it came back")
			if [ $lay = tp ]; then
				n=$(grep -c "^ *$H$w \[001\] .*signal_generate: sig=10 .*comm=$H$w " "$T/hp$lay.txt")
			else
				n=$(grep -c "^ *$H$w \[001\] .*cpu-clock:.*work_hot_loop" "$T/hp$lay.txt")
			fi
			k=$(grep -c "^ *$H$w \[001\] .*sched:sched_switch: prev_comm=$H$w " "$T/hp$lay.txt")
			[ "$n" -gt 0 ] && [ "$k" -gt 0 ] && pass "$lay: cpu1's records $when ($n, $k sched_switch)" ||
				fail "$lay: cpu1's records $when" "$n samples, $k sched_switch; $(tail -3 "$T/hp$lay.err")"
		done
		n=$(perf script -i "$T/hp$lay.out" --show-task-events 2>/dev/null | grep -c "PERF_RECORD_COMM exec: ${H}b:")
		[ "$n" -gt 0 ] && pass "$lay: an exec on cpu1 right after 'back online' keeps its comm" ||
			fail "$lay: an exec on cpu1 right after 'back online' keeps its comm" "$(tail -3 "$T/hp$lay.err")"
		check "$lay: hotplug: timestamps never go backwards" monotonic "$T/hp$lay.out"
	done
fi

# A CPU that is offline when tracer starts is recorded once it comes
# online (in a stream whose header named only the others).
if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 1 ] && echo 0 >"$CPU1" 2>/dev/null; then
	CPU_OFF=1
	if start_tracer "$T/hplate" 'sched:sched_switch cpu-clock@199 buf=4m'; then
		echo 1 >"$CPU1"; CPU_OFF=
		wait_line "$T/hplate" "cpu 1 came online" >/dev/null
		cp "$T/work" "$T/${H}c"
		taskset -c 1 "$T/${H}c" spin 200 sleep 10
		stop_tracer >/dev/null
		grep -q "recording 2 events on 1 CPUs" "$T/hplate.err" && grep -q "2 CPUs, paused" "$T/hplate.err" &&
			pass "late: started with cpu1 offline, the dump has 2 CPUs" ||
			fail "late: started with cpu1 offline, the dump has 2 CPUs" "$(cat "$T/hplate.err")"
		n=$(perf script -i "$T/hplate.out" -F comm,cpu,event,ip,sym 2>/dev/null | grep -c "^ *${H}c \[001\] .*cpu-clock:.*work_hot_loop")
		[ "$n" -gt 0 ] && pass "late: cpu1's records once it came online ($n)" ||
			fail "late: cpu1's records once it came online" "$(tail -3 "$T/hplate.err")"
		check "late: timestamps never go backwards" monotonic "$T/hplate.out"
	fi
	cpu_restore
else
	skip "CPU hotplug: a CPU offline at start" "cpu1 can't be taken offline here"
fi

# The same where every event is in the ftrace instance (no perf ring
# holds one, so the dump keeps no room for them): a CPU online after
# the start takes none either, and its records come from the instance.
if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 1 ] && echo 0 >"$CPU1" 2>/dev/null; then
	CPU_OFF=1
	if start_tracer "$T/hpft" -o "$T/hpft.data" "sched:sched_switch/prev_comm==\"${H}f\"/ buf=16m"; then
		echo 1 >"$CPU1"; CPU_OFF=
		wait_line "$T/hpft" "cpu 1 came online" >/dev/null
		cp "$T/work" "$T/${H}f"
		taskset -c 1 "$T/${H}f" sleep 10 sleep 10
		kill -USR2 $TPID; wait_line "$T/hpft" "dump 1 (" >/dev/null
		stop_tracer >/dev/null; rc=$?
		n=$(perf script -i "$T/hpft.data.1" -F comm,cpu,event 2>/dev/null | grep -c "^ *${H}f \[001\] .*sched:sched_switch")
		[ $rc = 0 ] && [ "$n" -gt 0 ] && pass "late, ftrace only, buf=16m: cpu1's sched_switch once it came online ($n), exit 0" ||
			fail "late, ftrace only, buf=16m: cpu1's sched_switch once it came online" "exit $rc, $n; $(tail -3 "$T/hpft.err")"
	fi
	cpu_restore
fi

# CPUs going and coming while dumps are made: tracer neither crashes nor
# hangs, and every dump decodes.
if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 1 ] && start_tracer "$T/hps" 'sched:sched_switch cpu-clock@999 buf=1m'; then
	for i in 1 2 3 4 5; do
		kill -USR2 $TPID
		echo 0 >"$CPU1" 2>/dev/null && CPU_OFF=1
		kill -USR2 $TPID
		echo 1 >"$CPU1"; CPU_OFF=
	done
	wait_line "$T/hps" "dump 10 (" >/dev/null
	kill -0 $TPID 2>/dev/null && pass "storm: 10 dumps while cpu1 goes and comes, tracer lives" ||
		fail "storm: tracer lives" "$(tail -3 "$T/hps.err")"
	stop_tracer >/dev/null; rc=$?
	testing "storm: the final dump, exit 0" 0 $rc
	check "storm: the stream of 11 dumps decodes, in order" monotonic "$T/hps.out"
fi
