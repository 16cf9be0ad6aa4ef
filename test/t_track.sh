# The tracking ring and process table: processes that exited before the
# dump keep their comm, binary and symbols; build-ids guard against the
# wrong binary; kernel symbols come from a copied kallsyms.

P=tk$$x$RANDOM; P=${P:0:15}	# a process that will be gone at dump time
cp "$T/work" "$T/$P"

# symreport DUMP [perf options]: "comm dso sym" of cpu-clock samples
# (an empty build-id cache: ~/.debug may hold the unstripped workload,
# which has the same build-id as every build of test/work.c)
symreport() {
	local f=$1; shift
	perf --buildid-dir "$T/nobid" report -i "$f" --stdio --sort comm,dso,sym "$@" 2>/dev/null |
		awk '/^ +[0-9.]+%/ { print $2, $3, $5 }'
}

# --- 1. an exited process, tracking off, then on ---
# After it is gone, more processes exit than the table holds (300 and a
# compile loop's, in 128 slots): the table gives up first those that
# lived least (their samples need their maps least), not it.
for procs in 0 128; do
	rm -f "$T/tk$procs.data"*
	start_tracer "$T/tk$procs" -o "$T/tk$procs.data" "sched:sched_switch cpu-clock@199 buf=2m procs=$procs" || continue
	(while :; do gcc -O1 -c -o "$T/tk.o" test/work.c; done) >/dev/null 2>&1 & CC=$!
	"$T/$P" spin 300 sleep 10
	for i in $(seq 300); do /bin/true; done
	kill $CC; wait $CC 2>/dev/null
	stop_tracer >/dev/null
done
symreport "$T/tk0.data" >"$T/tk0.rep"
grep -q "^$P " "$T/tk0.rep" && fail "procs=0: without tracking the exited process has no name" ||
	pass "procs=0: without tracking the exited process has no name (the problem)"
symreport "$T/tk128.data" >"$T/tk128.rep"
grep -q "^$P $P work_hot_loop$" "$T/tk128.rep" &&
	pass "tracking: exited process's samples -> its comm, binary and function" ||
	fail "tracking: exited process's samples -> comm, binary, function" "$(head -5 "$T/tk128.rep")"
perf script -i "$T/tk128.data" 2>/dev/null | grep -E "^ *$P +[0-9]+ .*sched:sched_switch" | grep -q "prev_comm=$P" &&
	pass "tracking: its comm on its sched_switch lines" || fail "tracking: its comm on its sched_switch lines"

# --- 2. stripped on the target, unstripped under --symfs; a wrong binary ---
mkdir -p "$T/target" "$T/symfs$T/target" "$T/wrong$T/target"
S=st$$x$RANDOM; S=${S:0:15}
cp "$T/work" "$T/symfs$T/target/$S"			# the unstripped copy, on the host
cp "$T/work" "$T/target/$S"; strip -s "$T/target/$S"	# what the board runs
printf 'int main(void) { return 0; }\n' >"$T/other.c"; gcc -O1 -g -o "$T/wrong$T/target/$S" "$T/other.c"
rm -f "$T/st.data"*
if start_tracer "$T/st" -o "$T/st.data" 'cpu-clock@199'; then
	"$T/target/$S" spin 300
	stop_tracer >/dev/null
	symreport "$T/st.data" >"$T/st.plain"
	grep -q "^$S $S work_hot_loop$" "$T/st.plain" && fail "stripped binary: no symbols without --symfs" "$(grep "^$S" "$T/st.plain")" ||
		pass "stripped binary: no symbols of its own"
	symreport "$T/st.data" --symfs="$T/symfs" >"$T/st.symfs"
	grep -q "^$S $S work_hot_loop$" "$T/st.symfs" && pass "--symfs with the unstripped copy: symbols resolve" ||
		fail "--symfs with the unstripped copy: symbols resolve" "$(grep "^$S" "$T/st.symfs")"
	symreport "$T/st.data" --symfs="$T/wrong" >"$T/st.wrong"
	if grep "^$S $S " "$T/st.wrong" | grep -qvE ' (\[\.\] )?(0x)?[0-9a-f]+$|unknown'; then
		fail "a different binary at that path: no wrong symbols" "$(grep "^$S" "$T/st.wrong")"
	else
		pass "a different binary at that path: no wrong symbols (build-id refused it)"
	fi
fi

# --- 3. kernel symbols from a copied kallsyms ---
# The copy names one symbol differently, so its use is visible. A
# tracepoint sample's IP (in __schedule here) is kept only with `full`.
# (__traceiter_sched_switch where another probe is on sched_switch: a
# tracer of someone else's, or one a kernel left behind)
sed 's/ \(__schedule\|__traceiter_sched_switch\)$/ \1_from_copy/' /proc/kallsyms >"$T/kallsyms"
if start_tracer "$T/ks" -o "$T/ks.data" 'sched:sched_switch full'; then
	"$T/work" sleep 10 sleep 10
	stop_tracer >/dev/null
	perf report -i "$T/ks.data" --stdio --sort sym --kallsyms="$T/kallsyms" 2>/dev/null | grep -q '\[k\] __[a-z_]*_from_copy' &&
		pass "--kallsyms=COPY resolves kernel symbols from the copy" ||
		fail "--kallsyms=COPY resolves kernel symbols" "$(perf report -i "$T/ks.data" --stdio --sort sym --kallsyms="$T/kallsyms" 2>&1 | grep -m3 '\[k\]')"
