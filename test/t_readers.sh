# The reader matrix: every dump mode, made with uniquely named workloads,
# read by the host's perf, perf 6.1 (bookworm), 6.12 (trixie) and the
# newest packaged perf (sid), each in a chroot where the host's is
# another, and hotspot's perfparser. Every version must decode the same
# workload facts as the host's ($HL), which the workload itself vouches for. A tool
# that fails on our dump is our bug, unless it fails the same way on
# perf's own recording of the same events: then it is a perf limit, and
# the test says so.

readers_up "$T" "$T/readers.log"	# a SKIP for each chroot that fails, and why
pp_up || skip "reader matrix: hotspot-perfparser" "$(grep '^perfparser:' "$T/readers.log" || echo "not installed")"
echo "readers: $(for v in $READERS; do printf '%s=%s ' $v "$(rlabel $v)"; done)${PP:+perfparser($PPV)}"

R=rd$$x$RANDOM; R=${R:0:9}	# workload names: $R + mode, at most 15
EVS="sched:sched_switch sched:sched_wakeup sched:sched_process_exec signal:signal_generate cpu-clock"

# facts VER FILE [NAME PID]...: what perf script shows of a dump, a fact
# a line: records per event, and per workload its exec, its comm (on
# samples of its pid), its signal's fields and its own function in
# cpu-clock samples; cpu-clock samples with a kernel symbol, kernel
# callchains through the scheduler, and whether time runs forward.
# Field widths differ between versions; the facts do not.
# No line is told from another by its look: a comm is any 15 bytes
# ("cc1", "dd" and "bc" are all hex, like a callchain's addresses). The
# samples come with -G (no callchains: one line a sample) and a fixed -F,
# each found by its "PID/TID TIME:" pair after the comm; the callchains
# come alone with -F event,ip,sym, where a sample's line starts with its
# event ("NAME:", never hex) and every other line is an address.
FACTS_F=comm,pid,tid,time,event,trace,ip,sym,dso
facts() {
	local v=$1 f=$2; shift 2
	{ rperf "$v" script -i "$f" --ns -G -F $FACTS_F 2>/dev/null
	  echo "--- callchains"
	  rperf "$v" script -i "$f" -F event,ip,sym 2>/dev/null
	} | awk -v T="$T" -v wl="$*" '
	BEGIN { n = split(wl, a, " "); for (i = 1; i < n; i += 2) pid[a[i]] = a[i + 1] }
	$0 == "--- callchains" { cc = 1; next }
	cc { if ($1 ~ /^[0-9a-f]+$/ && $2 ~ /^(__schedule|schedule)(\+|$)/) chain++; next }
	{
		for (i = 2; i < NF && !($i ~ /^-?[0-9]+\/-?[0-9]+$/ && $(i + 1) ~ /^[0-9]+\.[0-9]+:$/); i++) ;
		if (i >= NF) { odd++; next }
		c = $1; for (k = 2; k < i; k++) c = c " " $k
		split($i, p, "/")
		split($(i + 1), tm, /[.:]/); t = tm[1] * 1e9 + tm[2]; if (t < last) back++; last = t
		ev = $(i + 2); rec[ev]++
		if (ev == "cpu-clock:" && /\(\[kernel\.kallsyms\]\)/ && !/\[unknown\]/) ksym++
		for (w in pid) {
			if (c == w && p[1] == pid[w]) { comm[w]++; if (ev == "cpu-clock:" && /work_hot_loop/) usym[w]++ }
			if (ev == "sched:sched_process_exec:" && index($0, "filename=" T "/" w " ")) exec[w]++
			if (index($0, "sig=10 errno=0 code=0 comm=" w " pid=" pid[w] " ")) sig[w]++
		}
	}
	END {
		for (e in rec) print "records", e, rec[e]
		for (w in pid) print "exec", w, exec[w] + 0; for (w in pid) print "comm", w, comm[w] + 0
		for (w in pid) print "signal", w, sig[w] + 0; for (w in pid) print "usym", w, usym[w] + 0
		print "ksym", ksym + 0; print "chain", chain + 0; print "backwards", back + 0
		print "unparsed", odd + 0
	}' | sort
}

