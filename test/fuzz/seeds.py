#!/usr/bin/env python3
# test/fuzz/seeds.py - write the seed inputs of test/fuzz/corpus/{ring,dump,track,extract}
# in the input formats the harnesses read (see the top of each f_*.c).
# f_cfg's seeds are plain config strings, and extract's real capture
# (real-capture-2) was cut from `tracer 'cpu-clock@99 buf=4k procs=0
# frame=text dumps=2'` and two SIGUSR2; neither is written here.
# Run from anywhere: python3 test/fuzz/seeds.py
import base64, os, struct, zlib

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
u8 = lambda v: struct.pack('<B', v & 0xff)
u16 = lambda v: struct.pack('<H', v & 0xffff)
u32 = lambda v: struct.pack('<I', v & 0xffffffff)
u64 = lambda v: struct.pack('<Q', v & 0xffffffffffffffff)


def put(target, name, data):
    os.makedirs(os.path.join(D, target), exist_ok=True)
    with open(os.path.join(D, target, name), 'wb') as f:
        f.write(data)


def rec(type_, body, misc=0):
    return u32(type_) + u16(misc) + u16(8 + len(body)) + body


def raw(common_type, n=12):
    """RAW: u32 size, then the tracepoint's data (common_type first), padded
    so that size field + data is a multiple of 8, as the kernel does."""
    data = u16(common_type) + b'\x01\x00' + u32(1234) + b'\xaa' * n
    while (4 + len(data)) % 8:
        data += b'\0'
    return u32(len(data)) + data


# ---- f_ring ----
def ring_walk_seed(size_shift, head, avail, fl, records):
    size = 4096 << size_shift
    img = bytearray(size)
    at = head & (size - 1)
    for r in records:
        for i, c in enumerate(r):
            img[(at + i) % size] = c
        at += len(r)
    return u8(0) + u8(size_shift) + u64(head) + u64(avail) + u8(fl) + bytes(img)


def sample(i, t):
    return rec(9, u64(1000 + i) + u64(0xffffffff81000000 + i) + u64(100 | 100 << 32) + u64(t) + u64(1))


recs = [sample(i, 5000 - i) for i in range(20)]
total = sum(len(r) for r in recs)
put('ring', 'walk-fresh', ring_walk_seed(0, -total & ~7 & 0xffffffffffffffff, total, 0, recs))
put('ring', 'walk-wraps', ring_walk_seed(0, 4096 * 3 - 24, 1 << 20, 0, recs * 4))
put('ring', 'walk-torn', ring_walk_seed(1, -800 & 0xffffffffffffffff, 1 << 40, 0,
                                        recs[:5] + [u32(9) + u16(0) + u16(0x7ff8) + b'\xff' * 40]))


def ring_read_seed(size_shift, tail, fl, records, old=0, cut=None):
    out = u8(1) + u8(size_shift) + u64(tail) + u8(fl) + u8(len(records)) + u8(old) + b'\x5a' * (old * 64)
    for t, misc, body in records:
        out += u32(t) + u16(misc) + u16(8 + len(body)) + body
    if cut is not None:
        out += u16(cut)
    return out


hits = [(9, 2, u64(1000 + i) * 6 + raw(181)) for i in range(10)]
put('ring', 'read-hits', ring_read_seed(0, 4096 - 64, 0, hits))
put('ring', 'read-wrap-cut', ring_read_seed(1, 8192 * 5 - 16, 2, hits * 3, old=8, cut=600))

# ---- f_dump ----
IDLO = 1000


def lean_tp(ring, t, ev=0, stack=0, noid=0, ct=316):
    body = b'' if noid else u64(IDLO + 4 * ev + ring)
    body += u64(42 | 42 << 32) + u64(t) + u64(1)
    if stack:
        body += u64(2) + u64(0xffffffff81001234) + u64(0xffffffff81005678)
    return rec(9, body + raw(ct))


def lean_clock(ring, t, ev=1, stack=0):
    body = u64(IDLO + 4 * ev + ring) + u64(0x401000 + t % 64) + u64(7 | 7 << 32) + u64(t) + u64(10101)
    if stack:
        body += u64(1) + u64(0x401000)
    return rec(9, body)


def lean_lost(ring, t, noid=0):
    trailer = u64(0) + u64(t) + (b'' if noid else u64(IDLO + ring))
    return rec(2, u64(IDLO + ring) + u64(3) + trailer)


