#!/bin/bash
# merge_reduced: HPROF_LOCATIONS (issue 41): reduced, the file holds six
# locations (sum, min, max, rank 0, the ranks of least and most time) with
# the values of progs/reduce.c's own counts and the ranks of min and max in
# its hprof.locations.z member; auto reduces above 16384 ranks of the file
# (HPROF_SIMULATE_RANKS) and not at 16384; all keeps every rank.
. "$(dirname "$0")/progs/lib.sh"
require_built "reduced build"
export HPROF_SAMPLING_HZ=0
build_or_fail "reduced build" build_shared "$MPICC" "$PROGS/reduce.c" reduce || finish
LINE='ranks: the profile keeps per call path the sum, min and max over the ranks and the rows of 3 key ranks (HPROF_LOCATIONS=all keeps every rank)'

# run NAME NP LOCATIONS K: the profile NAME.cubex, or one 'not ok'
run() {
    local n=$1 np=$2 loc=$3 k=$4 rc
    HPROF_LOCATIONS=$loc HPROF_SIMULATE_RANKS=$k HPROF_OUTPUT=$PWD/$n.cubex run_mpi "$n" "$np" ./reduce; rc=$?
    if [ $rc -ne 0 ] || [ ! -f "$n.cubex" ]; then
        notok "$n: run" "exit $rc: $(grep '^hprof:' "$n.err" | head -n 3 | tr '\n' '|')"; show "$n.err"; return 1
    fi
    timeout 120 "$TEST_VIEW" --json "$n.cubex" >"$n.json" 2>"$n.json.err" ||
        { notok "$n: hprof-view --json" "$(oneline "$n.json.err" 300)"; return 1; }
}

# reduced NAME NP K: the values, the member and rank 0's one line
reduced() {
    local n=$1 np=$2 k=$3 bad
    bad=$(/usr/bin/python3 "$PROGS/reduced_check.py" "$n.json" "$n.cubex" "$np" "$k" 2>&1)
    [ -z "$bad" ] && ok "$n: sum, min, max, key ranks and the ranks of min and max as the counts say" ||
        notok "$n: values" "$bad"
    if [ "$(grep -c "^hprof: $((np * k)) $LINE\$" "$n.err")" = 1 ]; then ok "$n: rank 0 says so in one line"
    else notok "$n: rank 0's line" "$(grep '^hprof:' "$n.err" | tr '\n' '|' | cut -c1-400)"; fi
}

# tree NAME: hprof-view's tree shows the sum location (not the six added),
# its header says what the locations are, a call path's line where the
# max over the ranks is
tree() {
    local n=$1 visits head
    timeout 60 "$TEST_VIEW" --threshold 0 "$n.cubex" >"$n.tree" 2>"$n.tree.err"
    visits=$(awk '$7 == "MPI_Sendrecv" { print $4 }' "$n.tree" | sort -n | tr '\n' ' ')
    head=$(grep -c '^ranks *reduced: values of sum of 4 ranks; --rank 1: min, --rank 2: max, --rank 3: rank 0,' "$n.tree")
    if [ "$visits" = "2 10 " ] && [ "$head" = 1 ]; then ok "$n: hprof-view's tree shows the sum, says so"
    else notok "$n: hprof-view's tree" "MPI_Sendrecv visits '$visits', want '2 10 '; header lines $head"; fi
    timeout 60 "$TEST_VIEW" --threshold 0 --metric visits "$n.cubex" >"$n.visits" 2>&1
    local at
    at=$(grep -o 'MPI_Sendrecv .*\[max [0-9]* at rank [0-9]*\]' "$n.visits" | grep -o '\[max.*' | sort | tr '\n' ' ')
    if [ "$at" = "[max 2 at rank 1] [max 4 at rank 3] " ]; then ok "$n: the tree says where each max is"
    else notok "$n: the tree's max at rank" "'$at', want '[max 2 at rank 1] [max 4 at rank 3] '"; fi
}

# every NAME NPROCS: a process per rank, no attribute, member or line
every() {
    local n=$1 want=$2 got
    got=$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d["processes"]), d["attributes"].get("hprof::locations"))' "$n.json")
    if [ "$got" = "$want None" ] && ! grep -q "$LINE" "$n.err" && ! tar tf "$n.cubex" | grep -q hprof.locations.z; then
        ok "$n: $want processes, one a rank, no reduction"
    else
        notok "$n: every rank" "$got processes, want $want; $(grep -c "$LINE" "$n.err") lines"
    fi
}

run reduced4 4 reduced 1 && reduced reduced4 4 1 && tree reduced4
run all4 4 all 1 && every all4 4
run auto_above 2 auto 8193 && reduced auto_above 2 8193
run auto_at 2 auto 8192 && every auto_at 16384
finish
