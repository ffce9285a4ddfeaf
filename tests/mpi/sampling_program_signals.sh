#!/bin/bash
# The program's own use of the sampling signal (issue 30, point 7 c, d).
# (1) A profiler of the program's own on SIGPROF/ITIMER_PROF, started after
#     MPI_Init as Python's are: every tick is handled, on the main thread
#     (CPython runs a Python handler only for a signal the main thread
#     took: one handled elsewhere waits, and the next one is lost). In C
#     (both MPI libraries, ticks counted per thread) and in Python with
#     mpi4py (where it is built for this MPI library). hprof moves to its
#     real-time signal and samples on, every thread. Before, sharing
#     SIGPROF, the main thread blocked it in hprof's handler and the kernel
#     gave the program's tick, due at the same clock tick, to another
#     thread: 25-90% of them.
# (2) A program that blocks SIGPROF: sampled on hprof's real-time signal,
#     with one line, its functions' times as the program measured them;
#     blocking that one too (before MPI_Init, or after it): one line says
#     the thread is not sampled.
. "$(dirname "$0")/progs/lib.sh"
require_built "program signals build"
here=$(cd "$(dirname "$0")" && pwd)

# ---- (1) in C
build_or_fail "late SIGPROF build" build_shared $MPICC "$here/sampling/late_sigprof.c" late -O1 -lpthread || finish
# own RANK TICKS ON_MAIN EXPECTED: all handled (>= 80% of what the CPU time
# owes: the timer's own granularity); alone, >= 95% of them on the main thread
for mode in alone worker; do
    HPROF_OUTPUT=$mode.cubex HPROF_SAMPLING_HZ=200 HPROF_VERBOSE=1 run_mpi $mode 2 ./late $mode; rc=$?
    if [ $rc -eq 0 ] && awk -v alone=$([ $mode = alone ] && echo 1 || echo 0) \
            '$1 == "own" { n++; if ($3 < 0.8 * $5 || (alone && $4 < 0.95 * $3)) bad = 1 }
             END { exit !(n == 2 && !bad) }' $mode.out; then
        ok "C program's own SIGPROF profiler after MPI_Init, $mode: every tick ($(grep '^own' $mode.out | tr '\n' ' '))"
    else
        notok "C program's own SIGPROF profiler after MPI_Init, $mode" "status $rc; own RANK TICKS ON_MAIN EXPECTED: $(grep '^own' $mode.out | tr '\n' ' ') $(grep -v '^hprof' $mode.err | tail -n 3 | tr '\n' ' ')"
    fi
    grep -q "sampling moves to signal [0-9]*" $mode.err && ok "$mode: hprof moved off SIGPROF (HPROF_VERBOSE=1 says so)" \
        || notok "$mode: hprof moved off SIGPROF" "no line: $(grep '^hprof' $mode.err | tr '\n' ' ' | cut -c1-300)"
done
# hprof went on sampling both threads
to_csv worker.cubex worker.csv
read -r in_main in_worker < <(awk -F, '$4 == "samples" && $1 == "main" { m += $6 } $4 == "samples" && $1 ~ /worker$/ { w += $6 }
                                     END { print m + 0, w + 0 }' worker.csv)
[ "$in_main" -gt 150 ] && [ "$in_worker" -gt 100 ] \
    && ok "hprof went on sampling both threads ($in_main samples in main, $in_worker in the worker thread started before)" \
    || notok "hprof's samples beside the program's profiler" "$in_main in main, $in_worker in worker (2 ranks, 200 Hz, >= 1 s)"

# ---- (1) in Python (mpi4py built for this MPI library)
py_part() {
    require_mpi4py "Python program's own SIGPROF profiler" /usr/bin/python3
    HPROF_OUTPUT=py.cubex HPROF_SAMPLING_HZ=200 run_mpi_preload py 2 /usr/bin/python3 "$here/sampling/late_sigprof.py"
    local rc=$?
    if [ $rc -eq 0 ] && awk '$1 == "own" { n++; if ($3 < 0.8 * $4) bad = 1 } END { exit !(n == 2 && !bad) }' py.out; then
        ok "Python program's own SIGPROF profiler after MPI_Init: every tick ($(grep '^own' py.out | tr '\n' ' '))"
    else
        notok "Python program's own SIGPROF profiler after MPI_Init" "status $rc; own RANK TICKS EXPECTED: $(grep '^own' py.out | tr '\n' ' ') $(tail -n 3 py.err | tr '\n' ' ')"
    fi
}
(py_part)

# ---- (2) SIGPROF blocked
build_or_fail "blocked build" build_shared $MPICC "$here/sampling/blocked.c" blocked -O1 || finish
for mode in prof all late; do
    HPROF_OUTPUT=$mode.cubex HPROF_SAMPLING_HZ=200 run_mpi $mode 1 ./blocked $mode; rc=$?
    [ $rc -eq 0 ] && to_csv $mode.cubex $mode.csv || { notok "blocked $mode run" "status $rc: $(tail -n 3 $mode.err | tr '\n' ' ')"; continue; }
    lines=$(grep -c '^hprof: ' $mode.err)
    case $mode in
    prof) say='the program blocks SIGPROF; sampling on signal [0-9]* instead' ;;
    all)  say='thread 0 blocks SIGPROF and signal [0-9]*: it is not sampled' ;;
    late) say='thread 0: no sample arrived in [0-9.]* s (it blocked signal [0-9]*' ;;
    esac
    n=$(grep -c "^hprof: $say" $mode.err)
    [ "$n" -eq 1 ] && ok "blocked $mode: one line says so: $(grep "^hprof: $say" $mode.err | cut -c1-160)" \
        || notok "blocked $mode: the line" "expected one '$say', got: $(grep '^hprof: ' $mode.err | grep -v wrote | tr '\n' ' ' | cut -c1-400)"
done
# sampled on the real-time signal: each function's computation as the program timed it (10%)
if [ -s prof.csv ] && read -r c o < <(awk '$1 == "truth" { print $3, $4 }' prof.out) &&
   awk -F, -v c="$c" -v o="$o" '$4 == "comp_time" && $1 ~ /;compute;spin$/ { gc += $6 }
       $4 == "comp_time" && $1 ~ /;other;spin$/ { go += $6 }
       END { printf "# compute %.3f s (truth %.3f), other %.3f s (truth %.3f)\n", gc, c, go, o
             exit !(gc > 0.9 * c && gc < 1.1 * c && go > 0.9 * o && go < 1.1 * o) }' prof.csv; then
    ok "SIGPROF blocked: sampled on the real-time signal, compute and other as the program timed them"
else
    notok "SIGPROF blocked: sampled on the real-time signal" "truth: $(cat prof.out | tr '\n' ' '); profile: $(grep -E 'comp_time' prof.csv | grep -E 'spin' | head -n 4 | tr '\n' ' ')"
fi
finish
