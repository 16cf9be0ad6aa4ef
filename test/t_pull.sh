# Pulled dumps: listen=IP:PORT and listen=@NAME give each connection one
# standalone dump (nc BOARD PORT > dump.data); "DUMP" on a line of a tty
# sink asks for one on that line. Judged by host perf on what the client
# received.

PORT=$((20000 + $$ % 20000))
w=pl$$; w=${w:0:12}
# --- three nc pulls, three standalone dumps, each with what ran before it ---
if start_tracer "$T/pl" -o "$T/pl.data" "sched:sched_process_exec signal:signal_generate cpu-clock listen=127.0.0.1:$PORT"; then
	for i in 1 2 3; do
		cp "$T/work" "$T/$w$i"; "$T/$w$i" spin 50 signal
		nc -d 127.0.0.1 $PORT >"$T/pull$i.data" </dev/null
		perf script -i "$T/pull$i.data" >"$T/pull$i.s" 2>"$T/pull$i.err"
		h=$(od -An -tu8 -j8 -N8 "$T/pull$i.data" | tr -d ' ')
		[ "$h" = 16 ] && grep -q "filename=$T/$w$i " "$T/pull$i.s" && grep -q "sig=10 .*comm=$w$i " "$T/pull$i.s" &&
			pass "nc pull $i: a standalone stream; perf decodes the exec and signal of $w$i" ||
			fail "nc pull $i: a standalone stream that perf decodes" "header size '$h'; $(head -c 200 "$T/pull$i.err"); $(grep -c . "$T/pull$i.s") lines"
	done
	# standalone: pull 3 has pull 1's workload too (the rings, not what is new)
	grep -q "filename=$T/${w}1 " "$T/pull3.s" && pass "pull 3 holds what pull 1 held: each pull is the whole rings" ||
		fail "pull 3 holds what pull 1 held"
	n=$(grep -c "(pulled by 127.0.0.1:" "$T/pl.err")
	testing "three pulls, each said on stderr" 3 "$n"
	TPID_IDLE=$TPID
	TPID=$TPID_IDLE idle_check "listen: no wake-up while nobody connects" 3
	stop_tracer >/dev/null
	[ -s "$T/pl.data" ] && perf script -i "$T/pl.data" 2>/dev/null | grep -q "filename=$T/${w}3 " &&
		pass "the final dump still goes to -o" || fail "the final dump still goes to -o" "$(tail -2 "$T/pl.err")"
else
	fail "listen=127.0.0.1:$PORT: tracer records" "$(cat "$T/pl.err")"
fi

# --- a client that connects and never reads: the next SIGUSR2 dump and
# the recording go on. The rings hold ~16 MB; the client's window is
# small, so the pulled dump stalls at once. ---
cat >"$T/stall.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
print("connected", flush=True)
time.sleep(60)
PY
rm -f "$T/st.data"*
if start_tracer "$T/st" -o "$T/st.data" "raw_syscalls:sys_enter sched:sched_process_exec buf=8m listen=127.0.0.1:$((PORT + 1))"; then
	"$T/work" close 300000
	python3 "$T/stall.py" $((PORT + 1)) >"$T/stall.out" & SP=$!; WORKS="$WORKS $SP"
	for i in $(seq 50); do [ -s "$T/stall.out" ] && break; sleep 0.1; done
	sleep 0.5
	cp "$T/work" "$T/${w}st"; "$T/${w}st" spin 20	# while the pull is stalled
	kill -USR2 $TPID
	wait_line "$T/st" "dump 2 (signal)" >/dev/null
	grep -q "dump 2 (signal)" "$T/st.err" && perf script -i "$T/st.data" 2>/dev/null | grep -q "filename=$T/${w}st " &&
		pass "a stalled pull: SIGUSR2's dump is written, with what ran meanwhile" ||
		fail "a stalled pull: SIGUSR2's dump is written, with what ran meanwhile" "$(grep dump "$T/st.err" | head -3)"
	grep -q "dump 1 (pulled by .*given up for a signal" "$T/st.err" && pass "the stalled pull gave way to the signal" ||
		fail "the stalled pull gave way to the signal" "$(grep 'dump 1' "$T/st.err")"
	# a client that stalls with no signal coming is dropped after 5 s
	python3 "$T/stall.py" $((PORT + 1)) >/dev/null & SP2=$!; WORKS="$WORKS $SP2"
	wait_line "$T/st" "dump 3 (pulled by .*given up" >/dev/null
	grep -q "dump 3 (pulled by .*nothing read for 5 s" "$T/st.err" && pass "a client that reads nothing is dropped" ||
		fail "a client that reads nothing is dropped" "$(grep 'dump 3' "$T/st.err")"
	stop_tracer >/dev/null
	kill $SP $SP2 2>/dev/null
