# test/pty.py OUT [HANGUP_AFTER_BYTES]: make a pty, print the slave's
# path, copy what arrives on the master to OUT. With HANGUP_AFTER_BYTES,
# close the master (a hung-up port) once that much has arrived.
import os, sys
m, s = os.openpty()
print(os.ttyname(s), flush=True)
limit = int(sys.argv[2]) if len(sys.argv) > 2 else -1
n = 0
with open(sys.argv[1], "wb") as out:
    while limit < 0 or n < limit:
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
