#!/usr/bin/python3
# test/fakes3.py - a lying S3 store on 127.0.0.1 for the push= tests of
# what tracer does with the store's answer (test/t_store.sh). It checks
# no signature (t_push's real server does); it answers each PUT as MODE
# says, and logs one line per connection to LOG:
#   "N PUT PATH x-amz-date=D bytes=B -> WHAT"
#
#   fakes3.py MODE LOG      prints "ready PORT" once it listens
#
# MODEs (connection N counts from 1):
#   ok         200 to every PUT
#   skew       1: 403 RequestTimeTooSkewed with a Date in 2100; then as
#              an honest store: RequestTimeTooSkewed with the true Date
#              when x-amz-date is more than 15 min off, else 200
#   short      1: "HTTP/1." and close; then 200
#   bigdate    1: RequestTimeTooSkewed, Date with a year of 20 digits; then 200
#   enddate    1: RequestTimeTooSkewed, 4095 bytes, no Date in its head,
#              its body ending "\nDate: Fri, 1 Jan"; then 200
#   biglen     200 with Content-Length: 18446744073709551615, kept open
#   continue   "100 Continue", then 200
#   redirect   301 to another host, every time
#   chunked    200, Transfer-Encoding: chunked, kept open
#   drip       a byte of "HTTP/1.1 200 OK..." every 5 s, every time
#   code       403 whose <Code> holds an escape and a newline, every time
#   toolarge   413 EntityTooLarge to the first PUT's key, 200 to the others
import socket
import sys
import threading
import time
from email.utils import formatdate

MODE, LOG = sys.argv[1], sys.argv[2]
lock = threading.Lock()
seen = []	# keys, in order of their first PUT
count = [0]


def log(line):
    with lock:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def read_req(c):
    b = b""
    while b"\r\n\r\n" not in b:
        d = c.recv(65536)
        if not d:
            return None, None, 0
        b += d
    head, body = b.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    h = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        h[k.strip().lower()] = v.strip()
    n = int(h.get("content-length", "0"))
    while len(body) < n:
        d = c.recv(65536)
        if not d:
            break
        body += d
    return lines[0], h, len(body)


def err(st, code, date=None, pad=0):
    body = "<?xml version=\"1.0\"?><Error><Code>%s</Code><Message>x</Message></Error>" % code
    date = date or formatdate(usegmt=True)
    return ("HTTP/1.1 %s\r\nDate: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
            % (st, date, len(body), body)).encode("latin-1")


OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def amz_off(h):
    d = h.get("x-amz-date", "")
    try:
        t = time.mktime(time.strptime(d, "%Y%m%dT%H%M%SZ")) - time.timezone
    except ValueError:
        return 1e9
    return abs(t - time.time())


def serve(c, n):
    req, h, got = read_req(c)
    if req is None:
        log("%d (no request)" % n)
        c.close()
        return
    key = req.split()[1]
    with lock:
        first = not seen
        if key not in seen:
            seen.append(key)
        mine = seen.index(key) == 0
    what, ans, keep = "200", OK, False
    if MODE == "skew":
        if n == 1:
            what, ans = "forged skew", err("403 Forbidden", "RequestTimeTooSkewed", "Fri, 01 Jan 2100 00:00:00 GMT")
        elif amz_off(h) > 900:
            what, ans = "honest skew", err("403 Forbidden", "RequestTimeTooSkewed")
    elif MODE == "short" and n == 1:
        what, ans = "short", b"HTTP/1."
    elif MODE == "bigdate" and n == 1:
        what, ans = "bigdate", err("403 Forbidden", "RequestTimeTooSkewed", "Fri, 01 Jan 99999999999999999999 00:00:00 GMT")
    elif MODE == "enddate" and n == 1:
        a = b"HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n<Error><Code>RequestTimeTooSkewed</Code></Error>"
        tail = b"\nDate: Fri, 1 Jan"
        what, ans = "enddate", a + b"x" * (4095 - len(a) - len(tail)) + tail
    elif MODE == "biglen":
        what, ans, keep = "biglen", b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\n", True
    elif MODE == "continue":
        what, ans = "continue", b"HTTP/1.1 100 Continue\r\n\r\n" + OK
    elif MODE == "redirect":
        what, ans = "301", b"HTTP/1.1 301 Moved Permanently\r\nLocation: http://10.9.9.9/b\r\nContent-Length: 0\r\n\r\n"
    elif MODE == "chunked":
        what, ans, keep = "chunked", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", True
    elif MODE == "code":
        what, ans = "code", err("403 Forbidden", "Evil\x1b[2J\ntracer: FORGED LINE")
    elif MODE == "toolarge" and mine:
        what, ans = "413", err("413 Request Entity Too Large", "EntityTooLarge")
    log("%d %s x-amz-date=%s bytes=%d -> %s" % (n, req, h.get("x-amz-date", ""), got, what))
    try:
        if MODE == "drip":
            for b in OK:
                c.send(bytes([b]))
                time.sleep(5)
        else:
            c.sendall(ans)
        if keep:
            time.sleep(120)
    except OSError:
        pass
    c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
print("ready", s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    count[0] += 1
    threading.Thread(target=serve, args=(c, count[0]), daemon=True).start()
