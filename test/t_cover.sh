# Coverage: each dump's line says what time it covers on all CPUs and on
# some, and trim cuts every CPU to the same start. The judge is perf
# script's own per-CPU first and newest record times.

# firsts FILE: "cpu first newest" per CPU, and "all - newest" (seconds,
# to the µs: awk's default %.6g keeps one decimal of a 5-digit uptime)
firsts() {
	perf script -i "$1" -F cpu,time --ns 2>/dev/null | tr -d '[]:' |
		awk '{ c = $1 + 0; t = $2 + 0; if (!(c in f)) f[c] = t; if (t > n) n = t }
		     END { for (c in f) printf "%d %.6f %.6f\n", c, f[c], n }' | sort -n
}
# near A B: |A - B| <= 0.02 (seconds, as printed)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 0.02 && d >= -0.02) }'; }

# The busy CPU 0 wraps its ring within milliseconds; CPU 1 ran a short
# burst a second before, and has not wrapped since: ragged.
ragged() {	# LOG CONFIG CLOSES-ON-CPU1 [SECONDS-AFTER]
	rm -f "$T/$1.data"*
	# only the workload's closes (fds from 100000): nothing else on the
	# machine moves the rings
	start_tracer "$T/$1" -o "$T/$1.data" "syscalls:sys_enter_close/fd>=100000/ $2" || return 1
	taskset -c 1 "$T/work" close $3
	sleep 1
	taskset -c 0 "$T/work" close 200000
	sleep ${4:-0.5}
	stop_tracer >/dev/null
	firsts "$T/$1.data" >"$T/$1.f"
}

if [ "$(nproc)" -lt 2 ]; then
	skip "coverage" "needs 2 CPUs"
elif ragged cv1 buf=1m 200; then
	l=$(grep "dump 1 (exit)" "$T/cv1.err")
	cov=$(echo "$l" | sed -n 's/.*covers \([0-9.]*\) s on all CPUs (cpu \([0-9]*\) least), \(.*\) on some.*/\1 \2 \3/p')
	set -- $cov
	f=$(awk -v c="${2:--1}" '$1 == c { print $2, $3 }' "$T/cv1.f")
	[ -n "$cov" ] && [ -n "$f" ] && near "$1" "$(echo "$f" | awk '{ print $2 - $1 }')" &&
		pass "covers $1 s on all CPUs: the newest record less cpu $2's oldest, as perf shows" ||
		fail "the common coverage is what perf shows" "line: $l; perf: $(tr '\n' ';' <"$T/cv1.f")"
	case "$3 $4 $5 $6" in "all since the start") pass "a CPU that did not wrap covers all since the start" ;;
	*) fail "a CPU that did not wrap covers all since the start" "$l" ;; esac
	# ragged: without trim, cpu 1 starts long before cpu 0
	r=$(awk '{ if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2 } END { print hi - lo }' "$T/cv1.f")
	awk -v r="$r" 'BEGIN { exit !(r > 0.5) }' && pass "without trim the CPUs start $r s apart" ||
		fail "without trim the CPUs start apart (the scenario is ragged)" "$(tr '\n' ';' <"$T/cv1.f")"
else
	fail "coverage: tracer records" "$(cat "$T/cv1.err")"
fi

# trim: nothing older than the oldest record of the ring that wrapped
# last; it is the first record of its CPU, every other CPU starts at or
# after it. The processes' names (the side-band) stay.
# both wrapped: "Y s on some" is the newest record less the oldest of all
if [ "$(nproc)" -ge 2 ] && ragged cv3 buf=64k 3000; then
	l=$(grep "dump 1 (exit)" "$T/cv3.err")
	y=$(echo "$l" | sed -n 's/.*least), \([0-9.]*\) s on some.*/\1/p')
	e=$(awk '{ if (!n++ || $2 < lo) lo = $2; hi = $3 } END { print hi - lo }' "$T/cv3.f")
	[ -n "$y" ] && near "$y" "$e" && pass "both wrapped: covers $y s on some, as perf shows" ||
		fail "both wrapped: the coverage on some is what perf shows ($e)" "$l"
elif [ "$(nproc)" -ge 2 ]; then
	fail "coverage: tracer records" "$(cat "$T/cv3.err")"
fi

# (CPU 1 wrapped a second before CPU 0, which wraps until the end: CPU
# 0's oldest record is the common start)
if [ "$(nproc)" -ge 2 ] && ragged cv2 "buf=64k trim" 3000 0; then
	l=$(grep "dump 1 (exit)" "$T/cv2.err")
	c=$(echo "$l" | sed -n "s/.*on all CPUs (trimmed to cpu \([0-9]*\)'s oldest).*/\1/p")
	lim=$(awk -v c="${c:--1}" '$1 == c { print $2 }' "$T/cv2.f")
	bad=$(awk -v l="${lim:-0}" '$2 < l { n++ } END { print n + 0 }' "$T/cv2.f")
	[ -n "$lim" ] && [ "$bad" = 0 ] &&
		pass "trim: every CPU starts at or after cpu $c's oldest record ($lim)" ||
		fail "trim: every CPU starts at or after the common start" "line: $l; perf: $(tr '\n' ';' <"$T/cv2.f")"
	# the same check fails on the untrimmed dump: trim did the cutting
	c1=$(sed -n 's/.*(cpu \([0-9]*\) least).*/\1/p' "$T/cv1.err" | head -1)
	lim1=$(awk -v c="${c1:--1}" '$1 == c { print $2 }' "$T/cv1.f")
	bad1=$(awk -v l="${lim1:-0}" '$2 < l { n++ } END { print n + 0 }' "$T/cv1.f")
	testing "untrimmed, the same check finds a CPU that starts earlier" 1 "$bad1"
	perf script -i "$T/cv2.data" -F comm 2>/dev/null | grep -qw work &&
		pass "trim keeps the side-band: the workload is named" || fail "trim keeps the side-band: the workload is named"
elif [ "$(nproc)" -ge 2 ]; then
	fail "trim: tracer records" "$(cat "$T/cv2.err")"
fi
