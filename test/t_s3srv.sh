# The S3 test bench of push=, itself under test: test/s3.sh's real server
# (Swift + s3api), judged by test/s3check.py (boto3), and test/slow.py's
# slow link. Times are printed, not asserted (a shared machine).

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

t0=$(date +%s%N)
"$TOP/test/s3.sh" install >"$T/s3-install.log" 2>&1; rc=$?
echo "s3 packages: $(ms $t0) ms ($(grep -c '^Setting up' "$T/s3-install.log") set up now)"
if [ $rc = 3 ]; then
	skip "t_s3srv" "the S3 server's packages could not be installed: $(tail -2 "$T/s3-install.log" | tr '\n' ' ')"
elif t0=$(date +%s%N) && ! s3_up s3; then
	fail "test/s3.sh start: a server comes up" "$S3_WHY"
else
	echo "s3 server up in $(ms $t0) ms: $S3_ENDPOINT"
	D=$S3_DIR
	# --- a round trip: put, list, head, get ---
	head -c 70000 /dev/urandom >"$T/s3.obj"
	s3c put dumps/a.data "$T/s3.obj" host=board1 dump=7 >"$T/s3.out" 2>&1 &&
		testing "s3check put; list shows the key and size" "dumps/a.data 70000" "$(s3c list dumps/ 2>&1)" ||
		fail "s3check put" "$(cat "$T/s3.out")"
	testing "s3check head: the user metadata" "dump=7 host=board1" "$(s3c head dumps/a.data 2>&1 | tr '\n' ' ' | sed 's/ $//')"
	s3c get dumps/a.data "$T/s3.got" >"$T/s3.out" 2>&1 && cmp -s "$T/s3.obj" "$T/s3.got" &&
		pass "s3check get: the same bytes" || fail "s3check get: the same bytes" "$(cat "$T/s3.out")"
	# list is in key order, and only under its prefix
	echo x >"$T/s3.x"
	s3c put dumps/0.data "$T/s3.x" >/dev/null 2>&1; s3c put other "$T/s3.x" >/dev/null 2>&1
	testing "s3check list: key order, prefix only" "dumps/0.data 2 dumps/a.data 70000" "$(s3c list dumps/ 2>&1 | tr '\n' ' ' | sed 's/ $//')"

	# --- a wrong secret: refused before anything is stored ---
	o=$(S3_SECRET=${S3_SECRET}X s3c put dumps/bad.data "$T/s3.x" 2>&1); rc=$?
	case $rc:$o in
	1:*"HTTP 403 SignatureDoesNotMatch"*) pass "a wrong secret: 403 SignatureDoesNotMatch" ;;
	*) fail "a wrong secret: 403 SignatureDoesNotMatch" "exit $rc: $o" ;;
	esac
	testing "nothing stored by it" "" "$(s3c list dumps/bad 2>&1)"

	# --- stop --keep, start again: the same object, port and keys ---
	line="$S3_ENDPOINT $S3_ACCESS $S3_SECRET"
	pids=$(cat "$D"/run/*.pid | tr '\n' ' ')
	testing "six server processes, each naming $D" "6 6" "$(echo $pids | wc -w) $(echo $(s3_procs "$D") | wc -w)"
	s3_down "$D" --keep
	testing "stop --keep: no process of it left" "" "$(s3_procs "$D")"
	t0=$(date +%s%N)
	if s3_up s3; then
		echo "s3 server restarted in $(ms $t0) ms"
		testing "start again: the same endpoint and credentials" "$line" "$S3_ENDPOINT $S3_ACCESS $S3_SECRET"
		s3c get dumps/a.data "$T/s3.got2" >"$T/s3.out" 2>&1 && cmp -s "$T/s3.obj" "$T/s3.got2" &&
			pass "start again: the object is still there, the same" ||
			fail "start again: the object is still there" "$(cat "$T/s3.out")"
	else
		fail "start again on the kept $D" "$S3_WHY"
	fi

	# --- slow.py: 20 KiB at 10 KiB/s takes about 2 s; then a second
	# connection through it (a list) works too ---
	python3 "$TOP/test/slow.py" 0 "${S3_ENDPOINT##*:}" 10240 "$T/slow.pid" >"$T/slow.out" 2>&1 &
	SLOW=$!; WORKS="$WORKS $SLOW"
	for i in $(seq 50); do grep -q '^ready' "$T/slow.out" && break; sleep 0.1; done
	sp=$(awk '/^ready/ { print $2 }' "$T/slow.out")
	testing "slow.py: ready, its pid file says its pid" "$SLOW" "$(cat "$T/slow.pid" 2>/dev/null)"
	head -c 20480 /dev/urandom >"$T/s3.20k"
	t0=$(date +%s%N)
	S3_ENDPOINT=http://127.0.0.1:$sp s3c put slow/20k "$T/s3.20k" >"$T/s3.out" 2>&1; rc=$?
	st=$(ms $t0)
	echo "20 KiB through slow.py at 10 KiB/s: $st ms"
	[ $rc = 0 ] && [ "$st" -ge 1500 ] && pass "slow.py: a 20 KiB put at 10 KiB/s took >= 1.5 s ($st ms)" ||
		fail "slow.py: a 20 KiB put at 10 KiB/s took >= 1.5 s" "exit $rc in $st ms: $(cat "$T/s3.out")"
	testing "slow.py: a second connection (list through it)" "slow/20k 20480" "$(S3_ENDPOINT=http://127.0.0.1:$sp s3c list slow/ 2>&1)"
	s3c get slow/20k "$T/s3.20kgot" >/dev/null 2>&1 && cmp -s "$T/s3.20k" "$T/s3.20kgot" &&
		pass "slow.py: the object arrived whole" || fail "slow.py: the object arrived whole"
	kill $SLOW; wait $SLOW 2>/dev/null

	# --- stop: every process gone, DIR removed ---
	pids=$(echo $(cat "$D"/run/*.pid 2>/dev/null))
	s3_down "$D"
	left=
	for p in $pids; do [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status && left="$left $p"; done
	testing "stop: none of its processes left (pids $pids), none naming $D" "" "$left$(s3_procs "$D")"
	testing "stop: $D removed" "" "$(ls -d "$D" 2>/dev/null)"
fi
