# Pulled dumps (listen=) against clients that misbehave, and neighbours
# that try to cost tracer its CPU or its descriptors: a puller that keeps
# sending, a refusal loop by another user, too few descriptors, a key
# sent by nc -N. Each judged on what the test's own tracer did (its CPU
# from /proc/PID/stat, its stderr, what its clients received).

HP=$((21000 + $$ % 20000))
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
HZ=$(getconf CLK_TCK)
# ticks PID: its user and system time so far, in clock ticks
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
# busy PID: its % of a CPU over 3 s, after 1 s to settle
busy() {
	local a b t0
	sleep 1
	a=$(ticks $1) t0=$(date +%s%N)
	sleep 3
	b=$(ticks $1)
	echo $(( (b - a) * 1000 * 100 / HZ / (($(date +%s%N) - t0) / 1000000) ))
}

# --- a puller that keeps sending while it reads its dump, and after:
# the end of a pull reads at most 64 KiB of what it sent, so a SIGUSR2
# right after is dumped at once (it waited for the client to stop, or
# for a moment when nothing it sent was there to read: three rounds) ---
cat >"$T/flood.c" <<'C'
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
/* flood PORT SECONDS: pulls a dump while 2 processes of its own send
 * without end, and after it, until SECONDS are over */
int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1])) };
	static char b[1 << 16];
	time_t end = time(0) + atoi(argv[2]);
	long n = 0, k;
	int s = socket(AF_INET, SOCK_STREAM, 0), i;

	signal(SIGPIPE, SIG_IGN);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)))
		return perror("connect"), 1;
	for (i = 0; i < 2; i++)
		if (!fork()) {
			while (time(0) < end && write(s, b, sizeof(b)) > 0)
				;
			_exit(0);
		}
	while ((k = read(s, b, sizeof(b))) > 0)
		n += k;
	printf("%s after %ld bytes\n", k ? "reset" : "eof", n);
	fflush(stdout);
	while (time(0) < end)
		sleep(1);
	return 0;
}
C
if ! gcc -O1 -o "$T/flood" "$T/flood.c" 2>"$T/flood.log"; then
	fail "the flooding client builds" "$(head -3 "$T/flood.log")"
elif start_tracer "$T/fl" -o "$T/fl.data" "sched:sched_process_exec buf=64k listen=127.0.0.1:$HP"; then
	worst=0 got=
	for r in 1 2 3; do
		"$T/flood" $HP 8 >"$T/flood.out$r" & FP=$!; WORKS="$WORKS $FP"
		for i in $(seq 100); do [ -s "$T/flood.out$r" ] && break; sleep 0.1; done
		t0=$(date +%s%N); kill -USR2 $TPID
		for i in $(seq 500); do [ $(grep -c "dump [0-9]* (signal)" "$T/fl.err") -ge $r ] && break; sleep 0.02; done
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ $ms -gt $worst ] && worst=$ms
		got="$got${got:+, }$ms ms ($(cat "$T/flood.out$r"))"
		kill $FP 2>/dev/null; wait $FP 2>/dev/null
	done
	[ $(grep -c "dump [0-9]* (pulled by" "$T/fl.err") = 3 ] && [ $(grep -c "dump [0-9]* (signal)" "$T/fl.err") = 3 ] && [ $worst -lt 1000 ] &&
		pass "a puller that keeps sending, 3 rounds: SIGUSR2 right after its dump dumped within 1 s: $got" ||
		fail "a puller that keeps sending, 3 rounds: SIGUSR2 right after its dump is dumped within 1 s" "$got; $(grep dump "$T/fl.err" | tail -2)"
	stop_tracer >/dev/null
else
	fail "a puller that keeps sending: tracer records" "$(cat "$T/fl.err")"
fi

# --- another user's connect-and-close loops (16 processes at once) cost
# tracer under 10% of a CPU: each connection costs a look at the socket
# table, and tracer takes a burst of 16, then 10 a second (the rest wait
# in the kernel's backlog); root still pulls after it ---
cat >"$T/cloop.c" <<'C'
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
/* cloop PORT SECONDS: 16 processes connect and close as fast as they
 * can (a connect waits 0.5 s at most); each prints how many connected */
int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1])) };
	struct timeval tv = { 0, 500000 };
	time_t end = time(0) + atoi(argv[2]);
	long n = 0;
	int i;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (i = 0; i < 15 && fork(); i++)
		;
	while (time(0) < end) {
		int s = socket(AF_INET, SOCK_STREAM, 0);

		setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		n += !connect(s, (struct sockaddr *)&a, sizeof(a));
		close(s);
	}
	printf("%ld\n", n);
	return 0;
}
C
NB=$(mktemp -d -t tracer-nb.XXXXXX) && chmod 755 "$NB"	# ($T is root's alone)
P2=$((HP + 1))
if ! gcc -O1 -o "$NB/cloop" "$T/cloop.c" 2>"$T/cloop.log"; then
	fail "the connection loop builds" "$(head -3 "$T/cloop.log")"