# fact FACTS KEY: the number a fact line "KEY N" gives, or 0
fact() { echo "$1" | awk -v k="$2" 'substr($0, 1, length(k) + 1) == k " " { n = $NF } END { print n + 0 }'; }

# expect MODE FACTS KEY...: each KEY counts more than 0 in the host's facts
expect() {
	local m=$1 f=$2 k; shift 2
	for k in "$@"; do
		[ "$(fact "$f" "$k")" -gt 0 ] && pass "$m: perf $HL decodes $k ($(fact "$f" "$k"))" ||
			fail "$m: perf $HL decodes $k" "$(echo "$f" | tr '\n' ';')"
	done
	testing "$m: perf $HL: timestamps never go backwards" 0 "$(fact "$f" backwards)"
	testing "$m: perf $HL: each line of perf script -G -F ... is a sample" 0 "$(fact "$f" unparsed)"
}

# judge NAME VER CHECK OURS OWN: "CHECK VER FILE" must hold for our dump
# OURS. If it fails there and on perf's own recording OWN too, that is a
# limit of this perf version, and said so; if only on ours, our bug.
judge() {
	local name=$1 v=$2 c=$3
	if $c $v "$4"; then pass "$name"; return; fi
	cp "$T/judge.log" "$T/judge.ours"
	if [ -s "$5" ] && ! $c $v "$5"; then skip "$name" "perf $(rlabel $v) limit: fails on perf's own recording too"
	else fail "$name" "$(tail -2 "$T/judge.ours" | tr '\n' ' ')"; fi
}

# own FILE EVENTS NAME ARGS...: the host perf's own recording of EVENTS,
# system wide, while the workload NAME runs ARGS (made once); a stream
# if FILE ends in .pipe
own() {
	local f=$1 e=$2 w=$3; shift 3
	[ -s "$f" ] && return
	case $f in
	*.pipe) perf record -N -q -a -e "${e// /,}" -o - -- "$T/$w" "$@" >"$f" 2>/dev/null ;;
	*) perf record -N -q -a -e "${e// /,}" -o "$f" -- "$T/$w" "$@" >/dev/null 2>&1 ;;
	esac
}

