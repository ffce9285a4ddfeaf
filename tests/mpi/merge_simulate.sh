#!/bin/bash
# merge_simulate: HPROF_SIMULATE_RANKS=K (issue 41's scaling mode) at 2
# real ranks: the file holds 2K processes, rank r*K+j holding real rank
# r's values, its times scaled by (1 + j/(4K)), its counts as they are;
# the attribute hprof::simulated_ranks and rank 0's SIMULATED line say so.
# K=1 changes nothing: 2 processes, no attribute, no line.
. "$(dirname "$0")/progs/lib.sh"
require_built "simulate build"
export HPROF_SAMPLING_HZ=0
K=1000
build_or_fail "simulate build" build_shared "$MPICC" "$PROGS/merge.c" merge || finish

# check NAME PROFILE K: the file's processes, attribute and values
check_profile() {
    local n=$1 prof=$2 k=$3
    timeout 120 "$TEST_VIEW" --json "$prof" >"$n.json" 2>"$n.json.err" ||
        { notok "$n: hprof-view --json" "$(oneline "$n.json.err" 300)"; return; }
    to_csv "$prof" "$n.csv" || { notok "$n: hprof-view --csv" "$(oneline "$n.csv.err" 300)"; return; }
    local bad
    bad=$(python3 - "$n.json" "$n.csv" "$k" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
k = int(sys.argv[3])
bad = []
procs = sorted(p["rank"] for p in d["processes"])
if procs != list(range(2 * k)):
    bad.append("processes %d (ranks %s..%s), want ranks 0..%d" % (len(procs), procs[:1], procs[-1:], 2 * k - 1))
attr = d["attributes"].get("hprof::simulated_ranks")
if attr != (str(k) if k > 1 else None):
    bad.append("hprof::simulated_ranks = %r" % attr)
vals = {}
for row in csv.DictReader(open(sys.argv[2])):
    vals[(row["path"], int(row["rank"]), row["metric"])] = float(row["exclusive"])
# the counts of merge.c: every rank 5 MPI_Allreduce, even ranks 3 MPI_Send
picks = sorted({j for j in (0, 1, k // 2, k - 1) if j < k})
for r in (0, 1):
    for j in picks:
        rank = r * k + j
        if vals.get(("main;common;MPI_Allreduce", rank, "visits")) != 5:
            bad.append("rank %d: MPI_Allreduce visits %r, want 5" % (rank, vals.get(("main;common;MPI_Allreduce", rank, "visits"))))
        send = vals.get(("main;even_send;MPI_Send", rank, "visits"))
        if send != (3 if r == 0 else None):
            bad.append("rank %d (real rank %d): MPI_Send visits %r" % (rank, r, send))
        # times: real rank r's (its j = 0) times (1 + j / (4K))
        for (path, rr, metric), v in vals.items():
            if rr == r * k and metric in ("time", "mpi_time", "max_time"):
                got, want = vals.get((path, rank, metric), 0.0), v * (1 + j / (4.0 * k))
                if abs(got - want) > 1e-12 * abs(want):
                    bad.append("rank %d %s %s: %r, want %r" % (rank, path, metric, got, want))
print("; ".join(bad[:3]) + (" (%d in all)" % len(bad) if bad else ""))
PY
)
    [ -z "$bad" ] && ok "$n: $((2 * k)) processes, values of the real ranks as the contract says" || notok "$n: values" "$bad"
}

prof=$PWD/sim.cubex
HPROF_SIMULATE_RANKS=$K HPROF_OUTPUT=$prof run_mpi sim 2 ./merge; rc=$?
if [ $rc -ne 0 ] || [ ! -f "$prof" ]; then
    notok "simulate K=$K run" "exit $rc: $(grep '^hprof:' sim.err | head -n 3 | tr '\n' '|')"; show sim.err; finish
fi
ok "simulate K=$K run"
line=$(grep '^hprof: SIMULATED: ' sim.err)
if [ "$(grep -c '^hprof: SIMULATED: ' sim.err)" = 1 ] &&
   [[ $line == "hprof: SIMULATED: each of the 2 ranks stands for $K ranks in $prof: "* ]] &&
   [ "$(wrote_field sim.err ranks)" = "$((2 * K))" ]; then
    ok "simulate K=$K: one SIMULATED line, the wrote line says $((2 * K)) ranks"
else
    notok "simulate K=$K: the line" "$(grep '^hprof:' sim.err | tr '\n' '|' | cut -c1-400)"
fi
check_profile "simulate K=$K" "$prof" "$K"

prof1=$PWD/sim1.cubex
HPROF_SIMULATE_RANKS=1 HPROF_OUTPUT=$prof1 run_mpi sim1 2 ./merge; rc=$?
if [ $rc -ne 0 ] || [ ! -f "$prof1" ]; then
    notok "simulate K=1 run" "exit $rc"; show sim1.err; finish
fi
if grep -q 'SIMULATED' sim1.err; then notok "simulate K=1: no SIMULATED line" "$(grep SIMULATED sim1.err)"
else ok "simulate K=1: no SIMULATED line"; fi
check_profile "simulate K=1" "$prof1" 1
# Ranks given different K agree on the largest (the time line does too):
# rank 0 with 3, rank 1 with 7 (one program: MPMD parts are profiles of
# their own when the preload is given by hand).
prof2=$PWD/sim_mixed.cubex
HPROF_OUTPUT=$prof2 run_mpi sim_mixed 2 sh -c \
    'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; HPROF_SIMULATE_RANKS=$((r == 0 ? 3 : 7)) exec ./merge'; rc=$?
if [ $rc -ne 0 ] || [ ! -f "$prof2" ]; then
    notok "simulate mixed K run" "exit $rc: $(grep '^hprof:' sim_mixed.err | head -n 3 | tr '\n' '|')"; show sim_mixed.err
elif [ "$(wrote_field sim_mixed.err ranks)" = 14 ]; then
    ok "simulate mixed K: the ranks agree on K=7 (14 ranks)"
else
    notok "simulate mixed K: the ranks agree on the largest" "$(grep '^hprof:' sim_mixed.err | tr '\n' '|' | cut -c1-400)"
fi
finish
