#!/usr/bin/env python3
"""The sampling invariant per location: sampled + MPI time = the window.

usage: check_invariant.py CSV STDERR LABEL [--no-mpi-check]
STDERR holds the HPROF_VERBOSE=2 lines `hprof: [rank R] thread T: window W s,
N samples counted, M in MPI ...`. Checks every location of the profile and
that samples dropped inside MPI were counted and reported.
"""
import csv
import re
import sys

csv_path, err_path, label = sys.argv[1:4]
total, window, inmpi = {}, {}, {}
for row in csv.DictReader(open(csv_path)):
    if row["metric"] == "time":
        key = (int(row["rank"]), int(row["thread"]))
        total[key] = total.get(key, 0) + float(row["exclusive"])
for line in open(err_path):
    m = re.match(r"hprof: \[rank (\d+)\] thread (\d+): window ([0-9.]+) s, (\d+) samples counted, (\d+) in MPI",
                 line)
    if m:
        key = (int(m.group(1)), int(m.group(2)))
        window[key] = float(m.group(3))
        inmpi[key] = int(m.group(5))
bad = {k: (round(total.get(k, 0), 6), w) for k, w in window.items()
       if w > 0 and abs(total.get(k, 0) - w) / w >= 1e-3}
print(("ok" if window and not bad else "not ok")
      + " - %s: sampled + MPI time = window within 0.1%% on all %d locations%s"
      % (label, len(window), "" if not bad else ": (sum, window) off at %s" % bad))
if "--no-mpi-check" not in sys.argv:
    print(("ok" if window and sum(inmpi.values()) > 0 else "not ok")
          + " - %s: samples dropped inside MPI are counted and reported: %d" % (label, sum(inmpi.values())))
