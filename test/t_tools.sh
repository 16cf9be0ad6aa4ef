# The reader matrix's tools that read more than perf script does, each
# judged by what the workload did: perf sched timehist (its 200 ms sleep
# as a wait), sched latency and sched map (it, by name and pid), perf
# timechart (an svg of it running), perf trace -s (its 1500 failed
# closes), perf inject (a file whose perf script is the input's, its
# samples there) and perf data convert --to-json (its samples, as many
# as perf script has), in the host's perf and perf 6.1, 6.12 and the
# newest (test/lib.sh's readers_up), and perfparser
# (every sample, no complaint). Five tracers record the one workload at
# once: a file dump (-o), and a stream, a frame=text capture, a zstd
# stream and a zstd frame=text capture, each converted on the host with
# tracer -c -o. A tool that fails on ours and on perf record's own file
# of the same events is that perf version's limit: SKIP, said so.

readers_up "$T" "$T/readers.log"	# a SKIP for each chroot that fails, and why
TLPP=; pp_up && TLPP=$PP ||
	skip "tools: hotspot-perfparser" "$(grep '^perfparser:' "$T/readers.log" || echo "not installed")"

# close is 3 on x86_64: close alone, or the whole machine's syscalls
# fill the rings while others run beside
TLSC="raw_syscalls:sys_enter/id==3/ raw_syscalls:sys_exit/id==3/"
TLEV="sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new sched:sched_migrate_task sched:sched_process_fork sched:sched_process_exit sched:sched_process_exec $TLSC cpu-clock@499"
TLN=1500 TLS=200	# the workload's failed closes; its sleep in ms
tw=tl$$x$RANDOM; tw=${tw:0:12}	# its name
# the sleep after the spin: perf 6.12 and later forget a task at its exit
# record, and so timehist names no task at the switch away from the last
# run (":PID"); the wait it prints there must be that of a run before
TLARGS="spin 200 close $TLN sleep $TLS spin 50 sleep 1"
TLMODES="file stream framed zstd zframed"

# --- record: five tracers at once, one workload; one dump each ---
cp "$T/work" "$T/$tw"
tp= ok=
for m in $TLMODES; do
	case $m in
	file) a="-o $T/tlfile.data" c= ;;
	stream) a= c= ;;
	framed) a= c=' frame=text' ;;
	zstd) a= c=' zstd' ;;
	zframed) a= c=' frame=text zstd' ;;
	esac
	rm -f "$T/tl$m.data"*
	if start_tracer "$T/tl$m" $a "$TLEV buf=4m$c" >"$T/tl$m.why"; then tp="$tp $TPID" ok="$ok $m"
	else fail "tools $m: tracer records" "$(cat "$T/tl$m.why")"; fi
done
# on cpu 0: on this machine's cpu 1 the kernel traces no switch from
# its idle task (perf record's own files neither), and timehist then
# counts the wait only up to the switch before
taskset -c 0 "$T/$tw" $TLARGS & twp=$!; wait $twp
for tlp in $tp; do kill -INT $tlp; done
for tlp in $tp; do wait $tlp; done
TLMODES=
for m in $ok; do
	if [ $m != file ]; then
		"$TRACER" -c -o "$T/tl$m.data" "$T/tl$m.out" 2>"$T/tl$m.cerr" && [ ! -e "$T/tl$m.data.1" ] ||
			{ fail "tools $m: tracer -c -o makes one file" "$(cat "$T/tl$m.cerr")"; continue; }
	fi
	[ -s "$T/tl$m.data" ] && TLMODES="$TLMODES $m" || fail "tools $m: a dump" "$(cat "$T/tl$m.err")"
done
echo "tools: $tw pid $twp, modes:$TLMODES"

# what the host perf's script says of each file, the judge's numbers: all
# samples, and the workload's close() entries (its loader's and its
# shell's closes before the exec are the workload's pid's too)
for m in $TLMODES; do
	perf script -i "$T/tl$m.data" -F pid,event 2>/dev/null | awk -v p=$twp '
		{ n++ } $1 == p && $2 == "raw_syscalls:sys_enter:" { c++ } END { print n + 0, c + 0 }' >"$T/tl$m.n"
done

