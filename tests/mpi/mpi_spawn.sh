#!/bin/bash
# mpi_spawn: a job that starts another with MPI_Comm_spawn under hprof-run:
# each job writes its own profile with its own calls, the children's named
# after their program with the suffix .spawn1, and with HPROF_OUTPUT the
# children's derived from it (never the same path). Skipped with one line
# where MPI_Comm_spawn does not work here without hprof.
. "$(dirname "$0")/progs/lib.sh"
require_built "spawn build"
use_hprof_run
# jobs connect to each other over TCP in Open MPI (vader is per job)
export OMPI_MCA_btl=self,vader,tcp
NP=2 NCHILD=2 NPARENT=3 NCHILD_RED=5
build_or_fail "spawn build" build_plain "$MPICC" "$PROGS/spawn.c" spawn || finish

run_mpi probe "$NP" ./spawn "$NCHILD"; rc=$?
if [ "$rc" -ne 0 ] || ! grep -q 'spawn: children done' probe.out; then
    echo "ok - spawn # skip: MPI_Comm_spawn does not work with $TEST_MPI here (status $rc without hprof: $(grep -m1 -iE 'error|fail' probe.err | cut -c1-150))"
    finish
fi

hrun() { # DIR [VAR=value...]: hprof-run MPIRUN -np NP ../spawn in DIR
    local d=$1; shift
    mkdir -p "$d" && (cd "$d" && $CLEAN_ENV "$@" timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP ../spawn $NCHILD \
        >run.out 2>run.err </dev/null)
}
check_job() { # NAME PROFILE ROLE: the profile holds that job's calls only
    local n=$1 prof=$2 role=$3 e=$2.expect
    if [ ! -s "$prof" ] || ! to_csv "$prof" "$prof.csv"; then
        notok "$n" "no profile $prof: $(ls -A "$(dirname "$prof")" | tr '\n' ' ')"; return
    fi
    : > "$e"
    if [ "$role" = parent ]; then
        printf 'parent calls\tglob:*main;reduce_loop;MPI_Allreduce\t*\tvisits\t==\t%s\n' $NPARENT >> "$e"
        printf 'parent calls\tglob:*main;MPI_Comm_spawn\t*\tvisits\t==\t1\n' >> "$e"
        printf 'parent calls\tglob:*main;MPI_Barrier\t*\tvisits\t==\t1\n' >> "$e"
        csv_check "$n" "$prof.csv" "$e" $NP --ranks
    else
        printf 'children calls\tglob:*main;reduce_loop;MPI_Allreduce\t*\tvisits\t==\t%s\n' $NCHILD_RED >> "$e"
        printf 'children calls\tglob:*;MPI_Comm_spawn\t*\tvisits\tabsent\n' >> "$e"
        printf 'children calls\tglob:*main;MPI_Barrier\t*\tvisits\t==\t1\n' >> "$e"
        csv_check "$n" "$prof.csv" "$e" $NCHILD --ranks
    fi
}

# 1. default names: the parent's, and the children's with .spawn1
hrun names; rc=$?
check "spawn run" "status $rc; stderr: $(tail -n 4 names/run.err | tr '\n' ' ' | cut -c1-300)" test "$rc" -eq 0
check "spawn both jobs finished" "stdout: $(oneline names/run.out 200)" \
    test "$(grep -c 'spawn: .* done' names/run.out)" -eq 2
check_job "spawn parent profile:" names/hprof-spawn-${NP}p.cubex parent
check_job "spawn children profile (.spawn1):" names/hprof-spawn-${NCHILD}p.spawn1.cubex children
n=$(cd names && ls -A | grep -c '\.cubex$')
check "spawn exactly two profiles" "$(cd names && ls -A | tr '\n' ' ')" test "$n" -eq 2

# 2. HPROF_OUTPUT names the parent's; the children's is derived from it
hrun output HPROF_OUTPUT=out.cubex; rc=$?
check "spawn HPROF_OUTPUT run" "status $rc; stderr: $(tail -n 4 output/run.err | tr '\n' ' ' | cut -c1-300)" test "$rc" -eq 0
check_job "spawn HPROF_OUTPUT parent:" output/out.cubex parent
check_job "spawn HPROF_OUTPUT children (out.spawn.spawn1):" output/out.spawn.spawn1.cubex children
finish
