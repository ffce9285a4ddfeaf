#!/bin/bash
# Thread churn (issue 15, item 7): 3000 short threads a rank, one after the
# other. Ended threads beyond the first 64 are merged into one location per
# start routine as they end, so resident memory stays flat (it grew by
# ~46 KB a thread), the profile has 66 locations a rank, and every total is
# exact: 3000 MPI_Allreduce calls a rank under w, the sampling invariant on
# every location.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built threads_churn
build_or_fail "churn: build" build_shared "$MPICC" "$here/threads/churn.c" churn -O1 -lpthread || finish
N=3000
rm -f churn.log
# the window lines from hprof's own copy: the launcher can splice two ranks'
# stderr lines when 130 of them arrive at once
HPROFTEST_LOG=$PWD/churn.log HPROF_VERBOSE=2 profile_run "churn: run" churn churn.cubex churn.csv 2 ./churn $N || finish
ok "churn: $N threads a rank, profile written"
python3 - churn.csv churn.out $N <<'PY'
import csv, sys
n = int(sys.argv[3])
visits, sent, locs = {}, {}, {}
for row in csv.DictReader(open(sys.argv[1])):
    r = int(row["rank"])
    locs.setdefault(r, set()).add(int(row["thread"]))
    if row["path"].endswith("w;MPI_Allreduce"):
        if row["metric"] == "visits":
            visits[r] = visits.get(r, 0) + int(float(row["exclusive"]))
        if row["metric"] == "bytes_sent":
            sent[r] = sent.get(r, 0) + int(float(row["exclusive"]))
good = visits == {0: n, 1: n} and sent == {0: 8 * n, 1: 8 * n}
print(("ok" if good else "not ok")
      + " - churn: exact totals over the locations: MPI_Allreduce visits %s, bytes_sent %s (want %d, %d a rank)"
      % (visits, sent, n, 8 * n))
nloc = {r: len(l) for r, l in locs.items()}
print(("ok" if nloc and max(nloc.values()) <= 66 else "not ok")
      + " - churn: locations a rank %s (main, 64 ended threads kept, one merged location)" % nloc)
rss = {int(l.split()[1]): (int(l.split()[2]), int(l.split()[3])) for l in open(sys.argv[2]) if l.startswith("rss")}
grow = {r: b - a for r, (a, b) in rss.items()}
print(("ok" if len(grow) == 2 and max(grow.values()) < 16 * 1024 else "not ok")
      + " - churn: resident memory grew by %s KB a rank over %d threads (bound 16384 KB)" % (grow, n))
PY
names=$(tar xOf churn.cubex anchor.xml | grep -c "<name>$((N - 64)) ended threads (w)</name>")
check "churn: the merged location is named '$((N - 64)) ended threads (w)' on both ranks" "found $names" [ "$names" -eq 2 ]
# The sampling invariant on every location, the merged ones included (their
# window is the sum of their threads'): within 0.1%, or 20 us for windows of
# a few tens of us (the clock's own rounding).
python3 - churn.csv churn.log <<'PY'
import csv, re, sys
total, window = {}, {}
for row in csv.DictReader(open(sys.argv[1])):
    if row["metric"] == "time":
        k = (int(row["rank"]), int(row["thread"]))
        total[k] = total.get(k, 0) + float(row["exclusive"])
for line in open(sys.argv[2]):
    m = re.match(r"hprof: \[rank (\d+)\] thread (\d+): window ([0-9.]+) s", line)
    if m:
        window[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
bad = {k: (total.get(k, 0), w) for k, w in window.items() if abs(total.get(k, 0) - w) > max(1e-3 * w, 2e-5)}
print(("ok" if len(window) >= 4 and not bad else "not ok")
      + " - churn: sampled + MPI time = window on all %d locations%s" % (len(window), ": off at %s" % bad if bad else ""))
PY
finish
