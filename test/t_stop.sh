# Stops as service managers and timeout(1) send them, and descriptors
# an init script left closed: the final dump is written, every time.

# slow.py FIFO OUT RATE: read FIFO into OUT at about RATE bytes a second
# (a slow link), until the writer closes it. It has the fifo open when
# it prints "open", before any writer comes.
cat >"$T/slow.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
print("open", flush=True)
rate, got = int(sys.argv[3]), False
with open(sys.argv[2], "wb") as out:
    while True:
        try:
            b = os.read(fd, rate // 20)
        except BlockingIOError:
            b = None
        if b == b"" and got:
            break
        if b:
            got = True
            out.write(b)
            out.flush()
        time.sleep(0.05)
PY
# slow_reader: slow.py on $T/s3.fifo, running and with the fifo open
slow_reader() {
	rm -f "$T/s3"*; mkfifo "$T/s3.fifo"
	python3 "$T/slow.py" "$T/s3.fifo" "$T/s3.out" 131072 >"$T/s3.open" & SR=$!; WORKS="$WORKS $SR"
	for i in $(seq 100); do [ -s "$T/s3.open" ] && break; sleep 0.1; done
}

# st_decodes NAME FILE WORKLOAD ERR: the final dump was written whole, and
# perf decodes it with the workload that ran before the stop: its exec,
# or (when other activity wrapped the rings since) its COMM from the
# process table, which a dump carries whatever the rings still hold
st_decodes() {
	local n
	n=$(perf script -i "$2" --show-task-events 2>/dev/null | grep -c -e "filename=$T/$3 " -e "PERF_RECORD_COMM.* $3:[0-9]")
	grep -q "dump [0-9]* (exit): .* bytes" "$4" && [ "$n" -gt 0 ] &&
		pass "$1: the final dump is written, perf decodes $3 (its exec or its COMM)" ||
		fail "$1: the final dump is written, perf decodes $3" "$n execs or COMMs; $(tail -2 "$4")"
}

w=stop$$; w=${w:0:12}
cp "$T/work" "$T/$w"

# --- 1. SIGTERM then SIGCONT, as systemd and timeout(1) send them ---
rm -f "$T/s1"*
if start_tracer "$T/s1" -o "$T/s1.data" 'sched:sched_process_exec'; then
	"$T/$w" spin 20
	kill -TERM $TPID; kill -CONT $TPID
	wait_rc $TPID 20
	testing "SIGTERM then SIGCONT: exit 0" 0 "$RC"
	st_decodes "SIGTERM then SIGCONT" "$T/s1.data" "$w" "$T/s1.err"
fi

# --- 2. timeout -s INT and timeout (SIGTERM): tracer's own status ---
for sig in INT TERM; do
	rm -f "$T/s2.data"*
	(sleep 2; "$T/$w" spin 20) &
	timeout --preserve-status -s $sig 3 "$TRACER" -o "$T/s2.data" 'sched:sched_process_exec' 2>"$T/s2.err"
	RC=$?; wait
	testing "timeout -s $sig: exit 0" 0 "$RC"
	st_decodes "timeout -s $sig" "$T/s2.data" "$w" "$T/s2.err"
done

# --- 3. a slow final dump (a fifo read at 128 KB/s): SIGUSR2, SIGCONT and
# SIGUSR1 during it end nothing; a second SIGTERM from another process
# still does. Only the
# workload's closes fill the rings, so what else runs does not push its
# exec out. ---
slow_reader
if start_tracer "$T/s3" -o "$T/s3.fifo" 'sched:sched_process_exec syscalls:sys_enter_close/fd>=100000/ buf=256k'; then
	"$T/work" close 200000 & W=$!; "$T/work" close 200000; wait $W
	"$T/$w" spin 20
	kill -INT $TPID
	wait_line "$T/s3" "SIGINT: the final dump" >/dev/null
	sleep 0.5
	kill -USR2 $TPID; sleep 0.1; kill -CONT $TPID; sleep 0.1; kill -USR1 $TPID
	wait_rc $SR 20; wait_rc $TPID 20
	if grep -q "dump 1 (exit): .* wrote in [0-9]\{6,\} us" "$T/s3.err"; then
		testing "SIGUSR2, SIGCONT, SIGUSR1 during a slow final dump: exit 0" 0 "$RC"
		st_decodes "SIGUSR2, SIGCONT, SIGUSR1 during a slow final dump" "$T/s3.out" "$w" "$T/s3.err"
	else
		fail "a final dump slow enough (1 s or more) to signal during it" "rc=$RC $(tail -2 "$T/s3.err")"
	fi
fi
slow_reader
if start_tracer "$T/s3" -o "$T/s3.fifo" 'sched:sched_process_exec syscalls:sys_enter_close/fd>=100000/ buf=256k'; then
	"$T/work" close 200000 & W=$!; "$T/work" close 200000; wait $W
	kill -TERM $TPID
	wait_line "$T/s3" "SIGTERM: the final dump" >/dev/null
	# the same signal from the same process: the same request (timeout(1)
	# sends it to tracer, then to its process group)
	sleep 0.5; kill -TERM $TPID; sleep 0.3
	kill -0 $TPID && ! grep -q "exiting before" "$T/s3.err" &&
		pass "SIGTERM again from the same process: the same request, the dump goes on" ||
		fail "SIGTERM again from the same process: the same request, the dump goes on" "$(tail -2 "$T/s3.err")"
	/bin/kill -TERM $TPID	# another process: a second request
	wait_rc $SR 20; wait_rc $TPID 20
	grep -q "SIGTERM: exiting before the final dump is written" "$T/s3.err" && [ "$RC" = 1 ] &&
		pass "a second SIGTERM (another sender) during the final dump: exit 1 at once" ||
		fail "a second SIGTERM (another sender) during the final dump: exit 1 at once" "rc=$RC $(tail -2 "$T/s3.err")"
fi

# --- 4. a failed final dump says the history is lost ---
if start_tracer "$T/s4" -o /dev/full 'sched:sched_switch'; then
	kill -INT $TPID; wait_rc $TPID 20
	grep -q "dump 1 (exit): writing /dev/full failed: the history is lost" "$T/s4.err" && [ "$RC" = 1 ] &&
		pass "a final dump that fails says the history is lost, exit 1" ||
		fail "a final dump that fails says the history is lost, exit 1" "rc=$RC $(tail -1 "$T/s4.err")"
fi

# --- 5. descriptors 0-2 closed at start ---
out=$(timeout 10 "$TRACER" 'sched:sched_switch' 2>&1 >&-); RC=$?
case "$RC:$out" in 2:*"stdout is closed"*"-o FILE"*) pass "stdout closed, no -o: says so, exit 2" ;;
*) fail "stdout closed, no -o: says so, exit 2" "rc=$RC $out" ;; esac
for fds in '<&-' '>&-' '<&- >&-' '<&- >&- 2>&-'; do
	rm -f "$T/s5"*
	eval "exec \"\$TRACER\" -o \"\$T/s5.data\" 'sched:sched_process_exec' $fds" 2>"$T/s5.err" & TPID=$!
	TRACERS="$TRACERS $TPID"
	sleep 1
	"$T/$w" spin 20
	kill -USR2 $TPID
	for i in $(seq 50); do [ -s "$T/s5.data" ] && break; sleep 0.1; done
	sleep 0.3
	kill -INT $TPID; wait_rc $TPID 20
	n=$(perf script -i "$T/s5.data" 2>/dev/null | grep -c "filename=$T/$w ")
	[ "$RC" = 0 ] && [ -s "$T/s5.data.1" ] && [ "$n" -gt 0 ] &&
		pass "started with $fds: SIGUSR2 and SIGINT each dump (perf decodes the exec of $w), exit 0" ||
		fail "started with $fds: SIGUSR2 and SIGINT each dump" "rc=$RC, $n execs; $(ls "$T" | grep s5 | tr '\n' ' '); $(tail -2 "$T/s5.err")"
