#!/bin/bash
# unwind_equivalence: the fast capture (cached recipes, thunk stack) gives
# the same call path as a plain libunwind walk at every MPI call and every
# sample, for random call trees (recursion, mutual recursion, tail calls,
# inlined functions, calls through pointers) in C and C++, at -O0/-O2/-O3,
# with and without -fomit-frame-pointer, thunks on and off.
# HPROFTEST_UNWIND_CHECK=1 makes hprof compare each path it records with
# libunwind's (on a stack with the original return addresses) and print
#   hprof-unwind-check: pid P compared N mismatched M recipes R mpi_fast A
#     mpi_fallback B mpi_failed C samples_fast D samples_fallback E samples_failed F
# at exit.
. "$(dirname "$0")/progs/lib.sh"
require_built "unwind equivalence build"
HERE=$(cd "$(dirname "$0")" && pwd)
SEEDS=${UNWIND_SEEDS:-"11 12 13"}
total=0 bad=0 samples=0 runs=0 fails=""
for seed in $SEEDS; do
    for lang in c cxx; do
        python3 "$HERE/unwind/gen_calltree.py" "$seed" "$lang" > "t$seed.$lang.src" || { notok "generate $seed" "gen_calltree.py failed"; finish; }
        if [ $lang = c ]; then cc=$MPICC; src=t$seed.c; else cc=$MPICXX; src=t$seed.cpp; fi
        mv "t$seed.$lang.src" "$src"
        for opt in "-O0" "-O2" "-O2 -fomit-frame-pointer" "-O3 -fomit-frame-pointer"; do
            exe=t$seed-$lang-${opt// /}
            if ! $cc -g $opt "$src" -o "$exe" 2>"$exe.build"; then notok "build $exe" "$(oneline "$exe.build" 200)"; continue; fi
            thunks=$(( (runs % 3 == 2) ? 0 : 1 ))
            runs=$((runs + 1))
            HPROFTEST_UNWIND_CHECK=1 HPROF_THUNKS=$thunks HPROF_SAMPLING_HZ=2000 HPROF_OUTPUT=$PWD/$exe.cubex \
                run_mpi_preload "$exe" 1 ./"$exe" 200
            rc=$?
            line=$(grep '^hprof-unwind-check: pid' "$exe.err" | head -n 1)
            if [ $rc -ne 0 ] || [ -z "$line" ]; then
                fails="$fails $exe(rc=$rc)"; show "$exe.err"; continue
            fi
            set -- $line
            total=$((total + $5)); bad=$((bad + $7))
            [ "$7" -eq 0 ] || { fails="$fails $exe(mismatch $7 of $5, thunks=$thunks)"; grep -A2 'mismatch$' "$exe.err" | head -n 6 | sed 's/^/#   /'; }
            samples=$((samples + ${17}))
        done
    done
done
note "$runs runs, $total paths compared ($samples samples on the fast path), $bad mismatches"
if [ -z "$fails" ] && [ "$total" -ge 5000 ] && [ "$samples" -ge 100 ]; then
    ok "fast capture equals libunwind on $total call paths ($runs random programs, C and C++, -O0..-O3, +/-fomit-frame-pointer)"
else
    notok "fast capture equals libunwind" "${fails:-only $total paths compared}"
fi
finish
