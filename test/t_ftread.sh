# The ftrace engine's read paths, each forced on this host with
# TRACER_FTPATH=map|snap|read (a test-only switch): numbered syscalls
# (close(100000 + i), i = 0..N-1, on cpu 0) overfill a 16 MiB ring, and
# the final dump must hold the newest one and every one before it that
# the ring still held, in order: a run from some number to N-1. Judged
# by host perf, on the records of our own process only.

FTI=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$FTI" ] || FTI=/sys/kernel/tracing
FTN=400000	# the ring (16 MiB, 68 bytes a record) holds about 246000

# ftnum FILE PID N: "count first last breaks" of PID's numbered closes
ftnum() {
	perf script -i "$1" -F pid,trace 2>/dev/null | python3 -c '
import sys
pid, n = sys.argv[1], int(sys.argv[2])
c = first = last = bad = 0
for l in sys.stdin:
    f = l.split()
    if len(f) < 4 or f[0] != pid or f[2] != "3":
        continue
    v = int(f[3].strip("(,"), 16) - 100000
    if not 0 <= v < n:
        continue
    if c and v != last + 1:
        bad += 1
    if not c:
        first = v
    c += 1
    last = v
print(c, first, last, bad)' "$2" "$3"
}

# ftpath NAME PATH "by WORDS": the numbered closes through PATH
ftpath() {
	local x=$1 path=$2 by=$3 wp
	TRACER_FTPATH=$path start_tracer "$T/fr$x" 'raw_syscalls:sys_enter/id==3/ buf=16m cpus=0' || return
	if ! grep -q "by $by;" "$T/fr$x.err"; then
		fail "TRACER_FTPATH=$path reads by $by" "$(cat "$T/fr$x.err")"
		stop_tracer >/dev/null
		return
	fi
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
}

if [ "$(uname -m)" != x86_64 ]; then
	skip "ftrace read paths" "close is syscall 3 on x86_64 only"
elif [ ! -d "$FTI/instances" ]; then
	skip "ftrace read paths" "no tracefs instances"
else
	ftpath m map "mapped pages"
	ftpath r read "consuming reads"
	if [ -e "$FTI/snapshot" ]; then
		ftpath s snap "snapshot swaps"
	else
		skip "snapshot swaps" "no $FTI/snapshot (no CONFIG_TRACER_SNAPSHOT)"
	fi
fi
