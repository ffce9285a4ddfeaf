#!/bin/bash
# Ranks exit without MPI_Finalize while one of their threads holds the
# loader's lock (inside dl_iterate_phdr: a program's own walk, or hprof's
# learner inside libunwind). The partial profile's writer is a forked child
# where that lock stays held for good: it must write without the loader.
# hprof-run merges both ranks' profiles, each rank's 40 MPI_Allreduce calls
# are there, and no writer is left behind.
. "$(dirname "$0")/progs/lib.sh"
require_built reliability_loader_held
use_hprof_run
NP=2
build_or_fail "loader held: build" build_plain "$MPICC" "$ROOT/tests/mpi/reliability/loader_held.c" loader_held \
    -O1 -pthread || finish

$CLEAN_ENV timeout -k 5 90 "$HPROF_RUN" $MPIRUN -np $NP ./loader_held >out 2>err </dev/null
rc=$?
check "loader held: the job ends (no hang)" "status $rc; $(oneline err)" test $rc -ne 124 -a $rc -ne 137
line=$(grep '^hprof-run: the job ended without MPI_Finalize' err | head -n 1)
check "loader held: hprof-run merged the partial profiles of both ranks" "$(oneline err 600)" \
    eval '[[ "$line" == *"merged the partial profiles of $NP ranks into hprof-loader_held-${NP}p.cubex" ]]'
if to_csv hprof-loader_held-${NP}p.cubex run.csv; then
    v=$(awk -F, '$1 ~ /work;MPI_Allreduce$/ && $4 == "visits" { print $5 }' run.csv | sort -u | tr '\n' ' ')
    check "loader held: every rank's 40 MPI_Allreduce visits" "visits per rank: '$v'" test "$v" = "40 "
else
    notok "loader held: the merged profile reads" "$(oneline run.csv.err)"
fi
for _ in $(seq 50); do pgrep -f "$PWD/loader_held" >/dev/null || pgrep -x loader_held >/dev/null || break; sleep 0.2; done
left=$(pgrep -x loader_held | tr '\n' ' ')
check "loader held: no writer left behind" "processes: $left" test -z "$left"
pkill -KILL -x loader_held 2>/dev/null
finish
