#!/bin/bash
# reliability_sigalrm: a process-directed signal reaches the thread it
# would reach without hprof. siglongjmp_alarm.c siglongjmps out of its
# SIGALRM handler; under hprof the alarm went to an MPI helper thread now
# and then (hprof's timer signal pending on the main thread, or libunwind
# masking every signal in hprof's walk), which then jumped onto the main
# thread's stack: segfaults, "stack smashing detected" (issue 15). Several
# runs on 4 ranks (the reproducer's own size: oversubscribed cores make it
# likely), each must exit 0 with the program's output.
. "$(dirname "$0")/progs/lib.sh"
require_built "sigalrm build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_plain "$MPICC" "$HERE/reliability/siglongjmp_alarm.c" alarm -O2 || { notok "siglongjmp_alarm build" "$(oneline alarm.build.log 300)"; finish; }
runs=${SIGALRM_RUNS:-4} good=0 bad=""
for i in $(seq "$runs"); do
    HPROF_SAMPLING_HZ=${SIGALRM_HZ:-1000} HPROF_OUTPUT=$PWD/alarm$i.cubex run_mpi_preload alarm$i 4 ./alarm 50; rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c '^s=4.0 cnt=50$' alarm$i.out)" -eq 4 ] && [ -s alarm$i.cubex ]; then
        good=$((good + 1))
    else
        bad="$bad run $i: rc=$rc $(grep -v '^hprof' alarm$i.err | grep -m 2 -iE 'signal|smash|fault' | tr '\n' ' ' | cut -c1-200);"
    fi
done
if [ "$good" -eq "$runs" ]; then
    ok "siglongjmp out of SIGALRM on 4 ranks at 1 kHz: $runs of $runs runs exit 0 with the program's output and a profile"
else
    notok "siglongjmp out of SIGALRM on 4 ranks" "$good of $runs runs good;$bad"
fi
finish
