# zstd: compressed dumps (the zstd key). The judge is the zstd tool and
# host perf: every PERF_RECORD_COMPRESSED holds one whole zstd frame that
# `zstd -d` decompresses, records stay 8-byte aligned, and perf decodes
# our compressed stream exactly as it decodes the same stream with every
# record decompressed by zstd (test/unzstd.py). The reader matrix
# (t_readers.sh) runs every compressed mode through every perf version.

if ! command -v zstd >/dev/null; then
	fail "zstd: the zstd tool, the judge, is not installed"
else
	zstop() { local p; for p in $WORKS; do kill $p 2>/dev/null; done; WORKS=; wait 2>/dev/null; }
	zheader() {	# MODE FILE: the header names the compression
		perf report --header-only -i "$2" 2>/dev/null | grep -q "^# compressed : Zstd" &&
			pass "$1: the header says compressed: Zstd" || fail "$1: the header says compressed: Zstd"
	}
	w=zst$$; w=${w:0:14}
	# 1. a stream of two dumps, with a workload in each
	# (the default config, and a machine where processes come and go)
	if start_tracer "$T/z1" 'zstd'; then
		run_work $w spin 200 signal sleep 20 hold
		for i in $(seq 30); do ls /usr/bin >/dev/null; done
		held $WPID
		dump_wait "$T/z1" 1 >/dev/null
		"$T/$w" spin 100 signal
		stop_tracer >/dev/null
		out=$(python3 test/unzstd.py "$T/z1.out" "$T/z1.raw" 2>&1); rc=$?
		testing "stream: every compressed record is one zstd frame zstd -d takes, 8-byte aligned" "0 0" \
			"$rc $(echo "$out" | awk '{ print $NF }')"
		perf script -i "$T/z1.out" --ns >"$T/z1.s" 2>"$T/z1.serr"
		perf script -i "$T/z1.raw" --ns >"$T/z1.r" 2>/dev/null
		n=$(grep -c "^ *$w " "$T/z1.s")
		[ "$n" -gt 0 ] && cmp -s "$T/z1.s" "$T/z1.r" && [ ! -s "$T/z1.serr" ] &&
			pass "stream: perf decodes it as the same stream decompressed ($(wc -l <"$T/z1.s") lines, $n of $w)" ||
			fail "stream: perf decodes it as the same stream decompressed" "$n of $w; $(diff "$T/z1.s" "$T/z1.r" | head -3; head -c 200 "$T/z1.serr")"
		grep -q "sig=10 .*comm=$w " "$T/z1.s" && pass "stream: the workload's signal decodes" ||
			fail "stream: the workload's signal decodes"
		# 115200 baud carries bytes: a third of the bytes is a third
		# of the time (make bench times it on a pty)
		set -- $(sed -n 's/.*dump 1 (signal): \([0-9]*\) bytes (zstd, from \([0-9]*\)).*/\1 \2/p' "$T/z1.err")
		[ -n "${2:-}" ] && [ $(($1 * 3)) -le "$2" ] &&
			pass "stream: dump 1 is at most a third: $1 of $2 bytes ($(($2 / $1)).$(($2 * 10 / $1 % 10))x)" ||
			fail "stream: dump 1 is at most a third" "$(grep 'dump 1' "$T/z1.err")"
		zheader stream "$T/z1.out"
	else
		fail "zstd stream: tracer records" "$(cat "$T/z1.err")"
	fi
	zstop

	# 2. file mode: a standalone file per dump, its data compressed
	w=${w}f
	rm -f "$T/z2.data"*
	if start_tracer "$T/z2" -o "$T/z2.data" 'buf=1m zstd'; then
		run_work $w spin 200 signal sleep 20 hold; held $WPID
		stop_tracer >/dev/null
		perf script -i "$T/z2.data" >"$T/z2.s" 2>"$T/z2.serr"
		grep -q "sig=10 .*comm=$w " "$T/z2.s" && grep -q "^ *$w .*cpu-clock" "$T/z2.s" && [ ! -s "$T/z2.serr" ] &&
			pass "file: perf decodes the workload's signal and samples, no complaint" ||
			fail "file: perf decodes the workload" "$(head -c 300 "$T/z2.serr")"
		zheader file "$T/z2.data"
	else
		fail "zstd file: tracer records" "$(cat "$T/z2.err")"
	fi
	zstop

	# 3. 16 MiB rings full of syscalls: hundreds of frames, in order
	if start_tracer "$T/z3" 'raw_syscalls:sys_enter buf=16m zstd'; then
		"$T/work" close 400000
		stop_tracer >/dev/null
		out=$(python3 test/unzstd.py "$T/z3.out" "$T/z3.raw" 2>&1); rc=$?
		perf script -i "$T/z3.out" --ns >"$T/z3.s" 2>/dev/null
		perf script -i "$T/z3.raw" --ns >"$T/z3.r" 2>/dev/null
		set -- $out
		[ $rc = 0 ] && [ "${2:-0}" -gt 100 ] && cmp -s "$T/z3.s" "$T/z3.r" && [ "$(wc -l <"$T/z3.s")" -gt 100000 ] &&
			pass "buf=16m: $2 frames, decoded as decompressed ($(wc -l <"$T/z3.s") lines)" ||
			fail "buf=16m: decoded as decompressed" "rc=$rc $out; $(wc -l <"$T/z3.s") lines"
		monotonic "$T/z3.out" && pass "buf=16m: timestamps in order" || fail "buf=16m: timestamps in order"
	else
		fail "zstd buf=16m: tracer records" "$(cat "$T/z3.err")"
	fi
fi
