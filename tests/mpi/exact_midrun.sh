#!/bin/bash
# A function patched in mid-run (issue 29.1, 29.3): exact/exact_midrun.c
# with HPROF_SELECT='mpi_path & name("^(exchange|crunch)$")', 2 ranks. No
# MPI path is known at MPI_Init: exchange is patched in at the first
# evaluation after the run showed it calling MPI_Allreduce (once a second,
# from hprof's own thread, while the program calls it), crunch never. Its
# visits count every call of phase B (all after the patch) and at most all
# calls, and its attribute says it was patched in mid-run, not at MPI_Init
# (exact/check_exact.py).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_midrun
build_or_fail "exact mid-run: build" build_shared "$MPICC" "$here/exact/exact_midrun.c" exact_midrun -O2 \
    -fpatchable-function-entry=18,16 || finish
rm -f exact.expect.*
HPROF_SELECT='mpi_path & name("^(exchange|crunch)$")' HPROF_SAMPLING_HZ=1000 \
    profile_run "exact mid-run: run" midrun midrun.cubex midrun.csv 2 ./exact_midrun || finish
"$TEST_VIEW" --json midrun.cubex >midrun.json
python3 "$here/exact/check_exact.py" "exact mid-run: exchange patched in once seen on a path to MPI, counted from then" \
    midrun.csv midrun.json 2 exact.expect || N_FAILED=$((N_FAILED + 1))
finish
