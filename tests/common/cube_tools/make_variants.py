#!/usr/bin/env python3
"""Make reader test inputs from a sample .cubex (stdlib only).

usage: make_variants.py SRC.cubex OUTDIR
Readable variants (same values as SRC): gzanchor.cubex (anchor.xml
gzip-compressed), whole.cubex.gz (the archive gzip-compressed),
dense.cubex (indexes rewritten as dense where they list every cnode).
Broken variants (must be refused): empty, notar, truncated, badanchor,
badsum (tar header checksum), badindex (entry count too large),
baddata (data shorter than its index says), hugegz (anchor that inflates
past any sane size is not made: too slow; see the reader's limit).
"""
import gzip
import io
import os
import struct
import sys
import tarfile


def members(path):
    with tarfile.open(path, "r:") as t:
        return [(m.name, t.extractfile(m).read()) for m in t.getmembers() if m.isfile()]


def write_tar(path, items):
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in items:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def dense(name, data):
    if not name.endswith(".index") or data[17] != 1:
        return data
    endian = "<" if struct.unpack("<I", data[11:15])[0] == 1 else ">"
    n = struct.unpack(endian + "I", data[18:22])[0]
    ids = struct.unpack(endian + "%dI" % n, data[22:22 + 4 * n])
    if list(ids) != list(range(n)):
        return data
    return data[:17] + b"\x03"


def main():
    src, out = sys.argv[1], sys.argv[2]
    items = members(src)
    raw = open(src, "rb").read()
    j = lambda n: os.path.join(out, n)
    write_tar(j("gzanchor.cubex"),
              [(n, gzip.compress(d) if n == "anchor.xml" else d) for n, d in items])
    open(j("whole.cubex.gz"), "wb").write(gzip.compress(raw))
    write_tar(j("dense.cubex"), [(n, dense(n, d)) for n, d in items])
    open(j("empty.cubex"), "wb").close()
    open(j("notar.cubex"), "wb").write(b"this is not a tar archive\n" * 100)
    open(j("truncated.cubex"), "wb").write(raw[: len(raw) * 2 // 3 + 17])
    write_tar(j("badanchor.cubex"),
              [(n, d.replace(b"</cnode>", b"</cnodX>", 1) if n == "anchor.xml" else d)
               for n, d in items])
    bad = bytearray(raw)
    bad[150] = ord("7") if bad[150] != ord("7") else ord("6")
    open(j("badsum.cubex"), "wb").write(bytes(bad))
    write_tar(j("badindex.cubex"),
              [(n, d[:18] + b"\xff\xff\xff\x7f" + d[22:] if n.endswith(".index") else d)
               for n, d in items])
    write_tar(j("baddata.cubex"),
              [(n, d[:-8] if n.endswith(".data") else d) for n, d in items])


if __name__ == "__main__":
    main()
