#!/bin/bash
# examples_halo: examples/halo builds, runs under hprof, and its profile shows
# what examples/halo/README.md claims, read from the csv: the last rank has
# the most computation time in main;solve;relax, and the other ranks wait in
# MPI_Allreduce (main;solve;residual;MPI_Allreduce), longer than the last
# rank, and it is their largest MPI cost (MPI_Init left out: start-up
# dominates a run this short; for the slow rank's neighbour the halo
# exchange with it may be larger). Up to two more runs when one disagrees.
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

# claims CSV: the README's claims checked on one profile
claims() {
    python3 - "$NP" "$1" <<'PY'
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
    # the slow rank's neighbour may wait longest in the halo exchange with
    # it, depending on how three ranks share two cores: both are waits for it
    tops = ["main;solve;residual;MPI_Allreduce"] + (["main;solve;exchange_halos;MPI_Sendrecv"] if r == last - 1 else [])
    check("rank %d waits in MPI_Allreduce under residual" % r,
          wait[r] > 1.25 * wait[last] and top in tops,
          "rank %d %.3f s, rank %d %.3f s; largest MPI path on rank %d: %s" % (r, wait[r], last, wait[last], r, top))
PY
}
out=$(claims halo.csv)
# Three ranks on two cores: now and then the scheduler, not the program,
# decides where a rank waits, and relax's 0.2 s a rank is some 40 samples
# on the CPU clock (its timer fires on the kernel's ticks). Up to two more
# runs before a claim counts as wrong.
for again in 2 3; do
    grep -q '^not ok' <<<"$out" || break
    note "run $((again - 1)): $(grep '^not ok' <<<"$out" | cut -c1-200 | tr '\n' ' '); once more"
    rm -f "$prof"
    HPROF_OUTPUT=$prof run_mpi_preload halo$again "$NP" ./halo "$ITER" "$CELLS" &&
        "$TEST_VIEW" --csv "$prof" > halo$again.csv 2>/dev/null && out=$(claims halo$again.csv)
done
echo "$out"
finish
