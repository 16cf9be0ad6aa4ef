#!/usr/bin/env python3
# pcmp.py PRINTED PERFDUMP [be]: tracer -p's tracepoint lines against
# what perf decoded from the same dump (test/perfdump.py), record by
# record: the event, time, tid and cpu, and every field's value. Prints
# "N records, M fields equal" and exits 0, or the first differences and
# exits 1. be: the dump's tracepoint data is big-endian (lists of
# integers from perf are packed in that order to compare with hex).
import re, sys

LINE = re.compile(r'^(.{16}) (-?\d+) \[(\d+)\] (\d+)\.(\d{6}): (\S+):(.*)$')
be = len(sys.argv) > 3 and sys.argv[3] == "be"
ours = []
for l in open(sys.argv[1], errors="replace"):
    m = LINE.match(l.rstrip("\n"))
    if not m or m.group(6).startswith("PERF_RECORD") or ":" not in m.group(6):
        continue
    ours.append((m.group(6), int(m.group(4)) * 1000000 + int(m.group(5)), int(m.group(2)), int(m.group(3)), m.group(7)))
theirs = [l.rstrip("\n").split("\t") for l in open(sys.argv[2], errors="replace") if "\t" in l]
bad = []

def check(i, o, t):
    ev, us, tid, cpu, rest = o
    if ev != t[0] or us != int(t[1]) // 1000 or tid % (1 << 32) != int(t[2]) % (1 << 32) or cpu != int(t[3]):
        return "head %s %d %d %d vs perf %s %s %s %s" % (ev, us, tid, cpu, t[0], t[1], t[2], t[3])
    names = [f.split("=", 1)[0] for f in t[4:]]
    pos = 0
    for j, f in enumerate(t[4:]):
        k, kv = f.split("=", 1)
        kind, pv = kv.split(":", 1)
        key = " " + k + "="
        if not rest.startswith(key, pos):
            return "field %s missing at %r" % (k, rest[pos:pos + 40])
        pos += len(key)
        end = rest.find(" " + names[j + 1] + "=", pos) if j + 1 < len(names) else len(rest)
        if end < 0:
            return "field %s: no %s after it" % (k, names[j + 1])
        ov, pos = rest[pos:end], end
        if kind == "i":
            a, b = int(ov), int(pv)
            if a != b and not (a < 0 and any(a + (1 << s) == b for s in (8, 16, 32, 64))):
                return "%s=%s vs perf %s" % (k, ov, pv)
        elif kind == "s":
            if ov != pv:
                return "%s=%r vs perf %r" % (k, ov, pv)
        elif kind == "b":
            # perf's Python hands a char field over as bytes when it is not
            # all printable up to its end (4.9's printk:console has a byte
            # after the NUL), and from then on for that field: our text is
            # those bytes up to the NUL, the unprintable ones as "."
            raw = bytes.fromhex(pv)
            txt = "".join(chr(c) if 32 <= c <= 126 else "." for c in raw.split(b"\0")[0])
            if ov != pv and ov != txt:
                return "%s=%s vs perf %s" % (k, ov, pv)
        elif kind == "l":
            xs = [int(x) for x in pv.split(",")] if pv else []
            n = len(ov) // 2 // len(xs) if xs else 0
            want = b"".join(x.to_bytes(n, "big" if be else "little") for x in xs).hex()
            if ov != want:
                return "%s=%s vs perf %s" % (k, ov, want)
        else:
            return "%s: perf gave %s" % (k, kv)
    return None

nf = 0
for i, (o, t) in enumerate(zip(ours, theirs)):
    e = check(i, o, t)
    if e:
        bad.append("record %d (%s): %s" % (i + 1, o[0], e))
        if len(bad) >= 5:
            break
    else:
        nf += len(t) - 4
if len(ours) != len(theirs):
    bad.append("%d tracepoint records printed, perf decoded %d" % (len(ours), len(theirs)))
if not ours:
    bad.append("no tracepoint records")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d records, %d fields equal" % (len(ours), nf))