done

# --- 6. the quick start's own stops: `make run` under timeout (make
# forwards the SIGTERM to tracer as well), and Ctrl-C on its terminal
# (SIGINT to make and tracer both) ---
rm -f "$T/s6"*
# the workload once tracer records, however long a busy machine makes that
(for i in $(seq 100); do grep -q recording "$T/s6.err" 2>/dev/null && break; sleep 0.1; done; "$T/$w" spin 20) &
timeout 12 make -s -C "$TOP" run RUNOUT="$T/s6.data" >"$T/s6.err" 2>&1; wait
st_decodes "timeout 12 make run" "$T/s6.data" "$w" "$T/s6.err"
! grep -q "exiting before" "$T/s6.err" && pass "timeout 12 make run: no second signal cuts the dump" ||
	fail "timeout 12 make run: no second signal cuts the dump" "$(tail -2 "$T/s6.err")"
cat >"$T/ctrlc.py" <<'PY'
import os, pty, select, sys, time
top, out = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execvp("make", ["make", "-s", "-C", top, "run", "RUNOUT=" + out])
buf, end = b"", time.time() + 60
def more(t):
    global buf
    if select.select([fd], [], [], t)[0]:
        try:
            b = os.read(fd, 4096)
        except OSError:
            return False
        buf += b
        return bool(b)
    return True
