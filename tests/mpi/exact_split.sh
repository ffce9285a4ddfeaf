#!/bin/bash
# Functions measured exactly (issue 38.2): patchable entries whose records
# the linker dropped. exact/exact_split_main.cpp and exact_split_b.cpp both
# emit the inline split_shared; GCC ties each file's
# __patchable_function_entries section to that COMDAT group (SHF_LINK_ORDER),
# and the linker, keeping the first file's copy, discards every record of
# the second. Checked first that split_b_work's record is really gone (the
# test cannot pass vacuously), then that split_b_work, selected by name,
# is measured 5 + r times on rank r under main, as split_a_work (whose
# record is there) is, and that HPROF_VERBOSE=1 says one function was found
# by its symbol.
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_split
build_or_fail "exact split: build" build_shared "$MPICXX" "$here/exact/exact_split_b.cpp" split -O2 \
    -fpatchable-function-entry=18,16 "$here/exact/exact_split_main.cpp" || finish

recs=$(python3 "$here/exact/has_record.py" split _Z12split_a_worki _Z12split_b_worki 2>&1 | tr '\n' ' ')
check "exact split: the linker dropped split_b_work's record, not split_a_work's" "$recs" \
    test "$recs" = "_Z12split_a_worki yes _Z12split_b_worki no "

if HPROFTEST_EXACT=split_a_work,split_b_work HPROF_VERBOSE=1 HPROF_SAMPLING_HZ=1000 \
    profile_run "exact split: run" split split.cubex split.csv 2 ./split; then
    for fn in a b; do
        n=0
        for r in 0 1; do
            v=$((5 + r))
            grep -qE "^main;split_${fn}_work\(int\),$r,0,visits,$v,$v$" split.csv && n=$((n + 1))
        done
        check "exact split: split_${fn}_work measured 5 + r times on rank r under main" \
            "$n of 2 ranks; $(grep "split_${fn}_work" split.csv | grep visits | head -4 | tr '\n' ' ')" test "$n" -eq 2
    done
    line='^hprof: split: 1 functions with a patchable entry and no record of it (the linker dropped their object file.s records), found by their symbol$'
    check "exact split: one verbose line counts the function found by its symbol" \
        "$(grep '^hprof' split.err | head -6 | tr '\n' ' ')" test "$(grep -c "$line" split.err)" -eq 1
fi
finish
