#!/bin/bash
# A program with its own SIGPROF handler and ITIMER_PROF keeps them: hprof
# samples on another signal, says so in one line, and still samples.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
$MPICC -g -O2 "$here/sampling/own_sigprof.c" -o own "${HPROF_SHARED[@]}" \
    || { echo "not ok - build own_sigprof.c"; exit 1; }
HPROF_OUTPUT=own.cubex HPROF_SAMPLING_HZ=200 timeout 60 $MPIRUN -np 2 ./own >own.out 2>own.err
rc=$?
[ $rc -eq 0 ] && echo "ok - program with its own SIGPROF ran" || { echo "not ok - exit $rc"; cat own.err; }
n=$(grep -c "uses SIGPROF; sampling on signal" own.err)
[ "$n" -eq 1 ] && echo "ok - one line says which signal hprof samples on" \
    || echo "not ok - expected one line about the signal, got $n: $(cat own.err)"
if awk '$1 == "own" && $3 < 10 { bad = 1 } $1 == "own" { n++ } END { exit !(n == 2 && !bad) }' own.out; then
    echo "ok - the program's own SIGPROF handler kept receiving its signals: $(tr '\n' ' ' <own.out)"
else
    echo "not ok - the program's handler lost its signals: $(cat own.out)"
fi
samples=$("$TEST_VIEW" --csv own.cubex 2>/dev/null | awk -F, '$4 == "samples" && $1 ~ /;work[^;]*$/ { s += $6 } END { print s + 0 }')
[ "$samples" -gt 20 ] && echo "ok - hprof still sampled the program ($samples samples in work)" \
    || echo "not ok - hprof took only $samples samples in work"