while b"recording" not in buf and time.time() < end:
    more(1)
os.spawnv(os.P_WAIT, sys.argv[3], sys.argv[3:])	# the workload, then Ctrl-C
time.sleep(0.3)
os.write(fd, b"\x03")
end = time.time() + 30
while time.time() < end and more(1):
    pass
os.waitpid(pid, 0)
sys.stdout.write(buf.decode(errors="replace"))
PY
rm -f "$T/s7"*
python3 "$T/ctrlc.py" "$TOP" "$T/s7.data" "$T/$w" spin 20 >"$T/s7.err"
st_decodes "Ctrl-C on make run's terminal" "$T/s7.data" "$w" "$T/s7.err"
! grep -q "exiting before" "$T/s7.err" && pass "Ctrl-C on make run's terminal: no second signal cuts the dump" ||
	fail "Ctrl-C on make run's terminal: no second signal cuts the dump" "$(tail -2 "$T/s7.err")"

# --- 8. stops while a dump waits on a reader that stalls or crawls: an
# ending signal is heard at once; the final dump then waits at most 5 s
# for a reader that takes nothing and 20 s in all (README: Stopping);
# tracer exits 1 saying so, and leaves no instance ---
# held FIFO: a reader that never reads (sleep holds the fifo open)
held() { rm -f "$1"; mkfifo "$1"; sleep 1000 7<>"$1" & WORKS="$WORKS $!"; HOLD=$!; }
# st_gone NAME LOG T0: tracer ($TPID) exited 1 within 20 s (+5 s for a
# busy machine) of T0 saying the final dump is lost, and its ftrace
# instance is gone
st_gone() {
	local el=$(($(date +%s) - $3)) fs
	fs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	[ "$RC" = 1 ] && [ "$el" -le 25 ] && grep -q "exiting before the final dump is written" "$2.err" &&
		{ [ -z "$fs" ] || [ ! -e "$fs/instances/tracer.$TPID" ]; } &&
		pass "$1: exit 1 in $el s, the loss said, no instance left" ||
		fail "$1: exit 1 within 20 s, the loss said, no instance left" "rc=$RC in $el s; $(tail -2 "$2.err" | tr '\n' ' ')"
}
# the issue's stop: SIGUSR2, then SIGINT, SIGINT, SIGTERM (the third, of
# another kind, is a second stop: at once); then SIGUSR2, SIGINT alone
# (5 s without a byte taken)
for sigs in "INT INT TERM" INT; do
	held "$T/s8.fifo"
	start_tracer "$T/s8" -o "$T/s8.fifo" 'sched:sched_switch syscalls:sys_enter_close/fd>=100000/ cpu-clock@99 buf=256k' || continue
	"$T/work" close 200000
	kill -USR2 $TPID; sleep 1
	for sig in $sigs; do kill -$sig $TPID; sleep 0.3; done
	t0=$(date +%s); wait_rc $TPID 40
	grep -q "SIGINT: the final dump, after dump 1" "$T/s8.err" &&
		pass "a stalled reader: SIGINT during dump 1 is heard at once" ||
		fail "a stalled reader: SIGINT during dump 1 is heard at once" "$(tail -2 "$T/s8.err" | tr '\n' ' ')"
	st_gone "a stalled reader, then SIGUSR2, $sigs" "$T/s8" "$t0"
	case $sigs in
	INT) grep -q "SIGINT: the reader took nothing for 5 s: exiting before" "$T/s8.err" ;;
	*) grep -q "SIGTERM: exiting before" "$T/s8.err" && [ $(($(date +%s) - t0)) -le 3 ] ;;
	esac && pass "a stalled reader, SIGUSR2, $sigs: $(grep -o 'SIG[A-Z]*[^(]*exiting' "$T/s8.err")" ||
		fail "a stalled reader, SIGUSR2, $sigs: the second kind at once, or 5 s idle" "$(tail -1 "$T/s8.err")"
	kill $HOLD 2>/dev/null
