#!/bin/bash
# run_no_silent: a run under hprof-run in which no rank started hprof's
# measurement ends with one line from hprof-run naming the likely cause, and
# with the program's own exit status: a program that never calls MPI_Init,
# and one that initialises MPI behind hprof's back (PMPI_Init), which the
# library also reports, once, at its first wrapped call (with LD_PRELOAD as
# well). A measured run gets no such line.
. "$(dirname "$0")/progs/lib.sh"
require_built "no-silent build"
use_hprof_run
build_or_fail "no-silent build" build_plain "$MPICC" "$PROGS/pmpi_init.c" pmpi_init || finish
build_or_fail "no-silent build" build_plain "${CC:-cc}" "$PROGS/nompi.c" nompi || finish
build_or_fail "no-silent build" build_plain "$MPICC" "$PROGS/app.c" app || finish
NOPROF='^hprof-run: no profile was written: no rank called MPI_Init through hprof ('
FOREIGN='^hprof: not measuring this process: MPI was initialised without passing through hprof'

hrun() { # DIR ARGS...: hprof-run in DIR, output in DIR/run.{out,err}; returns its status
    local d=$1; shift
    mkdir -p "$d" && (cd "$d" && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" "$@" >run.out 2>run.err </dev/null)
}
nothing_left() { # NAME DIR: no profile and no marks folder left
    local left; left=$(cd "$2" && ls -A | grep -v '^run\.\(out\|err\)$')
    check "$1: nothing left behind" "found: $(tr '\n' ' ' <<<"$left")" test -z "$left"
}

# 1. PMPI_Init behind hprof's back, exit status 4
hrun foreign $MPIRUN -np 2 ../pmpi_init 4; rc=$?
check "no-silent PMPI_Init: program's status" "status $rc, want 4; stderr: $(oneline foreign/run.err 300)" test "$rc" -eq 4
n1=$(grep -c "$FOREIGN" foreign/run.err); n2=$(grep -c "$NOPROF" foreign/run.err)
if [ "$n1" -eq 1 ] && [ "$n2" -eq 1 ] && grep "$NOPROF" foreign/run.err | grep -q 'MPI was initialised without'; then
    ok "no-silent PMPI_Init: one line from the library, one from hprof-run naming the cause"
else
    notok "no-silent PMPI_Init: one line from the library, one from hprof-run naming the cause" \
        "$n1 library lines, $n2 hprof-run lines: $(grep hprof foreign/run.err | head -n 4 | tr '\n' '|')"
fi
check "no-silent PMPI_Init: program output" "stdout: $(oneline foreign/run.out 200)" grep -q 'pmpi_init: done' foreign/run.out
nothing_left "no-silent PMPI_Init" foreign

# 2. the same with LD_PRELOAD only: the library's line, once
HPROF_OUTPUT=$PWD/preload.cubex run_mpi_preload preload 2 ./pmpi_init; rc=$?
n1=$(grep -c "$FOREIGN" preload.err)
check "no-silent PMPI_Init, LD_PRELOAD: one line" "status $rc, $n1 lines; stderr: $(oneline preload.err 300)" \
    test "$rc" -eq 0 -a "$n1" -eq 1

# 3. a program that never calls MPI_Init (no MPI library: from the launcher)
hrun nompirun $MPIRUN -np 2 ../nompi; rc=$?
check "no-silent no MPI_Init: program's status" "status $rc; stderr: $(oneline nompirun/run.err 300)" test "$rc" -eq 0
if [ "$(grep -c "$NOPROF" nompirun/run.err)" -eq 1 ] && grep "$NOPROF" nompirun/run.err | grep -q 'never called MPI_Init'; then
    ok "no-silent no MPI_Init: one line naming the cause"
else
    notok "no-silent no MPI_Init: one line naming the cause" "stderr: $(grep hprof nompirun/run.err | head -n 3 | tr '\n' '|')"
fi
check "no-silent no MPI_Init: program output" "stdout: $(oneline nompirun/run.out 200)" \
    test "$(grep -c '^nompi: stdout line' nompirun/run.out)" -eq 2
nothing_left "no-silent no MPI_Init" nompirun

# 4. a measured run: no such line, no marks left
hrun measured $MPIRUN -np 2 ../app 3; rc=$?
if [ "$rc" -eq 0 ] && ! grep -q '^hprof-run:' measured/run.err && grep -q '^hprof: wrote ' measured/run.err; then
    ok "no-silent measured run: no hprof-run line"
else
    notok "no-silent measured run: no hprof-run line" "status $rc; stderr: $(grep hprof measured/run.err | head -n 3 | tr '\n' '|')"
fi
left=$(cd measured && ls -A | grep '^\.hprof-run')
check "no-silent measured run: marks folder removed" "found: $left" test -z "$left"
finish
