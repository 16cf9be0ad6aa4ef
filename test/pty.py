# test/pty.py OUT [HANGUP_AFTER_BYTES [SEND_FIFO]]: make a pty, print the
# slave's path, copy what arrives on the master to OUT. With
# HANGUP_AFTER_BYTES (>= 0), close the master (a hung-up port) once that
# much has arrived; -1 never. What is written into SEND_FIFO goes to the
# master, as a host typing on the line.
import os, select, sys, time
m, s = os.openpty()
print(os.ttyname(s), flush=True)
limit = int(sys.argv[2]) if len(sys.argv) > 2 else -1
send = os.open(sys.argv[3], os.O_RDWR) if len(sys.argv) > 3 else -1
n = 0
with open(sys.argv[1], "wb") as out:
    while limit < 0 or n < limit:
        r = select.select([m] + ([send] if send >= 0 else []), [], [])[0]
        if send in r:	# what the line does not take in 2 s is lost
            b = os.read(send, 65536)
            os.set_blocking(m, False)
            end = time.monotonic() + 2
            while b and time.monotonic() < end:
                if not select.select([], [m], [], 0.1)[1]:
                    continue
                try:
                    b = b[os.write(m, b[:4096]):]
                except BlockingIOError:
                    pass
            os.set_blocking(m, True)
        if m not in r:
            continue
        try:
            b = os.read(m, 65536)
        except OSError:
            break
        if not b:
            break
        out.write(b); out.flush(); n += len(b)
os.close(m)
# keep the slave open so the tracer's writes fail with EIO, not ENXIO
import time; time.sleep(30)
