# test/console.py TRACER DIR HOW WORK: a board's console, shared: a shell
# on a pty whose slave is its controlling terminal (as a getty or init
# gives the console), job control on, tostop set. From that shell,
# tracer -o naming that terminal, frame=text: HOW "bg" starts it as a
# background job, "setsid" in a session of its own. Meanwhile lines are
# typed on the console and the shell must get each one whole; the
# console's modes must stay as they were, while tracer runs and after.
# Prints what it found, one "ok:" or "bad:" line per check; the
# console's whole output goes to DIR/console.out, for tracer -x.
import sys
sys.path.pop(0)  # test/pty.py is not the pty module
import os, pty, re, select, signal, termios, time

tracer, d, how, work = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "$ "
    os.execvp("sh", ["sh", "-i"])
out = b""


def more(t):
    global out
    end = time.time() + t
    while time.time() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                return


def until(pat, t):
    end = time.time() + t
    while time.time() < end:
        if re.search(pat, out):
            return True
        more(0.2)
    return False


def typed(k):
    # a line the shell must get whole: its answer is not in the echo
    a = 6 * k + 1
    os.write(fd, b"echo $((6*%d+1))-intact\n" % k)
    return until(rb"(?m)^%d-intact\r?$" % a, 10)


def alive(p):  # a zombie (the shell reaps its job at its prompt) has exited
    try:
        return open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def check(what, good):
    print(("ok: " if good else "bad: ") + what, flush=True)


more(1)
os.write(fd, b"set -m; stty tostop; tty >%s/tty\n" % d.encode())
until(rb"\$ $", 5)
more(0.5)
name = open(d + "/tty").read().strip()
s = os.open(name, os.O_RDWR | os.O_NOCTTY)
before = termios.tcgetattr(s)
cmd = "%s -o %s 'cpu-clock sched:sched_process_exec frame=text buf=256k' 2>%s/err" % (tracer, name, d)
os.write(fd, ((cmd + " &") if how == "bg" else "setsid " + cmd + " &").encode() + b"\n")
err, tp = "", 0
for i in range(100):
    err = open(d + "/err").read() if os.path.exists(d + "/err") else ""
    m = re.search(r"recording .*pid (\d+)", err)
    if m:
        tp = int(m.group(1))
        break
    more(0.1)
check("%s: tracer records (%s)" % (how, err.strip().replace("\n", " | ")[:300]), tp)
if tp:
    check("%s: a line typed on the console while tracer records reaches the shell whole" % how,
          all(typed(k) for k in range(1, 4)))
    check("%s: the console's modes unchanged while tracer records" % how, termios.tcgetattr(s) == before)
    os.write(fd, b"%s spin 20\n" % work.encode())
    more(1)
    os.kill(tp, signal.SIGUSR2)
    until(rb"#TRACER END 1 ", 20)  # dump 1 ends
    more(1)
    check("%s: after a dump on the console, typed lines still reach the shell" % how,
          all(typed(k) for k in range(4, 6)))
    os.kill(tp, signal.SIGINT)
    for i in range(200):
        if not alive(tp):
            break
        more(0.1)
    more(1)
    check("%s: tracer exits after SIGINT" % how, not alive(tp))
    check("%s: the console's modes unchanged after tracer exits" % how, termios.tcgetattr(s) == before)
    check("%s: and the shell still takes lines" % how, typed(7))
os.write(fd, b"exit\n")
more(1)
try:
    os.kill(pid, signal.SIGKILL)
except OSError:
    pass
if tp and alive(tp):
    os.kill(tp, signal.SIGKILL)
open(d + "/console.out", "wb").write(out)
