#!/usr/bin/python3
# test/slow.py - a slow link for upload tests: a TCP proxy on 127.0.0.1
# that passes what the client sends at RATE bytes per second and what
# the server answers at full speed.
#
#   slow.py LISTEN_PORT TARGET_PORT RATE [PIDFILE]
#
# LISTEN_PORT 0 takes a free one. Once it listens it prints "ready PORT"
# and writes PIDFILE (its pid). RATE 0 passes nothing upward: a server
# that never gets the body (the connection stays open). Connections one
# after another or side by side, each its own pair of threads; each is
# closed when both directions ended. Ends on SIGTERM or SIGINT; SIGUSR1
# heals the link: full speed from then on.
#
# What the client feels: its answer comes late (an upload of N bytes
# takes N / RATE seconds). Its send()s may well return at once: on
# loopback the kernel's send buffer grows to MiBs (a 200 KiB sendall
# returned in 0.00 s at 20 KiB/s), though the proxy's small receive
# buffer keeps the backlog on the client's side.
import os
import signal
import socket
import sys
import threading
import time

BUF = 4096
HEAL = threading.Event()  # SIGUSR1: the link heals, full speed from now on


def up(src, dst, rate):
    """src -> dst at rate bytes/s: never ahead of rate * elapsed"""
    sent, t0 = 0, time.monotonic()
    step = max(1, min(BUF, rate // 20))  # ~20 sends a second: smooth
    while True:
        if HEAL.is_set():
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
            continue
        if rate == 0:
            time.sleep(1)
            continue
        ahead = sent + step - rate * (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead / rate)
        data = src.recv(step)
        if not data:
            break
        dst.sendall(data)
        sent += len(data)


def down(src, dst, rate):
    while True:
        data = src.recv(65536)
        if not data:
            break
        dst.sendall(data)


def pipe(fn, src, dst, rate, done):
    try:
        fn(src, dst, rate)
        dst.shutdown(socket.SHUT_WR)  # pass the end on (half close)
    except OSError:
        for s in src, dst:  # a reset: both ends learn at once
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    if done.acquire(blocking=False):
        return  # the other direction still runs: it closes
    src.close()
    dst.close()


def serve(c, target, rate):
    try:
        s = socket.create_connection(("127.0.0.1", target))
    except OSError as e:
        sys.stderr.write("slow.py: 127.0.0.1:%d: %s\n" % (target, e))
        c.close()
        return
    done = threading.Lock()
    threading.Thread(target=pipe, args=(up, c, s, rate, done), daemon=True).start()
    threading.Thread(target=pipe, args=(down, s, c, rate, done), daemon=True).start()


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit("usage: slow.py LISTEN_PORT TARGET_PORT RATE_BYTES_PER_S [PIDFILE]")
    port, target, rate = int(argv[1]), int(argv[2]), int(argv[3])
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    signal.signal(signal.SIGUSR1, lambda *a: HEAL.set())
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUF)  # (accepted sockets inherit it)
    l.bind(("127.0.0.1", port))
    l.listen(16)
    if len(argv) == 5:
        with open(argv[4] + ".new", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(argv[4] + ".new", argv[4])  # whole or not there
    print("ready", l.getsockname()[1], flush=True)
    try:
        while True:
            c, _ = l.accept()
            serve(c, target, rate)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv)
