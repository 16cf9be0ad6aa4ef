# push=: every dump into a real S3 server (test/s3.sh: Swift with
# s3api), judged by boto3 (test/s3check.py) and host perf, not by our
# own code. A build with PUSH (off in defconfig) and TESTHOOKS (a wrong
# clock). Each scenario has its own prefix, so it judges only its own
# objects: 50 tripwire dumps; a slow link (test/slow.py) that must not
# hold up a tripwire's dump; the server away for 30 s; a wrong secret;
# a clock 2 h off; kill -9 with spool=DIR; then idle.

PB=$T/kc-push/tracer
pw=pw$$; pw=${pw:0:12}		# the exec that trips
sw=sw$$; sw=${sw:0:12}		# the crasher on the slow link
cp "$T/work" "$T/$pw"; cp "$T/work" "$T/$sw"
if ! push_build; then
	fail "a build with PUSH" "$(tail -5 "$T/kc-push.log")"
elif s3_up push; rc=$?; [ $rc = 3 ]; then
	skip "push" "no S3 server: its packages could not be installed: $S3_WHY"
elif [ $rc != 0 ]; then
	fail "push: the S3 server starts" "$S3_WHY"
else
	pass "a build with PUSH: $(wc -c <"$PB") bytes (defconfig $(wc -c <tracer)); S3 server at $S3_ENDPOINT"
	printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_ACCESS" "$S3_SECRET" >"$T/s3key"
	printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_ACCESS" "${S3_SECRET}X" >"$T/s3bad"
	chmod 600 "$T/s3key" "$T/s3bad"
	P="s3key=$T/s3key"
	URL=$S3_ENDPOINT/$S3_BUCKET

	# ptr LOG: start $PB with the rest as args (start_tracer's way)
	ptr() { local l=$1; shift; TRACER=$PB start_tracer "$l" "$@"; }
	# arrived LOG N: wait (S s at most, 90 by default) until N uploads arrived
	arrived() {
		local i
		for i in $(seq $((${3:-90} * 10))); do
			[ "$(grep -c ' arrived: ' "$1.err")" -ge "$2" ] && return 0
			sleep 0.1
		done
		return 1
	}
	# keys LOG: the keys its dump lines gave, in order
	keys() { sed -n 's/.* to the push spool, as \([^ ,]*\),.*/\1/p' "$1.err"; }
	# got PREFIX: the keys under PREFIX/ (boto3), in order
	got() { s3c list "$1/" 2>&1 | awk '{ print $1 }'; }

	# --- a slow link (1 KiB/s), started first ---
	python3 test/slow.py 0 "${S3_ENDPOINT##*:}" 1024 >"$T/slow.out" 2>&1 &
	SLOW=$!; WORKS="$WORKS $SLOW"
	for i in $(seq 50); do grep -q '^ready' "$T/slow.out" && break; sleep 0.1; done
	SP=$(awk '/^ready/ { print $2 }' "$T/slow.out")
	SLOWOK=
	if [ -n "$SP" ] && ptr "$T/ps" -o "$T/ps.data" "push=http://127.0.0.1:$SP/$S3_BUCKET/slow$$ $P $(own_segv $sw) cpu-clock@9 procs=0 buf=8k"; then
		SLOWT=$TPID
		dump_wait "$T/ps" 1 >/dev/null
		wait_line "$T/ps" "to the push spool" >/dev/null
		sleep 1		# its upload under way
		t0=$(date +%s%N)
		"$T/$sw" crash 2>/dev/null
		wait_line "$T/ps" "dump 2 (trip" >/dev/null
		ms=$((($(date +%s%N) - t0) / 1000000))
		SLOWOK=1
		# then the link heals (a server takes no 1 KiB/s upload for
		# long: Swift's backends time out), and both go out
		sleep 1
		kill -USR1 $SLOW
	else
		fail "push over a slow link: it starts" "$(cat "$T/slow.out" "$T/ps.err" 2>/dev/null)"
	fi

	# --- 50 tripwire dumps: 50 objects, each holding its exec ---
	X="sched:sched_process_exec trip=sched:sched_process_exec/filename~\"*$pw\"/,holdoff=10ms"
	if ptr "$T/p50" -o /dev/null "push=$URL/t50$$ $P $X cpu-clock@9 procs=64 buf=64k"; then
		for i in $(seq 50); do
			"$T/$pw" exit 0
			wait_line "$T/p50" "dump $i (trip.* to the push spool" >/dev/null || break
		done
		arrived "$T/p50" 50 60
		stop_tracer >/dev/null
		n=$(got t50$$ | grep -c '^t50.*-trip-sched-sched_process_exec\.data$')
		testing "push: 50 tripwire dumps, 50 objects (boto3 lists them)" "50" "$n"
		bad=; k=0
		for key in $(got t50$$ | grep -- '-trip-'); do
			k=$((k + 1))
			s3c head "$key" >"$T/p50.h" 2>&1
			pid=$(sed -n 's/^reason=trip sched:sched_process_exec.* by pid \([0-9]*\) .*/\1/p' "$T/p50.h")
			[ "$(sed -n 's/^board=//p' "$T/p50.h")" = "$(uname -n)" ] &&
				[ "$(sed -n 's/^boot-id=//p' "$T/p50.h")" = "$(cat /proc/sys/kernel/random/boot_id)" ] &&
				[ -n "$pid" ] || { bad="$bad $key: $(tr '\n' ' ' <"$T/p50.h");"; continue; }
			s3c get "$key" "$T/p50.o" >/dev/null 2>&1
			perf script -i "$T/p50.o" -F pid,event 2>/dev/null | grep -q "^ *$pid *sched:sched_process_exec" ||
				bad="$bad $key: no exec of pid $pid in perf script;"
		done
		[ $k = 50 ] && [ -z "$bad" ] && pass "push: each of the 50 decodes in perf $(perf version | cut -d' ' -f3) and holds the exec that tripped it; head_object: board, boot-id, reason" ||
			fail "push: each object holds its exec, with its metadata" "$k objects;${bad:0:600}"
	else
		fail "push: 50 tripwire dumps" "$(cat "$T/p50.err")"
	fi

	# --- a clock 2 h behind (no RTC): corrected from the server's Date ---
	if TRACER_CLOCK=-7200 ptr "$T/pc" -o /dev/null "push=$URL/clock$$ $P cpu-clock@9 procs=0"; then
		dump_wait "$T/pc" 1 >/dev/null
		arrived "$T/pc" 1 30
		stop_tracer >/dev/null
		grep -q "RequestTimeTooSkewed" "$T/pc.err" && [ "$(got clock$$ | wc -l)" = 2 ] &&
			pass "push: a clock 2 h off: '$(grep -m1 -o 'our clock is.*' "$T/pc.err")', both dumps arrive" ||
			fail "push: a clock 2 h off: corrected, both arrive" "$(got clock$$ | wc -l) objects; $(grep push "$T/pc.err" | tr '\n' ' ')"
	fi

	# --- a wrong secret: said once with S3's code, kept in spool=DIR,
	# recording goes on; fixed and started again: they arrive ---
	mkdir -p "$T/spool"
	if ptr "$T/pk" -o "$T/pk.data" "push=$URL/key$$ s3key=$T/s3bad spool=$T/spool cpu-clock@9 procs=0"; then
		dump_wait "$T/pk" 1 >/dev/null
		wait_line "$T/pk" "refused" >/dev/null
		dump_wait "$T/pk" 2 >/dev/null
		stop_tracer >/dev/null
		k1=$(keys "$T/pk" | tr '\n' ' ')
		n=$(ls "$T/spool" | grep -c '\.push$')
		grep -q "refused it: HTTP 403 SignatureDoesNotMatch" "$T/pk.err" && [ -s "$T/pk.data.2" ] && [ "$n" = 3 ] &&
			[ -z "$(got key$$)" ] &&
			pass "push: a wrong secret: '$(grep -m1 -o 'refused it:[^;]*' "$T/pk.err")'; the sink got all 3 dumps; 3 kept in spool=DIR" ||
			fail "push: a wrong secret: said, kept, recording goes on" "$n in the spool; $(grep -c . <<<"$(got key$$)") stored; $(grep 'push\|dump' "$T/pk.err" | tr '\n' ' ')"
		if ptr "$T/pk2" -o /dev/null "push=$URL/key$$ $P spool=$T/spool cpu-clock@9 procs=0"; then
			arrived "$T/pk2" 3 30
			stop_tracer >/dev/null
			testing "push: the key fixed, started again on spool=DIR: the 3 kept arrive (and its own final)" \
				"$(echo $k1 $(keys "$T/pk2"))" "$(echo $(got key$$))"
			testing "push: the spool is empty after" "" "$(ls "$T/spool")"
		fi
	else
		fail "push: a wrong secret" "$(cat "$T/pk.err")"
	fi

	# --- kill -9 while uploads crawl, spool=DIR; a new tracer sends them ---
	python3 test/slow.py 0 "${S3_ENDPOINT##*:}" 2048 >"$T/slow2.out" 2>&1 &
	SLOW2=$!; WORKS="$WORKS $SLOW2"
	for i in $(seq 50); do grep -q '^ready' "$T/slow2.out" && break; sleep 0.1; done
	SP=$(awk '/^ready/ { print $2 }' "$T/slow2.out")
	mkdir -p "$T/sp9"
	if ptr "$T/p9" -o /dev/null "push=http://127.0.0.1:$SP/$S3_BUCKET/k9$$ $P spool=$T/sp9 cpu-clock@9 procs=0 buf=8k"; then
		for i in 1 2 3; do dump_wait "$T/p9" $i >/dev/null; done
		wait_line "$T/p9" "as .*-signal.data" >/dev/null
		sleep 2
		kill -9 $TPID; wait $TPID 2>/dev/null
		k1=$(keys "$T/p9" | tr '\n' ' ')
		n=$(grep -c ' arrived: ' "$T/p9.err")
		# and a file that only looks like one of the spool's
		# (mode 600, tracer's: only its trailer is wrong)
		(umask 077; printf 'key\nzz\nx\n00000009\n' >"$T/sp9/900000000000.push")
		if ptr "$T/p92" -o /dev/null "push=$URL/k9$$ $P spool=$T/sp9 cpu-clock@9 procs=0"; then
			arrived "$T/p92" $((3 - n)) 30
			stop_tracer >/dev/null
			testing "push: kill -9 during uploads ($n of 3 arrived), then a new tracer on spool=DIR: all arrive, none twice" \
				"$(echo $k1 $(keys "$T/p92"))" "$(echo $(got k9$$))"
			grep -q "900000000000.push: not a dump of the spool, left alone" "$T/p92.err" && [ -e "$T/sp9/900000000000.push" ] &&
				pass "push: a spool file with a broken trailer is left alone, said" ||
				fail "push: a spool file with a broken trailer is left alone" "$(grep push "$T/p92.err" | tr '\n' ' ')"
		fi
	fi
	kill $SLOW2 2>/dev/null

	# --- the slow link's outcome: the tripwire's dump on the sink at
	# once, while the first upload still crawled; both arrive later ---
	if [ -n "$SLOWOK" ]; then
		TPID=$SLOWT
		a=$(grep -n "dump 2 (trip" "$T/ps.err" | head -1 | cut -d: -f1)
		b=$(grep -n " arrived: " "$T/ps.err" | head -1 | cut -d: -f1)
		[ -n "$a" ] && { [ -z "$b" ] || [ "$a" -lt "$b" ]; } &&
			pass "push over 1 KiB/s: the tripwire's dump reached the sink ${ms} ms after the crash, before the upload under way arrived" ||
			fail "push over 1 KiB/s: the tripwire's dump before the upload" "$(grep 'push\|dump' "$T/ps.err" | tr '\n' ' ')"
		arrived "$T/ps" 2 120 && [ "$(got slow$$ | wc -l)" = 2 ] &&
			pass "push over 1 KiB/s, then healed: both uploads finish ($(grep -o 'arrived: .*' "$T/ps.err" | tr '\n' ' '))" ||
			{ fail "push over 1 KiB/s: both uploads finish" "$(grep 'push\|dump' "$T/ps.err" | tr '\n' ' ')"; SLOWOK=; }
	fi
	kill $SLOW 2>/dev/null
	# idle after the uploads: procs=0 (no tracking ring), nothing
	# pending, so nothing may wake it: measured over the next 60 s
	# (the outage below stops the server meanwhile: it must not notice)
	[ -n "$SLOWOK" ] && v0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$SLOWT/status) && t1=$SECONDS

	# --- the server away for 30 s: every dump arrives, once, in order ---
	if ptr "$T/po" -o /dev/null "push=$URL/out$$ $P cpu-clock@9 procs=0"; then
		dump_wait "$T/po" 1 >/dev/null
		arrived "$T/po" 1 30
		s3_down "$S3_DIR" --keep
		t0=$SECONDS
		for i in 2 3 4; do dump_wait "$T/po" $i >/dev/null; sleep 5; done
		sleep $((30 - (SECONDS - t0)))
		s3_up push || fail "push: the server starts again" "$S3_WHY"
		arrived "$T/po" 4 60
		stop_tracer >/dev/null
		k=$(echo $(keys "$T/po" | head -4))
		a=$(echo $(sed -n 's/.*push: \(.*\) arrived: .*/\1/p' "$T/po.err" | head -4))
		testing "push: the server away 30 s: 4 dumps arrive, once each, in order" "$k|$k" "$a|$(echo $(got out$$ | head -4))"
		grep -q "push: 127.0.0.1:.*again in" "$T/po.err" && pass "push: the outage said: '$(grep -m1 -o 'push: 127.*' "$T/po.err")'" ||
			fail "push: the outage said" "$(grep push "$T/po.err" | tr '\n' ' ')"
	fi

	if [ -n "$SLOWOK" ]; then
		[ $((SECONDS - t1)) -lt 60 ] && sleep $((60 - (SECONDS - t1)))
		v1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$SLOWT/status)
		testing "push: idle $((SECONDS - t1)) s after its uploads (the server away meanwhile): no wake-up (voluntary context switches)" "$v0" "$v1"
		kill -INT $SLOWT; wait $SLOWT
	fi

	# --- the spool's bound: spool=2, nobody listening: the oldest go,
	# each said and counted; what is left at exit is said lost ---
	if ptr "$T/pf" -o /dev/null "push=http://127.0.0.1:1/b $P spool=2 cpu-clock@9 procs=0"; then
		for i in 1 2 3 4; do dump_wait "$T/pf" $i >/dev/null; done
		stop_tracer >/dev/null
		testing "push: spool=2 and no server: 5 dumps, 3 dropped oldest first, 2 said lost at exit" \
			"$(echo $(keys "$T/pf" | head -3)) | 3 | 1" \
			"$(echo $(sed -n 's/.*dropped \([^ ]*\), the oldest.*/\1/p' "$T/pf.err")) | $(grep -c 'so far)' "$T/pf.err") | $(grep -c 'push: 2 dumps not sent are lost' "$T/pf.err")"
	fi

	# --- node names (uname -n, in a UTS namespace of its own) with a
	# newline, tabs, leading, trailing and doubled spaces: each dump
	# signed as SigV4 canonicalises the header (the server checks it),
	# the key's board part only bytes that need no encoding ---
	printf '#!/bin/sh\nexec unshare --uts /usr/bin/python3 -c "import os, socket, sys; socket.sethostname(sys.argv[1]); os.execv(sys.argv[2], sys.argv[2:])" "$NODENAME" "%s" "$@"\n' "$PB" >"$T/uts.sh"
	chmod 755 "$T/uts.sh"
	i=0
	for nn in "$(printf 'x\ny:z')" "$(printf '\ttab\tbed')" "  lead  and  trail  "; do
		i=$((i + 1))
		if NODENAME=$nn TRACER=$T/uts.sh start_tracer "$T/pn$i" -o /dev/null "push=$URL/nn$i$$ $P cpu-clock@9 procs=0"; then
			dump_wait "$T/pn$i" 1 >/dev/null
			arrived "$T/pn$i" 1 30
			stop_tracer >/dev/null; rc=$?
			k=$(got nn$i$$ | head -1)
			testing "push: node name '$(printf %q "$nn")': no crash, both dumps signed right (arrived), keys under board '$(echo "$k" | cut -d/ -f2)', x-amz-meta-board '$(s3c head "$k" 2>&1 | sed -n 's/^board=//p')'" \
				"0 2 2" "$rc $(grep -c ' arrived: ' "$T/pn$i.err") $(got nn$i$$ | grep -c "^nn$i$$/[A-Za-z0-9._-]*/[0-9a-f-]*/[0-9]*-[a-z-]*\.data$")"
		else
			fail "push: node name '$(printf %q "$nn")': tracer starts" "$(cat "$T/pn$i.err")"
		fi
	done

	# --- the secret straddling 4 KiB of s3key= (comments before it):
	# read whole, signed right; after the upload no copy of the secret
	# is left in tracer's memory ---
	/usr/bin/python3 - "$T/s3long" "$S3_ACCESS" "$S3_SECRET" <<'EOF'
