# Surviving a crash (PERSIST, off in defconfig): what this host can
# check. A persistent instance needs the kernel command line (reserve_mem=
# trace_instance=, Linux 6.12), so the recording across a panic and
# tracer -b's dump of the boot before are judged in QEMU (test/qemu.sh,
# scenario p). Here: a build with PERSIST, and each refusal with a clear
# word, its exit status, and nothing left in tracefs.

PK=$T/persist; rm -rf "$PK"; mkdir "$PK"
copy_src "$PK"
if ! { make -s -C "$PK" defconfig && sed -i 's/^# CONFIG_PERSIST is not set/CONFIG_PERSIST=y/' "$PK/.config" &&
	make -s -C "$PK" tracer; } >"$PK.log" 2>&1; then
	fail "a build with PERSIST" "$(tail -5 "$PK.log")"
else
	pass "a build with PERSIST: $(wc -c <"$PK/tracer") bytes, defconfig $(wc -c <tracer)"
	INST=$(awk '$3 == "tracefs" { print $2 "/instances"; exit }' /proc/mounts)
	[ -n "$INST" ] || INST=/sys/kernel/tracing/instances
	# (but the tracer.* of other tracers running beside)
	i0=$(ls "$INST" 2>/dev/null | grep -v '^tracer\.' | sort | tr '\n' ' ')
	# persist= on an instance the kernel command line did not make
	out=$("$PK/tracer" -o "$T/pm.data" "persist=nosuch$$ sched:sched_switch" 2>&1); rc=$?
	case "$rc:$out" in 1:*"persist=nosuch$$: no persistent instance; boot Linux 6.12+ with reserve_mem="*"trace_instance=nosuch$$@trace"*)
		pass "persist= without such an instance: exit 1, and the command line to boot with" ;;
	*) fail "persist= without such an instance: exit 1 and the command line" "rc=$rc: $out" ;; esac
	# an ordinary instance is not a persistent one (no last_boot_info),
	# and tracer leaves it as it was
	if [ -d "$INST" ] && mkdir "$INST/tp$$" 2>/dev/null; then
		e0=$(cat "$INST/tp$$/events/sched/sched_switch/enable")
		out=$("$PK/tracer" -o "$T/pm.data" "persist=tp$$ sched:sched_switch" 2>&1); rc=$?
		e1=$(cat "$INST/tp$$/events/sched/sched_switch/enable")
		case "$rc:$out" in 1:*"persist=tp$$: no persistent instance"*)
			[ "$e0" = "$e1" ] && [ -d "$INST/tp$$" ] && pass "persist= on an ordinary instance: refused, exit 1, the instance as it was" ||
				fail "persist= on an ordinary instance leaves it as it was" "enable $e0 -> $e1" ;;
		*) fail "persist= on an ordinary instance: refused, exit 1" "rc=$rc: $out" ;; esac
		rmdir "$INST/tp$$"
	else
		skip "persist= on an ordinary instance" "no tracefs instances here"
	fi
	[ ! -e "$T/pm.data" ] && pass "nothing written where persist= was refused" || fail "nothing written where persist= was refused" "$(ls -l "$T/pm.data")"
	# persist= takes the ftrace engine
	out=$("$PK/tracer" "persist=x engine=perf sched:sched_switch" 2>&1 </dev/null >/dev/null); rc=$?
	case "$rc:$out" in 2:*"persist= takes the ftrace engine; engine=perf needs perf rings"*) pass "persist= with engine=perf: a config error, exit 2" ;;
	*) fail "persist= with engine=perf: a config error, exit 2" "rc=$rc: $out" ;; esac
	out=$("$PK/tracer" "persist=../x sched:sched_switch" 2>&1 </dev/null >/dev/null); rc=$?
	case "$rc:$out" in 2:*"'persist=../x' at 1: persist=INSTANCE"*) pass "persist= with a path, not a name: exit 2, quoting that token alone" ;;
	*) fail "persist= with a path, not a name: exit 2, quoting that token alone" "rc=$rc: $out" ;; esac
	# persist= records tracepoints: with none it is a config error (the
	# timeout only ends a tracer that took it and records on)
	out=$(timeout 20 "$PK/tracer" -o "$T/pn.data" "cpu-clock persist=x" 2>&1 </dev/null >/dev/null); rc=$?
	case "$rc:$out" in 2:*"'persist=x' at 11: persist= records tracepoints, and the config has none"*)
		pass "persist= in a config with no tracepoints: exit 2, naming it" ;;
	*) fail "persist= in a config with no tracepoints: exit 2, naming it" "rc=$rc: $out" ;; esac
	# tracer -b where no instance holds a boot before: says so, writes nothing
	out=$("$PK/tracer" -b -o "$T/pb.data" 2>&1); rc=$?
	case "$rc:$out" in 1:*"-b: no instance in "*"holds the boot before"*)
		[ ! -e "$T/pb.data" ] && pass "tracer -b with no boot before: exit 1, says so, no file" ||
			fail "tracer -b with no boot before writes no file" "$(ls -l "$T/pb.data")" ;;
	*) fail "tracer -b with no boot before: exit 1, says so" "rc=$rc: $out" ;; esac
	# -b reads the boot before once: where it goes is checked before
	out=$("$PK/tracer" -b -o "$T/nodir/pb.data" 2>&1); rc=$?
	case "$rc:$out" in 1:*"-b: -o $T/nodir/pb.data:"*) pass "tracer -b to a file it cannot create: refused before reading, exit 1" ;;
	*) fail "tracer -b to a file it cannot create: refused before reading" "rc=$rc: $out" ;; esac
	out=$("$PK/tracer" -b -x 2>&1 </dev/null); rc=$?
	[ $rc = 2 ] && pass "tracer -b -x: a usage error, exit 2" || fail "tracer -b -x: a usage error, exit 2" "rc=$rc: $out"
	testing "tracefs instances as they were" "$i0" "$(ls "$INST" 2>/dev/null | grep -v '^tracer\.' | sort | tr '\n' ' ')"
	# without PERSIST (defconfig): both say not built in
	out=$(./tracer -b 2>&1 </dev/null); rc=$?
	case "$rc:$out" in 2:*"not built in (CONFIG_PERSIST)"*) pass "defconfig: tracer -b says not built in, exit 2" ;;
	*) fail "defconfig: tracer -b says not built in" "rc=$rc: $out" ;; esac
	out=$(./tracer "persist=x cpu-clock" 2>&1 </dev/null >/dev/null); rc=$?
	case "$rc:$out" in 2:*"not built in (CONFIG_PERSIST)"*) pass "defconfig: persist= says not built in, exit 2" ;;
	*) fail "defconfig: persist= says not built in" "rc=$rc: $out" ;; esac
fi