# The checks, "t_TOOL VER FILE NAME PID": 0 when the tool, in perf VER,
# shows on FILE what the workload NAME (PID) did; TLOK is what it
# showed, $T/tl.log the evidence when not.
t_timehist() {	# the sleep: a wait of TLS ms (less the 0.1 ms from
	# arming the timer to leaving the CPU), under a second
	rperf $1 sched timehist -i "$2" >"$T/tl.log" 2>&1 || return 1
	TLOK=$(awk -v t="$3[$4]" -v s=$TLS '{ for (i = 2; i < NF; i++) if ($i == t && $(i + 1) >= s - 0.1 && $(i + 1) < 1000) print $(i + 1) }' "$T/tl.log" | head -1)
	[ -n "$TLOK" ] && TLOK="a wait of $TLOK ms"
}
t_latency() {	# a line of it, with its switches
	rperf $1 sched latency -i "$2" >"$T/tl.log" 2>&1 || return 1
	TLOK=$(awk -F'|' -v t="$3:$4" '{ n = $1; gsub(/ /, "", n) } n == t && $3 + 0 > 0 { print $3 + 0; exit }' "$T/tl.log")
	[ -n "$TLOK" ] && TLOK="$TLOK switches"
}
t_map() {	# its short name, and the switches to it
	local s
	rperf $1 sched map -i "$2" >"$T/tl.log" 2>&1 || return 1
	s=$(awk -v t="$3:$4" '$NF == t && $(NF - 1) == "=>" { print $(NF - 2); exit }' "$T/tl.log")
	[ -n "$s" ] || return 1
	TLOK="$s => $3:$4, $(grep -c -- " \*$s " "$T/tl.log") times on"
}
t_timechart() {	# the svg draws it running
	rm -f "$T/tl.svg"
	rperf $1 timechart -i "$2" -o "$T/tl.svg" >"$T/tl.log" 2>&1 || return 1
	TLOK=$(grep -c "<title>$4 $3 running" "$T/tl.svg")
	[ "$TLOK" -gt 0 ] && TLOK="$TLOK runs of it"
}
t_trace() {	# TLN failed closes; every close entry the host's perf script has
	local c=$TLN; [ "$2" != "$TLOWN" ] && c=$(awk '{ print $2 }' "${2%.data}.n")
	rperf $1 trace -s -i "$2" >"$T/tl.log" 2>&1 || return 1
	TLOK=$(awk -v t=" $3 ($4)," 'index($0, t) == 1 { on = 1; next } on && /^ [^ ]/ { on = 0 }
		on && $1 == "close" { print $2, $3 }' "$T/tl.log")
	[ "${TLOK#* }" = $TLN ] && [ "${TLOK% *}" -ge "$c" ] || return 1
	[ "$2" = "$TLOWN" ] || [ "${TLOK% *}" = "$c" ] || return 1
	TLOK="close: ${TLOK% *} calls, $TLN failed"
}
t_inject() {	# perf script of its output is the input's, line for line
	local n
	rm -f "$T/tl.inj"
	rperf $1 --buildid-dir "$T/.debug" inject -i "$2" -o "$T/tl.inj" >"$T/tl.log" 2>&1 || return 1
	rperf $1 script -i "$2" >"$T/tl.s1" 2>>"$T/tl.log"
	rperf $1 script -i "$T/tl.inj" >"$T/tl.s2" 2>>"$T/tl.log"
	n=$(rperf $1 script -i "$T/tl.inj" -F pid 2>/dev/null | awk -v p=$4 '$1 == p' | wc -l)
	[ "$n" -gt $TLN ] && [ -s "$T/tl.s1" ] && cmp -s "$T/tl.s1" "$T/tl.s2" ||
		{ echo "$n samples of $4; $(diff "$T/tl.s1" "$T/tl.s2" | head -2)" >>"$T/tl.log"; return 1; }
	TLOK="$(wc -l <"$T/tl.s2") samples, $n of it"
}
t_json() {	# as many samples as perf script has, and as many of it
	local a b n j p=$4
	rm -f "$T/tl.json"
	rperf $1 data convert --to-json "$T/tl.json" -i "$2" >"$T/tl.log" 2>&1 || return 1
	set -- $(rperf $1 script -i "$2" -F tid 2>/dev/null | awk -v p=$p '{ n++ } $1 == p { k++ } END { print n + 0, k + 0 }')
	a=$1 n=$2
	b=$(grep -c '"timestamp":' "$T/tl.json")
	j=$(grep -cE "\"tid\": $p,?\$" "$T/tl.json")
	echo "json: $b samples, $j of it; perf script: $a, $n" >>"$T/tl.log"
	[ "$n" -gt $TLN ] && [ "$j" = "$n" ] && [ "$a" = "$b" ] || return 1
	TLOK="$b samples, $j of it"
}
t_perfparser() {	# not a perf version: VER is ignored
	local rc
	[ -n "$TLPP" ] || return 1
	$TLPP --input "$2" --output "$T/tl.pp" >"$T/tl.ppe" 2>&1; rc=$?
	pp_complaints <"$T/tl.ppe" >"$T/tl.log"
	[ $rc = 0 ] && [ ! -s "$T/tl.log" ] && grep -qa "$3" "$T/tl.pp" ||
		{ echo "exit $rc; $(head -3 "$T/tl.ppe")" >>"$T/tl.log"; return 1; }
	$TLPP --input "$2" --print-stats >"$T/tl.ppe" 2>&1
	TLOK=$(awk '/^samples:/ { n = $2 } /^samples time violations:/ { v = $4 } END { print n + 0, v }' "$T/tl.ppe")
	[ "$2" = "$TLOWN" ] || [ "$TLOK" = "$(awk '{ print $1 }' "${2%.data}.n") 0" ] ||
		{ echo "samples, time violations: $TLOK; perf script: $(cat "${2%.data}.n")" >>"$T/tl.log"; return 1; }
	TLOK="${TLOK% *} samples, in time order"
}

# perf record's own file of the same events, of the workload under
# another name (made once, when a check first fails); TLOWNP its pid
TLOWN=$T/tlown.data TLOWNP=
tlown() {
	local e a=
	[ -s "$TLOWN" ] && return
	for e in $TLEV; do
		case $e in
		*/*/) a="$a -e ${e%%/*} --filter ${e#*/}"; a=${a%/} ;;
		*@*) a="$a -e ${e%@*}/freq=${e#*@}/" ;;
		*) a="$a -e $e" ;;
		esac
	done
	cp "$T/work" "$T/${tw}o"
	perf record -N -q -a $a -o "$TLOWN" -- taskset -c 0 "$T/${tw}o" $TLARGS >"$T/tlown.log" 2>&1
	TLOWNP=$(perf script -i "$TLOWN" -F comm,pid 2>/dev/null | awk -v c=${tw}o '$1 == c { print $2; exit }')
}