else
	fail "a stalled pull: tracer records" "$(cat "$T/st.err")"
fi

# --- listen=@NAME: an abstract unix socket, root and our user only ---
cat >"$T/unix.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect("\0" + sys.argv[1])
out = open(sys.argv[2], "wb")
while True:
    b = s.recv(65536)
    if not b:
        break
    out.write(b)
PY
if start_tracer "$T/un" -o "$T/un.data" "sched:sched_process_exec listen=@tracer$$"; then
	cp "$T/work" "$T/${w}un"; "$T/${w}un" spin 10
	python3 "$T/unix.py" tracer$$ "$T/un.pull"
	perf script -i "$T/un.pull" 2>/dev/null | grep -q "filename=$T/${w}un " &&
		pass "listen=@NAME: root pulls a dump perf decodes" || fail "listen=@NAME: root pulls a dump perf decodes" "$(tail -2 "$T/un.err")"
	# a client that shuts its end of writing at once (socat at its
	# stdin's end) still gets its dump
	if command -v socat >/dev/null; then
		socat -t 30 STDIO ABSTRACT-CONNECT:tracer$$ </dev/null >"$T/un.half" 2>/dev/null
		perf script -i "$T/un.half" 2>/dev/null | grep -q "filename=$T/${w}un " &&
			pass "listen=@NAME: a half-closed client (socat) gets a dump perf decodes" ||
			fail "listen=@NAME: a half-closed client (socat) gets a dump perf decodes" "$(wc -c <"$T/un.half") bytes; $(tail -2 "$T/un.err")"
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - tracer$$ /dev/stdout <"$T/unix.py" >"$T/un.nobody" 2>/dev/null
	testing "listen=@NAME: another user gets nothing" 0 "$(wc -c <"$T/un.nobody" 2>/dev/null || echo 0)"
	grep -q "uid 65534 may not pull" "$T/un.err" && pass "listen=@NAME: the refusal is said" ||
		fail "listen=@NAME: the refusal is said" "$(tail -2 "$T/un.err")"
	stop_tracer >/dev/null
else
	fail "listen=@NAME: tracer records" "$(cat "$T/un.err")"
fi

# --- pulls between a stream's dumps: the stream still describes each
# process once (a pulled dump keeps its own record of what it sent) ---
run_work "pshold$$" hold; P=$WPID H=$WPID	# the test's processes are judged
if start_tracer "$T/ps" "procs=32768 listen=127.0.0.1:$((PORT + 2))"; then	# nothing evicted
	for i in 1 2 3 4; do
		for j in 1 2 3; do sh -c 'ls / >/dev/null' & P="$P $!"; wait $!; done
		nc -d 127.0.0.1 $((PORT + 2)) >"$T/ps.pull$i" </dev/null
		dump_wait "$T/ps" $((2 * i)) >/dev/null
	done
	stop_tracer >/dev/null
	kill $H; wait $H 2>/dev/null
	no_repeats "a stream with pulls between its dumps" "$T/ps.out" "$P"
	perf script -i "$T/ps.pull4" 2>/dev/null | grep -q " ls " && pass "and each pull still names the processes" ||
		fail "and each pull still names the processes"
	# a process first described by a pull is still described to the stream
	start_tracer "$T/ps2" "cpu-clock@499 listen=127.0.0.1:$((PORT + 3))"
	dump_wait "$T/ps2" 1 >/dev/null
	run_work ${w}ps spin 300 hold
	held $WPID
	nc -d 127.0.0.1 $((PORT + 3)) >"$T/ps2.pull" </dev/null
	dump_wait "$T/ps2" 3 >/dev/null
	stop_tracer >/dev/null
	kill $WPID
	n=$(perf script -i "$T/ps2.out" --show-mmap-events 2>/dev/null | grep -c "PERF_RECORD_MMAP2 $WPID/.*${w}ps\$")
	k=$(perf script -i "$T/ps2.out" -F comm,ip,sym 2>/dev/null | grep -c "^ *${w}ps .*work_hot_loop")
	[ "$n" -gt 0 ] && [ "$k" -gt 0 ] && pass "a process a pull described first is described to the stream too (its map; $k samples in its code)" ||
		fail "a process a pull described first is described to the stream too" "$n maps, $k samples in work_hot_loop"
