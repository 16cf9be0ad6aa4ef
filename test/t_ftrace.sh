# The ftrace engine: tracepoints in a private ftrace instance, written as
# the same perf.data. Judged against engine=perf recording the same
# tracepoints at the same time, and against the instances directory.

iname() { sed -n 's/.* in ftrace instance \([^,]*\), by .*/\1/p' "$1"; }	# the start line's instance
INST=$(awk '$3 == "tracefs" { print $2 "/instances"; exit }' /proc/mounts)
[ -n "$INST" ] || INST=/sys/kernel/tracing/instances
E=ft$$x$RANDOM; E=${E:0:11}

if [ ! -d "$INST" ]; then
	skip "ftrace engine" "no $INST (no tracefs instances)"
else
	C="sched:sched_switch sched:sched_process_exec signal:signal_generate cpu-clock@99 buf=4m"
	start_tracer "$T/fte" "$C" && FTE=$TPID && start_tracer "$T/ftp" "$C engine=perf" && {
	FTPID=$TPID TPID=$FTE
	grep -q "tracepoints in ftrace instance tracer.$TPID, by " "$T/fte.err" &&
		pass "the start line says the ftrace instance records the tracepoints: $(grep -o 'by [a-z ]*' "$T/fte.err")" ||
		fail "the start line names the ftrace engine" "$(cat "$T/fte.err")"
	[ -d "$INST/tracer.$TPID" ] && pass "the instance tracer.$TPID is there while it records" ||
		fail "the instance tracer.$TPID is there while it records" "$(ls "$INST")"
	grep -q "ftrace instance" "$T/ftp.err" && fail "engine=perf makes no instance" "$(cat "$T/ftp.err")" ||
		pass "engine=perf: no ftrace instance"
	for i in 1 2 3; do run_work "${E}$i" spin 50 sleep 20 signal signal; wait $WPID; done
	kill -INT $TPID $FTPID; wait $TPID; wait $FTPID
	for x in fte ftp; do
		perf script -i "$T/$x.out" -F comm,tid,pid,cpu,time,event,trace --ns 2>/dev/null >"$T/$x.txt"
	done
	# Each CPU's sched_switch records in its window, through one engine,
	# must be a run of that CPU's records through the other, and back
	# (what lies at the window's edges may fall inside for only one).
	cat >"$T/ftcmp.py" <<'PY'
import sys
def recs(path):
    cpus = {}
    for l in open(path):
        f = l.split()
        i = next((k for k, w in enumerate(f) if w.startswith('[') and w.endswith(']')), -1)
        if i < 0 or f[i + 2] != 'sched:sched_switch:':
            continue
        # tid and the fields: not perf's comm of the tid, which it
        # takes from /proc (a kworker's changes: kworker/u8:4-ev, +ev),
        # nor its pid: the ftrace engine has the tid, and the pid from
        # /proc at dump time (another job's thread gone by then has its
        # tid); the workload's pids are compared below. A dead task's
        # last switch (prev_state=X): the kernel gives perf's record tid
        # -1 once its parent reaped it; ftrace's keeps it
        tid = f[i - 1].split('/')[-1]
        if 'prev_state=X' in f or tid == '-1':	# (any state: a task of another job, reaped)
            tid = '?'
        cpus.setdefault(f[i], []).append((float(f[i + 1].rstrip(':')), ' '.join([tid] + f[i + 2:])))
    return cpus
def same(u, v):	# a tid of '?' on either side is any tid
    return u == v or u.split(' ', 1)[1] == v.split(' ', 1)[1] and '?' in (u.split(' ', 1)[0], v.split(' ', 1)[0])
a, b = recs(sys.argv[1]), recs(sys.argv[2])
n, bad, dmax = 0, [], 0.0
for x, y in ((a, b), (b, a)):
    for c, r in x.items():
        # the CPU's window: both rings hold it (one may have wrapped)
        if c not in y:
            continue
        lo = max(r[0][0], y[c][0][0]) + 0.01
        hi = min(r[-1][0], y[c][-1][0]) - 0.01
        w = [k for k, (t, s) in enumerate(r) if lo < t < hi]
        if not w:
            continue
        want = [s for t, s in r[w[0]:w[-1] + 1]]
        other = [s for t, s in y.get(c, [])]
        at = next((k for k in range(len(other) - len(want) + 1) if all(map(same, other[k:k + len(want)], want))), -1)
        if at < 0:
            bad.append('%s: %d records not a run of the other\'s' % (c, len(want)))
            continue
        if x is a:
            n += len(want)
            ot = [t for t, s in y[c]][at:at + len(want)]
            dmax = max([dmax] + [abs(u - t) for u, (t, s) in zip(ot, r[w[0]:w[-1] + 1])])
print(n, int(dmax * 1e6), '; '.join(bad))
PY
	n=$(python3 "$T/ftcmp.py" "$T/fte.txt" "$T/ftp.txt")
	set -- $n
	if [ "${1:-0}" -gt 20 ] && [ -z "${3:-}" ]; then
		pass "sched_switch through both engines at once: the same $1 records (CPU, tids, fields, order on each CPU)"
	else
		fail "sched_switch through both engines at once" "$n"
		keep "$T/fte.txt" "$T/ftp.txt"
	fi
	# Both probes run in one call of the tracepoint, back to back with
	# preemption off: only an interrupt between them parts their stamps,
	# which are of one clock. So each pair is within 1 ms (measured here:
	# 0.7 to 10 us), and not always the same way round (whichever was
	# enabled first runs first).
	d=${2:-99999}
	[ "${1:-0}" -gt 20 ] && [ "$d" -le 1000 ] && pass "their times differ by at most $d us (bound: 1000)" ||
		fail "their times differ by at most 1000 us" "$d us"
	for x in fte ftp; do
		grep "$E" "$T/$x.txt" | grep -E 'signal_generate|sched_process_exec' | awk '{ $4 = ""; print }' >"$T/$x.wk"
	done
	n=$(grep -c 'sig=10 ' "$T/fte.wk")
	k=$(grep -c "sched_process_exec: filename=$T/$E" "$T/fte.wk")
	[ "$n" = 6 ] && [ "$k" = 3 ] && cmp -s "$T/fte.wk" "$T/ftp.wk" &&
		pass "the workload's 3 execs and 6 signals: the same through both engines, pid and comm too" ||
		fail "the workload's execs and signals through both engines" "$k execs, $n signals; $(diff "$T/fte.wk" "$T/ftp.wk" | head -4)"
	# every reader of the matrix: the same facts through both engines
	readers_up "$T" "$T/readers.log" >/dev/null
	for v in $READERS; do
		[ $v = host ] && continue
		for x in fte ftp; do
			rperf $v script -i "$T/$x.out" -F comm,tid,pid,cpu,time,event,trace --ns 2>/dev/null >"$T/$x.$v"
			grep "$E" "$T/$x.$v" | grep -E 'signal_generate|sched_process_exec' | awk '{ $4 = ""; print }' >"$T/$x.$v.wk"
		done
		set -- $(python3 "$T/ftcmp.py" "$T/fte.$v" "$T/ftp.$v")
		[ "${1:-0}" -gt 20 ] && [ -z "${3:-}" ] && [ -s "$T/fte.$v.wk" ] && cmp -s "$T/fte.$v.wk" "$T/ftp.$v.wk" &&
			pass "perf $(rlabel $v): both engines' dumps decode to the same $1 sched_switch and the workload's $(wc -l <"$T/fte.$v.wk") execs and signals" ||
			fail "perf $(rlabel $v): both engines' dumps decode the same" "$*; $(diff "$T/fte.$v.wk" "$T/ftp.$v.wk" | head -3)"
	done
	check "ftrace engine: times in order, merged with cpu-clock" monotonic "$T/fte.out"
	n=$(grep -c 'cpu-clock' "$T/fte.txt")
	[ "$n" -gt 0 ] && pass "cpu-clock stays on perf rings beside it ($n samples)" || fail "cpu-clock beside the ftrace engine" "none"
	[ ! -d "$INST/tracer.$TPID" ] && pass "the instance is gone after SIGINT" ||
		fail "the instance is gone after SIGINT" "$(ls "$INST")"
	}

	# A stream: each ftrace record once, though the ring is read whole.
	if start_tracer "$T/fts" "sched:sched_switch signal:signal_generate buf=1m"; then
		for i in 1 2 3; do
			run_work "${E}s$i" sleep 10 signal; wait $WPID
			dump_wait "$T/fts" $i >/dev/null
		done
		stop_tracer >/dev/null
		perf script -i "$T/fts.out" -F cpu,time,event,trace --ns 2>/dev/null >"$T/fts.txt"
		n=$(grep -c "signal_generate: .*comm=${E}s" "$T/fts.txt")
		k=$(sort "$T/fts.txt" | uniq -d | wc -l)
		[ "$n" = 3 ] && [ "$k" = 0 ] && pass "a 4-dump stream sends each ftrace record once ($(wc -l <"$T/fts.txt") records)" ||
			fail "a stream sends each ftrace record once" "$n signals of 3, $k repeated"
	fi

	# SIGKILLed: its instance stays; the next tracer removes it (only
	# ours: marked, and held by no tracer), and leaves others alone:
	# another tool's, and an idle tracer.N of someone else's whose pid
	# N no process has.
	mkdir -p "$INST/${E}other"
	for n in $(seq 3000000 3000100); do [ -e /proc/$((n + RANDOM)) ] || break; done
	n=$((n + RANDOM)); mkdir "$INST/tracer.$n" 2>/dev/null || n=
	if start_tracer "$T/ftk" "sched:sched_switch"; then
		k=$TPID ki=$(iname "$T/ftk.err")
		kill -9 $k; wait $k 2>/dev/null
		[ -n "$ki" ] && [ -d "$INST/$ki" ] && pass "a SIGKILLed tracer leaves its instance ($ki)" ||
			fail "a SIGKILLed tracer leaves its instance" "'$ki': $(ls "$INST")"
		if start_tracer "$T/ftk2" "sched:sched_switch"; then
			[ ! -d "$INST/$ki" ] && grep -q "removed instances/$ki: its tracer was killed" "$T/ftk2.err" &&
				pass "the next tracer removes it, and says so" ||
				fail "the next tracer removes a killed one's instance" "$(ls "$INST"); $(cat "$T/ftk2.err")"
			[ -d "$INST/${E}other" ] && pass "another tool's instance is left alone" ||
				fail "another tool's instance is left alone" "$(ls "$INST")"
			[ -z "$n" ] || { [ -d "$INST/tracer.$n" ] && pass "someone else's idle tracer.$n (no such pid) is left alone" ||
				fail "someone else's idle tracer.$n (no such pid) is left alone" "$(cat "$T/ftk2.err")"; }
			# a running tracer's instance is not taken for a stale one
			k=$TPID ki=$(iname "$T/ftk2.err")
			start_tracer "$T/ftk3" "sched:sched_switch" && {
				[ -d "$INST/$ki" ] && pass "a running tracer's instance is left to it" ||
					fail "a running tracer's instance is left to it" "$(ls "$INST")"
				stop_tracer >/dev/null; }
			kill -INT $k; wait $k
		fi
	fi
	rmdir "$INST/${E}other" 2>/dev/null
	[ -z "$n" ] || rmdir "$INST/tracer.$n" 2>/dev/null

	# A killed tracer's pid taken by another process (made so with
	# ns_last_pid, in a pid namespace of our own): its instance is
	# stale all the same.
	if unshare -fp --mount-proc true 2>/dev/null; then
		TRACER=$TRACER W=$T unshare -fp --mount-proc bash -c '
			up() { for i in $(seq 100); do grep -q recording $1 && return 0; sleep 0.1; done; return 1; }
			"$TRACER" -o $W/ftu1.out "sched:sched_switch engine=ftrace" 2>$W/ftu1.err & k=$!
			up $W/ftu1.err; kill -9 $k; wait $k 2>/dev/null
			echo $((k - 1)) >/proc/sys/kernel/ns_last_pid
			sleep 100 & s=$!
			"$TRACER" -o $W/ftu2.out "sched:sched_switch engine=ftrace" 2>$W/ftu2.err & b=$!
			up $W/ftu2.err; kill -INT $b; wait $b
			kill $s; echo "$k $s"' >"$T/ftu.pids" 2>/dev/null
		set -- $(cat "$T/ftu.pids"); ki=$(iname "$T/ftu1.err")
		if [ -z "$ki" ] || [ "${1:-x}" != "${2:-y}" ]; then
			skip "a killed tracer's pid reused" "pids '$*', instance '$ki': $(cat "$T/ftu1.err")"
		else
			[ ! -d "$INST/$ki" ] && grep -q "removed instances/$ki: its tracer was killed" "$T/ftu2.err" &&
				pass "a killed tracer's instance whose pid $1 a live process took is removed ($ki)" ||
				fail "a killed tracer's instance whose pid a live process took is removed" "$ki: $(cat "$T/ftu2.err")"
			rmdir "$INST/$ki" 2>/dev/null
		fi

		# Two tracers of pid 1 in two pid namespaces: both in an
		# instance of their own, neither's taken for stale. (engine=
		# ftrace: in a pid namespace tracepoints go to perf rings by
		# default, t_names; ftrace's pids are the host's.)
		for x in 1 2; do
			unshare -fp --mount-proc "$TRACER" -o "$T/ftn$x.out" "sched:sched_switch signal:signal_generate buf=2m engine=ftrace" 2>"$T/ftn$x.err" &
			eval N$x=$!
			wait_line "$T/ftn$x" recording >/dev/null
		done
		a=$(iname "$T/ftn1.err") b=$(iname "$T/ftn2.err")
		[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && [ -d "$INST/$a" ] && [ -d "$INST/$b" ] &&
			pass "two tracers of pid 1 in two pid namespaces: each in an ftrace instance of its own ($a, $b)" ||
			fail "two tracers in two pid namespaces: each in an ftrace instance" "$(cat "$T/ftn1.err" "$T/ftn2.err")"
		run_work "${E}n" signal; wait $WPID
		# both at once, so neither records on while the other writes
		# (a busy machine's switches would push the signal out)
		kill -INT $(pgrep -P $N1) $(pgrep -P $N2); wait $N1 $N2
		n=$(for x in 1 2; do perf script -i "$T/ftn$x.out" 2>/dev/null | grep -c "signal_generate: .*comm=${E}n"; done)
		testing "both record the workload's signal" "1 1" "$(echo $n)"
		[ -n "$a$b" ] && [ ! -d "$INST/$a" ] && [ ! -d "$INST/$b" ] && pass "both instances gone at their exits" ||
			fail "both instances gone at their exits" "$(ls "$INST")"
	else
		skip "tracers in pid namespaces" "unshare -fp --mount-proc fails here"
	fi

	# Tracepoints the instance refuses: ftrace's own events (no enable
	# file). A glob's are left out, one line each, the others stay in
	# the instance; a named one is an error naming it.
	if [ -d "${INST%/instances}/events/ftrace/print" ]; then
		if start_tracer "$T/ftg" "sched:sched_switch ftrace:*"; then
			stop_tracer >/dev/null
			grep -q "ftrace:print: left out, the ftrace instance refuses it: $INST/tracer[.0-9]*/events/ftrace/print/enable: No such file" "$T/ftg.err" &&
				grep -q "(1 tracepoints in ftrace instance" "$T/ftg.err" && ! grep -q "perf rings:" "$T/ftg.err" &&
				pass "sched:sched_switch ftrace:*: ftrace's own events left out, naming the file; sched_switch in the instance" ||
				fail "a glob's ftrace:print left out, the others in the instance" "$(cat "$T/ftg.err")"
		else
			fail "a glob's ftrace:print left out, the others in the instance" "$(cat "$T/ftg.err")"
		fi
		out=$("$TRACER" -o "$T/ftp1.out" "sched:sched_switch ftrace:print" 2>&1 </dev/null); rc=$?
		case "$rc:$out" in 1:*"'ftrace:print' at 20: the ftrace instance refuses it: $INST/tracer."*"/events/ftrace/print/enable: No such file or directory")
			pass "sched:sched_switch ftrace:print: exit 1 naming the event and the file it refused" ;;
		*) fail "a named ftrace:print: exit 1 naming the event and the file" "rc=$rc: $out" ;; esac
		k=$(echo "$out" | sed -n 's/.*instances\/\(tracer[.0-9]*\)\/.*/\1/p')
		[ -n "$k" ] && [ ! -d "$INST/$k" ] && pass "its instance is removed ($k)" || fail "its instance is removed" "'$k': $(ls "$INST")"
		# every tracepoint: all but ftrace's own in the instance
		if start_tracer "$T/fta" "*:*"; then
			stop_tracer >/dev/null; rc=$?
			n=$(sed -n 's/.*(\([0-9]*\) tracepoints in ftrace instance.*/\1/p' "$T/fta.err")
			k=$(grep -c "left out, the ftrace instance refuses it: $INST/tracer[.0-9]*/events/ftrace/" "$T/fta.err")
			[ "$rc" = 0 ] && [ "${n:-0}" -gt 100 ] && [ "$k" -ge 1 ] && ! grep -q "perf rings:" "$T/fta.err" &&
				pass "*:*: $n tracepoints in the instance, $k of ftrace's own left out, exit 0" ||
				fail "*:* in the instance" "rc=$rc: $(grep -v 'left out' "$T/fta.err")"
		else
			fail "*:* in the instance" "$(head -5 "$T/fta.err")"
			stop_tracer >/dev/null 2>&1
		fi
	else
		skip "tracepoints the instance refuses" "no ftrace:print here"
	fi

	# The top-level buffer, someone else's: its settings and its records
	# stay as they were while we record.
	TOPD=${INST%/instances}
	# (its buffer is not cleared, and its event is put back as it was: the
	# workload's name is unique)
	if [ -w "$TOPD/events/sched/sched_switch/enable" ] && [ "$(cat "$TOPD/tracing_on")" = 1 ]; then
		en0=$(cat "$TOPD/events/sched/sched_switch/enable")
		echo 1 >"$TOPD/events/sched/sched_switch/enable"
		was="$(cat "$TOPD/trace_clock" "$TOPD/buffer_size_kb" "$TOPD/tracing_on" "$TOPD/events/sched/sched_switch/enable")"
		if start_tracer "$T/ftt" "sched:sched_switch"; then
			run_work "${E}t" sleep 20; wait $WPID
			stop_tracer >/dev/null
			n=$(grep -c "prev_comm=${E}t " "$TOPD/trace")
			[ "$n" -gt 0 ] && pass "the top-level buffer records on beside us ($n of the workload's switches)" ||
				fail "the top-level buffer records on beside us" "none of ${E}t's switches in $TOPD/trace"
		fi
		now="$(cat "$TOPD/trace_clock" "$TOPD/buffer_size_kb" "$TOPD/tracing_on" "$TOPD/events/sched/sched_switch/enable")"
		echo "$en0" >"$TOPD/events/sched/sched_switch/enable"
		testing "the top-level trace_clock, buffer_size_kb, tracing_on and events as they were" "$was" "$now"
	fi

	# Where no instance can be made (tracefs read-only here), tracepoints
	# go to perf rings, and tracer says so once.
	if unshare -m --propagation private true 2>/dev/null; then
		unshare -m --propagation private sh -c "mount -o remount,bind,ro '$TOPD' && exec '$TRACER' -o '$T/ftr.out' 'sched:sched_switch signal:signal_generate'" \
			>/dev/null 2>"$T/ftr.err" & TPID=$!
		wait_line "$T/ftr" "recording" >/dev/null
		run_work "${E}r" signal; wait $WPID
		stop_tracer >/dev/null
		n=$(perf script -i "$T/ftr.out" 2>/dev/null | grep -c "signal_generate: .*comm=${E}r")
		[ "$(grep -c 'tracepoints go to perf rings' "$T/ftr.err")" = 1 ] && [ "$n" = 1 ] &&
			pass "a read-only tracefs: tracepoints on perf rings, said once, recorded" ||
			fail "a read-only tracefs: tracepoints on perf rings" "$n signals; $(cat "$T/ftr.err")"
	else
		skip "a read-only tracefs" "no private mount namespace here"
	fi
