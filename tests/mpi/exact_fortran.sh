#!/bin/bash
# Functions measured exactly (issue 29.1, 29.2), Fortran: exact/exact_f.f90
# built by gfortran with -fpatchable-function-entry=18,16 (-fno-inline: an
# inlined call has no entry to patch, and the program counts every call)
# on 2 ranks; HPROFTEST_EXACT names a module procedure (relax, the symbol
# __solver_MOD_relax), an external subroutine (smooth, smooth_) and a
# recursive function (fact, fact_). Visits and smooth's exact time against
# the program's own counts and clock reads (exact/check_exact.py).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_fortran
build_or_fail "exact Fortran: build" build_shared "$MPIF90" "$here/exact/exact_f.f90" exact_f -O2 -fno-inline \
    -fpatchable-function-entry=18,16 || finish
rm -f exact.expect.*
HPROFTEST_EXACT=relax,smooth,fact HPROF_SAMPLING_HZ=1000 HPROF_VERBOSE=2 \
    profile_run "exact Fortran: run" exact_f exact_f.cubex exact_f.csv 2 ./exact_f || finish
"$TEST_VIEW" --json exact_f.cubex >exact_f.json
python3 "$here/exact/check_exact.py" "exact Fortran: visits and times as the program counted them on every rank" \
    exact_f.csv exact_f.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
python3 "$here/sampling/check_invariant.py" exact_f.csv exact_f.err "exact Fortran" --no-mpi-check
finish