else
	fail "a stream with pulls: tracer records" "$(cat "$T/ps.err")"
fi

# --- config errors name the token ---
for c in "listen=foo" "listen=1.2.3:80" "listen=127.0.0.1" "listen=127.0.0.1:0" "listen=@" "listen=300.1.1.1:80"; do
	out=$("$TRACER" "cpu-clock $c" 2>&1 >/dev/null); rc=$?
	case "$rc:$out" in 2:*"$c"*) pass "'$c': exit 2, the token named" ;;
	*) fail "'$c': exit 2, the token named" "rc=$rc $out" ;; esac
done

# --- "DUMP" on the line of a tty sink ---
mkfifo "$T/send"
python3 test/pty.py "$T/rq.out" -1 "$T/send" >"$T/rq.name" & PP=$!; WORKS="$WORKS $PP"
exec 7<>"$T/send"
for i in $(seq 50); do [ -s "$T/rq.name" ] && break; sleep 0.1; done
if start_tracer "$T/rq" -o "$(cat "$T/rq.name")" "sched:sched_process_exec buf=256k"; then
	# noise first: random bytes, a Ctrl-C, a partial word, a longer line
	head -c 200000 /dev/urandom >&7
	printf '\003\r\nDUM\nDUMPS\n dump\nXDUMP\n' >&7
	sleep 1.5
	testing "random bytes and near misses on the line: no dump" 0 "$(grep -c 'dump [0-9]' "$T/rq.err")"
	cp "$T/work" "$T/${w}rq"; "$T/${w}rq" spin 10
	printf '\rDUMP\r\n' >&7	# on a line of its own, as the README says
	wait_line "$T/rq" "dump 1 (asked on the line)" >/dev/null
	sleep 0.3
	grep -q "dump 1 (asked on the line)" "$T/rq.err" && perf script -i "$T/rq.out" 2>/dev/null | grep -q "filename=$T/${w}rq " &&
		pass "DUMP on the line: a dump on the same line, perf decodes it" ||
		fail "DUMP on the line: a dump on the same line, perf decodes it" "$(tail -2 "$T/rq.err")"
	stop_tracer >/dev/null
fi
exec 7>&-
kill $PP 2>/dev/null