elif start_tracer "$T/cl" -o "$T/cl.data" "sched:sched_process_exec buf=64k listen=127.0.0.1:$P2"; then
	a=$(ticks $TPID) t0=$(date +%s%N)
	c=$(nobody "$NB/cloop" $P2 6 | awk '{ n += $1 } END { print n }')
	b=$(ticks $TPID) ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	pc=$(( (b - a) * 1000 * 100 / HZ / ms ))
	# (turned away as another user's, or, closed already, found as a
	# closed end and dropped: either is said)
	grep -qE "may not pull a dump: not root, not us|hung up before its dump" "$T/cl.err" && [ $pc -lt 10 ] &&
		pass "uid 65534's 16 connect-and-close loops ($c connections in $ms ms): tracer used ${pc}% of a CPU (bound 10%)" ||
		fail "uid 65534's 16 connect-and-close loops: tracer under 10% of a CPU" "${pc}% ($((b - a)) ticks in $ms ms, $c connections); $(grep listen: "$T/cl.err" | tail -2)"
	timeout 30 nc -d 127.0.0.1 $P2 >"$T/cl.pull" </dev/null
	[ "$(head -c 8 "$T/cl.pull")" = PERFILE2 ] && pass "after the loops, root pulls a dump" ||
		fail "after the loops, root pulls a dump" "$(wc -c <"$T/cl.pull") bytes; $(tail -2 "$T/cl.err")"
	stop_tracer >/dev/null
else
	fail "a refusal loop: tracer records" "$(cat "$T/cl.err")"
fi
rm -rf "$NB"

# --- nc -N: a client that sent its key and shut its end of writing
# still gets its dump; so does root's without a key, shut while it waits
# its turn (the socket table shows its end still held) ---
P3=$((HP + 2))
head -c 24 /dev/urandom | base64 >"$T/hkey"; chmod 600 "$T/hkey"
if start_tracer "$T/kn" -o "$T/kn.data" "sched:sched_process_exec buf=64k listen=127.0.0.1:$P3 key=$T/hkey"; then
	nobody timeout 20 nc -N 127.0.0.1 $P3 <"$T/hkey" >"$T/kn.pull"
	[ "$(head -c 8 "$T/kn.pull")" = PERFILE2 ] && perf script -i "$T/kn.pull" >/dev/null 2>&1 &&
		pass "nc -N with the key (uid 65534 on loopback): the dump arrives, perf reads it" ||
		fail "nc -N with the key: the dump arrives" "$(wc -c <"$T/kn.pull") bytes; $(grep listen: "$T/kn.err" | tail -2)"
	# the burst of 4 pulls used up (and what came back meanwhile), so that nc -N waits its turn
	for i in 1 2 3 4 5 6; do timeout 20 nc -d 127.0.0.1 $P3 </dev/null >/dev/null; done
	timeout 20 nc -N 127.0.0.1 $P3 </dev/null >"$T/kn.root"
	[ "$(head -c 8 "$T/kn.root")" = PERFILE2 ] && perf script -i "$T/kn.root" >/dev/null 2>&1 &&
		pass "nc -N as root without a key, after waiting its turn: the dump arrives, perf reads it" ||
		fail "nc -N as root without a key, after waiting its turn: the dump arrives" "$(wc -c <"$T/kn.root") bytes; $(grep listen: "$T/kn.err" | tail -2)"
	stop_tracer >/dev/null
else
	fail "listen= key= and nc -N: tracer records" "$(cat "$T/kn.err")"
fi

# --- descriptors: at the smallest limit tracer starts with (what its
# fd check asks for), a push= spool of 40 dumps to a store that is not
# there and 30 connections: no spin, every SIGUSR2 dumped (the spool's
# fds were not counted: it ate the pulls' and the dumps', and accept4
# failing with EMFILE woke the loop at once, again and again) ---
PB=$T/kc-pullfd/tracer
rm -rf "$T/kc-pullfd"; copy_src "$T/kc-pullfd"
make -s -C "$T/kc-pullfd" defconfig >/dev/null 2>&1
sed -i 's/^# CONFIG_PUSH is not set/CONFIG_PUSH=y/' "$T/kc-pullfd/.config"
printf '[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY\n' >"$T/hs3key"
chmod 600 "$T/hs3key"
P4=$((HP + 3))
C4="sched:sched_process_exec buf=64k procs=0 listen=127.0.0.1:$P4 push=http://127.0.0.1:1/b s3key=$T/hs3key spool=40"
if ! make -s -C "$T/kc-pullfd" tracer >"$T/kc-pullfd.log" 2>&1; then
	fail "a build with PUSH" "$(tail -5 "$T/kc-pullfd.log")"
