#!/bin/bash
# sampling_in_flight_alloc: a sample landing in an MPI call under way finds
# the call's path with recipes already learned only: it allocates nothing
# (a handler that learned the recipe itself called malloc and the loader's
# walk from the signal handler, and hung when the signal had landed in the
# program's own malloc: 1 run in ~20 of mpi_calls_exact's sampling case).
# Rank 0 waits in MPI_Recv from a function no walk has passed, with the
# executable's recipes not learned ahead (HPROF_PRELEARN=0), for 0.3 s of
# its CPU time at 1000 Hz; the program counts its own allocations made
# inside a handler (tests/mpi/sampling/in_flight_alloc.c).
. "$(dirname "$0")/progs/lib.sh"
require_built "in-flight alloc build"
build_or_fail "in-flight alloc build" build_shared "$MPICC" "$PROGS/../sampling/in_flight_alloc.c" in_flight_alloc || finish
prof=$PWD/in_flight_alloc.cubex
HPROF_SAMPLING_HZ=1000 HPROF_PRELEARN=0 HPROF_OUTPUT=$prof run_mpi run 2 ./in_flight_alloc; rc=$?
profile_run_check "in-flight alloc run" run "$prof" run.csv "$rc" || finish
ok "in-flight alloc run"
n=$(awk '$1 == "handler" && $2 == "allocations" { print $4 }' run.out)
cpu=$(awk '$1 == "wait" && $2 == "cpu" { print $4 }' run.out)
if [ -z "$cpu" ] || awk -v c="$cpu" 'BEGIN { exit !(c < 0.1) }'; then
    notok "in-flight alloc wait sampled" "rank 0 spent ${cpu:-no} s of CPU in the wait (want >= 0.1 s, 100 samples)"
elif [ "$n" = 0 ]; then
    ok "in-flight alloc no allocation in the handler (${cpu} s of CPU in the wait)"
else
    notok "in-flight alloc no allocation in the handler" "${n:-no count} allocations inside a signal handler during the wait"
fi
finish
