#!/bin/bash
# spine_hprof_run: tools/hprof-run MPIRUN -np 2 ./app, app built without
# hprof: exactly one profile, with the app's MPI calls in it (so hprof-run
# picked the libhprof of the MPI library the app links); the app's exit
# status comes back unchanged.
. "$(dirname "$0")/progs/lib.sh"
require_built "hprof-run build"
HPROF_RUN=$ROOT/tools/hprof-run
export HPROF_BUILD=$ROOT/build
unset HPROF_OUTPUT
export HPROF_SAMPLING_HZ=0
ITERS=12
if [ ! -x "$HPROF_RUN" ]; then
    notok "hprof-run exists" "$HPROF_RUN missing or not executable"; finish
fi
build_or_fail "hprof-run build" build_plain "$MPICC" "$PROGS/app.c" app || finish

mkdir -p run1 && cd run1
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 2 ../app "$ITERS" >run.out 2>run.err </dev/null; rc=$?
cubes=$(ls -A | grep '\.cubex')
if [ "$rc" -ne 0 ]; then
    notok "hprof-run run" "status $rc; stderr: $(tail -n 6 run.err | tr '\n' ' ' | cut -c1-400)"
else
    ok "hprof-run run"
fi
if [ "$(wc -w <<<"$cubes")" -eq 1 ]; then
    ok "hprof-run exactly one profile"
    if to_csv "$cubes" run.csv; then
        {
            printf 'app calls profiled\tmain;work;exchange;MPI_Sendrecv\t*\tvisits\t==\t%s\n' "$ITERS"
            printf 'app calls profiled\tmain;work;exchange;MPI_Sendrecv\t*\tbytes_sent\t==\t%s\n' $((ITERS * 256 * 8))
            printf 'app calls profiled\tmain;work;MPI_Allreduce\t*\tvisits\t==\t%s\n' "$ITERS"
        } > run.expect
        csv_check "hprof-run" run.csv run.expect 2 --ranks --no-failed
    else
        notok "hprof-run csv" "$(head -c 300 run.csv.err)"
    fi
else
    notok "hprof-run exactly one profile" "cubex files: '$(tr '\n' ' ' <<<"$cubes")'; stderr: $(tail -n 6 run.err | tr '\n' ' ' | cut -c1-400)"
fi
grep -q "app: done $ITERS iterations on 2 ranks" run.out || notok "hprof-run app output" "stdout: $(oneline run.out 200)"
cd ..

# the app's exit status passes through
mkdir -p run2 && cd run2
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 2 ../app 2 3 >run.out 2>run.err </dev/null; rc=$?
if [ "$rc" -eq 3 ]; then
    ok "hprof-run exit status passes through"
else
    notok "hprof-run exit status passes through" "status $rc, want 3; stderr: $(tail -n 4 run.err | tr '\n' ' ' | cut -c1-300)"
fi
cd ..
finish