fi
# Nothing left in the kernel: two tracers side by side, then perf's
# sched_switch samples still come straight from __schedule (a probe left
# on sched_switch makes the tracepoint go through __traceiter_*: the
# kernel's record-tgid did that, once per pair of tracers, for good).
ftip() {	# the kernel symbol of a sched_switch sample's IP
	perf record -q -a -e sched:sched_switch -o "$T/ftip.data" sleep 0.2 >/dev/null 2>&1
	perf report -i "$T/ftip.data" --stdio --sort sym 2>/dev/null | sed -n 's/.*\[k\] \([a-z_]*\).*/\1/p' | head -1
}
ip0=$(ftip)
if [ -d "$INST" ] && [ "$ip0" = __schedule ]; then
	start_tracer "$T/ftl1" "sched:sched_switch signal:signal_generate" && L1=$TPID &&
	start_tracer "$T/ftl2" "sched:sched_switch sched:sched_wakeup" && L2=$TPID && {
		kill -INT $L1; wait $L1; kill -INT $L2; wait $L2
		testing "two tracers side by side leave no probe on sched_switch (perf's samples from __schedule)" "__schedule" "$(ftip)"
	}
else
	skip "no probe left on sched_switch" "perf's sched_switch samples come from '${ip0:-nothing}' before we start, not __schedule: another probe is there already"
fi
# (only this file's: other tracers run beside)
[ -d "$INST" ] && testing "none of this file's instances is left" "" \
	"$(for p in $TRACERS; do ls -d "$INST/tracer.$p" "$INST/tracer.$p".* 2>/dev/null; done; ls -d "$INST/$E"* 2>/dev/null)"