# tools MODE FILE FACTS61: every reader's perf on one dump: the same
# facts as the host's, and what report, script -F, evlist and the header say.
# NEV: how many events the mode records.
tools() {
	local m=$1 f=$2 f61=$3 v l fv w=${WL# }
	w=${w%% *}	# the first workload
	for v in $READERS; do
		l=$(rlabel $v)
		if [ $v != host ]; then
			fv=$(facts $v "$f" $WL)
			[ "$fv" = "$f61" ] && pass "$m: perf $l decodes the same facts as $HL" ||
				fail "$m: perf $l decodes the same facts as $HL" "$(diff <(echo "$f61") <(echo "$fv") | grep '^[<>]' | head -6 | tr '\n' ' ')"
		fi
		rperf $v report --stdio --sort comm -i "$f" >"$T/rep.$v" 2>&1 &&
			grep -qE "^ +[0-9.]+% +$w +\$" "$T/rep.$v" &&
			pass "$m: perf $l report shows the workload" ||
			fail "$m: perf $l report shows the workload" "$(grep -m3 -E 'rror|^ +[0-9]' "$T/rep.$v" | tr '\n' ' ')"
		grep -E '^# (Samples|Event count)' "$T/rep.$v" >"$T/repn.$v"
		[ $v = host ] || check "$m: perf $l report counts what $HL counts" cmp -s "$T/repn.host" "$T/repn.$v"
		n=$(rperf $v script -F comm,pid,tid,cpu,time,event,trace -i "$f" 2>/dev/null |
			grep -c "sig=10 errno=0 code=0 comm=$w ")
		[ "$n" -gt 0 ] && pass "$m: perf $l script -F ...,trace decodes the fields" ||
			fail "$m: perf $l script -F ...,trace decodes the fields"
		rperf $v evlist -v -i "$f" >"$T/evl" 2>&1; rc=$?
		testing "$m: perf $l evlist -v: $NEV events, as recorded" "0 $NEV" \
			"$rc $(grep -cE 'sample_type: IP\|TID\|TIME\|(CALLCHAIN\|)?CPU\|PERIOD' "$T/evl")"
		rperf $v report --header-only -i "$f" 2>&1 | grep -q "^# os release : $(uname -r)" &&
			pass "$m: perf $l report --header-only" || fail "$m: perf $l report --header-only"
	done
}

stop_works() { local p; for p in $WORKS; do kill $p 2>/dev/null; done; WORKS=; wait 2>/dev/null; }

# The tools that read more than perf script does, each as a check
# "c_TOOL VER FILE" of what it must show of the workload $w.
c_timehist() { rperf $1 sched timehist -i "$2" >"$T/judge.log" 2>&1 && grep -q " $w\[[0-9]*\] " "$T/judge.log"; }
c_latency() { rperf $1 sched latency -i "$2" >"$T/judge.log" 2>&1 && grep -q " $w:[0-9]* " "$T/judge.log"; }
c_map() { rperf $1 sched map -i "$2" >"$T/judge.log" 2>&1 && grep -q " => $w:[0-9]*\$" "$T/judge.log"; }
c_timechart() {
	rm -f "$T/tc.svg"; rperf $1 timechart -i "$2" -o "$T/tc.svg" >"$T/judge.log" 2>&1 &&
		grep -q "<title>[0-9]* $w running" "$T/tc.svg"
}
c_inject() {	# a file perf reads with the same facts
	# (--buildid-dir: inject keeps copies of the binaries by build-id;
	# not in the user's ~/.debug, where they would give t_track's
	# stripped copy of the same build its symbols)
	rm -f "$T/inj"; rperf $1 --buildid-dir "$T/.debug" inject -i "$2" -o "$T/inj" >"$T/judge.log" 2>&1 &&
		[ "$(facts $1 "$T/inj" $WL)" = "$(facts $1 "$2" $WL)" ]
}
c_buildid() {	# the kernel's build-id
	rperf $1 buildid-list -i "$2" >"$T/judge.log" 2>&1 &&
		grep -q "^$(perf buildid-list -k 2>/dev/null) \[kernel.kallsyms\]" "$T/judge.log"
}
c_json() {
	rm -f "$T/j.json"; rperf $1 data convert --to-json "$T/j.json" -i "$2" >"$T/judge.log" 2>&1 &&
		grep -q "\"comm\": \"$w\"" "$T/j.json"
}
c_trace() {	# of a raw_syscalls dump
	rperf $1 trace -i "$2" >"$T/judge.log" 2>&1
	grep -qE " $w/[0-9]+ close\(fd: 100000\) += -1 EBADF" "$T/judge.log"
}
c_traces() {	# its summary: the 5 failed closes
	rperf $1 trace -s -i "$2" >"$T/judge.log" 2>&1
	awk -v t=" $w (" 'index($0, t) == 1 { on = 1; next } on && /^ [^ ]/ { on = 0 }
		on && $1 == "close" && $3 == 5 { ok = 1 } END { exit !ok }' "$T/judge.log"
}
c_perfparser() {	# not a perf version: VER is ignored
	local rc
	[ -n "$PP" ] || return 1
	$PP --input "$2" --output "$T/pp.out" >"$T/pp.err" 2>&1; rc=$?
	pp_complaints <"$T/pp.err" >"$T/judge.log"
	[ $rc = 0 ] || { echo "exit $rc"; cat "$T/pp.err"; } >"$T/judge.log"
	[ $rc = 0 ] && [ ! -s "$T/judge.log" ] && grep -qa "$w" "$T/pp.out"
}

# workload NAME: run one, uniquely named, to be found in the dump; WL
# collects "NAME PID" for facts
WL=
workload() {
	# sys: 400 ms in the kernel, so that cpu-clock@49 has kernel samples
	# (ksym) also when a compile keeps both CPUs in user space
	run_work "$1" spin 300 sys 400 sleep 20 signal sleep 20 hold
	WL="$WL $1 $WPID"
	held $WPID
}

# --- 1. the default config on stdout, three dumps in one stream ---
WL=
if start_tracer "$T/m1" 'buf=4m'; then
	workload ${R}st1; dump_wait "$T/m1" 1
	workload ${R}st2; dump_wait "$T/m1" 2
	workload ${R}st3; stop_tracer >/dev/null
	f=$(facts host "$T/m1.out" $WL)
	expect stream "$f" "exec ${R}st1" "exec ${R}st2" "exec ${R}st3" "comm ${R}st1" "comm ${R}st3" \
		"signal ${R}st1" "signal ${R}st2" "signal ${R}st3" "usym ${R}st2" ksym
	NEV=6 tools stream "$T/m1.out" "$f"
fi
stop_works

# mode MODE NEV CONFIG KEY...: a stream of one dump of CONFIG (NEV
# events) with the workload $R$MODE; the KEYs must count in the host's facts,
# and every reader must agree
mode() {
	local m=$1 nev=$2 cfg=$3 f; shift 3
	WL=
	if start_tracer "$T/$m" "$cfg"; then
		workload $R$m; stop_tracer >/dev/null
		f=$(facts host "$T/$m.out" $WL)
		expect $m "$f" "$@"
		NEV=$nev tools $m "$T/$m.out" "$f"
	fi
	stop_works
}

# --- 2. tracepoints alone, each once, on perf rings: the kernel writes no ids ---
mode tp 3 'sched:sched_switch sched:sched_process_exec signal:signal_generate buf=2m engine=perf' \
	"exec ${R}tp" "comm ${R}tp" "signal ${R}tp"
grep -q 'no ids' "$T/tp.err" || fail "tp: the id-less layout" "$(head -1 "$T/tp.err")"

# --- 3. full: the kernel writes perf's layout (on perf rings) ---
mode full 6 'buf=4m full engine=perf' "exec ${R}full" "comm ${R}full" "signal ${R}full" "usym ${R}full" ksym

# --- 4. stack: kernel callchains ---
mode stack 4 'sched:sched_switch sched:sched_process_exec signal:signal_generate cpu-clock@199 stack buf=4m' \
	"exec ${R}stack" "comm ${R}stack" "signal ${R}stack" chain

# --- 5. frame=text, extracted with -x ---
WL=
if start_tracer "$T/m5" 'buf=2m frame=text'; then
	workload ${R}fr; stop_tracer >/dev/null
	"$TRACER" -x <"$T/m5.out" >"$T/m5.data" 2>"$T/m5.x"
	f=$(facts host "$T/m5.data" $WL)
	expect frame "$f" "exec ${R}fr" "comm ${R}fr" "signal ${R}fr" "usym ${R}fr" ksym
	NEV=6 tools frame "$T/m5.data" "$f"
fi
stop_works

# --- 6. a tripwire's dump: the workload's signal trips it (its own:
# other jobs on the machine send SIGUSR1 too) ---
WL=
rm -f "$T/m6.data"*
if start_tracer "$T/m6" -o "$T/m6.data" "$EVS@49 trip=signal:signal_generate/sig==10&&comm==\"${R}tw\"/ dumps=1 buf=2m"; then
	workload ${R}tw
	wait $TPID; wait_line "$T/m6" "dump 1 (trip " >/dev/null
	f=$(facts host "$T/m6.data" $WL)
	expect trip "$f" "exec ${R}tw" "comm ${R}tw" "signal ${R}tw" "usym ${R}tw" ksym
	NEV=6 tools trip "$T/m6.data" "$f"	# 5 and the tripwire
fi
stop_works

# --- 7. -o FILE: file mode, and the tools that need it ---
WL=
rm -f "$T/m7.data"*
if start_tracer "$T/m7" -o "$T/m7.data" "$EVS@49 buf=4m"; then
	workload ${R}fi; stop_tracer >/dev/null
	w=${R}fi
	f=$(facts host "$T/m7.data" $WL)
	expect file "$f" "exec $w" "comm $w" "signal $w" "usym $w" ksym
	NEV=5 tools file "$T/m7.data" "$f"
	own "$T/own7.data" "$EVS" $w spin 300 sleep 20 signal sleep 20
	nsamp=$(echo "$f" | awk '$1 == "records" { n += $NF } END { print n }')
	kbid=$(perf buildid-list -k 2>/dev/null)
	for v in $READERS; do
		l=$(rlabel $v)
		judge "file: perf $l sched timehist shows the workload" $v c_timehist "$T/m7.data" "$T/own7.data"
		judge "file: perf $l sched latency shows the workload" $v c_latency "$T/m7.data" "$T/own7.data"
		judge "file: perf $l inject: a file with the same facts" $v c_inject "$T/m7.data" "$T/own7.data"
		judge "file: perf $l buildid-list: the kernel's build-id" $v c_buildid "$T/m7.data" "$T/own7.data"
		judge "file: perf $l data convert --to-json" $v c_json "$T/m7.data" "$T/own7.data"
		c_json $v "$T/m7.data" && testing "file: perf $l --to-json: every sample" "$nsamp" "$(grep -c '"timestamp"' "$T/j.json")"
	done
	if [ -n "$PP" ]; then
		c_perfparser - "$T/m7.data" && pass "file: perfparser reads it with no complaint, and names the workload$(
			n=$(grep -c . "$T/pp.err"); [ "$n" = 0 ] || echo " ($n complaints of files not here ignored)")" ||
			fail "file: perfparser reads it with no complaint, and names the workload" "$(head -3 "$T/judge.log" | tr '\n' ' ')"
		$PP --input "$T/m7.data" --print-stats >"$T/pp.st" 2>&1
		testing "file: perfparser: every sample, in time order" "$nsamp 0" \
			"$(awk '/^samples:/ { n = $2 } /^samples time violations:/ { v = $4 } END { print n, v }' "$T/pp.st")"
	fi
