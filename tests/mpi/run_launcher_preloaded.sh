#!/bin/bash
# run_launcher_preloaded: libhprof preloaded into mpirun itself (and so into the
# launcher's helper processes) writes exactly one profile, from the ranks;
# a program that never calls MPI_Init runs unchanged under LD_PRELOAD (same
# stdout, stderr and status, no file); two runs without HPROF_OUTPUT write
# two different files and the first is not overwritten.
. "$(dirname "$0")/progs/lib.sh"
require_built "launcher build"
unset HPROF_OUTPUT
LIB=$TEST_LIBDIR/libhprof.so
ITERS=20

build_or_fail "launcher build app" build_plain "$MPICC" "$PROGS/app.c" app || finish
build_or_fail "launcher build app-hprof" build_shared "$MPICC" "$PROGS/app.c" app_hprof || finish

# ---- 1. LD_PRELOAD on mpirun
mkdir -p preload && cd preload
LD_PRELOAD=$LIB $CLEAN_ENV timeout -k 5 "$MPI_TIMEOUT" $MPIRUN -np 2 ../app $ITERS >run.out 2>run.err </dev/null; rc=$?
files=$(ls -A | grep -v '^run\.\(out\|err\)$')
ncube=$(ls -A | grep -c '\.cubex')
if [ "$rc" -ne 0 ]; then
    notok "launcher preload mpirun: run" "exit status $rc; stderr: $(tail -n 5 run.err | tr '\n' ' ' | cut -c1-300)"
else
    ok "launcher preload mpirun: run"
fi
if [ "$ncube" -eq 1 ] && [ "$(wc -w <<<"$files")" -eq 1 ]; then
    ok "launcher preload mpirun: exactly one profile"
else
    notok "launcher preload mpirun: exactly one profile" "files in cwd: $(tr '\n' ' ' <<<"$files") (want one .cubex); stderr: $(grep '^hprof:' run.err | head -n 4 | tr '\n' '|')"
fi
nw=$(grep -c '^hprof: wrote ' run.err)
if [ "$nw" -eq 1 ] && [ "$(wrote_field run.err ranks)" = 2 ]; then
    ok "launcher preload mpirun: one finalize line"
else
    notok "launcher preload mpirun: one finalize line" "$nw 'hprof: wrote' lines: $(grep '^hprof:' run.err | head -n 4 | tr '\n' '|')"
fi
prof=$(ls -A | grep '\.cubex' | head -n 1)
if [ -n "$prof" ] && to_csv "$prof" run.csv; then
    printf 'ranks\tmain;work;exchange;MPI_Sendrecv\t*\tvisits\t==\t%s\n' "$ITERS" > run.expect
    printf 'ranks\tmain;work;MPI_Allreduce\t*\tvisits\t==\t%s\n' "$ITERS" >> run.expect
    csv_check "launcher preload mpirun:" run.csv run.expect 2 --ranks
fi
cd ..

# ---- 2. a program that never calls MPI_Init
nompi_case() { # LABEL BINARY
    local label=$1 bin=$2 d=nompi-$1
    mkdir -p "$d" && cd "$d"
    $CLEAN_ENV timeout 30 "../$bin" a "b c" >../$d.ref.out 2>../$d.ref.err; local rc0=$?
    LD_PRELOAD=$LIB $CLEAN_ENV timeout 30 "../$bin" a "b c" >../$d.pre.out 2>../$d.pre.err; local rc1=$?
    local left; left=$(ls -A)
    cd ..
    if [ "$rc0" -eq "$rc1" ] && cmp -s $d.ref.out $d.pre.out && cmp -s $d.ref.err $d.pre.err; then
        ok "launcher no MPI_Init ($label): output unchanged"
    else
        notok "launcher no MPI_Init ($label): output unchanged" "status $rc0 vs $rc1; stdout diff: $(diff $d.ref.out $d.pre.out | head -n 4 | tr '\n' '|'); stderr diff: $(diff $d.ref.err $d.pre.err | head -n 6 | tr '\n' '|')"
    fi
    if [ -z "$left" ]; then
        ok "launcher no MPI_Init ($label): no file written"
    else
        notok "launcher no MPI_Init ($label): no file written" "found: $(tr '\n' ' ' <<<"$left")"
    fi
}
if build_or_fail "launcher build nompi (cc)" build_plain "${CC:-cc}" "$PROGS/nompi.c" nompi_cc; then
    nompi_case cc nompi_cc
fi
if build_or_fail "launcher build nompi (mpicc)" build_plain "$MPICC" "$PROGS/nompi.c" nompi_mpicc; then
    nompi_case mpicc nompi_mpicc
fi

# ---- 3. no HPROF_OUTPUT, twice in a row in the same folder
mkdir -p twice && cd twice
HPROF_SAMPLING_HZ=0 run_mpi first 2 ../app_hprof 5; rc1=$?
first=$(ls -A | grep '\.cubex')
sum1=$( [ -n "$first" ] && [ "$(wc -w <<<"$first")" -eq 1 ] && md5sum "$first" | cut -d' ' -f1)
HPROF_SAMPLING_HZ=0 run_mpi second 2 ../app_hprof 7; rc2=$?
all=$(ls -A | grep '\.cubex')
if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then
    notok "launcher default name: runs" "exit status $rc1, $rc2; stderr: $(tail -n 3 first.err second.err | tr '\n' ' ' | cut -c1-300)"
elif [ "$(wc -w <<<"$first")" -ne 1 ]; then
    notok "launcher default name: first run writes one profile" "cubex files after run 1: $(tr '\n' ' ' <<<"$first"); stderr: $(grep '^hprof:' first.err | tr '\n' '|')"
else
    ok "launcher default name: first run writes one profile"
    second=$(grep -vxF "$first" <<<"$all")
    if [ "$(wc -w <<<"$all")" -eq 2 ] && [ -n "$second" ]; then
        ok "launcher default name: second run writes a new file"
    else
        notok "launcher default name: second run writes a new file" "cubex files after run 2: $(tr '\n' ' ' <<<"$all")"
    fi
    if [ "$(md5sum "$first" | cut -d' ' -f1)" = "$sum1" ]; then
        ok "launcher default name: first file not overwritten"
    else
        notok "launcher default name: first file not overwritten" "$first changed"
    fi
    # each run printed the name it wrote
    p1=$(wrote_path first.err) p2=$(wrote_path second.err)
    if [ -n "$p1" ] && [ -n "$p2" ] && [ "$(basename "$p1")" = "$first" ] && [ "$(basename "$p2")" = "$second" ]; then
        ok "launcher default name: finalize line names the file"
    else
        notok "launcher default name: finalize line names the file" "run 1: '$p1' (file $first), run 2: '$p2' (file $second)"
    fi
    # the second file holds the second run (7 iterations)
    if [ -n "$second" ] && to_csv "$second" second.csv; then
        printf 'second run\tmain;work;exchange;MPI_Sendrecv\t*\tvisits\t==\t7\n' > second.expect
        csv_check "launcher default name:" second.csv second.expect 2
    fi
fi
cd ..
finish
