#!/bin/bash
# Functions measured exactly (issue 29.1, 29.2), C: exact/exact_c.c built
# with -fpatchable-function-entry=18,16 on 2 ranks, HPROFTEST_EXACT selecting
# solve, step (which calls MPI_Allreduce), rec (recursion 10,000 deep),
# jumper and deep (left by longjmp); leaf, called 200 times a step, is not.
# Against what each rank counted and timed itself (exact/check_exact.py):
# visits exact on every rank, leaf unvisited, each function's exact time
# within what the program's own clock reads around its calls saw, the
# time after a longjmp not the left function's, exclusive exact_time never
# negative, samples under solve, an hprof::exact attribute per function;
# and sampled + MPI time = window still holds on every rank.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_c
build_or_fail "exact C: build" build_shared "$MPICC" "$here/exact/exact_c.c" exact_c -O2 \
    -fpatchable-function-entry=18,16 || finish
rm -f exact.expect.*
HPROFTEST_EXACT=solve,step,rec,jumper,deep HPROF_SAMPLING_HZ=1000 HPROF_VERBOSE=2 \
    profile_run "exact C: run" exact_c exact_c.cubex exact_c.csv 2 ./exact_c || finish
"$TEST_VIEW" --json exact_c.cubex >exact_c.json
python3 "$here/exact/check_exact.py" "exact C: visits and times as the program counted them on every rank" \
    exact_c.csv exact_c.json 2 exact.expect --sampled solve || N_FAILED=$((N_FAILED + 1))
python3 "$here/sampling/check_invariant.py" exact_c.csv exact_c.err "exact C" --no-mpi-check
# hprof-view: a header line per exact function (visits over both ranks,
# time a visit), and its paths marked in the tree
"$TEST_VIEW" --depth 3 exact_c.cubex >exact_c.view 2>&1
solves=$(awk '$1 == "visits" && $2 == "solve" {n += $3} END {print n}' exact.expect.0 exact.expect.1)
check "exact C: hprof-view lists solve with its visits and time a visit, and marks its path"     "$(grep -E 'exact|solve' exact_c.view | head -4 | tr '\n' ' ' | cut -c1-300)"     eval 'grep -qE "^(exact)? +solve \(exact_c\): $solves visits, [0-9.]+ ms a visit; 2 ranks, from [0-9.-]+ s$" exact_c.view &&
          grep -qE "  solve \(.*exact_c.c:[0-9]+\) \[exact, [0-9.]+ ms a visit\]$" exact_c.view'
# On the clock_gettime clock (no TSC: HPROFTEST_CLOCK=gettime) the entry
# and the exit take their rare paths (enter_apart, leave_on_gettime,
# lib/exact/exact_entry.c, unwind/exact_stack.c): the same counts.
rm -f exact.expect.*
HPROFTEST_CLOCK=gettime HPROFTEST_EXACT=solve,step,rec,jumper,deep HPROF_SAMPLING_HZ=0 \
    profile_run "exact C, clock_gettime: run" exact_gt exact_gt.cubex exact_gt.csv 2 ./exact_c || finish
"$TEST_VIEW" --json exact_gt.cubex >exact_gt.json
python3 "$here/exact/check_exact.py" "exact C, clock_gettime: visits and times as the program counted them" \
    exact_gt.csv exact_gt.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
# Built without -g: a function's region has no source file and names its
# ELF object there instead; the header line still finds solve's visits
# (it showed 0 visits).
rm -f exact.expect.*
build_without_g() { local cc=$1 src=$2 out=$3; shift 3
    $cc "$@" "$src" -o "$out" "${HPROF_SHARED[@]}" >"$out.build.log" 2>&1; }
build_or_fail "exact C without -g: build" build_without_g "$MPICC" "$here/exact/exact_c.c" exact_nog -O2 \
    -fpatchable-function-entry=18,16 || finish
HPROFTEST_EXACT=solve HPROF_SAMPLING_HZ=0 profile_run "exact C without -g: run" exact_nog exact_nog.cubex \
    exact_nog.csv 2 ./exact_nog || finish
"$TEST_VIEW" exact_nog.cubex >exact_nog.view 2>&1
solves=$(awk '$1 == "visits" && $2 == "solve" {n += $3} END {print n}' exact.expect.0 exact.expect.1)
check "exact C without -g: hprof-view lists solve with its visits" "$(grep -E '^exact' exact_nog.view | cut -c1-200)" \
    grep -qE "^exact +solve \(exact_nog\): $solves visits, [0-9.]+ ms a visit; 2 ranks" exact_nog.view
finish