elif ! N=$(prlimit --nofile=12:12 "$PB" -o "$T/fd.data" "$C4" 2>&1 | sed -n 's/.* need \([0-9]*\) file descriptors.*/\1/p') || [ -z "$N" ]; then
	fail "the fd check says how many descriptors it needs" "$(prlimit --nofile=12:12 "$PB" -o "$T/fd.data" "$C4" 2>&1 | head -2)"
else
	rm -f "$T/fd.data"*
	timeout 10 prlimit --nofile=$((N - 1)):$((N - 1)) "$PB" -o "$T/fd.data" "$C4" >/dev/null 2>"$T/fd.err"; rc=$?
	case "$rc:$(cat "$T/fd.err")" in 1:*"need $N file descriptors"*) pass "nofile=$((N - 1)): refused at start, says $N" ;;
	*) fail "nofile=$((N - 1)): refused at start, says $N" "rc=$rc $(tail -1 "$T/fd.err")" ;; esac
	: >"$T/fd.err"
	prlimit --nofile=$N:$N "$PB" -o "$T/fd.data" "$C4" >/dev/null 2>"$T/fd.err" & TPID=$!; TRACERS="$TRACERS $TPID"
	for i in $(seq 100); do grep -q recording "$T/fd.err" && break; sleep 0.1; done
	for i in $(seq 45); do kill -USR2 $TPID; wait_line "$T/fd" "dump $i (" >/dev/null; done
	pids=; for i in $(seq 30); do timeout 30 nc -d 127.0.0.1 $P4 >"$T/fd.pull$i" </dev/null & pids="$pids $!"; done
	pc=$(busy $TPID)
	kill -USR2 $TPID
	for i in $(seq 100); do [ $(grep -c "dump [0-9]* (signal)" "$T/fd.err") -ge 46 ] && break; sleep 0.1; done
	n=0; for i in $(seq 46); do [ -s "$T/fd.data$([ $i = 1 ] || echo .$((i - 1)))" ] && n=$((n + 1)); done
	[ $pc -lt 25 ] && pass "nofile=$N: 40 dumps spooled and 30 pulls waiting: tracer at ${pc}% of a CPU (no spin)" ||
		fail "nofile=$N: 40 dumps spooled and 30 pulls waiting: no spin" "${pc}%; $(grep -v 'dump [0-9]' "$T/fd.err" | tail -3)"
	testing "nofile=$N: all 46 SIGUSR2s dumped to -o" 46 "$n"
	kill $pids 2>/dev/null; wait $pids 2>/dev/null
	kill -INT $TPID; wait_rc $TPID 20
fi

# --- no descriptor free when a client comes (the limit lowered under a
# running tracer to what it holds): the listening socket rests a second
# between tries rather than spin, and signals are still dumped. Events
# on perf rings, so that it holds more fds than it polls (poll() takes
# no more fds than the limit) ---
P5=$((HP + 4))
if start_tracer "$T/mf" "cpu-clock page-faults context-switches sched:sched_process_exec engine=perf buf=64k listen=127.0.0.1:$P5"; then
	# (fds the test's shell passed on, far up, count not)
	u=$(ls /proc/$TPID/fd | awk '$1 < 200' | wc -l) top=$(ls /proc/$TPID/fd | awk '$1 < 200' | sort -n | tail -1)
	if [ "$top" != $((u - 1)) ]; then
		skip "no descriptor free: no spin" "tracer's fds below 200 are not 0 to $((u - 1)) (up to $top): the limit would leave one free"
	else
		prlimit --pid $TPID --nofile=$u:$u
		pids=; for i in $(seq 12); do timeout 30 nc -d 127.0.0.1 $P5 >/dev/null </dev/null & pids="$pids $!"; done
		pc=$(busy $TPID)
		kill -USR2 $TPID
		wait_line "$T/mf" "dump [0-9]* (signal)" >/dev/null
		grep -q "listen: accept: no file descriptor free" "$T/mf.err" && [ $pc -lt 25 ] &&
			pass "nofile lowered to the $u fds it holds, 12 pulls waiting: said, ${pc}% of a CPU (no spin)" ||
			fail "nofile lowered to the fds it holds, 12 pulls waiting: said, no spin" "${pc}%; $(grep listen: "$T/mf.err" | tail -2)"
		grep -q "dump [0-9]* (signal)" "$T/mf.err" && pass "and SIGUSR2 is still dumped" ||
			fail "and SIGUSR2 is still dumped" "$(tail -2 "$T/mf.err")"
		kill $pids 2>/dev/null; wait $pids 2>/dev/null
	fi
	stop_tracer >/dev/null
else
	fail "nofile lowered: tracer records" "$(cat "$T/mf.err")"
fi
