#!/bin/bash
# sampling_cpu_last: on the CPU clock a thread's last interval (from its
# last counted sample to the window's end) is read on that thread's own
# CPU clock, also where another process or thread closes the window:
# sampling/cpu_last.c computes 0.4 s of CPU time sampled at 4 Hz (a sample
# every 0.25 s of it), so that the last interval is 0.15 s of the 0.4.
# 1) A second thread computes and then waits while the main thread calls
# MPI_Finalize, which closes the thread's window. 2) A rank that computes
# and then is killed (SIGTERM): its writer, a fork, closes the window.
# Either way the computation's time in the profile is its CPU time as the
# program read it, within 10% (before, both read 0.25 s: the thread's
# last interval left out at MPI_Finalize, and the writer's own CPU clock,
# near 0, taken for the killed thread's). 3) The main thread computes in
# spin() and calls MPI_Finalize itself, on the CPU clock and on the wall
# clock: the last interval goes where the thread was last sampled, under
# spin(), which then holds the computation's time within 10% (before, it
# went to main, MPI_Finalize's caller, and spin() read 0.25 s).
. "$(dirname "$0")/progs/lib.sh"
require_built "cpu_last build"
HERE=$(cd "$(dirname "$0")" && pwd)
build_or_fail "cpu_last build" build_shared "$MPICC" "$HERE/sampling/cpu_last.c" cpu_last -O2 -pthread || finish

# check_comp LABEL CSV THREAD KEY [PATHS]: the comp_time of rank 0's thread
# THREAD on the paths that match the regular expression PATHS (default:
# all; where the one or two samples land is the sampler's business, a
# frame of clock_gettime or of spin) against the program's own `KEY
# SECONDS` line
check_comp() {
    local label=$1 csv=$2 thread=$3 key=$4 paths=${5:-} own got
    own=$(sed -n "s/^$key \([0-9.]*\)$/\1/p" "$label.out")
    got=$(awk -F, -v th="$thread" -v p="$paths" '$2 == 0 && $3 == th && $4 == "comp_time" && $1 ~ p { s += $5; n++ } END { if (n) print s }' "$csv")
    check "$label: the last interval where it belongs" \
        "thread $thread comp_time ${got:-none} s on paths /${paths}/ for ${own:-no} s of $key (want within 10%)" \
        python3 -c 'import sys; g, o = map(float, sys.argv[1:]); sys.exit(0 if o > 0.3 and abs(g - o) <= 0.1 * o else 1)' \
        "${got:-0}" "${own:-0}"
}

label=cpu-last-thread
HPROF_SAMPLING_CLOCK=cpu HPROF_SAMPLING_HZ=4 HPROF_OUTPUT=$PWD/$label.cubex run_mpi "$label" 1 ./cpu_last thread 0.4
if profile_run_check "$label run" "$label" "$PWD/$label.cubex" "$label.csv" $?; then
    ok "$label run"
    check_comp "$label" "$label.csv" 1 thread_cpu
fi

for clock in cpu wall; do
    label=$clock-last-finalize
    HPROF_SAMPLING_CLOCK=$clock HPROF_SAMPLING_HZ=4 HPROF_OUTPUT=$PWD/$label.cubex run_mpi "$label" 1 ./cpu_last finalize 0.4
    if profile_run_check "$label run" "$label" "$PWD/$label.cubex" "$label.csv" $?; then
        ok "$label run"
        check_comp "$label" "$label.csv" 0 "main_$clock" ';spin(;|$)'
    fi
done

label=cpu-last-killed
rm -f "$label".rank*.cubex
HPROF_SAMPLING_CLOCK=cpu HPROF_SAMPLING_HZ=4 HPROF_OUTPUT=$PWD/$label.cubex run_mpi "$label" 1 ./cpu_last killed 0.4
partial=$PWD/$label.rank0.cubex
for _ in $(seq 300); do # the writer runs in the background: up to 30 s
    [ -s "$partial" ] && break
    sleep 0.1
done
sleep 0.2
if [ -s "$partial" ] && to_csv "$partial" "$label.csv"; then
    ok "$label: partial profile written"
    check_comp "$label" "$label.csv" 0 main_cpu
else
    notok "$label: partial profile written" "no $partial; $(oneline "$label.err" 300)"
fi
finish
