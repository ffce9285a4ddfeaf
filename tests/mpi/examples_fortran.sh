#!/bin/bash
# examples_fortran: examples/fortran (mpif90) builds, runs under hprof, and
# its profile shows what examples/fortran/README.md claims, read from the
# csv: under block_rows the computation (row_energy) is largest on rank 0
# (and several times the last rank's) and the MPI_Allreduce wait largest on
# the last rank (and several times rank 0's); under cyclic_rows the
# computation is balanced. MPI calls from Fortran carry their C names.
. "$(dirname "$0")/progs/lib.sh"
require_built "fortran example build"
NP=3 ITER=10 N=5000
export HPROF_SAMPLING_HZ=1000
# Computation on the CPU clock: 3 ranks share 2 cores, and on the wall
# clock a rank waiting for a core would count as computing (the balance
# check compares ranks' computation).
export HPROF_SAMPLING_CLOCK=cpu
if ! $MPIF90 -g -O2 "$ROOT/examples/fortran/triangle.f90" -o triangle >triangle.build.log 2>&1; then
    notok "fortran example build" "$(grep -iE 'error' triangle.build.log | head -n 3 | tr '\n' ' ' | cut -c1-300)"; finish
fi
ok "fortran example build"
prof=$PWD/triangle.cubex
HPROF_OUTPUT=$prof run_mpi_preload triangle "$NP" ./triangle "$ITER" "$N"; rc=$?
profile_run_check "fortran example run" triangle "$prof" triangle.csv "$rc" || { show triangle.err; finish; }
if grep -q "^ *triangle: $NP ranks, $ITER iterations" triangle.out; then ok "fortran example run"
else notok "fortran example run" "no 'triangle: $NP ranks' line: $(oneline triangle.out 200)"; fi

python3 - "$NP" triangle.csv <<'PY'
import csv, fnmatch, sys
from collections import defaultdict
np_ = int(sys.argv[1])
last = np_ - 1
comp = defaultdict(lambda: defaultdict(float))   # split -> rank -> row_energy computation
wait = defaultdict(lambda: defaultdict(float))   # split -> rank -> MPI_Allreduce time
names = set()
for p, rk, th, m, ex, inc in list(csv.reader(open(sys.argv[2])))[1:]:
    rk, ex = int(rk), float(ex)
    names.update(p.split(";"))
    for split in ("block_rows", "cyclic_rows"):
        if fnmatch.fnmatch(p, "main;*%s*;*row_energy*" % split) and m == "comp_time":
            comp[split][rk] += ex
        if fnmatch.fnmatch(p, "main;*%s*;MPI_Allreduce" % split) and m == "mpi_time":
            wait[split][rk] += ex

def check(name, cond, why):
    print(("ok - fortran example %s" % name) if cond else ("not ok - fortran example %s: %s" % (name, why)))

def per_rank(d):
    return ", ".join("%d: %.3f s" % (r, d[r]) for r in range(np_))

for split in ("block_rows", "cyclic_rows"):
    print("# %s: row_energy %s; MPI_Allreduce %s" % (split, per_rank(comp[split]), per_rank(wait[split])))
b, c = comp["block_rows"], comp["cyclic_rows"]
w = wait["block_rows"]
check("block_rows: rank 0 computes the most",
      b[0] > 2 * b[last] and b[0] == max(b[r] for r in range(np_)) or b[0] > 3 * b[last], per_rank(b))
check("block_rows: rank %d waits the most in MPI_Allreduce" % last,
      w[last] > 2 * w[0] and w[last] == max(w[r] for r in range(np_)), per_rank(w))
vals = [c[r] for r in range(np_)]
check("cyclic_rows: computation balanced", min(vals) > 0 and max(vals) < 1.6 * min(vals), per_rank(c))
bad = sorted(n for n in names if n.lower().startswith(("mpi_", "pmpi_")) and not n[4:5].isupper() or n.endswith("_") and n.lower().startswith("mpi"))
check("MPI regions under their C names", not bad, " ".join(bad[:5]))
PY
finish
