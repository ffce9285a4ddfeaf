#!/bin/bash
# Functions measured exactly (issue 29.1, 29.2), C++: exact/exact_cxx.cpp
# with -fpatchable-function-entry=18,16 on 2 ranks, selected by demangled
# name (solver::top, ...): exceptions thrown through selected functions
# and caught in one (top), in main after leaving two (middle, thrower), a
# catch that rethrows (relay) and throws caught inside one (local), with a
# sample rate that makes samples land while exceptions are under way (a
# sample's own libunwind walk must not put the exit thunk back in a frame
# the exception is leaving: it ended in std::terminate). Checked against the
# program's own counts and clock reads (exact/check_exact.py) on every rank.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_cxx
build_or_fail "exact C++: build" build_shared "$MPICXX" "$here/exact/exact_cxx.cpp" exact_cxx -O2 \
    -fpatchable-function-entry=18,16 || finish
sel=solver::top,solver::middle,solver::thrower,solver::relay,solver::local
for hz in 1000 10000; do
    rm -f exact.expect.*
    HPROFTEST_EXACT=$sel HPROF_SAMPLING_HZ=$hz HPROF_VERBOSE=2 \
        profile_run "exact C++ at $hz Hz: run" cxx$hz cxx$hz.cubex cxx$hz.csv 2 ./exact_cxx || continue
    "$TEST_VIEW" --json cxx$hz.cubex >cxx$hz.json
    python3 "$here/exact/check_exact.py" "exact C++ at $hz Hz: visits and times through exceptions on every rank" \
        cxx$hz.csv cxx$hz.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
    python3 "$here/sampling/check_invariant.py" cxx$hz.csv cxx$hz.err "exact C++ at $hz Hz" --no-mpi-check
done
finish
