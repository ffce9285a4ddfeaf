#!/bin/bash
# sampling_call_tail: hprof's work around an MPI call is the call's MPI
# time, not the computation of the code around it (docs/measurement.md).
# One rank alternates 2 us of computation in comp() with 4 calls of
# MPI_Barrier(MPI_COMM_SELF) (sampling/call_tail.c), sampled at 1000 Hz on
# the wall clock: comp()'s inclusive time must be within 5% of the time
# the program measured in it (before, hprof's bookkeeping after each
# call's end stamp went to the samples in comp(): +8-10%), and above by as
# much again as the thread spent off the CPU in the calls' share of the
# loop (on a loaded machine a switch may land in hprof's work around a
# call, which no stamp sees); and the calls' MPI time at most what the
# program measured around them (hprof adds no more for its bookkeeping
# than it took).
. "$(dirname "$0")/progs/lib.sh"
require_built "call_tail build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "call_tail build" build_shared "$MPICC" "$HERE/sampling/call_tail.c" call_tail -O2 || finish

label=call-tail
prof=$PWD/$label.cubex
HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$prof run_mpi "$label" 1 ./call_tail 2 4 2
if profile_run_check "$label run" "$label" "$prof" "$label.csv" $?; then
    ok "$label run"
    grep -E $'^(comp|calls)\t' "$label.out" > "$label.expect"
    csv_check "$label" "$label.csv" "$label.expect" 1
    note "$label: $(grep -h '^rank ' "$label.out" | tr '\n' ' ')"
    note "$label: hprof $(grep -E '^[^,]*;(comp|MPI_Barrier),[01],0,(time|mpi_time),' "$label.csv" | cut -d, -f1,2,4,6 | tr '\n' ' ')"
fi
finish
