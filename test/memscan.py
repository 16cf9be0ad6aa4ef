#!/usr/bin/python3
# test/memscan.py PID STRING: how many copies of STRING the writable
# memory of process PID holds (stack, data, bss, heap: /proc/PID/maps
# and /proc/PID/mem; root). For the push= tests: a secret wiped after
# use is found 0 times.
import sys

pid, s = sys.argv[1], sys.argv[2].encode()
n = 0
with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for line in maps:
        a, perm = line.split()[:2]
        if "r" not in perm or "w" not in perm:
            continue
        lo, hi = (int(x, 16) for x in a.split("-"))
        try:
            mem.seek(lo)
            n += mem.read(hi - lo).count(s)
        except OSError:
            pass
print(n)
