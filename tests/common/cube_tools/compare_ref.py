#!/usr/bin/env python3
"""Compare `hprof-view --csv-ids` output with reference incl.csv/excl.csv.

usage: compare_ref.py INCL_CSV EXCL_CSV OURS_CSV [SKIP]
Reference rows: cnode id, location index, then one column per metric (the
samples' CSVs, and cubelib's `cube_dump -c all -s csv2`; either may be
gzip-compressed). SKIP: a file of metric names not compared (hprof-view's
notes: derived metrics it does not evaluate, compound value types).
Our rows: cnode,location,metric,exclusive,inclusive (nonzero rows only).
Values must agree to the precision the reference prints (relative 1e-5).
Prints one line: 'match N values' or the first mismatches; exit 1 on any.
"""
import csv
import gzip
import sys


def read_ref(path, skip=()):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    head = [h.strip() for h in rows[0]]
    out = {}
    for r in rows[1:]:
        if not r:
            continue
        key = (int(r[0]), int(r[1]))
        for name, val in zip(head[2:], r[2:]):
            if name not in skip:
                out[key + (name,)] = float(val)
    return out, head[2:]


def read_ours(path):
    out = {}
    with open(path, newline="") as f:
        rd = csv.reader(f)
        next(rd)
        for r in rd:
            out[(int(r[0]), int(r[1]), r[2])] = (float(r[3]), float(r[4]))
    return out


def close(a, b):
    return abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-9


def main():
    skip = set(open(sys.argv[4]).read().split()) if len(sys.argv) > 4 else set()
    incl, _ = read_ref(sys.argv[1], skip)
    excl, _ = read_ref(sys.argv[2], skip)
    ours = read_ours(sys.argv[3])
    bad = []
    n = 0
    for key in sorted(set(incl) | set(excl)):
        ex, inc = ours.get(key, (0.0, 0.0))
        for kind, ref, got in (("incl", incl.get(key, 0.0), inc), ("excl", excl.get(key, 0.0), ex)):
            n += 1
            if not close(ref, got):
                bad.append("%s %s: reference %r, got %r" % (key, kind, ref, got))
    # metrics the reference has no column for (cube_dump leaves out ghost
    # metrics, cube_remap2's bytes_sent) are not compared
    named = {k[2] for k in incl} | {k[2] for k in excl}
    extra = [k for k in ours if k not in incl and k not in excl and k[2] in named]
    if extra:
        bad.append("%d rows not in the reference, e.g. %s" % (len(extra), extra[0]))
    if bad:
        print("%d mismatches of %d: %s" % (len(bad), n, "; ".join(bad[:3])))
        return 1
    print("match %d values%s" % (n, " (%d metrics not compared)" % len(skip) if skip else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
