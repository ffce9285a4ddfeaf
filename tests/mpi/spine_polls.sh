#!/bin/bash
# spine_polls: polling loops (MPI_Test from one call site through two
# callers taken in turn, MPI_Iprobe, MPI_Testany; completed and
# uncompleted polls mixed) keep exact visits on every call path, with
# sampling off and at 1000 Hz, while the polls that complete nothing from
# the previous call's path are added to its record without a walk
# (lib/measure.c): rank 0's count of those equals the program's own.
. "$(dirname "$0")/progs/lib.sh"
require_built "polls build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "polls build" build_shared "$MPICC" "$HERE/polls/polls.c" polls -O2 || finish

one_run() {
    local label=$1 hz=$2 rc
    local prof=$PWD/$label.cubex
    rm -f "$prof"
    HPROF_SAMPLING_HZ=$hz HPROF_VERBOSE=1 HPROF_OUTPUT=$prof run_mpi "$label" 2 ./polls; rc=$?
    profile_run_check "$label run" "$label" "$prof" "$label.csv" "$rc" || return
    ok "$label run"
    grep -E $'^(via_x|via_y|iprobe|testany)\t' "$label.out" > "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 2 --no-failed
    local want got
    want=$(sed -n 's/^repeats 0 \([0-9]*\)$/\1/p' "$label.out")
    got=$(sed -n 's/^hprof: thread 0: \([0-9]*\) polls that completed nothing.*/\1/p' "$label.err")
    # with sampling, a sample's walk may put the caller's thunk anew (its
    # node unchanged) or not: most repeats, never more
    local min=$want
    [ "$hz" = 0 ] || min=$(( ${want:-0} * 9 / 10 ))
    check "$label: repeated polls recorded without a walk" \
        "program counts ${want:-none} repeats on rank 0, hprof ${got:-none} (want >= $min)" \
        python3 -c 'import sys; w, g, m = map(int, sys.argv[1:]); sys.exit(0 if w > 100 and m <= g <= w else 1)' \
        "${want:-0}" "${got:-0}" "${min:-0}"
}
one_run polls-nosampling 0
one_run polls-1000hz 1000
finish