def full_sample(ring, t, ev=1):
    return rec(9, u64(IDLO + 4 * ev + ring) + u64(0x401000) + u64(7 | 7 << 32) + u64(t) + u64(ring) + u64(1))


def dump_seed(flags, rings, side=b''):
    out = u8(flags)
    for r in rings:
        out += u16(len(r)) + r
    return out + side


def side_rec(sel, t, pid, words, body=b''):
    return u8(sel) + u16(t) + u8(pid) + u8(words) + body.ljust(8 * words, b'\0')


side = (side_rec(0, 90, 42, 3, b'comm-fz\0') + side_rec(2, 95, 42, 9, b'\0' * 56 + b'/bin/sh\0')
        + side_rec(1, 150, 42, 3, raw(181)[:24]) + side_rec(64 | 8, 400, 7, 2))
# mixed events, lean, 2 rings
put('dump', 'lean-mixed', dump_seed(0x04 | 1 << 5, [
    lean_tp(0, 100) + lean_clock(0, 120) + lean_lost(0, 130) + lean_tp(0, 200),
    lean_clock(1, 110) + lean_tp(1, 140, ev=3) + lean_clock(1, 300)], side))
# tracepoints only: no ids (lean_noid)
put('dump', 'lean-noid', dump_seed(0x06 | 1 << 5, [
    lean_tp(0, 100, noid=1) + lean_tp(0, 150, noid=1, ct=318) + lean_lost(0, 160, noid=1),
    lean_tp(1, 120, noid=1, ct=20) + lean_tp(1, 130, noid=1, ct=999)], side))
# callchains
put('dump', 'lean-stack', dump_seed(0x05, [
    lean_tp(0, 100, stack=1) + lean_clock(0, 105, stack=1) + lean_tp(0, 110, stack=1)], side))
put('dump', 'lean-noid-stack', dump_seed(0x07, [
    lean_tp(0, 100, stack=1, noid=1) + lean_tp(0, 101, stack=1, noid=1, ct=318)]))
# full layout, a CPU back online, 3 rings
put('dump', 'full-regen', dump_seed(0x08 | 2 << 5, [
    full_sample(0, 10) + full_sample(0, 30), full_sample(1, 20), full_sample(2, 5) + full_sample(2, 40)], side))
# framed
put('dump', 'lean-frame', dump_seed(0x14, [lean_clock(0, 1) + lean_tp(0, 2)], side_rec(0, 0, 1, 3)))

# ---- f_track ----
def trk(sel, misc, f, rest, t, cpu=0):
    return u8(sel) + u16(misc) + bytes(f) + rest + u16(t) + u64(cpu) + u64(99)


def comm(pid, tid, name, t, misc=0):
    name = name.encode()
    return trk(8 if len(name) > 7 else 0, misc, [pid, tid, 0, 0], name.ljust(16 if len(name) > 7 else 8, b'\0'), t)


def fork(pid, ppid, tid, ptid, t, exit_=False):
    return trk(2 if exit_ else 10, 0, [pid, ppid, tid, ptid], u16(t), t)


def mmap2(pid, name, t, words=2):
    body = u64(0x400000) + u64(0x1000) + u64(0) + u32(8) + u32(1) + u64(1234) + u64(0) + u32(5) + u32(2)
    return trk(4 | (words - 1) << 5, 2, [pid, pid, 0, 0], body + name.encode().ljust(8 * words, b'\0'), t)


life = (comm(5, 5, 'sh', 1) + mmap2(5, '/bin/sh', 2) + fork(6, 5, 6, 5, 3) + comm(6, 6, 'worker-process', 4, 0x2000)
        + fork(5, 5, 7, 5, 5) + comm(5, 7, 'thread', 6) + fork(8, 3, 8, 3, 7) + fork(5, 5, 5, 5, 8, True)
        + fork(6, 6, 6, 6, 9, True))
