# test/mkframe.py [FILE] - FILE (or 5000 random bytes) framed as frame=text
# does it (#TRACER BEGIN 1, #T lines of 48 bytes, #TRACER END 1), on stdout
import sys, zlib, base64, os
data = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else os.urandom(5000)
out = ["#TRACER BEGIN 1"]
for i in range(0, len(data), 48):
    c = data[i:i+48]
    out.append("#T %d %s %08x" % (i // 48, base64.b64encode(c).decode(), zlib.crc32(c)))
out.append("#TRACER END 1 %d %08x" % (len(data), zlib.crc32(data)))
print("\n".join(out))
