# Recording and dumping, judged by host perf: a uniquely named workload
# must show up in the dump with its exec, comm, signal and samples.

W=wk$$x$RANDOM		# a comm nobody else has
W=${W:0:15}

# --- the default events, streamed to stdout (a file here); a ring big
# enough that a busy machine does not wrap it within the test ---
if start_tracer "$T/d" 'buf=4m'; then
	run_work "$W" spin 300 sleep 20 signal sleep 20 hold
	held $WPID
	dump_wait "$T/d" 1
	stop_tracer; testing "SIGINT: final dump, exit 0" 0 $?
	perf script -i "$T/d.out" >"$T/d.txt" 2>"$T/d.perr"
	check "default config: perf script exits 0" test -s "$T/d.txt"
	grep "sched:sched_process_exec" "$T/d.txt" | grep -q "filename=$T/$W " &&
		pass "sched_process_exec shows filename=" ||
		fail "sched_process_exec shows filename=" "$(grep process_exec "$T/d.txt" | head -3)"
	grep -E "^ *$W +$WPID " "$T/d.txt" | grep -q "sched:sched_switch" &&
		pass "workload comm on its sched_switch lines" ||
		fail "workload comm on its sched_switch lines" "$(grep "$W" "$T/d.txt" | head -3)"
	grep "signal:signal_generate" "$T/d.txt" | grep -q "sig=10 errno=0 code=0 comm=$W pid=$WPID" &&
		pass "signal_generate fields decode" ||
		fail "signal_generate fields decode" "$(grep signal_generate "$T/d.txt" | head -3)"
	check "timestamps never go backwards" monotonic "$T/d.out"
	n=$(grep -c 'cpu-clock:' "$T/d.txt")
	k=$(grep 'cpu-clock:' "$T/d.txt" | grep '\[kernel.kallsyms\]' | grep -vc '\[unknown\]')
	[ "$k" -gt 0 ] && pass "cpu-clock kernel symbols resolve ($k of $n)" ||
		fail "cpu-clock kernel symbols resolve" "$(grep cpu-clock: "$T/d.txt" | head -3)"
	grep -E "^ *$W +$WPID .*cpu-clock:" "$T/d.txt" | grep -q . &&
		pass "cpu-clock samples of the workload" || fail "cpu-clock samples of the workload"
	perf report -i "$T/d.out" --stdio >"$T/d.rep" 2>&1; testing "perf report exits 0" 0 $?
	grep -q "$W" "$T/d.rep" && pass "perf report shows the workload" || fail "perf report shows the workload"
	l=$(grep "dump 1 (signal):" "$T/d.err")
	case "$l" in *" bytes, "*" records, 2 CPUs, paused "*" us, wrote in "*" us"*) pass "dump line: bytes, records, CPUs, pause, write" ;;
	*) fail "dump line: bytes, records, CPUs, pause, write" "$l" ;; esac
	kill $WPID; wait $WPID 2>/dev/null	# gone before the next one, which has the same name
fi

# --- file mode: perf sched and perf inject need it ---
if start_tracer "$T/s" -o "$T/s.data" 'sched:sched_switch sched:sched_wakeup buf=4m'; then
	run_work "$W" spin 100 sleep 10 spin 50 sleep 10 hold
	held $WPID
	stop_tracer; testing "-o FILE: exit 0" 0 $?
	perf sched timehist -i "$T/s.data" >"$T/s.th" 2>&1
	grep -q "$W\[$WPID\]" "$T/s.th" && pass "perf sched timehist shows the workload" ||
		fail "perf sched timehist shows the workload" "$(head -5 "$T/s.th")"
	perf sched latency -i "$T/s.data" >"$T/s.lat" 2>&1; rc=$?
	grep -q "$W:$WPID" "$T/s.lat" && pass "perf sched latency shows the workload" ||
		fail "perf sched latency shows the workload" "rc=$rc $(head -5 "$T/s.lat"; keep "$T/s.data")"
	perf inject -i "$T/s.data" -o "$T/s.inj" >"$T/s.ilog" 2>&1 && [ -s "$T/s.inj" ] &&
		pass "perf inject -i FILE succeeds" || fail "perf inject -i FILE succeeds" "$(tail -3 "$T/s.ilog")"
	check "file mode: mode 0600" test "$(stat -c %a "$T/s.data")" = 600
	kill $WPID