fi
stop_works

# --- 7z. zstd: every compressed mode, as its uncompressed mode ---
mode zst 6 'buf=4m zstd' "exec ${R}zst" "comm ${R}zst" "signal ${R}zst" "usym ${R}zst" ksym
WL=
rm -f "$T/m7z.data"*
if start_tracer "$T/m7z" -o "$T/m7z.data" "$EVS@49 buf=4m zstd"; then
	workload ${R}zfi; stop_tracer >/dev/null
	f=$(facts host "$T/m7z.data" $WL)
	expect zstd-file "$f" "exec ${R}zfi" "comm ${R}zfi" "signal ${R}zfi" "usym ${R}zfi" ksym
	NEV=5 tools zstd-file "$T/m7z.data" "$f"
	# perfparser, against perf record -z's own file of the same events
	w=${R}zfi
	[ -s "$T/own7z.data" ] || perf record -z -N -q -a -e "${EVS// /,}" -o "$T/own7z.data" -- "$T/$w" spin 300 sleep 20 signal sleep 20 >/dev/null 2>&1
	if [ -z "$PP" ]; then :
	elif c_perfparser - "$T/m7z.data"; then pass "zstd-file: perfparser reads it, and names the workload"
	elif ! c_perfparser - "$T/own7z.data"; then
		skip "zstd-file: perfparser reads it" "this perfparser reads no compressed file, not even perf record -z's ($(grep -m1 'event type 81' "$T/judge.log"))"
	else fail "zstd-file: perfparser reads it, and names the workload" "$(head -3 "$T/judge.log" | tr '\n' ' ')"; fi
