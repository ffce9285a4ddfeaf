#!/bin/bash
# unwind_rows: the recipes a walk uses agree with libunwind at EVERY pc of
# random functions full of mid-function epilogues (-O2/-O3: the CFI
# remembers and restores its state around each), as samples and as return
# addresses, in the order samples would learn them (row_sweep.c; issue 15:
# a row after DW_CFA_restore_state lent the body's CFA to an epilogue).
# Then the issue's reproducer, reduced: MPI calls and samples in such
# epilogues end with a profile (it crashed in MPI_Finalize). The full size
# (4 ranks, 20 s) runs with UNWIND_ROWS_FULL=1 (make soak).
. "$(dirname "$0")/progs/lib.sh"
require_built "unwind rows build"
HERE=$(cd "$(dirname "$0")" && pwd)
SEEDS=${UNWIND_SEEDS:-"1 2"}
$MPICC -g -O1 -I"$ROOT" -c "$HERE/unwind/row_sweep.c" -o row_sweep.o 2>row_sweep.build \
    || { notok "row_sweep build" "$(oneline row_sweep.build 300)"; finish; }
for seed in $SEEDS; do
    python3 "$HERE/unwind/gen_epilogues.py" "$seed" 40 > "g$seed.c" || { notok "generate $seed" "gen_epilogues.py failed"; continue; }
    for opt in -O2 -O3 "-O2 -fno-omit-frame-pointer"; do
        exe=rows$seed${opt// /}
        if ! { $MPICC -g $opt -c "g$seed.c" -o "$exe.o" && $MPICC row_sweep.o "$exe.o" -o "$exe" \
                   "$TEST_LIBDIR/libhprof_internal.a" $HPROF_LINK_LIBS; } >"$exe.build" 2>&1; then
            notok "rows $seed $opt build" "$(oneline "$exe.build" 300)"; continue
        fi
        nm -S --defined-only "$exe" | awk 'NF == 4 && ($3 == "T" || $3 == "t") { print $1, $2, $4 }' > "$exe.ranges"
        restores=$(readelf -wf "$exe" | grep -c DW_CFA_restore_state)
        timeout 60 ./"$exe" "$exe.ranges" > "$exe.out" 2>&1; rc=$?
        line=$(grep '^row_sweep:' "$exe.out")
        if [ $rc -eq 0 ] && [ -n "$line" ] && [ "$restores" -gt 20 ]; then
            ok "rows seed $seed $opt: every pc as libunwind steps it ($restores restore_state; ${line#row_sweep: })"
        else
            notok "rows seed $seed $opt" "rc=$rc restore_state=$restores: $(head -n 3 "$exe.out" | tr '\n' ' ' | cut -c1-600)"
        fi
    done
done

# The reproducer, reduced (2 ranks, 1 kHz, a few seconds, twice).
if [ "${UNWIND_ROWS_FULL:-0}" = 1 ]; then np=4 secs=20 runs=3; else np=2 secs=3 runs=2; fi
build_plain "$MPICC" "$HERE/reliability/finalize_crash.c" finalize_crash -O2 -lpthread \
    || { notok "finalize_crash build" "$(oneline finalize_crash.build.log 300)"; finish; }
for i in $(seq "$runs"); do
    rm -f fc.cubex
    HPROF_SAMPLING_HZ=1000 HPROF_OUTPUT=$PWD/fc.cubex run_mpi_preload fc$i "$np" ./finalize_crash "$secs"; rc=$?
    if [ $rc -eq 0 ] && [ -s fc.cubex ] && grep -q '^done' fc$i.out && to_csv fc.cubex fc$i.csv \
            && grep -q 'MPI_Allreduce' fc$i.csv; then
        ok "finalize_crash run $i ($np ranks, ${secs}s, 1 kHz): exit 0, profile with MPI_Allreduce"
    else
        notok "finalize_crash run $i ($np ranks, ${secs}s, 1 kHz)" "rc=$rc; $(tail -n 3 fc$i.err | tr '\n' ' ' | cut -c1-300)"
    fi
done
finish
