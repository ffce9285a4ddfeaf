#!/bin/bash
# Sampling accuracy against a program whose split of time is known
# (sampling/groundtruth.c), on the wall and the cpu clock; the invariant
# "sampled + MPI time = window" on every rank; sampling off; a stress run.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
check="$here/sampling/check_sampling.py"
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }

build() { # name source
    $MPICC -g -O2 "$here/sampling/$2" -o "$1" "${HPROF_SHARED[@]}" \
        || { notok "build $2"; exit 1; }
}
build groundtruth groundtruth.c
build stress stress.c

run_groundtruth() { # clock
    local clock=$1
    GT_CLOCK=$clock HPROF_OUTPUT=gt-$clock.cubex HPROF_SAMPLING_HZ=1000 HPROF_SAMPLING_CLOCK=$clock HPROF_VERBOSE=2 \
        timeout 120 $MPIRUN -np 2 ./groundtruth >gt-$clock.out 2>gt-$clock.err
    local rc=$?
    if [ $rc -ne 0 ] || [ ! -s gt-$clock.cubex ]; then
        notok "groundtruth ($clock clock) ran and wrote a profile: exit $rc"; cat gt-$clock.err; return
    fi
    "$TEST_VIEW" --csv gt-$clock.cubex >gt-$clock.csv
    python3 "$check" gt-$clock.csv gt-$clock.out gt-$clock.err 1000 "$clock" | sed "s/^\(ok\|not ok\) - /\1 - $clock clock: /"
}
run_groundtruth wall
run_groundtruth cpu

# Sampling off: no computation time and no samples anywhere.
HPROF_OUTPUT=off.cubex HPROF_SAMPLING_HZ=0 timeout 120 $MPIRUN -np 2 ./groundtruth 0.2 >/dev/null 2>off.err
if "$TEST_VIEW" --csv off.cubex >off.csv 2>/dev/null && ! grep -qE ',(comp_time|samples),' off.csv \
   && grep -q ',mpi_time,' off.csv; then
    ok "HPROF_SAMPLING_HZ=0: no samples, no computation time, MPI still measured"
else
    notok "HPROF_SAMPLING_HZ=0: samples or computation time present, or no profile"; cat off.err
fi

# Stress: 10 kHz sampling during ~1M cheap MPI calls per second per rank.
HPROF_OUTPUT=stress.cubex HPROF_SAMPLING_HZ=10000 HPROF_VERBOSE=2 timeout 120 $MPIRUN -np 2 ./stress 2 \
    >stress.out 2>stress.err
rc=$?
if [ $rc -eq 0 ] && [ -s stress.cubex ]; then
    ok "stress: 10 kHz sampling with $(awk '/^calls 0/{printf "%d", $4}' stress.out) MPI calls/s finished"
else
    notok "stress: exit $rc"; tail -5 stress.err
fi
"$TEST_VIEW" --csv stress.cubex >stress.csv 2>/dev/null
python3 "$here/sampling/check_invariant.py" stress.csv stress.err stress
