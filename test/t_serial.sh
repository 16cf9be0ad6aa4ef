# Serial ports, slow links and framed text: the output side of a board.

# --- a tty: raw mode, baud, the stream through it, termios restored ---
python3 test/pty.py "$T/pty.out" >"$T/pty.name" & PP=$!; WORKS="$WORKS $PP"
for i in $(seq 50); do [ -s "$T/pty.name" ] && break; sleep 0.1; done
PTS=$(cat "$T/pty.name")
before=$(stty -F "$PTS" -g)
if start_tracer "$T/tty" -o "$PTS" 'sched:sched_process_exec sched:sched_switch baud=57600 buf=1m'; then
	during=$(stty -F "$PTS" -a)
	case "$during" in *"speed 57600 baud"*"-opost"*"-icanon"*) pass "-o TTY: raw mode at baud=57600" ;;
	*) fail "-o TTY: raw mode at baud=57600" "$during" ;; esac
	cp "$T/work" "$T/ttywk"; "$T/ttywk" sleep 10
	dump_wait "$T/tty" 1
	"$T/work" sleep 10
	stop_tracer; rc=$?
	testing "-o TTY: exit 0" 0 $rc
	testing "-o TTY: termios restored on exit" "$before" "$(stty -F "$PTS" -g)"
	sleep 0.3
	perf script -i "$T/pty.out" >"$T/pty.txt" 2>/dev/null
	grep -q "filename=$T/ttywk " "$T/pty.txt" && pass "-o TTY: one stream, decoded by perf" ||
		fail "-o TTY: one stream, decoded by perf" "$(head -c 300 "$T/pty.txt")"
	check "-o TTY: two dumps, times in order" monotonic "$T/pty.out"
fi
kill $PP 2>/dev/null

# --- a port that hangs up: reported, recording goes on, termios restored on die ---
python3 test/pty.py "$T/hup.out" 100 >"$T/hup.name" & PP=$!; WORKS="$WORKS $PP"
for i in $(seq 50); do [ -s "$T/hup.name" ] && break; sleep 0.1; done
PTS=$(cat "$T/hup.name")
if start_tracer "$T/hup" -o "$PTS" 'sched:sched_switch'; then
	dump_wait "$T/hup" 1 >/dev/null; sleep 0.5
	dump_wait "$T/hup" 2 >/dev/null
	grep -q "dump 2 (signal): writing $PTS failed, recording goes on" "$T/hup.err" && kill -0 $TPID &&
		pass "a hung-up port: reported, recording goes on" || fail "a hung-up port: reported, recording goes on" "$(cat "$T/hup.err")"
	stop_tracer >/dev/null
fi
kill $PP 2>/dev/null

# --- a slow link: progress every few seconds, its total and time to go
# within 2x of the truth (the dump line's bytes, the time it came): a
# stream (perf rings, then ftrace's and zstd) and a pull, each read at
# RATE bytes a second (a pipe's buffer takes its first 64 KiB at once) ---
cat >"$T/crawl.py" <<'PY'
import os, socket, sys, time
# crawl.py fifo PATH RATE | crawl.py tcp PORT RATE: read at RATE bytes/s
kind, where, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "fifo":  # open before tracer's dump opens it (read and write: no wait)
    fd = os.open(where, os.O_RDWR)
    rd = lambda n: os.read(fd, n)
else:  # listen=@NAME: a unix socket's buffer is 208 KiB, TCP's on loopback MiBs
    s = socket.socket(socket.AF_UNIX)
    s.connect("\0" + where)
    rd = lambda n: s.recv(n)