fi

# --- an existing file is never overwritten: dumps go to FILE.1, FILE.2 ---
echo precious >"$T/p.data"
if start_tracer "$T/p" -o "$T/p.data" 'sched:sched_switch'; then
	dump_wait "$T/p" 1; stop_tracer
	testing "existing -o FILE is untouched" precious "$(cat "$T/p.data")"
	check "dumps go to FILE.1 then FILE.2" test -s "$T/p.data.1" -a -s "$T/p.data.2"
	check "FILE.2 decodes" perf script -i "$T/p.data.2"
fi

# --- through a pipe: tracer | perf script -i - ---
W2=${W:0:12}pip
cp "$T/work" "$T/$W2"
( "$TRACER" 'sched:sched_process_exec sched:sched_switch buf=2m' 2>"$T/pp.err" | perf script -i - >"$T/pp.txt" 2>&1 ) &
for i in $(seq 50); do grep -q recording "$T/pp.err" 2>/dev/null && break; sleep 0.1; done
"$T/$W2" sleep 10
TP=$(pgrep -f "^$TRACER sched:sched_process_exec")
kill -USR2 $TP; sleep 0.5; kill -INT $TP; wait
grep -q "filename=$T/$W2" "$T/pp.txt" && pass "tracer | perf script -i - decodes" ||
	fail "tracer | perf script -i - decodes" "$(head -3 "$T/pp.txt")"

# --- two dumps on one stream: one valid stream, no record twice ---
if start_tracer "$T/two" 'sched:sched_process_exec sched:sched_switch signal:signal_generate buf=2m'; then
	run_work "${W:0:12}one" signal; wait $WPID
	dump_wait "$T/two" 1
	run_work "${W:0:12}two" signal; wait $WPID
	dump_wait "$T/two" 2
	stop_tracer
	perf script -i "$T/two.out" --ns >"$T/two.txt" 2>"$T/two.perr"
	check "two dumps: the stream decodes" test -s "$T/two.txt"
	check "two dumps: first dump's events" grep -q "filename=$T/${W:0:12}one" "$T/two.txt"
	check "two dumps: second dump's events" grep -q "filename=$T/${W:0:12}two" "$T/two.txt"
	d=$(sort "$T/two.txt" | uniq -d | wc -l)
	testing "two dumps: no duplicated records" 0 "$d"
	check "two dumps: timestamps never go backwards" monotonic "$T/two.out"
fi

# --- no blind window: a stream of dumps taken while a workload makes
# numbered syscalls holds every one, entry then exit, across all dumps
# (a ring or an instance paused for a copy drops what comes meanwhile)
# on both engines, and on forward perf rings drained into tracer's own
# (OLDKERNEL, as before 4.7; forced here by TRACER_FORWARD). Its own
# syscalls, at a rate the rings hold between dumps (each dump line says
# so) ---
W=bw$$x$RANDOM; W=${W:0:15}; cp "$T/work" "$T/$W"
hooked
for eng in ftrace perf forward; do
	if [ $eng = forward ]; then
		[ -x "$HOOKED" ] || { fail "a build with OLDKERNEL and TESTHOOKS" "$(tail -3 "$T/kc-hooks.log")"; continue; }
		TRACER=$HOOKED TRACER_FORWARD=1 start_tracer "$T/bw$eng" "raw_syscalls:*/comm==\"$W\"/ buf=8m engine=perf" || continue
		grep -q "perf rings forward" "$T/bw$eng.err" || fail "TRACER_FORWARD=1: the start line says forward rings" "$(cat "$T/bw$eng.err")"
	else
		start_tracer "$T/bw$eng" "raw_syscalls:*/comm==\"$W\"/ buf=8m engine=$eng" || continue
	fi
	"$T/$W" pclose 200000 & P=$!
	i=0
	while kill -0 $P 2>/dev/null && [ $i -lt 40 ]; do i=$((i + 1)); sleep 0.1; dump_wait "$T/bw$eng" $i >/dev/null; done
	wait $P
	stop_tracer >/dev/null
	w=$(grep -c "dump .*covers all since the \(last dump\|start\)" "$T/bw$eng.err")
	set -- $(perf script -i "$T/bw$eng.out" -F tid,event,trace 2>/dev/null | awk -v p=$P -f test/closeseq.awk)
	if [ "$w" -le $i ]; then
		skip "$eng engine: no record lost across $i dumps" "$((i + 1 - w)) of $((i + 1)) dumps wrapped (a slow machine): nothing to judge"
	else
		testing "$eng engine: no record lost across $i dumps (entries, first, last, gaps, breaks)" \
			"200000 100000 299999 0 0" "$*"
	fi