# --- who may pull over TCP: on loopback, the owner of the client's
# socket must be root or tracer's user; a refusal makes no dump and does
# not count toward dumps= ---
P4=$((PORT + 4))
cat >"$T/rst.py" <<'PY'
import socket, struct, sys
s = socket.socket()
s.connect(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()	# a reset, at once
PY
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
rm -f "$T/wh.data"*
if start_tracer "$T/wh" -o "$T/wh.data" "sched:sched_process_exec signal:signal_generate $(own_segv ${w}cr) dumps=1 listen=127.0.0.1:$P4"; then
	grep -q "listening on 127.0.0.1:$P4" "$T/wh.err" && pass "the start line says where it listens" ||
		fail "the start line says where it listens" "$(cat "$T/wh.err")"
	nobody nc -d 127.0.0.1 $P4 >"$T/wh.nobody" </dev/null
	testing "loopback TCP: uid 65534 pulls nothing" 0 "$(wc -c <"$T/wh.nobody")"
	for i in 1 2 3; do nobody /usr/bin/python3 - $P4 <"$T/rst.py"; done
	sleep 0.5
	grep -q "127.0.0.1:[0-9]* may not pull a dump: not root, not us" "$T/wh.err" && pass "loopback TCP: the refusal is said" ||
		fail "loopback TCP: the refusal is said" "$(tail -2 "$T/wh.err")"
	n=$(grep -c "may not pull" "$T/wh.err")
	[ "$n" -lt 4 ] && pass "refusals are said at 1, 2, 4, ... ($n lines for 4)" || fail "refusals are rate-limited" "$n lines for 4"
	kill -0 $TPID && ! grep -q "dump [0-9]" "$T/wh.err" &&
		pass "refused pulls and resets by uid 65534: no dump, dumps=1 not used up" ||
		fail "refused pulls: no dump, dumps=1 not used up" "$(tail -2 "$T/wh.err")"
	nc -d 127.0.0.1 $P4 >"$T/wh.root" </dev/null
	perf script -i "$T/wh.root" 2>/dev/null | grep -q "sched_process_exec" && sleep 0.3 && kill -0 $TPID &&
		pass "root pulls a dump; a pull does not count toward dumps=" ||
		fail "root pulls a dump; a pull does not count toward dumps=" "$(tail -2 "$T/wh.err")"
	cp "$T/work" "$T/${w}cr"; "$T/${w}cr" crash 2>/dev/null
	wait_rc $TPID 10
	testing "dumps=1: the crash after the refusals is dumped, then exit 0" 0 "$RC"
	perf script -i "$T/wh.data" 2>/dev/null | grep -q "sig=11 .*comm=${w}cr " &&
		pass "the one-shot dump holds the crash" || fail "the one-shot dump holds the crash" "$(tail -2 "$T/wh.err")"
else
	fail "listen=127.0.0.1:$P4 with trip=segv dumps=1: tracer records" "$(cat "$T/wh.err")"
fi

# --- from another network namespace: only with the key ---
P5=$((PORT + 5)) NS=trc$$
head -c 24 /dev/urandom | base64 >"$T/key"; chmod 644 "$T/key"
out=$("$TRACER" "cpu-clock listen=0.0.0.0:$P5" 2>&1 >/dev/null); rc=$?
case "$rc:$out" in 2:*"'listen=0.0.0.0:$P5' at 11: others reach this address"*key=FILE*) pass "listen=0.0.0.0 without key=: exit 2, says why" ;;
*) fail "listen=0.0.0.0 without key=: exit 2, says why" "rc=$rc $out" ;; esac
out=$("$TRACER" "cpu-clock listen=0.0.0.0:$P5 key=$T/key" 2>&1 >/dev/null); rc=$?
case "$rc:$out" in 2:*"others may read this file"*) pass "a key file others may read: exit 2" ;;
*) fail "a key file others may read: exit 2" "rc=$rc $out" ;; esac
chmod 600 "$T/key"
# a FIFO as the key: refused at once (it used to wait for a writer, with
# the signals blocked: only SIGKILL ended it)
mkfifo "$T/key.fifo"
out=$(timeout -s KILL 10 "$TRACER" "cpu-clock listen=0.0.0.0:$P5 key=$T/key.fifo" 2>&1 >/dev/null); rc=$?
case "$rc:$out" in 2:*"key=$T/key.fifo"*"not a regular file"*) pass "key= naming a FIFO: refused at once, exit 2" ;;
*) fail "key= naming a FIFO: refused at once, exit 2" "rc=$rc $out" ;; esac
rm -f "$T/key.fifo"
# The other namespace is a process's (unshare --net), not ip netns's:
# that one mounts /run/netns, which a chroot's / may not let it
NP=
if command -v ip >/dev/null && command -v unshare >/dev/null && command -v nsenter >/dev/null; then
	unshare --net sleep 600 & NP=$!
	for i in $(seq 50); do [ "$(readlink /proc/$NP/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.1; done
fi
if [ -z "$NP" ] || [ "$(readlink /proc/$NP/ns/net)" = "$(readlink /proc/self/ns/net)" ] ||
   ! ip link add tv$$ type veth peer name tw$$ 2>"$T/ns.err" || ! ip link set tw$$ netns $NP 2>>"$T/ns.err"; then
	skip "keyed pulls from a network namespace" "no namespace of our own with a veth: $(cat "$T/ns.err" 2>/dev/null || echo 'no ip(8), unshare or nsenter')"
	ip link del tv$$ 2>/dev/null
else
	nsx() { nsenter -t $NP -n "$@"; }
	ip addr add 10.213.0.1/24 dev tv$$ && ip link set tv$$ up &&
	nsx ip addr add 10.213.0.2/24 dev tw$$ && nsx ip link set tw$$ up
	rm -f "$T/ky.data"*
	if start_tracer "$T/ky" -o "$T/ky.data" "sched:sched_process_exec listen=0.0.0.0:$P5 key=$T/key"; then
		grep -q "listening on 0.0.0.0:$P5, for clients that send the key$" "$T/ky.err" &&
			pass "the start line says a key is needed" || fail "the start line says a key is needed" "$(grep recording "$T/ky.err")"
		cp "$T/work" "$T/${w}ky"; "$T/${w}ky" spin 10
		nsx nc 10.213.0.1 $P5 <"$T/key" >"$T/ky.pull"
		perf script -i "$T/ky.pull" 2>/dev/null | grep -q "filename=$T/${w}ky " &&
			pass "from another network namespace, with the key: a dump perf decodes" ||
			fail "from another network namespace, with the key: a dump perf decodes" "$(wc -c <"$T/ky.pull") bytes; $(tail -2 "$T/ky.err")"
		nsx timeout 20 nc -d 10.213.0.1 $P5 >"$T/ky.nokey" </dev/null
		echo "not-the-key-not-the-key" | nsx timeout 20 nc 10.213.0.1 $P5 >"$T/ky.bad"
		testing "without the key, and with a wrong one: nothing" "0 0" "$(wc -c <"$T/ky.nokey") $(wc -c <"$T/ky.bad")"
		grep -q "may not pull a dump: no key within 5 s" "$T/ky.err" && grep -q "may not pull a dump: wrong key" "$T/ky.err" &&
			pass "the refusals say why (no key, wrong key)" || fail "the refusals say why" "$(grep listen: "$T/ky.err")"
		nc -d 127.0.0.1 $P5 >"$T/ky.lo" </dev/null
		nobody nc -d 127.0.0.1 $P5 >"$T/ky.lo.nobody" </dev/null
		[ -s "$T/ky.lo" ] && [ ! -s "$T/ky.lo.nobody" ] && pass "the same port on loopback: root without the key, not uid 65534" ||
			fail "the same port on loopback: root without the key, not uid 65534" "$(wc -c <"$T/ky.lo") $(wc -c <"$T/ky.lo.nobody")"
		stop_tracer >/dev/null
	else
		fail "listen=0.0.0.0 key=FILE: tracer records" "$(cat "$T/ky.err")"
	fi
	ip link del tv$$ 2>/dev/null
fi
[ -n "$NP" ] && kill $NP 2>/dev/null

# --- clients that shut their end of writing when their input ends
# (nc -N; BusyBox nc always does): each gets its dump, with and without
# key=, the key ended by a newline or by that end of writing; those
# beyond the burst wait their turn so shut. A key cut short by the end
# of writing, or none before it, is a wrong key, said on stderr ---
P10=$((PORT + 10))
head -c 24 /dev/urandom | base64 >"$T/hkey"; chmod 600 "$T/hkey"; tr -d '\n' <"$T/hkey" >"$T/hkey.nonl"
HC="nc_-N"
busybox nc 2>&1 | grep -q "IPADDR PORT" && HC="$HC busybox_nc" ||
	skip "BusyBox nc pulls" "no busybox with nc here (apt-get install busybox-static)"
for mode in nokey key; do
	k= hows=root; [ $mode = key ] && k=" key=$T/hkey" hows="nl nonl"
	rm -f "$T/hc.data"*
	if ! start_tracer "$T/hc" -o "$T/hc.data" "sched:sched_process_exec signal:signal_generate buf=256k listen=127.0.0.1:$P10$k"; then
		fail "half-closing pulls ($mode): tracer records" "$(cat "$T/hc.err")"
		continue
	fi
	n=0
	for c in $HC; do
		c=${c/_/ }
		# as root without a key (let in by the socket table); as uid
		# 65534 with the key, after a newline and with none
		for how in $hows; do
			n=$((n + 1)); x=${w}h$n
			cp "$T/work" "$T/$x"; "$T/$x" spin 10 signal
			case $how in
			root) timeout 30 $c 127.0.0.1 $P10 </dev/null >"$T/hc.$n" ;;
			nl) nobody timeout 30 $c 127.0.0.1 $P10 <"$T/hkey" >"$T/hc.$n" ;;
			nonl) nobody timeout 30 $c 127.0.0.1 $P10 <"$T/hkey.nonl" >"$T/hc.$n" ;;
			esac
			perf script -i "$T/hc.$n" >"$T/hc.$n.s" 2>"$T/hc.$n.err"
			case $how in
			root) d="no key, as root" ;;
			nl) d="key=, as uid 65534, the key and a newline" ;;
			*) d="key=, as uid 65534, the key ended by its end of writing" ;;
			esac
			d="$c ($d): a half-closing client gets its dump, with the exec and signal of $x"
			grep -q "filename=$T/$x " "$T/hc.$n.s" && grep -q "sig=10 .*comm=$x " "$T/hc.$n.s" && pass "$d" ||
				fail "$d" "$(wc -c <"$T/hc.$n") bytes; $(head -c 200 "$T/hc.$n.err"); $(grep listen: "$T/hc.err" | tail -2)"
		done
	done
	if [ $mode = key ]; then
		head -c 10 "$T/hkey" | nobody timeout 30 nc -N 127.0.0.1 $P10 >"$T/hc.cut"
		nobody timeout 30 nc -N 127.0.0.1 $P10 </dev/null >"$T/hc.none"
		sleep 0.3
		testing "key=: a key cut short by the end of writing, and none: nothing" "0 0" "$(wc -c <"$T/hc.cut") $(wc -c <"$T/hc.none")"
		testing "key=: both said on stderr as a wrong key, naming the peer" 2 \
			"$(grep -c 'listen: 127.0.0.1:[0-9]* may not pull a dump: wrong key (its end of writing came first)' "$T/hc.err")"
	fi
	stop_tracer >/dev/null
