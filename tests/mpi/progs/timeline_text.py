#!/usr/bin/env python3
"""timeline_text.py [--stats] PROFILE: the profile's time line member as
text, in the form of the text member hprof.timeline that older profiles
hold (the packed hprof.timeline.z unpacked, report/merge/timeline_file.h
says its layout): the tests read that form, and this second reader checks
hprof-view's. --stats: "PACKED TEXT STORED SERIES", the packed member's
bytes, its text's bytes, the series stored and the series it stands for.
--sums K: for a version 2 member, without the text (fast at 100,000
ranks), "RANKS PATHS" and then per path "ID ALL REAL": its MPI and
computation ns summed over all ranks and over ranks 0, K, 2K ... only."""
import sys
import tarfile
import zlib

MAGIC = b"hprof-timeline-z 1\n"
MAGIC_2 = b"hprof-timeline-z 2\n"  # the records rank by rank
NAMES = ["mpi_ns", "comp_ns", "visits", "bytes_sent", "bytes_received"]


class Reader:
    def __init__(self, data):
        self.b, self.at, self.starts, self.series_read = data, len(MAGIC), [], 0

    def u64(self):
        v, shift = 0, 0
        while True:
            c = self.b[self.at]
            self.at += 1
            v |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                return v

    def i64(self):
        v = self.u64()
        return (v >> 1) ^ -(v & 1)

    def series(self, n):
        self.series_read += 1
        s = self.u64()
        if s < len(self.starts):
            at, self.at = self.at, self.starts[s]
            v = [self.u64() for _ in range(n)]
            self.at = at
            return v
        if s != len(self.starts):
            raise ValueError("series %d after %d" % (s, len(self.starts)))
        self.starts.append(self.at)
        return [self.u64() for _ in range(n)]


def runs(v):
    """Values with runs of zeros as 0*N, as the text member wrote them."""
    out, b = [], 0
    while b < len(v):
        z = 0
        while b + z < len(v) and v[b + z] == 0:
            z += 1
        if z > 1:
            out.append("0*%d" % z)
            b += z
        else:
            out.append(str(v[b]))
            b += 1
    return " ".join(out)


def unpack_records(r, lines, n, ranks, fields):
    """Version 2: the paths, then each rank's record."""
    npaths, spilled = r.u64(), 0
    if npaths:
        lines.append("paths %d" % npaths)
        lines += ["path %d %d" % (i, r.u64()) for i in range(npaths)]
    for k in range(ranks):
        lines.append("offset %d %d" % (k, r.i64()))
        for _ in range(r.u64()):
            ns = r.u64()
            lines.append("phase %d %d %d" % (k, ns, r.i64()))
        d = r.u64()
        if d:
            lines.append("phases_dropped %d %d" % (k, d))
        spilled += r.u64()
        for f in range(fields):
            name = NAMES[f] if f < len(NAMES) else "field%d" % f
            lines.append("rank %d %s %s" % (k, name, " ".join(map(str, r.series(n)))))
        for i in range(npaths):
            for f in ("mpi_ns", "comp_ns"):
                lines.append("path_series %d %d %s %s" % (i, k, f, runs(r.series(n))))
    if npaths:
        lines.append("paths_spilled_ns %d" % spilled)
    return "\n".join(lines) + "\n", r


def unpack(z):
    data = zlib.decompressobj().decompress(z)
    if not data.startswith(MAGIC) and not data.startswith(MAGIC_2):
        raise ValueError("not a packed time line")
    r = Reader(data)
    width, n, ranks, fields = r.u64(), r.u64(), r.u64(), r.u64()
    lines = ["hprof-timeline 1", "width_ns %d" % width, "buckets %d" % n, "ranks %d" % ranks,
             "fields " + " ".join(NAMES)]
    if data.startswith(MAGIC_2):
        return unpack_records(r, lines, n, ranks, fields)
    for k in range(ranks):
        for f in range(fields):
            name = NAMES[f] if f < len(NAMES) else "field%d" % f
            lines.append("rank %d %s %s" % (k, name, " ".join(map(str, r.series(n)))))
    lines += ["offset %d %d" % (k, r.i64()) for k in range(ranks)]
    for k in range(ranks):
        for _ in range(r.u64()):
            ns = r.u64()
            lines.append("phase %d %d %d" % (k, ns, r.i64()))
    for k in range(ranks):
        d = r.u64()
        if d:
            lines.append("phases_dropped %d %d" % (k, d))
    npaths = r.u64()
    if npaths:
        lines.append("paths %d" % npaths)
        lines += ["path %d %d" % (i, r.u64()) for i in range(npaths)]
        for i in range(npaths):
            for k in range(ranks):
                for f in ("mpi_ns", "comp_ns"):
                    lines.append("path_series %d %d %s %s" % (i, k, f, runs(r.series(n))))
    spilled = r.u64()
    if npaths:
        lines.append("paths_spilled_ns %d" % spilled)
    return "\n".join(lines) + "\n", r


def member_text(path):
    with tarfile.open(path) as t:
        names = t.getnames()
        if "hprof.timeline.z" in names:
            return unpack(t.extractfile("hprof.timeline.z").read())[0]
        if "hprof.timeline" in names:
            return t.extractfile("hprof.timeline").read().decode()
    return None


def stats(path):
    with tarfile.open(path) as t:
        z = t.extractfile("hprof.timeline.z").read()
    text, r = unpack(z)
    return "%d %d %d %d" % (len(z), len(text), len(r.starts), r.series_read)


def sums(path, k):
    with tarfile.open(path) as t:
        data = zlib.decompressobj().decompress(t.extractfile("hprof.timeline.z").read())
    if not data.startswith(MAGIC_2):
        raise ValueError("not a version 2 member")
    r, totals = Reader(data), []  # totals: each stored series' sum, by number
    r.u64()  # the bucket width
    n, ranks, fields = r.u64(), r.u64(), r.u64()

    def series_sum():
        s = r.u64()
        if s < len(totals):
            return totals[s]
        totals.append(sum(r.u64() for _ in range(n)))
        return totals[-1]

    ids = [r.u64() for _ in range(r.u64())]
    every, real = [0] * len(ids), [0] * len(ids)
    for q in range(ranks):
        r.i64()
        for _ in range(r.u64()):
            r.u64(), r.i64()
        r.u64(), r.u64()
        for _ in range(fields):
            series_sum()
        for i in range(len(ids)):
            v = series_sum() + series_sum()
            every[i] += v
            real[i] += v if q % k == 0 else 0
    return "%d %d\n" % (ranks, len(ids)) + "".join("%d %d %d\n" % (ids[i], every[i], real[i])
                                                   for i in range(len(ids)))


if __name__ == "__main__":
    if sys.argv[1] == "--sums":
        sys.stdout.write(sums(sys.argv[3], int(sys.argv[2])))
        sys.exit()
    if sys.argv[1] == "--stats":
        print(stats(sys.argv[2]))
        sys.exit()
    text = member_text(sys.argv[1])
    if text is None:
        sys.exit("%s: no time line member" % sys.argv[1])
    sys.stdout.write(text)
