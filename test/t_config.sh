# The command line and the config string: help, listing, and a table of
# malformed configs that must each exit 2 and name the bad token.

out=$("$TRACER" -h); rc=$?
testing "-h exits 0" 0 $rc
lines=$(printf '%s\n' "$out" | wc -l)
[ "$lines" -le 24 ] && [ -z "$(printf "%s\n" "$out" | awk "length > 79")" ] && pass "-h fits a 24x80 terminal ($lines lines)" || fail "-h fits one screen" "$lines lines"

"$TRACER" -l >"$T/list" 2>/dev/null
check "-l lists sched:sched_switch" grep -q '^sched:sched_switch' "$T/list"
check "-l lists cpu-clock" grep -q '^cpu-clock' "$T/list"
# every tracepoint -l shows is one tracefs has
n=$(grep -c tracepoint "$T/list"); m=$(ls /sys/kernel/tracing/events/*/*/id | wc -l)
testing "-l lists every tracepoint" "$m" "$n"

# CONFIG -> the token the message must quote
while IFS='|' read -r cfg tok; do
	err=$("$TRACER" "$cfg" 2>&1 >/dev/null </dev/null); rc=$?
	case "$rc:$err" in
	2:*"'$tok'"*) pass "bad config '$cfg' exits 2 naming '$tok'" ;;
	*) fail "bad config '$cfg' exits 2 naming '$tok'" "rc=$rc: $err" ;;
	esac
done <<'EOF2'
buf=12q|buf=12q
sched:sched_switch buf=0|buf=0
sched:no_such_event|sched:no_such_event
no-such-event|no-such-event
cpu-clock@fast|cpu-clock@fast
cpu-clock@0|cpu-clock@0
page-faults%|page-faults%
frob=1|frob=1
cpus=3-1|cpus=3-1
cpus=999|cpus=999
cpu-clock/x==1/|cpu-clock/x==1/
sched:sched_switch@99|sched:sched_switch@99
signal:signal_generate/sig==11|signal:signal_generate/sig==11
signal:signal_generate/sig==11/x|signal:signal_generate/sig==11/x
signal:signal_generate/nosuchfield==1/|signal:signal_generate/nosuchfield==1/
sched:sched_switch;out=|out=
sched:sched_switch trip=segv count=18446744073709551617|count=18446744073709551617
dumps=18446744073709551617|dumps=18446744073709551617
dumps=4294967297|dumps=4294967297
procs=18446744073709551616|procs=18446744073709551616
trip=segv,count=18446744073709551617|trip=segv,count=18446744073709551617
baud=18446744073709666816|baud=18446744073709666816
cpu-clock@18446744073709551617|cpu-clock@18446744073709551617
cpus=18446744073709551616|cpus=18446744073709551616
trip=segv after=18446744073709551617s|after=18446744073709551617s
buf=18446744073709551617k|buf=18446744073709551617k
buf=64k buf=128k|buf=128k
listen=127.0.0.1:9 listen=127.0.0.1:10|listen=127.0.0.1:10
dumps=1 dumps=2|dumps=2
listen=0.0.0.0:9|listen=0.0.0.0:9
listen=10.1.2.3:9|listen=10.1.2.3:9
listen=127.0.0.1:9 key=/nonexistent|key=/nonexistent
EOF2
# The same, where an old tracer took the config and recorded (the
# timeout ends it): a key's value ends at a blank, slashes or not; the
# filter /0/ (ftrace reads it as "no filter", perf refuses it) is
# refused on both engines.
while IFS='|' read -r cfg tok; do
	err=$(timeout 20 "$TRACER" -o "$T/cfg0.out" "$cfg" 2>&1 >/dev/null </dev/null); rc=$?
	case "$rc:$err" in
	2:*"'$tok' at "*) pass "bad config '$cfg' exits 2 naming '$tok'" ;;
	*) fail "bad config '$cfg' exits 2 naming '$tok'" "rc=$rc: $err" ;;
	esac
done <<'EOF2'
out=/tmp/x/y buf=12q|buf=12q
sched:sched_switch signal:signal_generate/0/|signal:signal_generate/0/
sched:sched_switch signal:signal_generate/ 0 / engine=perf|signal:signal_generate/ 0 /
signal:*/0/|signal:*/0/
sched:sched_switch trip=signal:signal_generate/0/|trip=signal:signal_generate/0/
EOF2
rm -f "$T/cfg0.out"
# -n that wraps is no dump number
err=$("$TRACER" -x -n 18446744073709551617 </dev/null 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"-n 18446744073709551617"*) pass "-n too big: exit 2, named" ;; *) fail "-n too big: exit 2, named" "rc=$rc $err" ;; esac

