#!/usr/bin/env python3
"""unzstd.py IN OUT: a pipe-mode perf.data stream with each
PERF_RECORD_COMPRESSED record replaced by what it holds, decompressed by
the zstd tool (one frame per record, as perf's reader wants). Prints
"records R frames F raw B packed P unaligned U" and exits 1 if a frame
does not decompress or a record holds more or less than one frame."""
import struct, subprocess, sys

def frame_end(z):
    """Where the zstd frame at the start of z ends (RFC 8878 3.1.1), or -1."""
    if z[:4] != b'\x28\xb5\x2f\xfd' or len(z) < 6:
        return -1
    d = z[4]
    at = 5 + (not d & 0x20) + (0, 1, 2, 4)[d & 3] + \
        ((1 if d & 0x20 else 0), 2, 4, 8)[d >> 6]
    while at + 3 <= len(z):
        h = z[at] | z[at + 1] << 8 | z[at + 2] << 16
        at += 3 + (1 if (h >> 1 & 3) == 1 else h >> 3)
        if h & 1:
            return at + 4 * (d >> 2 & 1)
    return -1


b = open(sys.argv[1], 'rb').read()
end = '<' if b[:8] == b'PERFILE2' else '>'
out = bytearray(b[:16])
off, nrec, nfr, raw, packed, unal, bad = 16, 0, 0, 0, 0, 0, 0
while off + 8 <= len(b):
    t, m, s = struct.unpack_from(end + 'IHH', b, off)
    if s < 8 or off + s > len(b):
        sys.exit('torn record at %d' % off)
    n = s
    if t == 66:		# HEADER_TRACING_DATA: its data follows the record
        n += struct.unpack_from(end + 'I', b, off + 8)[0]
    if t == 81:
        nrec += 1
        unal += s % 8 != 0
        z = b[off + 8:off + s]
        r = subprocess.run(['zstd', '-dc'], input=z, capture_output=True)
        if r.returncode or not r.stdout or frame_end(z) != len(z):
            bad += 1
            print('record at %d: %s' % (off, r.stderr.decode().strip()), file=sys.stderr)
        nfr += 1
        raw += len(r.stdout)
        packed += s
        out += r.stdout
    else:
        out += b[off:off + n]
    off += n
open(sys.argv[2], 'wb').write(out)
print('records %d frames %d raw %d packed %d unaligned %d' % (nrec, nfr, raw, packed, unal))
sys.exit(1 if bad else 0)
