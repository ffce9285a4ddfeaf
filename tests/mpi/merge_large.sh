#!/bin/bash
# merge_large: a large merge is exact. 4 ranks (oversubscribed), each
# with its own binary tree of MPI calls (limits.c mixed D: 2^D leaves on
# every rank, and 2^(D-3) more under even_branch on even ranks, under
# odd_branch on odd ones): every call is on its own call path on its own
# rank, each rank-only subtree is on its ranks only, and the file holds
# exactly the call paths of the union. D=14: 61k call paths; D=8 small
# enough for the pyCubexR comparison (tests/interop.sh). The million call
# paths of issue 15.8 are timed by make bench, not here. The tree's
# leaves are told apart by their call sites (wide() calls itself from two):
# HPROF_CALLSITES=split keeps a call path per call site.
. "$(dirname "$0")/progs/lib.sh"
require_built "merge scale build"
export HPROF_SAMPLING_HZ=0 HPROF_MAX_CALLPATHS=200000 HPROF_CALLSITES=split
NP=4
build_or_fail "merge scale build" build_shared "$MPICC" "$ROOT/tests/mpi/reliability/limits.c" limits -O1 || finish

# check D: the csv and the run's output against what limits.c made
check_mixed() {
    local d=$1
    "$TEST_VIEW" --csv-ids "mixed$d.cubex" >"mixed$d.ids.csv" 2>"mixed$d.ids.err" \
        || { notok "merge scale $d: csv-ids" "$(oneline "mixed$d.ids.err" 300)"; return; }
    python3 - "$d" "$NP" "mixed$d.csv" "mixed$d.ids.csv" "mixed$d.out" "$(wrote_field "mixed$d.err" paths)" <<'PY'
import csv, sys
d, np, paths_csv, ids_csv, out, wrote = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:7]
name = "merge scale %d: " % d
calls = {}
for line in open(out):
    f = line.split()
    if f and f[0] == "calls":
        calls[int(f[1])] = int(f[2])
# per (rank, subtree): [call paths, leaf paths, visits on leaves, leaves with visits != 1]
seen = {}
for row in csv.DictReader(open(paths_csv)):
    parts = row["path"].split(";")
    if row["metric"] != "visits" or len(parts) < 2 or parts[0] != "main":
        continue
    if parts[1] not in ("wide", "even_branch", "odd_branch"):
        continue
    v = seen.setdefault((int(row["rank"]), parts[1]), [0, 0, 0, 0])
    v[0] += 1
    if parts[-1] == "MPI_Barrier":
        x = float(row["exclusive"])
        v[1] += 1
        v[2] += int(x)
        v[3] += x != 1
bad = []
for r in range(np):
    mine, other = ("even_branch", "odd_branch") if r % 2 == 0 else ("odd_branch", "even_branch")
    # a binary tree of calls k levels deep: 2^(k+1) - 1 calls and 2^k MPI leaves
    want = {"wide": (3 * 2 ** d - 1, 2 ** d), mine: (3 * 2 ** (d - 3), 2 ** (d - 3)), other: (0, 0)}
    for b, (paths, n) in want.items():
        got = seen.get((r, b), [0, 0, 0, 0])
        if got != [paths, n, n, 0]:
            bad.append("rank %d %s: %d paths, %d leaves, %d visits, %d leaves not 1 (want %d, %d)"
                       % (r, b, got[0], got[1], got[2], got[3], paths, n))
    if calls.get(r) != 2 ** d + 2 ** (d - 3):
        bad.append("rank %d made %s calls" % (r, calls.get(r)))
print(("ok" if not bad else "not ok") + " - " + name + "every call on its own path on its own rank, "
      "each subtree whole, rank-only subtrees on their ranks only" + ("" if not bad else ": " + "; ".join(bad[:4])))
ids = set(int(row["cnode"]) for row in csv.DictReader(open(ids_csv)))
n = len(ids)
ok = str(n) == wrote and ids == set(range(n))
print(("ok" if ok else "not ok") + " - " + name + "the file's call paths are ids 0..N-1, each with a value"
      + ("" if ok else ": the file says %s call paths, the csv has %d distinct ids" % (wrote, n)))
PY
}

for d in 8 14; do
    profile_run "merge scale $d run" "mixed$d" "$PWD/mixed$d.cubex" "mixed$d.csv" "$NP" ./limits mixed "$d" || continue
    ok "merge scale $d run ($(wrote_field "mixed$d.err" paths) call paths, merge+write $(wrote_field "mixed$d.err" merge) s)"
    check_mixed "$d"
done
finish