# the position is that of the token: 1-based
err=$("$TRACER" 'sched:sched_switch  frob=1' 2>&1 >/dev/null)
case "$err" in *"at 21"*) pass "error gives the token's position" ;; *) fail "error gives the token's position" "$err" ;; esac
start_tracer "$T/k" 'buf=64k' && check "only keys: the default events" grep -q "recording 6 events on .* 64 KiB" "$T/k.err"
stop_tracer >/dev/null
"$TRACER" -q >/dev/null 2>&1; testing "unknown option exits 2" 2 $?
"$TRACER" a b >/dev/null 2>&1; testing "two configs exit 2" 2 $?

# -f FILE reads the config; its errors name the token too
printf 'sched:sched_switch\nbuf=64k;cpu-clock@99\n' >"$T/cfg"
start_tracer "$T/f" -f "$T/cfg" && check "-f FILE config" grep -q "recording 2 events" "$T/f.err"
stop_tracer >/dev/null
printf 'sched:sched_switch\n  bogus\n' >"$T/cfg"
err=$("$TRACER" -f "$T/cfg" 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"'bogus' at 22"*) pass "-f FILE error names token and position" ;;
*) fail "-f FILE error names token and position" "rc=$rc $err" ;; esac

# a 17th tripwire: refused, the limit named
err=$("$TRACER" "$(for i in $(seq 17); do printf 'trip=sched:sched_process_exec '; done)" 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"' at 481: too many tripwires: at most 16"*) pass "a 17th tripwire: exit 2, '$err'" ;;
*) fail "a 17th tripwire: exit 2, the limit named" "rc=$rc $err" ;; esac

# a time of 0 needs no unit (holdoff=0us was taken, holdoff=0 refused);
# any other time does
for c in 'holdoff=0' 'trip=sched:sched_process_exec,holdoff=0,after=0'; do
	if start_tracer "$T/h0" "$c cpu-clock@9"; then pass "'$c' is taken"; stop_tracer >/dev/null
	else fail "'$c' is taken" "$(cat "$T/h0.err")"; fi
done
err=$("$TRACER" "holdoff=5 cpu-clock" 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"'holdoff=5' at 1: a time up to 1000s"*) pass "holdoff=5 (no unit): exit 2" ;;
*) fail "holdoff=5 (no unit): exit 2" "rc=$rc $err" ;; esac

# a blank -f FILE is no config: refused, not the default config run
printf ' \n\t\n  \n' >"$T/cfgb"
err=$(timeout 10 "$TRACER" -f "$T/cfgb" 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 2:*"-f $T/cfgb: blank"*) pass "-f on a blank file: exit 2, '$err'" ;;
*) fail "-f on a blank file: exit 2, says blank" "rc=$rc $err" ;; esac

# Run-time errors say what to do next (exit 1).
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TRACER" cpu-clock 2>&1 >/dev/null); rc=$?
case "$rc:$err" in 1:*"needs root or CAP_PERFMON (perf_event_paranoid="*) pass "non-root: needs root or CAP_PERFMON" ;;
*) fail "non-root: needs root or CAP_PERFMON" "rc=$rc $err" ;; esac
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/armv8_pmuv3 ]; then
	skip "hardware event without a PMU" "this machine has a PMU"
else
	err=$("$TRACER" cycles 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in 1:*"cycles: no hardware PMU"*) pass "cycles without a PMU: clear error" ;;
	*) fail "cycles without a PMU: clear error" "rc=$rc $err" ;; esac
fi
mkdir -p "$T/ro" && mount -t tmpfs -o ro tmpfs "$T/ro"
err=$("$TRACER" -o "$T/ro/d.data" cpu-clock 2>&1 >/dev/null); rc=$?
umount "$T/ro"
case "$rc:$err" in 1:*"can't create files in $T/ro: Read-only file system"*) pass "-o in a read-only dir fails at start" ;;
*) fail "-o in a read-only dir fails at start" "rc=$rc $err" ;; esac
# script(1) gives tracer a pty for stdout
if command -v script >/dev/null; then
	err=$(script -qec "$TRACER cpu-clock" /dev/null 2>&1); rc=$?
	case "$rc:$err" in 2:*"stdout is a terminal"*) pass "stdout a terminal: refused" ;;
	*) fail "stdout a terminal: refused" "rc=$rc $err" ;; esac
else
	skip "stdout a terminal: refused" "no script(1) to make a pty"
fi

