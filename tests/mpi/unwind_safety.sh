#!/bin/bash
# unwind_safety: with the thunk stack on (and sampling at 1 kHz), programs
# that throw C++ exceptions through redirected frames, longjmp/siglongjmp
# out of them, call backtrace() and libunwind themselves, switch stacks with
# swapcontext, fork, run threads, cancel a thread or leave one with
# pthread_exit print the same and exit with the same status as without
# hprof (tests/mpi/unwind/safety.cpp).
. "$(dirname "$0")/progs/lib.sh"
require_built "unwind safety build"
HERE=$(cd "$(dirname "$0")" && pwd)
if ! $MPICXX -g -O2 -rdynamic "$HERE/unwind/safety.cpp" -o safety -lunwind 2>build.err; then
    notok "unwind safety build" "$(oneline build.err 300)"; finish
fi
for mode in exceptions longjmp siglongjmp backtrace libunwind swapcontext fork threads cancel exit_thread; do
    run_mpi "plain-$mode" 1 ./safety "$mode"; rc0=$?
    HPROF_THUNKS=1 HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/$mode.cubex run_mpi_preload "hprof-$mode" 1 ./safety "$mode"; rc1=$?
    if [ $rc0 -ne 5 ]; then
        notok "safety $mode" "without hprof: exit $rc0 ($(oneline plain-$mode.err 200))"
    elif [ $rc1 -ne $rc0 ]; then
        notok "safety $mode" "exit $rc1 under hprof, $rc0 without; $(tail -n 3 hprof-$mode.err | tr '\n' ' ')"
    elif ! cmp -s "plain-$mode.out" "hprof-$mode.out"; then
        notok "safety $mode" "output differs: '$(oneline plain-$mode.out 150)' vs '$(oneline hprof-$mode.out 150)'"
    else
        ok "safety $mode: same output and exit status under hprof with thunks ($(oneline plain-$mode.out 80))"
    fi
done
finish