put('track', 'life-fold', u8(7 << 1) + u16(0) + u16(0) + life)
put('track', 'life-rings', u8(1 | 7 << 1) + u16(0x7ff8) + u16(16) + life)
many = b''.join(comm(p, p, 'p%d' % p, p) + fork(p, p, p, p, 100 + p, True) for p in range(10, 40))
put('track', 'evict', u8(2 << 1) + u16(0) + u16(0) + many + comm(77, 77, 'late', 500))
put('track', 'full-slot', u8(0) + u16(0) + u16(0) + b''.join(mmap2(9, '/usr/lib/x%d.so' % i, i, 8) for i in range(30)))
# A container without the host pid namespace: host tasks are pid 0, so a
# FORK has pid == ppid == tid (== ptid). fold() must not copy a slot's
# MMAP2s into the slot it walks (before d85e65d: a loop without end).
pid0 = comm(0, 0, 'init', 1) + mmap2(0, '/sbin/init', 2) + mmap2(0, '/lib/ld-musl.so', 3, 3)
put('track', 'fork-pid-eq-ppid', u8(0) + u16(0) + u16(0) + pid0 + fork(0, 0, 0, 0, 4) + fork(0, 0, 0, 0, 5))
put('track', 'fork-pid-eq-ppid-rings', u8(1 | 7 << 1) + u16(0) + u16(0) + comm(42, 42, 'sh', 1)
    + mmap2(42, '/bin/sh', 2) + fork(42, 42, 42, 7, 3) + comm(43, 43, 'other', 4) + fork(44, 42, 44, 42, 5))


# ---- f_extract ----
def frame(n, data, lines=None):
    out = ['', '#TRACER BEGIN %d' % n]
    for i in range(0, len(data), 48):
        c = data[i:i + 48]
        out.append('#T %d %s %08x' % (i // 48, base64.b64encode(c).decode(), zlib.crc32(c)))
    out.append('#TRACER END %d %d %08x' % (n, len(data), zlib.crc32(data)))
    return out if lines else '\n'.join(out) + '\n'


payload = bytes(range(256)) * 2
put('extract', 'small', frame(1, payload).encode())
ls = frame(3, payload, True)
ls[5] = ls[5][:30] + '[   12.345678] usb 1-1: new device' + '\n' + ls[5][30:]  # a kernel message inside a line
ls[7] = 'login: ' + ls[7]
del ls[9]  # a lost line
ls.insert(4, ls[3])  # a repeated line
put('extract', 'noisy', ('\r\n'.join(ls) + '\r\n').encode())
put('extract', 'two-dumps', (frame(1, payload[:100]) + 'kernel: oops\n' + frame(2, payload[:61])).encode())
put('extract', 'n2', b'\x02' + (frame(1, b'x' * 49) + frame(2, b'yy') + frame(3, b'')).encode())
put('extract', 'truncated', b'\x08' + frame(4, payload).encode()[:700] + b'\0\0garbage\n#TRACER BEGIN 5\n')


# ---- f_ftrace ----
# Pages of ftrace's ring as the kernel writes them (little-endian): a u64
# timestamp, the commit (a u64 on 64-bit kernels, a u32 on 32-bit ones),
# then events: a u32 of type_len (5 bits) and time delta (27), then data.
def ev(common_type, delta, payload=b'', pid=1234):
    data = u16(common_type) + b'\x01\x00' + u32(pid) + payload
    data += b'\0' * (-len(data) % 4)
    if len(data) <= 28 * 4:
        return u32(delta << 5 | len(data) // 4) + data
    return u32(delta << 5) + u32(4 + len(data)) + data  # type_len 0: array[0] is the length


def extend(d):
    return u32((d & 0x7ffffff) << 5 | 30) + u32(d >> 27)


def absolute(t):
    return u32((t & 0x7ffffff) << 5 | 31) + u32(t >> 27 & 0xffffffff)


def padding(n):
    return u32(1 << 5 | 29) + u32(n - 4) + b'\0' * (n - 8)


def page(ts, events, hsz=16, size=4096):
    body = b''.join(events)
    hdr = u64(ts) + (u64(len(body)) if hsz == 16 else u32(len(body)))
    return (hdr + body).ljust(size, b'\0')[:size]


evs1 = [ev(316, 0, b'x' * 56), ev(318, 100, b'y' * 8), extend(1 << 30), ev(20, 5, b'z' * 200),
        padding(16), ev(316, 7, b'w' * 120), absolute(123456789012), ev(318, 0)]
put('ftrace', 'pages', u8(0) + page(2000, evs1) + page(1000, [ev(316, 3)] * 20) + page(0, []))
put('ftrace', 'pages32', u8(1) + page(5000, evs1, 12) + page(4000, [ev(20, 1, b'q' * 4)] * 30, 12))
put('ftrace', 'stream', u8(2) + u64(1000 + 3 * 20) + u8(10) + page(1000, [ev(316, 3)] * 40))
put('ftrace', 'big', u8(4) + page(7, [ev(316, 1, b'b' * 6000)] + [ev(318, 2)] * 10, 16, 8192))