# tllast: the evidence's last line; of a crash, what crashed
tllast() { tail -1 "$T/tl.log" | sed -E 's/^.*line [0-9]+: *[0-9]+ (Segmentation fault|Aborted|Bus error).*/\1/' | cut -c1-120; }

# tljudge VER TOOL: the check on every mode's file; one line for all
tljudge() {
	local v=$1 c=$2 m bad= ok= l=perfparser
	case $c in
	timehist|latency|map) l="sched $c" ;;
	trace) l="trace -s" ;;
	json) l="data convert --to-json" ;;
	*) l=$c ;;
	esac
	[ $c = perfparser ] || l="perf $(rlabel $v) $l"
	for m in $TLMODES; do
		if t_$c $v "$T/tl$m.data" $tw $twp; then ok=${ok:-$TLOK}
		else bad="${bad:+$bad; }$m: $(tllast)"; fi
	done
	if [ -z "$bad" ]; then pass "tools: $l shows the workload on$TLMODES: $ok"; return; fi
	tlown
	if [ -n "$TLOWNP" ] && ! t_$c $v "$TLOWN" ${tw}o $TLOWNP; then
		skip "tools: $l" "perf $(rlabel $v)'s limit: it fails on perf record's own file of the same events too ($(tllast)); ours: $bad"
	else
		fail "tools: $l shows the workload on$TLMODES" "$bad"
	fi
}

for v in $READERS; do
	for c in timehist latency map timechart trace inject json; do tljudge $v $c; done
done
[ -z "$TLPP" ] || tljudge - perfparser
