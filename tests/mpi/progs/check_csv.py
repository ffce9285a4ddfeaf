#!/usr/bin/env python3
"""Checks an `hprof-view --csv` file against expectations.

    check_csv.py --name NAME --np NP --expect EXPECT.tsv [options] FILE.csv

The csv: header `path,rank,thread,metric,exclusive,inclusive`, RFC 4180
quoting. Values are summed over threads per (path, rank, metric).

EXPECT.tsv: one expectation a line, tab separated (blank and '#' lines skipped):

    GROUP  PATH  RANK  METRIC  OP  [VALUE]

  GROUP   checks with the same group print one `ok`/`not ok` line together
  PATH    the call path (region names joined by ';'), or `glob:PATTERN`
          (fnmatch; the values of all matching paths are summed)
  RANK    a rank, or `*` for every rank 0..NP-1 (one check each)
  METRIC  a metric unique name; `NAME@incl` compares the inclusive column
  OP      ==, >, >=, <=   compare the value with VALUE (absent row = 0)
          absent          no nonzero row for this path/rank/metric
          present         a nonzero row
          allow           nothing checked; the path counts as expected
                          for --strict-paths
          eqranks         (RANK must be *) nonzero and equal on every rank

Options (each prints its own ok/not ok line):
  --strict-paths   every path with nonzero exclusive `visits` on a rank is
                   named by some expectation for that rank: literally (the
                   path or one of its extensions; op not `absent`) or by a
                   glob with op `allow`
  --roots A,B      every path starts with one of these region names
  --ranks          the csv holds exactly the ranks 0..NP-1
  --no-failed      no `(unwind failed)` path and no unwind_failures value
Exit status: 0 if every check passed, 1 otherwise.
"""
import argparse
import csv
import fnmatch
import sys
from collections import defaultdict