done

# --- a client reading 2 KB/s holds nothing back: a SIGSEGV's tripwire
# dump comes within 1 s, while the pull is being served ---
cat >"$T/slowc.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
n = 0
while True:
    b = s.recv(100)
    if not b:
        break
    n += len(b)
    if n > 2000:
        print("reading", flush=True)
    time.sleep(0.05)
PY
P6=$((PORT + 6))
rm -f "$T/sl.data"*
if start_tracer "$T/sl" -o "$T/sl.data" "sched:sched_process_exec signal:signal_generate raw_syscalls:sys_enter $(own_segv ${w}sg) buf=2m listen=127.0.0.1:$P6"; then
	"$T/work" close 100000
	python3 "$T/slowc.py" $P6 >"$T/slowc.out" & SC=$!; WORKS="$WORKS $SC"
	for i in $(seq 100); do [ -s "$T/slowc.out" ] && break; sleep 0.1; done
	sleep 1
	cp "$T/work" "$T/${w}sg"
	t0=$(date +%s%N); "$T/${w}sg" crash 2>/dev/null
	for i in $(seq 200); do grep -q "(trip " "$T/sl.err" && break; sleep 0.02; done
	t1=$(date +%s%N); ms=$(( (t1 - t0) / 1000000 ))
	grep -q "dump [0-9]* (trip .* by pid [0-9]* (${w}sg)" "$T/sl.err" && [ $ms -lt 1000 ] &&
		pass "a pull at 2 KB/s: the SIGSEGV's dump came ${ms} ms after the crash" ||
		fail "a pull at 2 KB/s: the SIGSEGV's dump within 1 s" "${ms} ms; $(grep 'dump' "$T/sl.err" | tail -2)"
	perf script -i "$T/sl.data" 2>/dev/null | grep -q "sig=11 .*comm=${w}sg " &&
		pass "and it holds the crash" || fail "and it holds the crash"
	grep -q "dump 1 (pulled by .*given up for a signal, a tripwire or a request" "$T/sl.err" &&
		pass "the slow pull gave way to the tripwire" || fail "the slow pull gave way to the tripwire" "$(grep 'dump 1' "$T/sl.err")"
	kill $SC 2>/dev/null
	stop_tracer >/dev/null
