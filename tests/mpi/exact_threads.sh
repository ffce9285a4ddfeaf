#!/bin/bash
# Functions measured exactly (issue 29.1), patched in and out while 8
# threads call them: exact/exact_threads.c starts its threads before
# MPI_Init (which patches work and inner while they run their entries
# millions of times a second) and keeps them calling through MPI_Finalize
# (which unpatches). Every result is checked by the program; the visits
# over all threads lie between the calls certainly made while patched
# and all calls (exact/check_exact.py), on every rank of 2.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_threads
build_or_fail "exact threads: build" build_shared "$MPICC" "$here/exact/exact_threads.c" exact_threads -O2 \
    -fpatchable-function-entry=18,16 -lpthread || finish
rm -f exact.expect.*
HPROFTEST_EXACT=work,inner HPROF_SAMPLING_HZ=1000 \
    profile_run "exact threads: run" exact_threads exact_threads.cubex exact_threads.csv 2 ./exact_threads || finish
"$TEST_VIEW" --json exact_threads.cubex >exact_threads.json
python3 "$here/exact/check_exact.py" "exact threads: 8 threads call while patched in and out, results right, visits in range" \
    exact_threads.csv exact_threads.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
finish
