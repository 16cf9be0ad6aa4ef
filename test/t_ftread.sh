# The ftrace engine's read paths, each forced on this host with
# TRACER_FTPATH=map|snap|read[:KB] (a test-only switch; KB: the
# sub-buffers' size): numbered syscalls
# (close(100000 + i), i = 0..N-1, on cpu 0) overfill a 16 MiB ring, and
# the final dump must hold the newest one and every one before it that
# the ring still held, in order: a run from some number to N-1. Judged
# by host perf, on the records of our own process only.

FTI=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$FTI" ] || FTI=/sys/kernel/tracing
FTN=400000	# the ring (16 MiB, 68 bytes a record) holds about 246000

# ftnum FILE PID N: "count first last breaks" of PID's numbered closes
ftnum() { numbered "$1" "$2" 3 "$3" 2>/dev/null; }

# ftpath NAME PATH "by WORDS" [CLOCK]: the numbered closes through PATH
# (the instance's trace_clock set to CLOCK once it records)
ftpath() {
	local x=$1 path=$2 by=$3 clk=${4:-} wp
	TRACER=$HOOKED TRACER_FTPATH=$path start_tracer "$T/fr$x" 'raw_syscalls:sys_enter/id==3/ buf=16m cpus=0' || return
	if ! grep -q "by $by;" "$T/fr$x.err"; then
		fail "TRACER_FTPATH=$path reads by $by" "$(cat "$T/fr$x.err")"
		stop_tracer >/dev/null
		return
	fi
	# a coarse clock (uptime: 10 ms ticks): many pages of one stamp
	[ -z "$clk" ] || echo "$clk" >"$FTI/instances/tracer.$TPID/trace_clock" || {
		skip "$by, trace_clock $clk" "the instance refuses it"; stop_tracer >/dev/null; return; }
	by="$by${clk:+, trace_clock $clk}"
	case $path in *:*) by="$by, ${path#*:} KiB sub-buffers" ;; esac
	taskset -c 0 "$T/work" close $FTN & wp=$!
	wait $wp
	stop_tracer >/dev/null
	set -- $(ftnum "$T/fr$x.out" $wp $FTN)
	# a run of at least 200000 up to the last (the ring holds ~246000
	# less what else runs on cpu 0)
	[ "${1:-0}" -ge 200000 ] && [ "$3" = $((FTN - 1)) ] && [ "$4" = 0 ] &&
		pass "$by: the final dump holds the newest close and the $1 before it, in order ($2..$3)" ||
		fail "$by: the final dump holds the newest closes, in order" "$1 closes, $2..$3 of 0..$((FTN - 1)), $4 breaks"
	# the ring wrapped: the dump line says so
	grep "dump 1 (exit)" "$T/fr$x.err" | grep -q "covers all since" &&
		fail "$by: a ring that wrapped is not said to cover all" "$(grep 'dump 1' "$T/fr$x.err")" ||
		pass "$by: the dump line says the ring wrapped ($(grep -o 'covers [^,]*' "$T/fr$x.err"))"
	# read pages: the kernel counts what it overwrote before them
	case $path in map*) ;; *) grep "dump 1 (exit)" "$T/fr$x.err" | grep -q "[1-9][0-9]* before them overwritten)" &&
		pass "$by: the dump line counts what the kernel overwrote ($(grep -o '[0-9]* before them overwritten' "$T/fr$x.err"))" ||
		fail "$by: the dump line counts what the kernel overwrote" "$(grep 'dump 1' "$T/fr$x.err")" ;; esac
}

# TRACER_FTPATH is in a binary of its own (Kconfig TESTHOOKS, off in
# defconfig), built from defconfig with it on
if ! hooked; then
	fail "defconfig with TESTHOOKS builds" "$(tail -3 "$T/kc-hooks.log")"
elif [ "$(uname -m)" != x86_64 ]; then
	skip "ftrace read paths" "close is syscall 3 on x86_64 only"
elif [ ! -d "$FTI/instances" ]; then
	skip "ftrace read paths" "no tracefs instances"
