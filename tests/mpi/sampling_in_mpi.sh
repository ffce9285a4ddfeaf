#!/bin/bash
# sampling_in_mpi: samples that land inside MPI (including hprof's own wrapper
# and measurement code) are not counted: at 1000 Hz on an MPI-heavy run, no
# call path through an MPI region or an hprof_ function holds samples, while
# the computation (main;work;compute) does.
. "$(dirname "$0")/progs/lib.sh"
require_built "sampling build"
build_or_fail "sampling build" build_shared "$MPICC" "$PROGS/app.c" app || finish
prof=$PWD/sampling.cubex
HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$prof run_mpi sampling 2 ./app 2000; rc=$?
profile_run_check "sampling run" sampling "$prof" sampling.csv "$rc" || { show sampling.err; finish; }
ok "sampling run"
python3 - sampling.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
inside, comp = [], {}
for path, rank, thread, metric, ex, inc in rows:
    if metric != "samples" or float(ex) == 0:
        continue
    parts = path.split(";")
    if any(p.startswith("MPI_") or p.startswith("PMPI_") or p.startswith("hprof_") for p in parts):
        inside.append("%s[rank %s: %s]" % (path, rank, ex))
    if path == "main;work;compute":
        comp[rank] = float(ex)
if inside:
    print("not ok - sampling no samples inside MPI or hprof: %d paths, e.g. %s" % (len(inside), "; ".join(inside[:5])))
else:
    print("ok - sampling no samples inside MPI or hprof")
if set(comp) == {"0", "1"} and min(comp.values()) >= 50:
    print("ok - sampling computation sampled")
else:
    print("not ok - sampling computation sampled: samples on main;work;compute per rank: %s (want >= 50 each)" % comp)
PY
finish
