#!/bin/bash
# examples_drops: examples/drops (the DROPS-like C++ mini-application) builds,
# runs under hprof, and its profile shows what examples/drops/README.md
# claims, read from the csv:
#   - on every rank but 0, MPI_Allreduce is the largest share of the time
#     (more than any other region, and more than the rank's computation;
#     MPI_Init is left out: start-up dominates a run this short), and
#     the energy check's MPI_Allreduce takes far longer there than on rank 0;
#   - on rank 0, VTKWriter::write_solution carries a large share of the
#     computation time, a large part of it on paths through std::endl/flush/write;
#   - with the 'newline' fix, that flush path is (almost) gone.
. "$(dirname "$0")/progs/lib.sh"
require_built "drops build"
NP=3 STEPS=20 CELLS=14
export HPROF_SAMPLING_HZ=1000
SRC=$ROOT/examples/drops/drops_mini.cpp
if ! $MPICXX -g -O2 "$SRC" -o drops_mini >drops_mini.build.log 2>&1; then
    notok "drops build" "$(grep -iE 'error' drops_mini.build.log | head -n 3 | tr '\n' ' ' | cut -c1-300)"; finish
fi
ok "drops build"

for variant in endl newline; do
    prof=$PWD/drops_$variant.cubex
    rm -f "$prof"
    HPROF_OUTPUT=$prof run_mpi_preload drops_$variant "$NP" ./drops_mini "$STEPS" "$CELLS" "$variant"; rc=$?
    profile_run_check "drops run ($variant)" drops_$variant "$prof" drops_$variant.csv "$rc" || { show drops_$variant.err; finish; }
    if grep -q "^drops_mini: $NP ranks, $STEPS steps" drops_$variant.out; then
        ok "drops run ($variant)"
    else
        notok "drops run ($variant)" "no 'drops_mini: $NP ranks' line: $(oneline drops_$variant.out 200)"
    fi
done

python3 - "$NP" drops_endl.csv drops_newline.csv <<'PY'
import csv, re, sys
from collections import defaultdict
np_ = int(sys.argv[1])

def load(fn):
    rows = []
    for p, rk, th, m, ex, inc in list(csv.reader(open(fn)))[1:]:
        rows.append((p.split(";"), int(rk), m, float(ex), float(inc)))
    return rows

def check(name, cond, why):
    print(("ok - drops %s" % name) if cond else ("not ok - drops %s: %s" % (name, why)))

rows = load(sys.argv[2])
# per rank: exclusive time by region (the last element of the path)
by_region = defaultdict(lambda: defaultdict(float))
total = defaultdict(float)
comp = defaultdict(float)
energy_wait = defaultdict(float)
writer = defaultdict(float)      # comp_time under write_solution
flushing = defaultdict(float)    # ... on paths through endl/flush/write
for path, rk, m, ex, inc in rows:
    if m == "time" and path[-1] not in ("MPI_Init", "MPI_Init_thread"):
        by_region[rk][path[-1]] += ex
        total[rk] += ex
        if path[-1] == "MPI_Allreduce" and any("check_energy" in f for f in path):
            energy_wait[rk] += ex
    if m == "comp_time":
        comp[rk] += ex
        w = [i for i, f in enumerate(path) if "VTKWriter::write_solution" in f]
        if w:
            writer[rk] += ex
            if any(re.search(r"endl|flush|write", f) for f in path[w[0] + 1:]):
                flushing[rk] += ex

for rk in range(1, np_):
    regions = by_region[rk]
    top = max(regions, key=regions.get) if regions else None
    ar = regions.get("MPI_Allreduce", 0.0)
    check("rank %d: MPI_Allreduce is the largest share of the time" % rk,
          top == "MPI_Allreduce" and ar > comp[rk],
          "largest %s (%.3f s), MPI_Allreduce %.3f s of %.3f s, computation %.3f s"
          % (top, regions.get(top, 0), ar, total[rk], comp[rk]))
    print("# rank %d: MPI_Allreduce %.3f s = %.0f%% of %.3f s" % (rk, ar, 100 * ar / max(total[rk], 1e-9), total[rk]))
    check("rank %d waits for rank 0 in check_energy's MPI_Allreduce" % rk,
          energy_wait[rk] > 3 * energy_wait[0] and energy_wait[rk] > 0.1 * total[rk],
          "rank %d %.3f s, rank 0 %.3f s, rank %d's time %.3f s" % (rk, energy_wait[rk], energy_wait[0], rk, total[rk]))

share_w = writer[0] / max(comp[0], 1e-9)
share_f = flushing[0] / max(comp[0], 1e-9)
print("# rank 0: computation %.3f s, write_solution %.3f s (%.0f%%), through endl/flush/write %.3f s (%.0f%%)"
      % (comp[0], writer[0], 100 * share_w, flushing[0], 100 * share_f))
check("rank 0: write_solution carries a large share of the computation", share_w >= 0.3,
      "%.0f%% of %.3f s" % (100 * share_w, comp[0]))
check("rank 0: a large part of it on paths through std::endl/flush/write",
      share_f >= 0.2 and flushing[0] >= 0.35 * writer[0],
      "%.3f s of write_solution's %.3f s (rank 0 computation %.3f s)" % (flushing[0], writer[0], comp[0]))

# the fix: '\n' instead of std::endl
rows = load(sys.argv[3])
comp_n = flush_n = 0.0
for path, rk, m, ex, inc in rows:
    if rk == 0 and m == "comp_time":
        comp_n += ex
        w = [i for i, f in enumerate(path) if "VTKWriter::write_solution" in f]
        if w and any(re.search(r"flush", f) for f in path[w[0] + 1:]):
            flush_n += ex
print("# newline: rank 0 computation %.3f s, through flush %.3f s" % (comp_n, flush_n))
check("with 'newline' the flush path is gone from rank 0", flush_n <= 0.05 * comp_n,
      "%.3f s of %.3f s" % (flush_n, comp_n))
PY
finish
