#!/usr/bin/env python3
"""Checks a profile of sde_app.c (tests/mpi/papi_sde.sh).

    check_papi.py NAME PROFILE.cubex PROFILE.csv PROGRAM.out NP TOLERANCE

PROGRAM.out holds `expect RANK work_a work_b in_op_local in_op_allreduce`
per rank; the csv is `hprof-view --csv` (path,rank,thread,metric,exclusive,
inclusive). Prints ok / not ok lines.
"""
import csv
import sys
import tarfile
import xml.etree.ElementTree as ET
from collections import defaultdict

WORK, IN_OP, UNUSED = ("sde:::hproftest::" + n for n in ("WORK", "IN_OP", "UNUSED"))


def main():
    name, cubex, csvfile, out, np_, tol = sys.argv[1:7]
    np_, tol = int(np_), float(tol)
    fails = 0

    def check(cond, what, why=""):
        nonlocal fails
        if cond:
            print("ok - %s: %s" % (name, what))
        else:
            fails += 1
            print("not ok - %s: %s: %s" % (name, what, why))

    expect = {}
    for line in open(out):
        f = line.split()
        if len(f) == 6 and f[0] == "expect":
            expect[int(f[1])] = dict(zip(("work_a", "work_b", "local", "allreduce"), map(int, f[2:])))
    if sorted(expect) != list(range(np_)):
        check(False, "program output", "expected lines for ranks 0..%d, got %s" % (np_ - 1, sorted(expect)))
        return 1

    excl = defaultdict(float)
    incl = defaultdict(float)
    paths = set()
    for row in csv.DictReader(open(csvfile)):
        key = (row["path"], int(row["rank"]), row["metric"])
        excl[key] += float(row["exclusive"])
        incl[key] += float(row["inclusive"])
        paths.add(row["path"])

    # The metric definitions: one per event, named by it, described by PAPI.
    with tarfile.open(cubex) as t:
        anchor = t.extractfile("anchor.xml").read()
    metrics = {}
    for m in ET.fromstring(anchor).iter("metric"):
        metrics[m.findtext("uniq_name")] = (m.findtext("descr") or "").strip()
    check(WORK in metrics and IN_OP in metrics and UNUSED in metrics,
          "one CUBE metric per counted event, named by the event", "metrics: %s" % sorted(metrics))
    check(metrics.get(WORK) == "Loop iterations in compute_a and compute_b"
          and metrics.get(IN_OP) == "Elements combined by the user-defined reduction",
          "metric descriptions come from PAPI (papi_sde_describe_counter)",
          "WORK: %r, IN_OP: %r" % (metrics.get(WORK), metrics.get(IN_OP)))

    def is_mpi(path):
        return path.split(";")[-1].startswith("MPI_")

    for r in range(np_):
        e = expect[r]
        # Exact on MPI call paths.
        local = excl[("main;reduce_locally;MPI_Reduce_local", r, IN_OP)]
        allr = excl[("main;reduce_globally;MPI_Allreduce", r, IN_OP)]
        check(local == e["local"] and allr == e["allreduce"],
              "rank %d: IN_OP exact on the MPI call paths (MPI_Reduce_local %d, MPI_Allreduce %d)"
              % (r, e["local"], e["allreduce"]),
              "got MPI_Reduce_local %g, MPI_Allreduce %g" % (local, allr))
        stray = {p: excl[(p, r, IN_OP)] for p in paths if not is_mpi(p) and excl[(p, r, IN_OP)]}
        check(not stray, "rank %d: IN_OP is 0 on every sampled path (it only moves inside MPI)" % r,
              "nonzero: %s" % stray)
        stray = {p: excl[(p, r, WORK)] for p in paths if is_mpi(p) and excl[(p, r, WORK)]}
        check(not stray, "rank %d: WORK is 0 on every MPI call path (it only moves outside MPI)" % r,
              "nonzero: %s" % stray)
        # Within sampling error on the sampled call paths.
        for fn in ("a", "b"):
            got, want = incl[("main;compute_" + fn, r, WORK)], e["work_" + fn]
            err = abs(got - want) / max(want, 1)
            check(err <= tol, "rank %d: WORK in compute_%s within %.0f%% of the program's count "
                  "(%d, got %d, %.2f%%)" % (r, fn, tol * 100, want, got, err * 100),
                  "off by %.2f%%" % (err * 100))
        # Exact totals per rank.
        for ev, want in ((WORK, e["work_a"] + e["work_b"]), (IN_OP, e["local"] + e["allreduce"])):
            total = sum(v for (p, rr, m), v in excl.items() if rr == r and m == ev)
            check(total == want, "rank %d: %s summed over all call paths = the total %d"
                  % (r, ev.split("::")[-1], want), "got %g" % total)
        unused = sum(abs(v) for (p, rr, m), v in excl.items() if rr == r and m == UNUSED)
        check(unused == 0, "rank %d: a counter never incremented is 0 everywhere" % r, "sum %g" % unused)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