print("open", flush=True)
while True:
    b = rd(max(rate // 10, 1))
    if not b:
        break
    time.sleep(0.1)
PY
# stamp LOG: stderr lines with their time, into LOG.err
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$1.err"; }
# prog_check NAME LOG DUMP: each progress line of dump DUMP against its dump line
prog_check() {
	local r
	r=$(awk -v d="$3" '
		$3 == "dump" && $4 == d":" && $6 == "of" { t[++n] = $1; w[n] = $5; tot[n] = +substr($7, 2); s[n] = $10 }
		$3 == "dump" && $4 == d && $5 ~ /^\(/ { for (i = 5; i <= NF; i++) if ($(i + 1) ~ /^bytes/) { N = $i; break }; te = $1 }
		END {
			if (!n || !te) { print "no progress lines (" n ") or no dump line"; exit }
			for (i = 1; i <= n; i++) {
				left = te - t[i]
				# (time to go: 2x, or a tick of 3 s, off)
				if (tot[i] < N / 2 || tot[i] > 2 * N || s[i] < left / 2 - 1 || (s[i] > 2 * left + 1 && s[i] > left + 4))
					bad = bad sprintf(" [%d of ~%d, %d s to go: truth %d bytes, %.1f s]", w[i], tot[i], s[i], N, left)
			}
			print bad ? "off:" bad : "ok: " n " lines, e.g. " w[n] " of ~" tot[n] " (" N "), " s[n] " s to go (" sprintf("%.1f", te - t[n]) ")"
		}' "$2.err")
	case $r in ok:*) pass "$1: progress within 2x of the truth (${r#ok: })" ;; *) fail "$1: progress within 2x of the truth" "$r; $(tail -3 "$2.err" | cut -c1-200 | tr "\n" " ")" ;; esac
}
cp "$T/work" "$T/pgwk"
for c in "engine=perf:16384" "zstd:3072"; do
	rm -f "$T/pg.fifo"; mkfifo "$T/pg.fifo"
	"$TRACER" -o "$T/pg.fifo" "syscalls:sys_enter_close/fd>=100000/ cpus=0 buf=256k ${c%:*}" 2> >(stamp "$T/pg") & TPID=$!
	TRACERS="$TRACERS $TPID"
	python3 "$T/crawl.py" fifo "$T/pg.fifo" "${c#*:}" >"$T/pg.open" & CR=$!; WORKS="$WORKS $CR"
	for i in $(seq 100); do grep -q recording "$T/pg.err" 2>/dev/null && [ -s "$T/pg.open" ] && break; sleep 0.1; done
	taskset -c 0 "$T/pgwk" close 100000
	kill -USR2 $TPID
	for i in $(seq 600); do grep -q "dump 1 (" "$T/pg.err" && break; sleep 0.1; done
	prog_check "a stream read at ${c#*:} B/s (${c%:*})" "$T/pg" 1
	kill -9 $TPID $CR 2>/dev/null; wait $TPID $CR 2>/dev/null
done
"$TRACER" -o "$T/pgp.data" "syscalls:sys_enter_close/fd>=100000/ cpus=0 buf=256k listen=@trpg$$" 2> >(stamp "$T/pgp") & TPID=$!
TRACERS="$TRACERS $TPID"
for i in $(seq 100); do grep -q recording "$T/pgp.err" 2>/dev/null && break; sleep 0.1; done
taskset -c 0 "$T/pgwk" close 100000
timeout 120 python3 "$T/crawl.py" unix "trpg$$" 49152 >/dev/null
prog_check "a pull read at 49152 B/s" "$T/pgp" 1
kill -9 $TPID 2>/dev/null; wait $TPID 2>/dev/null

# --- framed text: extract is bit-identical through interleaved messages ---
if start_tracer "$T/fr" 'sched:sched_switch sched:sched_process_exec frame=text'; then
	cp "$T/work" "$T/frwk"; "$T/frwk" sleep 10
	dump_wait "$T/fr" 1 >/dev/null
	"$T/work" sleep 10
	stop_tracer >/dev/null
	"$TRACER" -x -n 1 <"$T/fr.out" >"$T/fr1.data" 2>"$T/x.err"; rc=$?
	testing "-x -n 1: extracts dump 1, exit 0" 0 $rc
	perf script -i "$T/fr1.data" 2>/dev/null | grep -q "filename=$T/frwk " &&
		pass "-x: the extracted dump decodes" || fail "-x: the extracted dump decodes"
	# kernel-like lines between frame lines, and before a marker on a line
	awk '{ if (NR % 7 == 0) print "[ 1234.567890] usb 1-1: new high-speed USB device"; if (NR % 11 == 0) printf "[ 99.1] eth0: link up "; print }' \
		"$T/fr.out" >"$T/fr.mixed"
	"$TRACER" -x -n 1 <"$T/fr.mixed" 2>/dev/null | cmp -s - "$T/fr1.data" &&
		pass "-x: bit-identical from a capture with kernel messages mixed in" ||
		fail "-x: bit-identical from a capture with kernel messages mixed in"
	# a kernel message landing inside a frame line (printk bypasses the tty)
	awk 'NR == 12 { print substr($0, 1, 30) "[   16.314978] kernel: noise inside a line"; print substr($0, 31); next } { print }' \
		"$T/fr.out" >"$T/fr.inside"
	"$TRACER" -x -n 1 <"$T/fr.inside" 2>/dev/null | cmp -s - "$T/fr1.data" &&
		pass "-x: bit-identical when a message lands inside a frame line" ||
		fail "-x: bit-identical when a message lands inside a frame line" "$("$TRACER" -x -n 1 <"$T/fr.inside" 2>&1 >/dev/null)"
	# a message, or a piece of one (the ppc64/x86 segfault report is
	# three printks: "... code 1", " in exe[...]", "\n"), landing anywhere
	# in a frame line: in its number, its data, its CRC; with or without
	# its newline (the rest of the frame line on the same capture line)
	awk '/^#T / && ++k % 3 == 0 { c = 4 + (k * 7) % (length($0) - 4); m = "[   11.745229] exe[152]: segfault (11) at 0 nip 10001234 lr 10001234 code 1"
		if (k % 2) { print substr($0, 1, c - 1) m substr($0, c); print " in exe[10000000+20000]" }
		else { print substr($0, 1, c - 1) m " in exe[10000000+20000]"; print substr($0, c) }
		next } { print }' "$T/fr.out" >"$T/fr.split"
	"$TRACER" -x -n 1 <"$T/fr.split" 2>/dev/null | cmp -s - "$T/fr1.data" &&
		pass "-x: bit-identical when messages land at every place in frame lines" ||
		fail "-x: bit-identical when messages land at every place in frame lines" "$("$TRACER" -x -n 1 <"$T/fr.split" 2>&1 >/dev/null | head -3)"
	# a kernel message inside dump 1's begin marker: its number follows
	# on the next line (seen on a 4.4 guest's console)
	awk '/^#TRACER BEGIN 1/ { print "#TRACER BEGIN [   79.728986] kernel: noise 7\r"; print "1\r"; next } { print }' \
		"$T/fr.out" >"$T/fr.begin"
	"$TRACER" -x -n 1 <"$T/fr.begin" 2>/dev/null | cmp -s - "$T/fr1.data" &&
		pass "-x: bit-identical when a message lands inside the begin marker" ||
		fail "-x: bit-identical when a message lands inside the begin marker" "$("$TRACER" -x -n 1 <"$T/fr.begin" 2>&1 >/dev/null | tr '\n' ' ')"
	"$TRACER" -x -o "$T/all.data" <"$T/fr.mixed" 2>/dev/null
	check "-x -o FILE: one file per dump" test -s "$T/all.data" -a -s "$T/all.data.1"
	check "-x -o FILE: dump 2 decodes alone" perf script -i "$T/all.data.1"
	cmp -s "$T/all.data" "$T/fr1.data" && pass "-x -o FILE: FILE is dump 1" || fail "-x -o FILE: FILE is dump 1"
	# FILE there already: kept, the dumps in the next free names (as
	# recording and -c do), not lost
	echo keep >"$T/xk.data"
	"$TRACER" -x -o "$T/xk.data" <"$T/fr.mixed" 2>"$T/xk.err"; rc=$?
	[ $rc = 0 ] && [ "$(cat "$T/xk.data")" = keep ] && cmp -s "$T/xk.data.1" "$T/all.data" && cmp -s "$T/xk.data.2" "$T/all.data.1" &&
		pass "-x -o FILE, FILE there: kept, the dumps in FILE.1 and FILE.2, exit 0" ||
		fail "-x -o FILE, FILE there: kept, the dumps in FILE.1 and FILE.2" "rc=$rc $(tr '\n' ' ' <"$T/xk.err")"
	"$TRACER" -x -o /dev/null <"$T/fr.mixed" 2>"$T/xk.err"; rc=$?
	[ $rc = 2 ] && grep -q -- "-o /dev/null: not a file" "$T/xk.err" && [ ! -e /dev/null.1 ] &&
		pass "-x -o /dev/null: exit 2, nothing written in /dev" || fail "-x -o /dev/null: exit 2, nothing in /dev" "rc=$rc $(cat "$T/xk.err")"
	# -o with a corrupt line in dump 2: dump 2 named, no half file of it
	# (perf would stop inside it: "bad event header size"), dump 1 whole
	# (a char changed: one put in would be a message, taken out again)
	awk '/#TRACER BEGIN/ { d++ } d == 2 && /^#T 3 / { c = substr($0, 10, 1); $0 = substr($0, 1, 9) (c == "Q" ? "R" : "Q") substr($0, 11) } { print }' "$T/fr.out" >"$T/fr.bad2"
	rm -f "$T/xb.data"*
	"$TRACER" -x -o "$T/xb.data" <"$T/fr.bad2" 2>"$T/xb.err"; rc=$?
	[ $rc = 1 ] && grep -q "dump 2: DAMAGED: no file for it" "$T/xb.err" && cmp -s "$T/xb.data" "$T/all.data" && [ ! -e "$T/xb.data.1" ] &&
		perf script -i "$T/xb.data" >/dev/null 2>&1 &&
		pass "-x -o FILE, a corrupt line in dump 2: exit 1, '$(grep DAMAGED: "$T/xb.err" | sed 's/tracer: //')', dump 1 whole" ||
		fail "-x -o FILE, a corrupt line in dump 2: named, no half file" "rc=$rc $(tr '\n' ' ' <"$T/xb.err") $(ls "$T"/xb.data*; perf script -i "$T/xb.data.1" 2>&1 >/dev/null | head -1)"
	# damage one line: the error names it
	awk 'NR == 9 { c = substr($0, 10, 1); $0 = substr($0, 1, 9) (c == "Q" ? "R" : "Q") substr($0, 11) } { print }' "$T/fr.out" >"$T/fr.bad"
	err=$("$TRACER" -x -n 1 <"$T/fr.bad" 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in 1:*"capture line 9 is corrupt (frame line 6)"*) pass "-x: a damaged line is named, exit 1" ;;
	*) fail "-x: a damaged line is named, exit 1" "rc=$rc $err" ;; esac
	sed '9d' "$T/fr.out" >"$T/fr.miss"
	err=$("$TRACER" -x -n 1 <"$T/fr.miss" 2>&1 >/dev/null); rc=$?
	case "$rc:$err" in 1:*"frame lines 6 to 6 are missing"*) pass "-x: a missing line is named, exit 1" ;;
	*) fail "-x: a missing line is named, exit 1" "rc=$rc $err" ;; esac