done

# a reader at 2 KB/s: a dump of 512 KiB would take minutes
rm -f "$T/s3"*; mkfifo "$T/s3.fifo"
python3 "$T/slow.py" "$T/s3.fifo" "$T/s3.out" 2048 >"$T/s3.open" & SR=$!; WORKS="$WORKS $SR"
for i in $(seq 100); do [ -s "$T/s3.open" ] && break; sleep 0.1; done
if start_tracer "$T/s9" -o "$T/s3.fifo" 'syscalls:sys_enter_close/fd>=100000/ buf=256k'; then
	"$T/work" close 200000 & W=$!; "$T/work" close 200000; wait $W
	kill -USR2 $TPID; sleep 2
	kill -TERM $TPID
	t0=$(date +%s); wait_rc $TPID 40
	grep -q "SIGTERM 20 s ago: exiting before the final dump is written" "$T/s9.err" &&
		pass "a 2 KB/s reader: tracer stops 20 s after SIGTERM, and says so" ||
		fail "a 2 KB/s reader: tracer stops 20 s after SIGTERM, and says so" "$(tail -1 "$T/s9.err")"
	st_gone "a 2 KB/s reader, then SIGUSR2, SIGTERM" "$T/s9" "$t0"
fi
kill $SR 2>/dev/null

# a tripwire's dump stalled on a fifo gives way to a pull after 10 s
PORT=$((20000 + ($$ + 7) % 20000))
held "$T/s10.fifo"
# (only this test's processes fill the rings and trip)
cp "$T/work" "$T/${w}c"
if start_tracer "$T/s10" -o "$T/s10.fifo" "sched:sched_process_exec syscalls:sys_enter_close/fd>=100000&&comm==\"${w}c\"/ buf=256k trip=signal:signal_generate/sig==10&&comm==\"${w}p\"/ listen=127.0.0.1:$PORT"; then
	"$T/${w}c" close 200000
	run_work "${w}p" spin 20 signal; wait $WPID
	wait_line "$T/s10" "dump 1 (trip" >/dev/null || sleep 1
	timeout 40 nc -d 127.0.0.1 $PORT >"$T/s10.pull" </dev/null
	n=$(perf script -i "$T/s10.pull" 2>/dev/null | grep -c "filename=$T/${w}p ")
	grep -q "dump 1 (trip.*given up: nothing read for 10 s, recording goes on" "$T/s10.err" && [ "$n" -gt 0 ] &&
		pass "a tripwire's dump stalled on a fifo: given up after 10 s, a pull served meanwhile (perf decodes its exec)" ||
		fail "a tripwire's dump stalled on a fifo: given up after 10 s, a pull served meanwhile" "$n execs; $(tail -2 "$T/s10.err" | tr '\n' ' ')"
	kill -TERM $TPID
	t0=$(date +%s); wait_rc $TPID 40
	st_gone "the final dump, on the stalled fifo" "$T/s10" "$t0"
fi
kill $HOLD 2>/dev/null
