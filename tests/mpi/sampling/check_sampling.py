#!/usr/bin/env python3
"""Checks a groundtruth.c profile against the truth the program printed.

usage: check_sampling.py CSV STDOUT STDERR HZ wall|cpu

Prints `ok - ...` / `not ok - ...` lines (the test harness counts them) and
`# ...` lines with the numbers: per rank and function, the truth, the
weighted estimate (sum of effective intervals), the unweighted estimate
(samples x nominal interval) and the 4-sigma bound of the binomial estimate.
"""
import csv
import math
import re
import sys
from collections import defaultdict

csv_path, out_path, err_path, hz, clock = sys.argv[1:6]
hz = float(hz)
FUNCS = ["func_a", "func_b", "func_c", "sleeper"]

truth = {}
share = {}   # rank -> the functions' CPU time / their wall time (GT_CLOCK=cpu)
for line in open(out_path):
    f = line.split()
    if f and f[0] == "truth":
        truth[int(f[1])] = dict(zip(FUNCS, map(float, f[2:6])))
    if f and f[0] == "share":
        share[int(f[1])] = float(f[2])

windows = {}
for line in open(err_path):
    m = re.match(r"hprof: \[rank (\d+)\] thread 0: window ([0-9.]+) s, (\d+) samples counted, (\d+) in MPI", line)
    if m:
        windows[int(m.group(1))] = (float(m.group(2)), int(m.group(3)), int(m.group(4)))

incl = defaultdict(float)   # (rank, func, metric) -> inclusive value, summed over nodes
total = defaultdict(float)  # (rank, metric) -> sum of exclusive values
with open(csv_path) as f:
    for row in csv.DictReader(f):
        if row["thread"] != "0":
            continue
        rank, metric = int(row["rank"]), row["metric"]
        total[(rank, metric)] += float(row["exclusive"])
        leaf = row["path"].split(";")[-1]
        if leaf in FUNCS:
            incl[(rank, leaf, metric)] += float(row["inclusive"])

failed = 0
def check(cond, name, why=""):
    global failed
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else ": " + why))
    failed += 0 if cond else 1

check(len(truth) > 0 and set(truth) == set(windows), "every rank printed its truth and its window",
      "truth %s windows %s" % (sorted(truth), sorted(windows)))

worst_weighted = worst_unweighted = 0.0
for rank in sorted(truth):
    n = total[(rank, "samples")]
    comp = total[(rank, "comp_time")]
    window = windows.get(rank, (0, 0, 0))[0]
    t = total[(rank, "time")]
    rel = abs(t - window) / window if window else 1
    if clock == "wall":  # on the cpu clock, sleeping and waiting for a core are not in the sum
        check(rel < 1e-3, "rank %d: sampled + MPI time = window within 0.1%%" % rank,
              "sum %.6f s, window %.6f s, off by %.4f%%" % (t, window, 100 * rel))
        # The estimator without weights (samples x nominal interval) against
        # the same invariant: it loses every timer expiry that was not
        # delivered and misplaces the time of samples dropped inside MPI.
        unweighted = n / hz + total[(rank, "mpi_time")]
        urel = abs(unweighted - window) / window if window else 1
        print("# rank %d: invariant error weighted %.5f%%, unweighted %.3f%%" % (rank, 100 * rel, 100 * urel))
        check(rel < urel, "rank %d: the weighted estimator keeps the invariant better than samples x interval"
              % rank, "weighted off by %.5f%%, unweighted by %.5f%%" % (100 * rel, 100 * urel))
    print("# rank %d: window %.4f s, time %.4f s, comp %.4f s, mpi %.4f s, %d samples"
          % (rank, window, t, comp, total[(rank, "mpi_time")], n))
    for func in FUNCS:
        true = truth[rank][func]
        if clock == "cpu" and func == "sleeper":
            est = incl[(rank, func, "comp_time")]
            check(est < 0.02, "rank %d: cpu clock does not attribute the sleep" % rank,
                  "sleeper got %.4f s of computation time" % est)
            continue
        weighted = incl[(rank, func, "comp_time")]
        unweighted = incl[(rank, func, "samples")] / hz
        p = min(max(true / comp if comp else 0, 1e-9), 1)
        # Four sigma, not three: make check runs these 24 checks (two clocks,
        # two ranks, three functions, two MPIs) at every commit, and their
        # errors do follow the binomial model, so three sigma fails about one
        # run in a hundred by chance alone.
        bound = 4 * comp * math.sqrt(p * (1 - p) / max(n, 1)) + 0.002
        starved = clock == "cpu" and share.get(rank, 1.0) < 0.9
        if starved:
            # The kernel checks a CPU-time timer at its scheduler ticks, and
            # only while the thread runs: a thread that had a fraction of a
            # core ran in slices shorter than a tick, and its samples land
            # where its slices meet ticks, not at random points of its CPU
            # time (the binomial model's premise). Off by up to 20% then.
            bound += 0.25 * true
        print("# rank %d %-8s truth %.4f weighted %.4f (err %+.4f) unweighted %.4f (err %+.4f) bound %.4f"
              % (rank, func, true, weighted, weighted - true, unweighted, unweighted - true, bound))
        check(abs(weighted - true) <= bound, "rank %d: %s within 4 sigma%s" % (
                  rank, func, " + 25%% (the thread had %.0f%% of a core)" % (100 * share[rank]) if starved else ""),
              "truth %.4f s, estimate %.4f s, bound %.4f s" % (true, weighted, bound))
        if true > 0.05:
            worst_weighted = max(worst_weighted, abs(weighted - true) / true)
            worst_unweighted = max(worst_unweighted, abs(unweighted - true) / true)
print("# worst relative error: weighted %.2f%%, unweighted %.2f%%"
      % (100 * worst_weighted, 100 * worst_unweighted))
sys.exit(0)