fi

# --- a board's console UART, captured with picocom, extracted with -x ---
# socat makes the cable: tracer writes framed dumps to one end, where
# "kernel messages" are written too; picocom logs the other end.
if command -v socat >/dev/null && command -v picocom >/dev/null && command -v script >/dev/null; then
	socat pty,link="$T/uart",raw,echo=0 pty,link="$T/host",raw,echo=0 & SO=$!; WORKS="$WORKS $SO"
	for i in $(seq 50); do [ -e "$T/host" ] && break; sleep 0.1; done
	script -qfc "picocom -q -b 115200 --logfile $T/console.log $T/host" /dev/null >/dev/null 2>&1 & PC=$!
	WORKS="$WORKS $PC"; sleep 0.5
	if start_tracer "$T/pc" -o "$T/uart" 'sched:sched_switch sched:sched_process_exec frame=text baud=115200 buf=1m'; then
		cp "$T/work" "$T/pcwk"; "$T/pcwk" sleep 10
		( for i in $(seq 40); do echo "[ 12.$i] kernel: console noise $i"; sleep 0.02; done >"$T/uart" ) &
		dump_wait "$T/pc" 1 >/dev/null; wait $!
		stop_tracer >/dev/null; sleep 1
		pkill -f "picocom -q -b 115200 --logfile $T/console.log" 2>/dev/null
		grep -q "console noise" "$T/console.log" && pass "picocom captured the console with other output on it" ||
			fail "picocom captured the console with other output on it"
		"$TRACER" -x -n 1 <"$T/console.log" >"$T/pc.data" 2>"$T/pc.xerr"; rc=$?
		testing "tracer -x < console.log: dump 1 whole" 0 $rc
		perf script -i "$T/pc.data" 2>/dev/null | grep -q "filename=$T/pcwk " &&
			pass "the extracted dump decodes, with the workload" || fail "the extracted dump decodes" "$(cat "$T/pc.xerr")"
	fi
	kill $SO 2>/dev/null
