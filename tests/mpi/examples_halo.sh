#!/bin/bash
# examples_halo: examples/halo builds, runs under hprof, and its profile shows
# what examples/halo/README.md claims, read from the csv: the last rank has
# the most computation time in main;solve;relax, and the other ranks wait in
# MPI_Allreduce (main;solve;residual;MPI_Allreduce), longer than the last
# rank, and it is their largest MPI cost (MPI_Init left out: start-up
# dominates a run this short).
. "$(dirname "$0")/progs/lib.sh"
require_built "halo build"
NP=3 ITER=30 CELLS=200000
export HPROF_SAMPLING_HZ=1000
# CPU clock: three ranks share two cores, and a descheduled rank must not
# look busy in relax.
export HPROF_SAMPLING_CLOCK=cpu
if ! $MPICC -g -O2 "$ROOT/examples/halo/halo.c" -o halo -lm >halo.build.log 2>&1; then
    notok "halo build" "$(grep -iE 'error' halo.build.log | head -n 3 | tr '\n' ' ' | cut -c1-300)"; finish
fi
ok "halo build"
prof=$PWD/halo.cubex
HPROF_OUTPUT=$prof run_mpi_preload halo "$NP" ./halo "$ITER" "$CELLS"; rc=$?
profile_run_check "halo run" halo "$prof" halo.csv "$rc" || { show halo.err; finish; }
if grep -q "^halo: $NP ranks, $ITER iterations" halo.out; then ok "halo run"
else notok "halo run" "no 'halo: $NP ranks' line: $(oneline halo.out 200)"; fi

python3 - "$NP" halo.csv <<'PY'
import csv, sys
from collections import defaultdict
np_ = int(sys.argv[1])
last = np_ - 1
relax = defaultdict(float)
wait = defaultdict(float)
mpi = defaultdict(lambda: defaultdict(float))
for p, rk, th, m, ex, inc in list(csv.reader(open(sys.argv[2])))[1:]:
    rk, ex = int(rk), float(ex)
    if p == "main;solve;relax" and m == "comp_time":
        relax[rk] += float(inc)
    if m == "mpi_time" and not p.endswith(";MPI_Init"):   # start-up dominates a short run
        mpi[rk][p] += ex
        if p == "main;solve;residual;MPI_Allreduce":
            wait[rk] += ex

def check(name, cond, why):
    print(("ok - halo %s" % name) if cond else ("not ok - halo %s: %s" % (name, why)))

print("# relax computation per rank: " + ", ".join("%d: %.3f s" % (r, relax[r]) for r in range(np_)))
print("# MPI_Allreduce in residual per rank: " + ", ".join("%d: %.3f s" % (r, wait[r]) for r in range(np_)))
others = [r for r in range(np_) if r != last]
check("rank %d has the most computation in relax" % last,
      all(relax[last] > 1.3 * relax[r] for r in others),
      ", ".join("%d: %.3f s" % (r, relax[r]) for r in range(np_)))
for r in others:
    top = max(mpi[r], key=mpi[r].get) if mpi[r] else None
    check("rank %d waits in MPI_Allreduce under residual" % r,
          wait[r] > 1.25 * wait[last] and top == "main;solve;residual;MPI_Allreduce",
          "rank %d %.3f s, rank %d %.3f s; largest MPI path on rank %d: %s" % (r, wait[r], last, wait[last], r, top))
PY
finish
