#!/bin/bash
# spawn_paths: MPI_Comm_spawn of a program whose path holds '=' (a run
# folder named np=4, as parameter sweeps name them), absolute or relative,
# with arguments or none: both jobs run, the child gets its argv as without
# hprof, and each job writes its profile (hprof started the children through
# env, which took the path for an assignment: exit 127, or with no
# arguments env printed the environment and the parent hung in
# MPI_Comm_spawn). hprof-run itself starts a program under np=4 as well.
# With HPROF_OUTPUT naming a FIFO, the children's profile, whose name
# derives from it, is refused as the parent's is: nothing is written beside
# it. Skipped with one line where MPI_Comm_spawn does not work here without
# hprof (MPICH on this VM).
. "$(dirname "$0")/progs/lib.sh"
require_built "spawn paths build"
use_hprof_run
export OMPI_MCA_btl=self,vader,tcp   # jobs reach each other over TCP in Open MPI
NP=2 NCHILD=2 NCHILD_RED=5           # as in progs/spawn_cmd.c
mkdir -p "np=4"
build_or_fail "spawn paths build" build_plain "$MPICC" "$PROGS/spawn_cmd.c" spawn_cmd || finish
cp spawn_cmd "np=4/spawn_cmd"
CHILD=$PWD/np=4/spawn_cmd

run_mpi probe "$NP" ./spawn_cmd "$CHILD" x; rc=$?
if [ "$rc" -ne 0 ] || ! grep -q 'spawn_cmd: children done' probe.out; then
    echo "ok - spawn paths # skip: MPI_Comm_spawn does not work with $TEST_MPI here (status $rc without hprof: $(grep -m1 -iE 'error|fail' probe.err | cut -c1-150))"
    finish
fi

hrun() { # DIR [VAR=value...] -- PARENT ARGS...: hprof-run MPIRUN -np NP PARENT ARGS in DIR
    local d=$1 vars=(); shift
    while [ "$1" != -- ]; do vars+=("$1"); shift; done; shift
    mkdir -p "$d" && (cd "$d" && $CLEAN_ENV "${vars[@]}" timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np $NP "$@" \
        >run.out 2>run.err </dev/null)
}
both_jobs() { # NAME DIR RC ARGV: both jobs ended, the child's argv as given
    local n=$1 d=$2 rc=$3 argv=$4
    check "$n: both jobs end" "status $rc (124: hung); stdout: $(oneline "$d/run.out" 200); stderr: $(tail -n 3 "$d/run.err" | tr '\n' ' ' | cut -c1-300)" \
        test "$rc" -eq 0 -a "$(grep -c 'spawn_cmd: .* done' "$d/run.out")" -eq 2
    check "$n: the child's argv" "stdout: $(oneline "$d/run.out" 300)" \
        grep -qxF "spawn_cmd: child argv: $argv" "$d/run.out"
}
visits() { # PROFILE PATH: visits of PATH summed over ranks
    to_csv "$1" "$1.csv" || return
    awk -F, -v p="$2" '$1 == p && $4 == "visits" { s += $5 } END { print s + 0 }' "$1.csv"
}
profiles() { # NAME DIR PARENT_PROG
    local n=$1 d=$2 pv cv
    pv=$(visits "$d/hprof-$3-${NP}p.cubex" "main;MPI_Comm_spawn")
    cv=$(visits "$d/hprof-spawn_cmd-${NCHILD}p.spawn1.cubex" "main;reduce_loop;MPI_Allreduce")
    check "$n: each job's profile" "parent's MPI_Comm_spawn visits '$pv' (want $NP), children's MPI_Allreduce '$cv' (want $((NCHILD * NCHILD_RED))); files: $(ls "$d" | tr '\n' ' ')" \
        test "$pv" = "$NP" -a "$cv" = "$((NCHILD * NCHILD_RED))"
}

hrun abs -- ../spawn_cmd "$CHILD" "a b" 'c=d'; rc=$?
both_jobs "spawn an absolute path with '='" abs $rc "[$CHILD] [a b] [c=d]"
profiles "spawn an absolute path with '='" abs spawn_cmd

hrun rel -- ../spawn_cmd "../np=4/spawn_cmd"; rc=$?
both_jobs "spawn a relative path with '=', no arguments" rel $rc "[../np=4/spawn_cmd]"
profiles "spawn a relative path with '=', no arguments" rel spawn_cmd

hrun parent -- "../np=4/spawn_cmd" "$CHILD"; rc=$?
both_jobs "hprof-run starts a path with '='" parent $rc "[$CHILD]"
profiles "hprof-run starts a path with '='" parent spawn_cmd

mkdir -p fifo/d && mkfifo fifo/d/out
hrun fifo HPROF_OUTPUT="$PWD/fifo/d/out" -- ../spawn_cmd "$CHILD"; rc=$?
both_jobs "spawn, HPROF_OUTPUT a FIFO" fifo $rc "[$CHILD]"
check "spawn, HPROF_OUTPUT a FIFO: nothing beside it, the FIFO left alone" \
    "left: $(ls -A fifo/d | tr '\n' ' '); $(stat -c %F fifo/d/out)" test "$(ls -A fifo/d)" = out -a -p fifo/d/out
c=$(grep -c "HPROF_OUTPUT $PWD/fifo/d/out is a FIFO" fifo/run.err)
check "spawn, HPROF_OUTPUT a FIFO: one line from each job" "$c lines: $(head -c 400 fifo/run.err | tr '\n' ' ')" test "$c" -eq 2
finish