done

# --- a small ring keeps the newest events, not the oldest ---
# The workload closes fds 100000..100999 on CPU 0; an 8k ring holds only
# the last few dozen: they must be a contiguous run ending at the last.
if [ -d /sys/kernel/tracing/events/syscalls/sys_enter_close ]; then
	if start_tracer "$T/b" 'syscalls:sys_enter_close/fd>=100000 && fd<101000/ buf=8k cpus=0'; then
		taskset -c 0 "$T/work" close 1000
		dump_wait "$T/b" 1; stop_tracer
		perf script -i "$T/b.out" 2>/dev/null | sed -n 's/.*fd: 0x\([0-9a-f]*\).*/\1/p' |
			while read -r h; do echo $((16#$h - 100000)); done >"$T/b.fds"
		n=$(wc -l <"$T/b.fds"); first=$(head -1 "$T/b.fds"); last=$(tail -1 "$T/b.fds")
		if [ "$n" -gt 10 ] && [ "$n" -lt 1000 ] && [ "$last" = 999 ] &&
		   [ $((last - first + 1)) = "$n" ] && [ "$(sort -n "$T/b.fds")" = "$(cat "$T/b.fds")" ]; then
			pass "small buf: newest $n of 1000 kept, in order"
		else
			fail "small buf: newest kept" "n=$n first=$first last=$last"
		fi
	fi
else
	skip "small buf keeps the newest" "no syscalls:sys_enter_close tracepoint in this kernel"
fi

# --- the issue's commands, verbatim ---
for cfg in "" 'sched:sched_switch sched:sched_process_exec cpu-clock@99 buf=512k' \
	'raw_syscalls:sys_enter/id==3/ buf=64k'; do
	if start_tracer "$T/v" ${cfg:+"$cfg"}; then
		"$T/work" close 5 sleep 50
		stop_tracer >/dev/null
		perf script -i "$T/v.out" >"$T/v.txt" 2>/dev/null && [ -s "$T/v.txt" ] &&
			pass "tracer ${cfg:+'$cfg'} dumps what perf decodes" || fail "tracer '$cfg' dumps what perf decodes"
	fi
done
# the filter really filters: every sys_enter is close (3 on x86_64)
if [ "$(uname -m)" = x86_64 ]; then
	n=$(grep -c 'raw_syscalls:sys_enter' "$T/v.txt"); k=$(grep 'raw_syscalls:sys_enter' "$T/v.txt" | grep -c 'NR 3 ')
	[ "$n" -gt 0 ] && [ "$n" = "$k" ] && pass "raw_syscalls filter id==3 keeps only close ($n)" ||
		fail "raw_syscalls filter id==3" "$n lines, $k with NR 3"
fi
rm -f "$T/x.data"
if start_tracer "$T/x" -o "$T/x.data" 'sched:*'; then
	stop_tracer >/dev/null
	check "tracer -o FILE 'sched:*' decodes" perf script -i "$T/x.data"
fi

# --- a dead sink is reported and recording goes on ---
( "$TRACER" 'sched:sched_switch' 2>"$T/e.err" | head -c 1 >/dev/null ) &
for i in $(seq 50); do grep -q recording "$T/e.err" 2>/dev/null && break; sleep 0.1; done
TP=$(pgrep -f "^$TRACER sched:sched_switch$")
kill -USR2 $TP; sleep 0.5; kill -USR2 $TP; sleep 0.5
grep -q "dump 2 (signal): writing stdout failed, recording goes on: Broken pipe" "$T/e.err" &&
	kill -0 $TP 2>/dev/null && pass "EPIPE is reported and recording goes on" ||
	fail "EPIPE is reported and recording goes on" "$(cat "$T/e.err")"
kill -INT $TP 2>/dev/null; wait

# --- idle means idle: no wake-ups while nothing is sent ---
if start_tracer "$T/i"; then
	idle_check "idle 5 s: voluntary context switches do not grow" 5
	grep -q "State:.*S (sleeping)" /proc/$TPID/status && pass "idle: asleep" || fail "idle: asleep"
	stop_tracer >/dev/null
fi

# --- a second SIGINT during the final dump exits at once ---
# The sink is a FIFO whose reader never reads, so the final dump blocks
# once the pipe buffer is full.
mkfifo "$T/fifo"
sleep 60 <"$T/fifo" & SL=$!
"$TRACER" 'raw_syscalls:sys_enter buf=1m' >"$T/fifo" 2>"$T/q.err" & TPID=$!
TRACERS="$TRACERS $TPID"
wait_line "$T/q" recording >/dev/null
"$T/work" close 30000
kill -INT $TPID; sleep 0.5
if kill -0 $TPID 2>/dev/null; then
	/bin/kill -INT $TPID; sleep 0.5	# from another process, after the stop's 200 ms
	kill -0 $TPID 2>/dev/null && fail "second SIGINT during a blocked dump exits at once" ||
		pass "second SIGINT during a blocked dump exits at once"
else
	fail "second SIGINT during a blocked dump exits at once" "the final dump did not block: $(cat "$T/q.err")"
fi
kill $SL 2>/dev/null; wait 2>/dev/null

# --- stack: kernel callchains decode ---
if start_tracer "$T/k" 'sched:sched_switch stack'; then
	"$T/work" sleep 20
	stop_tracer >/dev/null
	perf script -i "$T/k.out" >"$T/k.txt" 2>/dev/null
	grep -A3 'sched:sched_switch' "$T/k.txt" | grep -qE '^\s+[0-9a-f]+ (__schedule|schedule)' &&
		pass "stack: kernel callchains resolve" || fail "stack: kernel callchains resolve" "$(head -5 "$T/k.txt")"
fi

# --- layouts: by default (lean) the kernel writes less and the dump puts
# CPU, IP and period back; `full` has the kernel write perf's layout.
# Either way perf must see the same fields, and the CPU a record shows
# must be the one it happened on: a workload pinned to the last CPU.
# tp: lean with tracepoints alone, each once, so the kernel writes
# no IDENTIFIER either; the dump names each record's event by the
# tracepoint id its raw data starts with.
# These are perf's layouts: engine=perf (ft: the default engine, its
# tracepoints in an ftrace instance, beside cpu-clock on perf rings).
LAST=$(($(nproc) - 1))
for lay in lean full tp ft; do
	kw=engine=perf; [ $lay = full ] && kw="full $kw"; [ $lay = ft ] && kw=
	evs="sched:sched_switch signal:signal_generate cpu-clock@199"; [ $lay = tp ] && evs="sched:sched_switch signal:signal_generate"
	start_tracer "$T/$lay" "$evs $kw buf=2m" || continue
	cp "$T/work" "$T/${W:0:10}$lay"
	taskset -c $LAST "$T/${W:0:10}$lay" spin 200 signal sleep 10 hold & WPID=$!; WORKS="$WORKS $WPID"
	held $WPID
	dump_wait "$T/$lay" 1
	kill $WPID
	stop_tracer >/dev/null
	perf script -i "$T/$lay.out" >"$T/$lay.txt" 2>/dev/null
	grep "signal_generate" "$T/$lay.txt" | grep -q "sig=10 errno=0 code=0 comm=${W:0:10}$lay pid=$WPID" &&
		pass "$lay: tracepoint fields decode" || fail "$lay: tracepoint fields decode"
	n=$(perf script -i "$T/$lay.out" -F cpu 2>/dev/null | sort -u | wc -l)
	[ "$n" -ge 2 ] && pass "$lay: records of every CPU ($n CPUs)" || fail "$lay: records of every CPU" "$n"
	# samples in its own spin loop only: between the fork and taskset's
	# sched_setaffinity the same pid ran unpinned
	if [ $lay = tp ]; then
		# after taskset's exec: its switches out, and the signal it sends itself
		cpus=$(perf script -i "$T/$lay.out" -F cpu,event,trace 2>/dev/null |
			awk -v c="prev_comm=${W:0:10}$lay" -v s="sig=10 errno=0 code=0 comm=${W:0:10}$lay pid=$WPID" \
			'($2 ~ /sched_switch/ && $3 == c) || ($2 ~ /signal_generate/ && index($0, s)) { print $1 }' |
			sort -u | tr -d '[]\n')
		testing "$lay: tracepoints of a workload pinned to CPU $LAST show that CPU" "$(printf %03d $LAST)" "$cpus"
		n=$(perf script -i "$T/$lay.out" -F event 2>/dev/null | sort | uniq -c | awk '{ print $2 }' | tr '\n' ' ')
		testing "$lay: both events named" "sched:sched_switch: signal:signal_generate: " "$n"
		grep -q 'no ids' "$T/$lay.err" && pass "$lay: the kernel writes no ids" ||
			fail "$lay: the kernel writes no ids" "$(head -1 "$T/$lay.err")"
		n=$(perf script -i "$T/$lay.out" -F pid,event,trace 2>/dev/null |
			awk -v s="sig=10 errno=0 code=0 comm=${W:0:10}$lay pid=$WPID" '$2 ~ /signal_generate/ && index($0, s) { print $1 }' | sort -u)
		testing "$lay: the signal's sample has the sender's pid" "$WPID" "$n"
		n=$(grep -c 'sched_switch' "$T/$lay.txt"); m=$(grep -c 'sched_switch: prev_comm=.* prev_pid=[0-9]* .*==> next_comm=' "$T/$lay.txt")
		[ "$n" -gt 0 ] && [ "$n" = "$m" ] && pass "$lay: every sched_switch decodes ($n)" ||
			fail "$lay: every sched_switch decodes" "$m of $n"
	else
	grep -q 'no ids' "$T/$lay.err" && fail "$lay: with cpu-clock too, the kernel writes ids" "$(head -1 "$T/$lay.err")"
	cpus=$(perf script -i "$T/$lay.out" -F pid,cpu,event,ip,sym 2>/dev/null |
		awk -v p=$WPID '$1 == p && $3 ~ /cpu-clock/ && /work_hot_loop/ { print $2 }' | sort -u | tr -d '[]\n')
	testing "$lay: samples of a workload pinned to CPU $LAST show that CPU" "$(printf %03d $LAST)" "$cpus"
	[ "$cpus" = "$(printf %03d $LAST)" ] ||
		perf script -i "$T/$lay.out" -F comm,pid,tid,cpu,time,event,ip,sym 2>/dev/null | grep -m5 "^ *${W:0:10}$lay .*\[0*[^$LAST]\].*work_hot_loop"
	grep -E "^ *${W:0:10}$lay +$WPID .*cpu-clock:.*work_hot_loop" "$T/$lay.txt" | grep -q . &&
		pass "$lay: cpu-clock samples keep IP and symbols" || fail "$lay: cpu-clock samples keep IP and symbols"
	fi
	p=$(perf script -i "$T/$lay.out" -F event,period 2>/dev/null | awk '/sched_switch/ { print $1 }' | sort -u | tr '\n' ' ')
	testing "$lay: tracepoint samples have period 1" "1 " "$p"
	check "$lay: timestamps never go backwards" monotonic "$T/$lay.out"
done
# One tracepoint twice (other filters): its common_type no longer says
# which event a record is, so the kernel writes ids again.
if start_tracer "$T/dup" 'sched:sched_switch sched:sched_switch/prev_pid==0/ signal:signal_generate buf=1m'; then
	"$T/work" spin 50 signal >/dev/null 2>&1
	stop_tracer >/dev/null
	n=$(perf script -i "$T/dup.out" -F event 2>/dev/null | grep -c 'sched:sched_switch:')
	m=$(perf script -i "$T/dup.out" 2>/dev/null | grep -c 'signal_generate: sig=10 ')
	! grep -q 'no ids' "$T/dup.err" && [ "$n" -gt 0 ] && [ "$m" -gt 0 ] &&
		pass "one tracepoint twice: ids written, $n sched_switch and $m signal_generate decode" ||
		fail "one tracepoint twice: ids written, records decode" "$n, $m; $(head -1 "$T/dup.err")"
fi
