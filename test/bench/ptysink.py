# bench/ptysink.py RATE: make a pty, print the slave's path, and drain
# the master, discarding the bytes. RATE > 0 paces the reads to RATE
# bytes/s (11520 emulates a 115200 baud 8N1 line: a pty itself ignores
# the baud rate), so the writer blocks as it would on a slow serial port.
# Prints the byte count to stderr at exit (SIGTERM or hang-up).
import os, signal, sys, time

rate = int(sys.argv[1]) if len(sys.argv) > 1 else 0
m, s = os.openpty()
print(os.ttyname(s), flush=True)
n = 0
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
burst = max(64, rate // 50)     # at most 20 ms worth of credit
credit, last = 0.0, time.monotonic()
try:
    while True:
        if rate > 0:
            now = time.monotonic()
            credit = min(credit + rate * (now - last), burst)
            last = now
            if credit < 1:
                time.sleep(0.005)
                continue
            b = os.read(m, int(credit))
            credit -= len(b)
        else:
            b = os.read(m, 1 << 16)
        if not b:
            break
        n += len(b)
except OSError:
    pass
finally:
    print("ptysink: %d bytes" % n, file=sys.stderr)