fi
stop_works
WL=
if start_tracer "$T/m5z" 'buf=2m frame=text zstd'; then
	workload ${R}zfr; stop_tracer >/dev/null
	"$TRACER" -x <"$T/m5z.out" >"$T/m5z.data" 2>"$T/m5z.x"
	f=$(facts host "$T/m5z.data" $WL)
	expect zstd-frame "$f" "exec ${R}zfr" "comm ${R}zfr" "signal ${R}zfr" "usym ${R}zfr" ksym
	NEV=6 tools zstd-frame "$T/m5z.data" "$f"
fi
stop_works

# --- 8. perf trace -i on a raw_syscalls dump, file and stream ---
w=${R}sy
cp "$T/work" "$T/$w"
SC="raw_syscalls:sys_enter raw_syscalls:sys_exit"
rm -f "$T/m8.data"*
for o in "-o $T/m8.data" ""; do
	# the workload's own syscalls: a busy machine's others wrap any ring
	start_tracer "$T/m8" $o "${SC// /\/comm==\"$w\"\/ }/comm==\"$w\"/ buf=4m" || continue
	"$T/$w" close 5
	stop_tracer >/dev/null
done
own "$T/own8.data" "$SC" $w close 5
own "$T/own8.pipe" "$SC" $w close 5
for v in $READERS; do
	judge "syscalls: perf $(rlabel $v) trace -i FILE shows the workload's close()" $v c_trace "$T/m8.data" "$T/own8.data"