HEADER = ["path", "rank", "thread", "metric", "exclusive", "inclusive"]
KNOWN_METRICS = {"time", "mpi_time", "comp_time", "visits", "min_time", "max_time",
                 "bytes_sent", "bytes_received", "bytes_put", "bytes_get",
                 "io_bytes_read", "io_bytes_written", "samples", "unwind_failures",
                 "calls_not_unwound", "function_entries_seen", "polls_unsuccessful",
                 "polls_unsuccessful_time"}


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--strict-paths", action="store_true")
    ap.add_argument("--roots")
    ap.add_argument("--ranks", action="store_true")
    ap.add_argument("--no-failed", action="store_true")
    ap.add_argument("csv")
    a = ap.parse_args()
    name, np_ = a.name, a.np
    nfail = 0

    def ok(what):
        print("ok - %s %s" % (name, what))

    def notok(what, why):
        nonlocal nfail
        nfail += 1
        print("not ok - %s %s: %s" % (name, what, why))

    # ---- read the csv
    excl = defaultdict(float)   # (path, rank, metric) -> value
    incl = defaultdict(float)
    paths = set()
    ranks = set()
    metrics = set()
    bad_rows = []
    try:
        with open(a.csv, newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        notok("csv readable", str(e))
        return 1
    if not rows or rows[0] != HEADER:
        notok("csv header", "got %r" % (rows[0] if rows else None))
        return 1
    for r in rows[1:]:
        if len(r) != 6:
            bad_rows.append(r)
            continue
        p, rk, th, m, ex, inc = r
        if not rk.isdigit() or not th.isdigit() or num(ex) is None or num(inc) is None:
            bad_rows.append(r)
            continue
        rk = int(rk)
        paths.add(p)
        ranks.add(rk)
        metrics.add(m)
        excl[(p, rk, m)] += num(ex)
        incl[(p, rk, m)] += num(inc)
    if bad_rows:
        notok("csv rows well-formed", "%d bad rows, e.g. %r" % (len(bad_rows), bad_rows[:3]))
    unknown = metrics - KNOWN_METRICS
    if unknown:
        notok("csv metric names", "unknown metrics %s" % sorted(unknown))

    def value(path, rank, metric):
        table = excl
        if metric.endswith("@incl"):
            table, metric = incl, metric[:-5]
        if path.startswith("glob:"):
            pat = path[5:]
            return sum(table.get((p, rank, metric), 0.0) for p in paths
                       if fnmatch.fnmatchcase(p, pat))
        return table.get((path, rank, metric), 0.0)

    def matches(epath, p):
        if epath.startswith("glob:"):
            return fnmatch.fnmatchcase(p, epath[5:])
        return epath == p

    def fmt(v):
        return ("%d" % v) if v == int(v) else ("%g" % v)

    # ---- expectations
    groups = {}        # group -> list of failure strings (ordered)
    named = []         # (path, rank or None) for --strict-paths
    with open(a.expect) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fld = line.split("\t")
            try:
                if len(fld) < 5:
                    raise ValueError("fewer than 5 fields")
                grp, path, rank, metric, op = fld[:5]
                want = float(fld[5]) if len(fld) > 5 and fld[5] != "" else None
                if rank != "*":
                    int(rank)
            except ValueError:
                # e.g. two ranks' output lines spliced by the launcher
                notok("expectation line %d readable" % ln, repr(line))
                continue
            fails = groups.setdefault(grp, [])
            rlist = list(range(np_)) if rank == "*" else [int(rank)]
            if op == "allow" or (op != "absent" and not path.startswith("glob:")):
                named.append((path, None if rank == "*" else int(rank)))
            if op == "allow":
                continue
            if op == "eqranks":
                vals = [value(path, r, metric) for r in rlist]
                if any(v <= 0 for v in vals) or len(set(vals)) != 1:
                    fails.append("%s %s on ranks %s: %s (want nonzero, equal)" %
                                 (path, metric, rank, [fmt(v) for v in vals]))
                continue
            for r in rlist:
                v = value(path, r, metric)
                good = True
                if op == "==":
                    good = abs(v - want) <= 1e-6 * max(1.0, abs(want))
                elif op == ">":
                    good = v > want
                elif op == ">=":
                    good = v >= want - 1e-9 * max(1.0, abs(want))
                elif op == "<=":
                    good = v <= want + 1e-9 * max(1.0, abs(want))
                elif op == "absent":
                    good = v == 0
                elif op == "present":
                    good = v != 0
                else:
                    fails.append("bad op %r" % op)
                    continue
                if not good:
                    w = "" if want is None else " " + fmt(want)
                    fails.append("%s rank %d %s = %s, want %s%s" %
                                 (path, r, metric, fmt(v), op, w))
    for grp, fails in groups.items():
        if fails:
            more = "" if len(fails) <= 4 else " (and %d more)" % (len(fails) - 4)
            notok(grp, "; ".join(fails[:4]) + more)
        else:
            ok(grp)

    if a.ranks:
        want = set(range(np_))
        if ranks != want:
            notok("all ranks in csv", "missing %s, extra %s" %
                  (sorted(want - ranks), sorted(ranks - want)))
        else:
            ok("all ranks in csv")
    if a.roots:
        roots = a.roots.split(",")
        bad = sorted(p for p in paths if p.split(";")[0] not in roots)
        if bad:
            notok("call path roots", "paths not rooted at %s: %s" % (roots, bad[:5]))
        else:
            ok("call path roots")
    if a.no_failed:
        bad = sorted({p for (p, r, m) in excl if p.startswith("(unwind failed)")} |
                     {"%s[rank %d]" % (p, r) for (p, r, m), v in excl.items()
                      if m == "unwind_failures" and v})
        if bad:
            notok("no failed unwinds", str(bad[:5]))
        else:
            ok("no failed unwinds")
    if a.strict_paths:
        extra = []
        for (p, r, m), v in sorted(excl.items()):
            if m != "visits" or v == 0:
                continue
            if not any((matches(ep, p) or (not ep.startswith("glob:") and ep.startswith(p + ";")))
                       and (er is None or er == r) for ep, er in named):
                extra.append("%s[rank %d, visits %s]" % (p, r, fmt(v)))
        if extra:
            notok("no unexpected call paths", "%d unexpected: %s" %
                  (len(extra), "; ".join(extra[:6])))
        else:
            ok("no unexpected call paths")

    if nfail:
        # evidence: the visits rows of rank 0 (and of the last rank)
        print("# csv %s: visits (exclusive) on ranks 0 and %d:" % (a.csv, np_ - 1))
        shown = 0
        for (p, r, m), v in sorted(excl.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            if m == "visits" and v and r in (0, np_ - 1):
                print("#   rank %d  %s  %s" % (r, fmt(v), p))
                shown += 1
                if shown >= 30:
                    print("#   ...")
                    break
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
