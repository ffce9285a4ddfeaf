#!/bin/bash
# sampling_rate_cap: HPROF_SAMPLING_HZ up to 100000 is accepted, but a
# sample is a signal and at 70-100 kHz a thread did nothing else: the
# program never ended (issue 15). Rates above the cap are sampled at the
# cap, said in one line, and the program ends with a profile.
. "$(dirname "$0")/progs/lib.sh"
require_built "sampling rate cap build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_plain "$MPICC" "$HERE/sampling/busy.c" busy -O2 || { notok "busy build" "$(oneline busy.build.log 300)"; finish; }
MPI_TIMEOUT=${RATE_CAP_TIMEOUT:-60}
for np in 1 2; do
    rm -f busy.cubex
    HPROF_SAMPLING_HZ=100000 HPROF_OUTPUT=$PWD/busy.cubex run_mpi_preload busy$np $np ./busy 100; rc=$?
    msg=$(grep -c 'HPROF_SAMPLING_HZ=100000 is above 10000.*sampling at 10000 Hz' busy$np.err)
    if [ $rc -eq 0 ] && [ -s busy.cubex ] && grep -q '^busy done' busy$np.out && [ "$msg" -eq 1 ]; then
        ok "100000 Hz on $np rank(s): ends with a profile, one line says it samples at 10000 Hz"
    else
        notok "100000 Hz on $np rank(s)" "rc=$rc (124: did not end in ${MPI_TIMEOUT}s), cap lines $msg; $(tail -n 3 busy$np.err | tr '\n' ' ' | cut -c1-300)"
    fi
done
finish