fi

# --- 4. fork: the child execs and exits, the parent spins on ---
PA=pa$$x$RANDOM; PA=${PA:0:15}; CH=ch$$x$RANDOM; CH=${CH:0:15}
cp "$T/work" "$T/$PA"; cp "$T/work" "$T/$CH"
rm -f "$T/fk.data"*
if start_tracer "$T/fk" -o "$T/fk.data" 'sched:sched_switch sched:sched_process_exec cpu-clock@199 buf=2m'; then
	"$T/$PA" forkexec "$T/$CH" spin 200 forkspin 200 wait
	for i in $(seq 50); do /bin/true; done
	stop_tracer >/dev/null
	symreport "$T/fk.data" >"$T/fk.rep"
	grep -q "^$PA $PA work_hot_loop$" "$T/fk.rep" && pass "fork: the parent keeps its comm and dso" ||
		fail "fork: the parent keeps its comm and dso" "$(grep -E "^($PA|$CH|:)" "$T/fk.rep" | head)"
	grep -q "^$CH $CH work_hot_loop$" "$T/fk.rep" && pass "fork: the exec'd child has its own comm and dso" ||
		fail "fork: the exec'd child has its own comm and dso" "$(grep -E "^($PA|$CH|:)" "$T/fk.rep" | head)"
	# the parent and its fork-only child: two pids, one comm, both sampled
	n=$(perf script -i "$T/fk.data" -F comm,pid,event 2>/dev/null | awk -v c="$PA" '$1 == c && /cpu-clock/ { print $2 }' | sort -u | wc -l)
	[ "$n" -ge 2 ] && pass "fork: the fork-only child's samples carry the parent's comm ($n pids)" ||
		fail "fork: the fork-only child's samples carry the parent's comm" "$n pids"
fi

# A parent that predates tracer (so the table never saw its comm) forks a
# child that spins and exits before the dump: the child still has a name.
PB=pb$$x$RANDOM; PB=${PB:0:15}
cp "$T/work" "$T/$PB"
"$T/$PB" sleep 1500 forkspin 300 wait sleep 4000 & PBID=$!; WORKS="$WORKS $PBID"
if start_tracer "$T/fo" 'sched:sched_process_fork cpu-clock@199 buf=1m'; then
	sleep 2.5
	stop_tracer >/dev/null
	perf script -i "$T/fo.out" -F comm,pid,event,trace 2>/dev/null >"$T/fo.txt"
	c=$(sed -n "s/.*pid=$PBID child_comm=.* child_pid=\([0-9]*\).*/\1/p" "$T/fo.txt" | head -1)
	n=$(awk -v p="$c" '$2 == p && /cpu-clock/ { print $1 }' "$T/fo.txt" | sort | uniq -c)
	case "$c:$n" in :*) fail "fork of a process older than tracer: the exited child has the parent's comm" "no fork of $PBID seen" ;;
	*" $PB") pass "fork of a process older than tracer: the exited child has the parent's comm" ;;
	*) fail "fork of a process older than tracer: the exited child has the parent's comm" "comms of child $c's samples: ${n:-none}" ;; esac
fi
kill $PBID 2>/dev/null

# --- 5. idle stays idle; churn is handled in batches ---
if start_tracer "$T/id" 'sched:sched_switch'; then
	idle_check "tracking on, no process activity for 10 s: no wake-ups" 10
	b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$TPID/status)
	"$T/work" storm 500
	sleep 0.2
	c=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$TPID/status)
	[ $((c - b)) -le 100 ] && pass "500 processes: $((c - b)) wake-ups, each a batch" ||
		fail "500 processes: wake-ups in batches" "$((c - b)) wake-ups"
	stop_tracer >/dev/null
fi

# --- 6. a fork storm: the table stays in its bound, tracer keeps running ---
if start_tracer "$T/fs" 'sched:sched_process_exec procs=64'; then
	r0=$(awk '/^VmRSS/ { print $2 }' /proc/$TPID/status)
	"$T/work" storm 10000
	dump_wait "$T/fs" 1 >/dev/null
	r1=$(awk '/^VmRSS/ { print $2 }' /proc/$TPID/status)
	l=$(grep "dump 1 (" "$T/fs.err")
	case "$l" in *"procs "[0-9]*"/64 ("*" evicted"*)
		u=${l##*procs }; u=${u%%/*}
		[ "$u" -le 64 ] && kill -0 $TPID && [ $((r1 - r0)) -lt 2048 ] &&
			pass "fork storm of 10000: table $u/64, RSS +$((r1 - r0)) KiB, still running" ||
			fail "fork storm: table within bound" "$l; RSS $r0 -> $r1 KiB" ;;
	*) fail "fork storm: table within bound" "$l" ;;
	esac
	stop_tracer >/dev/null