import sys
f, ak, sk = sys.argv[1:4]
head = "[default]\naws_access_key_id = %s\n" % ak
pad = 4096 - 10 - len(head) - len("aws_secret_access_key = ") - 2
open(f, "w").write("# %s\n" % ("x" * (pad - 3)) + head + "aws_secret_access_key = %s\n" % sk)
EOF
	chmod 600 "$T/s3long"
	# (S3_SECRET, which test/lib.sh exports, kept out of tracer's environment)
	if S3_SECRET= ptr "$T/pl" -o /dev/null "push=$URL/long$$ s3key=$T/s3long cpu-clock@9 procs=0"; then
		dump_wait "$T/pl" 1 >/dev/null
		arrived "$T/pl" 1 30
		a=$(grep -c ' arrived: ' "$T/pl.err")
		m=$(/usr/bin/python3 test/memscan.py $TPID "$S3_SECRET")
		stop_tracer >/dev/null
		testing "push: s3key= with the secret at byte $(grep -b -o 'aws_secret_access_key = ' "$T/s3long" | cut -d: -f1)+24 of $(wc -c <"$T/s3long"): read whole, arrived; copies of the secret in tracer's writable memory after the upload" \
			"1 0" "$a $m"
	fi

	# --- bad config: named, exit 2 ---
	for c in "push=https://h/b" "push=http://127.0.0.1:1/" "push=http://nosuchhost.invalid/b" "push=http://127.0.0.1:1/b" "spool=3 cpu-clock"; do
		"$PB" -o /dev/null "$c" >/dev/null 2>"$T/pbad.err"; rc=$?
		[ $rc = 2 ] && grep -q "config: " "$T/pbad.err" && pass "push: '$c': exit 2, $(head -1 "$T/pbad.err" | sed 's/^tracer: //')" ||
			fail "push: '$c': exit 2" "rc=$rc $(cat "$T/pbad.err")"
	done
	"$TRACER" -o /dev/null "push=$URL/x $P" >/dev/null 2>"$T/pbad.err"; rc=$?
	[ $rc = 2 ] && grep -q "config: 'push=.*' at 1: unknown key" "$T/pbad.err" && pass "push: without PUSH (defconfig): an unknown key, exit 2" ||
		fail "push: without PUSH (defconfig): an unknown key, exit 2" "rc=$rc $(cat "$T/pbad.err")"
	chmod 644 "$T/s3key"
	"$PB" -o /dev/null "push=$URL/x $P" >/dev/null 2>"$T/pbad.err"; rc=$?
	[ $rc = 2 ] && grep -q "others may read" "$T/pbad.err" && pass "push: an s3key= file others may read: exit 2, $(sed 's/^tracer: //' "$T/pbad.err")" ||
		fail "push: an s3key= others may read is refused" "rc=$rc $(cat "$T/pbad.err")"
	s3_down "$S3_DIR"
fi
