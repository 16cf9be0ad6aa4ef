#!/usr/bin/env python3
# test/debpick.py URL NAME OUT - one file of a .deb on a mirror, read as
# a stream: the ar archive and its data.tar are walked while the .deb
# downloads, and the download stops at the first file whose path ends in
# NAME (written to OUT). A kernel's -dbg package is about 800 MB; its
# System.map comes early in data.tar, so only a part of it is fetched.
# Exit 1, with a reason, when the file is not there.
import sys, tarfile, urllib.request

url, name, out = sys.argv[1:4]


class Member:
    """The ar member's bytes, and no more, as a file."""

    def __init__(self, src, left):
        self.src, self.left = src, left

    def read(self, n=-1):
        n = self.left if n < 0 else min(n, self.left)
        b = self.src.read(n)
        self.left -= len(b)
        return b


with urllib.request.urlopen(url, timeout=60) as r:
    if r.read(8) != b"!<arch>\n":
        sys.exit("debpick: %s is not a .deb" % url)
    while True:
        h = r.read(60)
        if len(h) < 60:
            sys.exit("debpick: no data.tar in %s" % url)
        member, size = h[:16].decode().strip().rstrip("/"), int(h[48:58])
        if member.startswith("data.tar"):
            break
        r.read(size + (size & 1))
    comp = {"data.tar": "", "data.tar.xz": "xz", "data.tar.gz": "gz", "data.tar.bz2": "bz2"}.get(member)
    if comp is None:
        sys.exit("debpick: %s: %s is not read here" % (url, member))
    with tarfile.open(fileobj=Member(r, size), mode="r|" + comp) as t:
        for m in t:
            if m.isfile() and m.name.endswith(name):
                data = t.extractfile(m).read()
                with open(out, "wb") as f:
                    f.write(data)
                print("debpick: %s (%d bytes) from %s" % (m.name, len(data), url))
                sys.exit(0)
sys.exit("debpick: no %s in %s" % (name, url))