else
	fail "a slow pull and a tripwire: tracer records" "$(cat "$T/sl.err")"
fi

# --- 20 pulls at once: each gets its dump (the backlog holds those that
# wait), at the rate limit's pace (a burst of 4, then one a second) ---
P7=$((PORT + 7))
if start_tracer "$T/rl" -o "$T/rl.data" "sched:sched_process_exec buf=64k listen=127.0.0.1:$P7"; then
	t0=$(date +%s)
	pids=; for i in $(seq 20); do timeout 60 nc -d 127.0.0.1 $P7 >"$T/rl.$i" </dev/null & pids="$pids $!"; done
	wait $pids
	secs=$(( $(date +%s) - t0 ))
	n=0; for i in $(seq 20); do [ "$(head -c 8 "$T/rl.$i")" = PERFILE2 ] && n=$((n + 1)); done
	testing "20 pulls at once: each gets a dump" 20 "$n"
	[ $secs -ge 12 ] && [ $secs -lt 60 ] && pass "20 pulls at once: at most the rate limit's pace (${secs} s)" ||
		fail "20 pulls at once: at most the rate limit's pace (4, then one a second)" "${secs} s"
	stop_tracer >/dev/null
fi

# --- 30 clients that connect and close at once get no dump (they used
# to, each a "Broken pipe" at the rate limit's pace); the next real pull
# gets the one dump ---
P9=$((PORT + 9))
if start_tracer "$T/cc" -o "$T/cc.data" "sched:sched_process_exec buf=64k listen=127.0.0.1:$P9"; then
	python3 -c "import socket
