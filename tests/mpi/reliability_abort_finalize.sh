#!/bin/bash
# MPI_Abort from a watchdog thread while the main thread is in
# MPI_Finalize, in hprof's merge (issue 30, 7a): the exit status is the
# abort's, one line says what happened, and the aborting rank leaves its
# partial profile (.rank0.cubex, marked partial, its 50 MPI_Allreduce). The
# other ranks write theirs where the launcher lets them (Open MPI sends them
# SIGTERM; MPICH's launcher kills them outright): noted, not required.
# Before, the merge had ended the measurement: no profile, no line.
set -u
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
build_or_fail "abort in finalize build" build_shared $MPICC "$here/reliability/abort_finalize.c" abort_finalize -O1 -lpthread || finish

# The abort must land in the merge, not in hprof's barrier before it: the
# line says which; a later abort is tried where it came too early.
# MPICH's launcher, tearing the job down at the abort, lost rank 0's whole
# stderr once under load (the partial profile was written): a run with no
# line of hprof's at all is tried once more.
for delay in 20 60 150; do
    for try in 1 2; do
        rm -rf run && mkdir run
        (cd run && $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" $MPIRUN -np 3 ../abort_finalize $delay >out 2>err </dev/null); got=$?
        # the partial profiles are written by detached processes
        for _ in $(seq 100); do pgrep -f "$PWD/abort_finalize" >/dev/null || pgrep -x abort_finalize >/dev/null || break; sleep 0.1; done
        grep -q "^hprof: MPI_Abort" run/err && break
        [ "$try" = 1 ] && note "delay $delay ms: no line of hprof's reached the launcher's stderr; again"
    done
    grep -q "^hprof: MPI_Abort: MPI_Finalize not reached" run/err || break
    note "delay $delay ms: the abort came before the merge; again later"
done
# the status MPI_Abort gives (without hprof the abort comes after a quick
# MPI_Finalize, where MPICH's launcher reports another status)
check "abort in finalize: exit status 5, MPI_Abort's" "status $got" test "$got" = 5
n=$(grep -c "^hprof: MPI_Abort: MPI_Finalize's merge did not end, no profile of all ranks is written; each rank that got this far writes its own partial profile (hprof-abort_finalize-3p.rank0.cubex for this one) in the background; once the job has ended, merge them with: hprof-merge hprof-abort_finalize-3p.rank\\*.cubex$" run/err)
check "abort in finalize: one line says the merge did not end, partial profiles are written, and the command that merges them" \
    "got: $(grep hprof run/err | tr '\n' '|' | cut -c1-400)" test "$n" -eq 1
f=run/hprof-abort_finalize-3p.rank0.cubex
if [ -s $f ] && to_csv $f r0.csv; then
    v=$(awk -F, '$1 == "main;work;MPI_Allreduce" && $4 == "visits" { print $5 }' r0.csv)
    p=$(tar xOf $f anchor.xml | grep -c 'hprof::partial')
    check "abort in finalize: rank 0's partial profile, 50 MPI_Allreduce visits, marked partial" "visits '$v', partial marks $p" \
        test "$v" = 50 -a "$p" = 1
else
    notok "abort in finalize: rank 0's partial profile" "none (files: $(ls run | tr '\n' ' '))"
fi
note "partial profiles written: $(cd run && ls *.cubex 2>/dev/null | tr '\n' ' ')"
left=$(ls -A run | grep -v -E '^(out|err)$|\.rank[0-9]+\.cubex$' | tr '\n' ' ')
check "abort in finalize: no temporary or merged file left behind" "left: $left" test -z "$left"
finish
