#!/bin/bash
# unwind_coswitch: the thunk stack alone (no exactly measured function)
# under a coroutine whose stack is a local array of main's, so on the
# thread's own stack above the frames main calls (unwind/coswitch_onstack.c,
# 2 ranks, sampling at 1 kHz). outer() holds a thunk when it switches away;
# the coroutine's walks take the depths of main's frames. Switched with
# swapcontext, with the program's own assembly (which hprof does not see),
# and the same with backtrace() in the coroutine or in outer: the output
# and exit status are those without hprof, and each rank's 1000
# MPI_Barrier calls of outer and of inner are found under their own paths,
# outer's never under "(unwind failed)". (The frames taken for gone kept
# their thunks while another frame's record took their depth: their
# returns went to that frame's return address, SIGSEGV; every walk from
# outer stopped at a thunk whose record was gone: unwind failed.) outer's
# entries are never counted twice: with backtrace() in outer, its slot,
# put back above the stack pointer, was taken for new by outer's second
# walk once the coroutine's walk had cleared "thunks dropped" (2000
# entries; 1 in about 300 runs of "asm backtrace" where a sample in the
# switch fell back to libunwind). No walk fails: a sample in swapcontext
# after its switch of stack pointer, whose walk read the other context's
# stack by swapcontext's CFI, counted under "(unwind failed);swapcontext"
# (1 run in 30 here with both MPIs side by side); it is dropped now
# (unwind/switch_code.h, tests/unit/switch_code.sh).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built "unwind coswitch"
build_or_fail "unwind coswitch: build" build_shared "$MPICC" "$here/unwind/coswitch_onstack.c" coswitch -O1 ||
    finish
for run in "ucontext" "asm" "asm backtrace" "asm outer-backtrace"; do
    tag=${run// /-}
    # shellcheck disable=SC2086 # the mode and its option are words
    run_mpi "plain-$tag" 2 ./coswitch $run; rc0=$?
    # shellcheck disable=SC2086
    HPROF_SAMPLING_HZ=1000 profile_run "unwind coswitch $run: run" "hprof-$tag" "$tag.cubex" "$tag.csv" 2 \
        ./coswitch $run || continue
    if [ "$rc0" -ne 0 ] || ! grep -q "outer 1000, inner 1000" "plain-$tag.out"; then
        notok "unwind coswitch $run" "without hprof: exit $rc0, '$(oneline "plain-$tag.out" 100)'"
        continue
    fi
    check "unwind coswitch $run: same output as without hprof" \
        "'$(oneline "plain-$tag.out" 100)' vs '$(oneline "hprof-$tag.out" 100)'" \
        cmp -s "plain-$tag.out" "hprof-$tag.out"
    E=$tag.expect
    : >"$E"
    t() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$E"; }
    t "outer's MPI_Barrier under outer" 'main;outer;MPI_Barrier' '*' visits@incl == 1000
    # a lower bound: a sample's walk that falls back to libunwind drops
    # the thunks, and the next walk cannot tell a frame's entry
    t "outer's entries seen, never more than made" 'main;outer' '*' function_entries_seen '<=' 1000
    t "outer's entries seen, nearly all" 'main;outer' '*' function_entries_seen '>=' 990
    t "outer never under a failed walk" 'glob:(unwind failed);main;outer*' '*' visits absent
    # the coroutine's root: co_body, where the program's switch starts it,
    # and under swapcontext where makecontext's frame returns to the first
    # instruction of glibc's __start_context, which no CFI before it
    # covers (every such walk failed, with or without thunks)
    t "inner's MPI_Barrier counted" 'glob:*inner;MPI_Barrier' '*' visits@incl == 1000
    t "inner's MPI_Barrier under the coroutine's root" 'co_body;task;task;task;task;inner;MPI_Barrier' \
        '*' visits@incl == 1000
    csv_check "unwind coswitch $run:" "$tag.csv" "$E" 2 --no-failed
done
finish
