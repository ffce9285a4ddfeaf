#!/bin/bash
# Functions measured exactly, every one of them (HPROFTEST_EXACT=*), in
# unwind/safety.cpp built with -fpatchable-function-entry=18,16 (sampling at
# 1 kHz): C++ exceptions through measured frames, longjmp and siglongjmp out
# of them, backtrace() and libunwind called by the program (which must not
# see hprof's exit thunk, nor a frame of hprof's), swapcontext, a
# coroutine library's own switch to a stack on the thread's own (issue
# 39.4: the frames left for it were taken for gone, and their returns
# found no record: abort), fork, threads, a cancelled thread and
# pthread_exit print the same and exit with the same status as without
# hprof.
. "$(dirname "$0")/progs/lib.sh"
require_built "exact safety build"
HERE=$(cd "$(dirname "$0")" && pwd)
if ! $MPICXX -g -O2 -rdynamic -fpatchable-function-entry=18,16 "$HERE/unwind/safety.cpp" -o safety -lunwind \
    2>build.err; then
    notok "exact safety build" "$(oneline build.err 300)"; finish
fi
for mode in exceptions longjmp siglongjmp backtrace libunwind swapcontext coswitch fork threads cancel exit_thread; do
    run_mpi "plain-$mode" 1 ./safety "$mode"; rc0=$?
    HPROFTEST_EXACT='*' HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/$mode.cubex run_mpi_preload "hprof-$mode" 1 \
        ./safety "$mode"; rc1=$?
    if [ $rc0 -ne 5 ]; then
        notok "exact safety $mode" "without hprof: exit $rc0 ($(oneline plain-$mode.err 200))"
    elif [ $rc1 -ne $rc0 ]; then
        notok "exact safety $mode" "exit $rc1 under hprof, $rc0 without; $(tail -n 3 hprof-$mode.err | tr '\n' ' ')"
    elif ! cmp -s "plain-$mode.out" "hprof-$mode.out"; then
        notok "exact safety $mode" "output differs: '$(oneline plain-$mode.out 150)' vs '$(oneline hprof-$mode.out 150)'"
    elif ! grep -q "functions measured exactly" hprof-$mode.err && ! "$TEST_VIEW" --csv $mode.cubex 2>/dev/null | grep -q ',exact_time,'; then
        notok "exact safety $mode" "nothing was measured exactly: $(oneline hprof-$mode.err 200)"
    else
        ok "exact safety $mode: every function measured exactly, same output and exit status ($(oneline plain-$mode.out 60))"
    fi
done
finish
