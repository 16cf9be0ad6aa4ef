# test/gconsole.py SOCK DIR TRACER PORT - scenario k of test/qemu.sh: a
# board's serial console, shared. The guest (test/qemu-init.sh, "tracer_k")
# runs a shell whose controlling terminal is the console; QEMU gives that
# console to this script on the unix socket SOCK. As a user at a BusyBox
# board with a read-only root would, it types the README's board commands
# into that shell, as written:
#   onto the board   nc -l -p 9999 > /tmp/tracer (the host sends TRACER
#                    to PORT, which QEMU forwards to the guest's 9999)
#   run it           /tmp/tracer -o /tmp/t.data &, kill -USR2 PID,
#                    kill -INT PID; tracer -p /tmp/t.data on the board;
#                    the files copied off with nc to the host
#   pulled, keyed    the key in /tmp, listen=0.0.0.0:9000 key=..., the
#                    host pulls through PORT+100 (the guest's 9000) with
#                    the key; kill -INT $(pidof tracer)
#   the console      tracer -o /dev/CONSOLE frame=text &: lines typed while
#                    it records reach the shell whole, stty -g unchanged
#                    while it records and after it exits
# One "ok:" or "bad:" line per check. DIR gets console.out (all the
# console said, for tracer -x), t.data, t.data.1 and pull.data.
import os, re, socket, sys, threading, time

sock, d, tracer, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out = bytearray()
lock = threading.Lock()
c = None
for i in range(300):
    try:
        c = socket.socket(socket.AF_UNIX)
        c.connect(sock)
        break
    except OSError:
        c = None
        time.sleep(0.1)
if not c:
    print("bad: the console socket %s" % sock)
    sys.exit(1)
log = open(d + "/console.out", "wb")


def reader():
    while True:
        try:
            b = c.recv(65536)
        except OSError:
            b = b""
        if not b:
            return
        with lock:
            out.extend(b)
        log.write(b)
        log.flush()


threading.Thread(target=reader, daemon=True).start()


def until(pat, t, since=0):
    end = time.time() + t
    while time.time() < end:
        with lock:
            m = re.search(pat, bytes(out[since:]))
        if m:
            return m
        time.sleep(0.1)
    return None


def check(what, good):
    print(("ok: " if good else "bad: ") + what, flush=True)
    return good


n = 0


def send(line):
    c.sendall(line.encode() + b"\n")


def cmd(line, t=30, bg=False, val=""):
    # LINE typed, then a marker the echo of the line cannot hold: its
    # answer, LINE's status (or $! when it runs in the background), and
    # VAL as the shell expands it. None if it does not come in T s.
    global n
    n += 1
    a = 6 * n + 1
    send(line + (" & r=$!; " if bg else "; r=$?; ") + 'echo "$((6*%d+1))-k $r %s"' % (n, val))
    m = until(rb"(?m)^%d-k ([0-9]+)(.*?)\r?$" % a, t)
    return (int(m.group(1)), m.group(2).decode(errors="replace").strip()) if m else None


def typed(k):  # a line the shell must get whole
    r = cmd("echo $((7*%d+2))-intact" % k, 10)
    return r is not None and until(rb"(?m)^%d-intact\r?$" % (7 * k + 2), 1) is not None


def started(pid, since):  # the start line's pid
    m = until(rb"recording .*pid (\d+)", 60, since)
    return m and int(m.group(1)) == pid


def mark():
    with lock:
        return len(out)


def bg_tracer(line):  # LINE started in the background: its pid, as its start line says, or 0
    f = mark()
    r = cmd(line, bg=True)
    tp = r[0] if r else 0
    ok = check("%s &: the start line gives pid %s" % (line, tp), tp and started(tp, f))
    return tp if ok else 0


if not check("the guest's shell on the console", until(rb"QT k: shell on ", 120)):
    sys.exit(1)
time.sleep(1)
r = cmd("stty -g >/tmp/k.modes", val="$(tty)")
check("a shell whose terminal is the console (%s)" % (r,), r and r[0] == 0 and r[1].startswith("/dev/"))

# onto the board: nc -l on the board, nc -q1 from the host
data = open(tracer, "rb").read()
f = mark()
n += 1
send('nc -l -p 9999 > /tmp/tracer; echo "$((6*%d+1))-k $? $(wc -c </tmp/tracer)"' % n)
m = None
for i in range(20):
    time.sleep(0.5)
    try:
        s = socket.create_connection(("127.0.0.1", port), 5)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        time.sleep(1)
        s.close()
    except OSError:
        continue
    m = until(rb"(?m)^%d-k ([0-9]+) ([0-9]+)\r?$" % (6 * n + 1), 10, f)
    if m:
        break
check("nc -l -p 9999 > /tmp/tracer on the board: %s of %d bytes" % (m and m.group(2).decode(), len(data)),
      m and int(m.group(2)) == len(data))
r = cmd("chmod +x /tmp/tracer")
check("chmod +x /tmp/tracer", r and r[0] == 0)