else
	skip "picocom capture and -x" "socat, picocom or script(1) missing"
fi

# --- -o naming the console a shell uses (a board's, here a pty that is
# the shell's controlling terminal): never read, never put in raw mode,
# never stopped as a background job; what it wrote is extracted by -x ---
cp "$T/work" "$T/cnwk"
for how in bg setsid; do
	mkdir -p "$T/cn$how"; rm -f "$T/cn$how/"*
	python3 test/console.py "$TRACER" "$T/cn$how" "$how" "$T/cnwk" >"$T/cn$how.res" 2>&1
	while read -r r what; do
		case $r in ok:) pass "console, $what" ;; bad:) fail "console, $what" ;; esac
	done <"$T/cn$how.res"
	grep -q "^ok: $how: tracer records" "$T/cn$how.res" || fail "console ($how): console.py ran" "$(tail -3 "$T/cn$how.res")"
	"$TRACER" -x -o "$T/cn$how/x.data" <"$T/cn$how/console.out" 2>"$T/cn$how/x.err"; rc=$?
	n=$(for f in "$T/cn$how/x.data"*; do perf script -i "$f" 2>/dev/null; done | grep -c "filename=$T/cnwk ")
	[ "$rc" = 0 ] && [ "$n" -gt 0 ] && pass "console ($how): tracer -x extracts its dumps from the console's output (perf decodes the exec)" ||
		fail "console ($how): tracer -x extracts its dumps" "rc=$rc, $n execs; $(tail -2 "$T/cn$how/x.err")"
done