else
	ftpath m map "mapped pages"
	ftpath u map "mapped pages" uptime
	ftpath r read "consuming reads"
	# sub-buffers larger than a page (buffer_subbuf_size_kb, 6.8+)
	if [ -e "$FTI/buffer_subbuf_size_kb" ]; then
		ftpath m64 map:64 "mapped pages"
		ftpath r64 read:64 "consuming reads"
	else
		skip "64 KiB sub-buffers" "no $FTI/buffer_subbuf_size_kb (Linux 6.8+)"
	fi
	if [ -e "$FTI/snapshot" ]; then
		ftpath s snap "snapshot swaps"
	else
		skip "snapshot swaps" "no $FTI/snapshot (no CONFIG_TRACER_SNAPSHOT)"
	fi
fi

# The walk of crafted pages: a discarded event's delta, the missed-events
# flags, pages of one stamp in the ring's order.
if cc_out=$(${CC:-musl-gcc} -static -O1 -I. -Ilib -o "$T/fttest" test/fttest.c lib/lib.c lib/memcg.c lib/room.c lib/zstd.c ring.c lib/frame.c lib/sink.c \
	lib/pull.c lib/dur.c lib/cfg.c lib/print.c lib/perfdata.c lib/buildid.c lib/seen.c lib/proc.c lib/track.c lib/lean.c 2>&1); then
	while read -r r; do
		case $r in PASS:*) pass "fttest: ${r#PASS: }" ;; SKIP:*) r=${r#SKIP: }; skip "fttest: ${r%: *}" "${r##*: }" ;;
		*) fail "fttest: ${r#FAIL: }" ;; esac
	done < <("$T/fttest")
else
	fail "test/fttest.c builds" "$cc_out"
fi

if [ -d "$FTI/instances" ]; then
	# buf=1g, the largest: its ring and the reader's page are more than
	# 1 GiB, and still mapped (a consuming read of it paused for seconds)
	avail=$(awk '/^MemAvailable/ { print int($2 / 1048576) }' /proc/meminfo)
	if [ "${avail:-0}" -lt $((2 * $(nproc) + 4)) ]; then
		skip "buf=1g maps" "${avail} GiB available, $((2 * $(nproc) + 4)) wanted"
	else
		# (its set-up takes a while: 1 GiB rings per CPU and copies)
		"$TRACER" -o "$T/fg.out" 'raw_syscalls:sys_enter/id==3/ buf=1g cpus=0' 2>"$T/fg.err" & TPID=$!
		for i in $(seq 600); do grep -q recording "$T/fg.err" && break; kill -0 $TPID 2>/dev/null || break; sleep 0.1; done
		grep -q "by mapped pages;" "$T/fg.err" && pass "buf=1g: mapped" ||
			fail "buf=1g: mapped" "$(cat "$T/fg.err")"
		stop_tracer >/dev/null
	fi

	# The progress line's total: what the dump comes to. A fifo read at
	# about 320 KB/s takes a 1 MiB ring's ~2 MB in some 6 s (a line
	# every 3 s).
	mkfifo "$T/fslow"
	( while dd bs=32k count=1 iflag=fullblock 2>/dev/null | grep -q . ; do sleep 0.1; done <"$T/fslow" ) & SR=$!
	if start_tracer "$T/fe" -o "$T/fslow" 'raw_syscalls:sys_enter/id==3/ buf=1m cpus=0'; then
		taskset -c 0 "$T/work" close 40000
		dump_wait "$T/fe" 1 >/dev/null
		h=$(sed -n 's/.*dump 1: [0-9]* of ~\([0-9]*\) bytes written.*/\1/p' "$T/fe.err" | head -1)
		n=$(sed -n 's/.*dump 1 (signal): \([0-9]*\) bytes.*/\1/p' "$T/fe.err")
		[ -n "$h" ] && [ -n "$n" ] && [ $((h * 10)) -ge $((n * 8)) ] && [ $((h * 10)) -le $((n * 12)) ] &&
			pass "the progress line's total is the dump's size, give or take 20% (~$h of $n bytes)" ||
			fail "the progress line's total is the dump's size, give or take 20%" "~${h:-no progress line} of ${n:-?} bytes"
		stop_tracer >/dev/null
	fi
	kill $SR 2>/dev/null
fi