# README and -h name every key the binary takes (its own list, from the
# unknown-key error), and the README's example lines are the binary's
keys=$("$TRACER" 'frob=1' 2>&1 | sed -n 's/.*unknown key (\(.*\))/\1/p')
h=$("$TRACER" -h)
miss=
for k in $keys lean full stack; do
	grep -q "^| \`$k\|^| \`[a-z]*\`, \`$k\|, \`$k" README.md || miss="$miss README:$k"
	case "$h" in *"$k"*) ;; *) miss="$miss -h:$k" ;; esac
done
[ -n "$keys" ] && [ -z "$miss" ] && pass "README's table and -h name every key ($(echo $keys | wc -w) keys)" ||
	fail "README's table and -h name every key" "keys '$keys', missing:$miss"
e=$("$TRACER" 'sched:sched_switch  frob=1' 2>&1)
grep -qF "    $e" README.md && pass "README's config error example is the binary's" || fail "README's config error example is the binary's" "$e"

# --- a glob with a filter that applies to some of its events only: the
# events left out must not take a CPU's ring with them (cpu 0's was
# closed: its samples lost, engine=perf refused to start, and SIGUSR1's
# pause went to whatever fd came next) ---
if command -v taskset >/dev/null; then
	for eng in "" " engine=perf"; do
		G=gf$$x$RANDOM; G=${G:0:15}; cp "$T/work" "$T/$G"; cp "$T/work" "$T/${G:0:12}off"
		rm -f "$T/gf"
		if start_tracer "$T/gf" -o "$T/gf" "sched:*/prev_pid==1/ cpu-clock@999$eng"; then
			taskset -c 0 "$T/$G" spin 500
			kill -USR1 $TPID; wait_line "$T/gf" "recording off" >/dev/null
			taskset -c 0 "$T/${G:0:12}off" spin 300
			stop_tracer >/dev/null
			perf script -i "$T/gf" -F comm,cpu,event 2>/dev/null >"$T/gf.txt"
			n=$(grep -c "^ *$G \[000\] *cpu-clock" "$T/gf.txt")
			[ "$n" -ge 100 ] && pass "sched:*/prev_pid==1/ cpu-clock@999$eng: cpu 0's samples are there ($n of a 500 ms spin)" ||
				fail "sched:*/prev_pid==1/ cpu-clock@999$eng: cpu 0's samples are there" "$n; $(tail -3 "$T/gf.err")"
			testing "sched:*/prev_pid==1/$eng: SIGUSR1 pauses cpu 0 too" 0 "$(grep -c "^ *${G:0:12}off \[000\] *cpu-clock" "$T/gf.txt")"
		else
			fail "sched:*/prev_pid==1/ cpu-clock@999$eng starts" "$(cat "$T/gf.err")"
		fi
	done
else
	skip "a glob with a filter keeps cpu 0's ring" "no taskset"
fi

# --- a key's value ends at the first separator, whatever ':' and '/'
# it holds: only a tracepoint (bare or trip='s) has a /filter/ (out=
# with a ':' then a '/' took the rest of the config into its path) ---
err=$("$TRACER" 'out=/tmp/a:b/c x' 2>&1 >/dev/null </dev/null); rc=$?
case "$rc:$err" in
2:*"'x' at 16:"*) pass "'out=/tmp/a:b/c x': the path ends at the space; 'x' at 16 named, exit 2" ;;
*) fail "'out=/tmp/a:b/c x': the path ends at the space; 'x' at 16 named, exit 2" "rc=$rc: $err" ;;
esac
mkdir -p "$T/oc:d"; rm -f "$T/oc:d/"*
if start_tracer "$T/oc" "cpu-clock out=$T/oc:d/t.data dumps=1"; then
	kill -USR2 $TPID; wait_rc $TPID 20
	[ "$RC" = 0 ] && [ -s "$T/oc:d/t.data" ] && pass "out=DIR:X/FILE then dumps=1: the dump in FILE, and the key after it read (exit 0)" ||
		fail "out=DIR:X/FILE then dumps=1: the dump in FILE, and dumps=1 read" "rc=$RC; $(ls "$T/oc:d"); $(tail -2 "$T/oc.err")"
else
	fail "out=DIR:X/FILE dumps=1: tracer records" "$(cat "$T/oc.err")"
fi

