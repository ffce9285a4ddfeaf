#!/bin/bash
# merge_layout: the layout (each rank's threads, process rank, host and
# thread names) travels to rank 0 through the aggregators' tree, in the
# values' groups (issue 41). progs/layout.c gives rank r r % 3 threads
# besides its main one, named after start routines that depend on r.
# With HPROF_SIMULATE_RANKS=1024 a group holds 4 ranks, so 6 real ranks
# make a group of 4 and one of 2 (a child of rank 0's): every process
# r*1024+j of the file must have real rank r's threads and names, on one
# node, this host. Without simulation (one group) the processes keep
# their ranks.
. "$(dirname "$0")/progs/lib.sh"
require_built "layout build"
export HPROF_SAMPLING_HZ=0
NP=6
build_or_fail "layout build" build_shared "$MPICC" "$PROGS/layout.c" layout -lpthread || finish

# check NAME PROFILE K: every process's rank, node, threads and their names
check_layout() {
    local n=$1 prof=$2 k=$3 bad
    timeout 120 "$TEST_VIEW" --json "$prof" >"$n.json" 2>"$n.json.err" ||
        { notok "$n: hprof-view --json" "$(oneline "$n.json.err" 300)"; return; }
    bad=$(python3 - "$n.json" "$k" "$NP" "$(hostname | cut -c1-63)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k, np_, host = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
routine = ("north", "east", "south", "west")
def names(r):
    return ["Master thread 0"] + ["pthread %d (%s)" % (t + 1, routine[(r + t) % 4]) for t in range(r % 3)]
bad = []
procs = d["processes"]
if [p["rank"] for p in procs] != list(range(np_ * k)):
    bad.append("process ranks %s..., want 0..%d in order" % ([p["rank"] for p in procs][:4], np_ * k - 1))
if {p["node"] for p in procs} != {host}:
    bad.append("nodes %s, want %s" % (sorted({p["node"] for p in procs})[:3], host))
got = {}
for loc in d["locations"]:
    got.setdefault(loc["rank"], []).append((loc["thread"], loc["name"]))
for p in procs:
    r = p["rank"] // k
    have = [name for _, name in sorted(got.get(p["rank"], []))]
    if have != names(r):
        bad.append("process %d: threads %s, want real rank %d's %s" % (p["rank"], have, r, names(r)))
print("; ".join(bad[:3]) + (" (%d in all)" % len(bad) if bad else ""))
PY
)
    [ -z "$bad" ] && ok "$n: $((NP * k)) processes, each with its real rank's threads and names, one node" ||
        notok "$n: layout" "$bad"
}

for k in 1024 1; do
    prof=$PWD/layout$k.cubex
    HPROF_SIMULATE_RANKS=$k HPROF_OUTPUT=$prof run_mpi layout$k $NP ./layout; rc=$?
    if [ $rc -ne 0 ] || [ ! -f "$prof" ]; then
        notok "layout K=$k run" "exit $rc: $(grep '^hprof:' layout$k.err | head -n 3 | tr '\n' '|')"
        show layout$k.err
        continue
    fi
    check_layout "layout K=$k" "$prof" "$k"
done
finish