fi

# --- 7. a crash loop's dumps do not grow with the table: processes that
# exited before a dump's oldest record are left out of it (issue 42). On
# cpu 0, 100 processes A close a few fds each and exit, then B floods
# the ring with closes until none of A's is left; B's are named B, and
# the dump holds no COMM or EXIT of A (the old code sent all 100), and
# no map of B (its samples are the kernel's: a tracepoint's). ---
A=ga$$x$RANDOM; A=${A:0:15}; B=gb$$x$RANDOM; B=${B:0:15}
cp "$T/work" "$T/$A"; cp "$T/work" "$T/$B"
for eng in ftrace perf; do
	rm -f "$T/go$eng.data"*
	start_tracer "$T/go$eng" -o "$T/go$eng.data" "syscalls:sys_enter_close/fd>=100000/ engine=$eng buf=16k" || continue
	for i in $(seq 100); do taskset -c 0 "$T/$A" close 3; done
	taskset -c 0 "$T/$B" close 30000
	stop_tracer >/dev/null
	perf script -i "$T/go$eng.data" -F comm,pid,event --show-task-events --show-mmap-events 2>/dev/null >"$T/go$eng.txt"
	na=$(grep -c "^ *$A " "$T/go$eng.txt") nb=$(grep -c "^ *$B .*sys_enter_close" "$T/go$eng.txt")
	no=$(grep "sys_enter_close" "$T/go$eng.txt" | grep -vc "^ *$B ")
	mb=$(grep -c "^ *$B .*PERF_RECORD_MMAP" "$T/go$eng.txt")
	[ "$na" = 0 ] && [ "$nb" -gt 50 ] && [ "$no" = 0 ] && [ "$mb" = 0 ] &&
		pass "$eng engine: 100 processes gone before the dump's oldest record: none of their records in it; $nb closes, all named $B, none of its maps" ||
		fail "$eng engine: processes gone before the dump's oldest record are left out, and maps no sample needs" "$na records of $A; $nb closes of $B, $no of others, $mb maps of $B: $(grep -m3 "^ *$A " "$T/go$eng.txt")"
done

# --- a process there before tracer that execs later: its samples before
# the exec carry its old name, after it the new one ---
E=ex$$x$RANDOM; E=${E:0:15}; cp "$T/work" "$T/$E"; rm -f "$T/px.data"
bash -c "sleep 0.5; for i in \$(seq 300000); do :; done; exec $T/$E spin 300" & B=$!
sleep 0.2
if start_tracer "$T/px" -o "$T/px.data" 'sched:sched_switch cpu-clock@499'; then
	wait $B; stop_tracer >/dev/null
	s=$(perf script -i "$T/px.data" -F comm,pid --show-task-events 2>/dev/null | awk -f test/exited.awk | awk -v b=$B '$2 == b { print $1 }' | uniq | tr '\n' ' ')
	testing "an older process that execs: its old name before, the new one after" "bash $E " "$s"
fi

# --- a program that maps many libraries (here perf itself, 40 of them:
# more records than a process's slot holds) and exits before the dump
# keeps its name and its program's map: the slot gives up its oldest
# library maps, not the exec's COMM. (A stream: it sends every map; a
# dump to a file has only those of processes with user-mode samples.) ---
M=mm$$x$RANDOM; M=${M:0:15}
cp "$(command -v perf)" "$T/$M"
nl=$(ldd "$T/$M" 2>/dev/null | grep -c '=> /')
rm -f "$T/mm.data"*
if [ "$nl" -lt 25 ]; then
	skip "a program of many libraries keeps its name" "perf here maps only $nl libraries: not enough to fill a slot"
elif start_tracer "$T/mm" 'sched:sched_switch sched:sched_process_exec sched:sched_process_exit buf=4m'; then	# (a busy machine's switches)
	"$T/$M" version >/dev/null
	sleep 0.3
	stop_tracer >/dev/null
	perf script -i "$T/mm.out" --show-mmap-events 2>/dev/null >"$T/mm.txt"
	n=$(grep -c "^ *$M [0-9]* .*sched:" "$T/mm.txt"); u=$(grep -c "^ *:[0-9]* .*filename=$T/$M " "$T/mm.txt")
	m=$(grep -c "PERF_RECORD_MMAP2 .* $T/$M\$" "$T/mm.txt")
	[ "$n" -gt 0 ] && [ "$u" = 0 ] && [ "$m" -gt 0 ] &&
		pass "a program of $nl libraries that exited keeps its name ($n records) and its program's map" ||
		fail "a program of $nl libraries that exited keeps its name and its program's map" "$n named, $u unnamed execs, $m maps of it"
fi