# --- a memory cgroup too small for buf=: tracer says what the config
# needs and what the cgroup allows, exits 1 and leaves no instance,
# where the OOM killer ended it with 137 and no word; a buf= that fits
# records as ever (a cgroup v1 memory controller, or v2's) ---
cg_make() {	# cg_make BYTES: a new memory cgroup into CG, or 1
	local m
	m=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$m" ]; then
		CG=$m/tracer-t.$$; mkdir -p "$CG" && echo "$1" >"$CG/memory.limit_in_bytes" || return 1
		echo "$1" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null
		return 0
	fi
	m=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$m" ] && grep -qw memory "$m/cgroup.subtree_control" 2>/dev/null || return 1
	CG=$m/tracer-t.$$; mkdir -p "$CG" && echo "$1" >"$CG/memory.max" || return 1
	echo 0 >"$CG/memory.swap.max" 2>/dev/null
	return 0
}
if cg_make $((48 << 20)); then
	for b in 16m 2m; do
		: >"$T/cg.err"
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -o "$3" "$4"' sh "$CG" "$TRACER" "$T/cg$b.data" \
			"sched:sched_switch cpu-clock buf=$b" 2>"$T/cg.err" & TPID=$!; TRACERS="$TRACERS $TPID"
		for i in $(seq 100); do grep -q "recording" "$T/cg.err" && break; kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
		kill -INT $TPID 2>/dev/null; wait_rc $TPID 30
		fs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
		if [ $b = 16m ]; then
			[ "$RC" = 1 ] && grep -q "MiB more needed, and memory cgroup /tracer-t.$$ allows [0-9]* MiB more" "$T/cg.err" &&
				{ [ -z "$fs" ] || [ ! -e "$fs/instances/tracer.$TPID" ]; } &&
				pass "buf=16m on $(nproc) CPUs in a 48 MiB memory cgroup: $(grep -o "[a-z' ]*: [0-9]* MiB more needed.* MiB more" "$T/cg.err"), exit 1, no instance" ||
				fail "buf=16m in a 48 MiB memory cgroup: the need said, exit 1, no instance" "rc=$RC; $(tail -2 "$T/cg.err")"
		else
			n=$(perf script -i "$T/cg$b.data" 2>/dev/null | grep -c "sched_switch")
			[ "$RC" = 0 ] && [ "$n" -gt 0 ] && pass "buf=2m in the same cgroup: records and dumps ($n switches), exit 0" ||
				fail "buf=2m in the same cgroup: records and dumps" "rc=$RC, $n; $(tail -2 "$T/cg.err")"
		fi
	done
	rmdir "$CG" 2>/dev/null
else
	skip "a memory cgroup too small for buf=" "no memory cgroup controller to make one with"
fi

# --- ftrace's own events reach no perf ring: engine=perf refuses
# ftrace:print by name (it recorded nothing, and said nothing) ---
rm -f "$T/fp.data"*
out=$(timeout 10 "$TRACER" -o "$T/fp.data" 'ftrace:print engine=perf' 2>&1); rc=$?
case "$rc:$out" in
2:*"'ftrace:print' at 1: ftrace writes it to its own buffer only, never to perf rings"*) pass "ftrace:print engine=perf: refused, named, exit 2" ;;
*) fail "ftrace:print engine=perf: refused, named, exit 2" "rc=$rc: $out" ;;
esac

# --- hundreds of tracepoints on perf rings: the kernel's exit takes a
# grace period for each; tracer says so after its final dump (it sat
# silent for a minute) ---
if start_tracer "$T/many" -o "$T/many.data" 'syscalls:sys_enter_* engine=perf'; then
	kill -INT $TPID; wait_rc $TPID 120
	n=$(grep -o "recording [0-9]* events" "$T/many.err" | grep -o "[0-9]*")
	[ "$RC" = 0 ] && grep -A1 "dump 1 (exit)" "$T/many.err" | grep -q "exiting: the kernel closes $n tracepoints' perf events, a grace period each" &&
		pass "syscalls:sys_enter_* engine=perf: the slow exit is said ($n events), exit 0" ||
		fail "syscalls:sys_enter_* engine=perf: the slow exit is said, exit 0" "rc=$RC; $(tail -2 "$T/many.err")"
fi

# --- a long token: the message keeps its reason (messages are 512
# bytes: a 700-byte token took the reason out) ---
long=$(head -c 700 /dev/zero | tr '\0' x)
out=$("$TRACER" "cpu-clock buf=$long" 2>&1 >/dev/null); rc=$?
case "$rc:$out" in
2:*"' at 11: bad size: use a number with k or m, up to 1g") pass "a 704-byte token: named (cut), its position and the reason said, exit 2" ;;
*) fail "a 704-byte token: its position and the reason said, exit 2" "rc=$rc: ${out: -120}" ;;
esac