# run it: -o /tmp/t.data, kill -USR2 PID, kill -INT PID
tp = bg_tracer("/tmp/tracer -o /tmp/t.data")
if tp:
    cmd("/bin/wk_hot spin 50")
    f = mark()
    cmd("kill -USR2 %d" % tp)
    check("kill -USR2 %d: dump 1" % tp, until(rb"dump 1 \(", 60, f))
    cmd("/bin/wk_hot spin 50")  # an exec for the final dump too
    r = cmd("kill -INT %d; wait %d" % (tp, tp), 90)
    check("kill -INT %d: tracer exits 0 (%s)" % (tp, r), r and r[0] == 0)
    r = cmd("ls /tmp/t.data* >/dev/null", val="$(echo $(ls /tmp/t.data*))")
    check("/tmp/t.data and /tmp/t.data.1 written (%s)" % (r and r[1]), r and r[1] == "/tmp/t.data /tmp/t.data.1")
    r = cmd("tracer -p /tmp/t.data >/tmp/t.txt", val="$(grep -c 'sched_process_exec.*wk_hot' /tmp/t.txt)")
    check("tracer -p /tmp/t.data on the board prints wk_hot's exec (%s)" % (r,), r and r[0] == 0 and r[1].isdigit() and int(r[1]) > 0)
    for name in ("t.data", "t.data.1"):  # copied off with nc
        r = cmd("[ -s /tmp/%s ]" % name, val="$(wc -c </tmp/%s)" % name)
        size = int(r[1]) if r and r[1].isdigit() else -1
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        ls.settimeout(30)
        n += 1
        send('nc 10.0.2.2 %d </tmp/%s; echo "$((6*%d+1))-k $?"' % (ls.getsockname()[1], name, n))
        got = b""
        try:
            a, _ = ls.accept()
            a.settimeout(30)
            while len(got) < size:
                b = a.recv(65536)
                if not b:
                    break
                got += b
            a.close()
        except OSError:
            pass
        ls.close()
        until(rb"(?m)^%d-k " % (6 * n + 1), 10)
        open("%s/%s" % (d, name), "wb").write(got)
        check("/tmp/%s copied off with nc: %d of %d bytes" % (name, len(got), size), size > 0 and len(got) == size)

# pulled with a key kept in /tmp
r = cmd("(umask 077; head -c 24 /dev/urandom | base64 > /tmp/tracer.key)")
check("the key made in /tmp", r and r[0] == 0)
f = mark()
tp = bg_tracer("tracer -o /tmp/t 'listen=0.0.0.0:9000 key=/tmp/tracer.key'")
if tp:
    cmd("cat /tmp/tracer.key")
    with lock:
        m = re.search(rb"(?m)^([A-Za-z0-9+/=]{32})\r?$", bytes(out[f:]))
    key = m and m.group(1)
    cmd("/bin/wk_hot spin 50")
    got = b""
    if check("the key read off the console", key):
        try:
            s = socket.create_connection(("127.0.0.1", port + 100), 10)
            s.settimeout(60)
            s.sendall(key + b"\n")
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
        except OSError as e:
            print("pull: %s" % e)
    open(d + "/pull.data", "wb").write(got)
    check("pulled with the key: %d bytes" % len(got), len(got) > 1000)
    r = cmd("kill -INT $(pidof tracer); wait %d" % tp, 90)
    check("kill -INT $(pidof tracer): exits 0 (%s)" % (r,), r and r[0] == 0)

# the console itself: tracer -o /dev/CONSOLE frame=text &
r = cmd(":", val="$(tty)")
con = r and r[1]
tp = bg_tracer("tracer -o %s frame=text" % con)
if tp:
    check("lines typed while tracer records on the console reach the shell whole",
          all(typed(k) for k in range(1, 4)))
    r = cmd('[ "$(stty -g)" = "$(cat /tmp/k.modes)" ]')
    check("stty -g unchanged while tracer records", r and r[0] == 0)
    cmd("/bin/wk_hot spin 50")
    f = mark()
    cmd("kill -USR2 %d" % tp)
    check("kill -USR2: dump 1 on the console", until(rb"#TRACER END 1 ", 120, f))
    time.sleep(1)
    check("after the dump, typed lines reach the shell whole", all(typed(k) for k in range(4, 6)))
    cmd("/bin/wk_hot spin 50")
    f = mark()
    r = cmd("kill -INT %d; wait %d" % (tp, tp), 120)
    check("kill -INT: the final dump on the console, tracer exits 0 (%s)" % (r,),
          r and r[0] == 0 and until(rb"#TRACER END 2 ", 1, f))
    r = cmd('[ "$(stty -g)" = "$(cat /tmp/k.modes)" ]')
    check("stty -g unchanged after tracer exits", r and r[0] == 0)
    check("and the shell still takes lines whole", typed(7))
# the README's example of a config error: its words, exit 2
rd = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")).read()
m = re.search(r"\n    \$ (tracer '[^'\n]*')\n    (tracer: config: [^\n]*)\n", rd)
if check("the README shows a config error (%s)" % (m and m.group(1)), m):
    r = cmd("%s 2>/tmp/k.err" % m.group(1), val="$(cat /tmp/k.err)")
    check("%s on the board: exit 2, the README's words (%s)" % (m.group(1), r), r and r[0] == 2 and r[1] == m.group(2))
send("poweroff -f")
time.sleep(2)