for i in range(30):
    s = socket.socket(); s.connect(('127.0.0.1', $P9)); s.close()"
	sleep 1
	timeout 60 nc -d 127.0.0.1 $P9 >"$T/cc.pull" </dev/null
	sleep 1
	stop_tracer >/dev/null
	# (the first may be served before it closes: at most one more)
	n=$(grep -c 'dump [0-9]* (pulled' "$T/cc.err")
	[ "$n" -le 2 ] && [ "$(head -c 8 "$T/cc.pull")" = PERFILE2 ] &&
		pass "30 connect-and-close, then a pull: $n pulled dumps, the real one's among them" ||
		fail "30 connect-and-close, then a pull: at most 2 pulled dumps, the real one's" "$n; $(head -c 8 "$T/cc.pull")"
fi

# --- a name or port another program took first: said as such ---
P8=$((PORT + 8))
nobody /usr/bin/python3 -c "import socket, time
s = socket.socket(); s.bind(('127.0.0.1', $P8)); s.listen(1)
u = socket.socket(socket.AF_UNIX); u.bind('\0trsq$$'); u.listen(1)
print('bound', flush=True); time.sleep(30)" >"$T/sq.out" & SQ=$!; WORKS="$WORKS $SQ"
for i in $(seq 50); do [ -s "$T/sq.out" ] && break; sleep 0.1; done
for a in 127.0.0.1:$P8 @trsq$$; do
	out=$(timeout 10 "$TRACER" -o "$T/sq.data" "cpu-clock listen=$a" 2>&1 >/dev/null); rc=$?
	case "$rc:$out" in 1:*"listen=$a: another program (or another tracer) has this"*) pass "listen=$a taken by another user: said as such, exit 1" ;;
	*) fail "listen=$a taken by another user: said as such" "rc=$rc $out" ;; esac
done
kill $SQ 2>/dev/null
