# The -o series' bound (ROOM: files= room= free=): a crash loop (a
# program that segfaults 20 times a second) under a tripwire with no
# holdoff, into an 8 MiB tmpfs, while another program appends a line to
# a file there every 100 ms. Sampled every 0.2 s: the series within
# room=, the filesystem's free space never under free= (less what the
# appender took since). The appender never fails, a file named like the
# series that tracer did not make stays, and so does every file of a
# second tracer's series in the same names; the newest file holds the
# newest crash (perf decodes its SIGSEGV); the dump lines say what went.
# ROOM_SECS=300 runs each loop 5 minutes (issue 42's acceptance), not
# 15 to 20 s.

R=$T/room; mkdir -p "$R"
RC=rm$$x$RANDOM; RC=${RC:0:15}	# the crasher's comm
cp "$T/work" "$T/$RC"
if ! mount -t tmpfs -o size=8m tracer-room "$R"; then
	skip "room" "can't mount an 8 MiB tmpfs on $R"
else
	# room_run TAG SECONDS 'CONFIG' [2]: the crash loop, the appender and
	# the sampler for SECONDS; with 2, a second tracer writes the same names
	room_run() {
		local tag=$1 secs=$2 cfg=$3 two=${4:-} end i
		rm -rf "${R:?}"/*
		echo "not tracer's" >"$R/$tag.data.7"	# a name the series would take
		: >"$T/$tag.pids"; : >"$T/$tag.samples"; : >"$T/$tag.appfail"
		start_tracer "$T/$tag" -o "$R/$tag.data" "$cfg" || { fail "$tag: tracer starts"; return 1; }
		TA=$TPID TB=
		if [ -n "$two" ]; then
			start_tracer "$T/${tag}b" -o "$R/$tag.data" "$cfg" || { fail "$tag: a second tracer starts"; return 1; }
			TB=$TPID
		fi
		(while :; do echo "a line of the appender" >>"$R/app.log" || echo "failed at $(date +%s.%N)" >>"$T/$tag.appfail"; sleep 0.1; done) &
		local ap=$!
		# the sampler: the series' bytes (what the filesystem holds at
		# one moment, less the appender's and the other file, pages
		# rounded up: 4 KiB a file more), its files, the free bytes
		(while :; do
			n=$(ls "$R" | grep -c "^$tag\\.data")
			u=$(stat -f -c '%b %f %a %S' "$R") a=$(stat -c %s "$R/app.log" 2>/dev/null || echo 0)
			echo "$u $a $n" | awk '{ print ($1 - $2) * $4 - $5 - 4096 * ($6 + 2), $6 - 1, $3 * $4 }' >>"$T/$tag.samples"
			sleep 0.2
		done) &
		local sp=$!
		end=$((SECONDS + secs))
		while [ $SECONDS -lt $end ]; do
			"$T/$RC" crash 2>/dev/null &
			echo $! >>"$T/$tag.pids"
			sleep 0.05
		done
		sleep 2	# the last crashes' dumps
		kill $ap $sp; wait $ap $sp 2>/dev/null
		kill -INT $TA; wait $TA; RCA=$?
		[ -z "$TB" ] || { kill -INT $TB; wait $TB; }
		TPID=
	}
	# room_check TAG ROOM FREE FILES: the samples against the bounds
	room_check() {
		local tag=$1 room=$2 free=$3 files=$4 over
		over=$(awk -v r="$room" -v f="$free" -v n="$files" '$1 > r || ($3 < f - 16384) || (n && $2 > n) { print; exit }' "$T/$tag.samples")
		testing "$tag: $(grep -c . "$T/$tag.samples") samples: the series within room=$((room >> 10)) KiB${files:+ and files=$files}, free space never under free=$((free >> 10)) KiB" "" "$over"
		testing "$tag: the appender never failed (every 100 ms)" "" "$(head -3 "$T/$tag.appfail")"
		testing "$tag: the file not tracer's stays" "not tracer's" "$(cat "$R/$tag.data.7" 2>&1)"
		n=$(grep -c "removed, the series' oldest" "$T/$tag.err")
		[ "$n" -gt 0 ] && pass "$tag: the dump lines say what went ($n: $(grep -m1 "removed, the series' oldest" "$T/$tag.err" | sed 's/^tracer: //'))" ||
			fail "$tag: the dump lines say what went" "$(tail -3 "$T/$tag.err")"
		# the newest file of the series: perf decodes it, with the last
		# crash's SIGSEGV (the loop's last process)
		local f p
		f=$(ls "$R" | sed -n "s/^$tag\\.data\\.\\([0-9]*\\)$/\\1/p" | grep -vx 7 | sort -n | tail -1)
		f=$R/$tag.data${f:+.$f} p=$(tail -1 "$T/$tag.pids")
		[ -s "$f" ] && perf script -i "$f" -F event,trace 2>/dev/null | grep -q "signal_generate:.*sig=11 .*pid=$p " &&
			pass "$tag: the newest file ($(basename "$f"), $(stat -c %s "$f") bytes): perf decodes the last crash's SIGSEGV (pid $p)" ||
			fail "$tag: the newest file holds the last crash (pid $p), perf decodes it" "$(basename "$f"): $(ls "$R" | tr '\n' ' '); $(tail -2 "$T/$tag.err")"
		# every crash's dump was written: none too big for room= (a dump
		# leaves out the processes that exited before its oldest record
		# and the maps no sample needs; before, a thousand exited
		# crashers made dumps of 2 MB, refused in a 2 MiB room)
		local nd nf
		nd=$(grep -c "dump [0-9]* (trip .*, to $R/" "$T/$tag.err") nf=$(grep -c "does not fit\|failed" "$T/$tag.err")
		[ "$nd" -gt 0 ] && [ "$nf" = 0 ] &&
			pass "$tag: every tripwire's dump written ($nd, at most $(grep "dump [0-9]* (trip " "$T/$tag.err" | grep -o ": [0-9]* bytes, " | awk '$2 > m { m = $2 } END { print m + 0 }') bytes), none refused" ||
			fail "$tag: every tripwire's dump written, none refused" "$nd written, $nf refused: $(grep -m2 "does not fit\|failed" "$T/$tag.err")"
	}
	CFG="sched:sched_process_exec signal:signal_generate $(own_segv "$RC"),holdoff=0us buf=64k"
	fs=$(stat -f -c '%b %S' "$R" | awk '{ print $1 * $2 }')

	# 1. the defaults: room a quarter of the filesystem, free a tenth
	if room_run dflt ${ROOM_SECS:-20} "$CFG"; then
		room_check dflt $((fs / 4)) $((fs / 10)) ""
		testing "dflt: tracer exits 0 (its final dump written)" 0 "$RCA"
	fi
	# 2. explicit bounds
	if room_run expl ${ROOM_SECS:-15} "$CFG files=4 room=3m free=2m"; then
		room_check expl 3145728 2097152 4
	fi
	# 3. two tracers write the same names: each removes only its own
	if room_run two ${ROOM_SECS:-15} "$CFG room=1m" 2; then
		for x in two twob; do
			mine=$(sed -n 's/.*, to \([^,]*\),.*/\1/p' "$T/$x.err" | sort -u)
			gone=$(sed -n "s/.*: \(.*\) removed, the series' oldest.*/\1/p" "$T/$x.err" | sort -u)
			[ -n "$gone" ] && [ -z "$(comm -13 <(echo "$mine") <(echo "$gone"))" ] &&
				pass "$x: it removed $(echo "$gone" | wc -l) files, each of its own series" ||
				fail "$x: it removes only files of its own series" "removed: $(echo $gone); its own: $(echo $mine | head -c 300)"
		done
		testing "two: the file not tracer's stays" "not tracer's" "$(cat "$R/two.data.7" 2>&1)"
	fi
	# 4. a dump that cannot fit alone: said, and the series left as it is
	rm -rf "${R:?}"/*
	if start_tracer "$T/nofit" -o "$R/nf.data" "sched:* buf=256k room=16k"; then
		echo keep >"$R/nf.data.1"
		stop_tracer >/dev/null
		grep -q "does not fit room=16 KiB: [0-9]* bytes so far, about [0-9]* in all; the series' others are left" "$T/nofit.err" && [ ! -e "$R/nf.data" ] &&
			[ "$(cat "$R/nf.data.1")" = keep ] && pass "room=16k: $(grep -m1 'does not fit' "$T/nofit.err" | sed 's/^tracer: //')" ||
			fail "room=16k: a dump that cannot fit is said, not written, the rest left" "$(tail -3 "$T/nofit.err"; ls "$R")"
	fi
	# 6. spool=DIR keeps free= too: a crash loop's dumps wait for a store
	# that is away (nothing listens on 127.0.0.1:1) in a spool on the
	# same tmpfs (64 dumps may wait, 64 MiB: more than it has, so free=
	# is the bound); the free space sampled, the appender beside
	PB=$T/kc-push/tracer	# t_push's build (PUSH), made here when run alone
	push_build
	rm -rf "${R:?}"/*; mkdir -m 700 "$R/spool"
	echo "not tracer's" >"$R/keep.txt"
	printf '[default]\naws_access_key_id = a\naws_secret_access_key = b\n' >"$T/spk"; chmod 600 "$T/spk"
	: >"$T/sp.pids"; : >"$T/sp.samples"; : >"$T/sp.appfail"
	if TRACER=$PB start_tracer "$T/sp" -o /dev/null "push=http://127.0.0.1:1/b/p s3key=$T/spk spool=$R/spool spool=64 spool=64m free=5m ${CFG% buf=*} buf=256k"; then
		(while :; do echo "a line of the appender" >>"$R/app.log" || echo "failed at $(date +%s.%N)" >>"$T/sp.appfail"; sleep 0.1; done) &
		ap=$!
		(while :; do
			stat -f -c '%a %S' "$R" | awk -v a="$(stat -c %s "$R/app.log" 2>/dev/null || echo 0)" '{ print $1 * $2, a }' >>"$T/sp.samples"
			sleep 0.1
		done) &
		sp=$!
		end=$((SECONDS + 10))
		while [ $SECONDS -lt $end ]; do
			"$T/$RC" crash 2>/dev/null &
			echo $! >>"$T/sp.pids"
			sleep 0.05
		done
		sleep 2
		kill $ap $sp; wait $ap $sp 2>/dev/null
		kill -TERM $TPID; wait $TPID; TPID=
		# free space (less what the appender took since the first sample)
		over=$(awk -v f=$((5 << 20)) 'NR == 1 { a0 = $2 } $1 < f - ($2 - a0) - 16384 { print; exit }' "$T/sp.samples")
		testing "spool=DIR, free=5m: $(grep -c . "$T/sp.samples") samples: free space never under 5 MiB" "" "$over"
		testing "spool=DIR: the appender never failed (every 100 ms)" "" "$(head -3 "$T/sp.appfail")"
		testing "spool=DIR: the file not tracer's stays" "not tracer's" "$(cat "$R/keep.txt" 2>&1)"
		n=$(grep -c "dropped .*, the oldest" "$T/sp.err")
		grep -q "for free= on spool=DIR's filesystem: dropped" "$T/sp.err" && pass "spool=DIR: the oldest go, said ($n: $(grep -m1 "for free= on spool" "$T/sp.err" | sed 's/^tracer: //'))" ||
			fail "spool=DIR: the oldest go for free=, said" "$(grep push "$T/sp.err" | tail -3)"
		# the newest waiting: the last dump's key, holding the last crash
		f=$(ls "$R/spool" | grep '\.push$' | sort | tail -1) p=$(tail -1 "$T/sp.pids")
		k=$(sed -n 's/.* to the push spool, as \([^ ,]*\),.*/\1/p' "$T/sp.err" | tail -1)
		[ -n "$f" ] && [ -n "$k" ] && grep -aqF "$k" "$R/spool/$f" && perf script -i "$R/spool/$f" -F event,trace 2>/dev/null | grep -q "signal_generate:.*sig=11 .*pid=$p " &&
			pass "spool=DIR: the newest waiting ($f, $(stat -c %s "$R/spool/$f") bytes) is the last dump ($k); perf decodes the last crash's SIGSEGV (pid $p)" ||
			fail "spool=DIR: the newest waiting is the last dump, with the last crash (pid $p)" "$f: $(ls "$R/spool" | tr '\n' ' '); last key $k; $(tail -2 "$T/sp.err")"
	else
		fail "spool=DIR, free=5m: tracer starts" "$(cat "$T/sp.err")"
	fi
	# 5. bad values
	for v in "room=12q" "files=x" "free=-1"; do
		"$TRACER" "cpu-clock $v" >/dev/null 2>"$T/rv.err"; rc=$?
		testing "'$v': exit 2, named" "2 1" "$rc $(grep -c "'$v' at 11" "$T/rv.err")"
	done
	umount "$R"
fi
