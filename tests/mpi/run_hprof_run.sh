#!/bin/bash
# run_hprof_run: tools/hprof-run MPIRUN -np 2 ./app, app built without
# hprof: exactly one profile, with the app's MPI calls in it (so hprof-run
# picked the libhprof of the MPI library the app links); the app's exit
# status comes back unchanged.
. "$(dirname "$0")/progs/lib.sh"
require_built "hprof-run build"
use_hprof_run
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

# no MPI executable among the arguments: the MPI library comes from the
# launcher (a shell script as the program), or from --mpi (a launcher that
# is a script of its own); neither: one line and status 2
printf '#!/bin/sh\nexec "$(dirname "$0")/app" "$@"\n' > run.sh
printf '#!/bin/sh\nexec %s "$@"\n' "$MPIRUN" > mylauncher
chmod +x run.sh mylauncher
one_profile() { # NAME DIR: the run in DIR left exactly one profile, with app's calls
    local n=$1 d=$2 cubes
    cubes=$(cd "$d" && ls -A | grep '\.cubex')
    if [ "$(wc -w <<<"$cubes")" -ne 1 ]; then
        notok "$n" "cubex files: '$(tr '\n' ' ' <<<"$cubes")'; stderr: $(tail -n 4 "$d/run.err" | tr '\n' ' ' | cut -c1-300)"; return
    fi
    printf 'calls\tglob:*main;work;MPI_Allreduce\t*\tvisits\t==\t5\n' > "$d/run.expect"
    to_csv "$d/$cubes" "$d/run.csv" && csv_check "$n" "$d/run.csv" "$d/run.expect" 2 --ranks
}
mkdir -p run3 && cd run3
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" $MPIRUN -np 2 ../run.sh 5 >run.out 2>run.err </dev/null; rc=$?
cd ..
check "hprof-run MPI library from the launcher: status" "status $rc; stderr: $(tail -n 4 run3/run.err | tr '\n' ' ' | cut -c1-300)" test "$rc" -eq 0
one_profile "hprof-run MPI library from the launcher:" run3
mkdir -p run4 && cd run4
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" --mpi "$TEST_MPI" ../mylauncher -np 2 ../run.sh 5 >run.out 2>run.err </dev/null; rc=$?
cd ..
check "hprof-run --mpi: status" "status $rc; stderr: $(tail -n 4 run4/run.err | tr '\n' ' ' | cut -c1-300)" test "$rc" -eq 0
one_profile "hprof-run --mpi:" run4
mkdir -p run5 && cd run5
$CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" "$HPROF_RUN" ../mylauncher -np 2 ../run.sh 5 >run.out 2>run.err </dev/null; rc=$?
cd ..
if [ "$rc" -eq 2 ] && [ "$(wc -l < run5/run.err)" -eq 1 ] && grep -q '^hprof-run: .*--mpi openmpi|mpich' run5/run.err; then
    ok "hprof-run no MPI library found: one line naming --mpi"
else
    notok "hprof-run no MPI library found: one line naming --mpi" "status $rc; stderr: $(head -c 300 run5/run.err)"
fi
finish
