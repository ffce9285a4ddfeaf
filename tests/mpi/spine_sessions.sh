#!/bin/bash
# spine_sessions: an MPI-4 sessions program (MPI_Session_init, no MPI_Init)
# is not measured, and never silently: the library says so in one line (rank
# 0 only), hprof-run ends with its one line naming sessions as the cause,
# and the program's output and status are unchanged. Skipped with one line
# where the MPI library has no MPI_Session_init (Open MPI 4.1).
. "$(dirname "$0")/progs/lib.sh"
require_built "sessions build"
use_hprof_run
if ! nm -D --defined-only "$TEST_LIBDIR/libhprof.so" | grep -q ' MPI_Session_init$'; then
    echo "ok - sessions # skip: $TEST_MPI has no MPI_Session_init"; finish
fi
build_or_fail "sessions build" build_plain "$MPICC" "$PROGS/session.c" session || finish
mkdir -p run && cd run
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 2 ../session >run.out 2>run.err </dev/null; rc=$?
check "sessions run: program's status and output" "status $rc; stdout: $(oneline run.out 200)" \
    test "$rc" -eq 0 -a "$(grep -c '^session: done 2' run.out)" -eq 1
n1=$(grep -c '^hprof: not measuring this process: it uses MPI sessions' run.err)
n2=$(grep -c '^hprof-run: no profile was written: no rank called MPI_Init through hprof (.*MPI sessions' run.err)
if [ "$n1" -eq 1 ] && [ "$n2" -eq 1 ] && [ "$(grep -c hprof run.err)" -eq 2 ]; then
    ok "sessions: one line from the library, one from hprof-run naming sessions"
else
    notok "sessions: one line from the library, one from hprof-run naming sessions" "stderr: $(grep hprof run.err | head -n 4 | tr '\n' '|')"
fi
left=$(ls -A | grep -v '^run\.\(out\|err\)$')
check "sessions: nothing left behind" "found: $left" test -z "$left"
finish
