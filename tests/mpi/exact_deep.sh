#!/bin/bash
# exact_deep: a selected recursion 3,000 deep (exact/exact_deep.c), past
# the 512 frames the thunk stack marks. Each entry's walk stops at its
# caller's exactly measured activation, as it does above 512, instead of
# walking 512 frames and failing (each visit then cost 17 us instead of
# 0.3 us, and was booked under a failed path): every rank's visits of rec
# equal its own count, all on rec's own paths (one a depth, 3,001 of
# them, 5 visits each), and no exact entry's walk failed
# (hprof::exact_unwind_failed).
. "$(dirname "$0")/progs/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
require_built exact_deep
build_or_fail "exact deep: build" build_shared "$MPICC" "$here/exact/exact_deep.c" exact_deep -O1 \
    -fpatchable-function-entry=18,16 || finish
HPROF_SELECT='name("^rec$")' HPROF_SAMPLING_HZ=0 \
    profile_run "exact deep: run" deep deep.cubex deep.csv 2 ./exact_deep || finish
for r in 0 1; do
    own=$(sed -n "s/^rank $r: rec \([0-9]*\) calls.*/\1/p" deep.out)
    got=$(awk -F, -v r=$r '$2 == r && $4 == "visits" && $1 ~ /(^|;)rec$/ { v += $5 } END { print v + 0 }' deep.csv)
    other=$(awk -F, -v r=$r '$2 == r && $4 == "visits" && $1 !~ /(^|;)rec$/ && $1 !~ /MPI_/ && $1 != "main" { v += $5 } END { print v + 0 }' deep.csv)
    # one path a depth, each visited once a repetition (hprof-view
    # shortens the deep ones' names, so they are counted, not read)
    paths=$(awk -F, -v r=$r '$2 == r && $4 == "visits" && $1 ~ /(^|;)rec$/ && $5 == 5 { n++ } END { print n + 0 }' deep.csv)
    check "exact deep: rank $r's visits of rec as it counted them, 5 on each of its 3,001 paths" \
        "rec visits $got on rec's paths, $other elsewhere, the program counted ${own:-?}; $paths paths with 5 visits" \
        test "$got" = "$own" -a "$other" = 0 -a "$paths" = 3001
done
failed=$(tar xOf deep.cubex anchor.xml | sed -n 's/.*key="hprof::exact_unwind_failed" value="\([0-9]*\)".*/\1/p')
check "exact deep: no exact entry's walk failed" "hprof::exact_unwind_failed=${failed:-absent}" test "${failed:-x}" = 0
finish