done

# --- 9. beside other perf sessions, which tracer must never break ---
# A perf record -a started before tracer, and one started while it runs,
# both see processes start (new maps); both must complete and decode.
# Our dump still gives the maps of a process that exited before it their
# build-ids, which tracer reads from the files itself.
w=${R}co; cp "$T/work" "$T/$w"
bid=$(readelf -n "$T/work" 2>/dev/null | awk '/Build ID:/ { print $3 }')
perf record -N -q -a -e cpu-clock -o "$T/co1.data" -- sleep 3 >"$T/co1.log" 2>&1 & RP=$!
sleep 0.5
# (procs=: a busy machine's exited processes must not evict the workload)
if start_tracer "$T/m9" 'buf=4m procs=2048'; then
	perf record -N -q -a -e cpu-clock -o "$T/co2.data" -- "$T/$w" spin 200 sleep 20 >"$T/co2.log" 2>&1; rc2=$?
	"$T/$w" spin 100 sleep 20
	wait $RP; rc1=$?
	stop_tracer >/dev/null
	for k in 1 2; do
		eval rc=\$rc$k; which=$([ $k = 1 ] && echo "started before tracer" || echo "started while tracer runs")
		testing "perf $HL record -a $which completes" "0 " "$rc $(grep -m1 -E 'assert|smash' "$T/co$k.log")"
		perf script -i "$T/co$k.data" >"$T/co$k.txt" 2>&1 && grep -qE "^ *$w +[0-9]+ .*work_hot_loop" "$T/co$k.txt" &&
			pass "perf record -a $which: its file decodes, with the workload's symbols" || fail "perf record -a $which: its file decodes" "$(tail -2 "$T/co$k.txt")"
	done
	if [ -n "$bid" ]; then
		n=$(perf script -i "$T/m9.out" --show-mmap-events 2>/dev/null | grep -c "PERF_RECORD_MMAP2 .*<$bid>\]: r-xp $T/$w\$")
		[ "$n" -gt 0 ] && pass "our dump: the exited workload's map carries its build-id ($n)" ||
			fail "our dump: the exited workload's map carries its build-id" \
				"$(perf script -i "$T/m9.out" --show-mmap-events 2>/dev/null | grep -m2 "MMAP2.*$T/$w")"
	else
		skip "our dump: build-ids of exited processes" "readelf finds no build-id in test/work"
	fi
fi

# --- 10. what reads a stream: a tool reads our stream exactly when it
# reads perf's own stream of the same events. This is the README's table
# ("Reading a dump on the host"); what a stream does not give, -o FILE
# does (section 7). ---
w=${R}st1
own "$T/own1.pipe" "$EVS" $w spin 300 sleep 20 signal sleep 20
WL="$w 0"
for v in $READERS; do
	l=$(rlabel $v) row=
	for c in timehist latency map timechart inject buildid json trace traces perfparser; do
		[ $c = perfparser ] && [ $v != host ] && continue
		f=$T/m1.out o=$T/own1.pipe
		case $c in trace*) w=${R}sy f=$T/m8.out o=$T/own8.pipe ;; esac
		c_$c $v "$f" && a=yes || a=no
		c_$c $v "$o" && b=yes || b=no
		testing "stream: perf $l: $c reads ours as it reads perf's own ($b)" $b $a
		row="$row $c=$a"
		w=${R}st1
	done
	echo "streams, perf $l:$row"
done
